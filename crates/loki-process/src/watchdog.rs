//! The watchdog that kills loki's children when loki dies, and [`stop_all`] for loki's own
//! `SIGINT`/`SIGTERM` (see the crate doc: "The group dies with loki" and "Stop on request").

use std::io::Write as _;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use rustix::process::{Pid, Signal};

/// The watchdog (see the module doc): on each `+PGID` line it adds a group, on `-PGID` it drops
/// it, and at end of input — loki is gone — it kills what is left. POSIX `sh` builtins only.
pub const WATCHDOG_SCRIPT: &str = r#"live=' '
while IFS= read -r l; do
  case $l in
    +*) live="$live${l#+} " ;;
    -*) g=${l#-}; case $live in *" $g "*) live="${live%%" $g "*} ${live#*" $g "}" ;; esac ;;
  esac
done
for g in $live; do kill -KILL "-$g" 2>/dev/null; done
"#;

/// The watchdog's input, once started; `None` when it could not be.
static WATCHDOG: OnceLock<Option<Mutex<std::process::ChildStdin>>> = OnceLock::new();
/// Bumped by each [`stop_all`]: a child started before the bump is stopped.
pub(crate) static STOP_EPOCH: AtomicU64 = AtomicU64::new(0);
/// The signal [`stop_all`] sends first.
static STOP_SIGNAL: AtomicI32 = AtomicI32::new(0);

fn start_watchdog() -> Option<Mutex<std::process::ChildStdin>> {
    let mut cmd = Command::new("/bin/sh");
    cmd.args(["-c", WATCHDOG_SCRIPT])
        .env_clear()
        .current_dir("/")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        // Its own group: the terminal's Ctrl-C, which kills loki, must not kill the watchdog.
        .process_group(0);
    #[expect(
        clippy::disallowed_methods,
        reason = "the watchdog is part of the runner: it must outlive loki, so it is not a Running"
    )]
    let spawned = cmd.spawn();
    match spawned {
        // The `Child` is dropped without a wait: the watchdog ends only after loki does.
        Ok(mut child) => child.stdin.take().map(Mutex::new),
        // Children still run; only the kill-with-loki guarantee is lost, and `watchdog_running`
        // says so to whoever reports on the machine.
        Err(_) => None,
    }
}

/// The groups of the children running now (what the watchdog holds), for [`kill_all_now`].
static LIVE_GROUPS: Mutex<Vec<Pid>> = Mutex::new(Vec::new());

/// Kills every child group running now with `SIGKILL`, at once: for an exit that cannot wait for
/// the children's own wait loops (the signal handler's forced exit).
pub fn kill_all_now() {
    let groups = LIVE_GROUPS.lock().map(|g| g.clone()).unwrap_or_default();
    for g in groups {
        let _ = rustix::process::kill_process_group(g, Signal::KILL);
    }
}

/// Tells the watchdog about a group: `+pgid` to watch it, `-pgid` to forget it.
pub(crate) fn tell_watchdog(sign: char, pgid: Pid) {
    if let Ok(mut live) = LIVE_GROUPS.lock() {
        if sign == '+' {
            live.push(pgid);
        } else {
            live.retain(|g| *g != pgid);
        }
    }
    if let Some(pipe) = WATCHDOG.get_or_init(start_watchdog)
        && let Ok(mut pipe) = pipe.lock()
    {
        // A line is far below PIPE_BUF, so it is written whole; a dead watchdog (EPIPE) changes
        // nothing for the child.
        let _ = writeln!(pipe, "{sign}{}", pgid.as_raw_nonzero());
    }
}

/// Whether the watchdog that kills loki's children when loki dies is running (it starts with
/// the first child).
#[must_use]
pub fn watchdog_running() -> bool {
    WATCHDOG.get_or_init(start_watchdog).is_some()
}

/// Stops every child running now: `signal` to its group, `SIGKILL` after [`TERM_GRACE`](crate::TERM_GRACE). For
/// loki's own `SIGINT`/`SIGTERM` handler; children started later are not affected.
pub fn stop_all(signal: Signal) {
    STOP_SIGNAL.store(signal.as_raw(), Ordering::SeqCst);
    STOP_EPOCH.fetch_add(1, Ordering::SeqCst);
}

/// The signal of the last [`stop_all`], if there was one.
#[must_use]
pub fn stop_signal() -> Option<i32> {
    Some(STOP_SIGNAL.load(Ordering::SeqCst)).filter(|s| *s != 0)
}
