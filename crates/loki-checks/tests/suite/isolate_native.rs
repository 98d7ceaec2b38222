//! Isolation of a base run for cargo and Go (`loki_runner::isolate`): a shared target directory
//! never lets another tree's build stand in, path dependencies that leave the tree are noted, and
//! a `go.work` is rewritten into the base tree.

use std::ffi::OsString;
use std::fs;
use std::time::Duration;

use loki_protocol::CheckKind;
use loki_runner::isolate;
use loki_runner::{Check, Tools, detect_with, run_check};
use loki_test_support::GitRepo;

use super::isolate::*;

// ---------------------------------------------------------------------------------------------
// Cargo

const CARGO_TOML: &str =
    "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";

fn lib_rs(v: i32) -> String {
    format!(
        "pub fn v() -> i32 {{ {v} }}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn two() {{ assert_eq!(super::v(), 2); }}\n}}\n"
    )
}

/// A crate whose base says 1 and whose head says 2; the unchanged test asks for 2.
fn cargo_repo() -> (GitRepo, String, String) {
    let repo = GitRepo::new();
    repo.write("Cargo.toml", CARGO_TOML)
        .write(".gitignore", "target/\nCargo.lock\n")
        .write("src/lib.rs", &lib_rs(1));
    let base = repo.commit("base");
    repo.write("src/lib.rs", &lib_rs(2));
    let head = repo.commit("head");
    (repo, base, head)
}

#[test]
fn isolate_cargo_never_reuses_another_trees_build() {
    let (repo, base, head) = cargo_repo();
    let t = tempfile::tempdir().unwrap();
    let shared: OsString = t.path().join("shared-target").into();
    let o = opts(t.path(), "cargo", &[("CARGO_TARGET_DIR", &shared)]);
    let cache = t.path().join("cache");
    let check = only(repo.path(), CheckKind::Cargo);
    let hour = Duration::from_secs(3600);

    // The head builds into the shared target directory.
    let h = run_check(&check, &o).unwrap();
    assert!(passed(&h, "tests::two"), "{}", show(&h));

    // Before: a base tree whose files are older than that build, built into the same directory:
    // cargo calls it fresh and runs the head's test binary, so the base "passes".
    let tree = t.path().join("base-tree");
    export(&repo, &base, &tree);
    age_files(&tree, hour);
    let at = check.at_root(&tree);
    let stale = run_check(&at, &o).unwrap();
    assert!(
        passed(&stale, "tests::two"),
        "a shared target dir reuses the head's build: {}",
        show(&stale)
    );

    // With isolation: the base builds in its own directory and fails as the base does.
    let p = isolate::prepare(
        repo.path(),
        &tree,
        std::slice::from_ref(&at),
        "base",
        &o.env,
        &cache,
    )
    .unwrap();
    let dir = p.cargo_target_dir().unwrap().to_path_buf();
    assert_eq!(
        dir,
        cache
            .join("target")
            .join(isolate::repo_key(repo.path()))
            .join("base")
    );
    let r = run_check(&at, &with_prepared(&o, &p)).unwrap();
    assert!(failed(&r, "tests::two"), "{}", show(&r));
    // A second run of the same role at the same time gets its own directory.
    let p2 = isolate::prepare(
        repo.path(),
        &tree,
        std::slice::from_ref(&at),
        "base",
        &o.env,
        &cache,
    )
    .unwrap();
    assert_eq!(p2.cargo_target_dir().unwrap(), dir.with_file_name("base.1"));
    drop(p2);
    drop(p);
    // The head role keeps the environment's directory.
    let ph = isolate::prepare(
        repo.path(),
        &tree,
        std::slice::from_ref(&at),
        isolate::HEAD_ROLE,
        &o.env,
        &cache,
    )
    .unwrap();
    assert!(ph.cargo_target_dir().is_none() && ph.env().is_empty());

    // One role's directory serves trees one after another: a head-code tree builds there, then a
    // base tree with older files. Without the refresh at prepare, cargo would reuse the first.
    let new_tree = t.path().join("head-code-tree");
    export(&repo, &head, &new_tree);
    let at_new = check.at_root(&new_tree);
    let p = isolate::prepare(
        repo.path(),
        &new_tree,
        std::slice::from_ref(&at_new),
        "original",
        &o.env,
        &cache,
    )
    .unwrap();
    let role_dir = p.cargo_target_dir().unwrap().to_path_buf();
    let r = run_check(&at_new, &with_prepared(&o, &p)).unwrap();
    assert!(passed(&r, "tests::two"), "{}", show(&r));
    drop(p);
    let old_tree = t.path().join("base-code-tree");
    export(&repo, &base, &old_tree);
    age_files(&old_tree, hour);
    let at_old = check.at_root(&old_tree);
    let stale = run_check(
        &at_old,
        &opts(
            t.path(),
            "cargo-stale",
            &[("CARGO_TARGET_DIR", &role_dir.clone().into())],
        ),
    )
    .unwrap();
    assert!(
        passed(&stale, "tests::two"),
        "the same directory without the refresh is stale: {}",
        show(&stale)
    );
    let p = isolate::prepare(
        repo.path(),
        &old_tree,
        std::slice::from_ref(&at_old),
        "original",
        &o.env,
        &cache,
    )
    .unwrap();
    assert_eq!(p.cargo_target_dir().unwrap(), role_dir);
    let r = run_check(&at_old, &with_prepared(&o, &p)).unwrap();
    assert!(
        failed(&r, "tests::two"),
        "after the refresh the base's code is built: {}",
        show(&r)
    );
}

#[test]
fn isolate_cargo_notes_path_dependencies_that_leave_the_tree() {
    let t = tempfile::tempdir().unwrap();
    let ck = t.path().join("ck");
    let tree = t.path().join("tree");
    let outside = t.path().join("outside");
    for d in [&ck, &tree, &outside] {
        fs::create_dir_all(d).unwrap();
    }
    let manifest = format!(
        "[package]\nname = \"fx\"\nversion = \"0.1.0\"\n\n[workspace]\nmembers = [\"crates/inner\"]\n\n[dependencies]\ninner = {{ path = \"crates/inner\" }}\nout = {{ path = \"../outside\" }}\nabs = {{ path = {:?} }}\n",
        ck.join("crates/abs").to_string_lossy()
    );
    fs::write(tree.join("Cargo.toml"), manifest).unwrap();
    let check = Check {
        name: "cargo".into(),
        kind: CheckKind::Cargo,
        dir: ".".into(),
        cwd: tree.clone(),
        command: vec!["cargo".into(), "test".into()],
        script: None,
        why: String::new(),
    };
    let p = isolate::prepare(&ck, &tree, &[check], "base", &[], &t.path().join("cache")).unwrap();
    let notes = p.notes();
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(
        notes
            .iter()
            .any(|n| n.contains("../outside") && n.contains("outside the repository")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("crates/abs") && n.contains("inside the checkout")),
        "{notes:?}"
    );
}

// ---------------------------------------------------------------------------------------------
// Go

#[test]
fn isolate_go_work_is_rewritten_and_copied_into_the_tree() {
    if !loki_test_support::require_tool("go", &["version"]) {
        return;
    }
    let repo = GitRepo::new();
    let ck = fs::canonicalize(repo.path()).unwrap();
    repo.write("app/go.mod", "module example.com/app\n\ngo 1.18\n\nrequire example.com/lib v0.0.0\n")
        .write("app/app.go", "package app\n\nimport \"example.com/lib\"\n\nfunc Value() int { return lib.V() }\n")
        .write(
            "app/app_test.go",
            "package app\n\nimport \"testing\"\n\nfunc TestValue(t *testing.T) {\n\tif Value() != 2 {\n\t\tt.Fatalf(\"got %d\", Value())\n\t}\n}\n\nfunc TestOther(t *testing.T) {}\n",
        )
        .write("lib/go.mod", "module example.com/lib\n\ngo 1.18\n")
        .write("lib/lib.go", "package lib\n\nfunc V() int { return 1 }\n")
        // A go.work that names the checkout by absolute path (as `go work use -r $PWD` writes).
        .write("go.work", &format!("go 1.18\n\nuse (\n\t./app\n\t{}\n)\n", ck.join("lib").display()));
    let base = repo.commit("base");
    repo.write("lib/lib.go", "package lib\n\nfunc V() int { return 2 }\n");
    repo.commit("head");
    let t = tempfile::tempdir().unwrap();
    let o = opts(t.path(), "go", &[("GOPROXY", &OsString::from("off"))]);
    let check = detect_with(&ck, Tools::default())
        .unwrap()
        .into_iter()
        .find(|c| c.kind == CheckKind::Go && c.dir == "app")
        .unwrap();
    let head = run_check(&check, &o).unwrap();
    assert!(passed(&head, "TestValue"), "{}", show(&head));

    // Before: the base tree's go.work uses the checkout's lib.
    let old = t.path().join("old-tree");
    export(&repo, &base, &old);
    let before = run_check(&check.at_root(&old), &o).unwrap();
    assert!(
        passed(&before, "TestValue"),
        "the go.work leads to the head's lib: {}",
        show(&before)
    );

    let tree = t.path().join("base-tree");
    export(&repo, &base, &tree);
    let at = check.at_root(&tree);
    let p = isolate::prepare(
        &ck,
        &tree,
        std::slice::from_ref(&at),
        "base",
        &o.env,
        &t.path().join("cache"),
    )
    .unwrap();
    let after = run_check(&at, &with_prepared(&o, &p)).unwrap();
    assert!(
        failed(&after, "TestValue") && passed(&after, "TestOther"),
        "{}",
        show(&after)
    );
    assert!(p.notes().is_empty(), "{:?}", p.notes());
    assert!(
        fs::read_to_string(ck.join("go.work"))
            .unwrap()
            .contains(&*ck.join("lib").to_string_lossy())
    );

    // An uncommitted go.work (the usual case) exists only in the checkout: without it the base
    // cannot even resolve lib; it is copied into the tree.
    repo.git(&["rm", "-q", "--cached", "go.work"]);
    repo.write(".gitignore", "go.work\n")
        .write("go.work", "go 1.18\n\nuse (\n\t./app\n\t./lib\n)\n");
    let base2 = repo.commit("untrack go.work");
    let tree2 = t.path().join("base-tree-2");
    export(&repo, &base2, &tree2);
    fs::write(
        tree2.join("lib/lib.go"),
        "package lib\n\nfunc V() int { return 1 }\n",
    )
    .unwrap();
    let at2 = check.at_root(&tree2);
    let before = run_check(&at2, &o).unwrap();
    assert!(
        status(&before, "TestValue").is_none(),
        "without go.work lib is not found: {}",
        show(&before)
    );
    let p = isolate::prepare(
        &ck,
        &tree2,
        std::slice::from_ref(&at2),
        "base",
        &o.env,
        &t.path().join("cache"),
    )
    .unwrap();
    assert_eq!(p.created(), [tree2.join("go.work")]);
    let after = run_check(&at2, &with_prepared(&o, &p)).unwrap();
    assert!(
        failed(&after, "TestValue") && passed(&after, "TestOther"),
        "{}",
        show(&after)
    );
}
