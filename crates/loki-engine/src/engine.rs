//! The stage machine: one loop drives intake → plan ‖ wall → gate → implement → verify ⇄ fix →
//! commit → seal, emitting `stage.started` and `stage.completed|failed|skipped` for each.
//!
//! # Caps
//! The run cap is hard at `cap`; the *soft* cap is `cap − reserve_for(cap)`: no stage other than
//! commit and seal starts after it, agent sessions and checks are bounded by it, so commit and seal
//! always have time. Reaching it (or `max_cost_usd` of measured cost) is `cap.hit` and BUDGET_STOP.
//! SIGINT ([`BuildOptions::cancel`]) stops at the next safe point (between stages, or a session in
//! flight); the run still commits and seals, ends with `run.interrupted` and exit 130.
//!
//! # Never
//! Write the user's checkout (everything happens in the worktree), commit the wall or `.loki/`, or
//! skip the seal: every run that started ends with a receipt, whatever happened before.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use loki_agent::FinishStatus;
use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::run::{RunKind, RunStatus, RunStore};
use loki_events::{EventType, EventWriter};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::intake::{self, Intake};
use crate::options::{BuildOptions, Observer, Progress};
use crate::plan::{self, Plan};
use crate::session::{self, SessionReport, SessionSpec};
use crate::summary::BuildReport;
use crate::verify::{self, Verification};
use crate::wall::{self, Wall};
use crate::{EngineError, implement};

/// Fix rounds after the first verification.
pub const MAX_FIX_ROUNDS: u32 = 2;
/// The same failure signature this many times is a stall.
pub const STALL_REPEATS: usize = 3;
/// Least and most of the cap kept for commit and seal.
const MIN_RESERVE: Duration = Duration::from_secs(2);
const MAX_RESERVE: Duration = Duration::from_secs(60);
/// A check is never given less than this, even near the cap (it would only time out).
const MIN_CHECK_TIME: Duration = Duration::from_secs(1);
/// The agent's session label per stage (a scripted file names its sessions after these).
pub const WALL_SESSION: &str = "wall";
pub const IMPLEMENT_SESSION: &str = "implement";

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
    pub log: EventWriter,
    pub started: Instant,
    pub soft_deadline: Instant,
    pub base: String,
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
    /// The confinement wrapper of the agent's commands and the checks (empty: none).
    pub wrapper: Vec<std::ffi::OsString>,
}

impl RunState<'_> {
    fn time_left(&self) -> Duration {
        self.soft_deadline.saturating_duration_since(Instant::now())
    }

    fn cost_so_far(&self) -> f64 {
        self.sessions.iter().filter_map(|s| s.cost_usd).sum()
    }

    /// The confinement wrapper for commands behind `fence` (`worktree`: see
    /// [`crate::isolation::Fence::policy`]), or none with the reason noted for NOT PROVEN.
    fn confinement(
        &mut self,
        fence: &crate::isolation::Fence,
        worktree: Option<&std::path::Path>,
    ) -> Vec<std::ffi::OsString> {
        let Some(exe) = &self.opts.confine_exe else {
            self.note_once("isolation: the agent's commands were not confined to the worktree (no confinement wrapper)");
            return Vec::new();
        };
        if !loki_core::confine::available() {
            self.note_once("isolation: Landlock is not available on this kernel, so the agent's commands could open files outside the worktree by absolute path");
            return Vec::new();
        }
        // A write rule needs its directory to exist: the checks' cache may not yet.
        let _ = std::fs::create_dir_all(self.repo.loki_dir().join("cache"));
        let mut secrets = vec![self.opts.home.clone()];
        secrets.extend(self.opts.key_env.signing_key_file.clone());
        fence.policy(&self.repo, worktree, &secrets).wrapper(exe)
    }

    fn note_once(&mut self, note: &str) {
        if !self.notes.iter().any(|n| n == note) {
            self.notes.push(note.to_string());
        }
    }

    /// Stops the run's work (not commit and seal) when a cap is reached or SIGINT came.
    fn should_stop(&mut self, stage: &str) -> Result<bool, EngineError> {
        if self.opts.cancel.is_cancelled() && !self.interrupted {
            self.interrupted = true;
            self.notes
                .push(format!("interrupted (SIGINT) before {stage}"));
        }
        if !self.budget_hit {
            if self.time_left().is_zero() {
                self.hit_cap("time", stage)?;
            } else if let Some(max) = self.opts.max_cost_usd
                && self.cost_so_far() >= max
            {
                self.hit_cap("cost", stage)?;
            }
        }
        Ok(self.interrupted || self.budget_hit)
    }

    pub(crate) fn hit_cap(&mut self, which: &str, stage: &str) -> Result<(), EngineError> {
        if self.budget_hit {
            return Ok(());
        }
        self.budget_hit = true;
        let (note, data) = if which == "cost" {
            let max = self.opts.max_cost_usd.unwrap_or_default();
            (
                format!("cost budget reached (${max:.2}) at {stage}"),
                json!({"cap": "cost", "max_cost_usd": max, "spent_usd": self.cost_so_far(), "stage": stage}),
            )
        } else {
            (
                format!("run cap reached ({}s) at {stage}", self.opts.cap.as_secs()),
                json!({"cap": "time", "cap_s": self.opts.cap.as_secs(), "stage": stage}),
            )
        };
        self.notes.push(note);
        self.log.append(EventType::CapHit, None, data)?;
        Ok(())
    }

    fn session(
        &mut self,
        label: &str,
        system: &str,
        brief: &str,
        dir: &std::path::Path,
        fence: &crate::isolation::Fence,
        wrapper: &[std::ffi::OsString],
    ) -> Result<SessionReport, EngineError> {
        let transcript = self.run_dir.join(loki_agent::transcript::TRANSCRIPT_FILE);
        let cost_left = self
            .opts
            .max_cost_usd
            .map(|m| (m - self.cost_so_far()).max(0.0));
        let spec = SessionSpec {
            label,
            system,
            brief,
            dir,
            fence,
            transcript: &transcript,
            time_left: self.time_left(),
            cost_left,
            max_turns: self.opts.max_turns,
            prices: &self.opts.prices,
            cancel: &self.opts.cancel,
            wrapper,
        };
        let report = session::run(&self.opts.backend, &spec, &mut self.log)?;
        if let Some(e) = &report.error {
            self.notes.push(format!("agent session {label}: {e}"));
        }
        if report.interrupted {
            self.interrupted = true;
            self.notes
                .push(format!("interrupted (SIGINT) during the {label} session"));
        }
        if report.budget_hit {
            let which = if report.end == "cost_limit" {
                "cost"
            } else {
                "time"
            };
            self.hit_cap(which, label)?;
        }
        self.sessions.push(report.clone());
        Ok(report)
    }
}

/// What a stage tells the loop.
enum Step {
    Done(String),
    /// Nothing to do here (the detail says why).
    Skipped(String),
}

/// Runs one stage with its events and timing.
fn stage(
    s: &mut RunState<'_>,
    name: &'static str,
    f: impl FnOnce(&mut RunState<'_>) -> Result<Step, EngineError>,
) -> Result<bool, EngineError> {
    s.log
        .append(EventType::StageStarted, Some(name), json!({}))?;
    s.observer.progress(&Progress::StageStarted { stage: name });
    let t = Instant::now();
    let result = f(s);
    let secs = t.elapsed().as_secs_f64();
    let (kind, state, detail, ok) = match result {
        Ok(Step::Done(d)) => (EventType::StageCompleted, "completed", d, true),
        Ok(Step::Skipped(d)) => (EventType::StageSkipped, "skipped", d, true),
        Err(e) => {
            s.notes.push(format!("stage {name} failed: {e}"));
            (EventType::StageFailed, "failed", e.to_string(), false)
        }
    };
    s.log
        .append(kind, Some(name), json!({"detail": detail, "seconds": secs}))?;
    if state != "skipped" {
        s.stage_times.push((name.to_string(), secs));
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
    let base = intake::preflight(repo)?;
    let store = RunStore::new(repo.clone());
    let mut rec = store.start(
        opts.kind,
        Some(opts.task.text.clone()),
        opts.command.clone(),
    )?;
    let run_dir = store.dir(&rec.id);
    let mut log = EventWriter::open(&run_dir, rec.id.as_str())?;
    let task_sha = hex::encode(Sha256::digest(opts.task.text.as_bytes()));
    log.append(
        EventType::RunStarted,
        None,
        json!({"kind": opts.kind.as_str(), "task_sha256": task_sha, "task_source": opts.task.source,
               "provider": opts.provider_label, "cap_s": opts.cap.as_secs(), "max_cost_usd": opts.max_cost_usd,
               "base": base}),
    )?;
    let started = Instant::now();
    let soft = opts.cap.saturating_sub(reserve_for(opts.cap));
    let mut s = RunState {
        opts,
        observer,
        repo: repo.clone(),
        run_id: rec.id.clone(),
        run_dir: run_dir.clone(),
        log,
        started,
        soft_deadline: started + soft,
        base: base.clone(),
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
    };
    work(&mut s)?;
    stage(&mut s, "commit", commit_stage)?;
    let sealed = crate::seal::seal(&mut s)?;
    let status = if s.interrupted {
        RunStatus::Interrupted
    } else {
        RunStatus::Completed
    };
    let terminal = if s.interrupted {
        EventType::RunInterrupted
    } else {
        EventType::RunCompleted
    };
    let exit = BuildReport::exit(sealed.outcome, s.interrupted);
    s.log.append(
        terminal,
        None,
        json!({"outcome": sealed.outcome.as_str(), "exit_code": exit.code(), "receipt_sha256": sealed.receipt_sha256}),
    )?;
    store.finish(
        &mut rec,
        status,
        Some(sealed.outcome.as_str().to_string()),
        Some(i32::from(exit.code())),
    )?;
    Ok(crate::seal::report(&s, sealed, exit.code()))
}

/// Every stage before commit. Returns early (to commit and seal) when the run cannot go on.
fn work(s: &mut RunState<'_>) -> Result<(), EngineError> {
    let cache = s.opts.home.join("cache");
    let ok = stage(s, "intake", |s| {
        let i = intake::run(&s.repo, &s.run_id, &s.base, &cache)?;
        s.observer.progress(&Progress::Started {
            run_id: s.run_id.to_string(),
            branch: i.branch.clone(),
            worktree: i.worktree.clone(),
        });
        let detail = format!(
            "base {} · {} files ({}) · {} check(s){} · {} test file(s)",
            &s.base[..s.base.len().min(12)],
            i.map.files.len(),
            match i.map_source {
                loki_repomap::MapSource::Cached => "map cached".to_string(),
                loki_repomap::MapSource::Incremental { parsed } =>
                    format!("map updated, {parsed} file(s) parsed"),
                loki_repomap::MapSource::Built => "map built".to_string(),
            },
            i.tests.checks.len(),
            if i.checks_cached { ", cached" } else { "" },
            i.tests.test_files.len()
        );
        s.wrapper = s.confinement(&i.fence, Some(&i.worktree));
        let detail = if s.wrapper.is_empty() {
            detail
        } else {
            format!("{detail} · confined (Landlock)")
        };
        s.intake = Some(i);
        Ok(Step::Done(detail))
    })?;
    if !ok {
        return Ok(());
    }
    if s.opts.kind == RunKind::Build {
        if s.should_stop("plan")? {
            return Ok(());
        }
        plan_and_wall(s)?;
        if s.should_stop("gate")? {
            return Ok(());
        }
        stage(s, "gate", gate_stage)?;
        if s.already_satisfied {
            return Ok(());
        }
    } else {
        for name in ["plan", "wall", "gate"] {
            s.log.append(
                EventType::StageSkipped,
                Some(name),
                json!({"detail": "quick run: no plan, no wall"}),
            )?;
        }
        if let Some(i) = &s.intake {
            s.plan = plan::run(&s.opts.task.text, i);
        }
    }
    if s.should_stop("implement")? {
        return Ok(());
    }
    stage(s, "implement", implement_stage)?;
    let mut round = 0;
    loop {
        if s.should_stop("verify")? {
            return Ok(());
        }
        stage(s, "verify", verify_stage)?;
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
        if round == MAX_FIX_ROUNDS || s.spec_conflict || s.should_stop("fix")? {
            return Ok(());
        }
        round += 1;
        s.log.append(
            EventType::FixRound,
            None,
            json!({"round": round, "signature": sig}),
        )?;
        stage(s, "fix", |s| fix_stage(s, round))?;
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

fn plan_and_wall(s: &mut RunState<'_>) -> Result<(), EngineError> {
    let Some(i) = s.intake.take() else {
        return Ok(());
    };
    // plan ‖ wall: the plan is computed on another thread while the wall author's session runs.
    let task = s.opts.task.text.clone();
    let result = std::thread::scope(|scope| {
        let planner = scope.spawn(|| plan::run(&task, &i));
        let t = Instant::now();
        s.log
            .append(EventType::StageStarted, Some("plan"), json!({}))?;
        let wall_ok = stage(s, "wall", |s| wall_stage(s, &i));
        let plan = planner.join().unwrap_or_default();
        let detail = format!(
            "{} file(s), {} impacted test file(s)",
            plan.files.len(),
            plan.impacted_tests.len()
        );
        // The plan ran alongside the wall: its time is the wall's, not added to the run's.
        s.log.append(
            EventType::StageCompleted,
            Some("plan"),
            json!({"detail": detail, "seconds": t.elapsed().as_secs_f64()}),
        )?;
        s.observer.progress(&Progress::StageEnded {
            stage: "plan",
            state: "completed",
            seconds: t.elapsed().as_secs_f64(),
            detail,
        });
        s.plan = plan;
        wall_ok
    });
    s.intake = Some(i);
    result.map(drop)
}

fn wall_stage(s: &mut RunState<'_>, i: &Intake) -> Result<Step, EngineError> {
    let author_dir = tempfile::Builder::new()
        .prefix("loki-wall-")
        .tempdir()
        .map_err(|e| EngineError::io("create a directory in", std::env::temp_dir(), e))?;
    let work = author_dir.path().join("work");
    std::fs::create_dir_all(&work).map_err(|e| EngineError::io("create", &work, e))?;
    let fence = crate::isolation::Fence::without_git(author_dir.path())?;
    let brief = wall::brief(&s.opts.task.text, &i.map.file_list());
    // The author is denied the repository itself, not only given an empty directory.
    let wrapper = s.confinement(&fence, None);
    let report = s.session(
        WALL_SESSION,
        "You write acceptance tests before the code exists.",
        &brief,
        &work,
        &fence,
        &wrapper,
    )?;
    let w = wall::accept(&work, &i.worktree, &i.tests.checks);
    wall::seal(&s.run_dir, &w, &mut s.log)?;
    for (p, why) in &w.discarded {
        s.notes.push(format!("wall file discarded: {p} ({why})"));
    }
    let detail = format!(
        "{} sealed, {} discarded ({})",
        w.files.len(),
        w.discarded.len(),
        report.end
    );
    s.wall = w;
    Ok(Step::Done(detail))
}

fn gate_stage(s: &mut RunState<'_>) -> Result<Step, EngineError> {
    let Some(i) = &s.intake else {
        return Ok(Step::Skipped("no worktree".into()));
    };
    if s.wall.files.is_empty() {
        return Ok(Step::Skipped("no wall was sealed".into()));
    }
    wall::install(&i.worktree, &s.wall)?;
    let opts = loki_checks::RunOptions {
        timeout: s.opts.check_timeout.min(s.time_left()).max(MIN_CHECK_TIME),
        output_cap: loki_checks::exec::DEFAULT_LOG_CAP,
        log_dir: s.run_dir.join("checks").join("gate"),
        env: check_env(s, i),
        rerun_failed: false,
        wrapper: s.wrapper.clone(),
        confine_exe: None,
        fence: None,
    };
    let git = loki_git::Git::new(&i.worktree);
    let before = git.snapshot_worktree_cached()?;
    let mut base = loki_receipt::schema::BaseRun::default();
    for f in &s.wall.files {
        let r = loki_checks::run_check(&f.check, &opts)?;
        s.checks_s += r.duration_s;
        s.log.append(EventType::CheckResult, None, json!({"stage": "gate", "name": r.name, "result": r.result, "executed": r.executed, "failed": r.failed}))?;
        if verify::proves(&r) {
            base.pass += 1;
        } else if r.executed == 0 {
            base.not_run += 1;
        } else {
            base.fail += 1;
        }
    }
    // What the wall's run wrote (a lockfile, caches) is not the agent's work: put it back.
    let generated = git.reset_to_tree(&before)?;
    s.already_satisfied = usize::try_from(base.pass).is_ok_and(|p| p == s.wall.files.len());
    s.wall_base = base;
    Ok(Step::Done(format!(
        "wall on the unchanged base: {} pass, {} fail, {} not run{}{}",
        base.pass,
        base.fail,
        base.not_run,
        if s.already_satisfied {
            " ⇒ already satisfied"
        } else {
            ""
        },
        generated_note(&generated)
    )))
}

/// The environment of checks: the agent's fence plus a shared cargo target directory.
fn check_env(s: &RunState<'_>, i: &Intake) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let mut env = i.fence.env();
    if !env.iter().any(|(k, _)| k == "CARGO_TARGET_DIR") {
        let target = s.repo.loki_dir().join("cache").join("target");
        env.push(("CARGO_TARGET_DIR".into(), target.into_os_string()));
    }
    // Checks are judged on the worktree's own git state, not the agent's private one.
    env.retain(|(k, _)| k != "GIT_DIR" && k != "GIT_WORK_TREE");
    env
}

fn after_session(
    s: &mut RunState<'_>,
    report: &SessionReport,
    label: &str,
) -> Result<String, EngineError> {
    let Some(i) = &s.intake else {
        return Ok(String::new());
    };
    let restored = implement::restore_wall(&i.worktree, &s.wall, &mut s.log, label)?;
    for p in &restored {
        if !s.reverted.contains(p) {
            s.reverted.push(p.clone());
        }
    }
    match report.finish {
        Some(FinishStatus::SpecConflict) => {
            s.spec_conflict = true;
            s.notes.push(format!(
                "spec conflict reported by the agent: {}",
                report.detail
            ));
        }
        Some(FinishStatus::AlreadyDone) => s.notes.push(format!(
            "the agent reported already done: {}",
            report.detail
        )),
        Some(FinishStatus::Done) | None => {}
    }
    Ok(format!(
        "{} · {} wall edit(s) reverted",
        report.end,
        restored.len()
    ))
}

fn implement_stage(s: &mut RunState<'_>) -> Result<Step, EngineError> {
    let Some(i) = s.intake.take() else {
        return Ok(Step::Skipped("no worktree".into()));
    };
    let brief = implement::brief(&s.opts.task.text, &s.plan, &s.wall);
    let wrapper = s.wrapper.clone();
    let r = s.session(
        IMPLEMENT_SESSION,
        loki_agent::agent::DEFAULT_SYSTEM_PROMPT,
        &brief,
        &i.worktree,
        &i.fence,
        &wrapper,
    );
    s.intake = Some(i);
    let r = r?;
    after_session(s, &r, IMPLEMENT_SESSION).map(Step::Done)
}

fn fix_stage(s: &mut RunState<'_>, round: u32) -> Result<Step, EngineError> {
    let Some(i) = s.intake.take() else {
        return Ok(Step::Skipped("no worktree".into()));
    };
    let feedback = s
        .verification
        .as_ref()
        .map(Verification::feedback)
        .unwrap_or_default();
    let brief = implement::fix_brief(&s.opts.task.text, round, &feedback);
    let label = format!("fix-{round}");
    let wrapper = s.wrapper.clone();
    let r = s.session(
        &label,
        loki_agent::agent::DEFAULT_SYSTEM_PROMPT,
        &brief,
        &i.worktree,
        &i.fence,
        &wrapper,
    );
    s.intake = Some(i);
    let r = r?;
    after_session(s, &r, &label).map(Step::Done)
}

fn verify_stage(s: &mut RunState<'_>) -> Result<Step, EngineError> {
    let Some(i) = &s.intake else {
        return Ok(Step::Skipped("no worktree".into()));
    };
    let round = s.signatures.len();
    let input = verify::VerifyInput {
        worktree: &i.worktree,
        base: &s.base,
        checks: &i.tests.checks,
        wall: &s.wall,
        env: check_env(s, i),
        log_dir: s.run_dir.join("checks").join(format!("verify-{round}")),
        timeout: s.opts.check_timeout.min(s.time_left()).max(MIN_CHECK_TIME),
        deep: s.opts.deep,
        baseline_cache: s.opts.home.join("cache"),
        checkout: &s.repo.root,
        wrapper: s.wrapper.clone(),
        confine_exe: s.opts.confine_exe.clone(),
    };
    let v = verify::run(&input)?;
    for r in &v.results {
        s.checks_s += r.result.duration_s;
        s.log.append(
            EventType::CheckResult,
            None,
            json!({"stage": "verify", "role": r.role, "name": r.result.name, "result": r.result.result,
                   "executed": r.result.executed, "passed": r.result.passed, "failed": r.result.failed,
                   "skipped": r.result.skipped, "log_sha256": r.result.log_sha256}),
        )?;
    }
    for l in &v.lint {
        s.checks_s += l.duration_s;
        s.log.append(
            EventType::CheckResult,
            None,
            json!({"stage": "verify", "role": "lint", "name": l.name, "result": l.result,
                   "executed": l.files, "failed": l.failed_files(), "new_findings": l.new_findings.len(),
                   "log_sha256": l.log_sha256}),
        )?;
    }
    for f in &v.findings {
        s.log.append(
            EventType::IntegrityFinding,
            None,
            json!({"kind": f.kind.as_str(), "path": f.path, "detail": f.detail}),
        )?;
    }
    let detail = format!(
        "{} changed file(s) · {} check(s), {} proving · {} lint run(s), {} new lint finding(s) · {} finding(s){}",
        v.changed.len(),
        v.results.len(),
        v.results
            .iter()
            .filter(|r| verify::proves(&r.result))
            .count(),
        v.lint.len(),
        v.lint.iter().map(|l| l.new_findings.len()).sum::<usize>(),
        v.findings.len(),
        generated_note(&v.generated)
    );
    s.verification = Some(v);
    Ok(Step::Done(detail))
}

/// ` · N file(s) the checks wrote put back (a, b, …)`, or nothing.
fn generated_note(paths: &[String]) -> String {
    const SHOWN: usize = 3;
    if paths.is_empty() {
        return String::new();
    }
    let mut shown = paths
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > SHOWN {
        shown.push_str(", …");
    }
    format!(
        " · {} file(s) the checks wrote put back ({shown})",
        paths.len()
    )
}

fn commit_stage(s: &mut RunState<'_>) -> Result<Step, EngineError> {
    let Some(i) = &s.intake else {
        return Ok(Step::Skipped("no worktree".into()));
    };
    // The wall can have been edited after the last restore (SIGINT, a cap mid-session).
    let restored = crate::wall::restore(&i.worktree, &s.wall)?;
    for p in restored {
        if !s.reverted.contains(&p) {
            s.reverted.push(p);
        }
    }
    let mut excludes: Vec<String> = s.wall.files.iter().map(|f| f.path.clone()).collect();
    excludes.extend([
        ".loki".to_string(),
        "*__pycache__*".to_string(),
        "*.pytest_cache*".to_string(),
    ]);
    let excludes: Vec<&str> = excludes.iter().map(String::as_str).collect();
    let first_line = s
        .opts
        .task
        .text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("task")
        .trim();
    let title: String = first_line.chars().take(72).collect();
    let message = format!("loki: {title}\n\nLoki-Run: {}\n", s.run_id);
    let git = loki_git::Git::new(&i.worktree);
    // Commit exactly the tree the last verification judged, so that files a test run generated
    // afterwards (a fresh lockfile, caches) never ride along. Without a verification (a cap or
    // Ctrl-C before verify), commit the work tree as it is.
    let committed = match &s.verification {
        Some(v) => {
            let tree = git.tree_without(&v.head_tree, &excludes)?;
            let parent = git.rev_parse(&i.branch)?;
            if tree == git.tree_of(&parent)? {
                None
            } else if s.opts.commit {
                Some(git.commit_tree_on_branch(&tree, &parent, &i.branch, &message)?)
            } else {
                // --no-commit: no branch moves and the change stays uncommitted in the worktree,
                // but the receipt still needs a commit to name; this one is on no branch.
                Some(git.commit_tree_with_parent(&tree, &parent, &message)?)
            }
        }
        None if s.opts.commit => git.commit_all(&message, &excludes)?,
        None => None,
    };
    if !s.opts.commit {
        // The user looks at the worktree for the change: the wall is not part of it.
        for f in &s.wall.files {
            let _ = std::fs::remove_file(i.worktree.join(&f.path));
        }
        return Ok(match committed {
            Some(head) => {
                let detail = format!(
                    "--no-commit: {} names the verified tree on no branch; the change is uncommitted in {}",
                    &head[..head.len().min(12)],
                    i.worktree.display()
                );
                s.notes.push(format!(
                    "--no-commit: the verified state is commit {head}, on no branch (`loki apply` fast-forwards to it)"
                ));
                s.head = Some(head);
                Step::Done(detail)
            }
            None => Step::Skipped("--no-commit, and nothing was verified to commit".into()),
        });
    }
    match committed {
        Some(head) => {
            let detail = format!("{} on {}", &head[..head.len().min(12)], i.branch);
            s.head = Some(head);
            Ok(Step::Done(detail))
        }
        None => Ok(Step::Skipped("nothing to commit".into())),
    }
}
