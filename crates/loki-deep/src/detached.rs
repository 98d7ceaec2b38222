//! The deep verify started in the background after a `--deep` build sealed: `loki deep <run>`
//! run by the `loki` binary `exe` in the repository, detached, its output in the run's
//! [`crate::DEEP_LOG`]. It never changes the build's exit code: a run that cannot be deep-verified
//! (no receipt) is named, and so is a start that failed.

use std::path::{Path, PathBuf};

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_process::{Spec, spawn_detached};

use crate::DeepError;

/// How the background deep verify started.
#[derive(Debug)]
pub enum Started {
    /// Running as `pid`; its log and the receipt it will seal.
    Running {
        pid: u32,
        log: PathBuf,
        receipt: PathBuf,
    },
    /// The run cannot be deep-verified (unknown, or without a sealed receipt).
    NotStarted(DeepError),
    /// The process could not be started; `why` is the error's words.
    Failed { run: RunId, why: String },
}

/// Starts `loki deep <run>` in the background with `exe` (the running binary, or why it cannot
/// be told); `None` when `run_id` names no run.
pub fn start(repo: &Repo, run_id: &str, exe: std::io::Result<PathBuf>) -> Option<Started> {
    let run = run_id.parse::<RunId>().ok()?;
    if let Err(e) = crate::main_receipt(repo, &run) {
        return Some(Started::NotStarted(e));
    }
    let (log, receipt) = crate::detached_paths(repo, &run);
    let started = exe
        .map_err(|e| e.to_string())
        .and_then(|exe| spawn(&exe, &repo.root, &run, &log).map_err(|e| e.to_string()));
    Some(match started {
        Ok(pid) => Started::Running { pid, log, receipt },
        Err(why) => Started::Failed { run, why },
    })
}

fn spawn(
    exe: &Path,
    root: &Path,
    run: &RunId,
    log: &Path,
) -> Result<u32, loki_process::ProcessError> {
    let spec = Spec::new(exe.as_os_str(), root)
        .args(["deep", run.as_str()])
        .envs(std::env::vars_os().collect());
    Ok(spawn_detached(&spec, log)?.pid)
}
