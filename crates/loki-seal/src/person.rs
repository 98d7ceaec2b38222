//! How a stop's verdict reaches the person running the agent, in every mode of every client.
//!
//! # Three channels
//! 1. **The client's own** ([`crate::hook::respond`]): `systemMessage` (and `stopReason` on a
//!    release) for the agents that show it.
//! 2. **loki's stderr**: every answer carries [`line()`] on the hook's stderr too, except Claude
//!    Code's block, whose stderr is the reason handed to the model. With exit 0, the pinned
//!    clients keep a hook's stderr out of sight (a log, a transcript view), so it only adds a
//!    record.
//! 3. **The client's stderr** ([`relay_target`]): where the client's mode shows nothing a Stop
//!    hook says, the CLI writes [`line()`] to the stderr the client itself inherited (its
//!    `/proc/<pid>/fd/2`), which is the person's terminal, or the file or pipe they read.
//!
//! # What each pinned client shows of a Stop hook's answer
//! Measured with the real clients; the conformance tests (`loki-cli`'s `tests/all/agents`) pin it.
//!
//! | client | mode | allow / release (`systemMessage`, `stopReason`) | block | loki relays |
//! |---|---|---|---|---|
//! | Claude Code 2.1.332 | TUI | `Stop says: …` notice | `Stop hook feedback` | no |
//! | | `-p` text, `--output-format json` | nothing (json: `terminal_reason`) | nothing | yes |
//! | | `-p --output-format stream-json` | `system`/`informational` event | a `user` event | yes |
//! | Codex 0.171 | TUI (hooks run in its app-server) | `Hook · …`, `Hook stopped └ …` | not measured | no |
//! | | `exec`, `exec --json` | nothing (text: `hook: Stop Completed/Stopped`) | `hook: Stop Blocked` | yes |
//! | Gemini CLI 0.61 | TUI | `ℹ … [<hook command>]` | not measured | no |
//! | | `-p` | `Hook system message: …` on stderr | `[WARNING] Agent execution blocked` | no |
//! | | `-o json` | the same on stderr | in the result's `warnings` | no |
//! | | `-o stream-json` | the same on stderr | a `warning` event | no |
//! | Cursor (`cursor-agent`, not measured) | `-p`/`--print` | (no allow message at all) | not measured | yes |
//!
//! # Finding the client ([`relay_target`])
//! A hook's stdout is a pipe or socket that the client reads (it parses the answer), and every
//! process in between (a `sh -c`) shares it. So the client is the nearest ancestor whose stdout
//! is not the hook's own; its command line says its mode ([`relays`]). `/dev/tty` is no way to
//! the person: Claude Code and Codex start hooks in a session of their own (no controlling
//! terminal), and where a hook has one (Gemini CLI) the TUI draws on it.
//!
//! # Never
//! Block, fail the hook, or corrupt a protocol: the target is opened non-blocking and written
//! once (the CLI gives up on any error); no relay when the client's stdout is not a pipe of
//! ours (the hook was run by hand), when the client's JSON output and its stderr are one pipe
//! or file (`2>&1` into a JSON reader), or when the target is a terminal the hook could be
//! stopped for writing to (its controlling terminal with another process group in front).

use std::fs::Metadata;
use std::os::unix::fs::{FileTypeExt as _, MetadataExt as _};
use std::path::{Path, PathBuf};

use crate::decide::Decision;
use crate::hook::Agent;

/// How far up the process tree the client is looked for (hook, `sh -c`, a wrapper, the client).
const MAX_DEPTH: usize = 8;

/// The one line the person reads about `decision`.
#[must_use]
pub fn line(decision: &Decision) -> String {
    match decision {
        Decision::Allow { message } | Decision::Release { message } => one_line(message),
        Decision::Block { reason } => {
            // A block's reason is written for the model: the instruction, one "- " line per
            // finding or undeclared change, advice, then after a blank line the suites' output.
            // The person gets the findings.
            let items: Vec<&str> = reason
                .lines()
                .take_while(|l| !l.trim().is_empty())
                .filter_map(|l| l.strip_prefix("- "))
                .map(str::trim)
                .collect();
            if items.is_empty() {
                one_line(reason.lines().find(|l| !l.trim().is_empty()).unwrap_or(""))
            } else {
                format!(
                    "loki seal: BLOCKED, the agent was told to go on: {}",
                    items.join("; ")
                )
            }
        }
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether the client, run with the command line `argv`, is in a mode where a Stop hook's message
/// does not reach the person (see the module doc's table).
#[must_use]
pub fn relays(agent: Agent, argv: &[String]) -> bool {
    let args = argv.get(1..).unwrap_or_default();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    match agent {
        Agent::Claude | Agent::Cursor => has("-p") || has("--print"),
        Agent::Codex => has("exec") || args.first().is_some_and(|a| a == "e"),
        // Gemini CLI prints "Hook system message: …" on its stderr in every headless mode.
        Agent::Gemini => false,
    }
}

/// Whether the client writes its JSON protocol on stdout (a reader parses every line of it).
#[must_use]
pub fn json_output(agent: Agent, argv: &[String]) -> bool {
    let args = argv.get(1..).unwrap_or_default();
    let has = |flag: &str| args.iter().any(|a| a == flag);
    let format = |long: &str, short: Option<&str>| {
        args.iter().enumerate().any(|(i, a)| {
            let value = match a.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                Some(v) => Some(v),
                None if a == long || short == Some(a.as_str()) => {
                    args.get(i + 1).map(String::as_str)
                }
                None => None,
            };
            value.is_some_and(|v| v != "text")
        })
    };
    match agent {
        Agent::Claude | Agent::Cursor => format("--output-format", None),
        Agent::Codex => has("--json") || has("--experimental-json"),
        Agent::Gemini => format("--output-format", Some("-o")),
    }
}

/// Where [`line()`] is written besides the hook's answer: the client's inherited stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relay {
    /// The client's process id.
    pub pid: u32,
    /// Its command line.
    pub argv: Vec<String>,
    /// `/proc/<pid>/fd/2`.
    pub path: PathBuf,
}

/// The client's stderr, when the client is found and its mode needs the relay; `None` otherwise
/// (not Linux, `/proc` unreadable, the hook run by hand, a mode that shows the verdict itself,
/// or a target that is unsafe to write: see the module doc).
#[must_use]
pub fn relay_target(agent: Agent) -> Option<Relay> {
    relay_target_in(Path::new("/proc"), std::process::id(), agent)
}

/// Writes [`line()`] of `decision` to the client's stderr where its mode shows nothing a hook
/// says ([`relay_target`]). Best effort and never blocking: one non-blocking write, any error
/// ignored (the hook's answer still carries the verdict).
pub fn relay(agent: Agent, decision: &Decision) {
    use rustix::fs::{Mode, OFlags};
    let Some(target) = relay_target(agent) else {
        return;
    };
    let flags =
        OFlags::WRONLY | OFlags::APPEND | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    if let Ok(fd) = rustix::fs::open(&target.path, flags, Mode::empty()) {
        let line = format!("{}\n", line(decision));
        // Ignored on purpose: a full pipe or a closed reader loses the line, never the answer.
        let _ = rustix::io::write(&fd, line.as_bytes());
    }
}

/// [`relay_target`] over a `/proc` at `root`, for the hook process `me`.
#[must_use]
pub fn relay_target_in(root: &Path, me: u32, agent: Agent) -> Option<Relay> {
    let ours = fd_meta(root, me, 1)?;
    // A hook's stdout is the client's pipe or socket; anything else means no client reads it.
    if !(ours.file_type().is_fifo() || ours.file_type().is_socket()) {
        return None;
    }
    let mut pid = parent(root, me)?;
    for _ in 0..MAX_DEPTH {
        if pid <= 1 {
            return None;
        }
        let stdout = fd_meta(root, pid, 1);
        if stdout.as_ref().is_some_and(|m| same(m, &ours)) {
            pid = parent(root, pid)?;
            continue;
        }
        let argv = argv(root, pid);
        if !relays(agent, &argv) {
            return None;
        }
        let path = root.join(pid.to_string()).join("fd/2");
        let stderr = std::fs::metadata(&path).ok()?;
        let merged = stdout.is_some_and(|o| same(&o, &stderr));
        if stderr.file_type().is_socket()
            || (merged && !stderr.file_type().is_char_device() && json_output(agent, &argv))
            || would_stop(root, me, &stderr)
        {
            return None;
        }
        return Some(Relay { pid, argv, path });
    }
    None
}

fn fd_meta(root: &Path, pid: u32, fd: u8) -> Option<Metadata> {
    std::fs::metadata(root.join(pid.to_string()).join("fd").join(fd.to_string())).ok()
}

fn same(a: &Metadata, b: &Metadata) -> bool {
    a.dev() == b.dev() && a.ino() == b.ino()
}

fn stat(root: &Path, pid: u32) -> Option<loki_process::ProcStat> {
    let text = std::fs::read_to_string(root.join(pid.to_string()).join("stat")).ok()?;
    loki_process::parse_stat(i32::try_from(pid).ok()?, &text)
}

fn parent(root: &Path, pid: u32) -> Option<u32> {
    u32::try_from(stat(root, pid)?.ppid).ok()
}

fn argv(root: &Path, pid: u32) -> Vec<String> {
    std::fs::read(root.join(pid.to_string()).join("cmdline"))
        .map(|b| {
            b.split(|&c| c == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect()
        })
        .unwrap_or_default()
}

/// Whether writing to `target` could stop the hook (SIGTTOU): it is the hook's controlling
/// terminal and another process group is in its foreground.
fn would_stop(root: &Path, me: u32, target: &Metadata) -> bool {
    if !target.file_type().is_char_device() {
        return false;
    }
    let Some(s) = stat(root, me) else {
        return true;
    };
    s.tty_nr != 0
        && u64::try_from(s.tty_nr).ok() == Some(target.rdev())
        && i64::from(s.pgrp) != s.tpgid
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests;
