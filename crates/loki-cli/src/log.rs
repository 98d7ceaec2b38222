//! Diagnostics: the libraries' `tracing` events, written to stderr only when asked for.
//!
//! - `LOKI_LOG` takes `tracing-subscriber`'s filter syntax: `debug`, `loki_checks=debug`,
//!   `loki_checks::judge=trace,loki_git=debug`. It wins over `--verbose`.
//! - `--verbose` alone shows the `info` events of loki's crates (the judge's phases and their
//!   times, each test run's command and outcome).
//! - Neither: nothing is installed, so events cost one relaxed atomic load each.
//!
//! Every line goes to stderr, with the seconds since start, so stdout (`--json` included) is
//! byte-for-byte what it is without diagnostics. A filter that does not parse is reported once
//! on stderr and diagnostics stay off: a typo in a debugging aid must not fail the command.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::time::Uptime;

/// What `--verbose` shows when `LOKI_LOG` is not set.
const VERBOSE_FILTER: &str = "loki_agent=info,loki_checks=info,loki_core=info,loki_engine=info,\
loki_events=info,loki_git=info,loki_heal=info,loki_patch=info,loki_receipt=info,\
loki_repomap=info,loki_seal=info";

/// Installs the stderr subscriber if `LOKI_LOG` or `verbose` asks for one.
pub fn init(verbose: bool, color: bool) {
    let wanted = loki_core::env::LOG.get().filter(|v| !v.trim().is_empty());
    let directives = match (&wanted, verbose) {
        (Some(v), _) => v.as_str(),
        (None, true) => VERBOSE_FILTER,
        (None, false) => return,
    };
    let filter = match EnvFilter::try_new(directives) {
        Ok(f) => f,
        Err(e) => {
            anstream::eprintln!(
                "loki: {}={directives:?} is not a filter ({e}); diagnostics are off",
                loki_core::env::LOG.name
            );
            return;
        }
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_timer(Uptime::default())
        .with_ansi(color)
        .try_init();
}
