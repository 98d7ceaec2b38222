//! `loki fix --apply`: one heal run, from proposal to signed receipt.
//!
//! A [`FixSession`] is a run of kind `heal` that references one incident. Its steps, each
//! recorded in the run's event log:
//! 1. [`FixSession::propose`]: a patch from the model ([`crate::synth`]) or, for the bundled demo
//!    only, the fallback ([`crate::demo`]); validated and planned in memory — nothing written.
//! 2. The caller shows the diff and asks for confirmation (or declines: [`FixSession::decline`]).
//! 3. [`FixSession::apply`]: refuses a read-only file, a stale backup, or a file that changed
//!    since step 1; then `loki-patch` writes `<file>.loki.bak` byte for byte and the patched file
//!    (`patch.applied`).
//! 4. [`FixSession::verify`] runs `repro.sh` (under [`FixOptions::replay_wrapper`]: the patched
//!    code is the model's, so loki's home and signing key are out of its reach) and settles:
//!    exit 0 → verified, backup removed (`patch.verified`); exit 1 (the recorded crash) or a
//!    different failure (the program still crashes, otherwise: [`crate::new_crash`]) → file
//!    restored from the backup byte for byte and checked by SHA-256, backup removed
//!    (`patch.rolled_back`, naming the new crash); any other harness error (a timeout, a
//!    command not found) → patch and backup both kept.
//!    Without verification (`--no-verify`) the backup is kept.
//! 5. [`FixSession::finish`] seals a signed receipt (kind `heal`): `task` is the incident
//!    (`source: incident`, the SHA-256 of `incident.json`, `ref: <incident run>#<signature id>`),
//!    `diff.sha256` is the SHA-256 of the unified diff of the patch (the patch is not committed, so
//!    there is no `diff-tree` to hash), `checks` holds the reproduction as a check of kind
//!    `repro`, NOT PROVEN says what the verification did not cover, there are no assessments.
//!
//! A failure at any step is recorded ([`FixSession::fail`]) and still ends in a receipt, whose
//! verdict is then FAILED: every fix attempt leaves evidence. So does an interruption
//! ([`FixSession::interrupt`], or a reproduction stopped by [`loki_process::stop_all`]): the
//! receipt is sealed, the run ends with `run.interrupted`, an applied patch and its backup stay.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use loki_agent::{Provider, Transcript};
use loki_clients::Usage;
use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::run::{RunKind, RunStore};
use loki_events::RunRecorder;
use loki_events::payload::{
    CheckResult as CheckEvent, Cost as CostEvent, CrashSeen, PatchApplied, PatchRolledBack,
    PatchVerified, RunCompleted, RunInterrupted, RunStarted,
};
use loki_patch::ApplyOptions;
use loki_protocol::CheckStatus;
use loki_protocol::outcome::Outcome;
use loki_receipt::schema::{Check, Cost, DiffStats, RepoState, StageTime, Task, Time, sha256_hex};
use loki_receipt::{NotProven, ReceiptBuilder, ReceiptFacts, Sealed, Signer};

use crate::HealError;
use crate::incident::Incident;
use crate::proposal::{PlannedEdit, Proposal, plan};
use crate::repro::{Replay, ReplayVerdict};
use crate::resolve::{Resolution, resolve};
use crate::synth::synthesize_blocking;

/// Provider name recorded when the demo's built-in patch was used.
pub const FALLBACK_PROVIDER: &str = "builtin";
/// Model name recorded when the demo's built-in patch was used.
pub const FALLBACK_MODEL: &str = "demo-fallback";

/// Where the patch comes from.
#[derive(Debug)]
pub enum PatchSource<'a> {
    Model(&'a dyn Provider),
    /// The bundled demo's built-in patch ([`crate::demo::fallback_for`]).
    Fallback(Proposal),
}

/// Options of a fix.
#[derive(Debug, Clone, Default)]
pub struct FixOptions {
    /// loki's command line, for `run.json`.
    pub argv: Vec<String>,
    /// Overrides the incident's timeout for the reproduction.
    pub repro_timeout: Option<Duration>,
    /// The argv prefix the verifying replay runs under (`loki __confine … --`): the patched code
    /// is the model's, so it must not reach loki's home or signing key. Empty: unconfined.
    pub replay_wrapper: Vec<std::ffi::OsString>,
}

/// How a fix ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    /// The crash no longer reproduces; the backup was removed.
    Verified,
    /// The program still crashed with the patch: the recorded crash (`new_crash` absent) or
    /// `new_crash`; the file was restored byte for byte and the backup removed.
    RolledBack {
        restored_exactly: bool,
        new_crash: Option<CrashSeen>,
    },
    /// The reproduction could not tell; the patch and the backup are both kept.
    Harness { reason: String, backup: PathBuf },
    /// Applied without verification (`--no-verify`); the backup is kept.
    NotVerified { backup: PathBuf },
    /// The user declined the patch; nothing was written.
    Declined,
    /// No patch was applied.
    Failed { reason: String },
    /// loki was interrupted (`signal`, such as `SIGINT`) before the fix settled: the patch stays
    /// applied and its backup kept when it had been applied (`backup`), nothing changed otherwise.
    Interrupted {
        signal: String,
        backup: Option<PathBuf>,
    },
}

/// What [`FixSession::finish`] returns.
#[derive(Debug)]
pub struct FixReport {
    pub run_id: RunId,
    pub settled: Settled,
    pub outcome: Outcome,
    pub planned: Option<PlannedEdit>,
    pub replay: Option<Replay>,
    pub sealed: Sealed,
    pub not_proven: Vec<NotProven>,
    pub cost_usd: Option<f64>,
    pub usage: Usage,
    pub provider: String,
    pub model: String,
    pub elapsed: Duration,
}

/// One heal run in progress.
#[derive(Debug)]
pub struct FixSession {
    repo: Repo,
    run_dir: PathBuf,
    log: RunRecorder,
    incident: Incident,
    incident_dir: PathBuf,
    incident_sha256: String,
    resolution: Resolution,
    opts: FixOptions,
    started: Instant,
    stages: Vec<StageTime>,
    planned: Option<PlannedEdit>,
    applied: bool,
    replay: Option<Replay>,
    settled: Option<Settled>,
    usage: Usage,
    cost_usd: Option<f64>,
    measured: bool,
    provider: String,
    model: String,
}

impl FixSession {
    /// Loads the incident of run `incident_run` and starts a heal run for it.
    pub fn start(
        repo: &Repo,
        incident_run: &RunId,
        opts: FixOptions,
    ) -> Result<FixSession, HealError> {
        let store = RunStore::new(repo.clone());
        let incident_dir = store.dir(incident_run);
        let (incident, bytes) = crate::incident::load(&incident_dir)?;
        let resolution = resolve(&repo.root, &incident);
        let log = RunRecorder::start(
            &store,
            Some(format!(
                "heal {}: {}",
                incident.run_id, incident.signature.text
            )),
            opts.argv.clone(),
            &RunStarted::Heal {
                incident: incident.run_id.clone(),
                signature: incident.signature.id.clone(),
            },
        )?;
        Ok(FixSession {
            repo: repo.clone(),
            run_dir: log.dir().to_path_buf(),
            log,
            incident,
            incident_dir,
            incident_sha256: sha256_hex(&bytes),
            resolution,
            opts,
            started: Instant::now(),
            stages: Vec::new(),
            planned: None,
            applied: false,
            replay: None,
            settled: None,
            usage: Usage::default(),
            // Unknown until a model call measures it: a fix without one has no cost to report.
            cost_usd: None,
            measured: false,
            provider: String::new(),
            model: String::new(),
        })
    }

    /// The heal run's id.
    #[must_use]
    pub fn run_id(&self) -> &RunId {
        self.log.id()
    }

    #[must_use]
    pub fn incident(&self) -> &Incident {
        &self.incident
    }

    #[must_use]
    pub fn resolution(&self) -> &Resolution {
        &self.resolution
    }

    /// The planned patch, once [`FixSession::propose`] succeeded.
    #[must_use]
    pub fn planned(&self) -> Option<&PlannedEdit> {
        self.planned.as_ref()
    }

    fn stage(&mut self, name: &str, since: Instant) {
        self.stages.push(StageTime {
            stage: name.to_string(),
            wall_s: since.elapsed().as_secs_f64(),
        });
    }

    /// Gets a patch and plans it in memory.
    pub fn propose(&mut self, source: PatchSource<'_>) -> Result<&PlannedEdit, HealError> {
        let t = Instant::now();
        let root = std::fs::canonicalize(&self.repo.root)
            .map_err(|e| HealError::io("resolve", &self.repo.root, e))?;
        if self.resolution.target().is_none() {
            let refused = self
                .resolution
                .refused
                .iter()
                .map(|r| format!("{} {}", r.printed, r.reason))
                .collect::<Vec<_>>();
            return Err(HealError::NoSource {
                root,
                refused: if refused.is_empty() {
                    " (the crash names no source file)".into()
                } else {
                    format!(" (refused: {})", refused.join("; "))
                },
            });
        }
        let planned = match source {
            PatchSource::Model(provider) => {
                self.provider = provider.name().to_string();
                self.model = provider.model().to_string();
                let transcript = Transcript::new(Some(
                    self.run_dir.join(loki_agent::transcript::TRANSCRIPT_FILE),
                ));
                let result = synthesize_blocking(
                    provider,
                    &root,
                    &self.incident,
                    &self.resolution,
                    &transcript,
                );
                self.measured = true;
                let s = result?;
                self.usage = s.usage;
                self.cost_usd = s.cost_usd;
                self.model = s.model;
                self.log.append(&CostEvent {
                    session: None,
                    usd: s.cost_usd,
                    input_tokens: s.usage.input_tokens,
                    output_tokens: s.usage.output_tokens,
                    cache_read_tokens: s.usage.cache_read_tokens,
                    cache_write_tokens: s.usage.cache_write_tokens,
                    attempts: Some(s.attempts),
                })?;
                s.planned
            }
            PatchSource::Fallback(p) => {
                self.provider = FALLBACK_PROVIDER.into();
                self.model = FALLBACK_MODEL.into();
                plan(&root, p).map_err(|problem| HealError::BadModelAnswer {
                    attempts: 1,
                    problem: problem.to_string(),
                })?
            }
        };
        self.stage("synthesize", t);
        Ok(self.planned.insert(planned))
    }

    /// Records that the user declined the patch: nothing is written.
    pub fn decline(&mut self) {
        self.settled = Some(Settled::Declined);
    }

    /// Records that loki was interrupted by `signal` (`SIGINT`): the fix ends where it is; an
    /// applied patch and its backup are kept for `loki fix --restore` or `loki replay`.
    pub fn interrupt(&mut self, signal: &str) {
        self.settled = Some(Settled::Interrupted {
            signal: signal.to_string(),
            backup: self
                .planned
                .as_ref()
                .filter(|_| self.applied)
                .map(|p| loki_patch::backup::path_for(&p.abs)),
        });
    }

    /// Records a failure that ends the fix before or while applying.
    pub fn fail(&mut self, err: &HealError) {
        self.settled = Some(Settled::Failed {
            reason: err.to_string(),
        });
    }

    /// Writes the backup and the patched file. Returns the backup's path.
    pub fn apply(&mut self) -> Result<PathBuf, HealError> {
        let t = Instant::now();
        let Some(p) = &self.planned else {
            return Err(HealError::BadModelAnswer {
                attempts: 0,
                problem: "no patch to apply".into(),
            });
        };
        let backup = loki_patch::backup::path_for(&p.abs);
        if std::fs::symlink_metadata(&backup).is_ok() {
            return Err(HealError::StaleBackup { backup });
        }
        let meta = std::fs::metadata(&p.abs).map_err(|e| HealError::io("inspect", &p.abs, e))?;
        if std::os::unix::fs::PermissionsExt::mode(&meta.permissions()) & 0o222 == 0 {
            return Err(HealError::ReadOnly {
                path: p.abs.clone(),
            });
        }
        let now = std::fs::read(&p.abs).map_err(|e| HealError::io("read", &p.abs, e))?;
        if now != p.before {
            return Err(HealError::ChangedUnderneath {
                path: p.abs.clone(),
            });
        }
        let root = std::fs::canonicalize(&self.repo.root)
            .map_err(|e| HealError::io("resolve", &self.repo.root, e))?;
        let out = loki_patch::edit_file(
            &root,
            &p.rel,
            &p.proposal.original_snippet,
            &p.proposal.replacement_snippet,
            ApplyOptions { backup: true },
        )?;
        let written = out.change.as_ref().and_then(|c| c.after.clone());
        if written.as_deref() != Some(p.after.as_slice()) {
            // The engine and the plan disagree: put the original back rather than keep a surprise.
            loki_patch::backup::restore(&p.abs)?;
            return Err(HealError::ChangedUnderneath {
                path: p.abs.clone(),
            });
        }
        self.applied = true;
        let (ins, del) = p.stat();
        self.log.append(&PatchApplied {
            file: p.rel.clone(),
            line: p.line,
            rung: p.rung.clone(),
            backup: backup.display().to_string(),
            diff_sha256: sha256_hex(p.diff.as_bytes()),
            before_sha256: sha256_hex(&p.before),
            after_sha256: sha256_hex(&p.after),
            insertions: ins,
            deletions: del,
            root_cause: p.proposal.root_cause.clone(),
        })?;
        self.stage("apply", t);
        Ok(backup)
    }

    /// Records that verification was skipped (`--no-verify`): the backup stays.
    pub fn skip_verify(&mut self) {
        if let Some(p) = &self.planned {
            self.settled = Some(Settled::NotVerified {
                backup: loki_patch::backup::path_for(&p.abs),
            });
        }
    }

    /// Runs the reproduction against the patched file and settles the patch.
    pub fn verify(&mut self) -> Result<&Settled, HealError> {
        let t = Instant::now();
        let Some(p) = self.planned.clone() else {
            return Err(HealError::BadModelAnswer {
                attempts: 0,
                problem: "no patch to verify".into(),
            });
        };
        let mut replay = crate::repro::run_wrapped(
            &self.incident_dir,
            &self.incident,
            self.opts.repro_timeout,
            &self.opts.replay_wrapper,
        )?;
        // A page check that could not tell (no browser, the page's server failed: it exits
        // PAGE_HARNESS_EXIT) is the harness, not a new crash of the patched page.
        if self.incident.browser.is_some()
            && let ReplayVerdict::DifferentFailure(reason) = &replay.verdict
            && reason.starts_with(&format!(
                "a different failure (exit {},",
                crate::web::PAGE_HARNESS_EXIT
            ))
        {
            replay.verdict = ReplayVerdict::Harness(reason.clone());
        }
        let log_path = self.run_dir.join("checks").join("repro.log");
        std::fs::create_dir_all(self.run_dir.join("checks"))
            .map_err(|e| HealError::io("create", self.run_dir.join("checks"), e))?;
        loki_core::fs::write_atomic(&log_path, replay.output.as_bytes())?;
        let check = repro_check(self.repro_cmd(), &replay);
        self.log.append(&CheckEvent {
            run: loki_protocol::CheckRun {
                name: check.name,
                kind: loki_protocol::CheckOrigin::Repro,
                cmd: check.cmd,
                result: check.result,
                executed: check.executed,
                passed: check.passed,
                failed: check.failed,
                skipped: check.skipped,
            },
            duration_s: check.duration_s,
            log_sha256: check.log_sha256,
            failing_ids: Vec::new(),
            stage: None,
            role: None,
            reason: replay.verdict.reason().map(str::to_string),
            exit_code: Some(replay.exit_code),
            new_findings: None,
        })?;
        let settled = match &replay.verdict {
            ReplayVerdict::NotReproduced => {
                loki_patch::backup::cleanup(&p.abs)?;
                self.log.append(&PatchVerified {
                    file: p.rel.clone(),
                    signature: self.incident.signature.id.clone(),
                })?;
                Settled::Verified
            }
            ReplayVerdict::Reproduced | ReplayVerdict::DifferentFailure(_) => {
                // The program still crashes, whatever the crash: the patch is no fix.
                let new_crash = match &replay.verdict {
                    ReplayVerdict::DifferentFailure(reason) => Some(crate::new_crash::seen(
                        &self.incident,
                        &replay.output,
                        reason,
                    )),
                    _ => None,
                };
                loki_patch::backup::restore(&p.abs)?;
                let now = std::fs::read(&p.abs).map_err(|e| HealError::io("read", &p.abs, e))?;
                let exact = now == p.before;
                self.log.append(&PatchRolledBack {
                    file: p.rel.clone(),
                    restored_sha256: sha256_hex(&now),
                    original_sha256: sha256_hex(&p.before),
                    byte_identical: exact,
                    new_crash: new_crash.clone(),
                })?;
                Settled::RolledBack {
                    restored_exactly: exact,
                    new_crash,
                }
            }
            ReplayVerdict::Harness(_) if replay.interrupted => Settled::Interrupted {
                signal: loki_process::stop_signal()
                    .and_then(crate::signature::signal_name)
                    .unwrap_or("a signal")
                    .to_string(),
                backup: Some(loki_patch::backup::path_for(&p.abs)),
            },
            ReplayVerdict::Harness(reason) => Settled::Harness {
                reason: reason.clone(),
                backup: loki_patch::backup::path_for(&p.abs),
            },
        };
        self.replay = Some(replay);
        self.stage("verify", t);
        Ok(self.settled.insert(settled))
    }

    fn repro_cmd(&self) -> String {
        format!(
            "sh {}",
            self.incident_dir.join(&self.incident.repro).display()
        )
    }

    fn repo_state(&self) -> RepoState {
        let git = loki_git::Git::new(&self.repo.root);
        let head = git.head().ok().flatten().unwrap_or_default();
        let tree = if head.is_empty() {
            String::new()
        } else {
            git.tree_of(&head).unwrap_or_default()
        };
        RepoState {
            origin: git.origin_url().ok().flatten(),
            base_sha: head.clone(),
            head_sha: head,
            tree,
        }
    }

    /// The receipt's facts of a fix that `settled`: the incident, the repository, the patch
    /// applied, the replay, the cost, and NOT PROVEN for what the fix did not show.
    fn receipt_facts(&self, settled: &Settled) -> ReceiptFacts {
        let mut facts = ReceiptFacts::new(self.log.id().as_str(), RunKind::Heal);
        facts.task = Task {
            source: "incident".into(),
            sha256: self.incident_sha256.clone(),
            reference: Some(format!(
                "{}#{}",
                self.incident.run_id, self.incident.signature.id
            )),
        };
        facts.repo = self.repo_state();
        if let (Some(p), true) = (&self.planned, self.applied) {
            let (ins, del) = p.stat();
            facts.diff = DiffStats {
                sha256: sha256_hex(p.diff.as_bytes()),
                files: 1,
                insertions: ins,
                deletions: del,
            };
        }
        facts.checks.extend(
            self.replay
                .as_ref()
                .map(|r| repro_check(self.repro_cmd(), r)),
        );
        facts.provider.clone_from(&self.provider);
        facts.model.clone_from(&self.model);
        let sessions = u64::from(self.measured);
        facts.cost = Cost {
            usd: self.cost_usd,
            input_tokens: self.usage.input_tokens,
            output_tokens: self.usage.output_tokens,
            cache_read_tokens: self.usage.cache_read_tokens,
            cache_write_tokens: self.usage.cache_write_tokens,
            measured_sessions: if self.cost_usd.is_some() { sessions } else { 0 },
            total_sessions: sessions,
        };
        facts.time = Time {
            wall_s: self.started.elapsed().as_secs_f64(),
            stages: self.stages.clone(),
        };
        // The incident is what `loki fix` takes: fixing it again replays its reproduction.
        let replay = format!("loki fix {}", self.incident.run_id);
        facts.extra_not_proven.push(NotProven::new(
            "other crashes of this program",
            format!(
                "the fix was checked against the crash signature {} only",
                self.incident.signature.id
            ),
            "loki run -- <the program with other inputs>",
        ));
        facts
            .extra_not_proven
            .extend(settled_not_proven(settled, &replay));
        // A replay the signal cut is no evidence (a killed program looks like a crash that
        // persisted): only a fix that settled before the signal keeps its claims.
        facts.flags.interrupted = matches!(settled, Settled::Interrupted { .. })
            || (loki_process::signals::signal_name().is_some()
                && !matches!(settled, Settled::Verified | Settled::Declined));
        facts
    }

    /// Seals the receipt, completes the run and returns what happened.
    pub fn finish(mut self, signer: &Signer) -> Result<FixReport, HealError> {
        let settled = self.settled.clone().unwrap_or(Settled::Failed {
            reason: "the fix ended before a patch was applied".into(),
        });
        let facts = self.receipt_facts(&settled);
        let builder = ReceiptBuilder::new(facts);
        let not_proven = builder.not_proven();
        let run_dir = self.run_dir.clone();
        let sealed = self.log.seal(|log| builder.seal(&run_dir, log, signer))?;
        let outcome = sealed.receipt.verdict;
        if let Settled::Interrupted { signal, .. } = &settled {
            // Sealed, but ended by a signal: the run says so, with its outcome and receipt.
            self.log.interrupt(&RunInterrupted {
                outcome: Some(outcome.into()),
                exit_code: Some(i32::from(outcome.exit_code().code())),
                receipt_sha256: Some(sealed.receipt.receipt_sha256.clone()),
                reason: Some(format!("loki was interrupted ({signal})")),
            })?;
        } else {
            self.log.finish(
                &RunCompleted::new(outcome)
                    .exit_code(i32::from(outcome.exit_code().code()))
                    .receipt(sealed.receipt.receipt_sha256.clone()),
            )?;
        }
        Ok(FixReport {
            run_id: self.log.id().clone(),
            settled,
            outcome,
            planned: self.planned,
            replay: self.replay,
            sealed,
            not_proven,
            cost_usd: self.cost_usd,
            usage: self.usage,
            provider: self.provider,
            model: self.model,
            elapsed: self.started.elapsed(),
        })
    }
}

/// The NOT PROVEN entry of a fix that `settled` some way other than verified (`replay` is how
/// to try again).
fn settled_not_proven(settled: &Settled, replay: &str) -> Option<NotProven> {
    match settled {
        Settled::Verified => None,
        Settled::RolledBack {
            new_crash: None, ..
        } => Some(NotProven::new(
            "a fix",
            "the crash persisted after the patch, so it was rolled back",
            replay,
        )),
        Settled::RolledBack {
            new_crash: Some(crash),
            ..
        } => Some(NotProven::new(
            "a fix",
            format!(
                "with the patch the program crashed with {} instead, so the patch was rolled back",
                crate::new_crash::describe(crash)
            ),
            replay,
        )),
        Settled::Harness { reason, .. } => Some(NotProven::new(
            "the patch",
            format!("the reproduction could not tell ({reason})"),
            replay,
        )),
        Settled::NotVerified { .. } => Some(NotProven::new(
            "the patch",
            "it was not verified (--no-verify)",
            replay,
        )),
        Settled::Declined => Some(NotProven::new(
            "a fix",
            "the patch was declined and nothing was changed",
            replay,
        )),
        Settled::Failed { reason } => Some(NotProven::new(
            "a fix",
            format!("no patch was applied ({reason})"),
            replay,
        )),
        Settled::Interrupted { signal, backup } => Some(match backup {
            Some(_) => NotProven::new(
                "the patch",
                format!("loki was interrupted ({signal}) before it was verified"),
                replay,
            ),
            None => NotProven::new(
                "a fix",
                format!("loki was interrupted ({signal}) before a patch was applied"),
                replay,
            ),
        }),
    }
}

/// A replay's verdict as a check's status, with its counts (one reproduction is one test).
fn repro_outcome(v: &ReplayVerdict) -> (CheckStatus, u64, u64, u64) {
    match v {
        ReplayVerdict::NotReproduced => (CheckStatus::Pass, 1, 1, 0),
        ReplayVerdict::Reproduced | ReplayVerdict::DifferentFailure(_) => {
            (CheckStatus::Fail, 1, 0, 1)
        }
        ReplayVerdict::Harness(reason)
            if reason.contains("timed out") || reason.contains("in time") =>
        {
            (CheckStatus::Timeout, 0, 0, 0)
        }
        ReplayVerdict::Harness(_) => (CheckStatus::NotRun, 0, 0, 0),
    }
}

/// The reproduction as the receipt's check of kind `repro`.
fn repro_check(cmd: String, r: &Replay) -> Check {
    let (status, executed, passed, failed) = repro_outcome(&r.verdict);
    Check {
        name: "repro".into(),
        kind: loki_protocol::CheckRole::Repro,
        cmd,
        result: status,
        executed,
        passed,
        failed,
        skipped: 0,
        duration_s: r.duration.as_secs_f64(),
        log_sha256: sha256_hex(r.output.as_bytes()),
    }
}

/// The newest run with an `incident.json`.
pub fn latest_incident(repo: &Repo) -> Result<RunId, HealError> {
    let store = RunStore::new(repo.clone());
    for r in store.list()? {
        if let loki_core::run::ListedRun::Ok(rec) = r
            && rec.kind == RunKind::Incident
            && store
                .dir(&rec.id)
                .join(crate::incident::INCIDENT_FILE)
                .is_file()
        {
            return Ok(rec.id);
        }
    }
    Err(HealError::NoIncident {
        dir: repo.runs_dir(),
    })
}

/// The run directory of an incident, after checking it holds one.
pub fn incident_dir(repo: &Repo, id: &RunId) -> Result<PathBuf, HealError> {
    let dir = RunStore::new(repo.clone()).dir(id);
    if !dir.is_dir() {
        return Err(loki_core::CoreError::RunNotFound {
            id: id.to_string(),
            dir: repo.runs_dir(),
        }
        .into());
    }
    Ok(dir)
}

/// How a fix session settled, for its summary: the status word (`verified`, `rolled_back`,
/// `harness_error`, `not_verified`, `declined`, `failed`, `interrupted`) and what it means for
/// `file` and its backup, with the commands that check or undo it for `incident`.
#[must_use]
pub fn settled_words(settled: &Settled, file: &str, incident: &RunId) -> (&'static str, String) {
    match settled {
        Settled::Verified => (
            "verified",
            format!("the crash no longer reproduces; {file}.loki.bak removed"),
        ),
        Settled::RolledBack {
            restored_exactly,
            new_crash,
        } => (
            "rolled_back",
            format!(
                "{}: {file} restored from its backup{} and the backup removed",
                match new_crash {
                    None => "the crash persisted".to_string(),
                    Some(c) => format!(
                        "the patched program still crashed, with {}",
                        crate::new_crash::describe(c)
                    ),
                },
                if *restored_exactly {
                    " byte for byte"
                } else {
                    " (BUT it differs from the original: check it)"
                }
            ),
        ),
        Settled::Harness { reason, .. } => (
            "harness_error",
            format!(
                "the reproduction could not tell ({reason}); the patch and {file}.loki.bak are both kept: verify with `loki replay {incident}`, undo with `loki fix --restore`"
            ),
        ),
        Settled::NotVerified { .. } => (
            "not_verified",
            format!(
                "applied without verification; {file}.loki.bak kept: verify with `loki replay {incident}`, undo with `loki fix --restore`"
            ),
        ),
        Settled::Declined => (
            "declined",
            "the patch was declined; nothing was changed".to_string(),
        ),
        Settled::Failed { reason } => ("failed", reason.clone()),
        Settled::Interrupted { signal, backup } => (
            "interrupted",
            match backup {
                Some(_) => format!(
                    "loki was interrupted ({signal}) before the patch was verified: it stays applied to {file}, the original is kept in {file}.loki.bak: `loki fix --restore` puts it back, `loki replay {incident}` checks the patched file"
                ),
                None => format!(
                    "loki was interrupted ({signal}) before a patch was applied; nothing was changed"
                ),
            },
        ),
    }
}
