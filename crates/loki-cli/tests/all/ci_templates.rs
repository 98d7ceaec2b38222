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
pub(crate) fn check(tools: &Path, schema: &[&str], files: &[PathBuf]) -> (bool, String) {
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
    assert_eq!(gitlab.len(), 3, "{gitlab:?}");
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

fn workflows() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../.github/workflows")
}

/// The weekly pin update (issue 33, item 5): a valid workflow, on a schedule, that runs
/// `scripts/update-agents` with a report and opens a pull request with it, and nothing else may
/// write.
#[test]
fn the_update_agents_workflow_runs_weekly_and_opens_a_pull_request() {
    let Some(tools) = loki_test_support::require_check_jsonschema() else {
        return;
    };
    let file = workflows().join("update-agents.yml");
    let (ok, said) = check(
        &tools,
        &["--builtin-schema", "vendor.github-workflows"],
        std::slice::from_ref(&file),
    );
    assert!(ok, "{said}");
    let run_with = |pattern: &str| {
        json!({"contains": {"type": "object", "required": ["run"],
            "properties": {"run": {"type": "string", "pattern": pattern}}}})
    };
    let schema = json!({"type": "object", "required": ["on", "permissions", "jobs"],
    "properties": {
        "on": {"type": "object", "required": ["schedule"], "properties": {"schedule":
            {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["cron"],
                // Weekly: a fixed minute, hour and day of the week.
                "properties": {"cron": {"pattern": "^[0-9]+ [0-9]+ \\* \\* [0-6]$"}}}}}},
        "permissions": {"const": {}},
        "jobs": {"type": "object", "minProperties": 1, "additionalProperties": {
            "type": "object", "required": ["permissions", "steps"],
            "properties": {
                "permissions": {"const": {"contents": "write", "pull-requests": "write"}},
                "steps": {"allOf": [
                    run_with("scripts/update-agents --report "),
                    run_with("gh pr create [^\\n]*--body-file"),
                ]}}}}}});
    let dir = tempfile::tempdir().unwrap();
    let schema_file = dir.path().join("update-agents.json");
    std::fs::write(&schema_file, schema.to_string()).unwrap();
    let schema_file = schema_file.to_str().unwrap();
    let (ok, said) = check(
        &tools,
        &["--schemafile", schema_file],
        std::slice::from_ref(&file),
    );
    assert!(ok, "{said}");
    // The schema can fail: the same workflow without its schedule is refused.
    let text = std::fs::read_to_string(&file).unwrap();
    let manual = dir.path().join("manual.yml");
    std::fs::write(
        &manual,
        text.replacen("  schedule:\n    - cron: \"23 5 * * 1\"\n", "", 1),
    )
    .unwrap();
    assert_ne!(std::fs::read_to_string(&manual).unwrap(), text);
    let (ok, said) = check(&tools, &["--schemafile", schema_file], &[manual]);
    assert!(!ok, "a workflow with no schedule passed: {said}");
}

/// Writes an executable shell script.
fn script(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `scripts/update-agents --pins-only` moves each pin to what its registry names newest and
/// reports the moves; a registry that names nothing stops it with the pins untouched. The
/// registries are shims on PATH (npm, and python3 for `pip index versions`).
#[test]
fn update_agents_moves_the_pins_and_reports_each_move() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    script(
        &bin.join("npm"),
        "#!/bin/sh\n[ \"$1 $3\" = \"view version\" ] || exit 9\ncase \"$2\" in\n  @openai/codex) echo 0.172.0 ;;\n  @anthropic-ai/claude-code) echo 2.1.332 ;;\n  *) exit 1 ;;\nesac\n",
    );
    script(
        &bin.join("python3"),
        "#!/bin/sh\n[ \"$1 $2 $3 $4\" = \"-m pip index versions\" ] || exit 9\necho \"$5 (0.87.0)\"\necho \"Available versions: 0.87.0, 0.86.2\"\n",
    );
    let pins = dir.path().join("agents.pins");
    let original = "# a comment stays\nnpm\t@anthropic-ai/claude-code\t2.1.332\tclaude\nnpm\t@openai/codex\t0.171.0\tcodex\npypi\taider-chat\t0.86.2\taider\n";
    std::fs::write(&pins, original).unwrap();
    let report = dir.path().join("report.md");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |pins: &Path| {
        Command::new(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/update-agents"))
            .args(["--pins-only", "--report"])
            .arg(&report)
            .env("PATH", &path)
            .env("TMPDIR", dir.path())
            .env("LOKI_AGENT_PINS", pins)
            .output()
            .unwrap()
    };
    let out = run(&pins);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&pins).unwrap(),
        "# a comment stays\nnpm\t@anthropic-ai/claude-code\t2.1.332\tclaude\nnpm\t@openai/codex\t0.172.0\tcodex\npypi\taider-chat\t0.87.0\taider\n"
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("codex: 0.171.0 -> 0.172.0"), "{said}");
    assert!(said.contains("aider: 0.86.2 -> 0.87.0"), "{said}");
    assert!(!said.contains("claude:"), "{said}");
    let text = std::fs::read_to_string(&report).unwrap();
    assert!(
        text.contains("| codex | `@openai/codex` | 0.171.0 | 0.172.0 |")
            && text.contains("| aider | `aider-chat` | 0.86.2 | 0.87.0 |")
            && !text.contains("claude"),
        "{text}"
    );
    // A registry that does not answer is an error, and the pins stay as they were.
    let unknown = dir.path().join("unknown.pins");
    let before = "npm\t@openai/codex\t0.171.0\tcodex\nnpm\tno-such-package\t1.0.0\tnope\n";
    std::fs::write(&unknown, before).unwrap();
    let out = run(&unknown);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-package"));
    assert_eq!(std::fs::read_to_string(&unknown).unwrap(), before);
    // Its temporary files are gone on both exits.
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["agents.pins", "bin", "report.md", "unknown.pins"]);
}
