//! The commit stage: one commit on the run's branch with a `Loki-Run: <id>` trailer, holding
//! exactly the tree the last verification judged (files a later test run generated never ride
//! along), never the wall, `.loki/` or Python caches. Wall edits made after the last restore
//! (SIGINT, a cap mid-session) are reverted first. Without a verification (a cap or Ctrl-C before
//! verify) the work tree is committed as it is. With `--no-commit` no branch moves: the verified
//! tree gets a commit on no branch for the receipt to name, and the wall is removed from the
//! worktree, where the change stays uncommitted. Runs after every run, whatever happened before.

use crate::EngineError;
use crate::run::{Products, Run, Step};

/// The commit stage of a run (see the module doc): reads the intake, wall and last
/// verification of `p`; adds to its reverted wall edits and sets its head.
pub(crate) fn stage(s: &mut Run<'_>, p: &mut Products) -> Result<Step, EngineError> {
    let Some(i) = &p.intake else {
        return Ok(Step::Skipped("no worktree".into()));
    };
    // The checks ran the agent's code in the worktree too.
    crate::intake::restore_git_link(s, i)?;
    // The wall can have been edited after the last restore (SIGINT, a cap mid-session).
    let restored = loki_contract::wall::restore(&i.worktree, &p.wall)?;
    for path in restored {
        if !p.reverted.contains(&path) {
            p.reverted.push(path);
        }
    }
    let mut excludes: Vec<String> = p.wall.files.iter().map(|f| f.path.clone()).collect();
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
    let committed = match &p.verification {
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
        for f in &p.wall.files {
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
                p.head = Some(head);
                Step::Done(detail)
            }
            None => Step::Skipped("--no-commit, and nothing was verified to commit".into()),
        });
    }
    match committed {
        Some(head) => {
            let detail = format!("{} on {}", &head[..head.len().min(12)], i.branch);
            p.head = Some(head);
            Ok(Step::Done(detail))
        }
        None => Ok(Step::Skipped("nothing to commit".into())),
    }
}
