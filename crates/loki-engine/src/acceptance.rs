//! The plan ‖ wall stages: the wall author's session writes the acceptance tests while the plan is
//! drawn up on another thread. The author sees only the task and the file list, works in an
//! empty directory outside the repository (a repository of its own, whose git directory is
//! outside it: [`crate::fence::Fence::for_author`]), and is denied the repository itself; what it wrote is
//! accepted or discarded and sealed by hash ([`loki_contract::wall`]). The plan's time is the wall's: it
//! is logged, not added to the run's.

use std::time::Instant;

use loki_contract::wall::{self, Wall};
use loki_events::payload::{StageCompleted, StageEnd, StageStarted};
use loki_protocol::{Stage, StageState};

use crate::EngineError;
use crate::intake::Intake;
use crate::options::Progress;
use crate::plan::{self, Plan};
use crate::run::{Run, Step, stage};

/// Runs plan ‖ wall (see the module doc) in the intake's worktree `i`: the plan, and the wall
/// (empty when its stage failed; the failure is in the log and NOT PROVEN).
pub(crate) fn plan_and_wall(
    s: &mut Run<'_>,
    i: &Intake,
    contract: Option<&loki_contract::Contract>,
) -> Result<(Plan, Wall), EngineError> {
    // plan ‖ wall: the plan is computed on another thread while the wall author's session runs.
    let task = s.opts.task.text.clone();
    std::thread::scope(|scope| {
        let planner = scope.spawn(|| plan::run(&task, i));
        let t = Instant::now();
        s.log.append(&StageStarted { stage: Stage::Plan })?;
        let mut wall = Wall::default();
        let wall_ok = stage(s, Stage::Wall, |s| {
            let (step, w) = wall_stage(s, i, contract)?;
            wall = w;
            Ok(step)
        });
        let plan = planner.join().unwrap_or_default();
        let detail = format!(
            "{} file(s), {} impacted test file(s)",
            plan.files.len(),
            plan.impacted_tests.len()
        );
        // The plan ran alongside the wall: its time is the wall's, not added to the run's.
        s.log.append(&StageCompleted(StageEnd::new(
            Stage::Plan,
            detail.clone(),
            Some(t.elapsed().as_secs_f64()),
        )))?;
        s.observer.progress(&Progress::StageEnded {
            stage: Stage::Plan,
            state: StageState::Completed,
            seconds: t.elapsed().as_secs_f64(),
            detail,
        });
        wall_ok.map(|_| (plan, wall))
    })
}

/// The wall stage: the author's session in an empty directory, then what it wrote accepted or
/// discarded and sealed.
fn wall_stage(
    s: &mut Run<'_>,
    i: &Intake,
    contract: Option<&loki_contract::Contract>,
) -> Result<(Step, Wall), EngineError> {
    let author_dir = loki_core::scratch::Scratch::new("loki-wall-")
        .map_err(|e| EngineError::io("create a directory in", std::env::temp_dir(), e))?;
    let work = author_dir.path().join("work");
    std::fs::create_dir_all(&work).map_err(|e| EngineError::io("create", &work, e))?;
    let fence = crate::fence::Fence::for_author(author_dir.path(), &s.repo.root, &work)?;
    let mut brief = wall::brief(
        &s.opts.task.text,
        &i.map.file_list(),
        s.opts.backend.words(),
    );
    if let Some(c) = contract {
        brief.push('\n');
        brief.push_str(&loki_contract::proof::wall_rules(c));
    }
    // The author is denied the repository itself, not only given an empty directory.
    let wrapper = s.confinement(&fence, crate::fence::Scope::Author);
    let report = s.session(
        Stage::Wall.into(),
        "You write acceptance tests before the code exists.",
        &brief,
        &work,
        &fence,
        &wrapper,
        None,
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
    Ok((Step::Done(detail), w))
}
