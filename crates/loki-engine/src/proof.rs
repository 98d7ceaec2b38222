//! Which delivery contract a build run is judged against. The criteria, the wall and the proof
//! are `loki-contract`'s ([`loki_contract`]).
//!
//! Build runs only (a quick run has no wall, so nothing could prove a criterion): the contract the
//! caller chose ([`crate::BuildOptions::contract`]: `--contract FILE`, or the resolved contract of
//! a follow-up), else `.loki/contract.json` when it exists (written by `loki contract SPEC.md`),
//! else the criteria of the task text (`source: "task"`). A task without criteria has no
//! contract, and its receipt no `contract` field. A contract file that does not parse or
//! [`Contract::check`] refuses stops the run before it starts (exit 2). The contract a run used is
//! copied to `<run>/contract.json`; the receipt records that file's sha256.

use loki_contract::Contract;
use loki_contract::proof::{TASK_SOURCE, load, repo_contract_path};
use loki_core::layout::Repo;

use crate::EngineError;
use crate::options::BuildOptions;

/// The contract a build run is judged against (see the module doc).
pub fn resolve(repo: &Repo, opts: &BuildOptions) -> Result<Option<Contract>, EngineError> {
    if opts.kind != loki_core::run::RunKind::Build {
        return Ok(None);
    }
    // A contract without criteria would prove nothing: it is no contract.
    if let Some(c) = &opts.contract {
        return Ok(Some(c.clone()).filter(|c| !c.criteria.is_empty()));
    }
    if let Some(c) = load(&repo_contract_path(repo))? {
        return Ok(Some(c).filter(|c| !c.criteria.is_empty()));
    }
    Ok(Contract::from_text(TASK_SOURCE, &opts.task.text).0)
}
