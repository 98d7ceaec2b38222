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
}
