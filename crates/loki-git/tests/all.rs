//! loki-git against real git repositories in temp dirs.

#![expect(
    clippy::unwrap_used,
    clippy::disallowed_methods,
    reason = "tests fail loudly on broken fixtures and write and run fixture files directly (not loki state)"
)]

#[path = "all/blobs.rs"]
mod blobs;
#[path = "all/sync.rs"]
mod sync;

use loki_git::{ChangeKind, Git, GitError};
use loki_test_support::GitRepo;
use sha2::Digest;

fn repo_with_history() -> (GitRepo, String, String) {
    let r = GitRepo::new();
    r.write("src/lib.rs", "fn a() {}\n")
        .write("README.md", "hi\n");
    let base = r.commit("base");
    r.write("src/lib.rs", "fn a() {}\nfn b() {}\n")
        .write("new.txt", "n\n");
    std::fs::remove_file(r.path().join("README.md")).unwrap();
    let head = r.commit("head");
    (r, base, head)
}

#[test]
fn rev_parse_tree_and_head() {
    let (r, base, head) = repo_with_history();
    let g = Git::new(r.path());
    assert_eq!(g.head().unwrap().as_deref(), Some(head.as_str()));
    assert_eq!(g.rev_parse("HEAD~1").unwrap(), base);
    assert_eq!(
        g.tree_of("HEAD").unwrap(),
        r.git(&["rev-parse", "HEAD^{tree}"]).trim()
    );
    assert_eq!(g.current_branch().unwrap().as_deref(), Some("main"));
    let err = g.rev_parse("no-such-rev").unwrap_err();
    assert!(matches!(err, GitError::Failed { code: 128, .. }), "{err}");
    assert!(err.to_string().contains("no-such-rev"), "{err}");
}

#[test]
fn diff_digest_is_sha256_of_plumbing_output() {
    let (r, base, head) = repo_with_history();
    let g = Git::new(r.path());
    let raw = g.diff_tree_raw(&base, &head).unwrap();
    let out = std::process::Command::new("git")
        .current_dir(r.path())
        .args([
            "diff-tree",
            "-r",
            "-z",
            "--raw",
            "--no-renames",
            "--no-abbrev",
            &base,
            &head,
        ])
        .output()
        .unwrap();
    assert_eq!(raw, out.stdout);
    assert_eq!(
        g.diff_digest(&base, &head).unwrap(),
        hex::encode(sha2::Sha256::digest(&out.stdout))
    );
    // User config that changes porcelain output (renames, abbreviations) cannot change the digest.
    r.git(&["config", "diff.renames", "copies"]);
    r.git(&["config", "core.abbrev", "7"]);
    assert_eq!(g.diff_tree_raw(&base, &head).unwrap(), out.stdout);
}

#[test]
fn changes_and_stats() {
    let (r, base, head) = repo_with_history();
    let g = Git::new(r.path());
    let mut changes = g.changes(&base, &head).unwrap();
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    let got: Vec<_> = changes.iter().map(|c| (c.kind, c.path.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (ChangeKind::Deleted, "README.md"),
            (ChangeKind::Added, "new.txt"),
            (ChangeKind::Modified, "src/lib.rs")
        ]
    );
    let s = g.diff_stat(&base, &head).unwrap();
    assert_eq!((s.files, s.insertions, s.deletions), (3, 2, 1));
}

#[test]
fn dirty_tracked_ignores_untracked_files() {
    let (r, _, _) = repo_with_history();
    let g = Git::new(r.path());
    assert!(g.dirty_tracked().unwrap().is_empty());
    r.write("untracked.txt", "u");
    assert!(g.dirty_tracked().unwrap().is_empty());
    r.write("src/lib.rs", "changed\n");
    assert_eq!(g.dirty_tracked().unwrap(), vec!["src/lib.rs".to_string()]);
}

#[test]
fn snapshot_includes_untracked_and_leaves_the_index_alone() {
    let (r, _, head) = repo_with_history();
    let g = Git::new(r.path());
    assert_eq!(g.snapshot_worktree().unwrap(), g.tree_of(&head).unwrap());
    r.write("extra.txt", "e\n");
    r.write(".gitignore", "ignored.txt\n");
    r.write("ignored.txt", "i\n");
    let snap = g.snapshot_worktree().unwrap();
    let files = g.ls_tree(&snap).unwrap();
    assert!(files.contains(&"extra.txt".to_string()));
    assert!(!files.contains(&"ignored.txt".to_string()));
    // The real index still matches HEAD.
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "");
    assert_eq!(g.show_file(&snap, "extra.txt").unwrap().unwrap(), b"e\n");
    assert_eq!(g.show_file(&head, "extra.txt").unwrap(), None);
}

#[test]
fn worktree_commit_and_cleanup() {
    let (r, _, head) = repo_with_history();
    let g = Git::new(r.path());
    let wt = r.path().join(".loki/worktrees/run_x");
    g.worktree_add(&wt, "loki/run_x", &head).unwrap();
    let gw = Git::new(&wt);
    assert_eq!(gw.current_branch().unwrap().as_deref(), Some("loki/run_x"));
    assert_eq!(gw.commit_all("nothing", &[]).unwrap(), None);
    std::fs::write(wt.join("src/lib.rs"), "fn fixed() {}\n").unwrap();
    std::fs::create_dir_all(wt.join("wall")).unwrap();
    std::fs::write(wt.join("wall/loki_wall_1.rs"), "x").unwrap();
    let c = gw
        .commit_all("Fix it\n\nLoki-Run: run_x\n", &["wall"])
        .unwrap()
        .unwrap();
    let files = gw.ls_tree(&c).unwrap();
    assert!(!files.iter().any(|f| f.starts_with("wall/")), "{files:?}");
    let msg = r.git(&["log", "-1", "--format=%B", &c]);
    assert!(msg.contains("Loki-Run: run_x"));
    // The user's checkout did not move.
    assert_eq!(g.head().unwrap().as_deref(), Some(head.as_str()));
    g.worktree_remove(&wt).unwrap();
    g.delete_branch("loki/run_x").unwrap();
    assert!(!wt.exists());
}

#[test]
fn a_repository_without_commits_has_no_head() {
    let r = GitRepo::new();
    let g = Git::new(r.path());
    assert_eq!(g.head().unwrap(), None);
    r.write("a.txt", "a");
    assert_eq!(
        g.ls_tree(&g.snapshot_worktree().unwrap()).unwrap(),
        vec!["a.txt".to_string()]
    );
}

#[test]
fn git_missing_is_a_clear_error() {
    let r = GitRepo::new();
    let g = Git::new(r.path()).with_program("git-not-installed-here");
    let err = g.version().unwrap_err();
    assert!(matches!(err, GitError::NotInstalled), "{err}");
    assert!(err.to_string().contains("install git"));
}

#[test]
fn export_tree_writes_a_snapshot_without_touching_the_checkout() {
    let (r, base, _head) = repo_with_history();
    let g = Git::new(r.path());
    r.write("src/lib.rs", "fn changed() {}\n");
    std::os::unix::fs::symlink("src/lib.rs", r.path().join("link.rs")).unwrap();
    let tree = g.snapshot_worktree().unwrap();
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("export");
    g.export_tree(&tree, &dest).unwrap();
    assert_eq!(
        std::fs::read_to_string(dest.join("src/lib.rs")).unwrap(),
        "fn changed() {}\n"
    );
    assert!(
        dest.join("link.rs")
            .symlink_metadata()
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(!dest.join(".git").exists());
    g.export_tree(&base, &out.path().join("base")).unwrap();
    assert!(out.path().join("base/README.md").is_file());
    // The user's index still says nothing is staged.
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "");
    assert!(
        g.export_tree("no-such-tree", &out.path().join("x"))
            .is_err()
    );
}

#[test]
fn commit_tree_is_deterministic_and_dangling() {
    let (r, _, head) = repo_with_history();
    let g = Git::new(r.path());
    r.write("new-file.txt", "x\n");
    let snap = g.snapshot_worktree().unwrap();
    let c1 = g.commit_tree(&snap, "seal snapshot").unwrap();
    let c2 = g.commit_tree(&snap, "seal snapshot").unwrap();
    assert_eq!(c1, c2);
    assert_eq!(g.tree_of(&c1).unwrap(), snap);
    assert_eq!(g.head().unwrap().as_deref(), Some(head.as_str()));
    assert!(
        g.changes(&head, &c1)
            .unwrap()
            .iter()
            .any(|c| c.path == "new-file.txt")
    );
}

#[test]
fn a_tree_commits_on_a_branch_without_excluded_paths() {
    let (r, _, head) = repo_with_history();
    let g = Git::new(r.path());
    r.git(&["branch", "work", &head]);
    r.write("keep.txt", "k\n")
        .write("wall/loki_wall_a.py", "w\n")
        .write("pkg/__pycache__/x.pyc", "c");
    let snap = g.snapshot_worktree().unwrap();
    let tree = g
        .tree_without(&snap, &["wall/loki_wall_a.py", "*__pycache__*"])
        .unwrap();
    let files = g.ls_tree(&tree).unwrap();
    assert!(files.contains(&"keep.txt".to_string()), "{files:?}");
    assert!(
        !files
            .iter()
            .any(|f| f.starts_with("wall/") || f.contains("__pycache__")),
        "{files:?}"
    );
    let c = g
        .commit_tree_on_branch(&tree, &head, "work", "verified\n\nLoki-Run: x\n")
        .unwrap();
    assert_eq!(g.rev_parse("work").unwrap(), c);
    assert_eq!(g.tree_of(&c).unwrap(), tree);
    assert_eq!(r.git(&["log", "-1", "--format=%P", &c]).trim(), head);
    // Compare-and-swap: the branch has moved on, so committing on the old parent is refused.
    assert!(
        g.commit_tree_on_branch(&tree, &head, "work", "again")
            .is_err()
    );
    assert_eq!(g.rev_parse("work").unwrap(), c);
}

#[test]
fn reset_to_tree_undoes_what_happened_since_a_snapshot() {
    use std::os::unix::fs::PermissionsExt as _;
    let (r, _, _) = repo_with_history();
    let g = Git::new(r.path());
    r.write("agent.txt", "the agent's work\n");
    r.write("run.sh", "#!/bin/sh\n");
    std::fs::set_permissions(
        r.path().join("run.sh"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    r.write(".gitignore", "target/\n");
    let judged = g.snapshot_worktree().unwrap();
    // What a test run does afterwards: a lockfile appears, a tracked file is rewritten, one is
    // deleted, a nested generated directory appears, an ignored build dir fills up.
    r.write("Cargo.lock", "# generated\n");
    r.write("src/lib.rs", "rewritten by a snapshot test\n");
    std::fs::remove_file(r.path().join("new.txt")).unwrap();
    r.write("out/deep/report.xml", "<x/>\n");
    r.write("target/debug/bin", "b\n");
    std::fs::set_permissions(
        r.path().join("run.sh"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let mut put_back = g.reset_to_tree(&judged).unwrap();
    put_back.sort();
    assert_eq!(
        put_back,
        [
            "Cargo.lock",
            "new.txt",
            "out/deep/report.xml",
            "run.sh",
            "src/lib.rs"
        ]
    );
    assert_eq!(g.snapshot_worktree().unwrap(), judged);
    assert!(!r.path().join("out").exists(), "emptied directories go too");
    assert!(
        r.path().join("target/debug/bin").exists(),
        "ignored files are not touched"
    );
    let mode = std::fs::metadata(r.path().join("run.sh"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "the executable bit comes back");
    assert_eq!(
        std::fs::read_to_string(r.path().join("agent.txt")).unwrap(),
        "the agent's work\n"
    );
    // The checkout's index is untouched: it still matches HEAD.
    assert_eq!(r.git(&["diff", "--cached", "--name-only"]), "");
    assert!(g.reset_to_tree(&judged).unwrap().is_empty());
}

#[test]
fn the_snapshot_sees_edits_that_index_bits_or_config_try_to_hide() {
    let (r, _, head) = repo_with_history();
    let g = Git::new(r.path());
    let clean = g.snapshot_worktree().unwrap();
    assert_eq!(clean, g.tree_of(&head).unwrap());
    // What a cheating tool could do to the checkout's own index and config.
    r.git(&["update-index", "--assume-unchanged", "src/lib.rs"]);
    r.git(&["update-index", "--skip-worktree", "new.txt"]);
    r.git(&["config", "core.ignoreStat", "true"]);
    r.write("src/lib.rs", "fn a() {}\nfn b() { unimplemented!() }\n");
    r.write("new.txt", "n2\n");
    assert_eq!(
        r.git(&["status", "--porcelain"]).trim(),
        "",
        "git itself is fooled"
    );
    let snap = g.snapshot_worktree_cached().unwrap();
    assert_eq!(g.snapshot_worktree().unwrap(), snap, "both snapshots agree");
    let mut changed: Vec<String> = g
        .changes(&clean, &snap)
        .unwrap()
        .into_iter()
        .map(|c| c.path)
        .collect();
    changed.sort();
    assert_eq!(changed, ["new.txt", "src/lib.rs"]);
    // The checkout's index keeps its bits: the snapshot worked on a copy.
    assert!(r.git(&["ls-files", "-v", "src/lib.rs"]).starts_with('h'));
}

#[test]
fn a_same_size_edit_with_its_mtime_set_back_is_still_seen() {
    let (r, _, head) = repo_with_history();
    let g = Git::new(r.path());
    r.git(&["config", "core.trustctime", "false"]);
    r.git(&["config", "core.checkStat", "minimal"]);
    let path = r.path().join("src/lib.rs");
    let set_mtime = |t: std::time::SystemTime| {
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(t)
            .unwrap();
    };
    // A clean entry the index trusts by its stat (an old mtime: not "racily clean").
    let before = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    set_mtime(before);
    r.git(&["update-index", "--refresh"]);
    // Past the file system's timestamp tick, so the edit's change time differs.
    std::thread::sleep(std::time::Duration::from_millis(50));
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("fn b()", "fn x()")).unwrap();
    set_mtime(before);
    assert_eq!(
        r.git(&["status", "--porcelain"]).trim(),
        "",
        "git itself is fooled"
    );
    let snap = g.snapshot_worktree_cached().unwrap();
    assert_eq!(g.snapshot_worktree().unwrap(), snap, "both snapshots agree");
    assert_ne!(
        snap,
        g.tree_of(&head).unwrap(),
        "the edit is in the snapshot"
    );
    assert_eq!(
        g.show_file(&snap, "src/lib.rs").unwrap().unwrap(),
        text.replace("fn b()", "fn x()").as_bytes()
    );
}

#[test]
fn the_full_snapshot_includes_files_hidden_only_by_local_excludes() {
    let (r, _, head) = repo_with_history();
    let g = Git::new(r.path());
    let global = r.path().join("../global-excludes");
    std::fs::write(&global, "node_modules/\n*.log\n").unwrap();
    r.git(&["config", "core.excludesFile", global.to_str().unwrap()]);
    std::fs::write(
        r.path().join(".git/info/exclude"),
        "conftest.py\nhidden/\n.loki\n",
    )
    .unwrap();
    r.write(".gitignore", "ignored-by-the-repo.txt\n.venv/\n");
    r.git(&["add", ".gitignore"]);
    r.git(&["commit", "-qm", "gitignore"]);
    // What a cheating agent plants and hides outside the tree, next to what is rightly ignored.
    r.write("conftest.py", "import pytest\n");
    r.write("hidden/plugin.py", "x = 1\n");
    r.write("debug.log", "log\n");
    r.write("node_modules/dep/index.js", "module.exports = 1;\n");
    r.write(".loki/runs/x/run.json", "{}\n");
    r.write("ignored-by-the-repo.txt", "x\n");
    // A `.gitignore` that ignores itself and the conftest.py next to it, and a venv.
    r.write("sub/.gitignore", ".gitignore\nconftest.py\n.env\n");
    r.write("sub/conftest.py", "def pytest_runtest_makereport(): pass\n");
    r.write("sub/.env", "SECRET=1\n");
    r.write(".venv/lib/site.py", "x = 1\n");
    let full = g.ls_tree(&g.snapshot_worktree().unwrap()).unwrap();
    for shown in [
        "conftest.py",
        "hidden/plugin.py",
        "debug.log",
        "sub/.gitignore",
        "sub/conftest.py",
    ] {
        assert!(full.contains(&shown.to_string()), "{shown}: {full:?}");
    }
    for left_out in [
        "node_modules/dep/index.js",
        ".loki/runs/x/run.json",
        "ignored-by-the-repo.txt",
        "sub/.env",
        ".venv/lib/site.py",
    ] {
        assert!(
            !full.contains(&left_out.to_string()),
            "{left_out}: {full:?}"
        );
    }
    // Loki's own worktrees are judged the same way: what the runner loads is in the tree.
    let cached = g.ls_tree(&g.snapshot_worktree_cached().unwrap()).unwrap();
    for shown in ["conftest.py", "sub/conftest.py"] {
        assert!(cached.contains(&shown.to_string()), "{shown}: {cached:?}");
    }
    let _ = head;
}

/// What the repository's own configuration can do to git must not change what loki reads: a clean
/// filter that stores an edited test file as its original, a smudge filter on export, replace
/// refs and grafts that swap a base blob, hooks that run on checkout or commit, a `core.worktree`
/// that points elsewhere.
#[test]
fn repository_controlled_behaviour_cannot_change_what_loki_reads() {
    let r = GitRepo::new();
    r.write("tests/test_a.py", "assert 1 == 1\n");
    let base = r.commit("base");
    let g = Git::new(r.path());

    // A clean filter that hides an edit: git itself now stores the original bytes.
    std::fs::write(r.path().join(".git/info/attributes"), "*.py filter=hide\n").unwrap();
    r.git(&["config", "filter.hide.clean", "printf 'assert 1 == 1\\n'"]);
    r.git(&["config", "filter.hide.smudge", "printf 'assert 1 == 1\\n'"]);
    r.write("tests/test_a.py", "assert True  # weakened\n");
    let plain_git = r.git(&["hash-object", "tests/test_a.py"]);
    assert_eq!(
        plain_git.trim(),
        r.git(&["rev-parse", &format!("{base}:tests/test_a.py")])
            .trim(),
        "the filter hides the edit from git itself"
    );
    let tree = g.snapshot_worktree().unwrap();
    assert_eq!(
        g.show_file(&tree, "tests/test_a.py").unwrap().unwrap(),
        b"assert True  # weakened\n"
    );
    assert_eq!(g.changes(&base, &tree).unwrap().len(), 1);
    // Exports are the blobs' bytes, not what a smudge filter makes of them.
    let out = tempfile::tempdir().unwrap();
    g.export_tree(&tree, out.path()).unwrap();
    assert_eq!(
        std::fs::read(out.path().join("tests/test_a.py")).unwrap(),
        b"assert True  # weakened\n"
    );

    // A replace ref that swaps the base's test blob for a weaker one.
    let weak = r.path().join("weak.py");
    std::fs::write(&weak, "assert True\n").unwrap();
    let weak_blob = r.git(&["hash-object", "-w", "--no-filters", weak.to_str().unwrap()]);
    let real_blob = r.git(&["rev-parse", &format!("{base}:tests/test_a.py")]);
    r.git(&["replace", real_blob.trim(), weak_blob.trim()]);
    assert_eq!(
        r.git(&["cat-file", "blob", real_blob.trim()]),
        "assert True\n",
        "git itself follows the replace ref"
    );
    assert_eq!(
        g.show_file(&base, "tests/test_a.py").unwrap().unwrap(),
        b"assert 1 == 1\n"
    );

    // Hooks never run for loki's git calls.
    let marker = r.path().join("hook-ran");
    let hooks = r.path().join(".git/hooks");
    for hook in [
        "post-checkout",
        "post-commit",
        "pre-commit",
        "reference-transaction",
    ] {
        std::fs::write(
            hooks.join(hook),
            format!("#!/bin/sh\ntouch {}\n", marker.display()),
        )
        .unwrap();
        std::process::Command::new("chmod")
            .args(["+x", hooks.join(hook).to_str().unwrap()])
            .status()
            .unwrap();
    }
    let wt = tempfile::tempdir().unwrap();
    g.worktree_add_detached(&wt.path().join("w"), &base)
        .unwrap();
    let commit = g.commit_tree(&tree, "snapshot").unwrap();
    assert!(!commit.is_empty());
    assert!(!marker.exists(), "a repository hook ran");
    g.worktree_remove(&wt.path().join("w")).unwrap();

    // `core.worktree` pointing at a pristine copy does not redirect the snapshot.
    let pristine = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(pristine.path().join("tests")).unwrap();
    std::fs::write(pristine.path().join("tests/test_a.py"), "assert 1 == 1\n").unwrap();
    r.git(&["config", "core.worktree", pristine.path().to_str().unwrap()]);
    let tree = g.snapshot_worktree().unwrap();
    assert_eq!(
        g.show_file(&tree, "tests/test_a.py").unwrap().unwrap(),
        b"assert True  # weakened\n"
    );
}

#[test]
fn ignored_paths_are_named_by_every_ignore_source() {
    let r = GitRepo::new();
    r.write(".gitignore", "*.log\n");
    r.commit("base");
    std::fs::write(r.path().join(".git/info/exclude"), "secret.py\n").unwrap();
    r.write("sub/.gitignore", ".gitignore\nconftest.py\n");
    let g = Git::new(r.path());
    let got = g
        .ignored(&[
            "a.log",
            "secret.py",
            "sub/conftest.py",
            "sub/.gitignore",
            "kept.py",
        ])
        .unwrap();
    assert_eq!(
        got,
        ["a.log", "secret.py", "sub/conftest.py", "sub/.gitignore"]
    );
    assert!(g.ignored(&["kept.py"]).unwrap().is_empty());
}

#[test]
fn init_names_the_branch_and_authored_by_fixes_the_identity() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("new/repo");
    let g = Git::new(&root).authored_by("loki demo", "demo@loki.invalid");
    g.init(Some("trunk")).unwrap();
    assert_eq!(g.head().unwrap(), None);
    assert_eq!(g.current_branch().unwrap().as_deref(), Some("trunk"));
    std::fs::write(root.join("a.txt"), "a\n").unwrap();
    let commit = g.commit_all("first", &[]).unwrap().unwrap();
    assert_eq!(g.head().unwrap().as_deref(), Some(commit.as_str()));
    let who = loki_test_support::git_command(&root)
        .args(["log", "-1", "--format=%an <%ae> / %cn <%ce>"])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&who.stdout).trim(),
        "loki demo <demo@loki.invalid> / loki demo <demo@loki.invalid>"
    );
}

#[test]
fn ancestry_and_fast_forward() {
    let (r, base, head) = repo_with_history();
    let g = Git::new(r.path());
    assert!(g.is_ancestor(&base, &head).unwrap());
    assert!(g.is_ancestor(&head, &head).unwrap());
    assert!(!g.is_ancestor(&head, &base).unwrap());
    let err = g.is_ancestor("no-such-rev", &head).unwrap_err();
    assert!(matches!(err, GitError::Failed { .. }), "{err}");

    // Back to base, then forward to head: the branch, the index and the files move.
    r.git(&["reset", "-q", "--hard", &base]);
    g.fast_forward(&head).unwrap();
    assert_eq!(g.head().unwrap().as_deref(), Some(head.as_str()));
    assert!(r.path().join("new.txt").exists());
    assert!(g.dirty_tracked().unwrap().is_empty());

    // A commit that is not ahead of HEAD is refused and nothing moves.
    r.git(&["checkout", "-q", "-b", "side", &base]);
    r.write("side.txt", "s\n");
    let side = r.commit("side");
    r.git(&["checkout", "-q", "main"]);
    assert!(g.fast_forward(&side).is_err());
    assert_eq!(g.head().unwrap().as_deref(), Some(head.as_str()));
    assert!(!r.path().join("side.txt").exists());
}

#[test]
fn the_common_dir_is_found_from_a_linked_worktree() {
    let (r, _base, head) = repo_with_history();
    let g = Git::new(r.path());
    let common = g.common_dir().unwrap();
    assert_eq!(
        common.canonicalize().unwrap(),
        r.path().join(".git").canonicalize().unwrap()
    );
    let wt = tempfile::tempdir().unwrap();
    let linked = wt.path().join("w");
    g.worktree_add(&linked, "topic", &head).unwrap();
    assert_eq!(
        Git::new(&linked)
            .common_dir()
            .unwrap()
            .canonicalize()
            .unwrap(),
        common.canonicalize().unwrap()
    );
}

#[test]
fn a_private_git_dir_shows_only_its_branch_at_the_base() {
    let (r, base, head) = repo_with_history();
    let g = Git::new(r.path());
    r.git(&["branch", "other", &head]);
    let wt = tempfile::tempdir().unwrap();
    let worktree = wt.path().join("w");
    g.worktree_add_detached(&worktree, &base).unwrap();
    let private = tempfile::tempdir().unwrap();
    let git_dir = Git::new(&worktree)
        .private_git_dir(
            &private.path().join("git"),
            &g.common_dir().unwrap(),
            "loki/run",
            &base,
        )
        .unwrap();
    assert_eq!(git_dir, private.path().join("git/.git"));
    let in_private = |args: &[&str]| {
        let out = loki_test_support::git_command(&worktree)
            .env("GIT_DIR", &git_dir)
            .env("GIT_WORK_TREE", &worktree)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    assert_eq!(in_private(&["symbolic-ref", "HEAD"]), "refs/heads/loki/run");
    assert_eq!(in_private(&["rev-parse", "HEAD"]), base);
    // Only the run's branch: not `main` or `other`, and the head commit is not reachable.
    assert_eq!(
        in_private(&["for-each-ref", "--format=%(refname)"]),
        "refs/heads/loki/run"
    );
    assert!(!in_private(&["log", "--all", "--format=%H"]).contains(&head));
    // The index matches the checkout: nothing shows as changed.
    assert_eq!(
        in_private(&["status", "--porcelain", "--untracked-files=no"]),
        ""
    );
    // The objects are borrowed, not copied.
    assert_eq!(in_private(&["cat-file", "-t", &base]), "commit");
    assert_eq!(in_private(&["count-objects"]), "0 objects, 0 kilobytes");
}
