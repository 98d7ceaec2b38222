//! Snapshots of what people read: `receipt.md`, `loki verify` human and `--json` output.
//! Fixed keys; hashes that depend on event timestamps are filtered.

use loki_protocol::outcome::Outcome;
use loki_receipt::markdown::SignatureLine;
use loki_receipt::schema::{Assessment, EventsBinding, IntegrityFinding};
use loki_receipt::{ReceiptBuilder, render_human, render_markdown};

use crate::support::*;

fn filtered<T>(f: impl FnOnce() -> T, tmp: &std::path::Path) -> T {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(&regex_escape(&tmp.display().to_string()), "[TMP]");
    // Receipt and event hashes depend on event timestamps; the keyid is fixed and left visible.
    settings.add_filter(r"sha256:[0-9a-f]{64}", "sha256:[RECEIPT]");
    settings.add_filter(r"head [0-9a-f]{12}", "head [HEAD]");
    settings.add_filter(r"sha256:[0-9a-f]{12}\b", "sha256:[SHORT]");
    settings.add_filter(
        r#""receipt_sha256": "[0-9a-f]{64}""#,
        r#""receipt_sha256": "[RECEIPT]""#,
    );
    settings.bind(f)
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

#[test]
fn receipt_md_of_a_verified_build() {
    let receipt = ReceiptBuilder::new(verified_facts(RUN))
        .build(EventsBinding {
            count: 4,
            head: "ab".repeat(32),
        })
        .unwrap();
    let md = render_markdown(
        &receipt,
        &SignatureLine::Signed {
            keyid: "cd".repeat(32),
        },
    );
    insta::assert_snapshot!(md);
}

/// Issue 31: what the agent declared, what it did not, and the request they answer, with each
/// test's old and new lines; an undeclared change keeps the run from VERIFIED.
#[test]
fn receipt_md_shows_declarations_and_the_request() {
    use loki_receipt::schema::{Declaration, DeclarationKind, Declared};
    let mut facts = verified_facts(RUN);
    facts.judgement = Some(loki_protocol::outcome::Verdict::Declare);
    facts.declared = Some(Declared {
        request: Some("Make add(2, 2) return 5 | product asked".into()),
        items: vec![
            Declaration {
                kind: DeclarationKind::ExpectationChanged,
                test: "tests/test_calc.py::test_add".into(),
                reason: "product asked for add(2, 2) == 5".into(),
                was: vec!["assert add(2, 2) == 4".into()],
                now: vec!["assert add(2, 2) == 5".into()],
            },
            Declaration {
                kind: DeclarationKind::Undeclared,
                test: "tests/test_calc.py::test_double".into(),
                reason: String::new(),
                was: vec!["assert double(3) == 6".into()],
                now: vec!["assert double(3) == 7".into()],
            },
            Declaration {
                kind: DeclarationKind::Contradiction,
                test: "tests/test_calc.py::test_sub".into(),
                reason: "sub(1, 1) == 1 contradicts the spec".into(),
                was: Vec::new(),
                now: Vec::new(),
            },
        ],
    });
    let builder = ReceiptBuilder::new(facts);
    assert_ne!(builder.verdict(), Outcome::Verified);
    let receipt = builder
        .build(EventsBinding {
            count: 4,
            head: "ab".repeat(32),
        })
        .unwrap();
    insta::assert_snapshot!(render_markdown(&receipt, &SignatureLine::Unsigned));
}

#[test]
fn receipt_md_of_a_run_with_gaps() {
    let mut facts = verified_facts(RUN);
    facts.cost.usd = None;
    facts.cost.measured_sessions = 1;
    facts.checks[0].result = loki_protocol::CheckStatus::Flaky;
    facts.checks[1].skipped = 1;
    facts.integrity.push(IntegrityFinding {
        kind: loki_protocol::FindingKind::RevertedWallEdit,
        path: "tests/wall_verbose.rs".to_string(),
        line: None,
        test: None,
        advice: None,
        detail: "the agent weakened an assert | restored from the sealed copy".to_string(),
    });
    facts.assessments.push(Assessment {
        by: "reviewer".to_string(),
        model: Some("judge-1".to_string()),
        summary: "error path untested".to_string(),
        lowers_to: Some(Outcome::Failed),
    });
    facts
        .pre_existing_failures
        .push("tests::legacy_flag".to_string());
    let receipt = ReceiptBuilder::new(facts)
        .build(EventsBinding {
            count: 4,
            head: "ab".repeat(32),
        })
        .unwrap();
    assert_eq!(receipt.verdict, Outcome::Failed);
    insta::assert_snapshot!(render_markdown(&receipt, &SignatureLine::Unsigned));
}

#[test]
fn receipt_md_shows_the_contract_table() {
    use loki_receipt::schema::{Contract, Criterion, CriterionStatus};
    let mut facts = verified_facts(RUN);
    facts.contract = Some(Contract {
        sha256: "ef".repeat(32),
        criteria: vec![
            Criterion {
                id: "AC-1".to_string(),
                text: "`add(2, 3)` returns 5".to_string(),
                status: CriterionStatus::Proven,
                evidence: vec!["loki_wall_add_test.py::test_ac_1_sums".to_string()],
                reason: None,
                advisory: false,
            },
            Criterion {
                id: "AC-2".to_string(),
                text: "negative numbers | zero".to_string(),
                status: CriterionStatus::NotProven,
                evidence: Vec::new(),
                reason: Some("no wall test names it".to_string()),
                advisory: false,
            },
            Criterion {
                id: "AC-3".to_string(),
                text: "fast".to_string(),
                status: CriterionStatus::NotProven,
                evidence: Vec::new(),
                reason: Some("it passed already on the base".to_string()),
                advisory: true,
            },
        ],
    });
    let receipt = ReceiptBuilder::new(facts)
        .build(EventsBinding {
            count: 4,
            head: "ab".repeat(32),
        })
        .unwrap();
    // AC-2 is required and not proven.
    assert_eq!(receipt.verdict, Outcome::Partial);
    insta::assert_snapshot!(render_markdown(&receipt, &SignatureLine::Unsigned));
}

#[test]
fn verify_output_human_and_json() {
    let fx = sealed_run();
    let report = fx.verify();
    filtered(
        || {
            insta::assert_snapshot!("verify_human_verified", render_human(&report));
            insta::assert_snapshot!(
                "verify_json_verified",
                serde_json::to_string_pretty(&report).unwrap()
            );
        },
        fx.tmp.path(),
    );
}

#[test]
fn verify_output_human_tampered() {
    let fx = sealed_run();
    let text = std::fs::read_to_string(fx.events_path()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    write(&fx.events_path(), lines[..2].join("\n") + "\n");
    let report = fx.verify();
    filtered(
        || {
            insta::assert_snapshot!("verify_human_tampered", render_human(&report));
            insta::assert_snapshot!(
                "verify_json_tampered",
                serde_json::to_string_pretty(&report).unwrap()
            );
        },
        fx.tmp.path(),
    );
}

/// Issue 32: `receipt.md` edited after sealing is TAMPERED, naming the file and the line.
#[test]
fn verify_output_receipt_md_tampered() {
    let fx = sealed_run();
    let md_path = fx.run_dir.join("receipt.md");
    let md = std::fs::read_to_string(&md_path).unwrap();
    write(&md_path, md.replace("**VERIFIED**", "**FAILED**"));
    let report = fx.verify();
    filtered(
        || {
            insta::assert_snapshot!("verify_human_receipt_md_tampered", render_human(&report));
            insta::assert_snapshot!(
                "verify_json_receipt_md_tampered",
                serde_json::to_string_pretty(&report).unwrap()
            );
        },
        fx.tmp.path(),
    );
}
