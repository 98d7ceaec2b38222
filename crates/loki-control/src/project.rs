//! The runs projection: one row per shipped run, folded from its events and receipt (pure).
//!
//! The summary columns (verdict, repo, task, provider, model, cost, times, state) are what the runs
//! list filters and sorts on; `detail` is the run view (stages, checks, integrity findings, NOT
//! PROVEN, the chain and receipt checks) as JSON. The signed receipt, when it verified, is the
//! better witness: its verdict, checks, cost and NOT PROVEN win over what the events say. A run
//! without a terminal event is `RUNNING`.

use std::collections::BTreeSet;

use loki_events::{Event, EventType, fold};
use serde::Serialize;
use serde_json::{Value, json};

use crate::check::{ChainCheck, ReceiptCheck, RunState, check_chain, check_receipt, decide};

/// The verdict of a run that has not ended.
pub const RUNNING: &str = "RUNNING";
/// The verdict of a run waiting for an answer.
pub const BLOCKED: &str = "BLOCKED";

/// One row of the `runs` table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRow {
    pub source_id: String,
    pub run_id: String,
    pub kind: Option<String>,
    pub repo: String,
    pub machine: String,
    pub task: Option<String>,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub verdict: String,
    pub blocked: bool,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub cost_usd: Option<f64>,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub events: i64,
    pub state: RunState,
    pub state_detail: String,
    pub conflict: bool,
    pub receipt_sha256: Option<String>,
    /// The run view as JSON (see the module doc).
    pub detail: Value,
}

/// What a fold starts from: the run's identity and what the store holds for it.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    pub source_id: &'a str,
    pub run_id: &'a str,
    pub machine: &'a str,
    pub repo: &'a str,
    pub events: &'a [Event],
    pub redacted: &'a BTreeSet<u64>,
    pub envelope: Option<&'a Value>,
    pub keys: &'a loki_receipt::TrustedKeys,
    pub conflict: bool,
}

/// Folds a run into its row.
#[must_use]
pub fn project(inp: &Inputs<'_>) -> RunRow {
    let chain = check_chain(inp.events, |s| inp.redacted.contains(&s));
    // A log kept below a run (a deep verify) is stored under an id of its own; its receipt and
    // events name the run it belongs to.
    let of_run = crate::store::log_run(inp.run_id);
    let receipt = inp.envelope.map(|env| {
        check_receipt(env, of_run, inp.keys, |n| {
            (n < chain.contiguous)
                .then(|| usize::try_from(n).ok().and_then(|i| inp.events.get(i)))
                .flatten()
                .map(|e| e.hash.clone())
        })
    });
    let state = decide(inp.conflict, &chain, receipt.as_ref());
    let f = fold(inp.events);
    let started = inp.events.iter().find(|e| e.kind == "run.started");
    let started_data = |k: &str| {
        started
            .and_then(|e| e.data.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let session = |k: &str| {
        inp.events
            .iter()
            .filter(|e| e.kind == EventType::SessionStarted.as_str())
            .find_map(|e| e.data.get(k).and_then(Value::as_str).map(str::to_string))
    };
    let terminal = f.terminal.as_ref();
    let outcome = terminal.and_then(|t| t.data.get("outcome").and_then(Value::as_str));
    let r = receipt.as_ref().and_then(|c| {
        // Only a receipt that verified speaks for the run.
        (c.state == RunState::Intact)
            .then_some(c.receipt.as_ref())
            .flatten()
    });
    let verdict = verdict_of(r, outcome, terminal.is_some());
    // Only the BLOCKED outcome waits for an answer. The terminal event's `blocked` flag says a
    // seal hook refused an agent's stop: that run is FAILED (or whatever its outcome), and an
    // answer to it would start nothing.
    let blocked = verdict == BLOCKED;
    let (checks, findings) = checks_and_findings(r, inp.events);
    let not_proven: Option<&Vec<loki_receipt::NotProven>> = r.map(|r| &r.not_proven);
    let question = terminal
        .and_then(|t| t.data.get("reason"))
        .and_then(Value::as_str);
    let detail = json!({
        "of_run": (of_run != inp.run_id).then_some(of_run),
        "stages": f.stages,
        "checks": checks,
        "integrity": findings,
        "not_proven": not_proven,
        "question": if blocked { question } else { None },
        "chain": chain_json(&chain),
        "receipt": receipt.as_ref().map(|c| json!({
            "state": c.state,
            "detail": c.detail,
            "receipt_sha256": c.receipt_sha256,
            "keyid": c.keyid,
        })),
    });
    RunRow {
        source_id: inp.source_id.to_string(),
        run_id: inp.run_id.to_string(),
        kind: started_data("kind"),
        repo: inp.repo.to_string(),
        machine: inp.machine.to_string(),
        task: r
            .and_then(|r| r.task.reference.clone())
            .or_else(|| started_data("task_source")),
        provider: r
            .map(|r| r.provider.clone())
            .or_else(|| started_data("provider"))
            .or_else(|| session("provider")),
        model: r.map(|r| r.model.clone()).or_else(|| session("model")),
        verdict,
        blocked,
        started_at: inp.events.first().map(|e| e.ts.clone()).unwrap_or_default(),
        ended_at: terminal.map(|t| t.ts.clone()),
        cost_usd: r.map_or(f.cost_usd, |r| r.cost.usd),
        input_tokens: i64::try_from(f.input_tokens).unwrap_or(i64::MAX),
        output_tokens: i64::try_from(f.output_tokens).unwrap_or(i64::MAX),
        events: i64::try_from(f.events).unwrap_or(i64::MAX),
        state,
        state_detail: state_detail(state, &chain, receipt.as_ref()),
        conflict: inp.conflict,
        receipt_sha256: receipt.and_then(|c| c.receipt_sha256),
        detail,
    }
}

/// The run's one word: the verified receipt's verdict, else the terminal event's outcome, else
/// INTERRUPTED when it ended without one (`ended`), else RUNNING.
fn verdict_of(r: Option<&loki_receipt::Receipt>, outcome: Option<&str>, ended: bool) -> String {
    match (r, outcome) {
        (Some(r), _) => r.verdict.to_string(),
        (None, Some(o)) => o.to_string(),
        (None, None) if ended => "INTERRUPTED".to_string(),
        (None, None) => RUNNING.to_string(),
    }
}

/// The run's checks and integrity findings: the verified receipt's, else the events'.
fn checks_and_findings(
    r: Option<&loki_receipt::Receipt>,
    events: &[Event],
) -> (Vec<Value>, Vec<Value>) {
    let Some(r) = r else {
        return (
            data_of(events, EventType::CheckResult),
            data_of(events, EventType::IntegrityFinding),
        );
    };
    (
        r.checks
            .iter()
            .filter_map(|c| serde_json::to_value(c).ok())
            .collect(),
        r.integrity
            .iter()
            .filter_map(|c| serde_json::to_value(c).ok())
            .collect(),
    )
}

fn data_of(events: &[Event], kind: EventType) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.kind == kind.as_str())
        .map(|e| Value::Object(e.data.clone()))
        .collect()
}

fn chain_json(c: &ChainCheck) -> Value {
    let note = (c.redacted > 0).then(|| {
        format!(
            "{} line(s) had secrets redacted before shipping: the chain was checked on the shipping machine before redaction; here their links were checked, their hashes could not be recomputed",
            c.redacted
        )
    });
    json!({
        "contiguous": c.contiguous,
        "gap_at": c.gap_at,
        "broken": c.broken.as_ref().map(|(seq, why)| json!({"seq": seq, "reason": why})),
        "redacted": c.redacted,
        "note": note,
    })
}

fn state_detail(state: RunState, chain: &ChainCheck, receipt: Option<&ReceiptCheck>) -> String {
    match state {
        RunState::Conflict => {
            "a line of this run was shipped twice with different contents: two machines or a rewritten log".to_string()
        }
        RunState::Tampered => match (&chain.broken, receipt) {
            (Some((seq, why)), _) => format!("line {seq} of the event log: {why}"),
            (None, Some(r)) => r.detail.clone(),
            (None, None) => "tampered".to_string(),
        },
        RunState::Unattested => match receipt {
            Some(r) => r.detail.clone(),
            None => match chain.gap_at {
                Some(seq) => format!("no receipt yet, and line {seq} has not arrived"),
                None => "no receipt: the run was not sealed (yet)".to_string(),
            },
        },
        RunState::Intact => receipt.map_or_else(String::new, |r| r.detail.clone()),
    }
}
