//! The review council end to end: the demo crate built by the scripted provider, whose script's
//! `council` section answers the reviewers. Real git, real `cargo test`.

use std::path::Path;
use std::time::Duration;

use loki_agent::{Backend, scripted::Scripted};
use loki_core::layout::Repo;
use loki_engine::{BuildOptions, BuildReport, Silent, TaskInput};
use loki_protocol::outcome::{Outcome, VerifyVerdict};
use serde_json::{Value, json};

use crate::common::receipt;

/// A reviewer's answer as script text.
fn answer(verdict: &str, findings: &Value) -> Value {
    json!({"text": json!({"verdict": verdict, "findings": findings}).to_string(),
           "usage": {"input_tokens": 1000, "output_tokens": 20}})
}

fn pass() -> Value {
    answer("pass", &json!([]))
}

/// The demo's script with `council` as its council section.
fn script(council: &Value) -> String {
    let mut s: Value = serde_json::from_str(loki_engine::demo::SCRIPT).unwrap();
    s["council"] = council.clone();
    s.to_string()
}

struct Built {
    _dir: tempfile::TempDir,
    repo: std::path::PathBuf,
    report: BuildReport,
    receipt: Value,
}

impl Built {
    fn markdown(&self) -> String {
        std::fs::read_to_string(Path::new(&self.report.receipt_path).with_file_name("receipt.md"))
            .unwrap()
    }

    fn run_dir(&self) -> std::path::PathBuf {
        Path::new(&self.report.receipt_path)
            .parent()
            .unwrap()
            .to_path_buf()
    }

    fn summary(&self) -> String {
        loki_term::summary::render(&self.report)
    }
}

/// Builds the demo crate with `script`, `edit` applied to the options.
fn build(script: &str, edit: impl FnOnce(&mut BuildOptions)) -> Built {
    let provider = Scripted::parse(Path::new("script.json"), script).unwrap();
    build_with(Box::new(provider), edit)
}

/// Builds the demo crate with `provider`, `edit` applied to the options.
fn build_with(
    provider: Box<dyn loki_agent::Provider>,
    edit: impl FnOnce(&mut BuildOptions),
) -> Built {
    let _one = crate::common::demo_crate();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("calendar");
    loki_engine::demo::write_repo(&repo).unwrap();
    let mut opts = BuildOptions::new(
        TaskInput {
            text: loki_engine::demo::TASK.into(),
            source: "text".into(),
        },
        Backend::Loop(provider),
        "scripted",
        dir.path().join("home"),
    );
    opts.check_timeout = Duration::from_secs(120);
    edit(&mut opts);
    let report = loki_engine::run_build(&Repo::discover(&repo).unwrap(), &opts, &Silent).unwrap();
    let receipt = receipt(&repo, &report);
    Built {
        _dir: dir,
        repo,
        report,
        receipt,
    }
}

/// The receipt's council part: its assessments section.
fn council_part(md: &str) -> String {
    let start = md.find("## Assessments").unwrap();
    let end = md[start..]
        .find("\n## NOT PROVEN")
        .map_or(md.len(), |e| start + e);
    md[start..end].trim().to_string()
}

/// The summary's council line.
fn council_line(summary: &str) -> String {
    summary
        .lines()
        .find(|l| l.starts_with("Council:"))
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_blocking_reviewer_lowers_verified_to_partial_with_the_finding_named() {
    let b = build(
        &script(&json!([
            {"name": "correctness", "turns": [answer("block", &json!([
                {"severity": "blocking", "file": "src/lib.rs", "line": 5,
                 "title": "negative years are not handled", "detail": "year -100 is a leap year in the proleptic calendar"},
                {"severity": "advisory", "file": "src/lib.rs", "line": 5, "title": "name the rule in a comment"}
            ]))]},
            {"name": "security", "turns": [pass()]},
            {"name": "tests", "turns": [pass()]}
        ])),
        |_| {},
    );
    let summary = b.summary();
    assert_eq!(b.report.outcome, Outcome::Partial, "{summary}");
    assert_eq!(b.report.exit_code, 1);
    // Without the council the facts would have made it VERIFIED: the lowering is the reason.
    assert_eq!(
        b.report.reason.as_deref(),
        Some(
            "assessment by council:correctness: block; blocking: src/lib.rs:5 negative years are not handled; advisory: src/lib.rs:5 name the rule in a comment (chosen: the default reviewer: every change is read for correctness)"
        ),
        "{summary}"
    );
    let a = b.receipt["assessments"].as_array().unwrap();
    assert_eq!(a.len(), 3, "{a:#?}");
    assert_eq!(a[0]["by"], "council:correctness");
    assert_eq!(a[0]["lowers_to"], "PARTIAL");
    assert!(a[1].get("lowers_to").is_none() && a[2].get("lowers_to").is_none());
    insta::assert_snapshot!("council_blocks_receipt_md", council_part(&b.markdown()));
    insta::assert_snapshot!("council_blocks_summary", council_line(&summary));
    // The receipt is intact and signed: a lowered run is still a receipt that verifies.
    let v = loki_receipt::verify(
        &loki_receipt::VerifyInput::from_path(&b.run_dir()),
        &loki_receipt::VerifyOptions {
            home: Some(b._dir.path().join("home")),
            env: loki_receipt::KeyEnv::from_lookup(|_| None),
            pubkey: None,
            allow_unsigned: false,
        },
    );
    assert_eq!(v.verdict, VerifyVerdict::NotVerified, "{v:#?}");
    assert_eq!(v.outcome, Some(Outcome::Partial));
    // Each reviewer was a session of the run: its tokens are in the receipt's cost.
    assert_eq!(
        b.receipt["cost"]["total_sessions"], 5,
        "{:#}",
        b.receipt["cost"]
    );
    let events = std::fs::read_to_string(b.run_dir().join("events.jsonl")).unwrap();
    for role in ["correctness", "security", "tests"] {
        assert!(
            events.contains(&format!("\"session\":\"council:{role}\"")),
            "{role}"
        );
    }
    assert!(b.repo.exists());
}

#[test]
fn a_council_that_passes_leaves_verified_and_shows_itself() {
    let b = build(loki_engine::demo::SCRIPT, |_| {});
    let summary = b.summary();
    assert_eq!(b.report.outcome, Outcome::Verified, "{summary}");
    let a = b.receipt["assessments"].as_array().unwrap();
    let by: Vec<&str> = a.iter().map(|x| x["by"].as_str().unwrap()).collect();
    assert_eq!(
        by,
        ["council:correctness", "council:security", "council:tests"]
    );
    assert!(a.iter().all(|x| x.get("lowers_to").is_none()), "{a:#?}");
    insta::assert_snapshot!("council_passes_receipt_md", council_part(&b.markdown()));
    insta::assert_snapshot!("council_passes_summary", council_line(&summary));
    // The council's reviewers read the committed diff (the fix), not the wall.
    let transcript = std::fs::read_to_string(b.run_dir().join("transcript.jsonl")).unwrap();
    assert!(transcript.contains("\"session\":\"council:tests\""));
}

#[test]
fn a_failed_run_is_never_raised_by_the_council() {
    // The implementer only writes a note: the bug stays, no check proves anything (the wall and
    // the crate's tests fail), so the facts say FAILED.
    let mut s: Value = serde_json::from_str(&script(&json!([
        {"name": "correctness", "turns": [pass()]},
        {"name": "security", "turns": [pass()]},
        {"name": "tests", "turns": [answer("block", &json!([
            {"severity": "blocking", "file": "src/lib.rs", "line": 5, "title": "the bug is not fixed"}]))]}
    ])))
    .unwrap();
    s["sessions"][1]["turns"][1]["tool_calls"][0] = json!({"name": "write_file",
        "arguments": {"path": "NOTES.md", "content": "the century rule is still to do\n"}});
    let b = build(&s.to_string(), |_| {});
    let summary = b.summary();
    assert_eq!(b.report.outcome, Outcome::Failed, "{summary}");
    assert_eq!(b.receipt["verdict"], "FAILED");
    assert!(council_line(&summary).contains("tests block"), "{summary}");
}

#[test]
fn a_malformed_answer_is_asked_again_then_left_out_and_named() {
    let b = build(
        &script(&json!([
            // Malformed once, then a valid pass: the retry is taken.
            {"name": "correctness", "turns": [{"text": "Looks fine to me!"}, pass()]},
            // Malformed twice: left out, and NOT PROVEN says so.
            {"name": "security", "turns": [{"text": "{\"verdict\":\"ok\",\"findings\":[]}"}, {"text": "{\"verdict\":\"block\",\"findings\":[]}"}]},
            {"name": "tests", "turns": [pass()]}
        ])),
        |_| {},
    );
    let summary = b.summary();
    assert_eq!(b.report.outcome, Outcome::Verified, "{summary}");
    let np: Vec<String> = b.receipt["not_proven"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            serde_json::from_value::<loki_receipt::NotProven>(x.clone())
                .unwrap()
                .what()
                .to_string()
        })
        .collect();
    assert!(
        np.iter().any(|n| n == "reviewer council:security could not answer: its answer was malformed 2 times (verdict \"block\" needs at least one finding with severity \"blocking\")"),
        "{np:#?}"
    );
    let by: Vec<&str> = b.receipt["assessments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["by"].as_str().unwrap())
        .collect();
    assert_eq!(by, ["council:correctness", "council:tests"]);
    assert_eq!(
        council_line(&summary),
        "Council:    correctness pass, security no answer, tests pass"
    );
    // The retry told the reviewer what was wrong.
    let transcript = std::fs::read_to_string(b.run_dir().join("transcript.jsonl")).unwrap();
    assert_eq!(
        transcript
            .lines()
            .filter(|l| l.contains("\"session\":\"council:security\""))
            .count(),
        2
    );
}

#[test]
fn when_the_cap_is_reached_the_remaining_reviewers_are_skipped_and_said() {
    // The demo's build sessions use 8,225 tokens; the first reviewer 1,020 more.
    let b = build(loki_engine::demo::SCRIPT, |o| o.max_tokens = Some(9_000));
    let summary = b.summary();
    let np: Vec<String> = b.receipt["not_proven"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            serde_json::from_value::<loki_receipt::NotProven>(x.clone())
                .unwrap()
                .what()
                .to_string()
        })
        .collect();
    assert!(
        np.iter().any(|n| n
            == "council: reviewers council:security, council:tests skipped: the run's token cap was reached"),
        "{np:#?}"
    );
    assert!(
        np.iter()
            .any(|n| n.starts_with("token cap reached (9000 tokens) at council")),
        "{np:#?}"
    );
    assert_eq!(
        council_line(&summary),
        "Council:    correctness pass, security skipped, tests skipped"
    );
    // The reviewer's tokens count toward the run's.
    assert!(b.report.tokens >= 9_000, "{summary}");
    let events = std::fs::read_to_string(b.run_dir().join("events.jsonl")).unwrap();
    assert!(events.contains("\"type\":\"cap.hit\""), "{events}");
}

#[test]
fn no_council_section_or_zero_reviewers_hold_no_council() {
    let plain: Value = {
        let mut s: Value = serde_json::from_str(loki_engine::demo::SCRIPT).unwrap();
        s.as_object_mut().unwrap().remove("council");
        s
    };
    let b = build(&plain.to_string(), |_| {});
    assert_eq!(b.report.outcome, Outcome::Verified);
    assert!(b.receipt.get("assessments").is_none_or(|a| a == &json!([])));
    assert!(b.report.council.is_empty());
    let off = build(loki_engine::demo::SCRIPT, |o| o.council = 0);
    assert!(off.report.council.is_empty());
    assert!(!off.summary().contains("Council:"));
}

/// The demo's script for the build; every council session fails as a model whose key is refused.
#[derive(Debug)]
struct RefusingReviewers {
    script: Scripted,
    label: std::sync::Mutex<Option<String>>,
}

impl loki_agent::Provider for RefusingReviewers {
    fn name(&self) -> &'static str {
        "scripted"
    }

    fn model(&self) -> &str {
        "scripted"
    }

    fn measures_cost(&self, _prices: &loki_agent::PriceTable) -> bool {
        true
    }

    fn begin_session(&self, label: Option<&str>) -> Result<(), loki_agent::AgentError> {
        *self.label.lock().unwrap() = label.map(str::to_string);
        if label.is_some_and(|l| l.starts_with("council:")) {
            return Ok(());
        }
        self.script.begin_session(label)
    }

    fn complete<'a>(
        &'a self,
        req: &'a loki_agent::Request,
    ) -> loki_agent::BoxFuture<'a, Result<loki_agent::Response, loki_agent::AgentError>> {
        let council = self
            .label
            .lock()
            .unwrap()
            .as_deref()
            .is_some_and(|l| l.starts_with("council:"));
        if council {
            let f = loki_agent::ProviderFailure::new(
                "anthropic",
                loki_agent::FailureKind::Auth,
                "invalid x-api-key",
            )
            .with_status(401);
            return Box::pin(async move { Err(loki_agent::AgentError::Model(f)) });
        }
        self.script.complete(req)
    }
}

#[test]
fn a_model_that_fails_a_reviewer_skips_the_rest_and_lowers_nothing() {
    let provider = RefusingReviewers {
        script: Scripted::parse(Path::new("demo.json"), loki_engine::demo::SCRIPT).unwrap(),
        label: std::sync::Mutex::new(None),
    };
    let Built { report, .. } = build_with(Box::new(provider), |_| {});
    let summary = loki_term::summary::render(&report);
    // The reviewers are judgment: their failure proves nothing either way.
    assert_eq!(report.outcome, Outcome::Verified, "{summary}");
    assert_eq!(report.exit_code, 0);
    let np = report
        .not_proven
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        np.contains(
            "reviewer council:correctness could not answer: model: authentication failed (HTTP 401"
        ),
        "{np}"
    );
    assert!(
        np.contains("council: reviewers council:security, council:tests skipped: the model failed for council:correctness and would fail them the same way"),
        "{np}"
    );
    assert_eq!(
        council_line(&summary),
        "Council:    correctness no answer, security skipped, tests skipped"
    );
}
