//! Headless Chromium driven over the Chrome DevTools Protocol (CDP), for loki's browser crash
//! capture (`loki run --url`) and, later, the control plane's UI tests.
//!
//! # What it owns
//! - **Finding a browser** ([`launch::find`]): `LOKI_BROWSER` when set, else the first of
//!   `chromium`, `chromium-browser`, `google-chrome`, `google-chrome-stable` on `PATH`.
//! - **Launch** ([`Browser::launch`]): the browser runs through loki's one process runner in a
//!   process group of its own, with a fresh profile directory (a temp dir), `--headless
//!   --no-sandbox --disable-gpu --remote-debugging-port=0` and the switches that stop it from
//!   calling home. The DevTools port is read from `DevToolsActivePort` in the profile; the
//!   connection is a plain loopback WebSocket ([`cdp`]).
//! - **One page session** ([`Browser::open_page`]): `Target.createTarget` + flat
//!   `Target.attachToTarget`; commands carry its `sessionId`.
//! - **Events**: every message that is not a reply is queued in arrival order and handed out by
//!   [`Browser::next_event`]; nothing is dropped while waiting for a reply.
//! - **Page checks** ([`page`]): load a URL, run scripted steps ([`page::Step`]), collect
//!   uncaught exceptions, unhandled rejections, `console.error` and failed same-origin requests
//!   with their URL stack frames; optionally a screencast ([`video`]) as an animated PNG;
//!   a screenshot of a page ([`page::screenshot`]).
//! - **Visual evidence** ([`evidence`], [`routes`]): which changed files are pages of a web app,
//!   their routes, and screenshots of them with the app served as its dev script serves it.
//! - **A static file server** ([`serve`]) on 127.0.0.1 for pages that have no server of their own.
//! - **Shutdown** ([`Browser::close`], also on drop): `Browser.close`, then the whole process
//!   group is stopped (SIGTERM, SIGKILL after the runner's grace) and reaped, and the profile
//!   directory removed. If loki itself dies, the runner's watchdog kills the group.
//!
//! # Invariants
//! - Every wait is bounded: launch, each command, each event wait and each step has a deadline;
//!   a browser that dies mid-session is reported as [`BrowserError::Gone`] with the tail of its
//!   output, never as a hang.
//! - Only loopback: the driver connects to 127.0.0.1 and the server binds 127.0.0.1.
//!
//! # Never
//! Print, read a secret, run the browser outside the process runner, or leave a browser process
//! or profile directory behind after [`Browser`] is dropped.

pub mod cdp;
mod error;
pub mod evidence;
pub mod harness;
pub mod launch;
pub mod page;
pub mod routes;
pub mod serve;
pub mod video;

pub use error::BrowserError;
pub use harness::{PageOutcome, PageRun, run_page};
pub use launch::{Browser, find, version_of};
pub use page::{CheckOptions, CheckReport, PageError, PageErrorKind, Step, UrlFrame, parse_steps};
