//! The judge's runs are fenced from each other (rules 3 and 8): the code under test in one run
//! cannot rewrite what the judge cached or what another run reported.
//!
//! In every ecosystem the head regresses `add` and adds a passing test that, on the way,
//! rewrites every cached base result as passed → failed. A poisoned cache makes the regression
//! "pre-existing" and the change clean. Three judgements: the first caches the base; the head
//! runs beside the base (or after it, for cargo), so the poison lands in the second or, when it
//! raced the second's cache read, in the third.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use loki_test_support::{GitRepo, Sandbox};
use serde_json::Value;

use super::{require, toolchain_env};

/// The rewrite every poison does: cached passes become failures, as the cache spells them.
const FROM_TO: [(&str, &str); 2] = [
    (r#""status": "passed""#, r#""status": "failed""#),
    (r#""result": "pass""#, r#""result": "fail""#),
];

/// One ecosystem: its base files, the regression, and the poison test (given the cache path).
struct Eco {
    name: &'static str,
    tool: (&'static str, &'static str),
    base: &'static [(&'static str, &'static str)],
    regression: (&'static str, &'static str),
    poison_path: &'static str,
    poison: fn(&Path) -> String,
}

fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

fn rust_poison(cache: &Path) -> String {
    let [(a, b), (c, d)] = FROM_TO;
    format!(
        r#"fn walk(d: &std::path::Path) {{
    let Ok(entries) = std::fs::read_dir(d) else {{ return }};
    for e in entries.flatten() {{
        let p = e.path();
        if p.is_dir() {{
            walk(&p);
        }} else if let Ok(t) = std::fs::read_to_string(&p) {{
            let _ = std::fs::write(&p, t.replace("{}", "{}").replace("{}", "{}"));
        }}
    }}
}}

#[test]
fn tidies_up() {{
    walk(std::path::Path::new({cache:?}));
}}
"#,
        esc(a),
        esc(b),
        esc(c),
        esc(d)
    )
}

fn py_poison(cache: &Path) -> String {
    let [(a, b), (c, d)] = FROM_TO;
    format!(
        "import os\n\n\ndef test_tidies_up():\n    for root, _, names in os.walk({cache:?}):\n        for n in names:\n            p = os.path.join(root, n)\n            try:\n                t = open(p).read().replace('{a}', '{b}').replace('{c}', '{d}')\n                open(p, 'w').write(t)\n            except OSError:\n                pass\n"
    )
}

fn go_poison(cache: &Path) -> String {
    let [(a, b), (c, d)] = FROM_TO;
    format!(
        "package calc\n\nimport (\n\t\"io/fs\"\n\t\"os\"\n\t\"path/filepath\"\n\t\"strings\"\n\t\"testing\"\n)\n\nfunc TestTidiesUp(t *testing.T) {{\n\t_ = filepath.WalkDir({cache:?}, func(p string, d fs.DirEntry, err error) error {{\n\t\tif err != nil || d.IsDir() {{\n\t\t\treturn nil\n\t\t}}\n\t\tb, err := os.ReadFile(p)\n\t\tif err != nil {{\n\t\t\treturn nil\n\t\t}}\n\t\ts := strings.ReplaceAll(strings.ReplaceAll(string(b), `{a}`, `{b}`), `{c}`, `{d}`)\n\t\t_ = os.WriteFile(p, []byte(s), 0o644)\n\t\treturn nil\n\t}})\n}}\n"
    )
}

fn node_poison(cache: &Path) -> String {
    let [(a, b), (c, d)] = FROM_TO;
    format!(
        "const test = require('node:test');\nconst fs = require('node:fs');\nconst path = require('node:path');\n\nfunction walk(d) {{\n  let entries = [];\n  try {{ entries = fs.readdirSync(d, {{ withFileTypes: true }}); }} catch {{ return; }}\n  for (const e of entries) {{\n    const p = path.join(d, e.name);\n    if (e.isDirectory()) {{ walk(p); continue; }}\n    try {{\n      fs.writeFileSync(p, fs.readFileSync(p, 'utf8').split('{a}').join('{b}').split('{c}').join('{d}'));\n    }} catch {{}}\n  }}\n}}\n\ntest('tidies up', () => walk({cache:?}));\n"
    )
}

const ECOS: &[Eco] = &[
    Eco {
        name: "cargo",
        tool: ("cargo", "--version"),
        base: &[
            (
                "Cargo.toml",
                "[package]\nname = \"calc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
            ),
            (
                "Cargo.lock",
                "version = 4\n\n[[package]]\nname = \"calc\"\nversion = \"0.1.0\"\n",
            ),
            (".gitignore", "target\n"),
            (
                "src/lib.rs",
                "pub fn add(a: i64, b: i64) -> i64 {\n    a + b\n}\n",
            ),
            (
                "tests/add.rs",
                "#[test]\nfn adds() {\n    assert_eq!(calc::add(2, 3), 5);\n}\n",
            ),
        ],
        regression: (
            "src/lib.rs",
            "pub fn add(a: i64, b: i64) -> i64 {\n    a - b\n}\n",
        ),
        poison_path: "tests/tidy.rs",
        poison: rust_poison,
    },
    Eco {
        name: "pytest",
        tool: ("python3", "-m pytest --version"),
        base: &[
            ("calc.py", "def add(a, b):\n    return a + b\n"),
            (
                "test_calc.py",
                "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n",
            ),
        ],
        regression: ("calc.py", "def add(a, b):\n    return a - b\n"),
        poison_path: "test_tidy.py",
        poison: py_poison,
    },
    Eco {
        name: "go",
        tool: ("go", "version"),
        base: &[
            ("go.mod", "module example.com/calc\n\ngo 1.19\n"),
            (
                "calc.go",
                "package calc\n\nfunc Add(a, b int) int { return a + b }\n",
            ),
            (
                "calc_test.go",
                "package calc\n\nimport \"testing\"\n\nfunc TestAdds(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(Add(2, 3))\n\t}\n}\n",
            ),
        ],
        regression: (
            "calc.go",
            "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
        ),
        poison_path: "tidy_test.go",
        poison: go_poison,
    },
    Eco {
        name: "node",
        tool: ("node", "--version"),
        base: &[
            (
                "package.json",
                "{\"name\": \"calc\", \"private\": true, \"scripts\": {\"test\": \"node --test\"}}\n",
            ),
            ("calc.js", "exports.add = (a, b) => a + b;\n"),
            (
                "test/calc.test.js",
                "const test = require('node:test');\nconst assert = require('node:assert');\nconst { add } = require('../calc.js');\n\ntest('adds', () => assert.strictEqual(add(2, 3), 5));\n",
            ),
        ],
        regression: ("calc.js", "exports.add = (a, b) => a - b;\n"),
        poison_path: "test/tidy.test.js",
        poison: node_poison,
    },
];

fn files(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in walkdir(dir) {
        if let Ok(t) = std::fs::read_to_string(&e) {
            out.insert(e.display().to_string(), t);
        }
    }
    out
}

fn walkdir(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// `loki seal check --base HEAD --json` in `repo`: its exit code and JSON.
pub(super) fn seal_check(sandbox: &Sandbox, repo: &GitRepo) -> (Option<i32>, Value) {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
    sandbox.apply(&mut c);
    let out = c
        .current_dir(repo.path())
        .envs(toolchain_env())
        .args(["seal", "check", "--base", "HEAD", "--json"])
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "seal check printed no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code(), json)
}

#[test]
fn code_under_test_cannot_poison_the_cached_base_results() {
    if !loki_process::confine::available() {
        loki_test_support::missing(
            "Landlock (the judge's fence)",
            "run on Linux 5.13+ with Landlock enabled",
        );
        return;
    }
    for eco in ECOS {
        let (tool, args) = eco.tool;
        // A missing runner skips only its ecosystem (outside CI), not the others.
        if !require(tool, &args.split(' ').collect::<Vec<_>>()) {
            continue;
        }
        let sandbox = Sandbox::new();
        let repo = GitRepo::new();
        for (path, text) in eco.base {
            repo.write(path, text);
        }
        repo.commit("add");
        let baseline = sandbox.loki_home().join("cache").join("baseline");
        repo.write(eco.regression.0, eco.regression.1)
            .write(eco.poison_path, &(eco.poison)(&baseline));
        let mut cached = BTreeMap::new();
        for round in 1..=3 {
            let (code, json) = seal_check(&sandbox, &repo);
            let kinds: Vec<&str> = json["findings"]
                .as_array()
                .map(|a| a.iter().filter_map(|f| f["kind"].as_str()).collect())
                .unwrap_or_default();
            assert!(
                code == Some(1) && kinds.contains(&"newly_failing"),
                "{} judgement {round}: exit {code:?}: {json:#}",
                eco.name
            );
            let not_proven = json["not_proven"].to_string();
            assert!(!not_proven.contains("fenced judge runs"), "{not_proven}");
            let now = files(&baseline);
            if round == 1 {
                assert!(
                    !now.is_empty(),
                    "{}: the first judgement cached the base",
                    eco.name
                );
                cached = now;
            } else {
                assert_eq!(cached, now, "{}: the cache was rewritten", eco.name);
            }
        }
    }
}
