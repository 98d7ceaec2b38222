//! The stage machine: one loop drives [contract →] intake → plan ‖ wall → gate → implement →
//! verify ⇄ fix → commit → council → seal, emitting `stage.started` and
//! `stage.completed|failed|skipped` for each. The council ([`crate::council`]) runs only when
//! it is held; commit and seal always run.
//!
//! This module is the machine only: the order of the stages, when to stop, the fix loop and the
//! the stages' products ([`Products`]); the run's shared state and the stage harness are
//! [`crate::run`]. The contract stage (only with a delivery contract, [`crate::proof`]) ends
//! the run BLOCKED when its criteria contradict each other. Each stage's body lives in its own
//! module: [`crate::intake`], `acceptance` (plan ‖ wall, with [`crate::plan`] and [`loki_contract::wall`]), `gate`,
//! [`crate::implement`] (implement and fix rounds), [`crate::verify`], `commit` and `seal`.
//!
//! # Caps
//! The run cap is hard at `cap`; the *soft* cap is `cap − reserve_for(cap)`: no stage other than
//! commit and seal starts after it, agent sessions and checks are bounded by it, so commit and seal
//! always have time. Reaching it (or `max_cost_usd` of measured cost, or `max_tokens` tokens) is
//! `cap.hit` and BUDGET_STOP. A dollar cap is refused before the run starts when the backend's
//! cost cannot be measured ([`EngineError::UnpricedCap`]): a cap that cannot hold is not a cap.
//! Ctrl-C or SIGTERM ([`BuildOptions::cancel`], set by the CLI's one signal handler) stops at the
//! next safe point (between stages, or a session in flight); the run still commits and seals, ends
//! with `run.interrupted` and exit 130 (143 for SIGTERM).
//!
//! # Provider failures
//! The first model call that fails (after its bounded retries) ends the run's work at once: no
//! further stage but commit and seal runs, the failure's [`loki_agent::ProviderFailure::reason`]
//! is the `Reason:` line and the first of the run's own NOT PROVEN entries, and the exit code is 2
//! ([`loki_protocol::outcome::PROVIDER_FAILURE`]): the setup (a key, a URL, a server) must change.
//!
//! # Cleanup
//! A run that produced no change removes its worktree and branch after sealing (nothing there to
//! inspect or apply) unless [`BuildOptions::keep`]; its record and receipt stay.
//!
//! # Never
//! Write the user's checkout (everything happens in the worktree), commit the wall or `.loki/`, or
//! skip the seal: every run that started ends with a receipt, whatever happened before.

use std::time::{Duration, Instant};

use loki_core::layout::Repo;
use loki_core::run::{RunKind, RunStore};
use loki_events::RunRecorder;
use loki_events::payload::{
    BuildStarted, FixRound, RunCompleted, RunInterrupted, RunStarted, StageEnd, StageSkipped,
};
use loki_protocol::Stage;
use sha2::{Digest, Sha256};

use crate::intake::{self, Intake};
use crate::options::{BuildOptions, Observer, Progress};
use crate::plan;
use crate::report::BuildReport;
use crate::run::{Products, Run, Step, stage};
use crate::verify;
use crate::{EngineError, acceptance, commit, gate, implement};

/// Fix rounds after the first verification.
pub const MAX_FIX_ROUNDS: u32 = 2;
/// The same failure signature this many times is a stall.
pub const STALL_REPEATS: usize = 3;
/// Least and most of the cap kept for commit and seal.
const MIN_RESERVE: Duration = Duration::from_secs(2);
const MAX_RESERVE: Duration = Duration::from_secs(60);

/// The part of the cap kept for commit and seal: a tenth, between 2 s and 60 s.
#[must_use]
pub fn reserve_for(cap: Duration) -> Duration {
    (cap / 10).clamp(MIN_RESERVE, MAX_RESERVE)
}

/// Runs a whole build in `repo`. Refusals before the run starts (dirty tree, no commits, empty
/// task) are errors; anything after is recorded in the run, which always ends sealed.
pub fn run_build(
    repo: &Repo,
    opts: &BuildOptions,
    observer: &dyn Observer,
) -> Result<BuildReport, EngineError> {
    if opts.task.text.trim().is_empty() {
        return Err(EngineError::EmptyTask);
    }
    if let Some(max_usd) = opts.max_cost_usd
        && let Some(model) = opts.backend.unpriced(&opts.prices)
    {
        return Err(EngineError::UnpricedCap { model, max_usd });
    }
    let base = intake::preflight(repo)?;
    // A contract file that cannot be used is refused before the run starts, like a dirty tree.
    let contract = crate::proof::resolve(repo, opts)?;
    // The repository's instructions for the agent: a broken file is refused before the run starts
    // (the user must mend it), and the revision stamps the run so `loki improve` can learn from it.
    let agent = loki_instructions::AgentFiles::load(&loki_instructions::agent_dir(&repo.root))?;
    let agent_revision = agent.revision();
    let started = BuildStarted {
        task_sha256: hex::encode(Sha256::digest(opts.task.text.as_bytes())),
        task_source: opts.task.source.clone(),
        provider: opts.provider_label.clone(),
        cap_s: opts.cap.as_secs(),
        max_cost_usd: opts.max_cost_usd,
        base: base.clone(),
        agent_revision: Some(agent_revision.clone()),
    };
    // As in `work`: anything but a build run is a quick one.
    let started = if opts.kind == RunKind::Build {
        RunStarted::Build(started)
    } else {
        RunStarted::Quick(started)
    };
    if let Some(branch) = &opts.branch
        && loki_git::Git::new(&repo.root)
            .rev_parse(&format!("refs/heads/{branch}"))
            .is_ok()
    {
        return Err(EngineError::Refused {
            action: "the run was not started",
            detail: format!(
                "the branch {branch} exists already (from an earlier run): delete it (`git branch -D {branch}`) or `loki discard` its run first"
            ),
        });
    }
    let mut log = RunRecorder::start(
        &RunStore::new(repo.clone()),
        Some(opts.task.text.clone()),
        opts.command.clone(),
        &started,
    )?;
    log.update_record(|r| {
        r.agent_revision = Some(agent_revision);
        r.branch.clone_from(&opts.branch);
    })?;
    if let Some(issue) = &opts.issue {
        crate::write_file(&log.dir().join("issue.json"), &issue.json)?;
    }
    let run_dir = log.dir().to_path_buf();
    let contract = match contract {
        Some(c) => {
            // The copy the receipt's digest names: what the run was judged against, kept with it.
            let bytes =
                c.to_file_bytes()
                    .map_err(|e| loki_contract::ContractError::BadContract {
                        path: run_dir.join(loki_contract::CONTRACT_FILE),
                        reason: e.to_string(),
                    })?;
            crate::write_file(&run_dir.join(loki_contract::CONTRACT_FILE), &bytes)?;
            observer.progress(&Progress::Note(format!(
                "contract: {} acceptance criteria ({})",
                c.criteria.len(),
                c.source
            )));
            Some((c, hex::encode(Sha256::digest(&bytes))))
        }
        None => None,
    };
    let started = Instant::now();
    let soft = opts.cap.saturating_sub(reserve_for(opts.cap));
    let mut s = Run::new(
        opts,
        observer,
        repo.clone(),
        log,
        base,
        agent,
        started,
        started + soft,
    );
    let mut p = Products {
        contract,
        ..Products::default()
    };
    work(&mut s, &mut p)?;
    finish(s, p)
}

/// Commit, visual evidence, the council when it is held, and the seal: what runs after every
/// run's work, whatever happened in it. Ends the log and returns the report.
fn finish(mut s: Run<'_>, mut p: Products) -> Result<BuildReport, EngineError> {
    let (opts, observer) = (s.opts, s.observer);
    stage(&mut s, Stage::Commit, |s| commit::stage(s, &mut p))?;
    p.evidence = crate::visual::run(&mut s, &p)?;
    match crate::council::applies(&s, &p) {
        Ok(()) => {
            let mut council = None;
            stage(&mut s, crate::council::STAGE, |s| {
                let (step, c) = crate::council::stage(s, &p)?;
                council = c;
                Ok(step)
            })?;
            p.council = council;
        }
        Err(not_held) => {
            if not_held.said {
                s.notes.push(not_held.why.clone());
            }
            observer.progress(&Progress::Note(not_held.why));
        }
    }
    let sealed = crate::seal::seal(&mut s, &p)?;
    let exit = BuildReport::exit(sealed.outcome, s.interrupted, s.provider_failure.is_some());
    let mut end = RunCompleted::new(sealed.outcome)
        .exit_code(i32::from(exit.code()))
        .receipt(sealed.receipt_sha256.clone());
    end.reason = s
        .provider_failure
        .as_ref()
        .map(loki_agent::ProviderFailure::reason);
    if s.interrupted {
        s.log.interrupt(&RunInterrupted {
            outcome: Some(end.outcome),
            exit_code: end.exit_code,
            receipt_sha256: end.receipt_sha256,
            reason: None,
        })?;
    } else {
        s.log.finish(&end)?;
    }
    let no_change = sealed.changed.is_empty();
    let mut report = crate::seal::report(&s, &p, sealed, exit.code());
    if no_change && !opts.keep {
        let removed = crate::ops::remove_checkout(&s.repo, &s.run_id);
        if !removed.is_empty() {
            observer.progress(&Progress::Note(format!(
                "the run made no change: removed {} (--keep keeps them)",
                removed.join(" and ")
            )));
            report.branch.clear();
            report.worktree.clear();
        }
    }
    Ok(report)
}

/// The contract stage: a contract that requires and forbids the same thing is a spec conflict,
/// asked as one question before any code is written (see [`loki_contract::conflict`]).
fn contract_stage(s: &mut Run<'_>, c: &loki_contract::Contract) -> Step {
    let n = c.criteria.len();
    if let Some((a, b)) = loki_contract::conflict(&c.criteria) {
        let question = loki_contract::conflict_question(&c.criteria[a], &c.criteria[b]);
        let detail = format!(
            "{} and {} contradict each other",
            c.criteria[a].id, c.criteria[b].id
        );
        s.spec_conflict = true;
        s.notes
            .push(format!("{}{question}", crate::ops::CONTRACT_CONFLICT));
        return Step::Done(detail);
    }
    Step::Done(format!("{n} acceptance criteria ({})", c.source))
}

/// Every stage before commit. Returns early (to commit and seal) when the run cannot go on.
fn work(s: &mut Run<'_>, p: &mut Products) -> Result<(), EngineError> {
    if let Some((c, _)) = &p.contract {
        stage(s, Stage::Contract, |s| Ok(contract_stage(s, c)))?;
        if s.spec_conflict {
            return Ok(());
        }
    }
    if s.should_stop(Stage::Intake)? {
        return Ok(());
    }
    let cache = s.opts.home.join("cache");
    let mut made = None;
    stage(s, Stage::Intake, |s| {
        let (step, i) = intake::stage(s, &cache)?;
        made = Some(i);
        Ok(step)
    })?;
    let Some(i) = made else {
        return Ok(());
    };
    let result = work_in(s, &i, p);
    p.intake = Some(i);
    result
}

/// The stages between intake and commit, in the worktree `i`.
fn work_in(s: &mut Run<'_>, i: &Intake, p: &mut Products) -> Result<(), EngineError> {
    if s.opts.kind == RunKind::Build {
        if s.should_stop(Stage::Plan)? {
            return Ok(());
        }
        let contract = p.contract.as_ref().map(|(c, _)| c);
        (p.plan, p.wall) = acceptance::plan_and_wall(s, i, contract)?;
        if s.should_stop(Stage::Gate)? {
            return Ok(());
        }
        stage(s, Stage::Gate, |s| gate::stage(s, i, &p.wall, &mut p.gate))?;
        if p.gate.already_satisfied {
            return Ok(());
        }
    } else {
        for name in [Stage::Plan, Stage::Wall, Stage::Gate] {
            s.log.append(&StageSkipped(StageEnd::new(
                name,
                "quick run: no plan, no wall",
                None,
            )))?;
        }
        p.plan = plan::run(&s.opts.task.text, i);
    }
    if s.should_stop(Stage::Implement)? {
        return Ok(());
    }
    let contract = p.contract.as_ref().map(|(c, _)| c);
    stage(s, Stage::Implement, |s| {
        implement::stage(s, i, &p.plan, &p.wall, contract, &mut p.reverted)
    })?;
    verify_and_fix(s, i, p)
}

/// verify ⇄ fix: at most [`MAX_FIX_ROUNDS`] fix rounds, until the checks pass, the same failure
/// comes back [`STALL_REPEATS`] times, a round changes nothing, or the run must stop.
fn verify_and_fix(s: &mut Run<'_>, i: &Intake, p: &mut Products) -> Result<(), EngineError> {
    let mut round = 0;
    loop {
        if s.should_stop(Stage::Verify)? {
            return Ok(());
        }
        let n = p.signatures.len();
        let mut made = None;
        stage(s, Stage::Verify, |s| {
            let (step, v) = verify::stage(s, i, &p.wall, &p.gate.results, n)?;
            made = Some(v);
            Ok(step)
        })?;
        if made.is_some() {
            p.verification = made;
        }
        let Some(v) = &p.verification else {
            return Ok(());
        };
        if v.passed() || v.changed.is_empty() {
            return Ok(());
        }
        let sig = v.signature();
        let before = v.head_tree.clone();
        p.signatures.push(sig.clone());
        if p.signatures.iter().filter(|x| **x == sig).count() >= STALL_REPEATS {
            s.stalled = true;
            s.notes.push(format!(
                "stalled: the same failure ({sig}) {STALL_REPEATS} times"
            ));
            return Ok(());
        }
        if round == MAX_FIX_ROUNDS || s.spec_conflict || s.should_stop(Stage::Fix)? {
            return Ok(());
        }
        round += 1;
        s.log.append(&FixRound {
            round,
            signature: sig,
        })?;
        let v = p.verification.as_ref();
        stage(s, Stage::Fix, |s| {
            implement::fix_stage(s, i, &p.wall, v, round, &mut p.reverted)
        })?;
        // Verifying an unchanged tree again would only repeat the same failure.
        let after = loki_git::Git::new(&i.worktree).snapshot_worktree_cached()?;
        if after == before {
            s.notes.push(format!("fix round {round} changed nothing"));
            return Ok(());
        }
    }
}
