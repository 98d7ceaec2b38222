//! Lint on changed files against real git and real tools in temp repositories: a finding on a
//! changed line fails, one on an untouched line is logged and passes, a new file counts whole,
//! deleted and binary files are not linted, CRLF and spaces in paths keep line numbers right, a
//! missing tool falls back or is `not_run`, a hang is `timeout`.
//!
//! python3, node, go (gofmt, go vet) and cargo clippy are driven for real; ruff is faked by a
//! script in the repository's `.venv/bin` (its real output format is pinned by the parser tests),
//! and ESLint and tsc run for real only when `LOKI_NPM_CACHE` has them installed.

// Tests fail loudly on broken fixtures and write fixture files directly (not loki state).
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::disallowed_methods,
    reason = "tests fail loudly on broken fixtures and write fixture files directly (not loki state)"
)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use loki_git::Git;
use loki_lint::{
    self as lint, ChangedFile, LineSet, LintInput, LintPlan, LintReport, LintRun, Linter,
    changed_lines,
};
use loki_protocol::CheckStatus;
use loki_runner::RunOptions;
use loki_test_support::GitRepo;

/// A repository with a base commit, changed by later commits.
struct Fx {
    repo: GitRepo,
    base: String,
    tmp: tempfile::TempDir,
}

impl Fx {
    fn new(files: &[(&str, &str)]) -> Fx {
        let repo = GitRepo::new();
        for (p, c) in files {
            repo.write(p, c);
        }
        repo.write(".gitignore", "node_modules\n");
        let base = repo.commit("base");
        Fx {
            repo,
            base,
            tmp: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> &Path {
        self.repo.path()
    }

    /// Writes and deletes files, commits, and returns the changed lines base → head.
    fn change(&self, writes: &[(&str, &str)], deletes: &[&str]) -> Vec<ChangedFile> {
        for (p, c) in writes {
            self.repo.write(p, c);
        }
        for p in deletes {
            std::fs::remove_file(self.root().join(p)).unwrap();
        }
        self.repo.commit("change");
        let tree = self.repo.git(&["rev-parse", "HEAD^{tree}"]);
        changed_lines(&Git::new(self.root()), &self.base, tree.trim()).unwrap()
    }

    fn opts(&self) -> RunOptions {
        let mut o = RunOptions::new(self.tmp.path().join("logs"));
        o.timeout = Duration::from_secs(300);
        o
    }

    fn run(&self, changed: &[ChangedFile], opts: &RunOptions) -> LintReport {
        lint::run(&LintInput {
            root: self.root(),
            changed,
            opts,
        })
        .unwrap()
    }
}

/// `env` with PATH limited to the directories that do not hold any of `hide`.
fn env_without(env: &[(OsString, OsString)], hide: &[&str]) -> Vec<(OsString, OsString)> {
    env.iter()
        .map(|(k, v)| {
            if k == "PATH" {
                let dirs: Vec<PathBuf> = std::env::split_paths(v)
                    .filter(|d| !hide.iter().any(|h| d.join(h).exists()))
                    .collect();
                (k.clone(), std::env::join_paths(dirs).unwrap())
            } else {
                (k.clone(), v.clone())
            }
        })
        .collect()
}

fn only<'a>(report: &'a LintReport, name: &str) -> &'a LintRun {
    report
        .runs
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no run {name} in {report:#?}"))
}

fn lines_of(f: &[loki_lint::LintFinding]) -> Vec<(&str, Option<u32>)> {
    f.iter().map(|f| (f.path.as_str(), f.line)).collect()
}

fn ranges(rs: &[(u32, u32)]) -> LineSet {
    LineSet::from_ranges(
        rs.iter()
            .map(|&(start, end)| lint::LineRange { start, end }),
    )
}

#[test]
fn changed_lines_from_real_git() {
    let mut fx = Fx::new(&[
        ("a.py", "one\ntwo\nthree\nfour\nfive\n"),
        ("gone.py", "x = 1\n"),
        ("dir with space/b c.py", "a\nb\nc\n"),
        ("crlf.py", "a\r\nb\r\nc\r\n"),
        ("only_deleted.py", "a\nb\nc\n"),
    ]);
    std::fs::write(fx.root().join("img.bin"), [0u8, 1, 2, 0, 255]).unwrap();
    fx.base = fx.repo.commit("binary");
    std::fs::write(fx.root().join("img.bin"), [0u8, 9, 9, 0, 255, 7]).unwrap();
    std::os::unix::fs::symlink("a.py", fx.root().join("link.py")).unwrap();
    let changed = fx.change(
        &[
            ("a.py", "one\nTWO\nthree\nfour\nfive\nsix\n"),
            ("new dir/new.py", "a\nb\n"),
            ("dir with space/b c.py", "a\nB\nc\n"),
            ("crlf.py", "a\r\nb\r\nX\r\nY\r\n"),
            ("only_deleted.py", "a\nc\n"),
        ],
        &["gone.py"],
    );
    let got: Vec<(&str, &LineSet)> = changed
        .iter()
        .map(|f| (f.path.as_str(), &f.lines))
        .collect();
    assert_eq!(
        got,
        [
            ("a.py", &ranges(&[(2, 2), (6, 6)])),
            ("crlf.py", &ranges(&[(3, 4)])),
            ("dir with space/b c.py", &ranges(&[(2, 2)])),
            ("new dir/new.py", &LineSet::All),
            ("only_deleted.py", &ranges(&[])),
        ],
        "deleted, binary and symlinked files are left out"
    );
    let err = changed_lines(&Git::new(fx.root()), "no-such-rev", "HEAD").unwrap_err();
    assert!(err.to_string().contains("no-such-rev"), "{err}");
}

/// Without ruff or pyflakes: the syntax check, which says so, writes no bytecode, and fails only
/// for errors on changed lines (or anywhere in a new file, CRLF and spaces in the path included).
#[test]
fn python_syntax_check_counts_only_changed_lines() {
    let fx = Fx::new(&[
        ("pkg/pyproject.toml", "[project]\nname = \"p\"\n"),
        ("pkg/ok.py", "x = 1\n\ny = 2\n"),
        ("pkg/old_bad.py", "def f(:\n    pass\n\nz = 3\n"),
    ]);
    let mut opts = fx.opts();
    opts.env = env_without(&opts.env, &["ruff"]);
    let changed = fx.change(
        &[
            ("pkg/ok.py", "x = 1\n\ny = (\n"),
            ("pkg/old_bad.py", "def f(:\n    pass\n\nz = 4\n"),
        ],
        &[],
    );
    let report = fx.run(&changed, &opts);
    assert_eq!(report.runs.len(), 1, "{report:#?}");
    let r = &report.runs[0];
    assert!(
        ["lint:py_compile:pkg", "lint:pyflakes:pkg"].contains(&r.name.as_str()),
        "{r:#?}"
    );
    assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
    assert_eq!(lines_of(&r.new_findings), [("pkg/ok.py", Some(3))]);
    assert!(
        lines_of(&r.findings).contains(&("pkg/old_bad.py", Some(1))),
        "the untouched syntax error is found but not new: {r:#?}"
    );
    assert_eq!(r.files, 2);
    if r.name == "lint:py_compile:pkg" {
        assert!(
            r.reason.as_deref().unwrap().starts_with("syntax only"),
            "{r:#?}"
        );
        assert!(r.cmd.contains("syntax only"), "{}", r.cmd);
    }
    let log = std::fs::read_to_string(&r.log_path).unwrap();
    assert!(log.contains("pre-existing: pkg/old_bad.py:1:"), "{log}");
    assert!(
        !fx.root().join("pkg/__pycache__").exists(),
        "no bytecode is written"
    );
    let counts = r.counts();
    assert_eq!((counts.executed, counts.passed, counts.failed), (2, 1, 1));
    let event = loki_events::payload::CheckResult::from(r);
    assert_eq!(
        (
            event.run.kind.as_str(),
            event.run.result.as_str(),
            event.new_findings
        ),
        ("lint", "fail", Some(1))
    );
    assert!(!r.proves());

    // Fixed on the changed line: the untouched error is still logged, and the run passes.
    let changed = fx.change(&[("pkg/ok.py", "x = 1\n\ny = ()\n")], &[]);
    let report = fx.run(&changed, &opts);
    let r = &report.runs[0];
    assert_eq!(r.result, CheckStatus::Pass, "{r:#?}");
    assert!(r.new_findings.is_empty() && !r.findings.is_empty());
    assert!(r.proves());
}

#[test]
fn python_new_file_crlf_and_spaces() {
    let fx = Fx::new(&[("keep.py", "a = 1\r\nb = 2\r\nc = 3\r\n")]);
    let mut opts = fx.opts();
    opts.env = env_without(&opts.env, &["ruff"]);
    let changed = fx.change(
        &[
            ("sub dir/new file.py", "a = 1\nb = 2\nc = 3\nd = 4\ne = (\n"),
            ("keep.py", "a = 1\r\nb = 2\r\nc = (\r\n"),
        ],
        &[],
    );
    assert_eq!(changed[1].lines, LineSet::All);
    let report = fx.run(&changed, &opts);
    let r = &report.runs[0];
    assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
    let mut got = lines_of(&r.new_findings);
    got.sort();
    assert_eq!(
        got,
        [("keep.py", Some(3)), ("sub dir/new file.py", Some(5))]
    );
}

/// The repository's own ruff (`.venv/bin/ruff`, here a script printing ruff's format) wins over
/// every fallback; its exit 1 over pre-existing findings is not a failure.
#[test]
fn repo_venv_ruff_is_used_and_read() {
    let fake = "#!/bin/sh\n[ \"$1 $2 $3\" = \"check --output-format=concise --no-cache\" ] || exit 9\ncat <<'EOF'\na.py:1:8: F401 [*] `os` imported but unused\na.py:4:12: F821 Undefined name `nope`\nFound 2 errors.\nEOF\nexit 1\n";
    let fx = Fx::new(&[("a.py", "import os\n\ndef f():\n    return 1\n")]);
    let ruff = fx.root().join(".venv/bin/ruff");
    std::fs::create_dir_all(ruff.parent().unwrap()).unwrap();
    std::fs::write(&ruff, fake).unwrap();
    std::fs::set_permissions(&ruff, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let changed = fx.change(&[("a.py", "import os\n\ndef f():\n    return nope\n")], &[]);
    let report = fx.run(&changed, &fx.opts());
    let r = only(&report, "lint:ruff");
    assert_eq!(
        r.cmd,
        ".venv/bin/ruff check --output-format=concise --no-cache a.py"
    );
    assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
    assert_eq!(r.new_findings.len(), 1);
    assert_eq!(r.new_findings[0].code.as_deref(), Some("F821"));
    assert_eq!(r.findings.len(), 2);
    assert_eq!(r.exit_code, Some(1));

    // A hanging linter is killed at the timeout.
    std::fs::write(&ruff, "#!/bin/sh\nsleep 60\n").unwrap();
    let mut opts = fx.opts();
    opts.timeout = Duration::from_secs(1);
    let t = Instant::now();
    let report = fx.run(&changed, &opts);
    let r = only(&report, "lint:ruff");
    assert_eq!(r.result, CheckStatus::Timeout, "{r:#?}");
    assert!(t.elapsed() < Duration::from_secs(20), "{:?}", t.elapsed());
    assert_eq!(r.counts().executed, 0, "a timed-out linter judged nothing");
}

/// Missing tools: Python falls back with a reason, JS and Go say what to install, and a planned
/// program that has gone missing is `not_run`, never `fail`.
#[test]
fn missing_tools_fall_back_or_are_not_run() {
    let fx = Fx::new(&[("a.js", "let a = 1;\n"), ("m.go", "package m\n")]);
    let changed = fx.change(
        &[
            ("a.js", "let a = 2;\n"),
            ("m.go", "package m\n\nvar X = 1\n"),
            ("b.py", "x = 1\n"),
            ("c.jsx", "x\n"),
            ("d.ts", "let x: number = 1;\n"),
            ("README.md", "# docs are ignored\n"),
        ],
        &[],
    );
    let bare: Vec<(OsString, OsString)> = vec![("PATH".into(), fx.tmp.path().join("empty").into())];
    let plan = lint::plan_with(fx.root(), &changed, &bare, &[]);
    assert!(plan.groups.is_empty(), "{plan:#?}");
    assert_eq!(
        plan.not_covered,
        [
            "lint: no linter for Python (b.py): install ruff, or python3 for a syntax check",
            "lint: no linter for JavaScript (a.js): install node, or eslint with a configuration",
            "lint: no linter for JSX (c.jsx): add eslint with a configuration",
            "lint: no linter for TypeScript (d.ts): add eslint or a tsconfig with typescript installed",
            "lint: no linter for Go formatting (m.go): install go (gofmt)",
            "lint: no linter for Go (m.go): install go (go vet)",
        ]
    );

    // Planned with node, gone by the time it runs: not run, never fail.
    if !loki_test_support::require_tool("node", &["--version"]) {
        return;
    }
    let opts = fx.opts();
    let plan = lint::plan_with(fx.root(), &changed, &opts.env, &[]);
    let mut node: Vec<_> = plan
        .groups
        .iter()
        .filter(|g| g.linter == Linter::NodeCheck)
        .cloned()
        .collect();
    assert_eq!(node.len(), 1, "{plan:#?}");
    node[0].argv[0] = fx.tmp.path().join("gone/node").display().to_string();
    let report = lint::run_plan(
        &LintPlan {
            groups: node,
            not_covered: vec![],
        },
        &LintInput {
            root: fx.root(),
            changed: &changed,
            opts: &opts,
        },
    )
    .unwrap();
    let r = &report.runs[0];
    assert_eq!(
        (r.result, r.reason.as_deref()),
        (CheckStatus::NotRun, Some("node not found"))
    );
    assert_eq!(r.exit_code, None);
    assert!(!r.proves());
    assert_eq!(
        r.counts().executed,
        0,
        "a linter that never ran judged nothing"
    );
}

/// ESLint installed but its interpreter missing (exit 127 from `env`): the linter could not
/// judge the code, so the run is `not_run` with the output's tail, not `fail`.
#[test]
fn a_linter_that_cannot_start_its_interpreter_is_not_run() {
    let fx = Fx::new(&[
        ("package.json", "{\"name\": \"w\"}\n"),
        ("eslint.config.js", "export default [];\n"),
        ("a.js", "let a = 1;\n"),
    ]);
    let eslint = fx.root().join("node_modules/.bin/eslint");
    std::fs::create_dir_all(eslint.parent().unwrap()).unwrap();
    std::fs::write(&eslint, "#!/usr/bin/env loki-no-such-node\n").unwrap();
    std::fs::set_permissions(&eslint, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let changed = fx.change(&[("a.js", "let a = 2;\n")], &[]);
    let report = fx.run(&changed, &fx.opts());
    let r = only(&report, "lint:eslint");
    assert_eq!(r.cmd, "node_modules/.bin/eslint --format json a.js");
    assert_eq!(r.result, CheckStatus::NotRun, "{r:#?}");
    assert_eq!(r.exit_code, Some(127));
    let reason = r.reason.as_deref().unwrap();
    assert!(
        reason.starts_with("eslint could not lint (exit 127): "),
        "{reason}"
    );
    assert!(reason.contains("loki-no-such-node"), "{reason}");
}

#[test]
fn node_check_and_not_covered_typescript() {
    if !loki_test_support::require_tool("node", &["--version"]) {
        return;
    }
    let fx = Fx::new(&[
        (
            "web/package.json",
            "{\"name\": \"w\", \"type\": \"module\"}\n",
        ),
        ("web/old.js", "let x = ;\nconst a = 1;\n"),
        ("web/esm.mjs", "export const a = 1;\n"),
    ]);
    let changed = fx.change(
        &[
            ("web/old.js", "let x = ;\nconst a = 2;\n"),
            (
                "web/esm.mjs",
                "import fs from 'node:fs';\nexport const a = fs;\n",
            ),
            ("web/new.cjs", "const a = 1;\nconst b = ;\n"),
            ("web/t.ts", "const t: number = 1;\n"),
        ],
        &[],
    );
    let report = fx.run(&changed, &fx.opts());
    let r = only(&report, "lint:node-check:web");
    assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
    assert_eq!(r.files, 3);
    assert_eq!(lines_of(&r.new_findings), [("web/new.cjs", Some(2))]);
    assert_eq!(
        lines_of(&r.findings),
        [("web/new.cjs", Some(2)), ("web/old.js", Some(1))]
    );
    assert!(
        r.new_findings[0].message.starts_with("SyntaxError"),
        "{r:#?}"
    );
    assert!(r.reason.as_deref().unwrap().starts_with("syntax only"));
    assert_eq!(
        report.not_covered,
        [
            "lint: no linter for TypeScript (web/t.ts): add eslint or a tsconfig with typescript installed"
        ]
    );
}

#[test]
fn eslint_and_tsc_when_installed() {
    let Some(modules) = loki_test_support::require_npm(&["eslint", "tsc"]) else {
        return;
    };
    let config = "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'error', 'no-undef': 'warn' } }];\n";
    let fx = Fx::new(&[
        ("package.json", "{\"name\": \"w\", \"type\": \"module\"}\n"),
        ("eslint.config.js", config),
        ("src/a b.js", "const unused = 1;\nexport const k = 2;\n"),
        (
            "types/tsconfig.json",
            "{\"compilerOptions\": {\"strict\": true, \"noEmit\": true}}\n",
        ),
        (
            "types/t.ts",
            "export const ok: number = 1;\nexport const old: number = 'x';\n",
        ),
    ]);
    std::os::unix::fs::symlink(&modules, fx.root().join("node_modules")).unwrap();
    std::os::unix::fs::symlink(&modules, fx.root().join("types/node_modules")).unwrap();
    let changed = fx.change(
        &[
            (
                "src/a b.js",
                "const unused = 1;\nexport const k = missing;\n",
            ),
            ("src/t.ts", "export const n: number = 1;\n"),
        ],
        &[],
    );
    let report = fx.run(&changed, &fx.opts());
    let r = only(&report, "lint:eslint");
    assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
    assert_eq!(lines_of(&r.new_findings), [("src/a b.js", Some(2))]);
    assert_eq!(
        r.new_findings[0].message,
        "warning: 'missing' is not defined."
    );
    assert_eq!(
        lines_of(&r.findings),
        [("src/a b.js", Some(1)), ("src/a b.js", Some(2))]
    );
    assert_eq!(r.files, 1, "the ignored .ts file is not counted: {r:#?}");
    assert!(
        report.not_covered[0].starts_with("lint: eslint did not lint src/t.ts: File ignored"),
        "{report:#?}"
    );

    // Without an ESLint configuration, TypeScript goes to tsc on its project.
    std::fs::remove_file(fx.root().join("eslint.config.js")).unwrap();
    let changed = fx.change(
        &[(
            "types/t.ts",
            "export const ok: number = 'y';\nexport const old: number = 'x';\n",
        )],
        &[],
    );
    let report = fx.run(&changed, &fx.opts());
    let r = only(&report, "lint:tsc:types");
    assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
    assert_eq!(lines_of(&r.new_findings), [("types/t.ts", Some(1))]);
    assert_eq!(r.new_findings[0].code.as_deref(), Some("TS2322"));
    assert_eq!(r.findings.len(), 2);
}

const GO_MOD: &str = "module example.com/m\n\ngo 1.19\n";
const GO_A: &str = "package pkg\n\nimport \"fmt\"\n\n// Old has a pre-existing vet finding.\nfunc Old() {\n\tfmt.Printf(\"%d\\n\", \"x\")\n}\n";

#[test]
fn go_gofmt_and_vet() {
    if !loki_test_support::require_tool("go", &["version"]) {
        return;
    }
    let fx = Fx::new(&[
        ("go.mod", GO_MOD),
        ("pkg/a.go", GO_A),
        ("pkg/gone.go", "package pkg\n"),
        ("pkg/testdata/broken.go", "package broken\n"),
    ]);
    let opts = fx.opts();
    let added =
        format!("{GO_A}\n// New adds one.\nfunc New() {{\n\tfmt.Printf(\"%s\\n\", 1)\n}}\n");
    let changed = fx.change(
        &[
            ("pkg/a.go", &added),
            ("pkg/b.go", "package pkg\n\nfunc  B() {}\n"),
            ("pkg/testdata/broken.go", "package broken\nfunc {\n"),
        ],
        &["pkg/gone.go"],
    );
    let report = fx.run(&changed, &opts);
    let vet = only(&report, "lint:go-vet");
    assert_eq!(vet.cmd, "go vet ./pkg");
    assert_eq!(vet.result, CheckStatus::Fail, "{vet:#?}");
    assert_eq!(lines_of(&vet.new_findings), [("pkg/a.go", Some(12))]);
    assert_eq!(
        lines_of(&vet.findings),
        [("pkg/a.go", Some(7)), ("pkg/a.go", Some(12))]
    );
    assert_eq!(vet.files, 2, "deleted and testdata files are not linted");
    let fmt = only(&report, "lint:gofmt");
    assert_eq!(fmt.result, CheckStatus::Fail, "{fmt:#?}");
    assert_eq!(lines_of(&fmt.new_findings), [("pkg/b.go", None)]);

    // Clean change: the pre-existing vet finding is logged; both pass.
    let fixed = added.replace("\"%s\\n\", 1", "\"%d\\n\", 1");
    let changed = fx.change(
        &[
            ("pkg/a.go", &fixed),
            ("pkg/b.go", "package pkg\n\nfunc B() {}\n"),
        ],
        &[],
    );
    let report = fx.run(&changed, &opts);
    let vet = only(&report, "lint:go-vet");
    assert_eq!(
        (vet.result, vet.findings.len()),
        (CheckStatus::Pass, 1),
        "{vet:#?}"
    );
    assert_eq!(only(&report, "lint:gofmt").result, CheckStatus::Pass);
    assert!(report.runs.iter().all(LintRun::proves));
}

const CARGO_TOML: &str =
    "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n";
const WORKSPACE_TOML: &str = "[workspace]\nmembers = [\"crates/fx\"]\nresolver = \"2\"\n";
const MEMBER_TOML: &str = "[package]\nname = \"fx\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
const LIB_RS: &str = "/// Pre-existing clippy finding (ptr_arg) on an untouched line.\npub fn old(v: &Vec<i32>) -> usize {\n    v.len()\n}\n\n/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";

#[test]
fn clippy_new_from_diff() {
    if !loki_test_support::require_tool("cargo", &["clippy", "--version"]) {
        return;
    }
    // A workspace member: cargo prints paths from the workspace root.
    let fx = Fx::new(&[
        ("Cargo.toml", WORKSPACE_TOML),
        ("crates/fx/Cargo.toml", MEMBER_TOML),
        ("crates/fx/src/lib.rs", LIB_RS),
    ]);
    let mut opts = fx.opts();
    opts.env.push((
        "CARGO_TARGET_DIR".into(),
        fx.tmp.path().join("target").into(),
    ));
    let clean = LIB_RS.replace("    a + b\n", "    a.wrapping_add(b)\n");
    let changed = fx.change(&[("crates/fx/src/lib.rs", &clean)], &[]);
    let report = fx.run(&changed, &opts);
    let r = only(&report, "lint:clippy:crates/fx");
    assert_eq!(
        r.cmd,
        "cargo clippy --message-format=short --quiet --all-targets"
    );
    assert_eq!(r.result, CheckStatus::Pass, "{r:#?}");
    assert_eq!(lines_of(&r.findings), [("crates/fx/src/lib.rs", Some(2))]);

    let bad = LIB_RS.replace("    a + b\n", "    let s = a + b;\n    return s;\n");
    let changed = fx.change(&[("crates/fx/src/lib.rs", &bad)], &[]);
    let report = fx.run(&changed, &opts);
    let r = only(&report, "lint:clippy:crates/fx");
    assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
    assert!(
        r.new_findings
            .iter()
            .all(|f| f.path == "crates/fx/src/lib.rs" && matches!(f.line, Some(8 | 9))),
        "{r:#?}"
    );
    assert!(!r.new_findings.is_empty());

    // A compile error on a changed line is a finding too.
    let broken = LIB_RS.replace("    a + b\n", "    a + c\n");
    let changed = fx.change(&[("crates/fx/src/lib.rs", &broken)], &[]);
    let report = fx.run(&changed, &opts);
    let r = only(&report, "lint:clippy:crates/fx");
    assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
    assert!(
        r.new_findings
            .iter()
            .any(|f| f.code.as_deref() == Some("E0425")),
        "{r:#?}"
    );
}

/// Without cargo on PATH, rustfmt --check says which changed lines it would reformat.
#[test]
fn rustfmt_fallback_without_clippy() {
    let Some(rustfmt) = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join("rustfmt"))
        .find(|p| p.is_file())
    else {
        loki_test_support::missing("rustfmt on PATH", "rustup component add rustfmt");
        return;
    };
    let fx = Fx::new(&[
        ("Cargo.toml", CARGO_TOML),
        ("src/lib.rs", "pub fn a()   {}\n\npub fn b() {}\n"),
    ]);
    let bin = fx.tmp.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(rustfmt, bin.join("rustfmt")).unwrap();
    let mut opts = fx.opts();
    opts.env.retain(|(k, _)| k != "PATH");
    opts.env.push(("PATH".into(), bin.into()));
    let changed = fx.change(
        &[("src/lib.rs", "pub fn a()   {}\n\npub fn b()  {}\n")],
        &[],
    );
    let report = fx.run(&changed, &opts);
    let r = only(&report, "lint:rustfmt");
    assert_eq!(
        r.cmd,
        "rustfmt --check --color never --edition 2021 src/lib.rs"
    );
    assert!(r.reason.is_some() || r.result == CheckStatus::Fail);
    assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
    assert_eq!(lines_of(&r.new_findings), [("src/lib.rs", Some(3))]);
    assert_eq!(
        lines_of(&r.findings),
        [("src/lib.rs", Some(1)), ("src/lib.rs", Some(3))]
    );
    assert_eq!(
        std::fs::read_to_string(fx.root().join("src/lib.rs")).unwrap(),
        "pub fn a()   {}\n\npub fn b()  {}\n"
    );
}

#[test]
fn report_text_reads_well() {
    let finding =
        |path: &str, line: Option<u32>, code: Option<&str>, msg: &str| loki_lint::LintFinding {
            path: path.into(),
            line,
            end_line: None,
            code: code.map(str::to_owned),
            message: msg.into(),
        };
    let run = |name: &str,
               result: CheckStatus,
               files: u64,
               new: Vec<loki_lint::LintFinding>,
               old: u32,
               reason: Option<&str>| {
        let mut findings = new.clone();
        findings.extend((1..=old).map(|i| finding("old.py", Some(i), Some("F401"), "unused")));
        LintRun {
            name: name.into(),
            cmd: String::new(),
            why: String::new(),
            result,
            files,
            findings,
            new_findings: new,
            duration_s: 0.25,
            log_path: PathBuf::new(),
            log_sha256: String::new(),
            reason: reason.map(str::to_owned),
            exit_code: Some(0),
        }
    };
    let report = LintReport {
        runs: vec![
            run("lint:ruff", CheckStatus::Fail, 3, vec![finding("a.py", Some(6), Some("F821"), "Undefined name `x`")], 2, Some("1 new finding(s)")),
            run("lint:gofmt:svc", CheckStatus::Fail, 1, vec![finding("svc/b.go", None, None, "not gofmt-formatted (run gofmt -w on it)")], 0, None),
            run("lint:node-check:web", CheckStatus::Pass, 1, vec![], 0, Some("syntax only")),
            run("lint:clippy", CheckStatus::NotRun, 2, vec![], 0, Some("cargo not found")),
        ],
        not_covered: vec!["lint: no linter for TypeScript (src/a.ts): add eslint or a tsconfig with typescript installed".into()],
    };
    assert!(report.failed());
    insta::assert_snapshot!(report.render());
    assert_eq!(
        LintReport::default().render(),
        "lint: no changed source files to lint\n"
    );
}

/// Real ruff, then real pyflakes, from `LOKI_PY_TOOLS` (their output formats are also pinned by
/// the parser tests on captured text).
#[test]
fn real_ruff_and_pyflakes_when_installed() {
    let Some(t) = loki_test_support::require_py_tools() else {
        return;
    };
    let fx = Fx::new(&[("m/a b.py", "import os\n\n\ndef f():\n    return 1\n")]);
    let changed = fx.change(
        &[("m/a b.py", "import os\n\n\ndef f():\n    return nope\n")],
        &[],
    );
    // `.ci/run` installs both into `LOKI_PY_TOOLS` (`pip install --target`), off the PATH the
    // other tests see, so they keep their syntax-check fallback.
    let mut ran = Vec::new();
    for (name, hide) in [("lint:ruff", &[][..]), ("lint:pyflakes", &["ruff"][..])] {
        let mut opts = fx.opts();
        for (k, v) in &mut opts.env {
            if k == "PATH" {
                let mut dirs = vec![t.join("bin")];
                dirs.extend(std::env::split_paths(&v.clone()));
                *v = std::env::join_paths(dirs).unwrap();
            }
        }
        opts.env
            .push(("PYTHONPATH".into(), t.clone().into_os_string()));
        opts.env = env_without(&opts.env, hide);
        let report = fx.run(&changed, &opts);
        let Some(r) = report.runs.iter().find(|r| r.name == name) else {
            continue;
        };
        assert_eq!(r.result, CheckStatus::Fail, "{r:#?}");
        assert_eq!(lines_of(&r.new_findings), [("m/a b.py", Some(5))]);
        assert_eq!(
            lines_of(&r.findings),
            [("m/a b.py", Some(1)), ("m/a b.py", Some(5))]
        );
        ran.push(name);
    }
    assert_eq!(
        ran,
        ["lint:ruff", "lint:pyflakes"],
        "LOKI_PY_TOOLS has both"
    );
}
