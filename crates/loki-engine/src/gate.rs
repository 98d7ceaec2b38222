//! The gate stage: the sealed wall run on the unchanged base, before any code is written. A wall
//! that passes there in full means the task is already satisfied (ALREADY_SATISFIED, and no
//! implement stage); its pass / fail / not-run counts go into the receipt as the wall's base run.
//! What the wall's run wrote in the worktree is put back afterwards.

use loki_contract::wall::{self, Wall};
use loki_events::payload::CheckResult as CheckEvent;
use loki_protocol::Stage;

use crate::EngineError;
use crate::intake::Intake;
use crate::run::{MIN_CHECK_TIME, Run, Step};
use crate::verify::{self, generated_note};

/// What the gate found: the wall's run on the unchanged base.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    /// Pass / fail / not-run counts, for the receipt's `wall.base_run`.
    pub base: loki_receipt::schema::BaseRun,
    /// Each wall file's run, for the contract's proof (filled as each runs, so a stage that
    /// fails half-way keeps what did run).
    pub results: Vec<loki_runner::CheckResult>,
    /// Every wall file passed on the base: the task is already satisfied.
    pub already_satisfied: bool,
}

/// The gate stage of a run (see the module doc): the wall `w` in the worktree `i`, into `out`.
pub(crate) fn stage(
    s: &mut Run<'_>,
    i: &Intake,
    w: &Wall,
    out: &mut Gate,
) -> Result<Step, EngineError> {
    if w.files.is_empty() {
        return Ok(Step::Skipped("no wall was sealed".into()));
    }
    wall::install(&i.worktree, w)?;
    let opts = loki_runner::RunOptions {
        timeout: s.opts.check_timeout.min(s.time_left()).max(MIN_CHECK_TIME),
        output_cap: loki_runner::exec::DEFAULT_LOG_CAP,
        log_dir: s.run_dir.join("checks").join("gate"),
        env: i.fence.check_env(&s.repo),
        rerun_failed: false,
        wrapper: s.check_wrapper.clone(),
        confine_exe: None,
        fence: None,
    };
    let git = loki_git::Git::new(&i.worktree);
    let before = git.snapshot_worktree_cached()?;
    let mut base = loki_receipt::schema::BaseRun::default();
    for f in &w.files {
        let r = loki_runner::run_check(&f.check, &opts)?;
        s.checks_s += r.duration_s;
        s.log
            .append(&CheckEvent::from(&r).in_stage(Stage::Gate, loki_protocol::CheckRole::Wall))?;
        out.results.push(r.clone());
        if verify::proves(&r) {
            base.pass += 1;
        } else if r.run.executed == 0 {
            base.not_run += 1;
        } else {
            base.fail += 1;
        }
    }
    // What the wall's run wrote (a lockfile, caches) is not the agent's work: put it back.
    let generated = git.reset_to_tree(&before)?;
    out.already_satisfied = usize::try_from(base.pass).is_ok_and(|p| p == w.files.len());
    out.base = base;
    Ok(Step::Done(format!(
        "wall on the unchanged base: {} pass, {} fail, {} not run{}{}",
        base.pass,
        base.fail,
        base.not_run,
        if out.already_satisfied {
            " ⇒ already satisfied"
        } else {
            ""
        },
        generated_note(&generated)
    )))
}
