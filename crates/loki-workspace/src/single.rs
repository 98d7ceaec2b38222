//! The start of a single build (`loki "<task>"`, `run-task`, `quick`, an issue's, a
//! follow-up's), in the order the user meets its refusals: a dirty tree is refused before
//! anything else is looked at (the provider, its script, the contract); then the contract is
//! the caller's (a follow-up's resolved one), else the `--contract FILE` named, else the
//! engine's own choice; then [`Setup::single_build`].

use std::path::PathBuf;

use loki_core::layout::Repo;
use loki_engine::BuildOptions;

use crate::WorkspaceError;
use crate::options::{Setup, SingleBuild};

/// Where a build's delivery contract comes from.
#[derive(Debug)]
pub enum ContractFrom {
    /// Resolved by the caller (a follow-up's).
    Given(loki_contract::Contract),
    /// `--contract FILE`.
    File(PathBuf),
    /// The engine chooses.
    Engine,
}

/// The options of the build `req` asks for (its own `contract` is replaced by `contract`'s),
/// with the provider's label and why it was chosen.
pub fn prepare(
    setup: &Setup<'_>,
    repo: &Repo,
    contract: ContractFrom,
    mut req: SingleBuild,
) -> Result<(BuildOptions, String, String), WorkspaceError> {
    loki_engine::intake::preflight(repo)?;
    req.contract = match contract {
        ContractFrom::Given(c) => Some(c),
        ContractFrom::File(path) => Some(
            loki_contract::proof::load(&path)?.ok_or(WorkspaceError::NoContractFile { path })?,
        ),
        ContractFrom::Engine => None,
    };
    setup.single_build(repo, req)
}
