//! Detection on a monorepo built in a temp dir.

use std::fs;
use std::path::Path;

use loki_core::exit::{Classify as _, ExitClass};
use loki_protocol::CheckKind;
use loki_runner::{Check, Tools, detect_with};
use loki_term::checks::detect as render_detect;

fn write(root: &Path, rel: &str, body: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, body).unwrap();
}

fn monorepo() -> tempfile::TempDir {
    let t = tempfile::tempdir().unwrap();
    let r = t.path();
    write(r, "Cargo.toml", "[workspace]\nmembers = [\"crates/a\"]\n");
    write(r, "crates/a/Cargo.toml", "[package]\nname = \"a\"\n");
    write(
        r,
        "services/api/pyproject.toml",
        "[tool.pytest.ini_options]\naddopts = \"-q\"\n",
    );
    write(r, "services/api/.venv/bin/python", "");
    write(r, "services/api/tests/test_api.py", "def test_x(): pass\n");
    write(r, "scripts/test_tools.py", "def test_y(): pass\n");
    write(
        r,
        "web/package.json",
        r#"{"scripts": {"test": "vitest run"}}"#,
    );
    write(r, "web/pnpm-lock.yaml", "");
    write(
        r,
        "cli/package.json",
        r#"{"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}}"#,
    );
    write(r, "cli/test/cli.test.js", "");
    write(
        r,
        "lib/package.json",
        r#"{"scripts": {"test": "node --test"}}"#,
    );
    write(
        r,
        "legacy/package.json",
        r#"{"scripts": {"test": "mocha"}}"#,
    );
    write(r, "go/svc/go.mod", "module example.com/svc\n");
    // Never searched: dependencies, build output, hidden directories.
    write(
        r,
        "web/node_modules/dep/package.json",
        r#"{"scripts": {"test": "jest"}}"#,
    );
    write(r, "target/debug/build/x/Cargo.toml", "");
    write(r, ".loki/runs/x/test_fake.py", "");
    write(r, "services/api/.venv/lib/site/test_in_venv.py", "");
    t
}

fn snapshot_text(checks: &[Check], root: &Path) -> String {
    render_detect(checks).replace(&root.display().to_string(), "[ROOT]")
}

#[test]
fn monorepo_detection_says_what_and_why() {
    let t = monorepo();
    // nextest installed, but the project does not use it: `cargo test`.
    let plain = detect_with(t.path(), Tools { nextest: true }).unwrap();
    assert_eq!(plain[0].name, "cargo");
    // The project opts in with a nextest config.
    write(t.path(), ".config/nextest.toml", "[profile.default]\n");
    let checks = detect_with(t.path(), Tools { nextest: true }).unwrap();
    let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "nextest",
            "pytest",
            "node:cli",
            "go:go/svc",
            "npm:legacy",
            "node:lib",
            "pytest:services/api",
            "vitest:web"
        ]
    );
    let api = checks
        .iter()
        .find(|c| c.name == "pytest:services/api")
        .unwrap();
    assert_eq!(api.cwd, t.path().join("services/api"));
    assert!(api.command[0].ends_with("services/api/.venv/bin/python"));
    let web = checks.iter().find(|c| c.kind == CheckKind::Vitest).unwrap();
    assert_eq!(web.command, ["pnpm", "test"]);
    insta::assert_snapshot!(snapshot_text(&checks, t.path()));

    let without = detect_with(t.path(), Tools { nextest: false }).unwrap();
    assert_eq!(
        without[0].command,
        ["cargo", "test", "--workspace", "--no-fail-fast"]
    );

    // `--json` round-trips.
    let json = serde_json::to_string(&checks).unwrap();
    let back: Vec<Check> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, checks);
    // A check moved to another checkout keeps its directory.
    let moved = api.at_root(Path::new("/elsewhere"));
    assert_eq!(moved.cwd, Path::new("/elsewhere/services/api"));
}

#[test]
fn empty_repo_and_bad_root() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "README.md", "hello\n");
    let checks = detect_with(t.path(), Tools::default()).unwrap();
    assert!(checks.is_empty());
    assert!(render_detect(&checks).starts_with("No test suites found"));
    let err = detect_with(&t.path().join("README.md"), Tools::default()).unwrap_err();
    assert_eq!(err.exit_class(), ExitClass::Usage);
}

#[test]
fn test_data_is_not_a_package() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "go.mod", "module example.com/m\n\ngo 1.19\n");
    write(t.path(), "m_test.go", "package m\n");
    // A TOML parser's fixtures: not a Rust package, not a JS package.
    write(t.path(), "testdata/Cargo.toml", "[package\nbroken = \n");
    write(
        t.path(),
        "tests/fixtures/app/package.json",
        "{\"scripts\": {\"test\": \"jest\"}}\n",
    );
    let checks = detect_with(t.path(), Tools::default()).unwrap();
    let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["go"]);
}

#[test]
fn ignored_packages_are_seen_and_the_depth_bound_holds() {
    let t = tempfile::tempdir().unwrap();
    // A runner loads what git ignores: detection sees it.
    write(t.path(), ".gitignore", "generated/\n");
    write(t.path(), "generated/go.mod", "module example.com/g\n");
    // A directory at depth MAX_DEPTH is searched; one level deeper is not.
    let deep = "a/b/c/d/e/f/g/h";
    assert_eq!(deep.split('/').count(), loki_runner::detect::MAX_DEPTH);
    write(
        t.path(),
        &format!("{deep}/go.mod"),
        "module example.com/d\n",
    );
    write(
        t.path(),
        &format!("{deep}/i/go.mod"),
        "module example.com/i\n",
    );
    let checks = detect_with(t.path(), Tools::default()).unwrap();
    let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["go:a/b/c/d/e/f/g/h", "go:generated"]);
}
