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
    // doctor repairs: it runs without the broken file, says so, and fails its config check.
    sandboxed(&sb, repo.path())
        .args(["doctor", "--config"])
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("x.yaml:").and(predicate::str::contains("not valid YAML")))
        .stdout(predicate::str::contains("FAIL config: ").and(predicate::str::contains("x.yaml:")));
}

/// The warning a command prints when it ignored the broken `loki.toml`.
fn ignored_repo_file() -> impl Predicate<str> {
    predicate::str::contains("warning: ")
        .and(predicate::str::contains("loki.toml:2"))
        .and(predicate::str::contains(
            "this file is ignored for this command",
        ))
        .and(predicate::str::contains("loki config init --repo --force"))
}

#[test]
fn a_broken_loki_toml_does_not_stop_the_commands_that_repair_it() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let rec = crate::verify::sealed_run(&sb, &repo, true);
    repo.write(
        "loki.toml",
        "[run]
cap_s = = 3
",
    );
    // The commands that report the effective settings still refuse.
    sandboxed(&sb, repo.path())
        .args(["config", "show"])
        .assert()
        .code(2);
    sandboxed(&sb, repo.path())
        .args(["verify", rec.id.as_str()])
        .assert()
        .code(0)
        .stderr(ignored_repo_file());
    sandboxed(&sb, repo.path())
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("FAIL config: ").and(predicate::str::contains("loki.toml:2")),
        )
        .stdout(predicate::str::contains("git:"))
        .stderr(ignored_repo_file());
    sandboxed(&sb, repo.path())
        .args(["keys", "show"])
        .assert()
        .success()
        .stdout(predicate::str::contains("keyid:"))
        .stderr(ignored_repo_file());
    sandboxed(&sb, repo.path())
        .args(["config", "path"])
        .assert()
        .success()
        .stdout(predicate::str::contains("loki.toml (exists)"))
        .stderr(ignored_repo_file());
    // A user-file change goes through while the repository's file is broken.
    sandboxed(&sb, repo.path())
        .args(["config", "set", "run.cap_s", "120"])
        .assert()
        .success()
        .stderr(ignored_repo_file());
    // Replacing the broken file repairs everything.
    sandboxed(&sb, repo.path())
        .args(["config", "init", "--repo", "--force"])
        .assert()
        .success()
        .stderr(ignored_repo_file());
    sandboxed(&sb, repo.path())
        .args(["config", "get", "run.cap_s"])
        .assert()
        .success()
        .stdout("120\n")
        .stderr("");
}

#[test]
fn config_set_mends_a_bad_value_in_place() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("loki.toml", "# team\n[output]\ncolor = \"purple\"\n");
    sandboxed(&sb, repo.path())
        .args(["config", "get", "output.color"])
        .assert()
        .code(2);
    sandboxed(&sb, repo.path())
        .args(["config", "set", "--repo", "output.color", "never"])
        .assert()
        .success()
        .stderr(predicate::str::contains("loki.toml:3").and(predicate::str::contains("ignored")));
    sandboxed(&sb, repo.path())
        .args(["config", "get", "output.color"])
        .assert()
        .success()
        .stdout("never\n");
    assert!(
        std::fs::read_to_string(repo.path().join("loki.toml"))
            .unwrap()
            .starts_with("# team\n")
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
