//! `loki demo` end to end: offline, no API key, a throwaway HOME; ends VERIFIED and the receipt
//! it prints is the one `loki verify` checks.

use loki_test_support::Sandbox;

use crate::cli::sandboxed;

#[test]
fn the_demo_ends_verified_and_verifies() {
    let sb = Sandbox::new();
    let out = sandboxed(&sb, sb.home())
        .arg("demo")
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("\nOutcome:    VERIFIED\n"), "{out}");
    assert!(out.contains("\nVerify:     VERIFIED\n"), "{out}");
    // The judge ran the base and the hybrids inside the build's box: nothing it could not judge.
    assert!(!out.contains("cannot judge"), "{out}");
    let digest = out
        .lines()
        .find_map(|l| l.strip_prefix("Receipt:    sha256:"))
        .unwrap();
    assert_eq!(out.matches(&format!("sha256:{digest}")).count(), 3, "{out}");
    assert!(out.contains("pass  signature"), "{out}");
    // Without --keep the repository is deleted: the summary must not send the user to a run that
    // is gone.
    assert!(!out.contains("loki apply"), "{out}");
    assert!(out.contains("Next:       loki demo --keep"), "{out}");
}

/// `-q` prints only the outcome line, for the demo as for any build.
#[test]
fn quiet_prints_only_the_outcome_line() {
    let sb = Sandbox::new();
    let out = sandboxed(&sb, sb.home())
        .args(["-q", "demo"])
        .assert()
        .code(0)
        .get_output()
        .clone();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Outcome:    VERIFIED\n"
    );
}

/// With --keep the repository stays, so the summary points at the run to apply.
#[test]
fn kept_demo_points_at_the_run_to_apply() {
    let sb = Sandbox::new();
    let out = sandboxed(&sb, sb.home())
        .args(["demo", "--keep"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let next = out.lines().find(|l| l.starts_with("Next:")).unwrap();
    assert!(next.contains("loki apply run_"), "{out}");
    let kept = out.lines().find_map(|l| l.strip_prefix("kept ")).unwrap();
    assert!(std::path::Path::new(kept).is_dir(), "{out}");
    let verified = sandboxed(&sb, std::path::Path::new(kept))
        .args(["-q", "verify"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    assert_eq!(String::from_utf8_lossy(&verified), "Verify:     VERIFIED\n");
    std::fs::remove_dir_all(std::path::Path::new(kept).parent().unwrap()).unwrap();
}

/// A kept demo: its summary, the repository it left and its run's directory.
fn kept_demo(sb: &Sandbox) -> (String, std::path::PathBuf, std::path::PathBuf) {
    let out = sandboxed(sb, sb.home())
        .args(["demo", "--keep"])
        .assert()
        .code(0)
        .get_output()
        .stdout
        .clone();
    let out = String::from_utf8(out).unwrap();
    let kept = std::path::PathBuf::from(out.lines().find_map(|l| l.strip_prefix("kept ")).unwrap());
    let run = out
        .lines()
        .find_map(|l| l.strip_prefix("Run:        "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_string();
    let dir = kept.join(".loki/runs").join(&run);
    assert!(dir.join("receipt.md").is_file(), "{out}");
    (out, kept, dir)
}

/// Issue 32, item 2: receipt.md, what people read and `loki pr` publishes, is checked by
/// `loki verify`. `**VERIFIED**` changed to `**FAILED**`, or a check's count changed, is TAMPERED
/// naming the file; untouched (or restored) it is VERIFIED.
#[test]
fn an_edited_receipt_md_of_the_demo_is_tampered_naming_the_file() {
    let sb = Sandbox::new();
    let (_, kept, dir) = kept_demo(&sb);
    let md_path = dir.join("receipt.md");
    let md = std::fs::read_to_string(&md_path).unwrap();
    let verify = |json: bool| {
        let mut cmd = sandboxed(&sb, &kept);
        cmd.arg("verify");
        if json {
            cmd.arg("--json");
        }
        let out = cmd.output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (code, out) = verify(false);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("pass  receipt.md"), "{out}");

    // VERIFIED → FAILED.
    assert!(md.contains("| Verdict | **VERIFIED** |"), "{md}");
    std::fs::write(&md_path, md.replace("**VERIFIED**", "**FAILED**")).unwrap();
    let (code, out) = verify(false);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.starts_with("Verify:     TAMPERED\n"), "{out}");
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&kept.display().to_string()), "[REPO]");
    settings.add_filter(r"run_\d{8}_\d{6}_[0-9a-f]{4}", "[RUN]");
    settings.add_filter(r"sha256:[0-9a-f]{64}", "sha256:[RECEIPT]");
    settings.add_filter(r"sha256:[0-9a-f]{12}\b", "sha256:[SHORT]");
    settings.add_filter(r"\b[0-9a-f]{64}\b", "[KEYID]");
    settings.add_filter(r"\b[0-9a-f]{12}\b", "[HEX12]");
    settings.add_filter(r"\d+ events bound", "[N] events bound");
    settings.add_filter(r", \d+ after the seal", ", [N] after the seal");
    settings.bind(|| insta::assert_snapshot!("demo_receipt_md_tampered", out));
    let (code, json) = verify(true);
    assert_eq!(code, Some(1), "{json}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["verdict"], "TAMPERED");
    assert!(
        v["reason"].as_str().unwrap().contains("receipt.md"),
        "{v:#}"
    );
    let step = v["steps"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "receipt_md")
        .unwrap();
    assert_eq!(step["status"], "fail", "{v:#}");

    // A check's count.
    let row = md
        .lines()
        .find(|l| l.starts_with("| ") && l.contains(" | passed | "))
        .unwrap();
    let cells: Vec<&str> = row.split(" | ").collect();
    let executed: u64 = cells[3].parse().unwrap();
    let forged = row.replacen(
        &format!(" | {executed} | "),
        &format!(" | {} | ", executed + 7),
        1,
    );
    assert_ne!(row, forged);
    std::fs::write(&md_path, md.replacen(row, &forged, 1)).unwrap();
    let (code, out) = verify(false);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains("receipt.md was changed after sealing"),
        "{out}"
    );

    // Put back byte for byte, it verifies again.
    std::fs::write(&md_path, &md).unwrap();
    let (code, out) = verify(false);
    assert_eq!(code, Some(0), "{out}");
    std::fs::remove_dir_all(kept.parent().unwrap()).unwrap();
}

/// Issue 32, item 10: every NOT PROVEN entry of the demo's receipt says what, why and the command
/// that would prove it, in receipt.json, receipt.md and the summary; app boot and security scan
/// point at `loki deep <run>`, which does both.
#[test]
fn every_not_proven_entry_of_the_demo_says_why_and_how_to_prove_it() {
    let sb = Sandbox::new();
    let (out, kept, dir) = kept_demo(&sb);
    let receipt: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("receipt.json")).unwrap()).unwrap();
    let run = receipt["run_id"].as_str().unwrap();
    let entries = receipt["not_proven"].as_array().unwrap();
    assert!(!entries.is_empty(), "{receipt:#}");
    for e in entries {
        for k in ["what", "why", "prove"] {
            assert!(
                e[k].as_str().is_some_and(|s| !s.trim().is_empty()),
                "{k} missing in {e}"
            );
        }
    }
    for what in ["app boot", "security scan"] {
        let e = entries.iter().find(|e| e["what"] == what).unwrap();
        assert_eq!(e["prove"], format!("loki deep {run}"), "{e}");
    }
    let md = std::fs::read_to_string(dir.join("receipt.md")).unwrap();
    let section = md.split("## NOT PROVEN").nth(1).unwrap();
    assert!(
        section.contains(&format!(
            "- **app boot**: a build run changes code and runs its tests; it never starts the app. Prove: `loki deep {run}`"
        )),
        "{md}"
    );
    // The summary: one entry a line, continuation lines indented to the labels.
    let want = format!(
        "app boot: a build run changes code and runs its tests; it never starts the app (prove: loki deep {run})"
    );
    assert!(
        out.lines()
            .any(|l| l == format!("NOT PROVEN: {want}") || l == format!("            {want}")),
        "{out}"
    );
    std::fs::remove_dir_all(kept.parent().unwrap()).unwrap();
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .flat_map(|c| {
            if "\\.+*?()|[]{}^$".contains(c) {
                vec!['\\', c]
            } else {
                vec![c]
            }
        })
        .collect()
}
