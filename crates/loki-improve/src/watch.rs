//! `loki improve watch`: runs a cycle when a failed run arrived and then `watch_debounce_s`
//! (from `improve.toml`, read again at every tick so an edit applies at once) passed with no
//! newer one; until the token is cancelled.
//!
//! A failed run is one whose recorded outcome is `FAILED`, `PARTIAL` or `STALLED`; the newest is
//! known by its start time. Failures recorded before the watch started do not trigger a cycle.
//! The loop looks every `interval` (at least one second) and notices a cancel within 200 ms.
//! It never prints: `on_due` (the caller's cycle, which prints its record) runs each cycle, with
//! the trigger from `improve.toml`. An error of `on_due` or an unreadable `improve.toml` ends the
//! watch with that error.

use std::time::{Duration, Instant};

use loki_core::layout::Repo;
use loki_core::run::{ListedRun, RunStore};
use loki_process::Cancel;
use loki_protocol::{Outcome, RunEnd};

use crate::{CycleOptions, ImproveError, Paths};

/// How often a sleeping watch looks at the token.
const CANCEL_TICK: Duration = Duration::from_millis(200);

/// Watches `repo`'s runs until `cancel` is set; see the module doc.
pub fn watch<E: From<ImproveError>>(
    repo: &Repo,
    interval: Duration,
    cancel: &Cancel,
    mut on_due: impl FnMut(CycleOptions) -> Result<(), E>,
) -> Result<(), E> {
    let paths = Paths::new(repo);
    let store = RunStore::new(repo.clone());
    let newest_failure = || -> Option<String> {
        store
            .list()
            .ok()?
            .into_iter()
            .filter_map(|l| match l {
                ListedRun::Ok(r)
                    if matches!(
                        r.outcome.and_then(RunEnd::sealed),
                        Some(Outcome::Failed | Outcome::Partial | Outcome::Stalled)
                    ) =>
                {
                    Some(r.started_at)
                }
                _ => None,
            })
            .max()
    };
    let mut seen = newest_failure();
    let mut since_change: Option<Instant> = None;
    while !cancel.is_cancelled() {
        let now = newest_failure();
        if now != seen {
            seen = now;
            since_change = Some(Instant::now());
        }
        let cfg = paths.load_config()?;
        if let Some(t) = since_change
            && t.elapsed() >= Duration::from_secs(cfg.watch_debounce_s)
        {
            since_change = None;
            on_due(CycleOptions {
                trigger: cfg.trigger,
                ..CycleOptions::default()
            })?;
        }
        let until = Instant::now() + interval.max(Duration::from_secs(1));
        while Instant::now() < until && !cancel.is_cancelled() {
            std::thread::sleep(CANCEL_TICK);
        }
    }
    Ok(())
}
