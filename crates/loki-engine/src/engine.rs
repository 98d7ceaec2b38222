//! The stage machine: one loop drives [contract →] intake → plan ‖ wall → gate → implement →
//! verify ⇄ fix → commit → council → seal, emitting `stage.started` and
//! `stage.completed|failed|skipped` for each. The council ([`crate::council`]) runs only when
//! it is held; commit and seal always run.
//!
//! This module is the machine only: the order of the stages, when to stop, the fix loop and the
//! shared `RunState`. The contract stage (only with a delivery contract, [`crate::proof`]) ends
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

use std::path::PathBuf;
use std::time::{Duration, Instant};

use loki_contract::wall::Wall;
use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::run::{RunKind, RunStore};
use loki_events::RunRecorder;
use loki_events::payload::{
    BuildStarted, CapHit, FixRound, RunCompleted, RunInterrupted, RunStarted, StageCompleted,
    StageEnd, StageFailed, StageSkipped, StageStarted,
};
use loki_protocol::{CapAt, CapKind, Stage, StageState};
use sha2::{Digest, Sha256};

use crate::intake::{self, Intake};
use crate::options::{BuildOptions, Observer, Progress};
use crate::plan::{self, Plan};
use crate::session::{self, SessionReport, SessionSpec};
use crate::summary::BuildReport;
use crate::verify::{self, Verification};
use crate::{EngineError, acceptance, commit, gate, implement};

/// Fix rounds after the first verification.
pub const MAX_FIX_ROUNDS: u32 = 2;
/// The same failure signature this many times is a stall.
pub const STALL_REPEATS: usize = 3;
/// Least and most of the cap kept for commit and seal.
const MIN_RESERVE: Duration = Duration::from_secs(2);
const MAX_RESERVE: Duration = Duration::from_secs(60);
/// A check is never given less than this, even near the cap (it would only time out).
pub(crate) const MIN_CHECK_TIME: Duration = Duration::from_secs(1);
/// The agent's session label per stage (a scripted file names its sessions after these).
pub const WALL_SESSION: &str = Stage::Wall.as_str();
pub const IMPLEMENT_SESSION: &str = Stage::Implement.as_str();

/// The part of the cap kept for commit and seal: a tenth, between 2 s and 60 s.
#[must_use]
pub fn reserve_for(cap: Duration) -> Duration {
    (cap / 10).clamp(MIN_RESERVE, MAX_RESERVE)
}

/// Everything the stages share while a run goes.
pub(crate) struct RunState<'a> {
    pub opts: &'a BuildOptions,
    pub observer: &'a dyn Observer,
    pub repo: Repo,
    pub run_id: RunId,
    pub run_dir: PathBuf,
    pub log: RunRecorder,
    pub started: Instant,
    pub soft_deadline: Instant,
    pub base: String,
    /// The repository's instructions for the implementing agent (`.loki/agent/`).
    pub agent: loki_instructions::AgentFiles,
    pub intake: Option<Intake>,
    pub plan: Plan,
    pub wall: Wall,
    pub wall_base: loki_receipt::schema::BaseRun,
    pub already_satisfied: bool,
    pub sessions: Vec<SessionReport>,
    pub reverted: Vec<String>,
    pub verification: Option<Verification>,
    pub signatures: Vec<String>,
    pub budget_hit: bool,
    pub spec_conflict: bool,
    pub stalled: bool,
    pub interrupted: bool,
    pub notes: Vec<String>,
    pub stage_times: Vec<(String, f64)>,
    pub head: Option<String>,
    pub checks_s: f64,
    /// The model box's wrapper of the agent's commands (empty: none).
    pub wrapper: Vec<std::ffi::OsString>,
    /// The wrapper of the checks of the agent's code (empty: none).
    pub check_wrapper: Vec<std::ffi::OsString>,
    /// The model call that failed and so ended the run's work.
    pub provider_failure: Option<loki_agent::ProviderFailure>,
    /// The delivery contract the run is judged against and the sha256 of its copy in the run.
    pub contract: Option<(loki_contract::Contract, String)>,
    /// Each wall file's run on the unchanged base (the gate), for the contract's proof.
    pub wall_base_results: Vec<loki_runner::CheckResult>,
    /// Screenshots of the changed pages ([`crate::visual`]), for the receipt.
    pub evidence: Option<loki_receipt::schema::Evidence>,
    /// The review council's answers, when it was held ([`crate::council`]).
    pub council: Option<loki_council::Council>,
}

impl RunState<'_> {
    pub(crate) fn time_left(&self) -> Duration {
        self.soft_deadline.saturating_duration_since(Instant::now())
    }

    pub(crate) fn cost_so_far(&self) -> f64 {
        // Folded from +0.0: an empty f64 `sum` is -0.0, which would print as `$-0.00`.
        self.sessions
            .iter()
            .filter_map(|s| s.cost_usd)
            .fold(0.0, |a, b| a + b)
    }

    pub(crate) fn tokens_so_far(&self) -> u64 {
        self.sessions.iter().map(|s| s.usage.total()).sum()
    }

    /// The model box's wrapper for commands behind `fence` for `scope` (see
    /// [`crate::fence::Fence::policy`]), or none with the reason noted for NOT PROVEN.
    pub(crate) fn confinement(
        &mut self,
        fence: &crate::fence::Fence,
        scope: crate::fence::Scope<'_>,
    ) -> Vec<std::ffi::OsString> {
        use loki_process::confine::Network;
        let Some(exe) = &self.opts.confine_exe else {
            self.note_once("isolation: the agent's commands were not confined to the worktree (no confinement wrapper)");
            self.note_once("network: the agent's commands were not cut off from the network (no confinement wrapper)");
            return Vec::new();
        };
        if !loki_process::confine::available() {
            self.note_once("isolation: Landlock is not available on this kernel, so the agent's commands could open files outside the worktree by absolute path");
            self.note_once("network: the agent's commands were not cut off from the network (no box on this kernel)");
            return Vec::new();
        }
        let secrets = crate::fence::secret_paths(&self.opts.home, &self.opts.key_env);
        if let crate::fence::Scope::Checks(worktree) = scope {
            // The same box as `loki deep`'s (checks keep the network: they are the repo's own).
            return fence.checks_wrapper(&self.repo, worktree, &secrets, exe);
        }
        let cli = matches!(self.opts.backend, loki_agent::Backend::Cli(_));
        let network = if cli {
            Network::Allowed
        } else {
            self.opts.network
        };
        if cli
            && self.opts.network == Network::Denied
            && loki_process::confine::support().network()
                == loki_process::confine::NetworkMechanism::LandlockTcp
        {
            self.note_once("network: the CLI agent's commands could reach only its model's hosts, through loki's egress proxy (TCP; UDP such as DNS is not covered)");
        } else if cli {
            self.note_once(
                "network: the CLI agent talks to its own model, so its commands had network access",
            );
        } else if network == Network::Allowed {
            self.note_once(
                "network: the agent's commands had network access (agent.network = \"on\")",
            );
        }
        if network == Network::Denied {
            match loki_process::confine::network_cut(exe) {
                loki_process::confine::NetworkCut::Everything => {}
                loki_process::confine::NetworkCut::TcpOnly(why) => self.note_once(&format!(
                    "network: UDP (DNS included) from the agent's commands was not blocked, only TCP connect and bind: this machine gives no network namespace ({why})"
                )),
                loki_process::confine::NetworkCut::Nothing(why) => self.note_once(&format!(
                    "network: the agent's commands could not be cut off from the network ({why}; no Landlock ABI 4), so the box refused to run them"
                )),
            }
        }
        fence
            .policy(&self.repo, scope, &secrets, network)
            .wrapper(exe)
    }

    pub(crate) fn note_once(&mut self, note: &str) {
        if !self.notes.iter().any(|n| n == note) {
            self.notes.push(note.to_string());
        }
    }

    /// Stops the run's work (not commit and seal) when a cap is reached or SIGINT came.
    pub(crate) fn should_stop(&mut self, stage: Stage) -> Result<bool, EngineError> {
        if self.opts.cancel.is_cancelled() && !self.interrupted {
            self.interrupted = true;
            self.notes
                .push(format!("interrupted (Ctrl-C or SIGTERM) before {stage}"));
        }
        if self.provider_failure.is_some() {
            return Ok(true);
        }
        if !self.budget_hit {
            if self.time_left().is_zero() {
                self.hit_cap(CapKind::Time, stage.into())?;
            } else if let Some(max) = self.opts.max_cost_usd
                && self.cost_so_far() >= max
            {
                self.hit_cap(CapKind::Cost, stage.into())?;
            } else if let Some(max) = self.opts.max_tokens
                && self.tokens_so_far() >= max
            {
                self.hit_cap(CapKind::Tokens, stage.into())?;
            }
        }
        Ok(self.interrupted || self.budget_hit)
    }

    pub(crate) fn hit_cap(&mut self, which: CapKind, stage: CapAt) -> Result<(), EngineError> {
        if self.budget_hit {
            return Ok(());
        }
        self.budget_hit = true;
        let (note, hit) = match which {
            CapKind::Cost => {
                let max = self.opts.max_cost_usd.unwrap_or_default();
                (
                    format!(
                        "cost budget reached ({}) at {stage}",
                        loki_agent::cost::usd(max)
                    ),
                    CapHit::Cost {
                        max_cost_usd: max,
                        spent_usd: self.cost_so_far(),
                        stage,
                    },
                )
            }
            CapKind::Tokens => {
                let max = self.opts.max_tokens.unwrap_or_default();
                (
                    format!("token cap reached ({max} tokens) at {stage}"),
                    CapHit::Tokens {
                        max_tokens: max,
                        spent_tokens: self.tokens_so_far(),
                        stage,
                    },
                )
            }
            CapKind::Time => (
                format!("run cap reached ({}s) at {stage}", self.opts.cap.as_secs()),
                CapHit::Time {
                    cap_s: self.opts.cap.as_secs(),
                    stage,
                },
            ),
        };
        self.notes.push(note);
        self.log.append(&hit)?;
        Ok(())
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one session's whole setting, each distinct"
    )]
    pub(crate) fn session(
        &mut self,
        at: CapAt,
        system: &str,
        brief: &str,
        dir: &std::path::Path,
        fence: &crate::fence::Fence,
        wrapper: &[std::ffi::OsString],
        test_command: Option<String>,
    ) -> Result<SessionReport, EngineError> {
        // The session's label is where a cap it reports was hit (`wall`, `implement`, `fix-1`).
        let label = at.to_string();
        let label = label.as_str();
        let transcript = self.run_dir.join(loki_agent::transcript::TRANSCRIPT_FILE);
        let cost_left = self
            .opts
            .max_cost_usd
            .map(|m| (m - self.cost_so_far()).max(0.0));
        let tokens_left = self
            .opts
            .max_tokens
            .map(|m| m.saturating_sub(self.tokens_so_far()));
        let spec = SessionSpec {
            label,
            system,
            brief,
            dir,
            fence,
            transcript: &transcript,
            time_left: self.time_left(),
            cost_left,
            tokens_left,
            max_turns: self.opts.max_turns,
            prices: &self.opts.prices,
            cancel: &self.opts.cancel,
            wrapper,
            on_command: self.opts.on_command.clone(),
            test_command,
            network: self.opts.network,
        };
        let report = session::run(&self.opts.backend, &spec, &mut self.log)?;
        if let Some(f) = &report.failure {
            // The first failure is the reason; it leads NOT PROVEN so the receipt says so too.
            if self.provider_failure.is_none() {
                self.notes.insert(0, f.reason());
                self.provider_failure = Some(f.clone());
            }
        } else if let Some(e) = &report.error {
            self.notes.push(format!("agent session {label}: {e}"));
        }
        if !report.egress_refused.is_empty() {
            self.notes.push(format!(
                "network: the CLI agent's commands asked for {} (refused by loki's egress proxy: not the agent's model)",
                report.egress_refused.join(", ")
            ));
        }
        if report.interrupted {
            self.interrupted = true;
            self.notes.push(format!(
                "interrupted (Ctrl-C or SIGTERM) during the {label} session"
            ));
        }
        if report.budget_hit {
            let which = match report.end.as_str() {
                "cost_limit" => CapKind::Cost,
                "token_limit" => CapKind::Tokens,
                _ => CapKind::Time,
            };
            self.hit_cap(which, at)?;
        }
        self.sessions.push(report.clone());
        Ok(report)
    }
}

/// What a stage tells the loop.
pub(crate) enum Step {
    Done(String),
    /// Nothing to do here (the detail says why).
    Skipped(String),
}

/// Runs one stage with its events and timing.
pub(crate) fn stage(
    s: &mut RunState<'_>,
    name: Stage,
    f: impl FnOnce(&mut RunState<'_>) -> Result<Step, EngineError>,
) -> Result<bool, EngineError> {
    s.log.append(&StageStarted { stage: name })?;
    s.observer.progress(&Progress::StageStarted { stage: name });
    let t = Instant::now();
    let (notes_at, interrupted_before) = (s.notes.len(), s.interrupted);
    let result = f(s);
    let secs = t.elapsed().as_secs_f64();
    let cut = s.opts.cancel.is_cancelled() && !interrupted_before;
    let (state, detail, ok) = if cut {
        // A signal came while the stage ran: what it found since (a suite killed mid-run, a tree
        // half written) is not evidence, and the stage did not complete.
        s.notes.truncate(notes_at);
        s.interrupted = true;
        s.notes
            .push(format!("interrupted (Ctrl-C or SIGTERM) during {name}"));
        (StageState::Failed, "interrupted".to_string(), false)
    } else {
        match result {
            Ok(Step::Done(d)) => (StageState::Completed, d, true),
            Ok(Step::Skipped(d)) => (StageState::Skipped, d, true),
            Err(e) => {
                s.notes.push(format!("stage {name} failed: {e}"));
                (StageState::Failed, e.to_string(), false)
            }
        }
    };
    let end = StageEnd::new(name, detail.clone(), Some(secs));
    match state {
        StageState::Completed => s.log.append(&StageCompleted(end))?,
        StageState::Skipped => s.log.append(&StageSkipped(end))?,
        StageState::Failed => s.log.append(&StageFailed(end))?,
    }
    if state != StageState::Skipped && !cut {
        s.stage_times.push((name.as_str().to_owned(), secs));
    }
    s.observer.progress(&Progress::StageEnded {
        stage: name,
        state,
        seconds: secs,
        detail,
    });
    Ok(ok)
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
    let (run_id, run_dir) = (log.id().clone(), log.dir().to_path_buf());
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
    let mut s = RunState {
        opts,
        observer,
        repo: repo.clone(),
        run_id,
        run_dir,
        log,
        started,
        soft_deadline: started + soft,
        base: base.clone(),
        agent,
        intake: None,
        plan: Plan::default(),
        wall: Wall::default(),
        wall_base: loki_receipt::schema::BaseRun::default(),
        already_satisfied: false,
        sessions: Vec::new(),
        reverted: Vec::new(),
        verification: None,
        signatures: Vec::new(),
        budget_hit: false,
        spec_conflict: false,
        stalled: false,
        interrupted: false,
        notes: Vec::new(),
        stage_times: Vec::new(),
        head: None,
        checks_s: 0.0,
        wrapper: Vec::new(),
        check_wrapper: Vec::new(),
        provider_failure: None,
        contract,
        wall_base_results: Vec::new(),
        evidence: None,
        council: None,
    };
    work(&mut s)?;
    stage(&mut s, Stage::Commit, commit::stage)?;
    crate::visual::run(&mut s)?;
    match crate::council::applies(&s) {
        Ok(()) => {
            stage(&mut s, crate::council::STAGE, crate::council::stage)?;
        }
        Err(not_held) => {
            if not_held.said {
                s.notes.push(not_held.why.clone());
            }
            observer.progress(&Progress::Note(not_held.why));
        }
    }
    let sealed = crate::seal::seal(&mut s)?;
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
    let mut report = crate::seal::report(&s, sealed, exit.code());
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
fn contract_stage(s: &mut RunState<'_>) -> Result<Step, EngineError> {
    let Some((c, _)) = &s.contract else {
        return Ok(Step::Skipped("no contract".into()));
    };
    let n = c.criteria.len();
    let source = c.source.clone();
    if let Some((a, b)) = loki_contract::conflict(&c.criteria) {
        let question = loki_contract::conflict_question(&c.criteria[a], &c.criteria[b]);
        let detail = format!(
            "{} and {} contradict each other",
            c.criteria[a].id, c.criteria[b].id
        );
        s.spec_conflict = true;
        s.notes
            .push(format!("{}{question}", crate::ops::CONTRACT_CONFLICT));
        return Ok(Step::Done(detail));
    }
    Ok(Step::Done(format!("{n} acceptance criteria ({source})")))
}

/// Every stage before commit. Returns early (to commit and seal) when the run cannot go on.
fn work(s: &mut RunState<'_>) -> Result<(), EngineError> {
    if s.contract.is_some() {
        stage(s, Stage::Contract, contract_stage)?;
        if s.spec_conflict {
            return Ok(());
        }
    }
    if s.should_stop(Stage::Intake)? {
        return Ok(());
    }
    let cache = s.opts.home.join("cache");
    let ok = stage(s, Stage::Intake, |s| intake::stage(s, &cache))?;
    if !ok {
        return Ok(());
    }
    if s.opts.kind == RunKind::Build {
        if s.should_stop(Stage::Plan)? {
            return Ok(());
        }
        acceptance::plan_and_wall(s)?;
        if s.should_stop(Stage::Gate)? {
            return Ok(());
        }
        stage(s, Stage::Gate, gate::stage)?;
        if s.already_satisfied {
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
        if let Some(i) = &s.intake {
            s.plan = plan::run(&s.opts.task.text, i);
        }
    }
    if s.should_stop(Stage::Implement)? {
        return Ok(());
    }
    stage(s, Stage::Implement, implement::stage)?;
    let mut round = 0;
    loop {
        if s.should_stop(Stage::Verify)? {
            return Ok(());
        }
        stage(s, Stage::Verify, verify::stage)?;
        let Some(v) = &s.verification else {
            return Ok(());
        };
        if v.passed() || v.changed.is_empty() {
            return Ok(());
        }
        let sig = v.signature();
        let before = v.head_tree.clone();
        s.signatures.push(sig.clone());
        if s.signatures.iter().filter(|x| **x == sig).count() >= STALL_REPEATS {
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
        stage(s, Stage::Fix, |s| implement::fix_stage(s, round))?;
        // Verifying an unchanged tree again would only repeat the same failure.
        let after = s
            .intake
            .as_ref()
            .map(|i| loki_git::Git::new(&i.worktree).snapshot_worktree_cached())
            .transpose()?;
        if after.as_deref() == Some(before.as_str()) {
            s.notes.push(format!("fix round {round} changed nothing"));
            return Ok(());
        }
    }
}
