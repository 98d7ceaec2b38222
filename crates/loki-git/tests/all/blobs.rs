//! Many blobs in one `git cat-file --batch`, against a real repository: the bytes, the missing,
//! the hardening, and the cache that lets later reads start no process.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use loki_git::Git;
use loki_test_support::GitRepo;

/// A `git` that logs each call's arguments to `log` before running the real one.
fn logging_git(dir: &Path, log: &Path) -> std::path::PathBuf {
    let real = String::from_utf8(
        std::process::Command::new("sh")
            .args(["-c", "command -v git"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let script = dir.join("git-logged");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}' \"$@\"\n",
            log.display(),
            real.trim()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

fn calls(log: &Path, what: &str) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains(what))
        .count()
}

#[test]
fn one_process_reads_every_side_of_every_file_byte_for_byte() {
    let r = GitRepo::new();
    // Content a line reader would get wrong: newlines at both ends, a fake header, no final newline.
    let tricky = "\nabc blob 3\nHEAD:x missing\n\n";
    r.write("a.txt", tricky)
        .write("dir/b.txt", "b")
        .write("empty", "");
    let base = r.commit("base");
    r.write("a.txt", "changed\n");
    let head = r.commit("head");
    let tree = r.git(&["rev-parse", "HEAD^{tree}"]).trim().to_owned();
    let blob_b = r.git(&["rev-parse", "HEAD:dir/b.txt"]).trim().to_owned();

    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("calls");
    let g = Git::new(r.path()).with_program(logging_git(tmp.path(), &log));
    let requests = [
        format!("{base}:a.txt"),
        format!("{head}:a.txt"),
        blob_b.clone(),
        format!("{tree}:empty"),
        format!("{tree}:no/such/file"),
        format!("{tree}:dir"),
        "HEAD:a.txt".to_owned(),
    ];
    let names: Vec<&str> = requests.iter().map(String::as_str).collect();
    let got = g.read_blobs(&names).unwrap();
    assert_eq!(got[0].as_deref(), Some(tricky.as_bytes()));
    assert_eq!(got[1].as_deref(), Some(&b"changed\n"[..]));
    assert_eq!(got[2].as_deref(), Some(&b"b"[..]));
    assert_eq!(got[3].as_deref(), Some(&b""[..]));
    assert_eq!(got[4], None, "a missing path");
    assert_eq!(got[5], None, "a directory is not a file");
    assert_eq!(got[6].as_deref(), Some(&b"changed\n"[..]));
    assert_eq!(calls(&log, "cat-file"), 1, "one process for all seven");

    // Immutable requests are answered from the handle's cache (shared by its clones) now; a ref is not.
    let clone = g.clone();
    assert_eq!(clone.show_blob(&blob_b).unwrap(), b"b");
    assert_eq!(
        clone.show_file(&base, "a.txt").unwrap().as_deref(),
        Some(tricky.as_bytes())
    );
    assert_eq!(clone.show_file(&tree, "no/such/file").unwrap(), None);
    assert_eq!(calls(&log, "cat-file"), 1, "cached reads start no process");
    assert_eq!(
        clone.show_file("HEAD", "a.txt").unwrap().as_deref(),
        Some(&b"changed\n"[..])
    );
    assert_eq!(calls(&log, "cat-file"), 2, "HEAD can move: read again");
}

#[test]
fn prefetch_fills_the_cache_for_later_readers_and_a_fresh_handle_starts_empty() {
    let r = GitRepo::new();
    r.write("x.rs", "fn x() {}\n").write("y.rs", "fn y() {}\n");
    let head = r.commit("c");
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("calls");
    let program = logging_git(tmp.path(), &log);
    let g = Git::new(r.path()).with_program(&program);
    let x = format!("{head}:x.rs");
    let y = format!("{head}:y.rs");
    g.prefetch(&[x.as_str(), y.as_str(), "HEAD:x.rs"]);
    assert_eq!(calls(&log, "cat-file --batch"), 1);
    assert_eq!(g.show_file(&head, "y.rs").unwrap().unwrap(), b"fn y() {}\n");
    assert_eq!(g.show_file(&head, "x.rs").unwrap().unwrap(), b"fn x() {}\n");
    assert_eq!(calls(&log, "cat-file"), 1);
    // Prefetching what is known starts nothing.
    g.prefetch(&[x.as_str()]);
    assert_eq!(calls(&log, "cat-file"), 1);
    let fresh = Git::new(r.path()).with_program(&program);
    assert_eq!(
        fresh.show_file(&head, "x.rs").unwrap().unwrap(),
        b"fn x() {}\n"
    );
    assert_eq!(calls(&log, "cat-file"), 2);
}

#[test]
fn the_batch_is_hardened_replace_refs_and_filters_change_nothing() {
    let r = GitRepo::new();
    r.write("t.py", "assert f() == 6\n");
    r.write(".gitattributes", "*.py filter=evil diff=evil\n");
    let head = r.commit("c");
    let blob = r.git(&["rev-parse", "HEAD:t.py"]).trim().to_owned();
    // A replace ref that would swap the blob for a weakened test, and a smudge filter and
    // textconv that would rewrite it on the way out.
    let fake = {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("fake");
        std::fs::write(&p, "assert True\n").unwrap();
        r.git(&["hash-object", "-w", p.to_str().unwrap()])
            .trim()
            .to_owned()
    };
    r.git(&["replace", &blob, &fake]);
    r.git(&["config", "filter.evil.smudge", "sed s/6/3/"]);
    r.git(&["config", "diff.evil.textconv", "sed s/6/3/"]);
    assert_eq!(
        r.git(&["cat-file", "-p", &blob]),
        "assert True\n",
        "the trap is set"
    );

    let g = Git::new(r.path());
    let got = g
        .read_blobs(&[blob.as_str(), &format!("{head}:t.py"), "HEAD:t.py"])
        .unwrap();
    for b in got {
        assert_eq!(b.as_deref(), Some(&b"assert f() == 6\n"[..]));
    }
}

#[test]
fn a_path_with_a_line_break_is_read_alone() {
    let r = GitRepo::new();
    r.write("odd\nname.txt", "odd\n")
        .write("plain.txt", "plain\n");
    let head = r.commit("c");
    let odd = format!("{head}:odd\nname.txt");
    let plain = format!("{head}:plain.txt");
    let got = Git::new(r.path())
        .read_blobs(&[odd.as_str(), plain.as_str()])
        .unwrap();
    assert_eq!(got[0].as_deref(), Some(&b"odd\n"[..]));
    assert_eq!(got[1].as_deref(), Some(&b"plain\n"[..]));
}

#[test]
fn no_requests_start_no_process() {
    let r = GitRepo::new();
    r.write("a", "a");
    r.commit("c");
    let tmp = tempfile::tempdir().unwrap();
    let log = tmp.path().join("calls");
    let g = Git::new(r.path()).with_program(logging_git(tmp.path(), &log));
    assert!(g.read_blobs(&[]).unwrap().is_empty());
    g.prefetch(&[]);
    assert_eq!(calls(&log, "cat-file"), 0);
}
