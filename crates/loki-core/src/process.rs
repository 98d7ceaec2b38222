//! The one process runner: every child loki starts (test suites, the agent's `run` tool, crash
//! reproductions, `git`) goes through [`run`] or [`spawn`].
//!
//! # Contract
//! - **Explicit environment.** The child starts from an *empty* environment plus exactly the
//!   variables in [`Spec::env`]. [`scrubbed_env`] gives the usual one: the current environment minus
//!   anything that looks like a secret ([`is_secret_name`]), plus `CI=1` and `NO_COLOR=1`.
//!   [`caller_env`] is the exception for a program the user asked loki to observe (`loki run`):
//!   the caller's environment unchanged but for loki's own secrets.
//! - **stdin is `/dev/null`**, so a child that waits for input ends instead of hanging.
//! - **Own process group** (`setpgid(0, 0)`): the child leads a new group and everything it forks
//!   stays in it, so the runner can signal the whole tree at once.
//! - **The group dies with the leader.** When the leader exits, the rest of its group is sent
//!   `SIGKILL` (a test server left behind must not outlive its suite). The leader is detected with
//!   `waitid(WNOWAIT)` and the group killed *before* the leader is reaped, so the group id cannot
//!   have been reused by an unrelated process.
//! - **So do the processes that left it.** A descendant that starts a session or group of its
//!   own (`setsid`: a coding agent's terminal, Codex's `exec_command`) escapes a group signal. The
//!   runner looks for them (Linux `/proc`: the leader's descendants by parent pid, outside its
//!   group) every [`TREE_SCAN`] while the child runs and again right before each signal, and
//!   sends every signal the group gets to each of them and to the group it leads, after checking
//!   its start time, so a recycled pid is never hit. One that had already been orphaned before
//!   the first scan saw it is out of reach, and the watchdog knows only the group.
//! - **The group dies with loki.** Each group is registered with a *watchdog*: one small `sh`
//!   per loki process, in a group of its own, reading a pipe from loki. However loki ends —
//!   `exit`, a panic, `kill -9` — the kernel closes that pipe, and the watchdog sends `SIGKILL` to
//!   every group still registered. A group is unregistered after it was killed and before its
//!   leader is reaped, so a group id the watchdog holds is never one reused by an unrelated
//!   process. (A parent-death signal would need `pre_exec` code, which this crate does not run,
//!   and would reach only the leader, not its children.) If `sh` cannot be started, children
//!   still run and this one guarantee is lost; [`watchdog_running`] says so.
//! - **Stop on request.** [`stop_all`] (loki got `SIGINT` or `SIGTERM`) sends that signal to the
//!   group of every child running at that moment, then `SIGKILL` after [`TERM_GRACE`]; their
//!   results say `cancelled`. Children started afterwards (a receipt's `git` calls) run normally.
//! - **Timeout.** After [`Spec::timeout`] the group gets `SIGTERM`, then `SIGKILL` after
//!   [`TERM_GRACE`]; the result says `timed_out` and [`Output::exit_code`] is 124 (the `timeout(1)`
//!   convention). A [`Cancel`] token does the same on request; dropping a [`Running`] kills the
//!   group with `SIGKILL` and reaps the leader.
//! - **Bounded output.** Each captured stream keeps its first `cap/2` bytes and its last `cap/2`
//!   bytes and counts what it dropped ([`Captured`]); memory stays bounded however much the child
//!   prints. By default stdout and stderr share one pipe, so the capture is in true arrival order
//!   (as a terminal would show `2>&1`); [`Streams::Separate`] keeps them apart for callers that parse
//!   stdout (git plumbing).
//! - **Whole output on request.** [`Spec::spool`] also appends every byte of [`Output::output`]'s
//!   stream to a file, up to [`SPOOL_CAP`], so that a caller can parse all of a long run (a test
//!   report printed on stdout) while memory stays bounded; [`Output::spooled`] says how much was
//!   written and whether the cap cut it.
//! - **Bytes, not text.** Output is kept as bytes; [`Captured::text`] is the lossy view.
//! - **A missing program is its own error** ([`ProcessError::NotFound`]), so callers can report
//!   `not_run` instead of a failure.
//! - **Detached children are the one exception** ([`spawn_detached`]): a background build an MCP
//!   client started outlives the call, writes to a log file, and is reaped by a thread; see
//!   `process/detached.rs` for what of this contract it keeps.
//!
//! The runner never interprets output and never decides whether an exit code is good news: that is
//! policy and belongs to its callers. It blocks the calling thread; async callers run it on a
//! blocking thread and use [`Cancel`] to stop it.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io::Write as _;
use std::io::{self, PipeReader, Read};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, kill_process_group, waitid};

mod detached;
mod environment;

pub use detached::{Detached, spawn_detached};

pub use environment::{
    caller_env, is_secret_name, scrub, scrubbed_env, shell_quote, without_loki_secrets,
    without_secrets,
};

/// Default timeout: long enough for a full test suite of a mid-sized repository on a small
/// machine, short enough that a hung child cannot stall a run for hours.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// Default cap per captured stream: 1 MiB keeps every summary line of a normal suite while a
/// runaway printer costs at most this much memory.
pub const DEFAULT_OUTPUT_CAP: usize = 1024 * 1024;
/// Time between `SIGTERM` and `SIGKILL` on timeout: lets test runners flush their reports.
pub const TERM_GRACE: Duration = Duration::from_secs(2);
/// After the leader exits and its group is killed, how long to keep reading pipes that are still
/// open: only a process that left the group (`setsid`) can hold them longer, and it must not hang us.
pub const DRAIN_GRACE: Duration = Duration::from_millis(500);
/// Exit code reported for a timed-out child, as `timeout(1)` does.
pub const TIMEOUT_EXIT_CODE: i32 = 124;
/// Exit codes for deaths by signal follow the shell: 128 + signal number.
const SIGNAL_EXIT_BASE: i32 = 128;
/// How often the wait loop looks at the clock and the leader when no output arrives.
const POLL_TICK: Duration = Duration::from_millis(20);
/// How often a running child's tree is scanned for descendants that left its group.
const TREE_SCAN: Duration = Duration::from_secs(1);
/// Most bytes [`Spec::spool`] writes: far beyond any test report, short of filling a disk.
pub const SPOOL_CAP: u64 = 4 * 1024 * 1024 * 1024;
/// Bytes read per `read(2)`: one pipe buffer's worth is plenty and bounds the scratch buffer.
const READ_CHUNK: usize = 64 * 1024;

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
static STOP_EPOCH: AtomicU64 = AtomicU64::new(0);
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

/// Tells the watchdog about a group: `+pgid` to watch it, `-pgid` to forget it.
fn tell_watchdog(sign: char, pgid: Pid) {
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

/// Stops every child running now: `signal` to its group, `SIGKILL` after [`TERM_GRACE`]. For
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

/// How the child's stdout and stderr are captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Streams {
    /// One pipe for both: [`Output::output`] holds them in arrival order, [`Output::stderr`] is empty.
    #[default]
    Combined,
    /// Two pipes: [`Output::output`] is stdout, [`Output::stderr`] is stderr, each capped.
    Separate,
}

/// A request to stop a running child early; clones share one flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A token that has not been triggered.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every run holding a clone of this token to kill its group (as on timeout).
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// Whether [`Cancel::cancel`] was called.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// What to run and how. Built like [`std::process::Command`]; nothing is inherited implicitly.
#[derive(Debug, Clone)]
pub struct Spec {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// Working directory; it must exist ([`ProcessError::NoCwd`] otherwise).
    pub cwd: PathBuf,
    /// The child's entire environment, in order; a later entry for the same name wins.
    pub env: Vec<(OsString, OsString)>,
    pub timeout: Duration,
    /// Cap in bytes for each captured stream (head half + tail half).
    pub output_cap: usize,
    pub streams: Streams,
    pub cancel: Option<Cancel>,
    /// A file that receives the whole first stream, uncapped up to [`SPOOL_CAP`].
    pub spool: Option<PathBuf>,
}

impl Spec {
    /// A spec with no arguments, an empty environment, [`DEFAULT_TIMEOUT`] and [`DEFAULT_OUTPUT_CAP`].
    pub fn new(program: impl Into<OsString>, cwd: impl Into<PathBuf>) -> Self {
        Spec {
            program: program.into(),
            args: Vec::new(),
            cwd: cwd.into(),
            env: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            output_cap: DEFAULT_OUTPUT_CAP,
            streams: Streams::Combined,
            cancel: None,
            spool: None,
        }
    }

    /// Also writes everything the child prints on the first stream (both streams under
    /// [`Streams::Combined`]) to `path`, created or truncated, up to [`SPOOL_CAP`] bytes.
    #[must_use]
    pub fn spool(mut self, path: impl Into<PathBuf>) -> Self {
        self.spool = Some(path.into());
        self
    }

    #[must_use]
    pub fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets one variable, replacing an earlier value of the same name.
    #[must_use]
    pub fn env(mut self, name: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        let name = name.into();
        self.env.retain(|(n, _)| *n != name);
        self.env.push((name, value.into()));
        self
    }

    /// Replaces the whole environment.
    #[must_use]
    pub fn envs(mut self, env: Vec<(OsString, OsString)>) -> Self {
        self.env = env;
        self
    }

    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    #[must_use]
    pub fn output_cap(mut self, bytes: usize) -> Self {
        self.output_cap = bytes;
        self
    }

    #[must_use]
    pub fn streams(mut self, streams: Streams) -> Self {
        self.streams = streams;
        self
    }

    /// Runs the command through `prefix` (a wrapper such as the confinement of
    /// [`crate::confine`]): `prefix[0] prefix[1..] program args`. An empty prefix changes nothing.
    #[must_use]
    pub fn wrapped(mut self, prefix: &[OsString]) -> Self {
        if let Some((first, rest)) = prefix.split_first() {
            let program = std::mem::replace(&mut self.program, first.clone());
            let mut args = rest.to_vec();
            args.push(program);
            args.append(&mut self.args);
            self.args = args;
        }
        self
    }

    #[must_use]
    pub fn cancel_with(mut self, cancel: Cancel) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// The value of `name` in the child's environment, if set.
    #[must_use]
    pub fn env_value(&self, name: &str) -> Option<&OsStr> {
        self.env
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_os_str())
    }

    /// The command line as a shell would read it (single-quoted where needed), for logs.
    #[must_use]
    pub fn display(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| shell_quote(&a.to_string_lossy()))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How the child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Exit {
    /// It called `exit` with this code.
    Code(i32),
    /// A signal with this number killed it.
    Signal(i32),
}

/// Bytes captured from one stream: the first bytes, the last bytes and how many were dropped between.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Captured {
    pub head: Vec<u8>,
    pub tail: Vec<u8>,
    /// Bytes the child wrote that are in neither `head` nor `tail`.
    pub dropped: u64,
}

impl Captured {
    /// Whether anything was dropped.
    #[must_use]
    pub fn is_truncated(&self) -> bool {
        self.dropped > 0
    }

    /// Head and tail joined, with a marker line between them when bytes were dropped.
    #[must_use]
    pub fn bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.head.len() + self.tail.len() + 64);
        out.extend_from_slice(&self.head);
        if self.dropped > 0 {
            out.extend_from_slice(
                format!("\n[loki: {} bytes of output dropped here]\n", self.dropped).as_bytes(),
            );
        }
        out.extend_from_slice(&self.tail);
        out
    }

    /// [`Captured::bytes`] as text; invalid UTF-8 becomes U+FFFD.
    #[must_use]
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes()).into_owned()
    }

    /// The last `max` bytes as text (for error messages that carry the end of the output).
    #[must_use]
    pub fn tail_text(&self, max: usize) -> String {
        let all = self.bytes();
        let start = all.len().saturating_sub(max);
        String::from_utf8_lossy(&all[start..]).into_owned()
    }
}

/// The head+tail capture buffer: pure, so its bound is tested apart from processes.
#[derive(Debug)]
struct CaptureBuf {
    head_cap: usize,
    tail_cap: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped: u64,
}

impl CaptureBuf {
    fn new(cap: usize) -> Self {
        let head_cap = cap / 2;
        CaptureBuf {
            head_cap,
            tail_cap: cap - head_cap,
            head: Vec::new(),
            tail: VecDeque::new(),
            dropped: 0,
        }
    }

    fn push(&mut self, mut data: &[u8]) {
        if self.head.len() < self.head_cap {
            let n = (self.head_cap - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..n]);
            data = &data[n..];
        }
        if data.is_empty() {
            return;
        }
        if data.len() >= self.tail_cap {
            let skip = data.len() - self.tail_cap;
            self.dropped += (self.tail.len() + skip) as u64;
            self.tail.clear();
            self.tail.extend(&data[skip..]);
        } else {
            let overflow = (self.tail.len() + data.len()).saturating_sub(self.tail_cap);
            self.tail.drain(..overflow);
            self.dropped += overflow as u64;
            self.tail.extend(data);
        }
    }

    fn finish(self) -> Captured {
        Captured {
            head: self.head,
            tail: self.tail.into(),
            dropped: self.dropped,
        }
    }
}

/// The result of a finished child.
#[derive(Debug, Clone)]
pub struct Output {
    pub exit: Exit,
    /// The timeout fired and the group was killed.
    pub timed_out: bool,
    /// A [`Cancel`] fired and the group was killed.
    pub cancelled: bool,
    /// From spawn until the leader exited.
    pub duration: Duration,
    /// stdout and stderr in arrival order ([`Streams::Combined`]) or stdout alone.
    pub output: Captured,
    /// stderr under [`Streams::Separate`]; empty otherwise.
    pub stderr: Captured,
    /// What [`Spec::spool`] wrote, when it was asked for.
    pub spooled: Option<Spooled>,
}

/// The spool file of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spooled {
    pub path: PathBuf,
    /// Bytes written to it.
    pub bytes: u64,
    /// The child printed more than [`SPOOL_CAP`]; the rest is only in the capture's tail.
    pub truncated: bool,
    /// Writing failed (a full disk): the file holds only what came before, `bytes` of it.
    pub failed: bool,
}

impl Output {
    /// The shell's view of the exit: 124 on timeout, 128 + n for signal n, else the code.
    #[must_use]
    pub fn exit_code(&self) -> i32 {
        if self.timed_out {
            return TIMEOUT_EXIT_CODE;
        }
        match self.exit {
            Exit::Code(c) => c,
            Exit::Signal(s) => SIGNAL_EXIT_BASE + s,
        }
    }

    /// Exited by itself with code 0.
    #[must_use]
    pub fn success(&self) -> bool {
        !self.timed_out && !self.cancelled && self.exit == Exit::Code(0)
    }
}

/// Errors of the process runner. Each names the program; none leaves a child running.
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    #[error("{program} not found (PATH={path}); install it or put it on PATH")]
    NotFound { program: String, path: String },
    #[error("cannot run {program}: working directory {cwd} does not exist or is not a directory")]
    NoCwd { program: String, cwd: PathBuf },
    #[error("cannot start {program}: {source}")]
    Spawn {
        program: String,
        #[source]
        source: io::Error,
    },
    #[error("lost track of {program} while {action} (its process group was killed): {source}")]
    Io {
        program: String,
        action: &'static str,
        #[source]
        source: io::Error,
    },
}

impl ProcessError {
    /// The program is not installed or not on PATH: callers report `not_run`, never `fail`.
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        match self {
            ProcessError::NotFound { .. } => true,
            ProcessError::NoCwd { .. } | ProcessError::Spawn { .. } | ProcessError::Io { .. } => {
                false
            }
        }
    }

    /// The program the error is about.
    #[must_use]
    pub fn program(&self) -> &str {
        match self {
            ProcessError::NotFound { program, .. }
            | ProcessError::NoCwd { program, .. }
            | ProcessError::Spawn { program, .. }
            | ProcessError::Io { program, .. } => program,
        }
    }
}

impl crate::exit::Classify for ProcessError {
    /// A program that cannot start is a failure here: the caller knows what it was for, and a
    /// caller for which a missing program is the user's to install says so in its own error
    /// (`HealError::CommandNotFound`), or records the check as not run.
    fn exit_class(&self) -> crate::exit::ExitClass {
        match self {
            ProcessError::NotFound { .. }
            | ProcessError::NoCwd { .. }
            | ProcessError::Spawn { .. }
            | ProcessError::Io { .. } => crate::exit::ExitClass::Failure,
        }
    }
}

/// A started child. Call [`Running::wait`]; dropping it instead kills the whole group.
#[derive(Debug)]
pub struct Running {
    child: Child,
    pgid: Pid,
    program: String,
    started: Instant,
    timeout: Duration,
    cancel: Option<Cancel>,
    pipes: Vec<(usize, PipeReader)>,
    caps: Vec<CaptureBuf>,
    spool: Option<SpoolFile>,
    reaped: bool,
    /// [`STOP_EPOCH`] when it started: a later value means [`stop_all`] was called since.
    epoch: u64,
    /// Descendants seen outside the group, as (pid, start time): signalled with it.
    escaped: Vec<(i32, u64)>,
    last_scan: Instant,
}

/// The open spool of a running child.
#[derive(Debug)]
struct SpoolFile {
    file: std::fs::File,
    info: Spooled,
}

impl SpoolFile {
    fn push(&mut self, data: &[u8]) {
        use std::io::Write as _;
        if self.info.failed || self.info.truncated {
            return;
        }
        let room = SPOOL_CAP.saturating_sub(self.info.bytes);
        let n = usize::try_from(room).unwrap_or(usize::MAX).min(data.len());
        if self.file.write_all(&data[..n]).is_err() {
            self.info.failed = true;
            return;
        }
        self.info.bytes += n as u64;
        if n < data.len() {
            self.info.truncated = true;
        }
    }
}

/// Runs `spec` to completion (or timeout) and returns what happened.
pub fn run(spec: &Spec) -> Result<Output, ProcessError> {
    spawn(spec)?.wait()
}

/// Starts `spec` in its own process group; see the module doc for the contract.
pub fn spawn(spec: &Spec) -> Result<Running, ProcessError> {
    // Read before the fork: a stop that comes while the child starts must still reach it.
    let epoch = STOP_EPOCH.load(Ordering::SeqCst);
    let program = spec.program.to_string_lossy().into_owned();
    if !spec.cwd.is_dir() {
        return Err(ProcessError::NoCwd {
            program,
            cwd: spec.cwd.clone(),
        });
    }
    let pipe_err = |source| ProcessError::Spawn {
        program: program.clone(),
        source,
    };
    let mut pipes = Vec::new();
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .process_group(0);
    let (out_r, out_w) = io::pipe().map_err(pipe_err)?;
    pipes.push((0, out_r));
    match spec.streams {
        Streams::Combined => {
            cmd.stderr(out_w.try_clone().map_err(pipe_err)?);
        }
        Streams::Separate => {
            let (err_r, err_w) = io::pipe().map_err(pipe_err)?;
            pipes.push((1, err_r));
            cmd.stderr(err_w);
        }
    }
    cmd.stdout(out_w);
    #[expect(
        clippy::disallowed_methods,
        reason = "this is the one process runner the lint points every other caller at"
    )]
    let spawned = cmd.spawn();
    // `cmd` holds our copies of the write ends; closing them now is what lets EOF arrive.
    drop(cmd);
    let child = spawned.map_err(|source| match source.kind() {
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
    let pgid = Pid::from_child(&child);
    tell_watchdog('+', pgid);
    let spool = match &spec.spool {
        Some(path) => Some(SpoolFile {
            file: std::fs::File::create(path).map_err(pipe_err)?,
            info: Spooled {
                path: path.clone(),
                bytes: 0,
                truncated: false,
                failed: false,
            },
        }),
        None => None,
    };
    Ok(Running {
        child,
        pgid,
        program,
        started: Instant::now(),
        timeout: spec.timeout,
        cancel: spec.cancel.clone(),
        pipes,
        caps: vec![
            CaptureBuf::new(spec.output_cap),
            CaptureBuf::new(spec.output_cap),
        ],
        spool,
        reaped: false,
        epoch,
        escaped: Vec::new(),
        last_scan: Instant::now(),
    })
}

impl Running {
    /// The leader's pid, which is also the group id.
    #[must_use]
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Reads output until the leader exits (or the timeout or a cancel kills the group), kills what
    /// is left of the group, and returns the result.
    pub fn wait(mut self) -> Result<Output, ProcessError> {
        let deadline = self.started + self.timeout;
        let mut scratch = vec![0u8; READ_CHUNK];
        let mut exit: Option<(Exit, Duration)> = None;
        let mut drain_until: Option<Instant> = None;
        let mut term_sent: Option<Instant> = None;
        let (mut timed_out, mut cancelled) = (false, false);
        loop {
            self.pump(&mut scratch)?;
            let now = Instant::now();
            if exit.is_none() && now >= self.last_scan + TREE_SCAN {
                self.last_scan = now;
                self.note_escaped();
            }
            if exit.is_none() {
                if let Some(status) = self.leader_exited()? {
                    exit = Some((status, now - self.started));
                    drain_until = Some(now + DRAIN_GRACE);
                } else if let Some(sent) = term_sent {
                    if now >= sent + TERM_GRACE {
                        self.signal_group(Signal::KILL);
                    }
                } else if now >= deadline {
                    timed_out = true;
                    term_sent = Some(now);
                    self.signal_group(Signal::TERM);
                } else if self.cancel.as_ref().is_some_and(Cancel::is_cancelled) {
                    cancelled = true;
                    term_sent = Some(now);
                    self.signal_group(Signal::TERM);
                } else if STOP_EPOCH.load(Ordering::SeqCst) != self.epoch {
                    cancelled = true;
                    term_sent = Some(now);
                    let sig = stop_signal()
                        .and_then(Signal::from_named_raw)
                        .unwrap_or(Signal::TERM);
                    self.signal_group(sig);
                }
            }
            if let (Some((status, duration)), Some(until)) = (exit, drain_until)
                && (self.pipes.is_empty() || now >= until)
            {
                let mut caps = std::mem::take(&mut self.caps).into_iter();
                let output = caps.next().map(CaptureBuf::finish).unwrap_or_default();
                let stderr = caps.next().map(CaptureBuf::finish).unwrap_or_default();
                return Ok(Output {
                    exit: status,
                    timed_out,
                    cancelled,
                    duration,
                    output,
                    stderr,
                    spooled: self.spool.take().map(|s| s.info),
                });
            }
        }
    }

    /// Waits up to one tick for output and reads what is there; closes pipes at EOF.
    fn pump(&mut self, scratch: &mut [u8]) -> Result<(), ProcessError> {
        if self.pipes.is_empty() {
            std::thread::sleep(POLL_TICK);
            return Ok(());
        }
        let tick = Timespec::try_from(POLL_TICK).unwrap_or(Timespec {
            tv_sec: 0,
            tv_nsec: 20_000_000,
        });
        let ready: Vec<bool> = {
            let mut fds: Vec<PollFd<'_>> = self
                .pipes
                .iter()
                .map(|(_, r)| PollFd::new(r, PollFlags::IN))
                .collect();
            match poll(&mut fds, Some(&tick)) {
                Ok(_) | Err(Errno::INTR) => {}
                Err(e) => return Err(self.fail("polling its output", e.into())),
            }
            fds.iter().map(|f| !f.revents().is_empty()).collect()
        };
        let mut closed = Vec::new();
        for (i, ((slot, reader), is_ready)) in self.pipes.iter_mut().zip(ready).enumerate() {
            if !is_ready {
                continue;
            }
            match reader.read(scratch) {
                Ok(0) => closed.push(i),
                Ok(n) => {
                    self.caps[*slot].push(&scratch[..n]);
                    if *slot == 0
                        && let Some(spool) = self.spool.as_mut()
                    {
                        spool.push(&scratch[..n]);
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
                    ) => {}
                // A pipe that cannot be read will never give EOF either; stop watching it.
                Err(_) => closed.push(i),
            }
        }
        for i in closed.into_iter().rev() {
            self.pipes.remove(i);
        }
        Ok(())
    }

    /// If the leader has exited: kills the rest of its group (while the zombie leader still pins the
    /// group id), reaps it and returns how it ended.
    fn leader_exited(&mut self) -> Result<Option<Exit>, ProcessError> {
        let opts = WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT;
        match waitid(WaitId::Pid(self.pgid), opts) {
            Ok(Some(_)) => {}
            Ok(None) | Err(Errno::INTR) => return Ok(None),
            Err(e) => return Err(self.fail("waiting for it", e.into())),
        }
        self.signal_group(Signal::KILL);
        tell_watchdog('-', self.pgid);
        let status = match self.child.wait() {
            Ok(s) => s,
            Err(e) => return Err(self.fail("reaping it", e)),
        };
        self.reaped = true;
        Ok(Some(match (status.code(), status.signal()) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(sig)) => Exit::Signal(sig),
            (None, None) => Exit::Code(status.into_raw()),
        }))
    }

    fn signal_group(&mut self, sig: Signal) {
        self.note_escaped();
        // ESRCH (group already gone) is the outcome we want; nothing else can be done about others.
        let _ = kill_process_group(self.pgid, sig);
        for &(pid, start) in &self.escaped {
            let Some(p) = Pid::from_raw(pid) else {
                continue;
            };
            // The same process still (not a recycled pid): signal it and the group it leads.
            if proc_stat(pid).is_some_and(|st| st.start == start) {
                let _ = rustix::process::kill_process(p, sig);
                let _ = kill_process_group(p, sig);
            }
        }
    }

    /// Adds to [`Running::escaped`] the descendants of the leader now outside its group.
    fn note_escaped(&mut self) {
        let table = proc_table();
        let pgid = self.pgid.as_raw_nonzero().get();
        let mut tree: std::collections::HashSet<i32> = table
            .iter()
            .filter(|st| st.pgrp == pgid)
            .map(|st| st.pid)
            .collect();
        loop {
            let before = tree.len();
            for st in &table {
                if tree.contains(&st.ppid) {
                    tree.insert(st.pid);
                }
            }
            if tree.len() == before {
                break;
            }
        }
        for st in table {
            if tree.contains(&st.pid)
                && st.pgrp != pgid
                && !self.escaped.iter().any(|(p, _)| *p == st.pid)
            {
                self.escaped.push((st.pid, st.start));
            }
        }
    }

    fn fail(&mut self, action: &'static str, source: io::Error) -> ProcessError {
        self.kill_and_reap();
        ProcessError::Io {
            program: self.program.clone(),
            action,
            source,
        }
    }

    fn kill_and_reap(&mut self) {
        if !self.reaped {
            self.signal_group(Signal::KILL);
            tell_watchdog('-', self.pgid);
            let _ = self.child.wait();
            self.reaped = true;
        }
    }
}

/// The fields of `/proc/<pid>/stat` the tree scan uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ProcStat {
    pid: i32,
    ppid: i32,
    pgrp: i32,
    /// Start time in clock ticks since boot: with the pid, a process's identity.
    start: u64,
}

/// Parses `/proc/<pid>/stat` text (the command name, in parentheses, may hold anything).
fn parse_stat(pid: i32, text: &str) -> Option<ProcStat> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(ProcStat {
        pid,
        ppid: f.get(1)?.parse().ok()?,
        pgrp: f.get(2)?.parse().ok()?,
        start: f.get(19)?.parse().ok()?,
    })
}

fn proc_stat(pid: i32) -> Option<ProcStat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(pid, &text)
}

/// Every process visible in `/proc` (none where there is no `/proc`).
fn proc_table() -> Vec<ProcStat> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(proc_stat)
        .collect()
}

impl Drop for Running {
    fn drop(&mut self) {
        self.kill_and_reap();
    }
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
