//! `loki contract SPEC.md` apart from printing: the delivery contract later build runs are judged
//! against until it is removed.
//!
//! The spec's numbered criteria ([`loki_contract::Contract::from_text`], at most
//! [`loki_contract::MAX_CRITERIA`]) are written to `.loki/contract.json` atomically. A text
//! without criteria writes nothing and is refused ([`WorkspaceError::NoCriteria`], exit 2): an
//! empty contract would prove nothing.

use std::path::PathBuf;

use loki_contract::Contract;
use loki_core::layout::Repo;

use crate::WorkspaceError;

/// The contract written, and where.
#[derive(Debug)]
pub struct Adopted {
    pub contract: Contract,
    /// Criteria beyond [`loki_contract::MAX_CRITERIA`] that were not taken.
    pub dropped: usize,
    pub path: PathBuf,
}

/// Makes the contract of `repo` from the spec `text` (named `source` in the contract).
pub fn adopt(repo: &Repo, source: &str, text: &str) -> Result<Adopted, WorkspaceError> {
    let (contract, dropped) = Contract::from_text(source, text);
    let contract = contract.ok_or_else(|| WorkspaceError::NoCriteria {
        source_name: source.to_string(),
    })?;
    let path = loki_contract::proof::repo_contract_path(repo);
    repo.ensure_loki_dir()?;
    loki_core::fs::write_atomic(&path, &contract.to_file_bytes()?)?;
    Ok(Adopted {
        contract,
        dropped,
        path,
    })
}
