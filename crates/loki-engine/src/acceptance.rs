//! The plan ‖ wall stages: the wall author's session writes the acceptance tests while the plan is
//! drawn up on another thread. The author sees only the task and the file list, works in an
//! empty directory outside the repository (a repository of its own, whose git directory is
//! outside it: [`crate::fence::Fence::for_author`]), and is denied the repository itself; what it wrote is
//! accepted or discarded and sealed by hash ([`loki_contract::wall`]). The plan's time is the wall's: it
//! is logged, not added to the run's.

use std::time::Instant;

use loki_contract::wall;
use loki_events::payload::{StageCompleted, StageEnd, StageStarted};
use loki_protocol::{Stage, StageState};

use crate::EngineError;
use crate::engine::{RunState, Step, stage};
use crate::intake::Intake;
use crate::options::Progress;

use crate::plan;

/// Runs plan ‖ wall (see the module doc).
pub(crate) fn plan_and_wall(s: &mut RunState<'_>) -> Result<(), EngineError> {
    let Some(i) = s.intake.take() else {
        return Ok(());
    };
    // plan ‖ wall: the plan is computed on another thread while the wall author's session runs.
    let task = s.opts.task.text.clone();
    let result = std::thread::scope(|scope| {
        let planner = scope.spawn(|| plan::run(&task, &i));
        let t = Instant::now();
        s.log.append(&StageStarted { stage: Stage::Plan })?;
        let wall_ok = stage(s, Stage::Wall, |s| wall_stage(s, &i));
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
        s.plan = plan;
        wall_ok
    });
    s.intake = Some(i);
    result.map(drop)
}

fn wall_stage(s: &mut RunState<'_>, i: &Intake) -> Result<Step, EngineError> {
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
    if let Some((c, _)) = &s.contract {
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
    s.wall = w;
    Ok(Step::Done(detail))
}
