//! `loki improve`: a guarded cycle that improves the agent's own instructions from failed runs.
//!
//! # What it edits
//! The instructions that live in the repository, `.loki/agent/instructions.md` and
//! `.loki/agent/skills/<name>/SKILL.md` ([`loki_instructions`]). Build runs load them into
//! the implementing agent's system prompt and stamp their *revision* (sha256 over the files) in
//! `run.json` and the receipt, so every failure is attributed to the instructions that produced
//! it.
//!
//! # One cycle ([`heal_once`], see [`cycle`] for the steps)
//! Kill switch → lock (`busy`) → cooldown → daily budgets → detect (`idle`, `no-failures`) →
//! capture the failed runs under the current revision (and admit `--protect` runs after 6/6
//! replays) → the editor proposes an edit (`outage`, `keep-base`) → the gate checks it
//! (`rejected`) → the canary replays the failed runs with the current and the candidate files and
//! the protected runs with the candidate (`canary-failed`; strictly better on the failed runs,
//! no protected run worse) → manual: queue (`pending`) · auto: estimate the guard's cost
//! (`budget-exceeded`), compare-and-swap apply (`stale`, `refused`), guard the protected runs,
//! roll back on regression (`rolled-back`) or keep (`applied`, with a signed receipt of kind
//! `improve`). A pause lands as `paused`, Ctrl-C as `interrupted`; a killed cycle leaves a record
//! saying `interrupted`, and an apply it left unguarded is guarded by the next cycle first.
//!
//! # State (`.loki/improve/`)
//! `improve.toml` (settings, [`config`]), `improve.stop` (kill switch), `cycle.lock` ([`lock`]),
//! `cycles/<id>.json` ([`cycles`]), `audit.jsonl` (hash-chained, [`audit`]), `pending/`,
//! `revisions/` (every revision applied or replaced, the backup a rollback restores),
//! `corpus/` (protected cases, [`cases`]), `runs/` (the receipts of applied cycles, [`receipt`]).
//!
//! # Watching ([`watch`])
//! `loki improve watch` runs a cycle once failed runs stop arriving; its module doc is the spec.
//!
//! # Never
//! Write outside `instructions.md`, `skills/*/SKILL.md` and `.loki/improve/` (replays run in
//! throwaway copies of the repository, [`replay`]); apply without a canary that beat the current
//! instructions; let the editor see the protected cases; treat a replay it could not judge as a
//! pass; print (the CLI prints).

pub mod audit;
pub mod cases;
pub mod config;
pub mod cycle;
pub mod cycles;
pub mod editor;
mod error;
pub mod lock;
pub mod ops;
pub mod proposal;
pub mod receipt;
pub mod replay;
pub mod watch;

pub use config::{ImproveConfig, Mode, Paths, Trigger, paused_by};
pub use cycle::{CycleOptions, Hooks, NoHooks, Point, Runtime, heal_once};
pub use cycles::{CycleRecord, Outcome};
pub use error::ImproveError;
