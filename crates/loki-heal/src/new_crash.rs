//! The crash a patched program had instead of the recorded one (pure).
//!
//! When a fix's verifying replay ends in a different failure ([`ReplayVerdict::DifferentFailure`]),
//! the program still crashes: the fix rolls back and says what the new crash was. It is read
//! from the replay's output as `loki run` reads a crash ([`crate::frames::parse_crash`], then
//! [`crate::signature::compute`]), after removing the script's own `[note]` and `[HARNESS]`
//! lines; the exit code is the command's, from the script's `[HARNESS]` line (the script itself
//! exits 2). A failure that prints no recognisable crash is named by its exit code (`exit 3`,
//! `signal SIGSEGV`), its message the last line the command printed.
//!
//! [`ReplayVerdict::DifferentFailure`]: crate::repro::ReplayVerdict::DifferentFailure

use std::path::Path;

use loki_events::payload::CrashSeen;

use crate::incident::Incident;
use crate::signature;

/// Longest message kept (characters): a crash message can be a whole dump.
const MESSAGE_CHARS: usize = 300;

/// The crash in `output` (a replay's), whose `[HARNESS]` line is `reason`.
#[must_use]
pub fn seen(inc: &Incident, output: &str, reason: &str) -> CrashSeen {
    let text: String = output
        .lines()
        .filter(|l| !l.starts_with("[note] ") && !l.starts_with("[HARNESS] "))
        .map(|l| format!("{l}\n"))
        .collect();
    let exit_code = command_exit(reason).unwrap_or(inc.signature.exit_code);
    let cwd = Path::new(&inc.cwd);
    let crash = crate::frames::parse_crash(&text);
    let sig = signature::compute(crash.as_ref(), exit_code, &[cwd], &text);
    let (kind, message, location) = match &crash {
        Some(c) => (
            c.kind.clone(),
            c.message.clone(),
            c.frames.iter().find(|f| f.file.is_some()).map(|f| {
                let file = signature::normalise_path(f.file.as_deref().unwrap_or(""), &[cwd]);
                let mut at = match f.line {
                    Some(line) => format!("{file}:{line}"),
                    None => file,
                };
                if let Some(func) = &f.function {
                    at.push_str(" in ");
                    at.push_str(&signature::normalise_function(func));
                }
                at
            }),
        ),
        None => (
            signature::bare_exit_kind(exit_code),
            text.lines()
                .rev()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim()
                .to_string(),
            None,
        ),
    };
    CrashSeen {
        signature: sig.id,
        signature_text: sig.text,
        kind,
        message: message.chars().take(MESSAGE_CHARS).collect(),
        location,
        exit_code,
    }
}

/// The command's exit code in `a different failure (exit N, …`.
fn command_exit(reason: &str) -> Option<i32> {
    let rest = reason.split_once("(exit ")?.1;
    let end = rest.find(|c: char| !(c.is_ascii_digit() || c == '-'))?;
    rest[..end].parse().ok()
}

/// One line for a person: `KeyError: 'missing' at app.py:2 in average (exit 1)`.
#[must_use]
pub fn describe(c: &CrashSeen) -> String {
    let mut s = c.kind.clone();
    if !c.message.is_empty() && c.message != c.kind {
        s.push_str(": ");
        s.push_str(&c.message);
    }
    if let Some(at) = &c.location {
        s.push_str(" at ");
        s.push_str(at);
    }
    if !c.kind.starts_with("exit ") {
        s.push_str(&format!(" (exit {})", c.exit_code));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn incident() -> Incident {
        let text = "ZeroDivisionError at average (app.py)";
        serde_json::from_value(serde_json::json!({
            "schema": crate::incident::INCIDENT_SCHEMA, "run_id": "run_20260101_000000_abcd",
            "recorded_at": "2026-01-01T00:00:00.000Z", "command": ["python3", "app.py"],
            "cwd": "/work/app", "seed": 7, "timeout_s": 60,
            "exit": {"code": 1, "signal": null}, "stdout_tail": "", "stderr_tail": "",
            "crash": {"lang": "python", "kind": "ZeroDivisionError", "message": "division by zero"},
            "frames": [],
            "signature": {"id": crate::signature::id_of(text), "text": text, "exit_code": 1,
                          "needles": ["ZeroDivisionError"]},
            "env": {"os": "linux", "arch": "x86_64"}, "env_vars": {}, "env_secrets": [],
            "repro": "repro.sh",
        }))
        .unwrap()
    }

    #[test]
    fn a_python_traceback_names_kind_message_and_place() {
        let out = "[note] X was set when the crash was recorded and is not set now\n\
            Traceback (most recent call last):\n  File \"/work/app/app.py\", line 9, in <module>\n    main()\n  \
            File \"/work/app/app.py\", line 2, in average\n    return {}['missing']\nKeyError: 'missing'\n\
            [HARNESS] a different failure (exit 1, expected 1, no \"ZeroDivisionError\" in the output): not the recorded crash\n";
        let reason = "a different failure (exit 1, expected 1, no \"ZeroDivisionError\" in the output): not the recorded crash";
        let c = seen(&incident(), out, reason);
        assert_eq!(c.kind, "KeyError");
        assert_eq!(c.message, "'missing'");
        assert_eq!(c.location.as_deref(), Some("app.py:2 in average"));
        assert_eq!(c.exit_code, 1);
        assert!(
            c.signature_text.starts_with("KeyError at average (app.py)"),
            "{c:?}"
        );
        assert_eq!(
            describe(&c),
            "KeyError: 'missing' at app.py:2 in average (exit 1)"
        );
    }

    #[test]
    fn a_failure_without_a_trace_is_named_by_its_exit_code() {
        let out = "starting\nconfig missing\n[HARNESS] a different failure (exit 3, expected 1): not the recorded crash\n";
        let c = seen(
            &incident(),
            out,
            "a different failure (exit 3, expected 1): not the recorded crash",
        );
        assert_eq!(c.kind, "exit 3");
        assert_eq!(c.message, "config missing");
        assert_eq!(c.location, None);
        assert_eq!(c.exit_code, 3);
        assert_eq!(describe(&c), "exit 3: config missing");
    }
}
