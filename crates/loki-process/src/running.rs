//! A started child and the loop that waits for it: reads its pipes into the bounded captures,
//! enforces the timeout, a [`Cancel`] and [`crate::stop_all`], finds descendants that left the
//! group, and kills what is left of the group before the leader is reaped.

use std::io::{self, PipeReader, PipeWriter, Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::fd::OwnedFd;
use rustix::io::Errno;
use rustix::process::{
    Pid, PidfdFlags, Signal, WaitId, WaitIdOptions, kill_process_group, pidfd_open, waitid,
};

use crate::output::{CaptureBuf, SpoolFile};
use crate::tree::{proc_stat, proc_table};
use crate::watchdog::{STOP_EPOCH, tell_watchdog};
use crate::{
    Cancel, DRAIN_GRACE, Exit, Input, Output, POLL_TICK, ProcessError, READ_CHUNK, STDIN_CAP, Spec,
    Spooled, Streams, TERM_GRACE, TREE_SCAN, stop_signal,
};

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
    /// The thread writing [`Spec::stdin_bytes`], when there are any.
    feeder: Option<Feeder>,
    /// A pidfd of the leader (Linux 5.3+), readable once it exited; `None` where the kernel
    /// has none, and the wait notices the exit at the next tick instead.
    exit_fd: Option<OwnedFd>,
}

/// The writer of a child's stdin: a thread, so a child that reads slowly (or never) cannot
/// stall the loop that reads its output and enforces its timeout.
#[derive(Debug)]
struct Feeder {
    thread: JoinHandle<()>,
    /// Bytes the pipe accepted so far.
    taken: Arc<AtomicU64>,
    len: u64,
}

impl Feeder {
    /// Starts writing `input` to `pipe`; the pipe is closed when all is written or the child
    /// stopped reading (`EPIPE`: Rust ignores `SIGPIPE`, so this is an error return, not a death).
    fn start(pipe: PipeWriter, input: Input) -> io::Result<Feeder> {
        let taken = Arc::new(AtomicU64::new(0));
        let counter = Arc::clone(&taken);
        let len = input.bytes().len() as u64;
        let thread = std::thread::Builder::new()
            .name("loki-process-stdin".into())
            .spawn(move || {
                let mut pipe = pipe;
                let mut rest = input.bytes();
                while !rest.is_empty() {
                    match pipe.write(rest) {
                        Ok(0) => break,
                        Ok(n) => {
                            rest = &rest[n..];
                            counter.fetch_add(n as u64, Ordering::SeqCst);
                        }
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        // EPIPE and anything else: the child will not read the rest.
                        Err(_) => break,
                    }
                }
            })?;
        Ok(Feeder { thread, taken, len })
    }

    fn unread(&self) -> u64 {
        self.len.saturating_sub(self.taken.load(Ordering::SeqCst))
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
    let Wired {
        mut cmd,
        pipes,
        feed,
    } = wire(spec, &program)?;
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
    let feeder = match feed {
        None => None,
        Some((pipe, input)) => match Feeder::start(pipe, input) {
            Ok(f) => Some(f),
            Err(source) => {
                // No writer: kill the child before it waits for input that never comes.
                let _ = kill_process_group(pgid, Signal::KILL);
                tell_watchdog('-', pgid);
                let mut child = child;
                let _ = child.wait();
                return Err(ProcessError::Spawn { program, source });
            }
        },
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
        feeder,
        exit_fd: pidfd_open(pgid, PidfdFlags::empty()).ok(),
    })
}

/// The command of `spec` before it starts, with the read ends of its output pipes (stdout
/// first, then stderr when separate) and its stdin's write end with the input to feed.
struct Wired {
    cmd: Command,
    pipes: Vec<(usize, PipeReader)>,
    feed: Option<(PipeWriter, Input)>,
}

/// Builds the command of `spec` (`program` names it in errors): its arguments, directory and
/// environment, its own process group, and its stdin, stdout and stderr wired to pipes.
fn wire(spec: &Spec, program: &str) -> Result<Wired, ProcessError> {
    let pipe_err = |source| ProcessError::Spawn {
        program: program.to_string(),
        source,
    };
    let mut pipes = Vec::new();
    let mut cmd = Command::new(&spec.program);
    cmd.args(&spec.args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(crate::with_pwd(spec.env.clone(), &spec.cwd))
        .process_group(0);
    let feed = match &spec.stdin {
        None => {
            cmd.stdin(Stdio::null());
            None
        }
        Some(input) if input.bytes().len() > STDIN_CAP => {
            return Err(ProcessError::StdinTooLarge {
                program: program.to_string(),
                bytes: input.bytes().len(),
                cap: STDIN_CAP,
            });
        }
        Some(input) => {
            let (in_r, in_w) = io::pipe().map_err(pipe_err)?;
            cmd.stdin(in_r);
            Some((in_w, input.clone()))
        }
    };
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
    Ok(Wired { cmd, pipes, feed })
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
            self.pump(&mut scratch, exit.is_none())?;
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
            let fed = self.feeder.as_ref().is_none_or(|f| f.thread.is_finished());
            if let (Some((status, duration)), Some(until)) = (exit, drain_until)
                && ((self.pipes.is_empty() && fed) || now >= until)
            {
                // A writer still blocked here is held by a process that left the group (its
                // pipe's last reader); it ends with that process, so it is let go, not joined.
                let stdin_unread = match self.feeder.take() {
                    Some(f) => {
                        let unread = f.unread();
                        if f.thread.is_finished() {
                            let _ = f.thread.join();
                        }
                        unread
                    }
                    None => 0,
                };
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
                    stdin_unread,
                });
            }
        }
    }

    /// Waits up to one tick for output and reads what is there; closes pipes at EOF.
    fn pump(&mut self, scratch: &mut [u8], watch_exit: bool) -> Result<(), ProcessError> {
        // The leader's exit wakes the wait too (its pidfd turns readable), so the result is
        // ready as soon as it is, not up to a tick later: a judgement starts dozens of short
        // `git` calls. Once the exit is seen it is not watched (it stays readable).
        let exit_fd = self.exit_fd.as_ref().filter(|_| watch_exit);
        if self.pipes.is_empty() && exit_fd.is_none() {
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
            if let Some(fd) = exit_fd {
                fds.push(PollFd::new(fd, PollFlags::IN));
            }
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

impl Drop for Running {
    fn drop(&mut self) {
        self.kill_and_reap();
    }
}
