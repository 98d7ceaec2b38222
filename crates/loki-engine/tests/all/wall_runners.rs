//! The wall on Go and vitest packages, end to end with the real runners: the wall fails on the
//! unchanged base, passes after the fix, and runs only its own file.

use loki_protocol::outcome::Outcome;
use loki_test_support::GitRepo;
use serde_json::{Value, json};

use crate::common::{build, receipt};

fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

fn done() -> Value {
    call("finish", json!({"status": "done", "detail": "done"}))
}

fn script(wall_path: &str, wall: &str, fix: Value) -> String {
    json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", json!({"path": wall_path, "content": wall})), done()]},
        {"name": "implement", "turns": [fix, done()]}
    ]})
    .to_string()
}

/// The receipt's wall facts and the wall check, asserted for a run that fixed the bug.
fn assert_wall_proved(r: &Value, wall_path: &str, executed: u64) {
    assert_eq!(r["verdict"], "VERIFIED", "{r:#}");
    assert_eq!(r["wall"]["files"][0]["path"], wall_path, "{r:#}");
    assert_eq!(
        r["wall"]["base_run"]["fail"], 1,
        "the wall failed on the base: {r:#}"
    );
    let wall = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["kind"] == "wall")
        .unwrap_or_else(|| panic!("a wall check: {r:#}"));
    assert_eq!(wall["result"], "passed", "{r:#}");
    assert_eq!(
        wall["executed"], executed,
        "only the wall's own tests ran: {r:#}"
    );
}

#[test]
fn a_go_wall_runs_its_test_functions_only() {
    if !loki_test_support::require_tool("go", &["version"]) {
        return;
    }
    let repo = GitRepo::new();
    repo.write("go.mod", "module example.com/calc\n\ngo 1.19\n")
        .write("calc/calc.go", "package calc\n\n// Add returns the sum.\nfunc Add(a, b int) int { return a - b }\n")
        .write(
            "calc/calc_test.go",
            "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"add\")\n\t}\n}\n\nfunc TestZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal(\"zero\")\n\t}\n}\n",
        );
    repo.commit("calc with a bug");
    let wall = "package calc\n\nimport \"testing\"\n\nfunc TestWallAddSums(t *testing.T) {\n\tif Add(2, 3) != 5 || Add(-1, 1) != 0 {\n\t\tt.Fatal(\"Add must sum\")\n\t}\n}\n";
    let fix = call(
        "edit",
        json!({"path": "calc/calc.go", "search": "return a - b", "replace": "return a + b"}),
    );
    let home = tempfile::tempdir().unwrap();
    let report = build(
        repo.path(),
        home.path(),
        "Add returns the difference; make it return the sum.",
        &script("calc/loki_wall_add_test.go", wall, fix),
        None,
    );
    let r = receipt(repo.path(), &report);
    assert_eq!(report.outcome, Outcome::Verified, "{r:#}");
    assert_wall_proved(&r, "calc/loki_wall_add_test.go", 1);
    assert_eq!(report.changed_files, ["calc/calc.go"]);
}

#[test]
fn a_vitest_wall_runs_through_the_package_script_on_its_file_only() {
    let Some(node_modules) = loki_test_support::require_npm(&["vitest"]) else {
        return;
    };
    let repo = GitRepo::new();
    repo.write(
        "package.json",
        r#"{"name": "fx", "private": true, "type": "module", "scripts": {"test": "vitest run"}}"#,
    )
    .write(".gitignore", "node_modules\n")
    .write("math.js", "export const add = (a, b) => a - b;\n")
    .write(
        "test/math.test.js",
        "import { expect, test } from 'vitest';\nimport { add } from '../math.js';\n\ntest('adds', () => {\n  expect(add(2, 3)).toBe(5);\n});\n\ntest('zero', () => {\n  expect(add(0, 0)).toBe(0);\n});\n",
    );
    repo.commit("math with a bug");
    std::os::unix::fs::symlink(node_modules, repo.path().join("node_modules")).unwrap();
    let wall = "import { expect, test } from 'vitest';\nimport { add } from '../math.js';\n\ntest('add sums', () => {\n  expect(add(2, 3)).toBe(5);\n});\n";
    let fix = call(
        "edit",
        json!({"path": "math.js", "search": "a - b", "replace": "a + b"}),
    );
    let home = tempfile::tempdir().unwrap();
    let report = build(
        repo.path(),
        home.path(),
        "add returns the difference; make it return the sum.",
        &script("test/loki_wall_add.test.js", wall, fix),
        None,
    );
    let r = receipt(repo.path(), &report);
    assert_eq!(report.outcome, Outcome::Verified, "{r:#}");
    assert_wall_proved(&r, "test/loki_wall_add.test.js", 1);
    assert_eq!(report.changed_files, ["math.js"]);
}
