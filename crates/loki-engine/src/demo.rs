//! The demo: a small Rust crate with a real bug and a failing test, and the scripted sessions
//! that fix it, bundled into the binary so `loki demo` needs no API key and no network.
//!
//! The crate (`calendar`, no dependencies) says every fourth year is a leap year, forgetting the
//! century rule; two of its tests fail. The bundled script has two sessions: `wall` writes
//! `tests/loki_wall_century.rs`, `implement` fixes `is_leap_year`. [`write_repo`] lays the crate out
//! in a directory, `git init`s it and commits it, ready for [`crate::run_build`].

use std::ffi::OsString;
use std::path::Path;
use std::time::Duration;

use loki_core::process::{self, Spec};

use crate::EngineError;

/// The bundled scripted sessions (format: `crates/loki-agent/schema/scripted.schema.json`).
pub const SCRIPT: &str = include_str!("../demo/session.json");
/// The demo's task.
pub const TASK: &str = "is_leap_year is wrong for century years: 1900 is not a leap year, but 2000 is. Fix it so the calendar's tests pass.";
const CARGO_TOML: &str = include_str!("../demo/crate/Cargo.toml.in");
const LIB_RS: &str = include_str!("../demo/crate/lib.rs.in");
const GITIGNORE: &str = include_str!("../demo/crate/gitignore");
const CARGO_LOCK: &str = include_str!("../demo/crate/Cargo.lock.in");
/// git setup is local and tiny.
const GIT_TIMEOUT: Duration = Duration::from_secs(30);

/// Writes the demo crate into `dir` (created), initialises git and commits it.
pub fn write_repo(dir: &Path) -> Result<(), EngineError> {
    for (rel, text) in [
        ("Cargo.toml", CARGO_TOML),
        ("Cargo.lock", CARGO_LOCK),
        ("src/lib.rs", LIB_RS),
        (".gitignore", GITIGNORE),
    ] {
        crate::write_file(&dir.join(rel), text.as_bytes())?;
    }
    let git = |args: &[&str]| -> Result<(), EngineError> {
        let spec = Spec::new("git", dir)
            .args(args.iter().map(OsString::from))
            .envs(process::scrubbed_env())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "loki demo")
            .env("GIT_AUTHOR_EMAIL", "demo@loki.invalid")
            .env("GIT_COMMITTER_NAME", "loki demo")
            .env("GIT_COMMITTER_EMAIL", "demo@loki.invalid")
            .timeout(GIT_TIMEOUT);
        let out = process::run(&spec).map_err(|e| EngineError::Refused {
            action: "set up the demo repository",
            detail: e.to_string(),
        })?;
        if out.success() {
            Ok(())
        } else {
            Err(EngineError::Refused {
                action: "set up the demo repository",
                detail: format!(
                    "`{}` exited {}: {}",
                    spec.display(),
                    out.exit_code(),
                    out.output.tail_text(500)
                ),
            })
        }
    };
    git(&["init", "-q", "-b", "main"])?;
    git(&["add", "-A"])?;
    git(&[
        "commit",
        "-q",
        "--no-gpg-sign",
        "-m",
        "calendar: leap years and month lengths",
    ])?;
    Ok(())
}
