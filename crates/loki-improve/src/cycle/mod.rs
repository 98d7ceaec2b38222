//! One cycle: [`heal_once`], shared by `loki improve`, `loki improve watch` and the tests.
//!
//! ```text
//! kill switch → lock → record (interrupted) → guard a left-over apply → cooldown → budgets
//!   → detect → capture (+ protect admissions) → kill switch → editor → gate → kill switch
//!   → canary → mode? ─ manual → pending
//!                    └ auto → guard cost → kill switch → apply (CAS) → guard → keep or roll back
//! ```
//!
//! Every step ends in an [`Outcome`] written to the cycle record; every action that changes
//! something is a line of the audit trail. The kill switch ([`crate::config::paused_by`]) is read
//! first and again before the editor, before the canary and just before the write; Ctrl-C (the
//! runtime's `cancel`) is honoured between steps. [`Hooks::at`] is told each check point (tests
//! flip switches and edit files there).
//!
//! # Budgets
//! The cycle's token cap is min(`max_tokens_per_day` − spent today, `max_tokens_per_cycle`,
//! `--max-tokens`). Admission replays and the canary are metered against it as they go (past
//! it: `budget-exceeded`, nothing applied); the editor may spend what is left. Before an
//! automatic apply the guard's cost is estimated (protected cases × `guard.runs` × the canary's
//! tokens per replay) and the apply is skipped when the rest of the cap cannot pay it. The guard
//! itself is never cut off (an edit is never left half-judged), but its tokens count.
//!
//! # Fail closed
//! A guard that finds a regression, cannot judge a replay, or fails, rolls the edit back to the
//! cycle's own parent revision by compare-and-swap (never to an older baseline that would drop
//! earlier kept edits); a rollback that cannot be done keeps the edit and says so.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use loki_agent::Backend;
use loki_core::layout::Repo;
use loki_instructions::{AgentFile, AgentFiles};
use loki_process::Cancel;
use loki_receipt::KeyEnv;

use crate::ImproveError;
use crate::audit::{self, Action, Entry};
use crate::cases::{self, Case, PROTECT_REPLAYS};
use crate::config::{ImproveConfig, Mode, Paths, Trigger, paused_by};
use crate::cycles::{self, CanaryResult, CycleRecord, GuardResult, Outcome, Score};
use crate::editor::{self, EditorAnswer};
use crate::lock::{self, Acquired};
use crate::proposal::{self, Applied, Gate, Pending, Proposal};
use crate::replay::{self, MakeOptions};

mod apply;
mod editing;
mod recover;
mod replays;

/// The step recorded just before the writes of an apply.
const APPLYING: &str = "applying";
/// Reflections shown to the editor: the newest few.
const REFLECTIONS_SHOWN: usize = 3;

/// The check points of a cycle, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    Locked,
    Captured,
    BeforeEditor,
    Proposed,
    BeforeCanary,
    CanaryDone,
    BeforeWrite,
    /// Recorded as `applying`, the files not yet written.
    Applying,
    Applied,
    Guarded,
}

/// Told each check point.
pub trait Hooks {
    fn at(&self, point: Point) {
        let _ = point;
    }
}

/// Hooks that do nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHooks;

impl Hooks for NoHooks {}

/// What a cycle needs from its caller.
pub struct Runtime<'a> {
    pub repo: Repo,
    /// `$LOKI_HOME` (the signing key).
    pub home: PathBuf,
    pub key_env: KeyEnv,
    /// The editor's model: built when the cycle reaches the editor; `Err` is an outage.
    pub editor: &'a dyn Fn() -> Result<Backend, String>,
    /// The provider's name, for the receipt.
    pub provider: String,
    /// Options of each replay (a fresh backend each time).
    pub replay: &'a MakeOptions<'a>,
    pub cancel: Cancel,
    pub hooks: &'a dyn Hooks,
    /// The `loki` binary whose `__confine` puts a CLI-agent editor in the model box (`None`: not
    /// boxed).
    pub confine_exe: Option<PathBuf>,
}

impl std::fmt::Debug for Runtime<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("repo", &self.repo)
            .field("home", &self.home)
            .field("provider", &self.provider)
            .finish_non_exhaustive()
    }
}

/// What the caller asks of one cycle.
#[derive(Debug, Clone)]
pub struct CycleOptions {
    pub trigger: Trigger,
    /// Overrides `mode` of `improve.toml`.
    pub mode: Option<Mode>,
    /// Print the card, write nothing.
    pub dry_run: bool,
    /// Runs to admit as protected cases.
    pub protect: Vec<String>,
    pub max_tokens: Option<u64>,
}

impl Default for CycleOptions {
    fn default() -> Self {
        CycleOptions {
            trigger: Trigger::Manual,
            mode: None,
            dry_run: false,
            protect: Vec::new(),
            max_tokens: None,
        }
    }
}

/// Runs one cycle and returns its record (also written to `.loki/improve/cycles/`, unless a dry
/// run). Errors are reserved for what stops the cycle from reaching an outcome at all (a settings
/// file that does not parse, an unreadable record).
pub fn heal_once(rt: &Runtime<'_>, opts: &CycleOptions) -> Result<CycleRecord, ImproveError> {
    let paths = Paths::new(&rt.repo);
    let cfg = paths.load_config()?;
    let mode = opts.mode.unwrap_or(cfg.mode);
    let mut c = Cycle {
        rt,
        opts,
        paths: paths.clone(),
        rec: CycleRecord::new(&paths, opts.trigger, mode, opts.dry_run),
        cfg,
        started: Instant::now(),
        cap: 0,
        editor: None,
    };
    if let Some(by) = paused_by(&paths) {
        return c.end(Outcome::Paused, format!("paused: {by}"));
    }
    if opts.dry_run {
        return c.dry_run();
    }
    let _lock = match lock::acquire(&paths, &c.rec.id)? {
        Acquired::Held(l) => l,
        Acquired::Busy { holder } => {
            return c.end(
                Outcome::Busy,
                format!("another cycle is running on this repository ({holder})"),
            );
        }
    };
    c.rec.checkpoint(&paths, "locked")?;
    rt.hooks.at(Point::Locked);
    c.run()
}

struct Cycle<'r, 'a> {
    rt: &'r Runtime<'a>,
    opts: &'r CycleOptions,
    paths: Paths,
    rec: CycleRecord,
    cfg: ImproveConfig,
    started: Instant,
    /// The cycle's token cap.
    cap: u64,
    /// The editor's backend, built once per cycle (a scripted one plays each session once).
    editor: Option<Backend>,
}

impl Cycle<'_, '_> {
    fn end(&mut self, outcome: Outcome, reason: String) -> Result<CycleRecord, ImproveError> {
        if self.opts.dry_run {
            self.rec.outcome = outcome;
            self.rec.reason = reason;
            return Ok(self.rec.clone());
        }
        self.paths.ensure()?;
        self.rec.end(&self.paths, outcome, reason)?;
        Ok(self.rec.clone())
    }

    /// `Some(outcome)` when the kill switch is on or Ctrl-C came: the cycle stops here.
    fn stop_here(&mut self, before: &str) -> Result<Option<CycleRecord>, ImproveError> {
        if let Some(by) = paused_by(&self.paths) {
            return self
                .end(Outcome::Paused, format!("paused before {before}: {by}"))
                .map(Some);
        }
        if self.rt.cancel.is_cancelled() {
            return self
                .end(
                    Outcome::Interrupted,
                    format!("stopped (Ctrl-C or SIGTERM) before {before}"),
                )
                .map(Some);
        }
        Ok(None)
    }

    fn tokens_left(&self) -> u64 {
        self.cap.saturating_sub(self.rec.tokens)
    }

    fn audit(&self, entry: Entry) -> Result<(), ImproveError> {
        audit::append(&self.paths, entry).map(drop)
    }

    fn entry(&self, action: Action, actor: &str) -> Entry {
        Entry::new(action, actor, Some(&self.rec.id))
    }

    fn current(&self) -> Result<AgentFiles, ImproveError> {
        Ok(AgentFiles::load(&self.paths.agent())?)
    }

    fn run(mut self) -> Result<CycleRecord, ImproveError> {
        let records = cycles::list(&self.paths)?;
        self.guard_left_over(&records)?;
        if let Some(o) = self.cooldown()? {
            return self.end(Outcome::Cooldown, o);
        }
        if let Some(o) = self.budgets(&records)? {
            return self.end(Outcome::BudgetExceeded, o);
        }
        let current = self.current()?;
        let (training, outcome) = self.capture(&records, &current)?;
        if let Some((o, why)) = outcome {
            return self.end(o, why);
        }
        self.rt.hooks.at(Point::Captured);
        let corpus = match self.admit_protected(&current.files)? {
            Ok(c) => c,
            Err(why) => return self.end(Outcome::BudgetExceeded, why),
        };
        if let Some(r) = self.stop_here("the editor")? {
            return Ok(r);
        }
        self.rt.hooks.at(Point::BeforeEditor);
        if self.tokens_left() == 0 {
            return self.end(
                Outcome::BudgetExceeded,
                format!(
                    "the cycle's token cap ({}) is spent before the editor",
                    self.cap
                ),
            );
        }
        self.rec.editor_started = true;
        self.rec.checkpoint(&self.paths, "editor")?;
        let proposal = match self.propose(&training, &current, &records) {
            Ok(p) => p,
            Err(done) => return *done,
        };
        self.rt.hooks.at(Point::Proposed);
        let files = match self.gate_proposal(&proposal, &current, &records)? {
            Ok(files) => files,
            Err(ended) => return Ok(ended),
        };
        self.rec.checkpoint(&self.paths, "gate")?;
        if let Some(r) = self.stop_here("the canary")? {
            return Ok(r);
        }
        self.rt.hooks.at(Point::BeforeCanary);
        let Some(canary) = self.canary(&training, &corpus, &current.files, &files)? else {
            return self.end(
                Outcome::BudgetExceeded,
                format!(
                    "the canary's replays reached the cycle's token cap ({}); nothing was applied",
                    self.cap
                ),
            );
        };
        self.audit(
            self.entry(Action::CanaryEnd, "canary")
                .detail(canary.reason.clone())
                .revisions(
                    &current.revision(),
                    self.rec.candidate_revision.as_deref().unwrap_or_default(),
                ),
        )?;
        let accepted = canary.accepted;
        let reason = canary.reason.clone();
        self.rec.canary = Some(canary);
        self.rec.checkpoint(&self.paths, "canary")?;
        self.rt.hooks.at(Point::CanaryDone);
        if !accepted {
            self.reflect(
                &proposal,
                &format!("the canary did not accept it: {reason}"),
            );
            return self.end(Outcome::CanaryFailed, format!("canary: {reason}"));
        }
        if self.mode_now()? == Mode::Manual {
            return self.queue(&current, &files);
        }
        self.apply_and_guard(&current, &files, &corpus, &proposal)
    }

    /// The editor's proposal through the gate: its files when it passes; the ended cycle when
    /// the editor kept the instructions or the gate refused (reflected on).
    fn gate_proposal(
        &mut self,
        proposal: &Proposal,
        current: &AgentFiles,
        records: &[CycleRecord],
    ) -> Result<Result<Vec<AgentFile>, CycleRecord>, ImproveError> {
        let failed = proposal::failed_revisions(&self.paths, records)?;
        match proposal::gate(proposal, current, self.cfg.max_always_on_chars, &failed)? {
            Gate::Unchanged => self
                .end(
                    Outcome::KeepBase,
                    format!(
                        "the editor kept the instructions as they are: {}",
                        one_line(&proposal.rationale)
                    ),
                )
                .map(Err),
            Gate::Reject(why) => {
                let candidate = loki_instructions::revision_of(&proposal.result(current));
                self.rec.candidate_revision = Some(candidate.clone());
                self.audit(
                    self.entry(Action::Reject, "gate")
                        .detail(why.clone())
                        .revisions(&current.revision(), &candidate),
                )?;
                self.reflect(proposal, &format!("the gate refused it: {why}"));
                self.end(
                    Outcome::Rejected,
                    format!("the gate refused the proposal: {why}"),
                )
                .map(Err)
            }
            Gate::Pass { files, revision } => {
                self.rec.candidate_revision = Some(revision);
                Ok(Ok(files))
            }
        }
    }

    /// The mode in force now: a switch of `improve.toml` to manual mid-cycle queues.
    fn mode_now(&self) -> Result<Mode, ImproveError> {
        let now = self.paths.load_config()?.mode;
        Ok(if now == Mode::Manual && self.cfg.mode != Mode::Manual {
            Mode::Manual
        } else {
            self.rec.mode
        })
    }

    fn dry_run(mut self) -> Result<CycleRecord, ImproveError> {
        let records = cycles::list(&self.paths)?;
        if let Some(o) = self.cooldown()? {
            return self.end(Outcome::Cooldown, o);
        }
        if let Some(o) = self.budgets(&records)? {
            return self.end(Outcome::BudgetExceeded, o);
        }
        let current = self.current()?;
        let (training, outcome) = self.capture(&records, &current)?;
        if let Some((o, why)) = outcome {
            return self.end(o, why);
        }
        self.rec.protected = cases::corpus(&self.paths)?
            .into_iter()
            .map(|c| c.run)
            .collect();
        self.end(
            Outcome::Idle,
            format!(
                "dry run: the editor would learn from {} failed run(s) and the canary replay {} protected case(s); nothing was written",
                training.len(),
                self.rec.protected.len()
            ),
        )
    }

    fn cooldown(&self) -> Result<Option<String>, ImproveError> {
        let hours = self.cfg.cooldown_hours;
        let last = audit::read(&self.paths)?
            .into_iter()
            .rev()
            .find(|l| l.entry.action == Action::Rollback);
        let Some(last) = last else { return Ok(None) };
        let Ok(at) = chrono::DateTime::parse_from_rfc3339(&last.ts) else {
            return Ok(None);
        };
        #[expect(
            clippy::cast_possible_truncation,
            reason = "hours of cooldown fit easily"
        )]
        let until = at.with_timezone(&chrono::Utc)
            + chrono::Duration::milliseconds((hours * 3_600_000.0) as i64);
        Ok((chrono::Utc::now() < until).then(|| {
            format!(
                "a rollback at {} starts a cooldown of {hours}h (cooldown_hours), until {}",
                last.ts,
                loki_core::time::format_ts(until)
            )
        }))
    }

    fn budgets(&mut self, records: &[CycleRecord]) -> Result<Option<String>, ImproveError> {
        let (cycles_today, tokens_today) = cycles::usage_today(records);
        let tokens_today = tokens_today + self.rec.tokens;
        if cycles_today >= self.cfg.max_cycles_per_day {
            return Ok(Some(format!(
                "{cycles_today} cycle(s) today reached the editor (max_cycles_per_day = {})",
                self.cfg.max_cycles_per_day
            )));
        }
        if tokens_today >= self.cfg.max_tokens_per_day {
            return Ok(Some(format!(
                "{tokens_today} tokens spent today (max_tokens_per_day = {})",
                self.cfg.max_tokens_per_day
            )));
        }
        if self.rec.mode == Mode::Auto {
            let today = cycles::today();
            let applies = audit::read(&self.paths)?
                .iter()
                .filter(|l| {
                    l.ts.starts_with(&today)
                        && l.entry.action == Action::Apply
                        && matches!(l.entry.actor.as_str(), "gate" | "canary")
                })
                .count();
            if applies >= self.cfg.max_auto_applies_per_day as usize {
                return Ok(Some(format!(
                    "{applies} automatic apply(s) today (max_auto_applies_per_day = {})",
                    self.cfg.max_auto_applies_per_day
                )));
            }
        }
        let mut cap = self
            .cfg
            .max_tokens_per_day
            .saturating_sub(tokens_today)
            .min(self.cfg.max_tokens_per_cycle);
        if let Some(m) = self.opts.max_tokens {
            cap = cap.min(m);
        }
        // What the guard of a left-over apply spent is this cycle's already.
        self.cap = cap.saturating_add(self.rec.tokens);
        Ok(None)
    }

    #[expect(
        clippy::type_complexity,
        reason = "the cases, or the outcome that ends the cycle"
    )]
    fn capture(
        &mut self,
        records: &[CycleRecord],
        current: &AgentFiles,
    ) -> Result<(Vec<Case>, Option<(Outcome, String)>), ImproveError> {
        let revision = current.revision();
        self.rec.base_revision = Some(revision.clone());
        let since = match self.opts.trigger {
            Trigger::Failures => cycles::last_capture(records).map(str::to_string),
            Trigger::Score | Trigger::Manual => None,
        };
        let failures = cases::failed_runs(&self.rt.repo, &revision, since.as_deref())?;
        if failures.is_empty() {
            return Ok((
                Vec::new(),
                Some((
                    Outcome::NoFailures,
                    format!(
                        "no failed run under the current instructions ({}){}",
                        short(&revision),
                        if since.is_some() {
                            " since the last cycle"
                        } else {
                            ""
                        }
                    ),
                )),
            ));
        }
        if self.opts.trigger == Trigger::Failures
            && failures.len() < self.cfg.min_new_failures as usize
        {
            return Ok((
                Vec::new(),
                Some((
                    Outcome::Idle,
                    format!(
                        "{} new failed run(s) under the current instructions, below min_new_failures = {}",
                        failures.len(),
                        self.cfg.min_new_failures
                    ),
                )),
            ));
        }
        let recurring = self.opts.trigger != Trigger::Score && self.cfg.recurring(self.rec.mode);
        let training =
            cases::select_training(&failures, recurring, self.cfg.max_training_cases as usize);
        if training.is_empty() {
            return Ok((
                Vec::new(),
                Some((
                    Outcome::NoFailures,
                    format!(
                        "{} failed run(s), but no failure recurs (require_recurring)",
                        failures.len()
                    ),
                )),
            ));
        }
        self.rec.captured = true;
        self.rec.training = training.iter().map(|c| c.run.clone()).collect();
        self.rec.checkpoint(&self.paths, "capture")?;
        Ok((training, None))
    }
}

fn short(revision: &str) -> String {
    revision
        .trim_start_matches("sha256:")
        .chars()
        .take(12)
        .collect()
}

fn one_line(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() > 300 {
        line.chars().take(299).collect::<String>() + "…"
    } else {
        line
    }
}
