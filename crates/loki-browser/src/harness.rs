//! One whole page check, as `loki run --url` and its reproduction run it: start the page's
//! server (a command, or [`crate::serve`] for a directory), wait for the URL to answer, launch
//! the browser, [`crate::page::check`], and stop everything again.
//!
//! The server command runs through loki's process runner in its own process group with the
//! caller's environment, and is stopped with its whole group at the end, whatever happened. The
//! URL counts as up when a TCP connection to its host and port gets any HTTP status line back;
//! the command exiting first, or nothing answering within the load timeout, is
//! [`BrowserError::Server`] / [`BrowserError::NotLoaded`], never a crash of the page.

use std::io::{Read as _, Write as _};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use loki_process::{self as process, Cancel, Output, ProcessError, Spec};

use crate::page::{CheckOptions, CheckReport, Step};
use crate::{Browser, BrowserError};

/// How often the URL is tried while the server starts.
const URL_POLL: Duration = Duration::from_millis(100);
/// One probe's connect and read limit.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);
/// The server command's output kept for error messages.
const SERVER_OUTPUT_CAP: usize = 64 * 1024;
/// Upper bound on the server's life.
const SERVER_LIMIT: Duration = Duration::from_secs(3600);

/// What to check and how the page is served.
#[derive(Debug, Clone)]
pub struct PageRun {
    /// An absolute URL, or a path (`/index.html`) when `serve` is set.
    pub url: String,
    pub serve: Option<PathBuf>,
    /// The command that serves the page (empty: none).
    pub server: Vec<String>,
    pub cwd: PathBuf,
    pub steps: Vec<Step>,
    pub settle: Duration,
    pub load_timeout: Duration,
    pub video: Option<PathBuf>,
}

/// What a run found, with the absolute URL it checked.
#[derive(Debug, Clone)]
pub struct PageOutcome {
    pub url: String,
    pub report: CheckReport,
}

/// A server command running in its own process group, stopped with its group when dropped.
/// Shared with [`crate::evidence`], which starts a project's dev server the same way.
pub(crate) struct ServerProc {
    cancel: Cancel,
    waiter: Option<JoinHandle<Result<Output, ProcessError>>>,
    pub(crate) command: String,
}

impl ServerProc {
    /// Starts `spec` (which must not carry a cancel of its own: this one stops it).
    pub(crate) fn spawn(spec: Spec) -> Result<ServerProc, BrowserError> {
        let cancel = Cancel::new();
        let spec = spec.cancel_with(cancel.clone());
        let command = spec.display();
        let running = process::spawn(&spec).map_err(|e| BrowserError::Server {
            command: command.clone(),
            detail: format!("could not start: {e}"),
        })?;
        Ok(ServerProc {
            cancel,
            waiter: Some(std::thread::spawn(move || running.wait())),
            command,
        })
    }

    /// Why the command is no longer running, once it is not.
    pub(crate) fn exited(&mut self) -> Option<String> {
        if !self.waiter.as_ref().is_some_and(JoinHandle::is_finished) {
            return None;
        }
        Some(match self.waiter.take().map(JoinHandle::join) {
            Some(Ok(Ok(o))) => {
                let tail = o.output.tail_text(1000);
                match tail.trim() {
                    "" => format!(
                        "exited {} before the page answered, printing nothing",
                        o.exit_code()
                    ),
                    t => format!(
                        "exited {} before the page answered; its output ends: {t}",
                        o.exit_code()
                    ),
                }
            }
            Some(Ok(Err(e))) => format!("could not run: {e}"),
            Some(Err(_)) | None => "stopped unexpectedly".into(),
        })
    }
}

impl Drop for ServerProc {
    fn drop(&mut self) {
        self.cancel.cancel();
        if let Some(w) = self.waiter.take() {
            let _ = w.join();
        }
    }
}

/// True when something at `url`'s host and port answers HTTP.
pub(crate) fn answers(url: &str) -> bool {
    let Some(rest) = url.split_once("://").map(|(_, r)| r) else {
        return false;
    };
    let hostport = rest.split(['/', '?', '#']).next().unwrap_or("");
    let with_port = if hostport.contains(':') {
        hostport.to_string()
    } else {
        format!("{hostport}:80")
    };
    let Some(addr) = with_port.to_socket_addrs().ok().and_then(|mut a| a.next()) else {
        return false;
    };
    let Ok(mut s) = TcpStream::connect_timeout(&addr, PROBE_TIMEOUT) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(PROBE_TIMEOUT));
    let path = rest.find('/').map_or("/", |i| &rest[i..]);
    if write!(s, "HEAD {path} HTTP/1.0\r\nHost: {hostport}\r\n\r\n").is_err() {
        return false;
    }
    let mut buf = [0u8; 5];
    s.read_exact(&mut buf).is_ok() && &buf == b"HTTP/"
}

/// Waits until `url` answers HTTP: [`BrowserError::Server`] when `server` exits first,
/// [`BrowserError::NotLoaded`] when nothing answers within `timeout`.
pub(crate) fn wait_until_answers(
    url: &str,
    mut server: Option<&mut ServerProc>,
    timeout: Duration,
) -> Result<(), BrowserError> {
    let deadline = Instant::now() + timeout;
    while !answers(url) {
        if let Some(s) = server.as_mut()
            && let Some(detail) = s.exited()
        {
            return Err(BrowserError::Server {
                command: s.command.clone(),
                detail,
            });
        }
        if Instant::now() >= deadline {
            return Err(BrowserError::NotLoaded {
                url: url.to_string(),
                detail: format!(
                    "nothing answered HTTP there within {}s{}",
                    timeout.as_secs(),
                    if server.is_some() {
                        " of starting the server command"
                    } else {
                        " (is the server running?)"
                    }
                ),
            });
        }
        std::thread::sleep(URL_POLL);
    }
    Ok(())
}

/// Runs one check; see the module doc.
pub fn run_page(program: &std::path::Path, run: &PageRun) -> Result<PageOutcome, BrowserError> {
    let server_dir = match &run.serve {
        Some(dir) => Some(crate::serve::Server::start(dir)?),
        None => None,
    };
    let url = match &server_dir {
        Some(s) => crate::page::join_url(&s.origin(), &run.url),
        None => run.url.clone(),
    };
    let mut server = match run.server.split_first() {
        Some((prog, args)) => Some(ServerProc::spawn(
            Spec::new(prog, &run.cwd)
                .args(args)
                .envs(process::caller_env())
                .timeout(SERVER_LIMIT)
                .output_cap(SERVER_OUTPUT_CAP),
        )?),
        None => None,
    };
    wait_until_answers(&url, server.as_mut(), run.load_timeout)?;
    let mut browser = Browser::launch(program)?;
    let report = crate::page::check(
        &mut browser,
        &CheckOptions {
            url: url.clone(),
            steps: run.steps.clone(),
            settle: run.settle,
            load_timeout: run.load_timeout,
            video: run.video.clone(),
        },
    );
    browser.close();
    drop(server.take());
    drop(server_dir);
    Ok(PageOutcome {
        url,
        report: report?,
    })
}
