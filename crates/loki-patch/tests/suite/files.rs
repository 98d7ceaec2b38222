//! Edits on real files: encodings, confinement, all-or-nothing, permissions and backups.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use loki_patch::{
    ApplyOptions, ChangeKind, PatchError, Rung, apply_patch, backup, edit_file, parse_patch,
};

use super::{dir_with, tree};

const NO_BACKUP: ApplyOptions = ApplyOptions { backup: false };
const WITH_BACKUP: ApplyOptions = ApplyOptions { backup: true };

fn read(dir: &Path, rel: &str) -> Vec<u8> {
    fs::read(dir.join(rel)).unwrap()
}

fn patch(
    root: &Path,
    text: &str,
    opts: ApplyOptions,
) -> Result<Vec<loki_patch::FileChange>, PatchError> {
    apply_patch(root, &parse_patch(text).unwrap(), opts)
}

// --- encodings -------------------------------------------------------------------------------

#[test]
fn crlf_file_matches_an_lf_snippet_and_keeps_crlf() {
    let d = dir_with(&[("w.txt", b"one\r\n  two\r\nthree\r\n")]);
    let out = edit_file(
        d.path(),
        "w.txt",
        "  two\nthree\n",
        "  TWO\n  2b\nthree\n",
        NO_BACKUP,
    )
    .unwrap();
    assert_eq!(out.rung, Rung::Exact);
    assert_eq!(
        read(d.path(), "w.txt"),
        b"one\r\n  TWO\r\n  2b\r\nthree\r\n"
    );
}

#[test]
fn crlf_file_keeps_crlf_through_a_patch() {
    let d = dir_with(&[("w.txt", b"a\r\nb\r\nc\r\n")]);
    patch(
        d.path(),
        "*** Begin Patch\n*** Update File: w.txt\n@@\n a\n-b\n+B\n+B2\n*** End Patch",
        NO_BACKUP,
    )
    .unwrap();
    assert_eq!(read(d.path(), "w.txt"), b"a\r\nB\r\nB2\r\nc\r\n");
}

#[test]
fn missing_final_newline_is_preserved() {
    let d = dir_with(&[("n.txt", b"first\nsecond\nlast")]);
    edit_file(d.path(), "n.txt", "second", "2nd", NO_BACKUP).unwrap();
    assert_eq!(read(d.path(), "n.txt"), b"first\n2nd\nlast");
    edit_file(d.path(), "n.txt", "last", "LAST", NO_BACKUP).unwrap();
    assert_eq!(read(d.path(), "n.txt"), b"first\n2nd\nLAST");
    patch(
        d.path(),
        "*** Begin Patch\n*** Update File: n.txt\n@@\n-first\n+1st\n*** End Patch",
        NO_BACKUP,
    )
    .unwrap();
    assert_eq!(read(d.path(), "n.txt"), b"1st\n2nd\nLAST");
}

#[test]
fn utf8_bom_is_preserved() {
    let d = dir_with(&[("b.txt", b"\xEF\xBB\xBFhello\nworld\n")]);
    edit_file(d.path(), "b.txt", "hello", "hi", NO_BACKUP).unwrap();
    assert_eq!(read(d.path(), "b.txt"), b"\xEF\xBB\xBFhi\nworld\n");
}

#[test]
fn latin1_file_is_edited_byte_exact_and_refuses_wider_chars() {
    let d = dir_with(&[("l.txt", b"caf\xE9 cr\xE8me\nna\xEFve\n")]);
    let out = edit_file(d.path(), "l.txt", "caf\u{e9}", "th\u{e9}", NO_BACKUP).unwrap();
    assert_eq!(out.line, 1);
    assert_eq!(read(d.path(), "l.txt"), b"th\xE9 cr\xE8me\nna\xEFve\n");
    let err = edit_file(
        d.path(),
        "l.txt",
        "na\u{ef}ve",
        "na\u{ef}ve \u{2713}",
        NO_BACKUP,
    )
    .unwrap_err();
    assert!(
        matches!(err, PatchError::Unencodable { ch: '\u{2713}', .. }),
        "{err}"
    );
    assert_eq!(read(d.path(), "l.txt"), b"th\xE9 cr\xE8me\nna\xEFve\n");
}

#[test]
fn binary_file_is_refused_and_untouched() {
    let bytes = b"\x7fELF\0\0\x01binary\n".to_vec();
    let d = dir_with(&[("bin", &bytes)]);
    let err = edit_file(d.path(), "bin", "binary", "text", NO_BACKUP).unwrap_err();
    assert!(matches!(err, PatchError::Binary { .. }), "{err}");
    assert!(err.to_string().contains("looks binary"), "{err}");
    let err = patch(
        d.path(),
        "*** Begin Patch\n*** Update File: bin\n@@\n-binary\n+text\n*** End Patch",
        NO_BACKUP,
    )
    .unwrap_err();
    assert!(matches!(err, PatchError::Binary { .. }), "{err}");
    assert_eq!(read(d.path(), "bin"), bytes);
}

// --- confinement -----------------------------------------------------------------------------

#[test]
fn absolute_parent_and_empty_paths_are_refused() {
    let d = dir_with(&[("a.txt", b"x\n")]);
    // The absolute paths name files outside `d` that this test owns: one that exists, one not.
    let outside = dir_with(&[("kept.txt", b"x\n")]);
    let kept = outside.path().join("kept.txt").display().to_string();
    let escape = outside.path().join("escape.txt");
    for bad in [kept.as_str(), "../a.txt", "sub/../../a.txt", "", ".", "./"] {
        let err = edit_file(d.path(), bad, "x", "y", NO_BACKUP).unwrap_err();
        assert!(
            matches!(err, PatchError::UnsafePath { .. }),
            "{bad:?}: {err}"
        );
    }
    assert_eq!(read(outside.path(), "kept.txt"), b"x\n");
    for bad in [
        escape.to_str().unwrap(),
        "../x.txt",
        "a/../../x.txt",
        ".git/hooks/pre-commit",
        ".loki/runs/x/events.jsonl",
    ] {
        let text = format!("*** Begin Patch\n*** Add File: {bad}\n+y\n*** End Patch");
        let err = patch(d.path(), &text, NO_BACKUP).unwrap_err();
        assert!(
            matches!(err, PatchError::UnsafePath { .. }),
            "{bad:?}: {err}"
        );
    }
    assert!(!escape.exists());
    assert_eq!(tree(d.path()).len(), 1);
}

#[test]
fn symlink_escape_is_refused_and_inside_symlink_is_written_through() {
    let outside = dir_with(&[("secret.txt", b"secret\n")]);
    let d = dir_with(&[("real/f.txt", b"inside\n")]);
    std::os::unix::fs::symlink(outside.path(), d.path().join("out")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), d.path().join("s.txt")).unwrap();
    std::os::unix::fs::symlink(d.path().join("real"), d.path().join("alias")).unwrap();

    for rel in ["out/secret.txt", "s.txt", "out/new.txt"] {
        let err = patch(
            d.path(),
            &format!("*** Begin Patch\n*** Add File: {rel}\n+pwned\n*** End Patch"),
            NO_BACKUP,
        )
        .unwrap_err();
        assert!(matches!(err, PatchError::UnsafePath { .. }), "{rel}: {err}");
        assert!(err.to_string().contains("outside the worktree"), "{err}");
    }
    assert_eq!(
        fs::read(outside.path().join("secret.txt")).unwrap(),
        b"secret\n"
    );
    assert!(!outside.path().join("new.txt").exists());

    edit_file(d.path(), "alias/f.txt", "inside", "edited", NO_BACKUP).unwrap();
    assert_eq!(read(d.path(), "real/f.txt"), b"edited\n");
    assert!(
        fs::symlink_metadata(d.path().join("alias"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

// --- all or nothing --------------------------------------------------------------------------

#[test]
fn a_failing_hunk_leaves_every_file_untouched_and_names_the_hunk() {
    let d = dir_with(&[
        ("a.txt", b"a1\na2\n"),
        ("b.txt", b"b1\nb2\n"),
        ("gone.txt", b"bye\n"),
    ]);
    let before = tree(d.path());
    let err = patch(
        d.path(),
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a1\n+A1\n*** Delete File: gone.txt\n\
         *** Add File: new/c.txt\n+c\n*** Update File: b.txt\n@@\n-b1\n+B1\n@@\n-nope\n+x\n*** End Patch",
        NO_BACKUP,
    )
    .unwrap_err();
    assert!(
        matches!(&err, PatchError::HunkNoMatch { path, hunk: 2, .. } if path == "b.txt"),
        "{err}"
    );
    assert!(
        err.to_string().starts_with("hunk 2 of b.txt failed"),
        "{err}"
    );
    assert_eq!(tree(d.path()), before);
    assert!(!d.path().join("new").exists());
}

#[test]
fn operations_see_earlier_operations_of_the_same_patch() {
    let d = dir_with(&[]);
    let changes = patch(
        d.path(),
        "*** Begin Patch\n*** Add File: f.txt\n+one\n+two\n*** Update File: f.txt\n@@\n-two\n+2\n\
         *** Update File: f.txt\n*** Move to: g.txt\n@@\n-one\n+1\n*** End Patch",
        NO_BACKUP,
    )
    .unwrap();
    assert_eq!(
        tree(d.path()).into_iter().collect::<Vec<_>>(),
        vec![("g.txt".to_string(), b"1\n2\n".to_vec())]
    );
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].kind, ChangeKind::Added);
}

#[test]
fn permissions_survive_an_edit_and_a_move() {
    let d = dir_with(&[("run.sh", b"#!/bin/sh\necho hi\n")]);
    fs::set_permissions(d.path().join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
    edit_file(d.path(), "run.sh", "echo hi", "echo bye", NO_BACKUP).unwrap();
    let mode = |p: &str| fs::metadata(d.path().join(p)).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode("run.sh"), 0o755);
    patch(d.path(), "*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo bye\n+echo moved\n*** End Patch", NO_BACKUP).unwrap();
    assert_eq!(mode("bin/run.sh"), 0o755);
    assert!(!d.path().join("run.sh").exists());
}

#[test]
fn no_temporary_files_are_left_behind() {
    let d = dir_with(&[("a.txt", b"x\n")]);
    edit_file(d.path(), "a.txt", "x", "y", NO_BACKUP).unwrap();
    let _ = edit_file(d.path(), "a.txt", "zzz", "y", NO_BACKUP);
    assert_eq!(tree(d.path()).keys().collect::<Vec<_>>(), ["a.txt"]);
}

#[test]
fn an_edit_that_changes_nothing_writes_nothing() {
    let d = dir_with(&[("a.txt", b"x\n")]);
    let out = edit_file(d.path(), "a.txt", "x", "x", WITH_BACKUP).unwrap();
    assert!(out.change.is_none());
    assert!(!backup::path_for(&d.path().join("a.txt")).exists());
}

// --- backups ---------------------------------------------------------------------------------

#[test]
fn backup_restore_is_byte_exact_and_removes_the_backup() {
    let original: &[u8] = b"line one\r\n\xEF\xBB\xBF caf\xE9 \x01\x02\nno newline";
    let d = dir_with(&[("f.txt", original)]);
    let file = d.path().join("f.txt");
    fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
    let bak = backup::create(&file).unwrap();
    assert_eq!(bak, d.path().join("f.txt.loki.bak"));
    assert_eq!(fs::read(&bak).unwrap(), original);
    assert_eq!(
        fs::metadata(&bak).unwrap().permissions().mode() & 0o777,
        0o640
    );

    fs::write(&file, b"clobbered").unwrap();
    backup::restore(&file).unwrap();
    assert_eq!(fs::read(&file).unwrap(), original);
    assert_eq!(
        fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o640
    );
    assert!(!bak.exists());
    assert!(matches!(
        backup::restore(&file),
        Err(PatchError::NoBackup { .. })
    ));
}

#[test]
fn an_existing_backup_is_never_overwritten() {
    let d = dir_with(&[("f.txt", b"v2\n"), ("f.txt.loki.bak", b"v1\n")]);
    let file = d.path().join("f.txt");
    let err = backup::create(&file).unwrap_err();
    assert!(
        err.to_string().contains("a previous edit was not verified"),
        "{err}"
    );
    let err = edit_file(d.path(), "f.txt", "v2", "v3", WITH_BACKUP).unwrap_err();
    assert!(matches!(err, PatchError::BackupExists { .. }), "{err}");
    assert_eq!(read(d.path(), "f.txt"), b"v2\n");
    assert_eq!(read(d.path(), "f.txt.loki.bak"), b"v1\n");
}

#[test]
fn cleanup_removes_only_the_backup() {
    let d = dir_with(&[("f.txt", b"x\n")]);
    let file = d.path().join("f.txt");
    backup::create(&file).unwrap();
    assert!(backup::cleanup(&file).unwrap());
    assert!(!backup::cleanup(&file).unwrap());
    assert_eq!(tree(d.path()).keys().collect::<Vec<_>>(), ["f.txt"]);
}

#[test]
fn patch_with_backups_backs_up_every_existing_file_it_changes() {
    let d = dir_with(&[("a.txt", b"a\n"), ("del.txt", b"d\n")]);
    let changes = patch(
        d.path(),
        "*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Delete File: del.txt\n*** Add File: n.txt\n+n\n*** End Patch",
        WITH_BACKUP,
    )
    .unwrap();
    assert_eq!(read(d.path(), "a.txt.loki.bak"), b"a\n");
    assert_eq!(read(d.path(), "del.txt.loki.bak"), b"d\n");
    assert!(!d.path().join("n.txt.loki.bak").exists());
    let added = changes.iter().find(|c| c.path == "n.txt").unwrap();
    assert_eq!(
        (added.kind, added.backup.as_ref()),
        (ChangeKind::Added, None)
    );
    // Rolling back restores both files exactly.
    backup::restore(&d.path().join("a.txt")).unwrap();
    backup::restore(&d.path().join("del.txt")).unwrap();
    assert_eq!(read(d.path(), "a.txt"), b"a\n");
    assert_eq!(read(d.path(), "del.txt"), b"d\n");
}

#[test]
fn edit_reports_the_rung_and_line() {
    let d = dir_with(&[("p.py", b"def f():\n    if x:\n        return 1\n")]);
    let out = edit_file(
        d.path(),
        "p.py",
        "if x:\n    return 1\n",
        "if x:\n    return 2\n",
        NO_BACKUP,
    )
    .unwrap();
    assert_eq!((out.rung, out.line), (Rung::Indentation, 2));
    assert_eq!(
        read(d.path(), "p.py"),
        b"def f():\n    if x:\n        return 2\n"
    );
    let change = out.change.unwrap();
    assert_eq!(change.hunks[0].rung, Rung::Indentation);
    assert!(change.diff(false).contains("+        return 2"));
}
