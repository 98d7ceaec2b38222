//! `loki run`, `loki fix`, `loki replay` and `loki fix --demo`: what healing shows. Labels are
//! padded to 12 columns like the run summary.
//!
//! - `loki run` (stderr, after the command's own output): a clean run is one dimmed line; a
//!   timeout says no incident was recorded (a hang has no deterministic reproduction); a crash is
//!   `loki: crash recorded as <run>` (red `loki`) then the crash lines ([`crash_lines`]: `Page:`
//!   for a web page, `Crash:` kind, first message line and how it ended, `Signature:` text and id,
//!   `Repro:` the script relative to the repository) and `Next:`. `--json`: one object per
//!   outcome (`CLEAN`, `TIMED_OUT`, `CRASHED`, `INTERRUPTED`) with the exit code.
//! - `loki fix` (diagnose): `Incident:`, `Command:`, the crash lines, `Source:` (each resolved
//!   file, the first with its crashing line dimmed), `Refused:` (frames not used, and why), `Next:`.
//!   Stale `.loki.bak` backups are warned about first (stderr), with what to do.
//! - `loki fix --apply`: the proposal (`Patch:`, `Root cause:`, `Fix:`, the diff with additions
//!   green, deletions red and hunk headers dimmed), `Applied:` with the backup, then the summary:
//!   `Outcome:` (green when it is a success), `Reason:` when the exit code is not 0 or the patch
//!   was not verified (`Result:` otherwise, unless `-q`), `Receipt:`, `NOT PROVEN:`, `Cost:`
//!   (`not measured (…)` without a priced model call, never $0.00), `Time:`, and a dimmed line
//!   naming the heal run and the incident.
//! - `loki replay`: the reproduction's last 30 output lines dimmed (not with `-q`), then
//!   `REPRODUCED: <signature>` (red), `NOT REPRODUCED: …` (green) or `HARNESS ERROR: …`
//!   (yellow), and `Video:` when one was asked for.

use std::fmt::Write as _;
use std::path::Path;

use loki_core::RunId;
use loki_heal::backups::{Restored, StaleBackup};
use loki_heal::{
    Diagnosis, FixReport, HealError, Incident, Observed, PlannedEdit, ReplayVerdict, Replayed,
    Settled,
};
use loki_protocol::outcome::ExitCode;

use crate::style::{DIM, GREEN, RED, YELLOW, label, paint};

/// Lines of the reproduction's output shown by `loki replay` (the end holds the verdict).
const REPLAY_SHOWN_LINES: usize = 30;

/// The `--json` object of `loki run`: the outcome, and the exit status loki passes on;
/// `timeout_s` is the limit a timed-out command hit.
#[must_use]
pub fn observed_json(observed: &Observed, timeout_s: u64) -> serde_json::Value {
    let code = observed.exit_status();
    match observed {
        Observed::Clean { run_id, .. } => {
            serde_json::json!({"run_id": run_id, "outcome": "CLEAN", "exit_code": 0})
        }
        Observed::TimedOut { run_id, .. } => serde_json::json!({"run_id": run_id,
            "outcome": "TIMED_OUT", "timeout_s": timeout_s, "exit_code": code}),
        Observed::Crashed {
            run_id,
            incident,
            run_dir,
            ..
        } => serde_json::json!({"run_id": run_id, "outcome": "CRASHED",
            "exit_code": incident.exit.code, "signal": incident.exit.signal_name,
            "kind": incident.crash.kind, "signature": incident.signature,
            "repro": run_dir.join(&incident.repro)}),
        Observed::Interrupted { run_id, signal, .. } => serde_json::json!({"run_id": run_id,
            "outcome": "INTERRUPTED", "signal": signal, "exit_code": code}),
    }
}

/// What `loki run` says on stderr after the command's own output (see the module doc): nothing
/// for an interrupted run (the interruption's note says it), nor for a clean one under `quiet`.
#[must_use]
pub fn observed(observed: &Observed, repo_root: &Path, timeout_s: u64, quiet: bool) -> String {
    match observed {
        Observed::Clean { run_id, .. } if !quiet => {
            paint(DIM, &format!("loki: clean run, recorded as {run_id}")) + "\n"
        }
        Observed::TimedOut { run_id, .. } => format!(
            "{}: the command was stopped after {timeout_s}s; no incident recorded (a hang has no deterministic reproduction); run {run_id}\n",
            paint(YELLOW, "loki")
        ),
        Observed::Crashed {
            run_id,
            incident,
            run_dir,
            ..
        } => crashed(run_id, incident, repo_root, run_dir),
        Observed::Clean { .. } | Observed::Interrupted { .. } => String::new(),
    }
}

/// What `loki run` says about a crash: the record, the crash lines and what to do next.
fn crashed(run_id: &RunId, inc: &Incident, repo_root: &Path, run_dir: &Path) -> String {
    format!(
        "{}{}{}loki fix (diagnose) · loki fix --apply (patch and verify) · loki replay\n",
        recorded(run_id),
        crash_lines(inc, repo_root, run_dir),
        label("Next:")
    )
}

fn recorded(run_id: &RunId) -> String {
    format!("{}: crash recorded as {run_id}\n", paint(RED, "loki"))
}

/// A demo's crash: the program's last output dimmed, the record and the crash lines.
#[must_use]
pub fn demo_crashed(run_id: &RunId, inc: &Incident, repo_root: &Path, run_dir: &Path) -> String {
    format!(
        "{}\n{}{}",
        paint(DIM, inc.stderr_tail.trim_end()),
        recorded(run_id),
        crash_lines(inc, repo_root, run_dir)
    )
}

/// The lines that describe a recorded crash (each ends with a newline).
#[must_use]
pub fn crash_lines(inc: &Incident, repo_root: &Path, run_dir: &Path) -> String {
    let mut s = String::new();
    if let Some(b) = &inc.browser {
        let _ = writeln!(s, "{}{} ({})", label("Page:"), b.url, b.version);
    }
    let msg = if inc.crash.message.is_empty() {
        inc.crash.kind.clone()
    } else {
        format!(
            "{}: {}",
            inc.crash.kind,
            inc.crash.message.lines().next().unwrap_or_default()
        )
    };
    let how = match &inc.exit.signal_name {
        Some(sig) if !msg.contains(sig.as_str()) => {
            format!("killed by {sig}, exit {}", inc.exit.code)
        }
        _ => format!("exit {}", inc.exit.code),
    };
    let _ = writeln!(s, "{}{msg} ({how})", label("Crash:"));
    let _ = writeln!(
        s,
        "{}{} [{}]",
        label("Signature:"),
        inc.signature.text,
        inc.signature.id
    );
    let script = run_dir.join(&inc.repro);
    let shown = script.strip_prefix(repo_root).unwrap_or(&script);
    let _ = writeln!(s, "{}{}", label("Repro:"), shown.display());
    s
}

/// The warning about backups left by fixes that were never verified (empty when there are none).
#[must_use]
pub fn stale_backups(stale: &[StaleBackup]) -> String {
    let mut s = String::new();
    for b in stale {
        let _ = writeln!(
            s,
            "{}: stale backup {}.loki.bak from a fix that was never verified: {} may hold an unverified patch",
            paint(YELLOW, "warning"),
            b.rel,
            b.rel
        );
    }
    if !stale.is_empty() {
        s.push_str("  `loki fix --restore` puts the original back; `loki replay` checks the current file; deleting the .loki.bak keeps it\n");
    }
    s
}

/// What `loki fix --restore` says: a line per backup put back (none under `quiet`), or that
/// there was nothing to restore in `root`.
#[must_use]
pub fn restored(root: &Path, r: &Restored, quiet: bool) -> String {
    if r.restored.is_empty() && r.failed.is_none() {
        return format!(
            "no .loki.bak backups in {}: nothing to restore\n",
            root.display()
        );
    }
    if quiet {
        return String::new();
    }
    r.restored
        .iter()
        .map(|b| {
            format!(
                "{} {} from {}.loki.bak\n",
                paint(GREEN, "restored"),
                b.rel,
                b.rel
            )
        })
        .collect()
}

/// The `--json` form of `loki fix --restore`: the files put back.
#[must_use]
pub fn restored_json(root: &Path, r: &Restored) -> serde_json::Value {
    let restored: Vec<&str> = r.restored.iter().map(|b| b.rel.as_str()).collect();
    serde_json::json!({"root": root, "restored": restored})
}

/// The `--json` form of `loki fix` (diagnose).
#[must_use]
pub fn diagnosis_json(run: &RunId, d: &Diagnosis) -> serde_json::Value {
    let (inc, res) = (&d.incident, &d.resolution);
    let files: Vec<_> = res
        .files
        .iter()
        .map(|f| serde_json::json!({"file": f.rel, "line": f.line, "function": f.function, "library": f.library}))
        .collect();
    let refused: Vec<_> = res
        .refused
        .iter()
        .map(|r| serde_json::json!({"frame": r.printed, "reason": r.reason}))
        .collect();
    serde_json::json!({"run_id": run, "command": inc.command, "crash": inc.crash,
        "signature": inc.signature, "sources": files, "refused": refused})
}

/// The text of `loki fix` (diagnose), the crashing line under the first source file.
#[must_use]
pub fn diagnosis(run: &RunId, d: &Diagnosis, repo_root: &Path) -> String {
    let (inc, res, run_dir) = (&d.incident, &d.resolution, d.dir.as_path());
    let code = d.crash_line.as_deref();
    let mut s = String::new();
    let _ = writeln!(s, "{}{run}", label("Incident:"));
    let _ = writeln!(s, "{}{}", label("Command:"), inc.command.join(" "));
    s.push_str(&crash_lines(inc, repo_root, run_dir));
    if res.files.is_empty() {
        let _ = writeln!(s, "{}none in this repository", label("Source:"));
    }
    for (i, f) in res.files.iter().enumerate() {
        let at = format!(
            "{}{}{}",
            f.rel,
            f.line.map(|l| format!(":{l}")).unwrap_or_default(),
            f.function
                .as_deref()
                .map(|n| format!(" in {n}"))
                .unwrap_or_default()
        );
        let _ = writeln!(s, "{}{at}", label(if i == 0 { "Source:" } else { "" }));
        if i == 0
            && let (Some(line), Some(code)) = (f.line, code)
        {
            let _ = writeln!(
                s,
                "{}{}",
                label(""),
                paint(DIM, &format!("{line:>5}| {code}"))
            );
        }
    }
    for (i, r) in res.refused.iter().enumerate() {
        let _ = writeln!(
            s,
            "{}{} — {}",
            label(if i == 0 { "Refused:" } else { "" }),
            r.printed,
            r.reason
        );
    }
    let _ = writeln!(
        s,
        "{}loki fix --apply to synthesize, apply and verify a patch",
        label("Next:")
    );
    s
}

/// A unified diff with additions green, deletions red and hunk headers dimmed (file headers
/// plain).
#[must_use]
pub fn colour_diff(diff: &str) -> String {
    diff.lines()
        .map(|l| {
            if l.starts_with("+++") || l.starts_with("---") {
                l.to_string()
            } else if l.starts_with('+') {
                paint(GREEN, l)
            } else if l.starts_with('-') {
                paint(RED, l)
            } else if l.starts_with("@@") {
                paint(DIM, l)
            } else {
                l.to_string()
            }
        })
        .map(|l| l + "\n")
        .collect()
}

/// A proposed patch: the file, the model's root cause and explanation, and the diff.
#[must_use]
pub fn proposed(planned: &PlannedEdit) -> String {
    format!(
        "{}{}\n{}{}\n{}{}\n{}",
        label("Patch:"),
        planned.rel,
        label("Root cause:"),
        planned.proposal.root_cause,
        label("Fix:"),
        planned.proposal.explanation,
        colour_diff(&planned.diff)
    )
}

/// The question asked before a patch is applied.
#[must_use]
pub fn confirm_question(planned: &PlannedEdit) -> String {
    format!("Apply this patch to {}?", planned.rel)
}

/// What an interruption leaves once a patch is applied (`backup` as shown to the user).
#[must_use]
pub fn applied_note(planned: &PlannedEdit, backup: &Path, incident: &RunId) -> String {
    format!(
        "the patch stays applied to {}; the original is kept in {}: `loki fix --restore` puts it back, `loki replay {}` checks the patched file",
        planned.rel,
        backup.display(),
        incident
    )
}

/// The line of an applied patch (no trailing newline).
#[must_use]
pub fn applied(planned: &PlannedEdit, backup: &Path) -> String {
    format!(
        "{}{} (backup {})",
        label("Applied:"),
        planned.rel,
        backup.display()
    )
}

/// The warning when the heal receipt could not be sealed (no trailing newline).
#[must_use]
pub fn unsealed(err: &HealError) -> String {
    format!(
        "{}: the heal receipt could not be sealed: {err}",
        paint(YELLOW, "warning")
    )
}

/// The `--json` form of a fix's summary; `status` and `detail` are
/// [`loki_heal::fix::settled_words`], `file` the patched file. `new_crash` is the crash the
/// patched program had instead of the recorded one (why it was rolled back), else null.
#[must_use]
pub fn summary_json(
    r: &FixReport,
    incident: &RunId,
    (status, detail): (&str, &str),
    file: &str,
) -> serde_json::Value {
    serde_json::json!({
        "run_id": r.run_id, "incident_run_id": incident, "outcome": r.outcome.as_str(), "status": status,
        "detail": detail, "file": file, "receipt_sha256": r.sealed.receipt.receipt_sha256,
        "not_proven": r.not_proven, "cost_usd": r.cost_usd, "provider": r.provider, "model": r.model,
        "new_crash": match &r.settled {
            Settled::RolledBack { new_crash, .. } => new_crash.as_ref(),
            _ => None,
        },
    })
}

/// The summary of a fix (see the module doc); `detail` is what [`loki_heal::fix::settled_words`]
/// says about how it settled.
#[must_use]
pub fn summary(r: &FixReport, incident: &RunId, detail: &str, quiet: bool) -> String {
    let mut s = String::new();
    let style = if r.outcome.is_success() { GREEN } else { RED };
    let _ = writeln!(
        s,
        "{}{}",
        label("Outcome:"),
        paint(style, r.outcome.as_str())
    );
    if r.outcome.exit_code() != ExitCode::Success || !matches!(r.settled, Settled::Verified) {
        let _ = writeln!(s, "{}{detail}", label("Reason:"));
    } else if !quiet {
        let _ = writeln!(s, "{}{detail}", label("Result:"));
    }
    let _ = writeln!(
        s,
        "{}sha256:{}",
        label("Receipt:"),
        r.sealed.receipt.receipt_sha256
    );
    s.push_str(&loki_receipt::not_proven::summary_lines(
        "NOT PROVEN:",
        label("").len(),
        &r.not_proven,
    ));
    let cost = match r.cost_usd {
        Some(usd) if !r.provider.is_empty() && r.usage.total() > 0 => {
            format!("${usd:.2} ({}, {} tokens)", r.provider, r.usage.total())
        }
        _ => format!(
            "not measured ({})",
            if r.model.is_empty() {
                "no model call"
            } else {
                &r.model
            }
        ),
    };
    let _ = writeln!(s, "{}{cost}", label("Cost:"));
    let _ = writeln!(
        s,
        "{}{}",
        label("Time:"),
        loki_core::time::human_duration(r.elapsed.as_secs_f64())
    );
    let _ = writeln!(
        s,
        "{}",
        paint(DIM, &format!("heal run {} · incident {incident}", r.run_id))
    );
    s
}

/// The `--json` form of `loki replay`, with the screencast written, if any.
#[must_use]
pub fn replay_json(incident: &RunId, replayed: &Replayed) -> serde_json::Value {
    let (inc, r) = (&replayed.incident, &replayed.replay);
    let reason = r.verdict.reason();
    serde_json::json!({"run_id": incident, "verdict": r.verdict.label(),
        "exit_code": r.verdict.exit_code(), "signature": inc.signature, "reason": reason,
        "video": replayed.video})
}

/// The text of `loki replay`: the screencast is shown relative to `repo_root` when one was
/// written; `video_asked` is whether `--video` asked for one.
#[must_use]
pub fn replay(replayed: &Replayed, repo_root: &Path, quiet: bool, video_asked: bool) -> String {
    let (inc, r) = (&replayed.incident, &replayed.replay);
    let video = replayed
        .video
        .as_deref()
        .map(|v| v.strip_prefix(repo_root).unwrap_or(v));
    let mut s = String::new();
    if !quiet {
        let lines: Vec<&str> = r.output.lines().collect();
        for l in &lines[lines.len().saturating_sub(REPLAY_SHOWN_LINES)..] {
            let _ = writeln!(s, "{}", paint(DIM, l));
        }
    }
    let line = match &r.verdict {
        ReplayVerdict::Reproduced => {
            format!("{}: {}", paint(RED, "REPRODUCED"), inc.signature.text)
        }
        ReplayVerdict::NotReproduced => format!(
            "{}: the command completed without the crash",
            paint(GREEN, "NOT REPRODUCED")
        ),
        ReplayVerdict::DifferentFailure(m) | ReplayVerdict::Harness(m) => {
            format!("{}: {m}", paint(YELLOW, r.verdict.label()))
        }
    };
    let _ = writeln!(s, "{line}");
    if let Some(v) = video {
        let _ = writeln!(s, "{}{}", label("Video:"), v.display());
    } else if video_asked {
        let _ = writeln!(
            s,
            "{}none: the page check ended before a screencast was written (see its output above)",
            label("Video:")
        );
    }
    s
}

/// `loki fix --demo`: what is about to crash, and where the copy is.
#[must_use]
pub fn demo_script(file: &str, dir: &Path, command: &[String]) -> String {
    format!(
        "{}{file} (a copy of the bundled example in {})\n{}{}\n",
        label("Demo:"),
        dir.display(),
        label("Running:"),
        command.join(" ")
    )
}

/// `loki fix --demo --browser`: the page about to crash, and where the copy is.
#[must_use]
pub fn demo_page(page: &str, dir: &Path) -> String {
    format!(
        "{}{page} (a copy of the bundled web page in {})",
        label("Demo:"),
        dir.display()
    )
}

/// The page a check loads, and the browser that loads it.
#[must_use]
pub fn checking(url: &str, browser: &str) -> String {
    format!(
        "{}{url} in headless Chromium ({browser})",
        label("Checking:")
    )
}

/// A demo healed without a model: the built-in patch, which only that example ever uses.
#[must_use]
pub fn demo_fallback() -> String {
    format!(
        "{}none configured: using the demo's built-in patch (only ever used for this example)",
        label("Model:")
    )
}

/// Where a demo's files stay after it (no trailing newline).
#[must_use]
pub fn demo_kept(dir: &Path) -> String {
    paint(DIM, &format!("demo files kept in {}", dir.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_colours_changed_lines_but_not_file_headers() {
        let diff = "--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n-x = 1 / 0\n+x = 1\n print(x)\n";
        let out = colour_diff(diff);
        assert_eq!(anstream::adapter::strip_str(&out).to_string(), diff);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "--- a/app.py");
        assert_eq!(lines[1], "+++ b/app.py");
        assert_eq!(lines[2], paint(DIM, "@@ -1,2 +1,2 @@"));
        assert_eq!(lines[3], paint(RED, "-x = 1 / 0"));
        assert_eq!(lines[4], paint(GREEN, "+x = 1"));
        assert_eq!(lines[5], " print(x)");
    }
}
