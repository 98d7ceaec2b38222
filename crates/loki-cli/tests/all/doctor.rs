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
    let support = loki_process::confine::support();
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
    match loki_process::confine::network_cut(&assert_cmd::cargo::cargo_bin("loki")) {
        loki_process::confine::NetworkCut::Everything => assert!(
            off.contains("PASS network: off: a new network namespace (no protocol leaves, UDP and DNS included)"),
            "{off}"
        ),
        loki_process::confine::NetworkCut::TcpOnly(_) => {
            assert!(off.contains("WARN network: off for TCP only"), "{off}");
        }
        loki_process::confine::NetworkCut::Nothing(_) => {
            assert!(off.contains("WARN network: cannot be turned off here"), "{off}");
        }
    }
    let on = text(Some("on"));
    assert!(
        on.contains(r#"WARN network: on for the model's commands (agent.network = "on""#),
        "{on}"
    );
}

/// `loki doctor --airgap`: every destination with the setting that turns it off and its state
/// now (Slack and the control plane switched on here, so both states show), then the demo in a
/// network namespace under strace: VERIFIED, programs traced, 0 internet sockets.
#[test]
fn airgap_lists_destinations_and_proves_the_demo_opens_no_internet_socket() {
    if !loki_test_support::require_tool("strace", &["-V"]) || !loki_test_support::require_landlock()
    {
        return;
    }
    let sb = Sandbox::new();
    let run = |json: bool| {
        let mut c = sandboxed(&sb, sb.home());
        c.arg("doctor").arg("--airgap");
        if json {
            c.arg("--json");
        }
        c.env("SLACK_BOT_TOKEN", "xoxb-on")
            .env("LOKI_CONTROL_URL", "http://127.0.0.1:9")
            .env("LOKI_PROVIDER_NAME", "codex")
            .timeout(std::time::Duration::from_secs(900))
            .assert()
            .success()
            .get_output()
            .stdout
            .clone()
    };
    let text = String::from_utf8(run(false)).unwrap();
    let traced = text
        .lines()
        .find_map(|l| l.strip_prefix("  programs:     "))
        .unwrap();
    let n: u64 = traced.strip_suffix(" traced").unwrap().parse().unwrap();
    assert!(n > 1, "{text}");
    // Counts that depend on the machine (git, cargo and the namespace set-up open unix and
    // netlink sockets as they please).
    let other = text
        .lines()
        .find_map(|l| l.strip_prefix("  other sockets (unix, netlink): "))
        .unwrap()
        .to_string();
    let text = text
        .replace(
            &format!("  programs:     {traced}"),
            "  programs:     [N] traced",
        )
        .replace(
            &format!("  other sockets (unix, netlink): {other}\n"),
            "  other sockets (unix, netlink): [N]\n",
        );
    insta::assert_snapshot!(text);

    let v: serde_json::Value = serde_json::from_slice(&run(true)).unwrap();
    assert_eq!(v["pass"], true);
    assert_eq!(v["proof"]["counter"], "strace");
    assert_eq!(v["proof"]["inet_sockets"], 0);
    assert_eq!(v["proof"]["demo_verified"], true);
    let states: Vec<(String, String)> = v["destinations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert!(!d["off_by"].as_str().unwrap().is_empty(), "{d}");
            (
                d["what"].as_str().unwrap().into(),
                d["state"].as_str().unwrap().into(),
            )
        })
        .collect();
    for (what, state) in [
        ("control plane", "on"),
        ("Slack (loki slack serve)", "on"),
        ("codex CLI agent's model hosts", "on"),
        ("claude CLI agent's model hosts", "off"),
        ("Anthropic API", "off"),
        ("GitHub API (issues, pull requests)", "on request"),
    ] {
        assert!(
            states.contains(&(what.into(), state.into())),
            "{what} {state}: {states:?}"
        );
    }
}
