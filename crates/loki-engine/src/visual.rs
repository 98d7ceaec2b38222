//! The visual evidence step of a build run: after commit, before seal, screenshots of the web
//! pages the change touched go into the run directory and the receipt (`evidence.screens`).
//!
//! What is captured and how is [`loki_browser::evidence`]'s business; this module only hands it
//! the run's facts: the changed paths of the last verification, the worktree, the checks' box
//! (their environment and wrapper: the app is the agent's code), the run directory's `screens/`
//! and what is left of the run's time. It runs, as the `visual` stage, only when the change
//! touched a page of a web app, so runs of other projects carry no trace of it.
//!
//! # Never
//! Fail or lower the run: every screenshot not taken is a NOT PROVEN line with its reason, and
//! the outcome is decided as if this step did not exist. Off with `LOKI_VISUAL_EVIDENCE=0`
//! ([`crate::BuildOptions::visual_evidence`]).

use std::time::Duration;

use loki_browser::evidence::{self, Request};
use loki_protocol::Stage;
use loki_receipt::schema::{Evidence, SCREENS_DIR, Screen};

use crate::EngineError;
use crate::run::{Products, Run, Step, stage};

/// The most a run spends on screenshots: starting a dev server (a cold Vite or Next.js start
/// takes tens of seconds on a loaded machine), the browser, and up to five page loads.
const BUDGET: Duration = Duration::from_secs(120);
/// Less than this left of the run's time is not worth starting a server for.
const MIN_BUDGET: Duration = Duration::from_secs(5);

/// `LOKI_VISUAL_EVIDENCE`: on unless `0`, `false` or `off`.
#[must_use]
pub fn enabled_by_env() -> bool {
    enabled(loki_core::env::VISUAL_EVIDENCE.get().as_deref())
}

fn enabled(value: Option<&str>) -> bool {
    !matches!(
        value.map(|v| v.trim().to_ascii_lowercase()).as_deref(),
        Some("0" | "false" | "off")
    )
}

/// Captures the screens of the run's change when it touched a web page (see the module doc):
/// the screens taken, if any.
pub(crate) fn run(s: &mut Run<'_>, p: &Products) -> Result<Option<Evidence>, EngineError> {
    if !s.opts.visual_evidence || s.interrupted {
        return Ok(None);
    }
    let (Some(i), Some(v)) = (&p.intake, &p.verification) else {
        return Ok(None);
    };
    let Some(plan) = evidence::plan(&i.worktree, &v.changed) else {
        return Ok(None);
    };
    let req = Request {
        root: i.worktree.clone(),
        plan,
        out_dir: s.run_dir.join(SCREENS_DIR),
        env: i.fence.check_env(&s.repo),
        wrapper: s.check_wrapper.clone(),
        budget: BUDGET.min(s.time_left()),
        browser: s.opts.browser.clone(),
    };
    let mut screens = Vec::new();
    stage(s, Stage::Visual, |s| Ok(capture(s, &req, &mut screens)))?;
    Ok((!screens.is_empty()).then_some(Evidence { screens }))
}

/// Takes the screenshots `req` plans into `out`, each one not taken a note.
fn capture(s: &mut Run<'_>, req: &Request, out: &mut Vec<Screen>) -> Step {
    if req.budget < MIN_BUDGET {
        s.notes.push(format!(
            "visual evidence: {} not captured: the run's time cap left {}s for it",
            req.plan.routes.join(", "),
            req.budget.as_secs()
        ));
        return Step::Skipped("no time left".into());
    }
    let got = evidence::capture(req);
    s.notes.extend(got.skipped.iter().cloned());
    let screens: Vec<Screen> = got
        .shots
        .iter()
        .map(|shot| Screen {
            route: shot.route.clone(),
            file: format!("{SCREENS_DIR}/{}", shot.file),
            sha256: shot.sha256.clone(),
            bytes: shot.bytes,
        })
        .collect();
    let detail = if screens.is_empty() {
        "no screenshot taken (see NOT PROVEN)".to_string()
    } else {
        let routes: Vec<&str> = screens.iter().map(|x| x.route.as_str()).collect();
        format!("{} screenshot(s): {}", screens.len(), routes.join(", "))
    };
    *out = screens;
    Step::Done(detail)
}

#[cfg(test)]
mod tests {
    use super::enabled;

    #[test]
    fn only_an_explicit_off_turns_it_off() {
        for on in [None, Some("1"), Some("yes"), Some("")] {
            assert!(enabled(on), "{on:?}");
        }
        for off in ["0", "false", "OFF", " 0 "] {
            assert!(!enabled(Some(off)), "{off}");
        }
    }
}
