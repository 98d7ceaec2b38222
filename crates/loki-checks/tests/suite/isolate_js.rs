//! Isolation of a base run for JavaScript (`loki_runner::isolate`), with real npm and pnpm
//! layouts: a workspace dependency and per-package links resolve to the base tree's copy.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use loki_protocol::CheckKind;
use loki_runner::isolate;
use loki_runner::{Tools, detect_with, run_check};
use loki_test_support::GitRepo;

use super::isolate::*;

// ---------------------------------------------------------------------------------------------
// JavaScript

/// An npm workspace: `@ws/app`'s test requires `@ws/lib` and runs its `wslib` bin. The base's lib
/// says 1, the head's says 2; the test asks for 2.
fn npm_workspace() -> (GitRepo, String) {
    let repo = GitRepo::new();
    repo.write(
        "package.json",
        r#"{"name":"root","private":true,"workspaces":["packages/*"],"scripts":{"test":"node --test packages/app/"}}"#,
    )
    .write(".gitignore", "node_modules/\n")
    .write(
        "packages/lib/package.json",
        r#"{"name":"@ws/lib","version":"1.0.0","main":"index.js","bin":{"wslib":"cli.js"}}"#,
    )
    .write("packages/lib/index.js", "exports.v = () => 1;\n")
    .write("packages/lib/cli.js", "#!/usr/bin/env node\nconsole.log(require('./index.js').v());\n")
    .write(
        "packages/app/package.json",
        r#"{"name":"@ws/app","version":"1.0.0","dependencies":{"@ws/lib":"*"}}"#,
    )
    .write(
        "packages/app/app.test.js",
        "const test = require('node:test');\nconst assert = require('node:assert');\nconst { execFileSync } = require('node:child_process');\n\
         test('lib value', () => assert.strictEqual(require('@ws/lib').v(), 2));\n\
         test('lib bin', () => assert.strictEqual(execFileSync('wslib').toString().trim(), '2'));\n\
         test('unrelated', () => assert.ok(true));\n",
    );
    fs::set_permissions(
        repo.path().join("packages/lib/cli.js"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let base = repo.commit("base");
    repo.write("packages/lib/index.js", "exports.v = () => 2;\n");
    repo.commit("head: lib says 2");
    run(Command::new("npm")
        .args([
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--silent",
        ])
        .current_dir(repo.path()));
    (repo, base)
}

#[test]
fn isolate_npm_workspace_runs_the_base_copy_of_a_workspace_dependency() {
    if !loki_test_support::require_tool("node", &["--version"]) {
        return;
    }
    let (repo, base) = npm_workspace();
    let ck_nm = repo.path().join("node_modules");
    assert_eq!(
        fs::read_link(ck_nm.join("@ws/lib")).unwrap(),
        Path::new("../../packages/lib")
    );
    let t = tempfile::tempdir().unwrap();
    let o = opts(t.path(), "js", &[]);
    let check = detect_with(repo.path(), Tools::default())
        .unwrap()
        .into_iter()
        .find(|c| c.dir == ".")
        .unwrap();
    assert_eq!(
        (check.kind, &check.command[..]),
        (CheckKind::Node, &["npm".to_owned(), "test".to_owned()][..]),
        "{check:?}"
    );
    let head = run_check(&check, &o).unwrap();
    assert!(
        passed(&head, "lib value") && passed(&head, "lib bin"),
        "{}",
        show(&head)
    );

    // Before: the tree's node_modules is a symlink to the checkout's, whose workspace links lead
    // back to the checkout's packages: the base runs the head's lib.
    let old = t.path().join("old-tree");
    export(&repo, &base, &old);
    std::os::unix::fs::symlink(&ck_nm, old.join("node_modules")).unwrap();
    let before = run_check(&check.at_root(&old), &o).unwrap();
    assert!(
        passed(&before, "lib value") && passed(&before, "lib bin"),
        "without isolation the base run uses the head's workspace package: {}",
        show(&before)
    );

    // With isolation: the tree's node_modules links the workspace packages inside the tree.
    let tree = t.path().join("base-tree");
    export(&repo, &base, &tree);
    let at = check.at_root(&tree);
    let p = isolate::prepare(
        repo.path(),
        &tree,
        std::slice::from_ref(&at),
        "base",
        &o.env,
        &t.path().join("cache"),
    )
    .unwrap();
    assert_eq!(p.created(), [tree.join("node_modules")]);
    let real_tree = fs::canonicalize(&tree).unwrap();
    assert_eq!(
        fs::read_link(tree.join("node_modules/@ws/lib")).unwrap(),
        real_tree.join("packages/lib")
    );
    assert_eq!(
        fs::read_link(tree.join("node_modules/.bin/wslib")).unwrap(),
        real_tree.join("packages/lib/cli.js")
    );
    let after = run_check(&at, &with_prepared(&o, &p)).unwrap();
    assert!(
        failed(&after, "lib value") && failed(&after, "lib bin") && passed(&after, "unrelated"),
        "with isolation the base run uses the base's workspace package: {}",
        show(&after)
    );
    // npm, node --test and each test file's process wrote evidence, and none saw a leak.
    assert!(p.recorded_processes() >= 2, "{}", p.recorded_processes());
    assert_eq!(p.leaks(), Vec::<String>::new());
    assert!(p.notes().is_empty(), "{:?}", p.notes());
    // The checkout's node_modules is untouched.
    assert_eq!(
        fs::read_link(ck_nm.join("@ws/lib")).unwrap(),
        Path::new("../../packages/lib")
    );
}

fn symlink(target: &str, link: &Path) {
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// pnpm's layout (built by hand: pnpm is not needed to read it): per-package `node_modules` with
/// links to the workspace package and into the `.pnpm` store, where an installed plugin also
/// depends on the workspace package. The test's own import gets the tree's copy; the plugin's,
/// which node resolves from the plugin's real path in the checkout, is a note and a leak.
#[test]
fn isolate_pnpm_layout_links_per_package_and_reports_what_it_cannot_move() {
    if !loki_test_support::require_tool("node", &["--version"]) {
        return;
    }
    let repo = GitRepo::new();
    repo.write(".gitignore", "node_modules/\n")
        .write("package.json", r#"{"name":"root","private":true}"#)
        .write(
            "packages/lib/package.json",
            r#"{"name":"@ws/lib","version":"1.0.0","main":"index.js"}"#,
        )
        .write("packages/lib/index.js", "exports.v = () => 1;\n")
        .write(
            "packages/app/package.json",
            r#"{"name":"@ws/app","version":"1.0.0"}"#,
        )
        .write(
            "packages/app/test/app.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\n\
             test('lib value', () => assert.strictEqual(require('@ws/lib').v(), 2));\n\
             test('plugin value', () => assert.strictEqual(require('plugin').pv(), 2));\n",
        )
        .write("packages/lib/cli.sh", "#!/bin/sh\necho 1\n")
        .write(
            "packages/app/test/shim.test.js",
            "const test = require('node:test');\nconst assert = require('node:assert');\n\
             const { execFileSync } = require('node:child_process');\nconst path = require('node:path');\n\
             test('lib bin shim', () => assert.strictEqual(execFileSync(path.join(__dirname, '..', 'node_modules', '.bin', 'libcli')).toString().trim(), '2'));\n",
        )
        .write(
            "packages/app/test/esm.test.mjs",
            "import test from 'node:test';\nimport assert from 'node:assert';\n\
             import { v } from 'plugin/esm.mjs';\n\
             test('plugin value via esm', () => assert.strictEqual(v(), 2));\n",
        );
    fs::set_permissions(
        repo.path().join("packages/lib/cli.sh"),
        fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    let base = repo.commit("base");
    repo.write("packages/lib/index.js", "exports.v = () => 2;\n")
        .write("packages/lib/cli.sh", "#!/bin/sh\necho 2\n");
    repo.commit("head");
    let ck = repo.path();
    let store = ck.join("node_modules/.pnpm/plugin@1.0.0/node_modules");
    fs::create_dir_all(store.join("plugin")).unwrap();
    fs::write(
        store.join("plugin/package.json"),
        r#"{"name":"plugin","version":"1.0.0","main":"index.js"}"#,
    )
    .unwrap();
    fs::write(
        store.join("plugin/index.js"),
        "exports.pv = () => require('@ws/lib').v();\n",
    )
    .unwrap();
    // Its ES module entry, resolved by node's ESM loader (seen through `module.register`).
    fs::write(
        store.join("plugin/esm.mjs"),
        "export { v } from '@ws/lib/index.js';\n",
    )
    .unwrap();
    symlink("../../../../../packages/lib", &store.join("@ws/lib"));
    fs::write(ck.join("node_modules/.modules.yaml"), "layoutVersion: 5\n").unwrap();
    symlink(
        "../../../lib",
        &ck.join("packages/app/node_modules/@ws/lib"),
    );
    // pnpm's bin shim: a script that runs the bin relative to its own directory (the kernel
    // resolves that `..`, not node).
    let shim = ck.join("packages/app/node_modules/.bin/libcli");
    fs::create_dir_all(shim.parent().unwrap()).unwrap();
    fs::write(
        &shim,
        "#!/bin/sh\nbasedir=$(dirname \"$0\")\nexec \"$basedir/../@ws/lib/cli.sh\" \"$@\"\n",
    )
    .unwrap();
    fs::set_permissions(&shim, fs::Permissions::from_mode(0o755)).unwrap();
    symlink(
        "../../../node_modules/.pnpm/plugin@1.0.0/node_modules/plugin",
        &ck.join("packages/app/node_modules/plugin"),
    );

    let t = tempfile::tempdir().unwrap();
    let o = opts(t.path(), "pnpm", &[]);
    let check = only(ck, CheckKind::Node);
    assert_eq!(check.dir, "packages/app");
    let head = run_check(&check, &o).unwrap();
    assert!(
        passed(&head, "lib value") && passed(&head, "plugin value"),
        "{}",
        show(&head)
    );

    // Before: each package's node_modules linked whole, as loki did for the check's own package.
    let old = t.path().join("old-tree");
    export(&repo, &base, &old);
    std::os::unix::fs::symlink(
        ck.join("packages/app/node_modules"),
        old.join("packages/app/node_modules"),
    )
    .unwrap();
    let before = run_check(&check.at_root(&old), &o).unwrap();
    assert!(
        passed(&before, "lib value") && passed(&before, "lib bin shim"),
        "{}",
        show(&before)
    );

    let tree = t.path().join("base-tree");
    export(&repo, &base, &tree);
    let at = check.at_root(&tree);
    let p = isolate::prepare(
        ck,
        &tree,
        std::slice::from_ref(&at),
        "base",
        &o.env,
        &t.path().join("cache"),
    )
    .unwrap();
    let mut created = p.created().to_vec();
    created.sort();
    assert_eq!(
        created,
        [
            tree.join("node_modules"),
            tree.join("packages/app/node_modules")
        ]
    );
    let after = run_check(&at, &with_prepared(&o, &p)).unwrap();
    assert!(
        failed(&after, "lib value") && failed(&after, "lib bin shim"),
        "the test's own import and the bin shim run the base's lib: {}",
        show(&after)
    );
    // The plugin still reaches the checkout's lib: said before the run, and seen after it.
    assert!(passed(&after, "plugin value"), "{}", show(&after));
    assert!(passed(&after, "plugin value via esm"), "{}", show(&after));
    assert_eq!(p.notes().len(), 1, "{:?}", p.notes());
    assert!(
        p.notes()[0].contains("below an installed dependency"),
        "{:?}",
        p.notes()
    );
    let real_ck = fs::canonicalize(ck).unwrap();
    assert_eq!(
        p.leaks(),
        [real_ck
            .join("packages/lib/index.js")
            .to_string_lossy()
            .into_owned()]
    );
    // The ES module import was seen by the resolve hook, not only through require.cache.
    let esm: String = fs::read_dir(p.evidence_dir().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("node-esm-"))
        .map(|e| fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(esm.contains("packages/lib/index.js"), "{esm:?}");
}
