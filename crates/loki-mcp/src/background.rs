//! Background `loki` processes (`loki_run`, `loki_answer`, `loki_fix` with `apply`) and how the
//! server learns the run id of one it started.
//!
//! The child is this `loki` executable itself, started through the runner's one detached start
//! (`loki_process::spawn_detached`): its own process group, `stdin` at `/dev/null`, stdout
//! and stderr appended to `.loki/mcp/<stamp>.log` (renamed `<run-id>.log` once the id is known,
//! so `loki_status` can point at it), the server's environment passed on whole (the child is
//! loki, which needs its own keys; it scrubs what it hands its model and tests).
//! A task goes in a file beside the log (`loki run-task --file`), so no task text is ever parsed
//! as an option or a subcommand name.
//!
//! **The run id.** A build prints `Run: <id>` only when it ends, and the client needs the id at
//! once. Every loki command that records a run writes `run.json` (`loki_core::run`) with the pid
//! of the process that runs it, and the child here *is* that process (loki is exec'd directly,
//! not through a shell). So the server lists the run ids present before the start, then polls
//! `.loki/runs/` for a new run whose `run.json` records the child's pid. That needs no change to
//! any command and cannot pick another client's run: a pid is not reused while the server's
//! reaper has not yet collected the child, and a run that existed before the start is never a
//! candidate. A child that exits before it records a run (a dirty tree refused by preflight) is
//! reported with its output, and one that records nothing within [`RUN_ID_WAIT`] with its log.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::run::{ListedRun, RunStore};
use loki_process::{Spec, spawn_detached};
use serde::Serialize;

use crate::error::ToolError;

/// How long a started `loki` may take to record its run: intake's first step, well under a
/// second on a small repository; generous for a loaded two-core machine.
pub const RUN_ID_WAIT: Duration = Duration::from_secs(30);
/// Between two looks at `.loki/runs/`.
const POLL: Duration = Duration::from_millis(50);
/// Bytes of a failed start's log quoted in the error: its last lines hold the reason.
const LOG_TAIL: usize = 4000;

/// The directory under `.loki/` that holds the logs and task files of background runs.
pub const MCP_DIR: &str = "mcp";

/// A background `loki` that recorded its run.
#[derive(Debug, Clone, Serialize)]
pub struct Started {
    pub run_id: String,
    pub pid: u32,
    /// Its stdout and stderr.
    pub log: PathBuf,
    /// `running` when the answer was written (a quick run may already have ended).
    pub status: String,
}

/// Where a background command's files go: `.loki/mcp/<stamp>` (`.log`, `.task.md`), unique per
/// start.
pub fn files_for(repo: &Repo, what: &str) -> Result<PathBuf, ToolError> {
    let loki = repo.ensure_loki_dir()?;
    let dir = loki.join(MCP_DIR);
    std::fs::create_dir_all(&dir).map_err(|source| ToolError::Io {
        action: "create",
        path: dir.clone(),
        source,
    })?;
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Ok(dir.join(format!("{what}-{nanos}")))
}

/// Writes `task` beside `stem` and returns its path.
pub fn task_file(stem: &Path, task: &str) -> Result<PathBuf, ToolError> {
    let path = stem.with_extension("task.md");
    loki_core::fs::write_atomic(&path, task.as_bytes())?;
    Ok(path)
}

/// Starts `exe args…` in `repo` and waits until it has recorded its run.
pub fn start(
    repo: &Repo,
    exe: &Path,
    args: Vec<OsString>,
    stem: &Path,
) -> Result<Started, ToolError> {
    let store = RunStore::new(repo.clone());
    let before = run_ids(&store)?;
    let log = stem.with_extension("log");
    let spec = Spec::new(exe.as_os_str(), &repo.root)
        .args(args)
        .envs(std::env::vars_os().collect());
    let child = spawn_detached(&spec, &log)?;
    let deadline = Instant::now() + RUN_ID_WAIT;
    loop {
        // Read the exit first: a child that recorded its run and then ended is still found below.
        let exited = child.exit();
        if let Some((id, status)) = find(&store, &before, child.pid)? {
            // Named after the run from now on, so `loki_status` finds it from the id alone; the
            // child keeps writing to the same file. A failed rename keeps the first name.
            let named = log_of(repo, id.as_str());
            let log = match std::fs::rename(&log, &named) {
                Ok(()) => named,
                Err(_) => log,
            };
            return Ok(Started {
                run_id: id.to_string(),
                pid: child.pid,
                log,
                status,
            });
        }
        if let Some(code) = exited {
            return Err(ToolError::NotStarted {
                code,
                output: tail(&log),
            });
        }
        if Instant::now() >= deadline {
            return Err(ToolError::NoRunYet {
                pid: child.pid,
                seconds: RUN_ID_WAIT.as_secs(),
                log,
            });
        }
        std::thread::sleep(POLL);
    }
}

/// The log of a background run started here: `.loki/mcp/<run-id>.log`.
#[must_use]
pub fn log_of(repo: &Repo, run_id: &str) -> PathBuf {
    repo.loki_dir().join(MCP_DIR).join(format!("{run_id}.log"))
}

fn run_ids(store: &RunStore) -> Result<BTreeSet<String>, ToolError> {
    let dir = store.repo().runs_dir();
    let mut ids = BTreeSet::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        // No runs yet.
        return Ok(ids);
    };
    for e in entries.flatten() {
        ids.insert(e.file_name().to_string_lossy().into_owned());
    }
    Ok(ids)
}

/// The new run recorded by `pid`, with its status.
fn find(
    store: &RunStore,
    before: &BTreeSet<String>,
    pid: u32,
) -> Result<Option<(RunId, String)>, ToolError> {
    let fresh = run_ids(store)?;
    if fresh.iter().all(|id| before.contains(id)) {
        return Ok(None);
    }
    for r in store.list()? {
        if let ListedRun::Ok(rec) = r
            && !before.contains(rec.id.as_str())
            && rec.pid == pid
        {
            return Ok(Some((rec.id.clone(), rec.status.as_str().to_string())));
        }
    }
    Ok(None)
}

/// The end of a log, for an error message.
fn tail(log: &Path) -> String {
    let text = std::fs::read(log)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let start = text.len().saturating_sub(LOG_TAIL);
    let start = (start..text.len())
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(text.len());
    text[start..].trim_end().to_string()
}
