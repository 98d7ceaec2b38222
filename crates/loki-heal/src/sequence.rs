//! The heal sequence of `loki fix --apply` and `loki fix --demo`: propose → (confirm) → apply →
//! verify → seal, on a started [`FixSession`].
//!
//! # Steps
//! 0. [`heal_incident`] starts the session: the signing key under loki's home, the replay box
//!    ([`crate::replay_box::for_fix`]), the incident; then tells the caller
//!    ([`HealUi::started`]).
//! 1. The session proposes a patch from `source`. A failure seals the receipt and returns the
//!    error.
//! 2. A signal received during the model call ([`HealUi::signal`]) stops here: nothing was
//!    written; the session is marked interrupted and sealed.
//! 3. The caller is shown the plan ([`HealUi::proposed`]); without [`Steps::yes`] it is asked
//!    ([`HealUi::confirm`]) and a "no" declines the patch and seals.
//! 4. The patch is applied (a failure seals and returns the error); the caller is told where
//!    the backup is ([`HealUi::applied`]).
//! 5. A signal by then marks the session interrupted (the patch stays, with its backup);
//!    otherwise the reproduction is replayed unless [`Steps::verify`] is off. A verification
//!    that cannot run seals and returns the error.
//! 6. The receipt is sealed and the report returned.
//!
//! # Failure modes
//! A session that failed is always sealed before its error is returned; when that seal fails
//! too, the caller hears of it through [`HealUi::unsealed`] and gets the first error. An error of
//! [`HealUi::confirm`] (the answer could not be read) is returned as it is, nothing applied.
//! This module never prints or prompts: the [`HealUi`] does.

use std::path::Path;

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_receipt::{KeyEnv, Signer};

use crate::fix::{FixOptions, FixReport, FixSession, PatchSource};
use crate::{HealError, PlannedEdit};

/// What the caller does at each step: show, ask, know of signals. `E` is the caller's error.
pub trait HealUi<E> {
    /// The session started: nothing is changed yet.
    fn started(&mut self) {}
    /// The name of the signal received so far (`SIGINT`), if any.
    fn signal(&self) -> Option<&'static str>;
    /// The planned patch, before anything is written.
    fn proposed(&mut self, planned: &PlannedEdit);
    /// Whether to apply the planned patch.
    ///
    /// # Errors
    /// The answer could not be had; nothing is applied and the error is returned as it is.
    fn confirm(&mut self, planned: &PlannedEdit) -> Result<bool, E>;
    /// The patch was applied; `backup` holds the original.
    fn applied(&mut self, planned: &PlannedEdit, backup: &Path);
    /// The receipt of a failed session could not be sealed.
    fn unsealed(&mut self, err: &HealError);
}

/// Which of the sequence's optional steps run.
#[derive(Debug, Clone, Copy)]
pub struct Steps {
    /// Apply without asking ([`HealUi::confirm`] is not called).
    pub yes: bool,
    /// Replay the reproduction on the patched file.
    pub verify: bool,
}

/// The incident a heal is for, and what it runs with.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    pub repo: &'a Repo,
    /// The incident's run.
    pub run: &'a RunId,
    /// loki's home: the signing key, and what the replay box hides.
    pub home: &'a Path,
    /// This loki, whose `__confine` boxes the verifying replay (none: it runs unboxed).
    pub exe: Option<&'a Path>,
    pub steps: Steps,
}

/// Starts a fix session for `req` (step 0 of the module doc) and runs the sequence on it;
/// `argv` is loki's command line, for the heal run's record.
///
/// # Errors
/// The signing key cannot be had or the session cannot start (nothing changed), else as
/// [`heal`].
pub fn heal_incident<E: From<HealError>>(
    req: Request<'_>,
    argv: Vec<String>,
    source: PatchSource<'_>,
    ui: &mut dyn HealUi<E>,
) -> Result<FixReport, E> {
    let signer =
        Signer::load_or_create(req.home, &KeyEnv::from_process()).map_err(HealError::from)?;
    let opts = FixOptions {
        argv,
        repro_timeout: None,
        replay_wrapper: crate::replay_box::for_fix(req.exe, req.home, req.repo),
    };
    let session = FixSession::start(req.repo, req.run, opts)?;
    ui.started();
    heal(session, source, &signer, req.steps, ui)
}

/// Runs the sequence on `session`; see the module doc.
///
/// # Errors
/// A step that failed (after the receipt was sealed), a seal that failed, or the caller's
/// [`HealUi::confirm`] error.
pub fn heal<E: From<HealError>>(
    mut session: FixSession,
    source: PatchSource<'_>,
    signer: &Signer,
    steps: Steps,
    ui: &mut dyn HealUi<E>,
) -> Result<FixReport, E> {
    let planned = match session.propose(source) {
        Ok(p) => p.clone(),
        Err(e) => return Err(fail(session, e, signer, ui)),
    };
    if let Some(sig) = ui.signal() {
        session.interrupt(sig);
        return Ok(session.finish(signer)?);
    }
    ui.proposed(&planned);
    if !steps.yes && !ui.confirm(&planned)? {
        session.decline();
        return Ok(session.finish(signer)?);
    }
    let backup = match session.apply() {
        Ok(b) => b,
        Err(e) => return Err(fail(session, e, signer, ui)),
    };
    ui.applied(&planned, &backup);
    if let Some(sig) = ui.signal() {
        session.interrupt(sig);
    } else if !steps.verify {
        session.skip_verify();
    } else if let Err(e) = session.verify() {
        return Err(fail(session, e, signer, ui));
    }
    Ok(session.finish(signer)?)
}

/// Ends a session that failed at `err`: the receipt is still sealed, then the error is returned.
fn fail<E: From<HealError>>(
    mut session: FixSession,
    err: HealError,
    signer: &Signer,
    ui: &mut dyn HealUi<E>,
) -> E {
    session.fail(&err);
    if let Err(e) = session.finish(signer) {
        ui.unsealed(&e);
    }
    err.into()
}
