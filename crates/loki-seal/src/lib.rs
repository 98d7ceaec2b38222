//! `loki seal`: a stop hook that any coding agent can use, so that "done" means the repository's
//! own tests still pass and were not deleted, skipped or weakened on the way.
//!
//! # The protocol
//!
//! A baseline belongs to the work, not to an agent's session id: one open baseline per worktree
//! ([`state`]), which every session of that worktree joins (resumed, compacted, cleared, forked,
//! new, or a subagent) and which moves only at a stop that was judged and let through, or when
//! the user resets it.
//!
//! - **start** (the agent's SessionStart hook, [`baseline`]): a worktree with an open baseline
//!   keeps it (the session joins its lineage); one without gets it: the working tree snapshotted
//!   (a git tree object made in a temporary index, so every test and CI file is captured without
//!   touching the user's index) and the detected suites run, stored in
//!   `$LOKI_HOME/seal/worktrees/<sha256 of the root>.json` (directory 0700, atomic writes).
//! - **reset** (`loki seal reset`, `seal start --rebaseline`): the tree now is the baseline; the
//!   changes before it are NOT PROVEN in the receipts judged against it.
//! - **stop** (the Stop and SubagentStop hooks): snapshot again and judge the change since the baseline snapshot with
//!   [`loki_checks::judge`] (the suites now, the original tests on the new code and the new tests
//!   on the old code when tests changed, tests matched by identity, newly failing tests rerun on
//!   the base, the static integrity rules), then [`decide`]. Every stop writes a signed receipt
//!   (kind `seal`) under `.loki/runs/`, with the findings and the judge's facts
//!   (`expectation_changed`, …). The baseline's results serve as the base, so a stop costs
//!   the suite plus the narrowed runs of the test files the change touched
//!   (`benches/stop_overhead.rs`).
//! - **check** (no agent): the same comparison of the working tree against a revision; its JSON
//!   shape is [`report`]'s. [`check_sealed`] records it as a run with a signed receipt
//!   ([`check`]'s module doc).
//!
//! # Decisions ([`decide`], pure)
//!
//! Block on every finding of the judge (static or from running: newly failing, deleted, skipped,
//! weakened, a broken suite), each with its class, file and line, test, evidence and what to do
//! instead. Pre-existing failures do not block; they are named in the receipt's NOT PROVEN. A
//! change the judge cannot judge (a suite that could not run) is allowed but recorded NOT
//! VERIFIED with what to install. After `max_blocks` consecutive blocks the stop is allowed (the
//! release valve: an agent must not loop forever) and the receipt records that the session ended
//! NOT VERIFIED. A block message tells the agent to fix the code, not the tests, with the tail of
//! the failing output.
//!
//! # Agents ([`hook`])
//!
//! Claude Code (Stop and SubagentStop): exit 2 with the reasons on stderr. Codex (Stop and
//! SubagentStop): `{"decision":"block","reason":…}`.
//! Cursor: `{"followup_message":…}`. Gemini CLI (`AfterAgent`): `{"decision":"deny","reason":…}`.
//! Internal errors fail closed: they block with the error as the reason.
//!
//! # The person ([`person`])
//!
//! Every verdict reaches the person running the agent, in every mode of every client: the
//! agent's own message channel, the hook's stderr, and, where the client's mode shows nothing a
//! hook says (`claude -p`, `codex exec`), the client's own stderr, which [`person`] finds through
//! `/proc` and the CLI writes to. Its module doc holds what each client shows.
//!
//! # The hook commands ([`command`])
//!
//! `loki seal start` and `loki seal stop` from the agent's JSON to the answer; the stop fails
//! closed (its module doc).
//!
//! # Failed stops and status ([`status`])
//!
//! A stop that could not be judged blocks, then is released after `seal.max_blocks` in a row;
//! `loki seal status --json`'s shape. Its module doc is the spec.
//!
//! # Never
//!
//! Modify the user's files or index, print (the CLI prints what [`hook::respond`] returns), or let
//! an error read as a pass.

pub mod activation;
pub mod baseline;
pub mod budget;
pub mod check;
pub mod command;
pub mod decide;
pub mod declare;
mod error;
pub mod hook;
pub mod install;
pub mod jsontext;
pub mod person;
pub mod report;
pub mod session;
pub mod state;
pub mod status;

pub use activation::{Activation, Active, UserEnv, activation};
pub use baseline::{ResetReport, Started, reset, start};
pub use budget::{Basis, Budget};
pub use check::{CheckReceipt, CheckReport, check, check_sealed};
pub use decide::{Decision, Evidence, decide};
pub use error::SealError;
pub use hook::{Agent, HookInput, HookResponse, Source, respond};
pub use install::{InstallReport, Timeouts, install, merge_text};
pub use session::{SealOptions, StopReport, failed_stop, stop};
pub use state::{
    Joined, Origin, Reset, ResetBy, SealState, StopRecord, Stopped, sessions, state_path,
    worktree_of, worktree_state_path,
};
