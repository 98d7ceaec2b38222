//! Incidents and healing: `loki run`, `loki fix`, `loki replay`.
//!
//! # What it owns
//! - **Recording** ([`record`]): run a command under observation; a crash (non-zero exit, signal,
//!   panic, uncaught exception, sanitizer report) becomes `.loki/runs/<id>/incident.json`
//!   ([`incident`]) and `repro.sh` ([`repro`]); a clean run records only a completed run.
//! - **Parsing** ([`frames`], pure): Rust, Go, Python, Java/Kotlin, Node, C/C++ sanitizer and
//!   gdb traces, and URLs with line numbers. **Signatures** ([`signature`], pure): kind plus
//!   normalised top frames, the identity of a crash across runs and machines.
//! - **Source resolution** ([`resolve`]): frames to files, confined to the repository through
//!   [`loki_core::paths`], the search on [`loki_core::walk`].
//! - **Healing** ([`fix`]): one model call for one strict JSON patch ([`proposal`], [`synth`]),
//!   applied by `loki-patch` after a byte-exact `<file>.loki.bak`, verified by replaying the
//!   reproduction, rolled back when the program still crashes (the recorded crash or another one,
//!   which it names: [`new_crash`]), sealed in a signed receipt of kind `heal`;
//!   the verifying replay runs in [`replay_box`]; the propose → apply → verify sequence the
//!   commands run is [`sequence::heal_incident`], with a [`sequence::HealUi`] for what they show and ask; how a session settled, in words, is
//!   [`fix::settled_words`]. The page check `loki run --url` observes is [`web::page_options`];
//!   [`page`] is that check itself, the hidden `loki __page` (Chromium through `loki-browser`).
//! - **Looking without healing** ([`inspect`]): the diagnosis of `loki fix` and the one replay of
//!   `loki replay`.
//! - **Stale backups** ([`backups`]) and the **offline demo** ([`demo`]).
//!
//! # Invariants
//! - A user file is changed only after its backup is on disk, and only by `loki-patch`; when the
//!   crash persists the file is restored byte for byte (checked by SHA-256) before the backup
//!   goes. A backup is removed only after verification or a restore: a harness error, a skipped
//!   verification or a killed process leaves it for `loki fix --restore`.
//! - Only files inside the repository, outside `.git`, `.loki`, `node_modules`, `target`, `dist`,
//!   `build` and virtualenvs, are read for the model or edited; a frame or a proposal naming a
//!   path outside (by `..` or a symlink) is refused and reported.
//! - The demo's built-in patch applies only to the bundled example's exact bytes.
//! - Model answers are validated before anything is written; a model never decides whether a fix
//!   worked: the reproduction's exit code does.
//!
//! - Observing changes nothing: the observed command gets the caller's environment unchanged
//!   (only loki's own secrets are removed; `--clean-env` removes every secret-looking variable)
//!   and its exit status is reported as it was. The reproduction runs the command in the
//!   recorded environment, the secrets it had taken by name from the environment of the replay.
//!
//! # Never
//! Print (the CLI prints), prompt, write a secret's value to disk (the incident records secret
//! variables by name only and blanks their values out of the recorded output), add a variable
//! of its own to the observed command's environment other than the seed and `RUST_BACKTRACE`,
//! or write state except through `loki_core::fs::write_atomic*`.

pub mod backups;
pub mod demo;
mod error;
pub mod fix;
pub mod frames;
pub mod incident;
pub mod inspect;
pub mod model;
pub mod new_crash;
pub mod page;
pub mod proposal;
pub mod record;
pub mod replay_box;
pub mod repro;
pub mod resolve;
pub mod sequence;
pub mod signature;
pub mod synth;
pub mod web;

pub use error::HealError;
pub use fix::{FixOptions, FixReport, FixSession, PatchSource, Settled, latest_incident};
pub use frames::{Crash, Frame, Lang, parse_crash, parse_urls};
pub use incident::Incident;
pub use inspect::{Diagnosis, Replayed, diagnose, replay};
pub use proposal::{PlannedEdit, Proposal};
pub use record::{DEFAULT_TIMEOUT, ObserveOptions, Observed, observe};
pub use repro::{Replay, ReplayVerdict};
pub use resolve::{Resolution, resolve};
pub use signature::Signature;
