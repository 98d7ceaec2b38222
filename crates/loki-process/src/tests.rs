//! Tests of the process runner against real processes and real signals.

use std::ffi::OsString;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::*;
use crate::output::CaptureBuf;
use crate::tree::parse_stat;

mod stdin;

fn sh(script: &str) -> Spec {
    Spec::new("sh", std::env::temp_dir())
        .args(["-c", script])
        .envs(scrubbed_env())
}

/// A pid counts as alive unless it is gone or a zombie (an orphan waiting for init to reap it is dead).
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next());
            !matches!(state, Some("Z" | "X"))
        }
        Err(_) => false,
    }
}

fn wait_dead(pid: u32) -> bool {
    for _ in 0..100 {
        if !alive(pid) {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn hanging_child_is_killed_at_the_timeout() {
    let out = run(&sh("echo started; sleep 300").timeout(Duration::from_millis(300))).unwrap();
    assert!(out.timed_out);
    assert_eq!(out.exit_code(), TIMEOUT_EXIT_CODE);
    assert!(out.duration < Duration::from_secs(5), "{:?}", out.duration);
    assert_eq!(out.output.text(), "started\n");
    assert!(!out.success());
}

#[test]
fn term_ignoring_child_is_killed_after_the_grace() {
    let started = Instant::now();
    let out =
        run(&sh("trap '' TERM; while :; do sleep 1; done").timeout(Duration::from_millis(200)))
            .unwrap();
    assert!(out.timed_out);
    assert!(started.elapsed() < TERM_GRACE + Duration::from_secs(3));
}

#[test]
fn endless_output_is_capped_head_and_tail() {
    let cap = 64 * 1024;
    let out = run(&Spec::new("yes", std::env::temp_dir())
        .envs(scrubbed_env())
        .timeout(Duration::from_millis(700))
        .output_cap(cap))
    .unwrap();
    assert!(out.timed_out);
    assert_eq!(out.output.head.len(), cap / 2);
    assert_eq!(out.output.tail.len(), cap / 2);
    assert!(
        out.output.dropped > 10 * cap as u64,
        "dropped {}",
        out.output.dropped
    );
    assert!(out.output.head.starts_with(b"y\ny\n"));
    assert!(out.output.text().contains("bytes of output dropped here"));
}

#[test]
fn the_spool_keeps_everything_the_capture_drops() {
    let dir = tempfile::tempdir().unwrap();
    let spool = dir.path().join("out.log");
    // 200,000 numbered lines (about 1.3 MB) through a 4 KiB capture, stderr interleaved.
    let out = run(&sh("seq 1 200000; echo done >&2")
        .output_cap(4096)
        .spool(&spool))
    .unwrap();
    assert!(out.output.is_truncated());
    let info = out.spooled.clone().unwrap();
    assert!(!info.truncated && !info.failed);
    let text = std::fs::read_to_string(&spool).unwrap();
    assert_eq!(info.bytes, text.len() as u64);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 200_001);
    assert_eq!(lines[99_999], "100000");
    assert!(lines.contains(&"done"));
    // Without a spool nothing is written and nothing is reported.
    assert!(run(&sh("echo x")).unwrap().spooled.is_none());
}

#[test]
fn grandchild_dies_with_the_leader() {
    let out = run(&sh("sleep 300 & echo $!")).unwrap();
    assert_eq!(out.exit, Exit::Code(0));
    let pid: u32 = out.output.text().trim().parse().unwrap();
    assert!(wait_dead(pid), "grandchild {pid} outlived its group leader");
}

#[test]
fn grandchild_dies_on_timeout() {
    let out =
        run(&sh("sleep 300 & echo $!; sleep 300").timeout(Duration::from_millis(300))).unwrap();
    assert!(out.timed_out);
    let pid: u32 = out.output.text().trim().parse().unwrap();
    assert!(wait_dead(pid), "grandchild {pid} survived the timeout");
}

/// A descendant in a session of its own (as a coding agent's terminal is), ignoring SIGHUP and
/// SIGTERM, and its child: both die on the timeout although no group signal reaches them.
#[test]
fn a_descendant_that_left_the_group_dies_on_timeout() {
    if !std::path::Path::new("/proc/self/stat").exists() {
        return;
    }
    let out = run(&sh(
        "setsid sh -c 'trap \"\" HUP TERM; sleep 300 & echo $$ $!; wait' & sleep 300",
    )
    .timeout(Duration::from_millis(600)))
    .unwrap();
    assert!(out.timed_out);
    let text = out.output.text();
    let pids: Vec<u32> = text
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(pids.len(), 2, "{text}");
    for pid in pids {
        assert!(
            wait_dead(pid),
            "{pid} (outside the group) survived the timeout"
        );
    }
}

#[test]
fn stat_lines_parse_whatever_the_command_name() {
    let st = parse_stat(
        42,
        "42 (a) b (c)) S 7 9 9 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 12345 0",
    )
    .unwrap();
    assert_eq!((st.pid, st.ppid, st.pgrp, st.start), (42, 7, 9, 12345));
    assert_eq!(parse_stat(1, "garbage"), None);
}

#[test]
fn dropping_a_running_child_kills_its_group() {
    let running = spawn(
        &Spec::new("sleep", std::env::temp_dir())
            .arg("300")
            .envs(scrubbed_env()),
    )
    .unwrap();
    let pid = running.id();
    assert!(alive(pid));
    drop(running);
    assert!(wait_dead(pid));
}

#[test]
#[expect(
    clippy::disallowed_methods,
    reason = "a second watchdog of the test's own, whose input the test can close"
)]
fn the_watchdog_kills_the_groups_it_holds_when_its_input_ends() {
    use std::io::Write as _;
    let mut dog = Command::new("/bin/sh")
        .args(["-c", WATCHDOG_SCRIPT])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let held = spawn(&sh("sleep 300 & sleep 300")).unwrap();
    let forgotten = spawn(&sh("sleep 300")).unwrap();
    let mut input = dog.stdin.take().unwrap();
    writeln!(input, "+{}", held.id()).unwrap();
    writeln!(input, "+{}", forgotten.id()).unwrap();
    writeln!(input, "-{}", forgotten.id()).unwrap();
    // As when loki dies: the kernel closes the pipe.
    drop(input);
    assert!(dog.wait().unwrap().success());
    let out = held.wait().unwrap();
    assert_eq!(out.exit, Exit::Signal(9));
    assert!(
        alive(forgotten.id()),
        "a forgotten group must be left alone"
    );
    drop(forgotten);
}

#[test]
fn the_process_watchdog_runs() {
    run(&sh("true")).unwrap();
    assert!(watchdog_running());
}

#[test]
fn cancel_stops_the_child() {
    let cancel = Cancel::new();
    let trigger = cancel.clone();
    let t = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        trigger.cancel();
    });
    let out = run(&sh("sleep 300").cancel_with(cancel)).unwrap();
    t.join().unwrap();
    assert!(out.cancelled && !out.timed_out);
    assert!(out.duration < Duration::from_secs(5));
}

#[test]
fn stdin_is_closed() {
    let out = run(&Spec::new("cat", std::env::temp_dir())
        .envs(scrubbed_env())
        .timeout(Duration::from_secs(10)))
    .unwrap();
    assert!(out.success());
    assert!(out.output.head.is_empty());
}

#[test]
fn environment_is_explicit_and_scrubbed() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let env = scrub([
        (OsString::from("FAKE_TOKEN"), OsString::from("sekrit")),
        (OsString::from("AWS_REGION"), OsString::from("eu")),
        (OsString::from("PATH"), path),
        (OsString::from("KEEP_ME"), OsString::from("yes")),
        (OsString::from("CI"), OsString::from("false")),
    ]);
    let out = run(&Spec::new("sh", std::env::temp_dir())
        .args([
            "-c",
            "echo \"[$FAKE_TOKEN][$AWS_REGION][$KEEP_ME][$CI][$NO_COLOR][$HOME]\"",
        ])
        .envs(env))
    .unwrap();
    assert_eq!(out.output.text(), "[][][yes][1][1][]\n");
    assert!(
        scrubbed_env()
            .iter()
            .all(|(k, _)| !is_secret_name(&k.to_string_lossy()))
    );
}

#[test]
fn secret_names() {
    for name in [
        "GITHUB_TOKEN",
        "ANTHROPIC_API_KEY",
        "OPENAI_BASE_URL",
        "aws_profile",
        "DB_PASSWORD",
        "MY_SECRET",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "LOKI_RECEIPT_SIGNING_KEY_FILE",
        "SSH_AUTH_KEY",
    ] {
        assert!(is_secret_name(name), "{name}");
    }
    for name in ["PATH", "HOME", "CARGO_HOME", "LANG", "CI", "GOPATH"] {
        assert!(!is_secret_name(name), "{name}");
    }
}

#[test]
fn killed_child_reports_the_signal() {
    let out = run(&sh("kill -9 $$")).unwrap();
    assert_eq!(out.exit, Exit::Signal(9));
    assert_eq!(out.exit_code(), 137);
    assert!(!out.timed_out);
}

#[test]
fn non_utf8_output_is_kept_as_bytes() {
    let out = run(&sh(r"printf '\377\376ok\n'")).unwrap();
    assert_eq!(out.output.bytes(), b"\xff\xfeok\n");
    assert_eq!(out.output.text(), "\u{fffd}\u{fffd}ok\n");
}

#[test]
fn combined_capture_keeps_arrival_order_and_separate_splits() {
    let script = "echo 1; echo 2 >&2; echo 3";
    let out = run(&sh(script)).unwrap();
    assert_eq!(out.output.text(), "1\n2\n3\n");
    assert!(out.stderr.head.is_empty());
    let out = run(&sh(script).streams(Streams::Separate)).unwrap();
    assert_eq!(out.output.text(), "1\n3\n");
    assert_eq!(out.stderr.text(), "2\n");
}

#[test]
fn missing_program_is_not_found() {
    let err = run(&Spec::new("loki-no-such-program", std::env::temp_dir()).envs(scrubbed_env()))
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");
    // The child's PATH decides, not ours: `sh` exists, but not on this PATH.
    let err = run(&Spec::new("sh", std::env::temp_dir()).env("PATH", "/nonexistent")).unwrap_err();
    assert!(err.is_not_found(), "{err}");
    assert!(err.to_string().contains("PATH=/nonexistent"), "{err}");
}

#[test]
fn missing_cwd_is_its_own_error() {
    let err = run(&Spec::new("sh", "/nonexistent/dir").envs(scrubbed_env())).unwrap_err();
    assert!(matches!(err, ProcessError::NoCwd { .. }));
    assert!(!err.is_not_found());
}

#[test]
fn display_quotes_like_a_shell() {
    let spec = Spec::new("python3", "/").args(["-m", "pytest", "it's here", "a b", ""]);
    assert_eq!(
        spec.display(),
        r#"python3 -m pytest 'it'\''s here' 'a b' ''"#
    );
}

proptest! {
    #[test]
    fn capture_keeps_prefix_and_suffix(
        chunks in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..20),
        cap in 0usize..200,
    ) {
        let mut buf = CaptureBuf::new(cap);
        let mut all = Vec::new();
        for c in &chunks {
            buf.push(c);
            all.extend_from_slice(c);
        }
        let got = buf.finish();
        prop_assert!(got.head.len() + got.tail.len() <= cap);
        prop_assert_eq!(got.head.len() as u64 + got.tail.len() as u64 + got.dropped, all.len() as u64);
        prop_assert!(all.starts_with(&got.head));
        prop_assert!(all.ends_with(&got.tail));
        if got.dropped == 0 {
            prop_assert_eq!(got.bytes(), all);
        }
    }
}

#[test]
fn an_observed_command_keeps_the_callers_environment_but_loki_secrets() {
    let vars = |pairs: &[(&str, &str)]| -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    };
    let caller = vars(&[
        ("OPENAI_API_KEY", "sk-app"),
        ("LOKI_OPENAI_API_KEY", "sk-loki"),
        ("LOKI_RECEIPT_SIGNING_KEY", "pem"),
        ("LOKI_RECEIPT_SIGNING_KEY_FILE", "/k.pem"),
        ("LOKI_RUN_CAP_S", "60"),
        ("GITHUB_TOKEN", "ghp"),
    ]);
    let names = |env: Vec<(OsString, OsString)>| -> Vec<String> {
        env.into_iter()
            .map(|(k, _)| k.to_string_lossy().into_owned())
            .collect()
    };
    assert_eq!(
        names(without_loki_secrets(caller.clone())),
        ["OPENAI_API_KEY", "LOKI_RUN_CAP_S", "GITHUB_TOKEN"]
    );
    assert_eq!(names(without_secrets(caller)), ["LOKI_RUN_CAP_S"]);
}

#[test]
fn a_detached_child_writes_its_log_leads_its_group_and_is_reaped() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("child.log");
    let spec = Spec::new("/bin/sh", dir.path())
        .args([
            "-c",
            "echo out; echo err >&2; cut -d' ' -f5 /proc/$$/stat; exit 3",
        ])
        .env("PATH", "/usr/bin:/bin");
    let child = spawn_detached(&spec, &log).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.exit().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(child.exit(), Some(3));
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("out\n") && text.contains("err\n"), "{text}");
    // Its own process group: the group id in its /proc stat is its own pid.
    let pgid: u32 = text.lines().nth(2).unwrap().trim().parse().unwrap();
    assert_eq!(pgid, child.pid);
    // No zombie left: the reaper collected it.
    assert!(!alive(child.pid));
}

#[test]
fn a_detached_start_in_a_missing_directory_is_refused_by_name() {
    let spec = Spec::new("/bin/sh", "/no/such/dir");
    let err = spawn_detached(&spec, std::path::Path::new("/tmp/unused.log")).unwrap_err();
    assert!(matches!(err, ProcessError::NoCwd { .. }), "{err}");
}

#[test]
fn a_child_that_closes_its_output_before_it_exits_is_waited_for() {
    // Its pipes end long before it does: the wait watches the leader itself (its pidfd) then,
    // and neither returns at the pipes' end nor misses the exit. (The clock starts after the
    // spawn returns, so on a loaded machine a little of the sleep is before it.)
    let out = run(&sh("exec >&- 2>&-; sleep 0.5; exit 7")).unwrap();
    assert_eq!(out.exit_code(), 7);
    assert!(
        out.duration >= Duration::from_millis(250),
        "{:?}",
        out.duration
    );
}

/// `printenv PWD` of a child started in `cwd` with `env` (printenv, not a shell: a shell would
/// fix a wrong `PWD` itself and hide what the child was given).
fn pwd_of(cwd: &std::path::Path, env: Vec<(OsString, OsString)>) -> String {
    let out = run(&Spec::new("printenv", cwd)
        .arg("PWD")
        .envs(env)
        .env("PATH", "/usr/bin:/bin"))
    .unwrap();
    out.output.text().trim_end().to_string()
}

#[test]
fn every_child_gets_a_pwd_naming_its_own_directory() {
    let root = tempfile::tempdir().unwrap();
    let (checkout, worktree) = (root.path().join("checkout"), root.path().join("worktree"));
    std::fs::create_dir_all(&checkout).unwrap();
    std::fs::create_dir_all(&worktree).unwrap();
    let pwd = |p: &std::path::Path| vec![(OsString::from("PWD"), p.as_os_str().to_owned())];
    // A shell's PWD naming another directory (the user's checkout) is replaced.
    assert_eq!(
        pwd_of(&worktree, pwd(&checkout)),
        worktree.display().to_string()
    );
    // None at all: the child gets one.
    assert_eq!(
        pwd_of(&worktree, Vec::new()),
        worktree.display().to_string()
    );
    // A logical path to the same directory (through a symbolic link) is kept, as a shell keeps it.
    let link = root.path().join("link");
    std::os::unix::fs::symlink(&worktree, &link).unwrap();
    assert_eq!(pwd_of(&worktree, pwd(&link)), link.display().to_string());
    // ... but not one with `..` in it, nor a relative one.
    let dotted = checkout.join("../worktree");
    assert_eq!(
        pwd_of(&worktree, pwd(&dotted)),
        worktree.display().to_string()
    );
    assert_eq!(
        pwd_of(&worktree, pwd(std::path::Path::new("worktree"))),
        worktree.display().to_string()
    );
    // A relative directory is named absolutely.
    let here = std::env::current_dir().unwrap();
    assert_eq!(
        pwd_of(std::path::Path::new("."), pwd(&checkout)),
        here.display().to_string()
    );
    // A detached child too.
    let log = root.path().join("child.log");
    let spec = Spec::new("printenv", &worktree)
        .arg("PWD")
        .envs(pwd(&checkout))
        .env("PATH", "/usr/bin:/bin");
    let child = spawn_detached(&spec, &log).unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while child.exit().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().trim_end(),
        worktree.display().to_string()
    );
}

#[test]
fn an_environment_moved_from_the_checkout_names_nothing_in_it() {
    let root = tempfile::tempdir().unwrap();
    let checkout = root.path().join("checkout");
    // The worktree lives in the checkout's `.loki`, as a run's does.
    let worktree = checkout.join(".loki/worktrees/w");
    for d in ["src", ".venv/bin", "node_modules/.bin"] {
        std::fs::create_dir_all(checkout.join(d)).unwrap();
    }
    std::fs::create_dir_all(worktree.join("src")).unwrap();
    let link = root.path().join("link");
    std::os::unix::fs::symlink(&checkout, &link).unwrap();
    let c = checkout.display();
    let w = worktree.display();
    let env: Vec<(OsString, OsString)> = [
        ("PWD", format!("{c}")),
        ("OLDPWD", format!("{c}/src")),
        ("INIT_CWD", format!("{}", link.display())),
        (
            "PATH",
            format!("{c}/.venv/bin:/usr/bin:{c}/node_modules/.bin:/bin"),
        ),
        ("VIRTUAL_ENV", format!("{c}/.venv")),
        ("GIT_WORK_TREE", format!("{w}")),
        ("EDITOR", "vi".to_string()),
        ("BASE_URL", "http://127.0.0.1:8080/v1".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (OsString::from(k), OsString::from(v)))
    .collect();
    let moved = relocate(env.clone(), &checkout, &worktree);
    let get = |k: &str| {
        moved
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.to_string_lossy().into_owned())
    };
    assert_eq!(get("PWD"), Some(format!("{w}")));
    assert_eq!(get("OLDPWD"), Some(format!("{w}/src")));
    // Named through a symbolic link to the checkout: moved all the same.
    assert_eq!(get("INIT_CWD"), Some(format!("{w}")));
    // Not in the worktree: dropped, never left pointing into the checkout.
    assert_eq!(get("PATH").as_deref(), Some("/usr/bin:/bin"));
    assert_eq!(get("VIRTUAL_ENV"), None);
    // Already in the worktree, or no path at all: as they were.
    assert_eq!(get("GIT_WORK_TREE"), Some(format!("{w}")));
    assert_eq!(get("EDITOR").as_deref(), Some("vi"));
    assert_eq!(get("BASE_URL").as_deref(), Some("http://127.0.0.1:8080/v1"));
    // A child working in the checkout itself keeps everything.
    assert_eq!(relocate(env.clone(), &checkout, &checkout), env);
    assert_eq!(relocate(env.clone(), &checkout, &link), env);
}
