//! A build on a Maven project with JUnit 5 tests, end to end: the scripted provider writes a wall
//! test class (named `loki_wall_…` like every wall file: a valid Java class name that Surefire's
//! `*Test` pattern runs) and fixes the bug; the checks run `mvn test` offline (Debian's Maven repository,
//! [`loki_test_support::require::MAVEN_REPO`]) and read Surefire's reports; the run is VERIFIED.

use loki_test_support::require::MAVEN_POM;
use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::cli::sandboxed;

const TASK: &str = "Calc.twice(x) adds 2 instead of doubling; make it return x * 2.";
const CALC: &str = "package calc;\n\npublic class Calc {\n    public static int twice(int x) {\n        return x + 2;\n    }\n}\n";
const CALC_TEST: &str = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass CalcTest {\n    @Test\n    void twice() {\n        assertEquals(6, Calc.twice(3));\n    }\n}\n";
const WALL: &str = "package calc;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass loki_wall_TwiceTest {\n    @Test\n    void doublesFive() {\n        assertEquals(10, Calc.twice(5));\n    }\n}\n";

#[expect(
    clippy::needless_pass_by_value,
    reason = "json! values are built inline at each call"
)]
fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

#[test]
#[expect(clippy::disallowed_methods, reason = "the script file is a fixture")]
fn maven_build_is_verified() {
    let Some(maven_opts) = loki_test_support::require_maven() else {
        return;
    };
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("pom.xml", MAVEN_POM)
        .write("src/main/java/calc/Calc.java", CALC)
        .write("src/test/java/calc/CalcTest.java", CALC_TEST)
        .write(".gitignore", "target/\n");
    repo.commit("calc with a bug");
    let tmp = tempfile::tempdir().unwrap();
    let s = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", json!({"path": "src/test/java/calc/loki_wall_TwiceTest.java", "content": WALL})),
            call("finish", json!({"status": "done", "detail": "wall"}))]},
        {"name": "implement", "turns": [
            call("edit", json!({"path": "src/main/java/calc/Calc.java", "search": "return x + 2;", "replace": "return x * 2;"})),
            call("finish", json!({"status": "done", "detail": "done"}))]}]});
    let script = tmp.path().join("script.json");
    std::fs::write(&script, s.to_string()).unwrap();
    let out = sandboxed(&sb, repo.path())
        .env("MAVEN_OPTS", &maven_opts)
        .args([TASK, "--provider", "scripted", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(
        stdout.starts_with("Outcome:    VERIFIED\n"),
        "{stdout}{stderr}"
    );
    let run = std::fs::read_dir(repo.path().join(".loki/runs"))
        .unwrap()
        .flatten()
        .max_by_key(|e| e.metadata().unwrap().modified().unwrap())
        .unwrap();
    let receipt: Value =
        serde_json::from_slice(&std::fs::read(run.path().join("receipt.json")).unwrap()).unwrap();
    assert_eq!(receipt["verdict"], "VERIFIED", "{receipt:#}");
    let text = receipt.to_string();
    // The Maven check ran, and its per-test results name the wall's test.
    assert!(text.contains("loki_wall_TwiceTest"), "{receipt:#}");
    assert!(text.contains("\"maven\""), "{receipt:#}");
}
