//! Ctrl-C and `SIGTERM` for every command that runs children (`loki run`, `fix`, `replay`, a build,
//! `demo`): loki does not die on the spot, it stops its children and says what it left. The one
//! signal handler of the process: only the binary installs it (libraries never install their
//! own), and it prints through the binary's [`Report`] function, given at [`install`].
//!
//! A build ([`install_cancel`]) gets a [`Cancel`] token as well: the first signal sets it, so the
//! engine stops at its next safe point, still commits and seals, and prints its summary; it is
//! forced only by a second signal (sealing must not be cut by a timer).
//!
//! On the first signal, every child running at that moment gets the same signal in its whole
//! process group, then `SIGKILL` after the runner's grace ([`crate::stop_all`]).
//! The command then ends by itself: it sees the stopped child, seals what it must and returns;
//! `main` calls [`finish`], which has the report print what was left (the note of [`left`]) and gives exit 130
//! for `SIGINT`, 143 for `SIGTERM`, whatever the command returned. When the command has not ended [`FORCE_AFTER`] later (a model call in flight
//! cannot be stopped), at a second signal, or at once while it waits at a prompt ([`at_prompt`]),
//! the handler kills the children still running, removes loki's temporary directories
//! ([`loki_core::scratch::remove_all`]: `exit` skips their destructors), reports the note itself
//! and exits with that code.
//!
//! The handler runs on its own thread with a one-thread runtime, so it works while the command's
//! thread is blocked waiting for a child. Children run in their own process groups, so the
//! terminal's Ctrl-C reaches loki only; this handler is what passes it on.

use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use crate::Cancel;
use loki_protocol::outcome::ExitCode;
use rustix::process::Signal;
use tokio::signal::unix::{SignalKind, signal};

/// How the binary prints the note of an interruption: the signal's name (`SIGINT`) and what the
/// command left.
pub type Report = fn(signal: &str, note: &str);

/// Why the handler could not be installed.
#[derive(Debug, thiserror::Error)]
pub enum SignalError {
    #[error("cannot start the signal handler: {0}")]
    Start(#[source] std::io::Error),
    #[error("the signal handler thread ended early")]
    Ended,
}

impl loki_core::exit::Classify for SignalError {
    /// The process could not set up its handler: a failure of the machine, not the user's input.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            SignalError::Start(_) | SignalError::Ended => loki_core::exit::ExitClass::Failure,
        }
    }
}

/// How long the command gets to end by itself after the first signal: the runner's grace for a
/// child to go, then time to seal a receipt.
pub const FORCE_AFTER: Duration = Duration::from_secs(5);

/// What the command would leave if it were interrupted now.
#[derive(Debug)]
struct State {
    note: String,
    /// Waiting for the user (a prompt): nothing to finish, so a signal ends loki at once.
    immediate: bool,
    /// The command is printing its own end: the handler must not print or exit.
    done: bool,
}

static STATE: Mutex<State> = Mutex::new(State {
    note: String::new(),
    immediate: false,
    done: false,
});
/// The first signal received (raw number), 0 before.
static RECEIVED: AtomicI32 = AtomicI32::new(0);
static INSTALLED: std::sync::OnceLock<()> = std::sync::OnceLock::new();
/// The build's token, set by the first signal ([`install_cancel`]).
static CANCEL: std::sync::OnceLock<Cancel> = std::sync::OnceLock::new();
/// The binary's printer of the note, set by the first [`install`].
static REPORT: std::sync::OnceLock<Report> = std::sync::OnceLock::new();

/// Like [`install`], for a build: returns the token the first signal sets. The command is never
/// forced by the timer, only by a second signal.
pub fn install_cancel(note: impl Into<String>, report: Report) -> Result<Cancel, SignalError> {
    install(note, report)?;
    let cancel = CANCEL.get_or_init(Cancel::new).clone();
    // A signal that came before the token existed (the handler was installed earlier, by
    // `main`) still stops the build.
    if RECEIVED.load(Ordering::SeqCst) != 0 {
        cancel.cancel();
    }
    Ok(cancel)
}

/// Installs the handler (once per process) with `note` as what an interruption now would leave;
/// `report` prints that note when loki is interrupted (the first one given is kept).
pub fn install(note: impl Into<String>, report: Report) -> Result<(), SignalError> {
    left(note);
    let _ = REPORT.set(report);
    if INSTALLED.get().is_some() {
        return Ok(());
    }
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<std::io::Result<()>>();
    std::thread::Builder::new()
        .name("loki-signals".into())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .enable_time()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(e));
                    return;
                }
            };
            rt.block_on(async move {
                let streams = signal(SignalKind::interrupt())
                    .and_then(|i| Ok((i, signal(SignalKind::terminate())?)));
                let (mut int, mut term) = match streams {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                let _ = ready_tx.send(Ok(()));
                let mut deadline: Option<tokio::time::Instant> = None;
                loop {
                    let at = deadline;
                    let force_at = async move {
                        match at {
                            Some(d) => tokio::time::sleep_until(d).await,
                            None => std::future::pending::<()>().await,
                        }
                    };
                    tokio::select! {
                        _ = int.recv() => on_signal(Signal::INT, &mut deadline),
                        _ = term.recv() => on_signal(Signal::TERM, &mut deadline),
                        () = force_at => force(),
                    }
                }
            });
        })
        .map_err(SignalError::Start)?;
    ready_rx
        .recv()
        .map_err(|_| SignalError::Ended)?
        .map_err(SignalError::Start)?;
    let _ = INSTALLED.set(());
    Ok(())
}

fn on_signal(sig: Signal, deadline: &mut Option<tokio::time::Instant>) {
    let first = RECEIVED
        .compare_exchange(0, sig.as_raw(), Ordering::SeqCst, Ordering::SeqCst)
        .is_ok();
    if !first {
        force();
        return;
    }
    crate::stop_all(sig);
    if let Some(cancel) = CANCEL.get() {
        cancel.cancel();
        return;
    }
    let immediate = STATE.lock().map(|s| s.immediate).unwrap_or(true);
    if immediate {
        force();
    } else {
        *deadline = Some(tokio::time::Instant::now() + FORCE_AFTER);
    }
}

/// Ends loki from the handler: the note, then the signal's exit code. Not while the command is
/// printing its own end.
fn force() {
    let Ok(state) = STATE.lock() else {
        std::process::exit(i32::from(ExitCode::Interrupted.code()));
    };
    if state.done {
        return;
    }
    let code = exit_code().unwrap_or(ExitCode::Interrupted);
    // `exit` skips destructors: the children go first (they may be writing into loki's
    // temporary directories), then those directories.
    crate::kill_all_now();
    // SIGKILL is delivered asynchronously: a moment for the last writes to end.
    std::thread::sleep(Duration::from_millis(100));
    loki_core::scratch::remove_all();
    print_note(&state.note);
    // Exits with the lock held, so the command cannot start printing its own end meanwhile.
    std::process::exit(i32::from(code.code()));
}

fn print_note(note: &str) {
    if let Some(report) = REPORT.get() {
        report(signal_name().unwrap_or("a signal"), note);
    }
}

/// Sets what an interruption from now on would leave (`the patch stays applied to …`).
pub fn left(note: impl Into<String>) {
    if let Ok(mut s) = STATE.lock() {
        s.note = note.into();
        s.immediate = false;
    }
}

/// Like [`left`], while the command waits for the user: a signal then ends loki at once.
pub fn at_prompt(note: impl Into<String>) {
    if let Ok(mut s) = STATE.lock() {
        s.note = note.into();
        s.immediate = true;
    }
}

/// The name of the signal received (`SIGINT`), if one was.
pub fn signal_name() -> Option<&'static str> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        n if n == Signal::INT.as_raw() => Some("SIGINT"),
        n if n == Signal::TERM.as_raw() => Some("SIGTERM"),
        _ => Some("a signal"),
    }
}

/// The exit code of the signal received: 130 for `SIGINT`, 143 for `SIGTERM`.
pub fn exit_code() -> Option<ExitCode> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        n if n == Signal::TERM.as_raw() => Some(ExitCode::Terminated),
        _ => Some(ExitCode::Interrupted),
    }
}

/// At the end of every command (`main`): when a signal came, reports what was left (once) and
/// returns the exit code loki must end with. The handler no longer exits on its own after this.
pub fn finish() -> Option<ExitCode> {
    let code = exit_code()?;
    if let Ok(mut s) = STATE.lock()
        && !s.done
    {
        s.done = true;
        print_note(&s.note);
    }
    Some(code)
}
