//! What the stages of a build run share, and the one harness every stage runs in.
//!
//! [`Run`] is the run's shared state, kept small and explicit: who the run is (its options,
//! observer, repository, id, directory and base), its event log, its clock (start and soft
//! deadline), the box its agent and checks run in (the wrappers, set once by intake), and its
//! account: the sessions it paid for, the notes that become NOT PROVEN, stage times, time spent in
//! checks, and the flags the outcome is derived from (a cap reached, interrupted, a failed model
//! call, a spec conflict, a stall). Nothing a stage *produces* lives here: each stage takes its
//! inputs as arguments and returns (or fills) its own output, which the driver
//! ([`crate::engine`]) keeps in [`Products`] and hands to the stages after it.
//!
//! [`stage`] runs one stage: `stage.started`, the body, then exactly one of
//! `stage.completed|skipped|failed` with its time. A signal that comes while the body runs makes
//! the stage failed (`interrupted`) and drops the notes it made, since what it found after the cut
//! is not evidence.
//!
//! # Invariants
//! - The caps are checked only here ([`Run::should_stop`], [`Run::hit_cap`]); `cap.hit` is
//!   written at most once per run.
//! - The first failed model call is the run's reason: it leads the notes and stops every stage
//!   but commit and seal.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_events::RunRecorder;
use loki_events::payload::{
    CapHit, StageCompleted, StageEnd, StageFailed, StageSkipped, StageStarted,
};
use loki_protocol::{CapAt, CapKind, Stage, StageState};

use loki_contract::wall::Wall;

use crate::EngineError;
use crate::gate::Gate;
use crate::intake::Intake;
use crate::options::{BuildOptions, Observer, Progress};
use crate::plan::Plan;
use crate::session::{self, SessionReport, SessionSpec};
use crate::verify::Verification;

/// A check is never given less than this, even near the cap (it would only time out).
pub(crate) const MIN_CHECK_TIME: Duration = Duration::from_secs(1);

/// What the stages produced, each stage's output kept by the driver and handed to the stages
/// after it (a stage never reaches back for another's output).
#[derive(Default)]
pub(crate) struct Products {
    /// The delivery contract the run is judged against and the sha256 of its copy in the run.
    pub contract: Option<(loki_contract::Contract, String)>,
    /// Intake: the worktree, its maps and its fence.
    pub intake: Option<Intake>,
    /// Plan (alongside the wall).
    pub plan: Plan,
    /// The wall: the sealed acceptance tests.
    pub wall: Wall,
    /// Gate: the wall's run on the unchanged base.
    pub gate: Gate,
    /// Wall files the agent edited and the run restored (implement, fix, commit).
    pub reverted: Vec<String>,
    /// The last verification.
    pub verification: Option<Verification>,
    /// Each verification's failure signature, in order (the fix loop's stall detector).
    pub signatures: Vec<String>,
    /// Commit: the commit that holds the verified tree.
    pub head: Option<String>,
    /// Screenshots of the changed pages ([`crate::visual`]), for the receipt.
    pub evidence: Option<loki_receipt::schema::Evidence>,
    /// The review council's answers, when it was held ([`crate::council`]).
    pub council: Option<loki_council::Council>,
}

/// The run's shared state (see the module doc).
pub(crate) struct Run<'a> {
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
    /// The model box's wrapper of the agent's commands (empty: none).
    pub wrapper: Vec<std::ffi::OsString>,
    /// The wrapper of the checks of the agent's code (empty: none).
    pub check_wrapper: Vec<std::ffi::OsString>,
    /// Every agent and review session, in order: the run's cost and tokens.
    pub sessions: Vec<SessionReport>,
    /// What the run noted as it went: each becomes a NOT PROVEN entry.
    pub notes: Vec<String>,
    /// Each timed stage and its seconds, in order.
    pub stage_times: Vec<(Stage, f64)>,
    /// Seconds spent running checks.
    pub checks_s: f64,
    pub budget_hit: bool,
    pub spec_conflict: bool,
    pub stalled: bool,
    pub interrupted: bool,
    /// The model call that failed and so ended the run's work.
    pub provider_failure: Option<loki_agent::ProviderFailure>,
}

impl<'a> Run<'a> {
    /// A run that has not started any stage.
    #[expect(
        clippy::too_many_arguments,
        reason = "the run's identity, each part distinct"
    )]
    pub(crate) fn new(
        opts: &'a BuildOptions,
        observer: &'a dyn Observer,
        repo: Repo,
        log: RunRecorder,
        base: String,
        agent: loki_instructions::AgentFiles,
        started: Instant,
        soft_deadline: Instant,
    ) -> Self {
        Run {
            opts,
            observer,
            repo,
            run_id: log.id().clone(),
            run_dir: log.dir().to_path_buf(),
            log,
            started,
            soft_deadline,
            base,
            agent,
            wrapper: Vec::new(),
            check_wrapper: Vec::new(),
            sessions: Vec::new(),
            notes: Vec::new(),
            stage_times: Vec::new(),
            checks_s: 0.0,
            budget_hit: false,
            spec_conflict: false,
            stalled: false,
            interrupted: false,
            provider_failure: None,
        }
    }
}

impl Run<'_> {
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
    s: &mut Run<'_>,
    name: Stage,
    f: impl FnOnce(&mut Run<'_>) -> Result<Step, EngineError>,
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
        s.stage_times.push((name, secs));
    }
    s.observer.progress(&Progress::StageEnded {
        stage: name,
        state,
        seconds: secs,
        detail,
    });
    Ok(ok)
}
