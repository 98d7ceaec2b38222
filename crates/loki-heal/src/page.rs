//! `loki __page --url URL [--serve DIR] [--steps-json JSON] [--settle-ms N] [--load-timeout S]
//! [-- SERVER…]`: the hidden page check that `loki run --url` observes and `repro.sh` re-runs
//! (see [`crate::web`] for the output format and the exit codes). It starts the server (the
//! command after `--`, or loki's static server for `--serve`), waits for the URL, checks the
//! page in headless Chromium and prints every problem on stderr, the first one being the crash.
//! `LOKI_PAGE_VIDEO=<file>` records the screencast as an animated PNG.
//!
//! Handled before argument parsing like `__confine`: it takes no global flags. Exit 0 no
//! problem, 1 a problem, 3 could not tell (printed as one `[HARNESS] …` line), 2 bad arguments.
//!
//! The binary passes its stdout and stderr; a write error on them is ignored (the exit code
//! still tells the result).

use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use crate::web::{Mapper, PAGE_HARNESS_EXIT, render};
use loki_browser::PageRun;

/// Time after the load and after each step for late errors (timers, promise chains).
const DEFAULT_SETTLE: Duration = Duration::from_millis(500);
/// How long the URL may take to answer and the page to fire `load`.
const DEFAULT_LOAD_TIMEOUT: Duration = Duration::from_secs(30);

fn harness(err: &mut dyn Write, msg: &str) -> u8 {
    let _ = writeln!(err, "[HARNESS] {msg}");
    u8::try_from(PAGE_HARNESS_EXIT).unwrap_or(3)
}

fn usage(err: &mut dyn Write, msg: &str) -> u8 {
    let _ = writeln!(
        err,
        "loki __page: {msg} (usage: loki __page --url URL [--serve DIR] [--steps-json JSON] [--settle-ms N] [--load-timeout S] [-- SERVER…])"
    );
    2
}

/// Runs the check on the arguments after `__page`, writing its report to `out` and `err`.
pub fn run(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let cwd = match std::env::current_dir() {
        Ok(d) => d,
        Err(e) => return harness(err, &format!("cannot read the current directory: {e}")),
    };
    let mut run = PageRun {
        url: String::new(),
        serve: None,
        server: Vec::new(),
        cwd: cwd.clone(),
        steps: Vec::new(),
        settle: DEFAULT_SETTLE,
        load_timeout: DEFAULT_LOAD_TIMEOUT,
        video: loki_core::env::PAGE_VIDEO
            .get_os()
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
    };
    let mut i = 0;
    while i < args.len() {
        let flag = args[i].as_str();
        if flag == "--" {
            run.server = args[i + 1..].to_vec();
            break;
        }
        let Some(value) = args.get(i + 1) else {
            return usage(err, &format!("{flag} needs a value"));
        };
        match flag {
            "--url" => run.url.clone_from(value),
            "--serve" => run.serve = Some(PathBuf::from(value)),
            "--steps-json" => match loki_browser::parse_steps(value) {
                Ok(s) => run.steps = s,
                Err(e) => return usage(err, &e.to_string()),
            },
            "--settle-ms" => match value.parse() {
                Ok(ms) => run.settle = Duration::from_millis(ms),
                Err(_) => return usage(err, "--settle-ms takes milliseconds"),
            },
            "--load-timeout" => match value.parse() {
                Ok(s) => run.load_timeout = Duration::from_secs(s),
                Err(_) => return usage(err, "--load-timeout takes seconds"),
            },
            other => return usage(err, &format!("unknown argument {other}")),
        }
        i += 2;
    }
    if run.url.is_empty() {
        return usage(err, "--url is required");
    }
    let program = match loki_browser::find() {
        Ok(p) => p,
        Err(e) => return harness(err, &e.to_string()),
    };
    let outcome = match loki_browser::run_page(&program, &run) {
        Ok(o) => o,
        Err(e) => return harness(err, &e.to_string()),
    };
    let repo_root =
        loki_core::layout::Repo::discover(&cwd).map_or_else(|_| cwd.clone(), |r| r.root);
    let serve_root = run.serve.clone().unwrap_or(cwd);
    let mut mapper = Mapper::new(&repo_root, &serve_root, &outcome.url);
    let text = render(&outcome.report.errors, &mut mapper, &outcome.url);
    let _ = write!(err, "{text}");
    if let (Some(path), Some(n)) = (&run.video, outcome.report.video_frames) {
        let _ = writeln!(out, "screencast: {} ({n} frames)", path.display());
    }
    if outcome.report.errors.is_empty() {
        let _ = writeln!(
            out,
            "page {} checked in {}: no problem",
            outcome.url, outcome.report.product
        );
        0
    } else {
        1
    }
}
