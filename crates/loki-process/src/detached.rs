//! A child meant to outlive the call that started it: a background build that an MCP client
//! started and then follows through its run record, not through its output.
//!
//! What it keeps of the runner's contract: the explicit environment of [`Spec::env`] (nothing
//! inherited; `PWD` names its directory, [`crate::with_pwd`]), `stdin` at `/dev/null`, its own process group. What it changes, on purpose:
//! - its output goes to a log file (stdout and stderr, in arrival order), not to a pipe someone
//!   must keep reading;
//! - it is **not** registered with the watchdog and has no timeout: it is expected to end on its
//!   own terms (a build has its own cap, `run.cap_s`) even after the caller is gone, and to stop
//!   only when a person stops it (its pid is returned for that);
//! - a thread reaps it when it exits, so it never lingers as a zombie while the caller lives,
//!   and records its exit status ([`Detached::exit`]) for a caller that waits to learn something
//!   the child writes early (its run id).
//!
//! [`Spec::timeout`], [`Spec::output_cap`], [`Spec::streams`], [`Spec::spool`] and
//! [`Spec::cancel`] do not apply and are ignored.

use std::fs::File;
use std::io;
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use crate::{ProcessError, SIGNAL_EXIT_BASE, Spec};

/// How a detached child ended, once it has: its exit code, or 128 + N for a death by signal N.
type ExitSlot = Arc<Mutex<Option<i32>>>;

/// A started background child.
#[derive(Debug, Clone)]
pub struct Detached {
    /// The child's pid, which is also its process group id.
    pub pid: u32,
    exit: ExitSlot,
}

impl Detached {
    /// `None` while the child runs; its exit code (128 + N for signal N) once it has ended.
    #[must_use]
    pub fn exit(&self) -> Option<i32> {
        self.exit.lock().ok().and_then(|slot| *slot)
    }
}

/// Starts `spec` in the background with its stdout and stderr appended to `log` (created when
/// missing); see the module doc for what differs from [`crate::spawn`].
pub fn spawn_detached(spec: &Spec, log: &Path) -> Result<Detached, ProcessError> {
    let program = spec.program.to_string_lossy().into_owned();
    if !spec.cwd.is_dir() {
        return Err(ProcessError::NoCwd {
            program,
            cwd: spec.cwd.clone(),
        });
    }
    let spawn_err = |source: io::Error| ProcessError::Spawn {
        program: program.clone(),
        source,
    };
    let out = File::options()
        .create(true)
        .append(true)
        .open(log)
        .map_err(spawn_err)?;
    let err = out.try_clone().map_err(spawn_err)?;
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(crate::with_pwd(spec.env.clone(), &spec.cwd))
        .stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .process_group(0);
    #[expect(
        clippy::disallowed_methods,
        reason = "this is the runner's one detached start: explicit environment, stdin null, own group"
    )]
    let spawned = cmd.spawn();
    let mut child = spawned.map_err(|source| match source.kind() {
        io::ErrorKind::NotFound => ProcessError::NotFound {
            program: program.clone(),
            path: spec
                .env_value("PATH")
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
        },
        _ => ProcessError::Spawn {
            program: program.clone(),
            source,
        },
    })?;
    let pid = child.id();
    let exit: ExitSlot = Arc::default();
    let slot = Arc::clone(&exit);
    // The reaper: without it an ended child stays a zombie as long as this process lives.
    std::thread::spawn(move || {
        let code = match child.wait() {
            Ok(status) => status
                .code()
                .or_else(|| status.signal().map(|s| SIGNAL_EXIT_BASE + s))
                .unwrap_or(1),
            // Lost track of it: report it ended, as a failure, so nobody waits forever.
            Err(_) => 1,
        };
        if let Ok(mut s) = slot.lock() {
            *s = Some(code);
        }
    });
    Ok(Detached { pid, exit })
}
