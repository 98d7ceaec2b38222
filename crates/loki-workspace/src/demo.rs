//! `loki demo` apart from printing: the whole build engine on the bundled example
//! ([`loki_engine::demo`]), offline, with no API key.
//!
//! # Flow
//! [`prepare`] writes the small Rust crate with a real bug and failing tests into a new
//! temporary directory (`git init` + commit). [`Demo::run`] builds the task on it with the
//! bundled scripted sessions (one writes the acceptance wall, one fixes the bug), signed with the
//! user's key (`$LOKI_HOME/keys`) as any run's receipt is, then verifies the receipt as
//! `loki verify` does. The directory is removed when the [`Demo`] is dropped, unless
//! [`Demo::keep`] keeps it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_agent::Backend;
use loki_agent::scripted::Scripted;
use loki_core::layout::Repo;
use loki_core::scratch::Scratch;
use loki_engine::{BuildOptions, BuildReport, TaskInput};
use loki_process::Cancel;
use loki_receipt::{KeyEnv, VerifyInput, VerifyOptions, VerifyReport, verify};

use crate::WorkspaceError;
use crate::options::Setup;

/// The demo's own cap: its tests build in seconds; a minute means something is wrong.
const DEMO_CAP: Duration = Duration::from_secs(300);

/// The example repository, in its temporary directory.
#[derive(Debug)]
pub struct Demo {
    tmp: Scratch,
    /// The repository's directory (`<tmp>/calendar`).
    pub dir: PathBuf,
}

/// Writes the example repository (module doc); `$LOKI_HOME` must be known first.
pub fn prepare(setup: &Setup<'_>) -> Result<Demo, WorkspaceError> {
    setup.home()?;
    let tmp = loki_core::scratch::Scratch::new("loki-demo-")?;
    let dir = tmp.path().join("calendar");
    loki_engine::demo::write_repo(&dir)?;
    Ok(Demo { tmp, dir })
}

impl Demo {
    /// Builds the task with the bundled script, stopping at a safe point when `cancel` is set,
    /// then verifies the sealed receipt.
    pub fn run(
        &self,
        setup: &Setup<'_>,
        cancel: Cancel,
    ) -> Result<(BuildReport, VerifyReport), WorkspaceError> {
        let home = setup.home()?.to_path_buf();
        let provider = Scripted::parse(
            Path::new("<bundled demo script>"),
            loki_engine::demo::SCRIPT,
        )?;
        let task = TaskInput {
            text: loki_engine::demo::TASK.into(),
            source: "demo".into(),
        };
        let backend = Backend::Loop(Box::new(provider));
        let mut opts = BuildOptions::new(task, backend, "scripted", home.clone());
        opts.cap = DEMO_CAP;
        opts.key_env = KeyEnv::from_process();
        opts.command.clone_from(&setup.argv);
        opts.confine_exe.clone_from(&setup.confine_exe);
        opts.cancel = cancel;
        let repo = Repo::discover(&self.dir)?;
        let report = loki_engine::run_build(&repo, &opts, &loki_engine::Silent)?;
        let run_dir = repo.runs_dir().join(&report.run_id);
        let verified = verify(
            &VerifyInput::RunDir(run_dir),
            &VerifyOptions {
                home: Some(home),
                env: KeyEnv::from_process(),
                pubkey: None,
                allow_unsigned: false,
            },
        );
        Ok((report, verified))
    }

    /// Keeps the temporary directory; returns the repository's directory.
    #[must_use]
    pub fn keep(self) -> PathBuf {
        self.tmp.keep().join("calendar")
    }
}
