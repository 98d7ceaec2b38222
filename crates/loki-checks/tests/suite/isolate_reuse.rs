//! A base tree exported again with the same content reuses its cargo build directory as built
//! (`isolate::prepare_of`), and a tree of other content never does, whatever was built in between.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use loki_checks::isolate;
use loki_checks::{CheckKind, CheckResult, RunOptions, TestStatus, Tools, detect_with, run_check};
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
            content,
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
