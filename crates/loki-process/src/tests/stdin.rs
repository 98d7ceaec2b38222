//! A child fed bytes on stdin ([`Spec::stdin_bytes`]): delivered whole, and a child that does not
//! take them (exits early, never reads, is killed while the writer waits) neither hangs the run
//! nor makes it an error.

use std::time::{Duration, Instant};

use super::sh;
use crate::*;

/// Bytes no line-oriented shortcut would get right: every byte value, newlines and NULs included.
fn varied(len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| ((i * 7 + i / 251) % 256).to_le_bytes()[0])
        .collect()
}

#[test]
fn fed_bytes_reach_the_child_whole_and_stdin_is_closed_after_them() {
    // Several pipe buffers' worth, so the writer and the reader of the output interleave.
    let input = varied(3 * 1024 * 1024 + 17);
    let out = run(&sh("cat; echo end >&2")
        .stdin_bytes(input.clone())
        .streams(Streams::Separate)
        .output_cap(8 * 1024 * 1024))
    .unwrap();
    assert!(out.success(), "{out:?}");
    assert_eq!(out.output.bytes(), input);
    assert_eq!(out.stderr.text(), "end\n");
    assert_eq!(out.stdin_unread, 0);
}

#[test]
fn an_empty_input_is_an_immediate_end_of_file() {
    let out = run(&sh("wc -c").stdin_bytes(Vec::new())).unwrap();
    assert_eq!(out.output.text().trim(), "0");
    assert_eq!(out.stdin_unread, 0);
}

#[test]
fn a_child_that_exits_before_reading_is_not_an_error() {
    // EPIPE for the writer: the run ends with the child's own status and counts what it left.
    let input = varied(2 * 1024 * 1024);
    let started = Instant::now();
    let out = run(&sh("exit 3").stdin_bytes(input.clone())).unwrap();
    assert_eq!(out.exit_code(), 3);
    assert!(!out.timed_out);
    assert!(out.stdin_unread > 0, "{out:?}");
    assert!(out.stdin_unread <= input.len() as u64);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn a_child_that_reads_part_and_exits_leaves_the_rest_unread() {
    let input = varied(4 * 1024 * 1024);
    let out = run(&sh("head -c 10 >/dev/null; echo took").stdin_bytes(input)).unwrap();
    assert!(out.success(), "{out:?}");
    assert_eq!(out.output.text(), "took\n");
    assert!(out.stdin_unread > 0, "{out:?}");
}

#[test]
fn a_child_that_never_reads_is_killed_at_the_timeout_while_the_writer_waits() {
    // More than a pipe holds, so the writer blocks until the group's death closes the pipe.
    let input = varied(8 * 1024 * 1024);
    let started = Instant::now();
    let out = run(&sh("echo waiting; sleep 300")
        .stdin_bytes(input)
        .timeout(Duration::from_millis(300)))
    .unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code(), TIMEOUT_EXIT_CODE);
    assert_eq!(out.output.text(), "waiting\n");
    assert!(out.stdin_unread > 0, "{out:?}");
    assert!(started.elapsed() < TERM_GRACE + Duration::from_secs(3));
}

#[test]
fn a_grandchild_that_never_reads_dies_with_the_leader_and_frees_the_writer() {
    // The leader exits; the grandchild holding stdin (explicitly: a background job's stdin is
    // /dev/null otherwise) is killed with the group, so the blocked writer gets EPIPE and the
    // run returns promptly.
    let started = Instant::now();
    let out =
        run(&sh("exec 3<&0; sleep 300 <&3 & echo spawned").stdin_bytes(varied(8 * 1024 * 1024)))
            .unwrap();
    assert!(out.success(), "{out:?}");
    assert!(out.stdin_unread > 0);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn the_group_environment_and_cwd_rules_hold_for_a_fed_child() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&Spec::new("sh", dir.path())
        .args([
            "-c",
            r#"read line; echo "$line:$(pwd):${HOME-unset}:$(ps -o pgid= $$ | tr -d ' ')=$$""#,
        ])
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .stdin_bytes(b"hello\n".to_vec()))
    .unwrap();
    let text = out.output.text();
    let parts: Vec<&str> = text.trim().split(':').collect();
    assert_eq!(parts[0], "hello", "{text}");
    assert_eq!(
        std::fs::canonicalize(parts[1]).unwrap(),
        std::fs::canonicalize(dir.path()).unwrap()
    );
    assert_eq!(parts[2], "unset", "only the given environment");
    let (pgid, pid) = parts[3].split_once('=').unwrap();
    assert_eq!(pgid, pid, "the fed child leads its own group");
}

#[test]
fn input_over_the_cap_is_refused_before_anything_starts() {
    let err = run(&sh("cat").stdin_bytes(vec![0u8; STDIN_CAP + 1])).unwrap_err();
    assert!(matches!(err, ProcessError::StdinTooLarge { .. }), "{err}");
    assert!(err.to_string().contains("in a file instead"), "{err}");
}

#[test]
fn a_spec_in_a_log_shows_the_length_of_its_input_not_its_bytes() {
    let spec = sh("cat").stdin_bytes(b"secret-ish request".to_vec());
    let shown = format!("{spec:?}");
    assert!(shown.contains("Input(18 bytes)"), "{shown}");
    assert!(!shown.contains("secret-ish"), "{shown}");
}
