//! Replays: a recorded run done again, from its base commit, with a given set of instruction
//! files, by the same kind of run and provider, in a throwaway copy of the repository.
//!
//! The copy is a `git clone --shared` of the user's repository in a temporary directory (it
//! borrows the objects; nothing done in it reaches the user's repository, whose `.loki/runs`
//! never sees a replay), checked out at the case's base, with the instruction files written to
//! its `.loki/agent/`. The build runs there through [`loki_engine::run_build`] exactly as a user's
//! run would (worktree, wall, checks, judge, box), and the copy is removed afterwards.
//!
//! A replay *passes* when the run ends VERIFIED or ALREADY_SATISFIED. One that cannot reach a
//! verdict (the copy cannot be made, a model call failed, the run was refused) is *unjudged*:
//! never counted as a pass, and a canary or guard with an unjudged replay does not accept.

use loki_core::layout::Repo;
use loki_engine::{BuildOptions, Silent, TaskInput};
use loki_instructions::AgentFile;

use crate::cases::Case;
use crate::cycles::Score;

/// Makes the options of one replay: a fresh backend each time (a scripted provider plays its
/// sessions once), the caller's caps, prices, box and signing key.
pub type MakeOptions<'a> = dyn Fn(TaskInput) -> Result<BuildOptions, String> + 'a;

/// One replay's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replayed {
    pub passed: bool,
    pub judged: bool,
    pub outcome: String,
    pub tokens: u64,
}

/// Replays `case` once with `files` as the instructions, within `max_tokens` when given (the
/// cycle's metered budget; a replay stopped by it is unjudged).
#[must_use]
pub fn replay_once(
    repo: &Repo,
    case: &Case,
    files: &[AgentFile],
    make: &MakeOptions<'_>,
    max_tokens: Option<u64>,
) -> Replayed {
    match try_replay(repo, case, files, make, max_tokens) {
        Ok(r) => r,
        Err(why) => Replayed {
            passed: false,
            judged: false,
            outcome: format!("error: {why}"),
            tokens: 0,
        },
    }
}

fn try_replay(
    repo: &Repo,
    case: &Case,
    files: &[AgentFile],
    make: &MakeOptions<'_>,
    max_tokens: Option<u64>,
) -> Result<Replayed, String> {
    let tmp = loki_core::scratch::Scratch::new("loki-replay-")
        .map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    let dest = tmp.path().join("repo");
    loki_git::Git::new(&repo.root)
        .clone_shared(&dest, &case.base)
        .map_err(|e| format!("cannot copy the repository at {}: {e}", case.base))?;
    let copy = Repo { root: dest.clone() };
    copy.ensure_loki_dir().map_err(|e| e.to_string())?;
    let agent = loki_instructions::agent_dir(&dest);
    for f in files {
        let path = agent.join(&f.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        loki_core::fs::write_atomic(&path, f.content.as_bytes()).map_err(|e| e.to_string())?;
    }
    let mut opts = make(TaskInput {
        text: case.task.clone(),
        source: "improve-replay".to_string(),
    })?;
    opts.kind = case.kind;
    if let Some(m) = max_tokens {
        opts.max_tokens = Some(opts.max_tokens.map_or(m, |o| o.min(m)));
    }
    // Nothing of a replay is kept: its copy goes with the temporary directory.
    opts.keep = false;
    let report = loki_engine::run_build(&copy, &opts, &Silent).map_err(|e| e.to_string())?;
    // Exit 2 (a model call failed, the run was refused) and 3 (a cap stopped it) say nothing
    // about the instructions.
    let judged = !matches!(report.exit_code, 2 | 3) && !report.interrupted;
    Ok(Replayed {
        passed: judged && report.outcome.is_success(),
        judged,
        outcome: report.reason.as_ref().map_or_else(
            || report.outcome.as_str().to_string(),
            |r| format!("{} ({r})", report.outcome.as_str()),
        ),
        tokens: report.tokens,
    })
}

/// Replays `case` `runs` times within `max_tokens` in all (when given); stops early when
/// `cancel` says so or the tokens are spent.
pub fn score(
    repo: &Repo,
    case: &Case,
    files: &[AgentFile],
    runs: u32,
    make: &MakeOptions<'_>,
    cancel: &loki_process::Cancel,
    max_tokens: Option<u64>,
) -> (Score, u64) {
    let mut s = Score {
        run: case.run.clone(),
        ..Score::default()
    };
    let mut tokens = 0;
    for _ in 0..runs {
        let left = max_tokens.map(|m| m.saturating_sub(tokens));
        if cancel.is_cancelled() || left == Some(0) {
            break;
        }
        let r = replay_once(repo, case, files, make, left);
        s.runs += 1;
        s.passed += u32::from(r.passed);
        s.unjudged += u32::from(!r.judged);
        s.outcomes.push(r.outcome);
        tokens += r.tokens;
    }
    (s, tokens)
}
