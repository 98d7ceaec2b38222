//! `loki config`: layering with provenance, secrets, errors with file and line, set and init.

use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;

use crate::cli::sandboxed;

#[test]
fn show_prints_each_value_and_its_source() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    std::fs::create_dir_all(sb.loki_home()).unwrap();
    std::fs::write(sb.loki_home().join("config.toml"), "[run]\ncap_s = 100\n").unwrap();
    repo.write("loki.toml", "[checks]\ntimeout_s = 30\n");
    let extra = repo.path().join("extra.json");
    std::fs::write(&extra, "{\"provider\": {\"model\": \"m1\"}}").unwrap();
    let out = sandboxed(&sb, repo.path())
        .env("LOKI_SEAL_MAX_BLOCKS", "2")
        .env("ANTHROPIC_API_KEY", "sk-ant-secret-value")
        .args(["config", "show", "--config"])
        .arg(&extra)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(
        !text.contains("sk-ant-secret-value"),
        "secret printed:\n{text}"
    );
    let text = loki_test_support::redact(&text, &[(repo.path(), "[REPO]"), (sb.home(), "[HOME]")]);
    insta::assert_snapshot!(text);
}

#[test]
fn show_json_never_contains_secrets() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let out = sandboxed(&sb, repo.path())
        .env("OPENAI_API_KEY", "sk-openai-secret")
        .args(["config", "show", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(!text.contains("sk-openai-secret"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let key = v["settings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["key"] == "openai.api_key")
        .unwrap();
    assert_eq!(key["value"], "set");
    assert_eq!(key["source"]["layer"], "env");
}

#[test]
fn a_config_file_with_a_syntax_error_names_file_and_line() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("loki.toml", "[run]\ncap_s = 10\ncap_s = = 3\n");
    sandboxed(&sb, repo.path())
        .args(["config", "show"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("loki.toml:3"));
    let repo = GitRepo::new();
    let bad = repo.path().join("x.yaml");
    std::fs::write(&bad, "run:\n  cap_s: [\n").unwrap();
    sandboxed(&sb, repo.path())
        .args(["doctor", "--config"])
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("x.yaml:").and(predicate::str::contains("not valid YAML")),
        );
}

#[test]
fn a_bad_value_names_key_file_and_line() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("loki.toml", "\n[output]\ncolor = \"purple\"\n");
    sandboxed(&sb, repo.path())
        .args(["config", "get", "output.color"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("loki.toml:3").and(predicate::str::contains("output.color")),
        );
}

#[test]
fn set_preserves_comments_and_get_reads_back() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write(
        "loki.toml",
        "# team settings\n[run]\ncap_s = 100 # keep short\n",
    );
    sandboxed(&sb, repo.path())
        .args(["config", "set", "--repo", "checks.timeout_s", "42"])
        .assert()
        .success();
    let text = std::fs::read_to_string(repo.path().join("loki.toml")).unwrap();
    assert!(
        text.contains("# team settings") && text.contains("# keep short"),
        "{text}"
    );
    sandboxed(&sb, repo.path())
        .args(["config", "get", "checks.timeout_s"])
        .assert()
        .success()
        .stdout("42\n");
    // A bad value is refused and nothing is written.
    sandboxed(&sb, repo.path())
        .args(["config", "set", "--repo", "checks.timeout_s", "soon"])
        .assert()
        .code(2);
    assert_eq!(
        std::fs::read_to_string(repo.path().join("loki.toml")).unwrap(),
        text
    );
    // Secrets never go to the repository file; in the user file they are written 0600.
    sandboxed(&sb, repo.path())
        .args(["config", "set", "--repo", "openai.api_key", "sk-x"])
        .assert()
        .code(2);
    sandboxed(&sb, repo.path())
        .args(["config", "set", "openai.api_key", "sk-x"])
        .assert()
        .success()
        .stdout(predicate::str::contains("set").and(predicate::str::contains("sk-x").not()));
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(sb.loki_home().join("config.toml"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    sandboxed(&sb, repo.path())
        .args(["config", "get", "openai.api_key"])
        .assert()
        .success()
        .stdout("set\n");
}

#[test]
fn init_writes_a_template_that_loads_and_refuses_to_clobber() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    sandboxed(&sb, repo.path())
        .args(["config", "init"])
        .assert()
        .success();
    sandboxed(&sb, repo.path())
        .args(["config", "show"])
        .assert()
        .success();
    sandboxed(&sb, repo.path())
        .args(["config", "init"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--force"));
    sandboxed(&sb, repo.path())
        .args(["config", "path"])
        .assert()
        .success()
        .stdout(predicate::str::contains("exists"));
}
