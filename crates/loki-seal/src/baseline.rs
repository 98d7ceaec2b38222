//! Taking a worktree's baseline: `loki seal start` (the SessionStart hook), `loki seal reset`,
//! and the last commit for a stop that found none. How a baseline moves afterwards is
//! [`crate::state`]'s module doc.
//!
//! - **start**: a worktree with an open baseline keeps it, whatever the session and its source
//!   (resume, compact, clear, fork, a new session, another agent): the session only joins the
//!   lineage. A worktree without one gets it now: the working tree snapshotted (a git tree object
//!   made in a temporary index, so every test and CI file is captured without touching the
//!   user's index) and the detected suites run. `--rebaseline` is a reset.
//! - **reset**: the user says the tree as it is now is the baseline: snapshot and suites now,
//!   and the baseline it replaces is kept as a [`Reset`] for the receipts to name.
//!
//! A signal while the suites run records nothing ([`SealError::Interrupted`]): the worktree's
//! state stays as it was.

use std::path::Path;

use loki_git::Git;
use loki_runner::{Check, CheckResult, RunOptions, detect, run_check};

use crate::session::SealOptions;
use crate::state::{
    Open, Origin, Reset, ResetBy, STATE_SCHEMA, SealState, load_open, lock_worktree, save_open,
    worktree_key,
};
use crate::{HookInput, SealError};

/// What [`start`] did.
#[derive(Debug, Clone)]
pub struct Started {
    pub state: SealState,
    /// The session that started.
    pub session: String,
    /// The worktree already had an open baseline: it was kept, not re-recorded, so a change
    /// made before this session (by it, or by the one it resumes, clears or forks) is still
    /// judged.
    pub kept: bool,
    /// `--rebaseline` replaced an open baseline: what the receipts will name.
    pub reset: Option<Reset>,
}

/// SessionStart: the session joins its worktree's open baseline, or records the first one (see
/// the module doc); `rebaseline` resets it instead.
pub fn start(
    repo_root: &Path,
    input: &HookInput,
    opts: &SealOptions,
    rebaseline: bool,
) -> Result<Started, SealError> {
    let session = input.session();
    let _lock = lock_worktree(&opts.home, repo_root)?;
    let open = load_open(&opts.home, repo_root, Some(&session))?;
    if rebaseline {
        let by = ResetBy::Rebaseline {
            session: session.clone(),
        };
        let (state, reset) = record(repo_root, open, opts, Some(input), by)?;
        return Ok(Started {
            state,
            session,
            kept: false,
            reset,
        });
    }
    if let Some(mut open) = open {
        open.state.join(input);
        save_open(&opts.home, &mut open)?;
        return Ok(Started {
            state: open.state,
            session,
            kept: true,
            reset: None,
        });
    }
    let (state, _) = record(repo_root, None, opts, Some(input), ResetBy::Reset)?;
    Ok(Started {
        state,
        session,
        kept: false,
        reset: None,
    })
}

/// What [`reset`] did.
#[derive(Debug, Clone)]
pub struct ResetReport {
    pub state: SealState,
    /// The baseline replaced; `None` when the worktree had none (this is its first).
    pub reset: Option<Reset>,
}

/// `loki seal reset`: the tree as it is now becomes the worktree's baseline (see the module doc).
pub fn reset(repo_root: &Path, opts: &SealOptions) -> Result<ResetReport, SealError> {
    let _lock = lock_worktree(&opts.home, repo_root)?;
    let open = load_open(&opts.home, repo_root, None)?;
    let (state, reset) = record(repo_root, open, opts, None, ResetBy::Reset)?;
    Ok(ResetReport { state, reset })
}

/// Snapshots the tree, runs the suites and saves them as the worktree's baseline. With an open
/// baseline `open`, that one is replaced by `by` (kept as a [`Reset`], with its lineage and
/// history); without, the baseline is the worktree's first (a session start's when `input`
/// names one, else a reset's).
fn record(
    repo_root: &Path,
    open: Option<Open>,
    opts: &SealOptions,
    input: Option<&HookInput>,
    by: ResetBy,
) -> Result<(SealState, Option<Reset>), SealError> {
    let clock = std::time::Instant::now();
    let git = Git::new(repo_root);
    let snapshot = git.commit_tree(&git.snapshot_worktree()?, "loki seal: baseline")?;
    let checks = detect(repo_root)?;
    let mut run = opts.run.clone();
    run.log_dir = opts
        .home
        .join("seal")
        .join("logs")
        .join(worktree_key(repo_root));
    let baseline = run_all(&checks, &run)?;
    if let Some(signal) = loki_process::signals::signal_name() {
        // Suites a signal cut are no baseline: nothing is recorded.
        return Err(SealError::Interrupted { signal });
    }
    let now = loki_core::time::now_rfc3339();
    let session = match (&by, input) {
        (ResetBy::Rebaseline { session }, _) => session.clone(),
        (ResetBy::Reset, Some(i)) => i.session(),
        (ResetBy::Reset, None) => "reset".to_string(),
    };
    let mut open = open.unwrap_or_else(|| Open {
        state: SealState {
            schema: STATE_SCHEMA.to_string(),
            session: session.clone(),
            repo_root: repo_root.to_path_buf(),
            snapshot: String::new(),
            started_at: now.clone(),
            checks: Vec::new(),
            baseline: Vec::new(),
            blocks: 0,
            baseline_s: 0.0,
            origin: Origin::SessionStart,
            history: Vec::new(),
            declarations: Vec::new(),
            pending: Vec::new(),
            known: Vec::new(),
            request: None,
            lineage: Vec::new(),
            resets: Vec::new(),
        },
        legacy: None,
    });
    let first = open.state.snapshot.is_empty();
    let reset = (!first).then(|| Reset {
        at: now.clone(),
        previous: open.state.snapshot.clone(),
        previous_since: open.state.started_at.clone(),
        by,
    });
    let state = &mut open.state;
    let resets = std::mem::take(&mut state.resets);
    state.settle();
    state.resets = resets;
    state.resets.extend(reset.clone());
    state.session = session;
    state.snapshot = snapshot;
    state.started_at = now;
    state.checks = checks;
    state.baseline = baseline;
    state.baseline_s = clock.elapsed().as_secs_f64();
    state.origin = if first && input.is_some() {
        Origin::SessionStart
    } else {
        Origin::Reset
    };
    if let Some(input) = input {
        state.join(input);
    }
    save_open(&opts.home, &mut open)?;
    Ok((open.state, reset))
}

fn run_all(checks: &[Check], opts: &RunOptions) -> Result<Vec<CheckResult>, SealError> {
    checks
        .iter()
        .map(|c| run_check(c, opts).map_err(SealError::from))
        .collect()
}

/// A worktree without a recorded baseline: the last commit, judged by running its suites at
/// this stop (the judge runs the base when it has no base results).
pub(crate) fn from_head(
    git: &Git,
    repo_root: &Path,
    input: &HookInput,
) -> Result<SealState, SealError> {
    let session = input.session();
    let head = git.head()?.ok_or_else(|| SealError::NoBaseline {
        session: session.clone(),
        path: repo_root.to_path_buf(),
    })?;
    Ok(SealState {
        schema: STATE_SCHEMA.to_string(),
        session,
        repo_root: repo_root.to_path_buf(),
        snapshot: head,
        started_at: loki_core::time::now_rfc3339(),
        checks: detect(repo_root)?,
        baseline: Vec::new(),
        blocks: 0,
        baseline_s: 0.0,
        origin: Origin::LastCommit,
        history: Vec::new(),
        declarations: Vec::new(),
        pending: Vec::new(),
        known: Vec::new(),
        request: None,
        lineage: Vec::new(),
        resets: Vec::new(),
    })
}
