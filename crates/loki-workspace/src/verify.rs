//! What `loki verify [target]` checks: the newest run for none or `latest`, a run id (a build's
//! run directory, else a `loki improve` cycle's, whose receipts live beside the cycle's other
//! state), else an existing file or directory (a run directory, `receipt.json`,
//! `receipt.dsse.json`).

use std::path::PathBuf;

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::run::RunStore;
use loki_receipt::VerifyInput;

/// Why there is nothing to verify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotFound {
    /// No run to verify (not in a repository, or no runs in it): `loki verify` says so as its
    /// own verdict, with this reason.
    NoRuns(String),
    /// The target names nothing (a usage error, with these words).
    Usage(String),
}

/// The input `target` names; `repo` is the repository loki was started in.
pub fn locate(
    repo: &Result<Repo, loki_core::CoreError>,
    target: Option<&str>,
) -> Result<VerifyInput, NotFound> {
    let store = || {
        repo.as_ref()
            .map(|r| RunStore::new(r.clone()))
            .map_err(|e| NotFound::NoRuns(format!("no run to verify: {e}")))
    };
    match target {
        None | Some("latest") => {
            let store = store()?;
            match store.latest() {
                Ok(Some(id)) => Ok(VerifyInput::RunDir(store.dir(&id))),
                Ok(None) => Err(NotFound::NoRuns(format!(
                    "no runs in {}",
                    store.repo().runs_dir().display()
                ))),
                Err(e) => Err(NotFound::Usage(e.to_string())),
            }
        }
        Some(t) => {
            if let Ok(id) = t.parse::<RunId>() {
                let store = store()?;
                let dir = store.dir(&id);
                if dir.is_dir() {
                    return Ok(VerifyInput::RunDir(dir));
                }
                let improve = loki_improve::Paths::new(store.repo())
                    .runs()
                    .join(id.as_str());
                if improve.is_dir() {
                    return Ok(VerifyInput::RunDir(improve));
                }
                return Err(NotFound::Usage(format!(
                    "no run {id} in {}; `loki runs list` shows the runs there",
                    store.repo().runs_dir().display()
                )));
            }
            let path = PathBuf::from(t);
            if path.exists() {
                Ok(VerifyInput::from_path(&path))
            } else {
                Err(NotFound::Usage(format!(
                    "{t} is neither a run id nor an existing file or directory"
                )))
            }
        }
    }
}
