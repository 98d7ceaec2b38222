//! What a build run must deliver and the tests that prove it: the delivery contract (numbered
//! acceptance criteria parsed from a spec, PRD or issue, and the one contradiction loki refuses
//! to build), the wall (acceptance tests written before the code and sealed by hash) and the
//! proof (which criteria the sealed wall proved).
//!
//! - Criteria ([`parse`], [`Contract`], [`conflict`]): pure; the spec of the parser, the conflict
//!   rule and `contract.json` is the doc of `criteria.rs`.
//! - [`wall`]: judging the files a wall author wrote, turning each into a check of the runner
//!   that owns it, sealing, installing and restoring them.
//! - [`proof`]: reading `contract.json`, what the wall author and the implementer are told, and
//!   which criteria the sealed wall proved ([`proof::prove`]) for the receipt.
//!
//! The stage machine that uses them (contract stage, plan ‖ wall, gate, seal) and the choice of
//! which contract a run is judged against live in `loki-engine`.
//!
//! # Never
//! Run a model, run a check (it builds the [`loki_runner::Check`]; the engine runs it), print, or
//! write outside the paths it is given; every write is atomic (`loki_core::fs::write_atomic`).

mod criteria;
mod error;
mod kind;
pub mod proof;
pub mod wall;

pub use criteria::{
    CONTRACT_FILE, CheckError, Contract, Criterion, MAX_CRITERIA, Parsed, SCHEMA, conflict,
    conflict_question, id_number, parse,
};
pub use error::ContractError;
pub use kind::{CriterionKind, PRESERVED_PHRASES};

/// Writes `bytes` to `path` atomically, creating its parent directories.
pub(crate) fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), ContractError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| ContractError::io("create", parent, e))?;
    }
    loki_core::fs::write_atomic(path, bytes)?;
    Ok(())
}
