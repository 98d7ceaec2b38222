//! Children run here: process groups, timeouts, bounded output, scrubbed environments, and the
//! Landlock / namespace box of untrusted commands ([`confine`]).
//!
//! This crate is the one process runner: every child loki starts (test suites, the agent's `run`
//! tool, crash reproductions, `git`) goes through [`run`] or [`spawn`]; the workspace's
//! `clippy.toml` refuses `Command::spawn`, `status` and `output` everywhere else. It never decides
//! what to run or whether an exit code is good news (its callers' policy), never prints, and
//! never talks to the network.
//!
//! # Contract
//! - **Explicit environment.** The child starts from an *empty* environment plus exactly the
//!   variables in [`Spec::env`], and a `PWD` that names its directory ([`with_pwd`]: an inherited
//!   one that names another directory is replaced, so no child trusts a shell's stale `PWD`). [`scrubbed_env`] gives the usual one: the current environment minus
//!   anything that looks like a secret ([`is_secret_name`]), plus `CI=1` and `NO_COLOR=1`.
//!   [`caller_env`] is the exception for a program the user asked loki to observe (`loki run`):
//!   the caller's environment unchanged but for loki's own secrets.
//! - **stdin is `/dev/null`**, so a child that waits for input ends instead of hanging, unless
//!   the caller feeds it bytes ([`Spec::stdin_bytes`], at most [`STDIN_CAP`]): then a thread of
//!   the runner writes them to a pipe and closes it, under the same group, timeout, environment
//!   and capture rules. A child that stops reading (exits early: `EPIPE`) or is killed at the
//!   timeout while the writer waits is no error; [`Output::stdin_unread`] counts the bytes it
//!   did not take. The writer never outlives the run by more than [`DRAIN_GRACE`] unless a
//!   process that left the group holds the pipe, and then it ends when that process does.
//! - **Own process group** (`setpgid(0, 0)`): the child leads a new group and everything it forks
//!   stays in it, so the runner can signal the whole tree at once.
//! - **The group dies with the leader.** When the leader exits, the rest of its group is sent
//!   `SIGKILL` (a test server left behind must not outlive its suite). The leader is detected with
//!   `waitid(WNOWAIT)` and the group killed *before* the leader is reaped, so the group id cannot
//!   have been reused by an unrelated process.
//! - **So do the processes that left it.** A descendant that starts a session or group of its
//!   own (`setsid`: a coding agent's terminal, Codex's `exec_command`) escapes a group signal. The
//!   runner looks for them (Linux `/proc`: the leader's descendants by parent pid, outside its
//!   group) every `TREE_SCAN` (one second) while the child runs and again right before each signal, and
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
//! - **Done when it is done.** The wait wakes on output and on the leader's exit (a pidfd,
//!   Linux 5.3+; elsewhere the next 20 ms poll tick), so a short child's result is not held back
//!   by a tick: a judgement starts dozens of `git` calls.
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
//!   `detached.rs` for what of this contract it keeps.
//!
//! # Signals ([`signals`])
//! The process's one `SIGINT`/`SIGTERM` handler: installed by the binary only, it stops every
//! running child ([`stop_all`]), sets the build's [`Cancel`] token, and ends loki with 130 or 143
//! when the command does not end by itself. Its module doc is the spec.
//!
//! # Confinement ([`confine`])
//! The box of untrusted commands: a Landlock [`confine::Policy`] (denied, writable, read-only
//! paths), network, PID and mount namespaces, applied by the `loki __confine` wrapper to itself
//! before it `exec`s the command. Its module doc is the spec.
//!
//! The runner never interprets output and never decides whether an exit code is good news: that is
//! policy and belongs to its callers. It blocks the calling thread; async callers run it on a
//! blocking thread and use [`Cancel`] to stop it.

use std::time::Duration;

pub mod confine;
mod detached;
mod environment;
mod error;
mod output;
mod running;
pub mod signals;
mod spec;
mod tree;
pub use tree::{ProcStat, parse_stat};
mod watchdog;

pub use detached::{Detached, spawn_detached};
pub use environment::{
    caller_env, is_secret_name, relocate, scrub, scrubbed_env, shell_quote, with_pwd,
    without_loki_secrets, without_secrets,
};
pub use error::ProcessError;
pub use output::{Captured, Exit, Output, Spooled};
pub use running::{Running, run, spawn};
pub use spec::{Cancel, Input, Spec, Streams};
pub use watchdog::{WATCHDOG_SCRIPT, kill_all_now, stop_all, stop_signal, watchdog_running};

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
pub(crate) const SIGNAL_EXIT_BASE: i32 = 128;
/// How often the wait loop looks at the clock and the leader when no output arrives.
pub(crate) const POLL_TICK: Duration = Duration::from_millis(20);
/// How often a running child's tree is scanned for descendants that left its group.
pub(crate) const TREE_SCAN: Duration = Duration::from_secs(1);
/// Most bytes [`Spec::spool`] writes: far beyond any test report, short of filling a disk.
pub const SPOOL_CAP: u64 = 4 * 1024 * 1024 * 1024;
/// Most bytes [`Spec::stdin_bytes`] may feed a child: far beyond a batch of requests (the
/// purpose: one `git cat-file --batch` for many files), and a bound on what a spec holds.
pub const STDIN_CAP: usize = 64 * 1024 * 1024;
/// Bytes read per `read(2)`: one pipe buffer's worth is plenty and bounds the scratch buffer.
pub(crate) const READ_CHUNK: usize = 64 * 1024;

#[cfg(test)]
mod tests;
