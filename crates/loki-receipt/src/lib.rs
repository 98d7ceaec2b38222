//! Signed evidence receipts of loki runs.
//!
//! A receipt (`receipt.json`, schema `loki.receipt/1`, [`schema`]) records the facts of one run —
//! task, base and head commits, diff, checks, integrity findings, cost, time — the verdict those
//! facts decide, what was NOT PROVEN (each entry with why and the command that would prove it,
//! [`not_proven`]), and `{count, head}` of the run's event log. Its identity is
//! `receipt_sha256`, the SHA-256 of its RFC 8785 canonical form without that field. It is signed
//! as a DSSE envelope (`receipt.dsse.json`, [`dsse`]) over an in-toto Statement v1 whose subjects
//! are the head commit and the receipt and whose predicate is the receipt, with an Ed25519 key
//! ([`keys`]). `receipt.md` ([`markdown`]) is the same facts for people, not evidence.
//!
//! Producers fill [`ReceiptFacts`] (each producer maps its own facts into the receipt's types:
//! the runner's suite results, lint runs and judge facts convert in their crates, so the receipt
//! depends on the vocabulary, never on the judge) and call [`ReceiptBuilder::seal`]; `loki verify` calls
//! [`verify`] and prints [`render_human`] or the report as JSON; `loki keys` uses [`Signer`],
//! [`rotate`] and [`TrustedKeys`].
//!
//! # Invariants
//!
//! - Facts decide the verdict; model assessments only lower it ([`builder`]).
//! - Optional fields are omitted, never null (except `cost.usd`: null means not measured), so
//!   hashes stay stable as the schema grows.
//! - Every file is written atomically; the signing key is 0600 in a 0700 directory and is refused
//!   when others can read it or it is a symlink.
//! - Verification never trusts the receipt's own claims about itself: it recomputes the hash,
//!   re-walks the event log and checks the signature over the exact signed bytes. An unknown key is
//!   UNCHECKED, never TAMPERED ([`verify`]).
//!
//! # Must never
//!
//! Write a secret anywhere but the key file, print (the CLI prints), read the process
//! environment outside [`KeyEnv::from_process`], or let a model judgment raise a verdict.

pub mod builder;
pub mod dsse;
pub mod dupkeys;
mod error;
pub mod keys;
pub mod markdown;
pub mod not_proven;
pub mod report;
pub mod schema;
pub mod verify;
mod verify_files;

pub use builder::{ReceiptBuilder, ReceiptFacts, RunFlags, Sealed};
pub use dsse::{Envelope, Statement};
pub use error::ReceiptError;
pub use keys::{KeyEnv, KeyInfo, KeySource, Rotation, Signer, SignerRole, TrustedKeys, rotate};
pub use markdown::render_markdown;
pub use not_proven::NotProven;
pub use report::{Step, StepName, StepStatus, VerifyReport, render_human};
pub use schema::Receipt;
pub use verify::{VerifyInput, VerifyOptions, export_dsse, verify};
