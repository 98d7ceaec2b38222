//! Environments that point at the checkout (rule 12) and package managers that are not there
//! (rule 9): a Python project installed editable into its own virtualenv, an npm workspace whose
//! packages reach each other through `node_modules` links, a cargo workspace with a path
//! dependency, and a pnpm project on a machine without pnpm.
//!
//! Every case of the first two runs with a home of its own: a baseline cached by an earlier case
//! would hide what this case's base run executed.
//!
//! In each workspace the bug sits in the dependency (`b`) and the target test in its dependent or
//! beside it. The base run must execute the base's code: the fix's target test is `fixed` (failed
//! at base, passes at head), and a plain regression is `newly_failing`, never pre-existing.

use std::path::Path;
use std::process::Command;

use super::{BEHAVIOUR_CHANGED, CLEAN, Case, Expect, Fixture, npm_cache, replace, require};

const PYPROJECT: &str = r#"[build-system]
requires = ["setuptools>=64"]
build-backend = "setuptools.build_meta"

[project]
name = "calc"
version = "0.1.0"

[tool.setuptools.packages.find]
where = ["src"]
"#;

const PY_CALC: &str = "def double(x):\n    return x + 2\n\n\ndef clamp(x, lo, hi):\n    return max(lo, min(x, hi))\n\n\ndef greet(name):\n    return f\"Hello, {name}!\"\n";

const PY_TESTS: &str = "from calc import clamp, double, greet\n\n\ndef test_double():\n    assert double(3) == 6\n\n\ndef test_clamp():\n    assert clamp(-5, 0, 10) == 0\n    assert clamp(15, 0, 10) == 10\n\n\ndef test_greet():\n    assert greet(\"ann\") == \"Hello, ann!\"\n";

// Today (editable, binary of ab4b6ca, measured): wrong: plain_bug_fix (base ran the head code
// (test passing at base)); plain_regression (clean); deliberate_behaviour_change (clean without
// the expectation_changed fact).
#[test]
fn editable_install_judge_cases() {
    if !require("python3", &["-m", "pytest", "--version"]) {
        return;
    }
    let fx = Fixture::new(
        "editable",
        &[
            ("pyproject.toml", PYPROJECT.into()),
            ("src/calc/__init__.py", PY_CALC.into()),
            ("tests/test_calc.py", PY_TESTS.into()),
            (
                ".gitignore",
                ".venv/\n__pycache__/\n*.egg-info/\nbuild/\n".into(),
            ),
        ],
        &[".venv"],
    );
    // The project's own virtualenv with pytest from the system and the project installed editable:
    // `import calc` anywhere resolves to this checkout's `src/`.
    fx.sh("python3 -m venv --system-site-packages .venv");
    fx.sh(".venv/bin/python -m pip install -q --no-build-isolation --no-deps --no-index -e .");
    fx.run(&[
        Case::new(
            "plain_bug_fix",
            12,
            vec![replace(
                "src/calc/__init__.py",
                "return x + 2",
                "return x * 2",
            )],
            CLEAN,
        )
        .compared("test_double", "fixed")
        .fresh_home(),
        Case::new(
            "plain_regression",
            12,
            vec![replace(
                "src/calc/__init__.py",
                "return max(lo, min(x, hi))",
                "return min(x, hi)",
            )],
            Expect::Findings(&["newly_failing"]),
        )
        .naming(&["test_clamp"])
        .fresh_home(),
        Case::new(
            "deliberate_behaviour_change",
            12,
            vec![
                replace(
                    "src/calc/__init__.py",
                    "f\"Hello, {name}!\"",
                    "f\"Hi, {name}!\"",
                ),
                replace("tests/test_calc.py", "\"Hello, ann!\"", "\"Hi, ann!\""),
            ],
            BEHAVIOUR_CHANGED,
        )
        .fresh_home(),
    ]);
}

// Today (npm-ws, binary of ab4b6ca, measured): wrong: plain_bug_fix_in_the_dependency (base ran
// the head code (test passing at base)); plain_regression_in_the_dependency (clean).
/// `node_modules` of the npm workspace: every package of `$LOKI_NPM_CACHE` linked one by one,
/// plus the workspace's own packages linked as npm links them (relative symlinks).
fn workspace_node_modules(fx: &Fixture, cache: &Path, own: &[(&str, &str)]) {
    let nm = fx.path().join("node_modules");
    std::fs::create_dir(&nm).unwrap();
    for entry in std::fs::read_dir(cache).unwrap() {
        let entry = entry.unwrap();
        std::os::unix::fs::symlink(entry.path(), nm.join(entry.file_name())).unwrap();
    }
    for (name, target) in own {
        std::os::unix::fs::symlink(target, nm.join(name)).unwrap();
    }
}

#[test]
fn npm_workspace_judge_cases() {
    let Some(cache) = npm_cache() else {
        return;
    };
    let fx = Fixture::new(
        "npm-ws",
        &[
            (
                "package.json",
                r#"{"name": "ws", "private": true, "type": "module", "workspaces": ["packages/*"], "scripts": {"test": "vitest run"}}
"#
                .into(),
            ),
            (
                "packages/b/package.json",
                r#"{"name": "b", "version": "1.0.0", "type": "module", "main": "index.js"}
"#
                .into(),
            ),
            (
                "packages/b/index.js",
                "export function double(x) {\n  return x + 2;\n}\n\nexport function clamp(x, lo, hi) {\n  return Math.min(Math.max(x, lo), hi);\n}\n".into(),
            ),
            (
                "packages/a/package.json",
                r#"{"name": "a", "version": "1.0.0", "type": "module", "main": "index.js", "dependencies": {"b": "1.0.0"}}
"#
                .into(),
            ),
            (
                "packages/a/index.js",
                "import { clamp, double } from 'b';\n\nexport const quadruple = (x) => double(double(x));\nexport const percent = (x) => clamp(x, 0, 100);\n".into(),
            ),
            (
                "packages/a/test/a.test.js",
                "import { expect, test } from 'vitest';\nimport { percent, quadruple } from '../index.js';\n\ntest('quadruples', () => {\n  expect(quadruple(3)).toBe(12);\n});\n\ntest('percent', () => {\n  expect(percent(-5)).toBe(0);\n  expect(percent(150)).toBe(100);\n});\n".into(),
            ),
            (".gitignore", "node_modules\n".into()),
        ],
        &["node_modules"],
    );
    workspace_node_modules(
        &fx,
        &cache,
        &[("a", "../packages/a"), ("b", "../packages/b")],
    );
    fx.run(&[
        Case::new(
            "plain_bug_fix_in_the_dependency",
            12,
            vec![replace(
                "packages/b/index.js",
                "return x + 2;",
                "return x * 2;",
            )],
            CLEAN,
        )
        .compared("quadruples", "fixed")
        .fresh_home(),
        Case::new(
            "plain_regression_in_the_dependency",
            12,
            vec![replace(
                "packages/b/index.js",
                "Math.min(Math.max(x, lo), hi)",
                "Math.min(x, hi)",
            )],
            Expect::Findings(&["newly_failing"]),
        )
        .naming(&["percent"])
        .fresh_home(),
    ]);
}

const WS_LOCK: &str = "# This file is automatically @generated by Cargo.\n# It is not intended for manual editing.\nversion = 4\n\n[[package]]\nname = \"geo_app\"\nversion = \"0.1.0\"\ndependencies = [\n \"geo_core\",\n]\n\n[[package]]\nname = \"geo_core\"\nversion = \"0.1.0\"\n";

// Today (cargo-ws, binary of ab4b6ca, measured): wrong: . Right already:
// plain_bug_fix_in_the_path_dependency, regression_in_one_crate_of_two.
#[test]
fn cargo_workspace_judge_cases() {
    if !require("cargo", &["--version"]) {
        return;
    }
    let fx = Fixture::new(
        "cargo-ws",
        &[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"crates/geo_app\", \"crates/geo_core\"]\nresolver = \"2\"\n".into(),
            ),
            ("Cargo.lock", WS_LOCK.into()),
            (
                "crates/geo_core/Cargo.toml",
                "[package]\nname = \"geo_core\"\nversion = \"0.1.0\"\nedition = \"2021\"\n".into(),
            ),
            (
                "crates/geo_core/src/lib.rs",
                "pub fn double(x: i64) -> i64 {\n    x + 2\n}\n\npub fn halve(x: i64) -> i64 {\n    x / 2\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn core_halves() {\n        assert_eq!(super::halve(8), 4);\n    }\n}\n".into(),
            ),
            (
                "crates/geo_app/Cargo.toml",
                "[package]\nname = \"geo_app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ngeo_core = { path = \"../geo_core\" }\n".into(),
            ),
            (
                "crates/geo_app/src/lib.rs",
                "pub fn quadruple(x: i64) -> i64 {\n    geo_core::double(geo_core::double(x))\n}\n\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn app_quadruples() {\n        assert_eq!(super::quadruple(3), 12);\n    }\n}\n".into(),
            ),
            (".gitignore", "/target\n".into()),
        ],
        &["target"],
    );
    fx.run(&[
        Case::new(
            "plain_bug_fix_in_the_path_dependency",
            12,
            vec![replace(
                "crates/geo_core/src/lib.rs",
                "    x + 2\n",
                "    x * 2\n",
            )],
            CLEAN,
        )
        .compared("app_quadruples", "fixed"),
        // Rule 8: the failure is attributed to the package it occurred in.
        Case::new(
            "regression_in_one_crate_of_two",
            8,
            vec![replace("crates/geo_core/src/lib.rs", "x / 2", "x / 3")],
            Expect::Findings(&["newly_failing"]),
        )
        .naming(&["geo_core", "core_halves"]),
        // The test came first in one crate: at base its unit tests do not compile, and the
        // other crate's tests still run there, so the honest code is clean and a regression in
        // the other crate is still seen as one.
        Case::new(
            "unit_test_first_in_one_crate_then_the_code",
            11,
            vec![core_triple()],
            CLEAN,
        )
        .pre(core_test_first())
        .compared("app_quadruples", "passing"),
        Case::new(
            "unit_test_first_in_one_crate_and_a_regression_in_the_other",
            8,
            vec![
                core_triple(),
                replace("crates/geo_app/src/lib.rs", "double(x))", "double(x)) + 1"),
            ],
            Expect::Findings(&["newly_failing"]),
        )
        .pre(core_test_first())
        .naming(&["geo_app", "app_quadruples"]),
    ]);
}

/// `double` fixed (so `geo_app`'s test passes), and a unit test in `geo_core` that calls
/// `triple`, which does not exist yet.
fn core_test_first() -> Vec<super::Edit> {
    vec![
        replace("crates/geo_core/src/lib.rs", "    x + 2\n", "    x * 2\n"),
        replace(
            "crates/geo_core/src/lib.rs",
            "    #[test]\n    fn core_halves",
            "    #[test]\n    fn core_triples() {\n        assert_eq!(super::triple(2), 6);\n    }\n\n    #[test]\n    fn core_halves",
        ),
    ]
}

/// `triple` in `geo_core`.
fn core_triple() -> super::Edit {
    replace(
        "crates/geo_core/src/lib.rs",
        "pub fn halve(",
        "pub fn triple(x: i64) -> i64 {\n    x * 3\n}\n\npub fn halve(",
    )
}

// Today (pnpm, binary of ab4b6ca, measured): wrong: regression_in_a_pnpm_project (exit 0).
/// `PATH` with every directory that holds one of `hidden` replaced by a copy of it (symlinks)
/// without those programs: a machine that does not have them, whatever this one has.
fn path_without(fx: &Fixture, hidden: &[&str]) -> String {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = Vec::new();
    for (i, dir) in std::env::split_paths(&path).enumerate() {
        if !hidden.iter().any(|h| dir.join(h).exists()) {
            dirs.push(dir);
            continue;
        }
        let copy = fx.sandbox.home().join(format!("path-{i}"));
        std::fs::create_dir_all(&copy).unwrap();
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let name = entry.file_name();
            if !hidden.iter().any(|h| name == *h) {
                let _ = std::os::unix::fs::symlink(entry.path(), copy.join(&name));
            }
        }
        dirs.push(copy);
    }
    let joined = std::env::join_paths(dirs).unwrap().into_string().unwrap();
    let probe = Command::new("sh")
        .env("PATH", &joined)
        .args(["-c", "command -v pnpm"])
        .output()
        .unwrap();
    assert!(!probe.status.success(), "pnpm is still on {joined}");
    joined
}

#[test]
fn pnpm_project_without_pnpm() {
    if !loki_test_support::require_tool("node", &["--version"]) {
        return;
    }
    let fx = Fixture::new(
        "pnpm",
        &[
            (
                "package.json",
                r#"{"name": "calc", "private": true, "type": "module", "packageManager": "pnpm@9.12.0", "scripts": {"test": "node --test"}}
"#
                .into(),
            ),
            (
                "pnpm-lock.yaml",
                "lockfileVersion: '9.0'\n\nsettings:\n  autoInstallPeers: true\n  excludeLinksFromLockfile: false\n\nimporters:\n\n  .: {}\n".into(),
            ),
            (
                "calc.js",
                "export function clamp(x, lo, hi) {\n  return Math.min(Math.max(x, lo), hi);\n}\n".into(),
            ),
            (
                "test/calc.test.js",
                "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clamp } from '../calc.js';\n\ntest('clamps', () => {\n  assert.equal(clamp(-5, 0, 10), 0);\n});\n".into(),
            ),
        ],
        &[],
    );
    let path = path_without(&fx, &["pnpm", "pnpx"]);
    let broken = || {
        vec![replace(
            "calc.js",
            "Math.min(Math.max(x, lo), hi)",
            "Math.min(x, hi)",
        )]
    };
    // corepack could fetch pnpm from the registry; the machine these cases describe has none.
    fx.run(&[
        // The test script is what pnpm would run: loki runs it the same way, and judges it.
        Case::new(
            "regression_in_a_pnpm_project",
            9,
            broken(),
            Expect::Findings(&["newly_failing"]),
        )
        .env("COREPACK_ENABLE_NETWORK", "0")
        .env("PATH", path.clone()),
        // A script that calls pnpm itself cannot run here: never clean, and it says what to install.
        Case::new(
            "script_that_calls_pnpm",
            9,
            broken(),
            Expect::CannotJudge(&["pnpm"]),
        )
        .pre(vec![replace(
            "package.json",
            r#""test": "node --test""#,
            r#""test": "pnpm -r --if-present test:unit", "test:unit": "node --test""#,
        )])
        .env("COREPACK_ENABLE_NETWORK", "0")
        .env("PATH", path.clone()),
        // The runner is a dependency that is not installed.
        Case::new(
            "dependencies_not_installed",
            9,
            broken(),
            Expect::CannotJudge(&["pnpm install"]),
        )
        .pre(vec![replace(
            "package.json",
            r#""test": "node --test""#,
            r#""test": "vitest run""#,
        )])
        .env("COREPACK_ENABLE_NETWORK", "0")
        .env("PATH", path),
    ]);
}
