//! What a person does besides running cycles: approve or reject a queued proposal, roll back,
//! and read the state (`status`). Each takes the cycle lock (a cycle under way makes them busy)
//! and is audited with the actor `user`.

use loki_instructions::AgentFiles;
use serde::Serialize;

use crate::ImproveError;
use crate::audit::{self, Action, Entry};
use crate::config::{Paths, paused_by};
use crate::cycles::{self, CycleRecord};
use crate::lock::{self, Acquired, CycleLock};
use crate::proposal::{self, Applied};

/// What approving or rolling back did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "result", rename_all = "kebab-case")]
pub enum Change {
    Applied {
        from: String,
        to: String,
    },
    /// The files changed since: nothing was written.
    Stale {
        expected: String,
        current: String,
    },
    Refused {
        why: String,
    },
}

fn hold(paths: &Paths, what: &str) -> Result<CycleLock, ImproveError> {
    if let Some(by) = paused_by(paths) {
        return Err(ImproveError::Paused { by });
    }
    match lock::acquire(paths, what)? {
        Acquired::Held(l) => Ok(l),
        Acquired::Busy { holder } => Err(ImproveError::Busy {
            lock: paths.lock(),
            pid: holder,
        }),
    }
}

/// Applies the queued proposal `id` if the files are still at the revision it was made against.
pub fn approve(paths: &Paths, id: &str) -> Result<Change, ImproveError> {
    let p = proposal::read_pending(paths, id)?;
    let _lock = hold(paths, &format!("approve {id}"))?;
    let change = match proposal::apply(paths, &p.base_revision, &p.files)? {
        Applied::Done { from, to } => {
            audit::append(
                paths,
                Entry::new(Action::Apply, "user", Some(&p.cycle))
                    .detail(format!("approved {id}"))
                    .revisions(&from, &to),
            )?;
            proposal::remove_pending(paths, id)?;
            Change::Applied { from, to }
        }
        Applied::Stale { current } => {
            audit::append(
                paths,
                Entry::new(Action::Stale, "user", Some(&p.cycle))
                    .detail(format!(
                        "{id} was made against {}, the files are at {current}",
                        p.base_revision
                    ))
                    .revisions(&p.base_revision, &p.candidate_revision),
            )?;
            Change::Stale {
                expected: p.base_revision,
                current,
            }
        }
        Applied::Refused(why) => Change::Refused { why },
    };
    Ok(change)
}

/// Drops the queued proposal `id`.
pub fn reject(paths: &Paths, id: &str, why: Option<&str>) -> Result<(), ImproveError> {
    let p = proposal::read_pending(paths, id)?;
    let _lock = hold(paths, &format!("reject {id}"))?;
    proposal::remove_pending(paths, id)?;
    audit::append(
        paths,
        Entry::new(Action::Discard, "user", Some(&p.cycle))
            .detail(why.map_or_else(
                || format!("rejected {id}"),
                |w| format!("rejected {id}: {w}"),
            ))
            .revisions(&p.base_revision, &p.candidate_revision),
    )?;
    Ok(())
}

/// Restores `to`, or the revision the last apply replaced (when the files are at what it wrote).
pub fn rollback(paths: &Paths, to: Option<&str>) -> Result<Change, ImproveError> {
    let _lock = hold(paths, "rollback")?;
    let current = AgentFiles::load(&paths.agent())?.revision();
    let target = match to {
        Some(t) => {
            if t.starts_with("sha256:") {
                t.to_string()
            } else {
                format!("sha256:{t}")
            }
        }
        None => audit::read(paths)?
            .into_iter()
            .rev()
            .find(|l| l.entry.action == Action::Apply && l.entry.to.as_deref() == Some(&current))
            .and_then(|l| l.entry.from)
            .ok_or_else(|| ImproveError::NothingToRollBack {
                audit: paths.audit(),
            })?,
    };
    let files = proposal::kept(paths, &target)?;
    Ok(match proposal::apply(paths, &current, &files)? {
        Applied::Done { from, to } => {
            audit::append(
                paths,
                Entry::new(Action::Rollback, "user", None)
                    .detail("rolled back by hand")
                    .revisions(&from, &to),
            )?;
            Change::Applied { from, to }
        }
        Applied::Stale { current: now } => Change::Stale {
            expected: current,
            current: now,
        },
        Applied::Refused(why) => Change::Refused { why },
    })
}

/// The state of improvement in one repository.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub paused: Option<String>,
    pub mode: String,
    pub trigger: String,
    pub revision: String,
    pub instruction_files: Vec<String>,
    pub cycles_today: u32,
    pub tokens_today: u64,
    pub max_cycles_per_day: u32,
    pub max_tokens_per_day: u64,
    pub pending: Vec<String>,
    pub protected: Vec<String>,
    pub last_cycle: Option<CycleRecord>,
    pub audit: String,
}

/// Reads the state (never writes).
pub fn status(paths: &Paths) -> Result<Status, ImproveError> {
    let cfg = paths.load_config()?;
    let agent = AgentFiles::load(&paths.agent())?;
    let records = cycles::list(paths)?;
    let (cycles_today, tokens_today) = cycles::usage_today(&records);
    let audit = match audit::verify(&paths.audit())? {
        audit::Verdict::Intact { count, .. } => format!("intact ({count} lines)"),
        audit::Verdict::Broken { line, reason } => format!("BROKEN at line {line}: {reason}"),
    };
    Ok(Status {
        paused: paused_by(paths),
        mode: cfg.mode.as_str().to_string(),
        trigger: cfg.trigger.as_str().to_string(),
        revision: agent.revision(),
        instruction_files: agent.files.iter().map(|f| f.path.clone()).collect(),
        cycles_today,
        tokens_today,
        max_cycles_per_day: cfg.max_cycles_per_day,
        max_tokens_per_day: cfg.max_tokens_per_day,
        pending: proposal::list_pending(paths)?
            .into_iter()
            .map(|p| p.id)
            .collect(),
        protected: crate::cases::corpus(paths)?
            .into_iter()
            .map(|c| c.run)
            .collect(),
        last_cycle: records.last().cloned(),
        audit,
    })
}
