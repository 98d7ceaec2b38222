//! Isolation of runs in another tree (`loki_checks::isolate`), with the real tools: a virtualenv
//! with an editable install (pip, setuptools), an npm workspace, cargo with a shared target
//! directory, a go workspace. Each test first runs the base tree the way loki did before
//! (`node_modules` symlinked, the checkout's interpreter, the environment's `CARGO_TARGET_DIR`, the
//! tree's `go.work` as it is) and shows the base run executing the head's code, then runs it again
//! with `isolate::prepare` and shows the base's own result.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use loki_checks::isolate::{self, Prepared};
use loki_checks::{Check, CheckKind, CheckResult, RunOptions, Tools, detect_with, run_check};
use loki_test_support::GitRepo;

fn opts(tmp: &Path, name: &str, extra: &[(&str, &OsString)]) -> RunOptions {
    let mut o = RunOptions::new(tmp.join("logs").join(name));
    o.timeout = Duration::from_secs(300);
    o.rerun_failed = false;
    for (k, v) in extra {
        o.env.retain(|(n, _)| n != k);
        o.env.push((OsString::from(k), (*v).clone()));
    }
    o
}

fn with_prepared(o: &RunOptions, p: &Prepared) -> RunOptions {
    RunOptions {
        env: p.apply(o.env.clone()),
        ..o.clone()
    }
}

fn show(r: &CheckResult) -> String {
    format!(
        "{r:#?}\n--- log ---\n{}",
        String::from_utf8_lossy(&fs::read(&r.log_path).unwrap_or_default())
    )
}

/// The status of the one test whose id ends with `name`.
fn status(r: &CheckResult, name: &str) -> Option<loki_checks::TestStatus> {
    let mut found = r.tests.iter().filter(|t| t.id.ends_with(name));
    let t = found.next()?;
    assert!(
        found.next().is_none(),
        "two tests end with {name}: {}",
        show(r)
    );
    Some(t.status)
}

fn passed(r: &CheckResult, name: &str) -> bool {
    status(r, name) == Some(loki_checks::TestStatus::Passed)
}

fn failed(r: &CheckResult, name: &str) -> bool {
    status(r, name) == Some(loki_checks::TestStatus::Failed)
}

/// Exports the tree of `rev` into `dest`, as the judge does for the base.
fn export(repo: &GitRepo, rev: &str, dest: &Path) {
    let tree = repo.git(&["rev-parse", &format!("{rev}^{{tree}}")]);
    loki_git::Git::new(repo.path())
        .export_tree(tree.trim(), dest)
        .unwrap();
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn only(root: &Path, kind: CheckKind) -> Check {
    let checks = detect_with(root, Tools { nextest: false }).unwrap();
    let mut of_kind = checks.into_iter().filter(|c| c.kind == kind);
    let c = of_kind
        .next()
        .unwrap_or_else(|| panic!("no {kind:?} check in {}", root.display()));
    assert!(of_kind.next().is_none());
    c
}

/// Sets the mtime of every file and directory under `root` to `age` ago.
fn age_files(root: &Path, age: Duration) {
    let when = SystemTime::now() - age;
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap().flatten() {
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                fs::File::open(e.path())
                    .unwrap()
                    .set_modified(when)
                    .unwrap();
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Python

#[derive(Clone, Copy, Debug)]
enum PyInstall {
    /// setuptools PEP 660, compat mode, src layout: a `.pth` with `<checkout>/src`.
    SrcCompat,
    /// setuptools PEP 660, strict mode: a `.pth` into a link tree under `build/`.
    SrcStrict,
    /// setuptools PEP 660 with `package-dir` mapping the package to `lib/`: an `__editable__`
    /// finder whose MAPPING names the checkout.
    MappedFinder,
    /// `setup.py develop` (pip's legacy editable): `easy-install.pth`, an `.egg-link`, and the
    /// metadata in `src/calc.egg-info`, which exists only in the checkout.
    LegacyDevelop,
    /// A bare `.pth` with the checkout's `src`, as hatchling, pdm and poetry write.
    BarePth,
}

const PY_TEST: &str = "import importlib.metadata\nimport calc\n\n\ndef test_value():\n    assert calc.value() == 2\n\n\ndef test_metadata():\n    assert importlib.metadata.version('calc') == '0.1'\n";

/// A repository whose base has `value() == 1` and whose head fixes it to 2 (the test, unchanged,
/// asks for 2), checked out at head with a virtualenv holding an editable install of it.
fn python_fixture(install: PyInstall) -> (GitRepo, String) {
    let repo = GitRepo::new();
    let pkg = match install {
        PyInstall::MappedFinder => "lib",
        _ => "src/calc",
    };
    let pyproject = match install {
        PyInstall::MappedFinder => {
            "[build-system]\nrequires = [\"setuptools>=64\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"calc\"\nversion = \"0.1\"\n\n[tool.setuptools]\npackages = [\"calc\"]\npackage-dir = { calc = \"lib\" }\n"
        }
        _ => {
            "[build-system]\nrequires = [\"setuptools>=64\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"calc\"\nversion = \"0.1\"\n"
        }
    };
    match install {
        PyInstall::LegacyDevelop => {
            repo.write(
                "setup.py",
                "from setuptools import setup\nsetup(name='calc', version='0.1', package_dir={'': 'src'}, packages=['calc'])\n",
            );
        }
        _ => {
            repo.write("pyproject.toml", pyproject);
        }
    }
    repo.write(".gitignore", ".venv/\nbuild/\n*.egg-info/\n__pycache__/\n")
        .write(
            &format!("{pkg}/__init__.py"),
            "def value():\n    return 1\n",
        )
        .write("tests/test_calc.py", PY_TEST);
    let base = repo.commit("base");
    repo.write(
        &format!("{pkg}/__init__.py"),
        "def value():\n    return 2\n",
    );
    repo.commit("head: fix value");

    let ck = repo.path();
    // Without pip of its own (fast): the base interpreter's pip, run by the venv's python,
    // installs into the venv.
    run(Command::new("python3")
        .args([
            "-m",
            "venv",
            "--system-site-packages",
            "--without-pip",
            ".venv",
        ])
        .current_dir(ck));
    let pip = |extra: &[&str]| {
        run(Command::new(ck.join(".venv/bin/python"))
            .args([
                "-m",
                "pip",
                "install",
                "-q",
                "--no-build-isolation",
                "--no-deps",
                "--no-index",
            ])
            .args(extra)
            .args(["-e", "."])
            .env("PIP_DISABLE_PIP_VERSION_CHECK", "1")
            .current_dir(ck));
    };
    match install {
        PyInstall::SrcCompat | PyInstall::MappedFinder => pip(&[]),
        PyInstall::SrcStrict => pip(&["--config-settings", "editable_mode=strict"]),
        PyInstall::LegacyDevelop => pip(&["--no-use-pep517"]),
        PyInstall::BarePth => {
            let site = run(Command::new(ck.join(".venv/bin/python")).args([
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])",
            ]));
            let site = PathBuf::from(site.trim());
            fs::write(
                site.join("_calc.pth"),
                format!("{}\n", ck.join("src").display()),
            )
            .unwrap();
            // The metadata such a backend installs into site-packages.
            let info = site.join("calc-0.1.dist-info");
            fs::create_dir_all(&info).unwrap();
            fs::write(
                info.join("METADATA"),
                "Metadata-Version: 2.1\nName: calc\nVersion: 0.1\n",
            )
            .unwrap();
        }
    }
    (repo, base)
}

fn python_case(install: PyInstall) {
    let (repo, base) = python_fixture(install);
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("base-tree");
    export(&repo, &base, &tree);
    let check = only(repo.path(), CheckKind::Pytest);
    assert!(
        check.command[0].ends_with(".venv/bin/python"),
        "the check uses the checkout's virtualenv: {check:?}"
    );
    let o = opts(t.path(), "py", &[]);
    let untracked = repo.git(&["status", "--porcelain", "--ignored"]);

    // The head, in the checkout: the fix passes.
    let head = run_check(&check, &o).unwrap();
    assert!(
        passed(&head, "test_value") && passed(&head, "test_metadata"),
        "{}",
        show(&head)
    );

    // Before: the base run imports the head's code through the editable install, so the test
    // the head fixed passes at base too.
    let at = check.at_root(&tree);
    let before = run_check(&at, &o).unwrap();
    assert!(
        passed(&before, "test_value"),
        "{install:?}: without isolation the base run imports the head's code: {}",
        show(&before)
    );

    // With isolation: the base's own code runs and the test fails as it does at base; the project
    // metadata is still found, and nothing was loaded from the checkout.
    let p = isolate::prepare(
        repo.path(),
        &tree,
        std::slice::from_ref(&at),
        "base",
        &o.env,
        &t.path().join("cache"),
    )
    .unwrap();
    let after = run_check(&at, &with_prepared(&o, &p)).unwrap();
    assert!(
        failed(&after, "test_value"),
        "{install:?}: with isolation the base run must run the base's code: {}",
        show(&after)
    );
    assert!(
        passed(&after, "test_metadata"),
        "{install:?}: {}",
        show(&after)
    );
    assert!(
        fs::read_to_string(&after.log_path)
            .unwrap()
            .contains("assert 1 == 2"),
        "{}",
        show(&after)
    );
    // The redirect ran (each interpreter of the run wrote its evidence) and saw no leak.
    assert!(p.recorded_processes() >= 1, "{install:?}");
    assert_eq!(p.leaks(), Vec::<String>::new(), "{install:?}");
    assert_eq!(p.run_notes(), Vec::<String>::new(), "{install:?}");
    assert!(p.notes().is_empty(), "{:?}", p.notes());
    // Nothing was written into the checkout.
    assert_eq!(repo.git(&["status", "--porcelain", "--ignored"]), untracked);
}

#[test]
fn isolate_python_editable_src_compat() {
    if !loki_test_support::require_pytest() {
        return;
    }
    python_case(PyInstall::SrcCompat);
}

#[test]
fn isolate_python_editable_strict() {
    if !loki_test_support::require_pytest() {
        return;
    }
    python_case(PyInstall::SrcStrict);
}

#[test]
fn isolate_python_editable_finder_mapping() {
    if !loki_test_support::require_pytest() {
        return;
    }
    python_case(PyInstall::MappedFinder);
}

#[test]
fn isolate_python_legacy_develop_egg_link() {
    if !loki_test_support::require_pytest() {
        return;
    }
    python_case(PyInstall::LegacyDevelop);
}

#[test]
fn isolate_python_bare_pth() {
    if !loki_test_support::require_pytest() {
        return;
    }
    python_case(PyInstall::BarePth);
}

/// A sitecustomize already on the path still runs; a module loaded from the checkout by path
/// anyway is reported as a leak; `sys.path` entries only the checkout has are reported dropped.
#[test]
fn isolate_python_chains_sitecustomize_and_reports_leaks() {
    let (repo, base) = python_fixture(PyInstall::SrcCompat);
    let t = tempfile::tempdir().unwrap();
    let tree = t.path().join("base-tree");
    export(&repo, &base, &tree);
    let user = t.path().join("user-site");
    fs::create_dir_all(&user).unwrap();
    fs::write(
        user.join("sitecustomize.py"),
        "import os\nos.environ['USER_SITECUSTOMIZE'] = 'ran'\n",
    )
    .unwrap();
    let only_in_checkout = repo.path().join("build/generated");
    fs::create_dir_all(&only_in_checkout).unwrap();
    let pythonpath = OsString::from(format!("{}:{}", user.display(), only_in_checkout.display()));
    let o = opts(t.path(), "py", &[("PYTHONPATH", &pythonpath)]);
    let check = only(repo.path(), CheckKind::Pytest).at_root(&tree);
    let p = isolate::prepare(
        repo.path(),
        &tree,
        std::slice::from_ref(&check),
        "base",
        &o.env,
        &t.path().join("cache"),
    )
    .unwrap();
    let script = format!(
        "import os, sys, calc, importlib.util\n\
         assert os.environ.get('USER_SITECUSTOMIZE') == 'ran', 'the displaced sitecustomize ran'\n\
         assert calc.value() == 1, calc.__file__\n\
         spec = importlib.util.spec_from_file_location('sneaky', {:?})\n\
         m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n\
         sys.modules['sneaky'] = m\n\
         print(m.value())\n",
        repo.path().join("src/calc/__init__.py").to_string_lossy()
    );
    let out = run(Command::new(&check.command[0])
        .args(["-c", &script])
        .current_dir(&tree)
        .env_clear()
        .envs(p.apply(o.env.clone())));
    assert_eq!(out.trim(), "2", "the sneaky import ran the checkout's code");
    // The file, and the package directory it was loaded as.
    let pkg = repo.path().join("src/calc");
    assert_eq!(
        p.leaks(),
        [pkg.clone(), pkg.join("__init__.py")].map(|p| p.to_string_lossy().into_owned())
    );
    let notes = p.run_notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].contains("build/generated") && notes[0].contains("only in the checkout"),
        "{notes:?}"
    );
}

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
