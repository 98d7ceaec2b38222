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
