//! One `loki improve` cycle with the user's provider: the editor is the provider chosen as for a
//! build ([`Setup::provider`], built when the cycle reaches the editor; a failure is the cycle's
//! outage), and each replay is built with [`Setup::build_options`], so it runs as the user's own
//! run did (box, caps, prices).

use loki_core::layout::Repo;
use loki_core::run::RunKind;
use loki_engine::TaskInput;
use loki_improve::{CycleOptions, CycleRecord, NoHooks, Runtime};
use loki_process::Cancel;

use crate::WorkspaceError;
use crate::options::Setup;

/// Runs one cycle of `loki improve` in `repo` ([`loki_improve::heal_once`]).
pub fn cycle(
    setup: &Setup<'_>,
    repo: &Repo,
    opts: &CycleOptions,
    cancel: Cancel,
) -> Result<CycleRecord, WorkspaceError> {
    let editor = || {
        let chosen = setup.provider().map_err(|e| format!("{e:#}"))?;
        Ok(chosen.backend)
    };
    let replay_cancel = cancel.clone();
    let replay = move |task: TaskInput| {
        let (mut o, _, _) = setup
            .build_options(task, RunKind::Build, false)
            .map_err(|e| format!("{e:#}"))?;
        o.cancel = replay_cancel.clone();
        Ok(o)
    };
    let provider = setup.choose().map(|(c, _)| c.label()).unwrap_or_default();
    let rt = Runtime {
        repo: repo.clone(),
        home: setup.home()?.to_path_buf(),
        key_env: loki_receipt::KeyEnv::from_process(),
        editor: &editor,
        provider,
        replay: &replay,
        cancel,
        hooks: &NoHooks,
        confine_exe: setup.confine_exe.clone(),
    };
    Ok(loki_improve::heal_once(&rt, opts)?)
}
