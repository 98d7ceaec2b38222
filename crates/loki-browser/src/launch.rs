//! Finding, launching and stopping the browser; the page session.
//!
//! Launch: `<browser> --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
//! --disable-background-networking --disable-component-update --disable-sync
//! --user-data-dir=<fresh temp dir> --remote-debugging-port=0 about:blank`, started by
//! [`loki_process::spawn`] (own process group, stdin closed, output bounded, registered
//! with the watchdog; `HOME` and the XDG directories inside the profile) and waited on by a thread that drains its output. The browser writes
//! `DevToolsActivePort` (line 1 the port, line 2 the browser target's path) into the profile;
//! that file appearing within [`LAUNCH_TIMEOUT`] is the sign it is up. The browser exiting first
//! is [`BrowserError::Launch`] with the tail of its output.
//!
//! Shutdown ([`Browser::close`], also on drop): `Browser.close` (bounded), then the runner's
//! cancel stops the whole group (SIGTERM, SIGKILL after its grace) and the thread reaps the
//! leader; the profile directory is removed last.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use loki_process::{self as process, Cancel, Output, ProcessError, Spec};
use serde_json::{Value, json};

use crate::BrowserError;
use crate::cdp::{Cdp, Event};

/// Names looked for on `PATH`, in order.
pub const CANDIDATES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];
/// How long a browser may take to write `DevToolsActivePort` (a cold start on a loaded CI box).
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(60);
/// Upper bound on one browser's life: a session never legitimately lasts longer.
const SESSION_LIMIT: Duration = Duration::from_secs(3600);
/// Output of the browser kept for error messages (head and tail).
const OUTPUT_CAP: usize = 64 * 1024;
/// Default deadline of one protocol command.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(30);
/// `Browser.close` gets this long before the group is stopped anyway.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(3);
/// Poll interval while waiting for the port file.
const PORT_POLL: Duration = Duration::from_millis(50);
/// `--version` may take this long.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);
/// Characters of the browser's output quoted in an error.
const TAIL_CHARS: usize = 2000;

/// The switches every launch uses (see the module doc).
const FLAGS: &[&str] = &[
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--mute-audio",
    "--remote-debugging-port=0",
];

/// The browser loki would use: `LOKI_BROWSER`, else the first candidate on `PATH`.
pub fn find() -> Result<PathBuf, BrowserError> {
    let var = loki_core::env::BROWSER;
    if let Some(p) = var.get_os().filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return which::which(&p).map_err(|_| BrowserError::NotFound {
            looked: format!("{}={} is not an executable", var.name, p.display()),
        });
    }
    CANDIDATES
        .iter()
        .find_map(|c| which::which(c).ok())
        .ok_or_else(|| BrowserError::NotFound {
            looked: format!("none of {} on PATH", CANDIDATES.join(", ")),
        })
}

/// `<browser> --version`, first line of stdout (`Chromium 120.0.6099.224 built on Debian …`).
pub fn version_of(program: &Path) -> Result<String, BrowserError> {
    let cwd = std::env::temp_dir();
    let spec = Spec::new(program, &cwd)
        .arg("--version")
        .envs(process::scrubbed_env())
        .timeout(VERSION_TIMEOUT)
        .output_cap(OUTPUT_CAP)
        .streams(process::Streams::Separate);
    let out = process::run(&spec).map_err(|e| BrowserError::Launch {
        program: program.display().to_string(),
        detail: e.to_string(),
    })?;
    let text = out.output.text();
    match text.lines().map(str::trim).find(|l| !l.is_empty()) {
        Some(line) if out.success() => Ok(line.to_string()),
        _ => Err(BrowserError::Launch {
            program: program.display().to_string(),
            detail: format!(
                "`--version` exited {} without a version: {}",
                out.exit_code(),
                tail(&out.stderr.text())
            ),
        }),
    }
}

fn tail(s: &str) -> String {
    let chars: Vec<char> = s.trim().chars().collect();
    chars[chars.len().saturating_sub(TAIL_CHARS)..]
        .iter()
        .collect()
}

/// A running headless browser with at most one page session.
#[derive(Debug)]
pub struct Browser {
    cdp: Option<Cdp>,
    program: PathBuf,
    cancel: Cancel,
    waiter: Option<JoinHandle<Result<Output, ProcessError>>>,
    pid: u32,
    profile: Option<loki_core::scratch::Scratch>,
    session: Option<String>,
    /// `Browser.getVersion`'s `product` (`HeadlessChrome/120.0.6099.224`).
    pub product: String,
}

impl Browser {
    /// Starts `program` headless with a fresh profile and connects to it.
    pub fn launch(program: &Path) -> Result<Browser, BrowserError> {
        let profile = loki_core::scratch::Scratch::new("loki-browser-").map_err(|e| {
            BrowserError::io("create a profile directory in", std::env::temp_dir(), e)
        })?;
        let cancel = Cancel::new();
        let spec = Spec::new(program, profile.path())
            .args(FLAGS)
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .envs(process::scrubbed_env())
            // Whatever the browser writes outside its profile (NSS database, caches, crash
            // reports) goes under the profile too: nothing lands in the user's home.
            .env("HOME", profile.path())
            .env("XDG_CONFIG_HOME", profile.path().join(".config"))
            .env("XDG_CACHE_HOME", profile.path().join(".cache"))
            .timeout(SESSION_LIMIT)
            .output_cap(OUTPUT_CAP)
            .cancel_with(cancel.clone());
        let running = process::spawn(&spec).map_err(|e| BrowserError::Launch {
            program: program.display().to_string(),
            detail: e.to_string(),
        })?;
        let pid = running.id();
        let waiter = std::thread::spawn(move || running.wait());
        let mut b = Browser {
            cdp: None,
            program: program.to_path_buf(),
            cancel,
            waiter: Some(waiter),
            pid,
            profile: Some(profile),
            session: None,
            product: String::new(),
        };
        let (port, path) = b.wait_for_port()?;
        b.cdp = Some(Cdp::connect(port, &path)?);
        let v = b.call("Browser.getVersion", json!({}))?;
        b.product = v
            .get("product")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        Ok(b)
    }

    /// The browser's process id, which is also its process group id.
    #[must_use]
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The profile directory (removed on close).
    #[must_use]
    pub fn profile_dir(&self) -> Option<&Path> {
        self.profile.as_ref().map(loki_core::scratch::Scratch::path)
    }

    fn exited(&mut self) -> Option<String> {
        if !self.waiter.as_ref().is_some_and(JoinHandle::is_finished) {
            return None;
        }
        let out = self.waiter.take().map(JoinHandle::join);
        Some(match out {
            Some(Ok(Ok(o))) => format!(
                "it exited {} after printing: {}",
                o.exit_code(),
                tail(&o.output.text())
            ),
            Some(Ok(Err(e))) => e.to_string(),
            Some(Err(_)) | None => "its watcher thread failed".into(),
        })
    }

    fn wait_for_port(&mut self) -> Result<(u16, String), BrowserError> {
        let deadline = Instant::now() + LAUNCH_TIMEOUT;
        let file = self
            .profile_dir()
            .map(|p| p.join("DevToolsActivePort"))
            .unwrap_or_default();
        loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next())
                    && let Ok(port) = port.trim().parse::<u16>()
                {
                    return Ok((port, path.trim().to_string()));
                }
            }
            if let Some(detail) = self.exited() {
                return Err(BrowserError::Launch {
                    program: self.program.display().to_string(),
                    detail,
                });
            }
            if Instant::now() >= deadline {
                return Err(BrowserError::Launch {
                    program: self.program.display().to_string(),
                    detail: format!(
                        "no DevTools port after {}s (DevToolsActivePort never appeared)",
                        LAUNCH_TIMEOUT.as_secs()
                    ),
                });
            }
            std::thread::sleep(PORT_POLL);
        }
    }

    /// Adds what the process said when it died to a [`BrowserError::Gone`].
    fn explain(&mut self, e: BrowserError) -> BrowserError {
        match e {
            BrowserError::Gone { during, detail } => {
                // Give the watcher a moment to notice a dead leader.
                std::thread::sleep(PORT_POLL);
                let why = self.exited().unwrap_or(detail);
                BrowserError::Gone {
                    during,
                    detail: why,
                }
            }
            other => other,
        }
    }

    fn cdp(&mut self) -> Result<&mut Cdp, BrowserError> {
        self.cdp.as_mut().ok_or_else(|| BrowserError::Gone {
            during: "a command".into(),
            detail: "the browser was closed".into(),
        })
    }

    /// A browser-level command.
    pub fn call(&mut self, method: &str, params: Value) -> Result<Value, BrowserError> {
        let r = self.cdp()?.call(None, method, params, CALL_TIMEOUT);
        r.map_err(|e| self.explain(e))
    }

    /// A command to the page session ([`Browser::open_page`] first).
    pub fn page_call(&mut self, method: &str, params: Value) -> Result<Value, BrowserError> {
        self.page_call_timeout(method, params, CALL_TIMEOUT)
    }

    /// [`Browser::page_call`] with its own deadline.
    pub fn page_call_timeout(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, BrowserError> {
        let session = self.session.clone().ok_or_else(|| BrowserError::Protocol {
            method: method.to_string(),
            message: "no page is open (open_page first)".into(),
        })?;
        let r = self.cdp()?.call(Some(&session), method, params, timeout);
        r.map_err(|e| self.explain(e))
    }

    /// Opens a blank page and attaches a flat session to it.
    pub fn open_page(&mut self) -> Result<(), BrowserError> {
        let t = self.call("Target.createTarget", json!({"url": "about:blank"}))?;
        let target = t
            .get("targetId")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let s = self.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        )?;
        self.session = s
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_string);
        if self.session.is_none() {
            return Err(BrowserError::Protocol {
                method: "Target.attachToTarget".into(),
                message: "no sessionId in the reply".into(),
            });
        }
        Ok(())
    }

    /// The next event of the page session (browser-level events are skipped), or `None` at
    /// `deadline`.
    pub fn next_event(&mut self, deadline: Instant) -> Result<Option<Event>, BrowserError> {
        loop {
            let r = self.cdp()?.next_event(deadline);
            match r.map_err(|e| self.explain(e))? {
                Some(e) if e.session.is_some() && e.session == self.session => return Ok(Some(e)),
                Some(_) => {}
                None => return Ok(None),
            }
        }
    }

    /// Closes the browser: see the module doc. Idempotent.
    pub fn close(&mut self) {
        if let Some(cdp) = self.cdp.as_mut() {
            // Best effort: the group is stopped below whatever the answer.
            let _ = cdp.call(None, "Browser.close", json!({}), CLOSE_TIMEOUT);
        }
        self.cdp = None;
        self.cancel.cancel();
        if let Some(w) = self.waiter.take() {
            let _ = w.join();
        }
        // The browser's group is gone: its profile goes (a file still open leaves it behind).
        drop(self.profile.take());
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        self.close();
    }
}
