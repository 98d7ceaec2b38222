//! Fetching a pull request's target branch in a CI checkout and finding where the request
//! forked from it.
//!
//! A CI runner's checkout is often shallow (GitHub's `actions/checkout` fetches one commit by
//! default): the target branch is not there, and the merge base cannot be found above the
//! shallow boundary. [`Git::fetch_branch`] fetches the branch into
//! `refs/remotes/<remote>/<branch>` and, in a shallow checkout, the rest of the history
//! (`--unshallow`), so [`Git::merge_base`] can answer. The fetch runs as the user's own git
//! (their credentials: the runner's configured auth header, a `CI_JOB_TOKEN` URL), with a longer
//! time limit than loki's own reads.

use std::time::Duration;

use crate::{Git, GitError};

/// A fetch of a whole history can take a while on a large repository.
const FETCH_TIMEOUT: Duration = Duration::from_secs(600);

impl Git {
    /// Whether the repository is a shallow clone.
    pub fn is_shallow(&self) -> Result<bool, GitError> {
        Ok(self.run_text(&["rev-parse", "--is-shallow-repository"])? == "true")
    }

    /// Fetches `branch` of `remote` into `refs/remotes/<remote>/<branch>` (the whole history too,
    /// when the checkout is shallow) and returns that ref's name.
    pub fn fetch_branch(&self, remote: &str, branch: &str) -> Result<String, GitError> {
        let target = format!("refs/remotes/{remote}/{branch}");
        let refspec = format!("+refs/heads/{branch}:{target}");
        let mut args = vec!["fetch", "--no-tags", "--quiet"];
        if self.is_shallow()? {
            args.push("--unshallow");
        }
        args.extend(["--", remote, refspec.as_str()]);
        let spec = self.user_spec(&args).timeout(FETCH_TIMEOUT);
        self.run_spec(&spec)?;
        Ok(target)
    }

    /// The best common ancestor of `a` and `b`, or `None` when they share no history.
    pub fn merge_base(&self, a: &str, b: &str) -> Result<Option<String>, GitError> {
        match self.run_text(&["merge-base", "--end-of-options", a, b]) {
            Ok(c) if !c.is_empty() => Ok(Some(c)),
            // Exit 1 with no output: no common ancestor.
            Ok(_) | Err(GitError::Failed { code: 1, .. }) => Ok(None),
            Err(e) => Err(e),
        }
    }
}
