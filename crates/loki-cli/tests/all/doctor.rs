//! `loki doctor`: line format, JSON shape, and required failures.

use loki_test_support::{GitRepo, Sandbox};
use predicates::prelude::*;

use crate::cli::sandboxed;

#[test]
fn every_line_is_status_name_detail() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let out = sandboxed(&sb, repo.path())
        .arg("doctor")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    for line in text.lines() {
        let status = line.split(' ').next().unwrap();
        assert!(["PASS", "WARN", "FAIL"].contains(&status), "{line}");
        assert!(line.contains(": "), "{line}");
    }
    assert!(text.contains("PASS git: git version"));
}

#[test]
fn json_shape_is_pinned() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let out = sandboxed(&sb, repo.path())
        .args(["doctor", "--json"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    // Values depend on the machine; names, order and field types are the contract.
    let shape: Vec<String> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let status = c["status"].as_str().unwrap();
            assert!(["pass", "warn", "fail"].contains(&status));
            assert!(c["detail"].is_string());
            assert!(c.get("fix").is_none_or(serde_json::Value::is_string));
            c["name"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(v["ok"], true);
    insta::assert_json_snapshot!(shape);
}

#[test]
fn a_world_readable_signing_key_fails_and_json_still_prints() {
    use std::os::unix::fs::PermissionsExt;
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let keys = sb.loki_home().join("keys");
    std::fs::create_dir_all(&keys).unwrap();
    let key = keys.join("receipt-ed25519.pem");
    std::fs::write(&key, "x").unwrap();
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    sandboxed(&sb, repo.path())
        .arg("doctor")
        .assert()
        .code(1)
        .stdout(
            predicate::str::contains("FAIL signing key").and(predicate::str::contains("chmod 600")),
        );
    let out = sandboxed(&sb, repo.path())
        .args(["doctor", "--json"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["ok"], false);
}

#[test]
fn api_keys_are_set_or_unset_never_shown() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    sandboxed(&sb, repo.path())
        .env("ANTHROPIC_API_KEY", "sk-ant-do-not-print")
        .arg("doctor")
        .assert()
        .success()
        .stdout(
            predicate::str::contains("PASS anthropic key: set")
                .and(predicate::str::contains("sk-ant-do-not-print").not())
                .and(predicate::str::contains("auto: anthropic")),
        );
}

/// The box section names this kernel's Landlock ABI and how the network is turned off, and says
/// when the user turned it on.
#[test]
fn doctor_says_what_the_model_box_enforces_here() {
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    let support = loki_core::confine::support();
    let text = |network: Option<&str>| {
        let mut cmd = sandboxed(&sb, repo.path());
        if let Some(n) = network {
            cmd.env("LOKI_AGENT_NETWORK", n);
        }
        let out = cmd.arg("doctor").output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let off = text(None);
    if support.filesystem() {
        assert!(
            off.contains(&format!("PASS isolation: Landlock ABI {}:", support.abi)),
            "{off}"
        );
    } else {
        assert!(
            off.contains("WARN isolation: Landlock is not available"),
            "{off}"
        );
    }
    match loki_core::confine::network_cut(&assert_cmd::cargo::cargo_bin("loki")) {
        loki_core::confine::NetworkCut::Everything => assert!(
            off.contains("PASS network: off: a new network namespace (no protocol leaves, UDP and DNS included)"),
            "{off}"
        ),
        loki_core::confine::NetworkCut::TcpOnly(_) => {
            assert!(off.contains("WARN network: off for TCP only"), "{off}");
        }
        loki_core::confine::NetworkCut::Nothing(_) => {
            assert!(off.contains("WARN network: cannot be turned off here"), "{off}");
        }
    }
    let on = text(Some("on"));
    assert!(
        on.contains(r#"WARN network: on for the model's commands (agent.network = "on""#),
        "{on}"
    );
}
