//! `loki deep <run>`: the deep verify's summary, labels padded to 12 columns like the run
//! summary: `Deep:` the outcome (the receipt's verdict word: VERIFIED, PARTIAL, FAILED), the run,
//! one `Full suite:` line per suite (with up to five failing test ids, or why it did not run),
//! one `Machine:` line per suite the machine kept from running (the tool, the problem, the
//! fix), one `App boot:` line per start command (a crashed boot's last ten output
//! lines under it), `Secrets:` (what was scanned, or one line per finding, redacted), the
//! receipt's hash, `NOT PROVEN:` and where the receipt's markdown was written.
//!
//! After a `--deep` build (stderr), one `Deep:` line: started in the background with its pid, log
//! and receipt paths; not started, and why; or could not start.

use std::fmt::Write as _;

use loki_deep::detached::Started;
use loki_deep::{BootStatus, DeepReport, describe_boot};

/// Failing test ids named on a suite's line.
const FAILING_SHOWN: usize = 5;
/// Output lines of a crashed boot shown under it.
const BOOT_TAIL_SHOWN: usize = 10;

/// The `--json` form of `loki deep`.
#[must_use]
pub fn json(run: &str, report: &DeepReport) -> serde_json::Value {
    serde_json::json!({
        "run_id": run,
        "failed": report.failed(),
        "verdict": report.outcome(),
        "environment": report.environment().map(|(name, e)| serde_json::json!({
            "check": name,
            "tool": e.tool,
            "problem": e.problem,
            "fix": e.fix,
        })).collect::<Vec<_>>(),
        "receipt_sha256": report.receipt.receipt_sha256,
        "main_receipt": report.receipt.main_receipt,
        "suite": report.suite,
        "boot": report.boots.iter().map(|b| serde_json::json!({
            "command": b.command.command_line(),
            "status": b.status,
        })).collect::<Vec<_>>(),
        "secrets": report.scan,
        "not_proven": report.receipt.not_proven,
        "dir": report.dir,
    })
}

/// The human summary (labels padded to 12 columns, like the run summary).
#[must_use]
pub fn render(r: &DeepReport) -> String {
    let mut s = Lines(String::new());
    s.line("Deep", r.outcome().as_str());
    s.line("Run", &r.receipt.run_id);
    suite_lines(&mut s, r);
    for (name, e) in r.environment() {
        s.line(
            "Machine",
            &format!(
                "{name} did not run, not the code's failure: {} {}; {}",
                e.tool, e.problem, e.fix
            ),
        );
    }
    boot_lines(&mut s, r);
    secrets_lines(&mut s, r);
    s.line("Receipt", &format!("sha256:{}", r.receipt.receipt_sha256));
    // One entry a line, continuation lines indented to the labels' width.
    let not_proven =
        loki_receipt::not_proven::summary_lines("NOT PROVEN:", 12, &r.receipt.not_proven);
    s.line(
        "NOT PROVEN",
        not_proven
            .trim_start_matches("NOT PROVEN:")
            .trim_start()
            .trim_end(),
    );
    s.line(
        "Written",
        &r.dir
            .join(loki_receipt::builder::MARKDOWN_FILE)
            .display()
            .to_string(),
    );
    s.0
}

/// The summary being written, one labelled line at a time.
struct Lines(String);

impl Lines {
    fn line(&mut self, label: &str, text: &str) {
        let _ = writeln!(self.0, "{:<12}{text}", format!("{label}:"));
    }
}

/// One `Full suite:` line per suite: its counts, why it did not run, its first failing tests.
fn suite_lines(s: &mut Lines, r: &DeepReport) {
    if r.suite.is_empty() {
        s.line("Full suite", "no test suite detected");
    }
    for c in &r.suite {
        let mut t = format!(
            "{} {}: {} executed, {} passed, {} failed",
            c.run.name,
            c.run.result.as_str(),
            c.run.executed,
            c.run.passed,
            c.run.failed
        );
        if c.run.result == loki_protocol::CheckStatus::NotRun
            && c.environment.is_none()
            && let Some(why) = &c.reason
        {
            let _ = write!(t, " ({why})");
        }
        if !c.failing_ids.is_empty() {
            let _ = write!(
                t,
                " ({})",
                c.failing_ids
                    .iter()
                    .take(FAILING_SHOWN)
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        s.line("Full suite", &t);
    }
}

/// One `App boot:` line per start command, a crashed boot's last output lines under it.
fn boot_lines(s: &mut Lines, r: &DeepReport) {
    if r.boots.is_empty() {
        s.line("App boot", "no start command found");
    }
    for b in &r.boots {
        s.line(
            "App boot",
            &format!(
                "{} `{}`: {}",
                b.command.ecosystem,
                b.command.command_line(),
                describe_boot(&b.status)
            ),
        );
        if let BootStatus::Crashed { tail, .. } = &b.status
            && !tail.trim().is_empty()
        {
            for l in tail
                .trim_end()
                .lines()
                .rev()
                .take(BOOT_TAIL_SHOWN)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
            {
                s.line("", &format!("  | {l}"));
            }
        }
    }
}

/// `Secrets:`: what was scanned when nothing was found, else one line per finding, redacted.
fn secrets_lines(s: &mut Lines, r: &DeepReport) {
    if r.scan.findings.is_empty() {
        s.line(
            "Secrets",
            &format!(
                "none in {} file(s), {} added line(s)",
                r.scan.files, r.scan.lines
            ),
        );
    }
    for f in &r.scan.findings {
        s.line(
            "Secrets",
            &format!("{}:{}: {} {}", f.path, f.line, f.rule, f.redacted),
        );
    }
}

/// After a `--deep` build: the deep verify started in the background, or why it did not (no
/// trailing newline).
#[must_use]
pub fn detached(started: &Started) -> String {
    let label = crate::style::label("Deep:");
    match started {
        Started::Running { pid, log, receipt } => format!(
            "{label}started in the background (pid {pid}); log {}, receipt {}",
            log.display(),
            receipt.display()
        ),
        Started::NotStarted(why) => format!("{label}not started: {why}"),
        Started::Failed { run, why } => format!("{label}could not start `loki deep {run}`: {why}"),
    }
}
