//! The CI templates in `examples/ci/` are valid workflows for their CI (PyPI `check-jsonschema`
//! with its vendored GitHub workflow and GitLab CI schemas, offline) and keep the token split:
//! the job that runs the model holds a read-only token, the publish job alone can write, and it
//! runs `loki verify` before `loki pr`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/ci")
}

fn files(sub: &str) -> Vec<PathBuf> {
    let mut f: Vec<PathBuf> = std::fs::read_dir(examples().join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml"))
        .collect();
    f.sort();
    f
}

/// `check-jsonschema <schema args> <files>`: success, and what it said.
fn check(tools: &Path, schema: &[&str], files: &[PathBuf]) -> (bool, String) {
    let out = Command::new("python3")
        .args(["-m", "check_jsonschema"])
        .args(schema)
        .args(files)
        .env("PYTHONPATH", tools)
        .output()
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn the_ci_templates_are_valid_workflows() {
    let Some(tools) = loki_test_support::require_check_jsonschema() else {
        return;
    };
    let (github, gitlab) = (files("github"), files("gitlab"));
    assert_eq!(github.len(), 2, "{github:?}");
    assert_eq!(gitlab.len(), 2, "{gitlab:?}");
    let (ok, said) = check(
        &tools,
        &["--builtin-schema", "vendor.github-workflows"],
        &github,
    );
    assert!(ok, "{said}");
    let (ok, said) = check(&tools, &["--builtin-schema", "vendor.gitlab-ci"], &gitlab);
    assert!(ok, "{said}");
    // The check can fail: a job with no steps and a misspelt key is refused.
    let bad = tempfile::tempdir().unwrap();
    let broken = bad.path().join("broken.yml");
    std::fs::write(
        &broken,
        "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    stpes: []\n",
    )
    .unwrap();
    let (ok, said) = check(
        &tools,
        &["--builtin-schema", "vendor.github-workflows"],
        &[broken],
    );
    assert!(!ok, "a broken workflow passed: {said}");
}

#[test]
fn the_github_templates_keep_the_token_split() {
    let Some(tools) = loki_test_support::require_check_jsonschema() else {
        return;
    };
    // The job that runs loki's build holds `contents: read` and nothing else; the publish job
    // needs the build, writes, and verifies the receipt before it opens the request.
    let read_only = json!({"type": "object", "required": ["contents"], "additionalProperties": false,
        "properties": {"contents": {"const": "read"}}});
    let publish = json!({"type": "object", "required": ["needs", "permissions", "steps"],
        "properties": {
            "permissions": {"type": "object", "required": ["contents", "pull-requests"],
                "properties": {"contents": {"const": "write"}, "pull-requests": {"const": "write"}}},
            "steps": {"contains": {"type": "object", "required": ["run"],
                "properties": {"run": {"type": "string",
                    "pattern": "loki verify [^\\n]*--pubkey[\\s\\S]*loki pr "}}}}}});
    let schema = json!({"type": "object", "required": ["permissions", "jobs"],
        "properties": {
            "permissions": {"const": {}},
            "jobs": {"type": "object", "required": ["publish"], "minProperties": 2,
                "properties": {"publish": publish},
                "additionalProperties": {"type": "object", "required": ["permissions"],
                    "properties": {"permissions": read_only}}}}});
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token-split.json");
    std::fs::write(&file, schema.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let (ok, said) = check(&tools, &["--schemafile", file], &files("github"));
    assert!(ok, "{said}");
    // The comment trigger checks who wrote it.
    let issue = std::fs::read_to_string(examples().join("github/loki-issue.yml")).unwrap();
    assert!(issue.contains("github.event.comment.author_association"));
    // And the schema can fail: a build job that may write is refused.
    let leaky = dir.path().join("leaky.yml");
    assert!(issue.contains("      contents: read\n"));
    std::fs::write(
        &leaky,
        issue.replacen("      contents: read\n", "      contents: write\n", 1),
    )
    .unwrap();
    let (ok, said) = check(&tools, &["--schemafile", file], &[leaky]);
    assert!(!ok, "a writing build job passed: {said}");
}
