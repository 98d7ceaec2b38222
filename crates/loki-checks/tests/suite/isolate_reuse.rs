//! A base tree exported again with the same content reuses its cargo build directory as built
//! (`isolate::prepare_of`), and a tree of other content never does, whatever was built in between.
//! A kept hybrid tree, synced, rebuilds what differs from the directory's last tree and only that,
//! even when the agent's code left the next tree's content in place with old times.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use loki_protocol::CheckKind;
use loki_runner::isolate;
use loki_runner::{CheckResult, RunOptions, TestStatus, Tools, detect_with, run_check};
use loki_test_support::GitRepo;

const CARGO_TOML: &str =
    "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";

fn lib_rs(v: i32) -> String {
    format!(
        "pub fn v() -> i32 {{ {v} }}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn two() {{ assert_eq!(super::v(), 2); }}\n}}\n"
    )
}

fn tree_of(repo: &GitRepo, rev: &str) -> String {
    repo.git(&["rev-parse", &format!("{rev}^{{tree}}")])
        .trim()
        .to_owned()
}

/// Exports `tree` to `dest` afresh, as the judge does for each judgement.
fn export(repo: &GitRepo, tree: &str, dest: &Path) {
    if dest.exists() {
        std::fs::remove_dir_all(dest).unwrap();
    }
    loki_git::Git::new(repo.path())
        .export_tree(tree, dest)
        .unwrap();
}

/// What `cargo test --no-run` compiled of the crate in `root` with `target` (stderr).
fn build(root: &Path, target: &Path) -> String {
    let out = Command::new("cargo")
        .args(["test", "--no-run"])
        .current_dir(root)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "cargo test --no-run failed:\n{err}");
    err
}

fn status_of_two(r: &CheckResult) -> Option<TestStatus> {
    r.tests
        .iter()
        .find(|t| t.id.ends_with("tests::two"))
        .map(|t| t.status)
}

#[test]
fn isolate_cargo_reuses_a_base_build_only_for_the_same_tree() {
    let repo = GitRepo::new();
    repo.write("Cargo.toml", CARGO_TOML)
        .write(".gitignore", "target/\nCargo.lock\n")
        .write("src/lib.rs", &lib_rs(1));
    let base = repo.commit("base");
    repo.write("src/lib.rs", &lib_rs(2));
    let head = repo.commit("head");
    let (base_tree, head_tree) = (tree_of(&repo, &base), tree_of(&repo, &head));
    let t = tempfile::tempdir().unwrap();
    let cache = t.path().join("cache");
    let dest = t.path().join("kept").join("tree");
    let mut o = RunOptions::new(t.path().join("logs"));
    o.timeout = Duration::from_secs(300);
    o.rerun_failed = false;
    let check = detect_with(repo.path(), Tools { nextest: false })
        .unwrap()
        .into_iter()
        .find(|c| c.kind == CheckKind::Cargo)
        .unwrap();
    let at = check.at_root(&dest);
    let prepare = |content: Option<&str>| {
        isolate::prepare_of(
            repo.path(),
            &dest,
            content.map_or(isolate::Content::Unknown, isolate::Content::Exact),
            std::slice::from_ref(&at),
            "base",
            &o.env,
            &cache,
        )
        .unwrap()
    };
    let run = |p: &isolate::Prepared| {
        let opts = RunOptions {
            env: p.apply(o.env.clone()),
            ..o.clone()
        };
        run_check(&at, &opts).unwrap()
    };

    // The base is built and run once.
    export(&repo, &base_tree, &dest);
    let p = prepare(Some(&base_tree));
    let target = p.cargo_target_dir().unwrap().to_path_buf();
    let r = run(&p);
    assert_eq!(status_of_two(&r), Some(TestStatus::Failed), "{r:#?}");
    drop(p);

    // Exported again, same content: nothing of the crate is compiled again.
    export(&repo, &base_tree, &dest);
    let p = prepare(Some(&base_tree));
    let out = build(&dest, &target);
    assert!(
        !out.contains("Compiling fx"),
        "the same tree rebuilt its crate:\n{out}"
    );
    drop(p);

    // Another tree built in the same directory in between: the base's export is rebuilt, and its
    // own code runs (the head's build is newer than the base's files would otherwise be).
    export(&repo, &head_tree, &dest);
    let p = prepare(Some(&head_tree));
    let r = run(&p);
    assert_eq!(status_of_two(&r), Some(TestStatus::Passed), "{r:#?}");
    drop(p);
    export(&repo, &base_tree, &dest);
    let p = prepare(Some(&base_tree));
    let r = run(&p);
    assert_eq!(
        status_of_two(&r),
        Some(TestStatus::Failed),
        "the head's build stood in for the base: {r:#?}"
    );
    drop(p);

    // A tree prepared without its content forgets the record: the same tree later rebuilds.
    export(&repo, &base_tree, &dest);
    drop(prepare(None));
    export(&repo, &base_tree, &dest);
    let p = prepare(Some(&base_tree));
    let out = build(&dest, &target);
    assert!(
        out.contains("Compiling fx"),
        "a build after an unrecorded tree was reused:\n{out}"
    );
    drop(p);
}

const WORKSPACE: &str = "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n";

fn member(name: &str, v: i32) -> String {
    format!(
        "pub fn v() -> i32 {{ {v} }}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn two_{name}() {{ assert_eq!(super::v(), 2); }}\n}}\n"
    )
}

fn package(name: &str) -> String {
    format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
}

fn status_in(r: &CheckResult, test: &str) -> Option<TestStatus> {
    r.tests
        .iter()
        .find(|t| t.id.ends_with(test))
        .map(|t| t.status)
}

#[test]
fn isolate_cargo_synced_hybrid_rebuilds_only_what_differs_from_its_last_tree() {
    let repo = GitRepo::new();
    repo.write("Cargo.toml", WORKSPACE)
        .write(".gitignore", "target/\nCargo.lock\n")
        .write("a/Cargo.toml", &package("a"))
        .write("a/src/lib.rs", &member("a", 2))
        .write("b/Cargo.toml", &package("b"))
        .write("b/src/lib.rs", &member("b", 1));
    let one = repo.commit("one");
    repo.write("b/src/lib.rs", &member("b", 2));
    let two = repo.commit("two");
    repo.write("b/src/lib.rs", &member("b", 3));
    let three = repo.commit("three");
    let [one, two, three] = [one, two, three].map(|c| tree_of(&repo, &c));
    let git = loki_git::Git::new(repo.path());
    let t = tempfile::tempdir().unwrap();
    let cache = t.path().join("cache");
    // Two kept directories of the role, as when a concurrent judgement held one: both build in
    // the role's one build directory.
    let kept = [t.path().join("kept"), t.path().join("kept2")];
    for k in &kept {
        std::fs::create_dir_all(k).unwrap();
    }
    let dest = kept[0].join("tree");
    let mut o = RunOptions::new(t.path().join("logs"));
    o.timeout = Duration::from_secs(300);
    o.rerun_failed = false;
    let check = detect_with(repo.path(), Tools { nextest: false })
        .unwrap()
        .into_iter()
        .find(|c| c.kind == CheckKind::Cargo)
        .unwrap();
    let at = check.at_root(&dest);
    let changed = |prev: &str, tree: &str| -> Option<Vec<String>> {
        Some(
            git.raw_changes(prev, tree)
                .ok()?
                .into_iter()
                .map(|c| c.path)
                .collect(),
        )
    };
    let sync = |k: &Path, tree: &str| {
        git.sync_tree(tree, &k.join("tree"), &k.join("tree.index"))
            .unwrap();
    };
    let prepare = |k: &Path, tree: &str| {
        sync(k, tree);
        let changed = |prev: &str| changed(prev, tree);
        isolate::prepare_of(
            repo.path(),
            &k.join("tree"),
            isolate::Content::Synced {
                id: tree,
                changed: &changed,
            },
            std::slice::from_ref(&at),
            "original",
            &o.env,
            &cache,
        )
        .unwrap()
    };
    // As the judge runs in a guarded directory: the build on its own, its end stamped, the run.
    let run_in = |p: &isolate::Prepared, root: &Path| {
        assert!(p.cargo_guarded());
        let out = build(root, p.cargo_target_dir().unwrap());
        p.cargo_built().unwrap();
        let opts = RunOptions {
            env: p.apply(o.env.clone()),
            ..o.clone()
        };
        (out, run_check(&check.at_root(root), &opts).unwrap())
    };
    let run = |p: &isolate::Prepared| run_in(p, &dest).1;

    let p = prepare(&kept[0], &one);
    let target = p.cargo_target_dir().unwrap().to_path_buf();
    let r = run(&p);
    assert_eq!(status_in(&r, "two_b"), Some(TestStatus::Failed), "{r:#?}");
    drop(p);

    // The other directory was synced to the third tree long ago (its files are old).
    sync(&kept[1], &three);
    let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    for f in [
        "a/src/lib.rs",
        "b/src/lib.rs",
        "a/Cargo.toml",
        "b/Cargo.toml",
        "Cargo.toml",
    ] {
        std::fs::File::options()
            .write(true)
            .open(kept[1].join("tree").join(f))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }

    // One member changed: that member is compiled again and runs its new code; the other is not.
    let p = prepare(&kept[0], &two);
    let (out, r) = run_in(&p, &dest);
    assert!(
        out.contains("Compiling b"),
        "the changed member was not rebuilt:\n{out}"
    );
    assert!(
        !out.contains("Compiling a"),
        "an unchanged member was rebuilt:\n{out}"
    );
    assert_eq!(status_in(&r, "two_b"), Some(TestStatus::Passed));
    drop(p);

    // The old directory, in sync with the third tree, has nothing to write: what differs from the
    // build directory's last tree is still made newer than its build, and the third tree's code
    // runs.
    let p = prepare(&kept[1], &three);
    assert_eq!(
        status_in(&run_in(&p, &kept[1].join("tree")).1, "two_b"),
        Some(TestStatus::Failed),
        "the build of the last tree stood in for this one"
    );
    // The tests wrote their temporary directory, as `CARGO_TARGET_TMPDIR` allows.
    std::fs::create_dir_all(target.join("tmp")).unwrap();
    std::fs::write(target.join("tmp").join("scratch"), "x").unwrap();
    drop(p);

    // The same tree again: nothing is compiled.
    let p = prepare(&kept[1], &three);
    let (out, _) = run_in(&p, &kept[1].join("tree"));
    assert!(
        !out.contains("Compiling"),
        "the same tree was rebuilt:\n{out}"
    );
    // The tests planted a file among the outputs after the build (as a test binary that passes
    // everything would be), its time set back before the build.
    let planted = target.join("debug").join("deps").join("planted");
    std::fs::write(&planted, "x").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&planted)
        .unwrap()
        .set_modified(old)
        .unwrap();
    drop(p);

    // The next prepare sees the change after the build: the directory is emptied, all rebuilt.
    let p = prepare(&kept[1], &three);
    assert!(!planted.exists(), "the planted output is still there");
    let (out, _) = run_in(&p, &kept[1].join("tree"));
    assert!(
        out.contains("Compiling a") && out.contains("Compiling b"),
        "a directory written after its build was used as built:\n{out}"
    );
    drop(p);

    // A run that never stamped its build (it could not start): emptied too.
    let p = prepare(&kept[1], &three);
    drop(p);
    let p = prepare(&kept[1], &three);
    let (out, _) = run_in(&p, &kept[1].join("tree"));
    assert!(
        out.contains("Compiling a"),
        "a directory without a stamp was used as built:\n{out}"
    );
    drop(p);
}
