//! `Git::sync_tree`: a kept directory brought to a tree, exactly, whatever runs left in it.

use loki_git::Git;

use super::repo_with_history;

/// Every entry below `dir`: path, kind, executable bit, and content or link target.
fn listing(dir: &std::path::Path) -> Vec<(String, String)> {
    use std::os::unix::fs::PermissionsExt;
    fn walk(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            let m = p.symlink_metadata().unwrap();
            if m.file_type().is_symlink() {
                out.push((
                    rel,
                    format!("link {}", std::fs::read_link(&p).unwrap().display()),
                ));
            } else if m.is_dir() {
                out.push((rel, "dir".into()));
                walk(root, &p, out);
            } else {
                let exec = m.permissions().mode() & 0o111 != 0;
                let bytes = std::fs::read(&p).unwrap();
                out.push((
                    rel,
                    format!("file exec={exec} {}", String::from_utf8_lossy(&bytes)),
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

fn set_modified(path: &std::path::Path, at: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(at)
        .unwrap();
}

/// `sync_tree` leaves exactly what a fresh export holds, whatever the runs in between did to the
/// directory, and only writes what differs.
#[test]
fn sync_tree_restores_an_exact_tree_after_runs_changed_it() {
    use std::os::unix::fs::PermissionsExt;
    let (r, base, head) = repo_with_history();
    r.write("dir/a.txt", "a\n")
        .write("run.sh", "#!/bin/sh\necho hi\n")
        .write(".gitignore", "out/\n");
    std::fs::set_permissions(
        r.path().join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    std::os::unix::fs::symlink("dir/a.txt", r.path().join("link.txt")).unwrap();
    // A name that is not UTF-8 travels through every step as bytes.
    std::fs::write(
        r.path()
            .join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"caf\xe9.txt")),
        "latin-1\n",
    )
    .unwrap();
    let third = r.commit("more files");
    // A repository that tells git to trust the size and modification time alone: a run that
    // rewrites a file and sets its old time back must still be seen.
    r.git(&["config", "core.checkStat", "minimal"]);
    r.git(&["config", "core.trustctime", "false"]);
    let g = Git::new(r.path());
    let out = tempfile::tempdir().unwrap();
    let exported = |rev: &str| {
        let d = out.path().join(format!("export-{rev}"));
        g.export_tree(rev, &d).unwrap();
        listing(&d)
    };
    let dest = out.path().join("kept");
    let index = out.path().join("kept.index");

    // First call: no index, every file written.
    g.sync_tree(&third, &dest, &index).unwrap();
    assert_eq!(listing(&dest), exported(&third));

    // What runs may leave behind. A file rewritten with its size and its old modification time
    // (long before the index was written, so git does not compare its content as racy).
    let lib = dest.join("src/lib.rs");
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    set_modified(&lib, old);
    g.sync_tree(&third, &dest, &index).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let same_size: String = std::fs::read_to_string(&lib).unwrap().replace('a', "z");
    std::fs::write(&lib, same_size).unwrap();
    set_modified(&lib, old);
    std::fs::remove_file(dest.join("new.txt")).unwrap();
    std::fs::write(
        dest.join(<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"caf\xe9.txt")),
        "changed\n",
    )
    .unwrap();
    std::fs::set_permissions(dest.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::write(dest.join("planted.py"), "x\n").unwrap();
    std::fs::create_dir_all(dest.join("out")).unwrap();
    std::fs::write(dest.join("out/ignored.txt"), "x\n").unwrap();
    std::fs::create_dir_all(dest.join("src/__pycache__")).unwrap();
    std::fs::write(dest.join("src/__pycache__/lib.pyc"), "x").unwrap();
    std::fs::create_dir_all(dest.join("nested/.git")).unwrap();
    std::fs::write(dest.join("nested/file"), "x\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("a.txt"), "outside\n").unwrap();
    std::fs::remove_dir_all(dest.join("dir")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dest.join("dir")).unwrap();

    g.sync_tree(&third, &dest, &index).unwrap();
    assert_eq!(listing(&dest), exported(&third));
    assert_eq!(
        std::fs::read_to_string(outside.path().join("a.txt")).unwrap(),
        "outside\n",
        "nothing is written through a symlink the runs planted"
    );

    // Another tree, then back: only what differs is written.
    g.sync_tree(&base, &dest, &index).unwrap();
    assert_eq!(listing(&dest), exported(&base));
    let readme = std::fs::metadata(dest.join("README.md")).unwrap();
    g.sync_tree(&head, &dest, &index).unwrap();
    assert_eq!(listing(&dest), exported(&head));
    g.sync_tree(&base, &dest, &index).unwrap();
    let unchanged_lib = std::fs::metadata(dest.join("src/lib.rs")).unwrap();
    g.sync_tree(&base, &dest, &index).unwrap();
    assert_eq!(
        std::fs::metadata(dest.join("src/lib.rs"))
            .unwrap()
            .modified()
            .unwrap(),
        unchanged_lib.modified().unwrap(),
        "an unchanged file is not written again"
    );
    assert!(readme.is_file());

    // What `git clean` leaves (it never removes the work tree's own `.git`) makes the
    // directory not the tree: an error, so the caller writes it afresh.
    std::fs::create_dir_all(dest.join(".git")).unwrap();
    std::fs::write(dest.join(".git/HEAD"), "ref: refs/heads/planted\n").unwrap();
    let err = g.sync_tree(&head, &dest, &index).unwrap_err();
    assert!(err.to_string().contains(".git is not in the tree"), "{err}");
    std::fs::remove_dir_all(dest.join(".git")).unwrap();

    // A submodule is an empty directory; one with files in it is not the tree.
    r.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        "160000,1111111111111111111111111111111111111111,sub",
    ]);
    let with_sub = r.git(&["write-tree"]).trim().to_owned();
    r.git(&["reset", "-q"]);
    g.sync_tree(&with_sub, &dest, &index).unwrap();
    assert_eq!(listing(&dest), exported(&with_sub));
    std::fs::write(dest.join("sub/planted"), "x\n").unwrap();
    let err = g.sync_tree(&with_sub, &dest, &index).unwrap_err();
    assert!(err.to_string().contains("sub is not in the tree"), "{err}");
    std::fs::remove_file(dest.join("sub/planted")).unwrap();

    // A lost index: the directory is made exact all the same.
    std::fs::remove_file(&index).unwrap();
    std::fs::write(dest.join("stray.txt"), "x\n").unwrap();
    g.sync_tree(&head, &dest, &index).unwrap();
    assert_eq!(listing(&dest), exported(&head));
    // The user's index still says nothing is staged.
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "");
}
