//! The words a loki run speaks across its layers, as types.
//!
//! The runner, the event log, the receipt, the engine and the terminal each used to carry their
//! own copy of these words (an enum per crate, or a bare string). This crate holds the one copy:
//! every layer names the same thing with the same type, and the wire spelling of each place is
//! fixed here, next to the type, so the JSON a run writes (events, receipts, `--json`) stays
//! byte-for-byte what it was.
//!
//! - [`CheckStatus`]: how one check ended. Two wire spellings exist and both stay: the checks'
//!   words (`pass`, `fail`, `not_run`, `flaky`, `timeout`, `unparseable`) in the event log, the
//!   baseline and `--json`, and the receipt's words (`passed`, `failed`, `flaky`, `not_run`,
//!   `timed_out`, `unparseable`) through [`check::receipt_words`], because receipts are signed and
//!   their bytes cannot change.
//!
//! - [`CheckKind`]: which runner a check uses (cargo, nextest, pytest, vitest, jest, node, npm,
//!   go, maven), in the words of check names, logs and receipts.
//!
//! - [`CheckRole`]: the part a check played in a run (`tests`, `wall`, `lint`, `repro`,
//!   `boot`, `secrets`, `replay`), the receipt's `checks[].kind`; [`CheckOrigin`]: what ran it (a runner, `lint`,
//!   `repro`), the `kind` of a `check.result` event.
//!
//! - [`CheckRun`]: the facts of one run of a check (name, what ran it, command, status, counts),
//!   which the runner's result and the `check.result` event both embed.
//!
//! - [`Finding`], [`FindingKind`]: what an integrity rule (or the build's wall and deep's secret
//!   scan) reports, in the receipt's words; [`FactKind`]: what the judge established that is
//!   neither a pass nor a finding.
//!
//! - [`Stage`], [`StageState`], [`CapKind`], [`CapAt`]: the stages of a build run (and `deep`),
//!   how each ended, the limit that stopped a run and where, in the event log's lowercase words.
//!
//! - [`Outcome`], [`Verdict`], [`VerifyVerdict`], [`ExitCode`]: how a run ended, the judge's
//!   conclusion on a change, what `loki verify` concluded, and the exit code each maps to
//!   ([`outcome`] holds the ladders and the rules that decide an outcome); [`RunEnd`]: how any
//!   run ended, a sealed outcome or the word of a producer that seals nothing (`PASS`, `CLEAN`,
//!   `NO CHANGE`), as `run.completed` and `run.json` record it.
//!
//! It depends on nothing of loki's and does no I/O: it is the bottom floor.

pub mod check;
pub mod check_run;
pub mod finding;
pub mod judge;
pub mod outcome;
pub mod run_end;
pub mod stage;

pub use check::{CheckKind, CheckOrigin, CheckRole, CheckStatus};
pub use check_run::CheckRun;
pub use finding::{Finding, FindingKind};
pub use judge::FactKind;
pub use outcome::{ExitCode, Outcome, Verdict, VerifyVerdict};
pub use run_end::RunEnd;
pub use stage::{CapAt, CapKind, Stage, StageState};
