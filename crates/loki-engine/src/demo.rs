//! The demo: a small Rust crate with a real bug and a failing test, and the scripted sessions
//! that fix it, bundled into the binary so `loki demo` needs no API key and no network.
//!
//! The crate (`calendar`, no dependencies) says every fourth year is a leap year, forgetting the
//! century rule; two of its tests fail. The bundled script has two sessions: `wall` writes
//! `tests/loki_wall_century.rs`, `implement` fixes `is_leap_year`. [`write_repo`] lays the crate out
//! in a directory, `git init`s it and commits it, ready for [`crate::run_build`].

use std::path::Path;

use crate::EngineError;

/// The bundled scripted sessions (format: `crates/loki-agent/schema/scripted.schema.json`).
pub const SCRIPT: &str = include_str!("../demo/session.json");
/// The demo's task.
pub const TASK: &str = "is_leap_year is wrong for century years: 1900 is not a leap year, but 2000 is. Fix it so the calendar's tests pass.";
const CARGO_TOML: &str = include_str!("../demo/crate/Cargo.toml.in");
const LIB_RS: &str = include_str!("../demo/crate/lib.rs.in");
const GITIGNORE: &str = include_str!("../demo/crate/gitignore");
const CARGO_LOCK: &str = include_str!("../demo/crate/Cargo.lock.in");

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
    // The demo's history carries a fixed author, never the user's name.
    let git = loki_git::Git::new(dir).authored_by("loki demo", "demo@loki.invalid");
    let refused = |e: loki_git::GitError| EngineError::Refused {
        action: "set up the demo repository",
        detail: e.to_string(),
    };
    git.init(Some("main")).map_err(refused)?;
    git.commit_all("calendar: leap years and month lengths", &[])
        .map_err(refused)?;
    Ok(())
}
