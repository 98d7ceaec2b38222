//! Shared vocabulary of loki.
//!
//! This crate owns the words every other crate speaks: run ids ([`RunId`]), the on-disk layout of
//! `.loki/` and `$LOKI_HOME` ([`layout`]), the class of an error that decides its exit code
//! ([`exit::Classify`], implemented by every library's error type, on `loki-protocol`'s exit-code
//! ladder), the one registry of the environment variables loki reads ([`mod@env`]),
//! layered configuration with provenance and the editing of its files ([`config`]), the run
//! store ([`run`]), the one helper through which every piece of state is written
//! ([`fs::write_atomic`]), the one check every untrusted path goes through ([`paths::Root::confine`]: relative, inside the root, not through a
//! symlink out, not in `.git` or `.loki`), the one directory walker ([`walk::Walk`], on the
//! `ignore` crate, with one skip policy) and the one maker of temporary directories
//! ([`scratch::Scratch`], removed on every exit path).
//!
//! It starts no children (that is `loki-process`: the one process runner and the Landlock box),
//! never talks to the network and never prints: it is mechanism, and the policy of when to do
//! what lives in the crates that use it.

pub mod config;
pub mod env;
pub mod error;
pub mod exit;
pub mod fs;
pub mod id;
pub mod json;
pub mod layout;
pub mod paths;
pub mod run;
pub mod scratch;
pub mod time;
pub mod walk;

pub use error::CoreError;
pub use id::RunId;
