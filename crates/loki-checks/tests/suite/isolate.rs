//! Isolation of runs in another tree (`loki_runner::isolate`), with the real tools: a virtualenv
//! with an editable install (pip, setuptools), an npm workspace, cargo with a shared target
//! directory, a go workspace. Each test first runs the base tree the way loki did before
//! (`node_modules` symlinked, the checkout's interpreter, the environment's `CARGO_TARGET_DIR`, the
//! tree's `go.work` as it is) and shows the base run executing the head's code, then runs it again
//! with `isolate::prepare` and shows the base's own result.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, SystemTime};

use loki_protocol::CheckKind;
use loki_runner::isolate::{self, Prepared};
use loki_runner::{Check, CheckResult, RunOptions, Tools, detect_with, run_check};
use loki_test_support::GitRepo;

pub(crate) fn opts(tmp: &Path, name: &str, extra: &[(&str, &OsString)]) -> RunOptions {
    let mut o = RunOptions::new(tmp.join("logs").join(name));
    o.timeout = Duration::from_secs(300);
    o.rerun_failed = false;
    for (k, v) in extra {
        o.env.retain(|(n, _)| n != k);
        o.env.push((OsString::from(k), (*v).clone()));
    }
    o
}

pub(crate) fn with_prepared(o: &RunOptions, p: &Prepared) -> RunOptions {
    RunOptions {
        env: p.apply(o.env.clone()),
        ..o.clone()
    }
}

pub(crate) fn show(r: &CheckResult) -> String {
    format!(
        "{r:#?}\n--- log ---\n{}",
        String::from_utf8_lossy(&fs::read(&r.log_path).unwrap_or_default())
    )
}

/// The status of the one test whose id ends with `name`.
pub(crate) fn status(r: &CheckResult, name: &str) -> Option<loki_runner::TestStatus> {
    let mut found = r.tests.iter().filter(|t| t.id.ends_with(name));
    let t = found.next()?;
    assert!(
        found.next().is_none(),
        "two tests end with {name}: {}",
        show(r)
    );
    Some(t.status)
}

pub(crate) fn passed(r: &CheckResult, name: &str) -> bool {
    status(r, name) == Some(loki_runner::TestStatus::Passed)
}

pub(crate) fn failed(r: &CheckResult, name: &str) -> bool {
    status(r, name) == Some(loki_runner::TestStatus::Failed)
}

/// Exports the tree of `rev` into `dest`, as the judge does for the base.
pub(crate) fn export(repo: &GitRepo, rev: &str, dest: &Path) {
    let tree = repo.git(&["rev-parse", &format!("{rev}^{{tree}}")]);
    loki_git::Git::new(repo.path())
        .export_tree(tree.trim(), dest)
        .unwrap();
}

pub(crate) fn run(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn only(root: &Path, kind: CheckKind) -> Check {
    let checks = detect_with(root, Tools { nextest: false }).unwrap();
    let mut of_kind = checks.into_iter().filter(|c| c.kind == kind);
    let c = of_kind
        .next()
        .unwrap_or_else(|| panic!("no {kind:?} check in {}", root.display()));
    assert!(of_kind.next().is_none());
    c
}

/// Sets the mtime of every file and directory under `root` to `age` ago.
pub(crate) fn age_files(root: &Path, age: Duration) {
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
