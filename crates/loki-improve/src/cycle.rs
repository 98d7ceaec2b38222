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
use loki_core::instructions::{AgentFile, AgentFiles};
use loki_core::layout::Repo;
use loki_core::process::Cancel;
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
        let failed = proposal::failed_revisions(&self.paths, &records)?;
        let files =
            match proposal::gate(&proposal, &current, self.cfg.max_always_on_chars, &failed)? {
                Gate::Unchanged => {
                    return self.end(
                        Outcome::KeepBase,
                        format!(
                            "the editor kept the instructions as they are: {}",
                            one_line(&proposal.rationale)
                        ),
                    );
                }
                Gate::Reject(why) => {
                    let candidate =
                        loki_core::instructions::revision_of(&proposal.result(&current));
                    self.rec.candidate_revision = Some(candidate.clone());
                    self.audit(
                        self.entry(Action::Reject, "gate")
                            .detail(why.clone())
                            .revisions(&current.revision(), &candidate),
                    )?;
                    self.reflect(&proposal, &format!("the gate refused it: {why}"));
                    return self.end(
                        Outcome::Rejected,
                        format!("the gate refused the proposal: {why}"),
                    );
                }
                Gate::Pass { files, revision } => {
                    self.rec.candidate_revision = Some(revision);
                    files
                }
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

    /// An apply that a killed cycle left unguarded is guarded now, before anything else.
    /// A cycle killed while writing (step `applying`): when the files are at its candidate the
    /// apply landed whole and is guarded like any other; at neither its base nor its candidate, a
    /// partial write is undone back to the base (its kept revision).
    fn finish_interrupted_apply(&mut self, records: &[CycleRecord]) -> Result<(), ImproveError> {
        let Some(mut prev) = records
            .iter()
            .rev()
            .find(|r| r.step == APPLYING && r.applied_revision.is_none())
            .cloned()
        else {
            return Ok(());
        };
        let (Some(base), Some(candidate)) =
            (prev.base_revision.clone(), prev.candidate_revision.clone())
        else {
            return Ok(());
        };
        let now = self.current().map(|a| a.revision()).unwrap_or_default();
        if now == candidate {
            prev.applied_revision = Some(candidate);
            prev.guarded = Some(false);
        } else if now != base {
            let files = proposal::kept(&self.paths, &base)?;
            if let Applied::Done { from, to } = proposal::apply_over(&self.paths, &files)? {
                self.audit(
                    Entry::new(Action::Recover, "cycle", Some(&prev.id))
                        .detail(format!(
                            "the apply of {candidate} was interrupted mid-write; restored {to}"
                        ))
                        .revisions(&from, &to),
                )?;
            }
        }
        prev.step = "recovered".to_string();
        prev.notes.push(format!(
            "its interrupted apply was settled by cycle {}",
            self.rec.id
        ));
        prev.save(&self.paths)?;
        Ok(())
    }

    fn guard_left_over(&mut self, records: &[CycleRecord]) -> Result<(), ImproveError> {
        self.finish_interrupted_apply(records)?;
        let records = cycles::list(&self.paths)?;
        let Some(prev) = cycles::unguarded(&records).cloned() else {
            return Ok(());
        };
        let (Some(applied), Some(parent)) =
            (prev.applied_revision.clone(), prev.base_revision.clone())
        else {
            return Ok(());
        };
        let mut prev = prev;
        let now = self.current()?.revision();
        if now != applied {
            prev.guarded = Some(true);
            prev.notes.push(format!(
                "not guarded by {}: the files are at {now}, no longer at the applied {applied}",
                self.rec.id
            ));
            prev.save(&self.paths)?;
            return Ok(());
        }
        let corpus = cases::corpus(&self.paths)?;
        let files = match proposal::kept(&self.paths, &applied) {
            Ok(f) => f,
            Err(e) => {
                // Without the applied files the guard cannot replay them; say so, once.
                prev.guarded = Some(true);
                prev.notes.push(format!(
                    "could not be guarded by cycle {}: {e}",
                    self.rec.id
                ));
                prev.save(&self.paths)?;
                return Ok(());
            }
        };
        let guard = self.guard(&corpus, &files);
        self.rec.tokens += guard.tokens;
        prev.guarded = Some(true);
        if guard.passed {
            self.audit(
                Entry::new(Action::GuardPass, "guard", Some(&prev.id))
                    .detail(format!(
                        "{} (guarded by cycle {})",
                        guard.reason, self.rec.id
                    ))
                    .revisions(&parent, &applied),
            )?;
            prev.notes.push(format!(
                "guarded by cycle {}: {}",
                self.rec.id, guard.reason
            ));
        } else {
            self.audit(
                Entry::new(Action::GuardFail, "guard", Some(&prev.id))
                    .detail(guard.reason.clone())
                    .revisions(&parent, &applied),
            )?;
            let rolled = self.roll_back(&prev.id, &applied, &parent, &guard.reason)?;
            if rolled {
                prev.outcome = Outcome::RolledBack;
                prev.reason = format!("guard (run by cycle {}): {}", self.rec.id, guard.reason);
            }
        }
        prev.guard = Some(guard);
        prev.save(&self.paths)?;
        self.rec
            .notes
            .push(format!("guarded the apply left by cycle {}", prev.id));
        Ok(())
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

    /// `--protect` admissions (metered), then the corpus. `Err(why)` when the cap ran out.
    fn admit_protected(
        &mut self,
        files: &[AgentFile],
    ) -> Result<Result<Vec<Case>, String>, ImproveError> {
        for run in self.opts.protect.clone() {
            let mut case = cases::passing_run(&self.rt.repo, &run)?;
            let mut score = Score {
                run: run.clone(),
                ..Score::default()
            };
            for _ in 0..PROTECT_REPLAYS {
                if self.tokens_left() == 0 || self.rt.cancel.is_cancelled() {
                    break;
                }
                let r = replay::replay_once(
                    &self.rt.repo,
                    &case,
                    files,
                    self.rt.replay,
                    Some(self.tokens_left()),
                );
                self.rec.tokens += r.tokens;
                score.runs += 1;
                score.passed += u32::from(r.passed);
                score.outcomes.push(r.outcome);
                if !r.passed {
                    break;
                }
            }
            self.rec.checkpoint(&self.paths, "protect")?;
            if score.passed == PROTECT_REPLAYS {
                case.admitted_at = Some(loki_core::time::now_rfc3339());
                cases::save_protected(&self.paths, &case)?;
                self.audit(self.entry(Action::Protect, "user").detail(format!(
                    "{run} passed {PROTECT_REPLAYS} of {PROTECT_REPLAYS} replays"
                )))?;
            } else {
                self.audit(self.entry(Action::ProtectRefused, "user").detail(format!(
                    "{run} passed {} of {} replays ({}); a protected case must pass all {PROTECT_REPLAYS}",
                    score.passed,
                    score.runs,
                    score.outcomes.join(", ")
                )))?;
                self.rec
                    .notes
                    .push(format!("{run} was not admitted as a protected case"));
                if self.tokens_left() == 0 {
                    return Ok(Err(format!(
                        "admitting {run} reached the cycle's token cap ({})",
                        self.cap
                    )));
                }
            }
        }
        let corpus = cases::corpus(&self.paths)?;
        self.rec.protected = corpus.iter().map(|c| c.run.clone()).collect();
        Ok(Ok(corpus))
    }

    fn editor_box(&self) -> editor::EditorBox {
        let mut secrets = vec![self.rt.home.clone()];
        secrets.extend(self.rt.key_env.signing_key_file.clone());
        editor::EditorBox {
            repo: self.rt.repo.clone(),
            secrets,
            confine_exe: self.rt.confine_exe.clone(),
        }
    }

    fn editor_backend(&mut self) -> Result<&Backend, String> {
        if self.editor.is_none() {
            self.editor = Some((self.rt.editor)()?);
        }
        self.editor.as_ref().ok_or_else(|| "no editor".to_string())
    }

    fn propose(
        &mut self,
        training: &[Case],
        current: &AgentFiles,
        records: &[CycleRecord],
    ) -> Result<Proposal, Box<Result<CycleRecord, ImproveError>>> {
        let reflections: Vec<String> = records
            .iter()
            .rev()
            .filter_map(|r| r.reflection.clone())
            .take(REFLECTIONS_SHOWN)
            .collect();
        let brief = editor::brief(&self.rt.repo, training, current, &reflections);
        let timeout = Duration::from_secs(self.cfg.editor_timeout_s);
        let left = self.tokens_left();
        let boxed = self.editor_box();
        let answer = match self.editor_backend() {
            Ok(b) => editor::propose(b, &brief, timeout, left, &boxed).map_err(|o| o.0),
            Err(e) => Err(e),
        };
        match answer {
            Err(why) => Err(Box::new(
                self.end(Outcome::Outage, format!("editor: {why}")),
            )),
            Ok((answer, tokens)) => {
                self.rec.tokens += tokens;
                match answer {
                    EditorAnswer::Proposal(p) => {
                        self.rec.rationale = Some(p.rationale.clone());
                        Ok(p)
                    }
                    EditorAnswer::Malformed(why) => {
                        let r = self
                            .audit(self.entry(Action::Reject, "gate").detail(why.clone()))
                            .and_then(|()| {
                                self.reflect_text(
                                    "(not a proposal)",
                                    &format!("the gate refused it: {why}"),
                                );
                                self.end(
                                    Outcome::Rejected,
                                    format!("the gate refused the editor's answer: {why}"),
                                )
                            });
                        Err(Box::new(r))
                    }
                }
            }
        }
    }

    fn reflect(&mut self, p: &Proposal, what: &str) {
        let text = serde_json::to_string_pretty(p).unwrap_or_default();
        self.reflect_text(&text, what);
    }

    /// One reflection, audited; its failure is audited as `reflect-fail` and ends nothing.
    fn reflect_text(&mut self, proposal: &str, what: &str) {
        let timeout = Duration::from_secs(self.cfg.editor_timeout_s);
        let boxed = self.editor_box();
        let result = match self.editor_backend() {
            Ok(b) => editor::reflect(b, proposal, what, timeout, &boxed).map_err(|o| o.0),
            Err(e) => Err(e),
        };
        let entry = match result {
            Ok((text, tokens)) => {
                self.rec.tokens += tokens;
                self.rec.reflection = Some(text.clone());
                self.entry(Action::Reflect, "cycle").detail(one_line(&text))
            }
            Err(why) => self.entry(Action::ReflectFail, "cycle").detail(why),
        };
        // The cycle's outcome stands whether or not its reflection could be audited.
        let _ = self.audit(entry);
    }

    /// Replays with metering; `None` when the cap ran out mid-way.
    fn canary(
        &mut self,
        training: &[Case],
        corpus: &[Case],
        current: &[AgentFile],
        candidate: &[AgentFile],
    ) -> Result<Option<CanaryResult>, ImproveError> {
        let runs = self.cfg.canary.replay_runs;
        let mut res = CanaryResult::default();
        let jobs: Vec<(&Case, &[AgentFile], u8)> = training
            .iter()
            .map(|c| (c, current, 0))
            .chain(training.iter().map(|c| (c, candidate, 1)))
            .chain(corpus.iter().map(|c| (c, candidate, 2)))
            .collect();
        for (case, files, which) in jobs {
            if self.tokens_left() == 0 {
                self.rec.canary = Some(res);
                return Ok(None);
            }
            let (score, tokens) = replay::score(
                &self.rt.repo,
                case,
                files,
                runs,
                self.rt.replay,
                &self.rt.cancel,
                Some(self.tokens_left()),
            );
            self.rec.tokens += tokens;
            res.tokens += tokens;
            res.replays += score.runs;
            match which {
                0 => res.baseline.push(score),
                1 => res.candidate.push(score),
                _ => res.protected.push(score),
            }
            self.rec.checkpoint(&self.paths, "canary")?;
        }
        let sum = |s: &[Score]| s.iter().map(|x| x.passed).sum::<u32>();
        let unjudged: Vec<&str> = res
            .baseline
            .iter()
            .chain(&res.candidate)
            .chain(&res.protected)
            .filter(|s| s.unjudged > 0 || s.runs < runs)
            .map(|s| s.run.as_str())
            .collect();
        let regressed: Vec<String> = res
            .protected
            .iter()
            .filter(|s| s.passed < s.runs)
            .map(|s| format!("{} ({}/{})", s.run, s.passed, s.runs))
            .collect();
        let (base, cand) = (sum(&res.baseline), sum(&res.candidate));
        let total = runs * u32::try_from(training.len()).unwrap_or(u32::MAX);
        res.accepted = unjudged.is_empty() && regressed.is_empty() && cand > base;
        res.reason = if !unjudged.is_empty() {
            format!("replays of {} could not be judged", unjudged.join(", "))
        } else if !regressed.is_empty() {
            format!("protected case(s) regressed: {}", regressed.join(", "))
        } else if cand <= base {
            format!(
                "the failed runs passed {cand}/{total} replays with the candidate and {base}/{total} with the current instructions: no improvement"
            )
        } else {
            format!(
                "the failed runs passed {cand}/{total} replays with the candidate (current: {base}/{total}); {} protected case(s) held",
                res.protected.len()
            )
        };
        Ok(Some(res))
    }

    fn guard(&self, corpus: &[Case], files: &[AgentFile]) -> GuardResult {
        let runs = self.cfg.guard.runs;
        let mut g = GuardResult::default();
        for case in corpus {
            // The guard is never cut off by the budget or Ctrl-C: an edit is judged whole.
            let (score, tokens) = replay::score(
                &self.rt.repo,
                case,
                files,
                runs,
                self.rt.replay,
                &Cancel::new(),
                None,
            );
            g.tokens += tokens;
            g.protected.push(score);
        }
        let bad: Vec<String> = g
            .protected
            .iter()
            .filter(|s| s.passed < s.runs || s.unjudged > 0)
            .map(|s| {
                if s.unjudged > 0 {
                    format!("{} could not be judged ({})", s.run, s.outcomes.join(", "))
                } else {
                    format!("{} passed {}/{}", s.run, s.passed, s.runs)
                }
            })
            .collect();
        g.passed = bad.is_empty();
        g.reason = if corpus.is_empty() {
            "no protected case to replay".to_string()
        } else if g.passed {
            format!("{} protected case(s) passed every replay", corpus.len())
        } else {
            format!("regression: {}", bad.join("; "))
        };
        g
    }

    fn queue(
        &mut self,
        current: &AgentFiles,
        files: &[AgentFile],
    ) -> Result<CycleRecord, ImproveError> {
        let pending = Pending {
            id: self.rec.id.replacen("cyc_", "prop_", 1),
            cycle: self.rec.id.clone(),
            created_at: loki_core::time::now_rfc3339(),
            base_revision: current.revision(),
            candidate_revision: self.rec.candidate_revision.clone().unwrap_or_default(),
            rationale: self.rec.rationale.clone().unwrap_or_default(),
            files: files.to_vec(),
            canary: self.rec.canary.clone(),
        };
        proposal::save_pending(&self.paths, &pending)?;
        self.audit(
            self.entry(Action::Pending, "canary")
                .detail(format!(
                    "queued as {} for `loki improve approve`",
                    pending.id
                ))
                .revisions(&pending.base_revision, &pending.candidate_revision),
        )?;
        self.rec.pending = Some(pending.id.clone());
        self.end(
            Outcome::Pending,
            format!(
                "the canary accepted it; queued as {} (`loki improve approve {}`)",
                pending.id, pending.id
            ),
        )
    }

    fn apply_and_guard(
        mut self,
        current: &AgentFiles,
        files: &[AgentFile],
        corpus: &[Case],
        p: &Proposal,
    ) -> Result<CycleRecord, ImproveError> {
        let per_replay = self
            .rec
            .canary
            .as_ref()
            .filter(|c| c.replays > 0)
            .map_or(0, |c| c.tokens / u64::from(c.replays));
        let estimate = u64::try_from(corpus.len()).unwrap_or(u64::MAX)
            * u64::from(self.cfg.guard.runs)
            * per_replay;
        if estimate > self.tokens_left() {
            return self.end(
                Outcome::BudgetExceeded,
                format!(
                    "the guard would need about {estimate} tokens and {} are left of the cycle's cap; nothing was applied",
                    self.tokens_left()
                ),
            );
        }
        if let Some(r) = self.stop_here("the write")? {
            return Ok(r);
        }
        self.rt.hooks.at(Point::BeforeWrite);
        let base = current.revision();
        // A crash during the writes leaves this step: the next cycle finishes or undoes them,
        // from the two revisions kept first.
        proposal::keep(&self.paths, &current.files)?;
        proposal::keep(&self.paths, files)?;
        self.rec.checkpoint(&self.paths, APPLYING)?;
        self.rt.hooks.at(Point::Applying);
        let applied = proposal::apply(&self.paths, &base, files)?;
        let (from, to) = match applied {
            Applied::Stale { current: now } => {
                self.audit(
                    self.entry(Action::Stale, "canary")
                        .detail(format!(
                            "the files changed since the cycle read them (now {now})"
                        ))
                        .revisions(
                            &base,
                            self.rec.candidate_revision.as_deref().unwrap_or_default(),
                        ),
                )?;
                return self.end(
                    Outcome::Stale,
                    format!(
                        "the instructions were edited during the cycle ({} → {}): nothing applied",
                        short(&base),
                        short(&now)
                    ),
                );
            }
            Applied::Refused(why) => {
                return self.end(Outcome::Refused, format!("the apply was refused: {why}"));
            }
            Applied::Done { from, to } => (from, to),
        };
        self.audit(
            self.entry(Action::Apply, "canary")
                .detail(one_line(&p.rationale))
                .revisions(&from, &to),
        )?;
        self.rec.applied_revision = Some(to.clone());
        self.rec.guarded = Some(false);
        self.rec.checkpoint(&self.paths, "apply")?;
        self.rt.hooks.at(Point::Applied);
        let guard = self.guard(corpus, files);
        self.rec.tokens += guard.tokens;
        let passed = guard.passed;
        let reason = guard.reason.clone();
        self.rec.guard = Some(guard);
        self.rec.guarded = Some(true);
        self.rec.checkpoint(&self.paths, "guard")?;
        self.rt.hooks.at(Point::Guarded);
        if passed {
            self.audit(
                self.entry(Action::GuardPass, "guard")
                    .detail(reason.clone())
                    .revisions(&from, &to),
            )?;
            let why = format!("applied {} → {}; guard: {reason}", short(&from), short(&to));
            self.rec.outcome = Outcome::Applied;
            self.seal(&current.files, files);
            return self.end(Outcome::Applied, why);
        }
        self.audit(
            self.entry(Action::GuardFail, "guard")
                .detail(reason.clone())
                .revisions(&from, &to),
        )?;
        let id = self.rec.id.clone();
        if self.roll_back(&id, &to, &from, &reason)? {
            self.reflect(
                p,
                &format!("it was applied, then the guard found a regression: {reason}"),
            );
            self.rec.outcome = Outcome::RolledBack;
            self.seal(&current.files, files);
            return self.end(
                Outcome::RolledBack,
                format!("guard: {reason}; rolled back to {}", short(&from)),
            );
        }
        self.end(
            Outcome::Applied,
            format!("guard: {reason}; the rollback was refused, so the edit stays (see the audit)"),
        )
    }

    /// Restores `parent` over `applied` (compare-and-swap), audited. False when refused.
    fn roll_back(
        &mut self,
        cycle: &str,
        applied: &str,
        parent: &str,
        why: &str,
    ) -> Result<bool, ImproveError> {
        let files = proposal::kept(&self.paths, parent)?;
        match proposal::apply(&self.paths, applied, &files)? {
            Applied::Done { from, to } => {
                self.audit(
                    Entry::new(Action::Rollback, "guard", Some(cycle))
                        .detail(one_line(why))
                        .revisions(&from, &to),
                )?;
                Ok(true)
            }
            Applied::Stale { current } => {
                self.audit(
                    Entry::new(Action::RollbackRefused, "guard", Some(cycle))
                        .detail(format!(
                            "the files were edited after the apply (now {current}); the edit stays"
                        ))
                        .revisions(applied, parent),
                )?;
                Ok(false)
            }
            Applied::Refused(reason) => {
                self.audit(
                    Entry::new(Action::RollbackRefused, "guard", Some(cycle))
                        .detail(reason)
                        .revisions(applied, parent),
                )?;
                Ok(false)
            }
        }
    }

    fn seal(&mut self, old: &[AgentFile], new: &[AgentFile]) {
        let seconds = self.started.elapsed().as_secs_f64();
        match crate::receipt::seal(&self.paths, &self.rec, old, new, self.rt, seconds) {
            Ok(path) => self.rec.receipt = Some(path),
            Err(e) => self
                .rec
                .notes
                .push(format!("the receipt could not be sealed: {e}")),
        }
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
