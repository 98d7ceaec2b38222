//! `loki seal`: a stop hook that any coding agent can use, so that "done" means the repository's
//! own tests still pass and were not deleted, skipped or weakened on the way.
//!
//! # The protocol
//!
//! - **start** (the agent's SessionStart hook): snapshot the working tree (a git tree object made
//!   in a temporary index, so every test and CI file is captured without touching the user's
//!   index), run the detected suites, and store both as the session's baseline in
//!   `$LOKI_HOME/seal/<session>.json` (directory 0700, atomic writes).
//! - **stop** (the Stop hook): snapshot again, scan the change since the baseline snapshot with the
//!   integrity rules (`loki_checks::integrity`), run the suites, compare test by test with the
//!   baseline, run the original versions of modified test files against the new code, and
//!   [`decide`]. Every stop writes a signed receipt (kind `seal`) under `.loki/runs/`. The scan
//!   and the receipt's diff facts need only git and run on a second thread beside the suite, so a
//!   stop costs little more than the suite itself (`benches/stop_overhead.rs`: target ≤ 300 ms).
//! - **check** (no agent): the same comparison of the working tree against a revision.
//!
//! # Decisions ([`decide`], pure)
//!
//! Block when: an integrity finding exists; a test newly fails; a test that ran at the baseline is
//! missing; a suite that passed at the baseline no longer passes. Pre-existing failures do not
//! block; they are named in the receipt's NOT PROVEN. After `max_blocks` consecutive blocks the
//! stop is allowed (the release valve: an agent must not loop forever) and the receipt records that
//! the session ended NOT VERIFIED. A block message tells the agent to fix the code, not the tests,
//! with the failing ids and the tail of the output.
//!
//! # Agents ([`hook`])
//!
//! Claude Code: exit 2 with the reasons on stderr. Codex: `{"decision":"block","reason":…}`.
//! Cursor: `{"followup_message":…}`. Gemini CLI (`AfterAgent`): `{"decision":"deny","reason":…}`.
//! Internal errors fail closed: they block with the error as the reason.
//!
//! # Never
//!
//! Modify the user's files or index, print (the CLI prints what [`hook::respond`] returns), or let
//! an error read as a pass.

pub mod decide;
mod error;
pub mod hook;
pub mod install;
pub mod session;

pub use decide::{Decision, Evidence, decide};
pub use error::SealError;
pub use hook::{Agent, HookInput, HookResponse, respond};
pub use install::{InstallReport, install, merge_hooks};
pub use session::{
    CheckReport, SealOptions, SealState, StopReport, check, start, state_path, stop,
};
