use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_agent::{Backend, scripted::Scripted};
use loki_core::layout::Repo;
use loki_engine::{BuildOptions, BuildReport, Silent, TaskInput};

/// Held by every test that builds the demo crate. With a `CARGO_TARGET_DIR` in the test's
/// environment (a developer's shell, a CI cache), the checks of every run share it, and cargo's
/// fingerprint does not depend on where a workspace lies: two demo crates built at once would
/// reuse each other's test binaries. One at a time, each tree is newer than the last build.
pub static DEMO_CRATE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Takes [`DEMO_CRATE`], whatever a test that panicked holding it left.
pub fn demo_crate() -> std::sync::MutexGuard<'static, ()> {
    DEMO_CRATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Runs the engine on `repo` with the scripted sessions `script` (JSON text).
pub fn build(
    repo: &Path,
    home: &Path,
    task: &str,
    script: &str,
    cap: Option<Duration>,
) -> BuildReport {
    build_with(repo, home, task, script, |opts| {
        if let Some(c) = cap {
            opts.cap = c;
        }
    })
}

/// [`build`] with options set by `tweak`.
pub fn build_with(
    repo: &Path,
    home: &Path,
    task: &str,
    script: &str,
    tweak: impl FnOnce(&mut BuildOptions),
) -> BuildReport {
    let provider = Scripted::parse(Path::new("script.json"), script).unwrap();
    let mut opts = BuildOptions::new(
        TaskInput {
            text: task.into(),
            source: "text".into(),
        },
        Backend::Loop(Box::new(provider)),
        "scripted",
        home.to_path_buf(),
    );
    opts.check_timeout = Duration::from_secs(120);
    tweak(&mut opts);
    let repo = Repo::discover(repo).unwrap();
    loki_engine::run_build(&repo, &opts, &Silent).unwrap()
}

pub fn receipt(repo: &Path, report: &BuildReport) -> serde_json::Value {
    let p = PathBuf::from(&report.receipt_path);
    assert!(
        p.starts_with(repo.canonicalize().unwrap()),
        "{}",
        p.display()
    );
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}
