//! `loki seal check`: the judge on a revision and the working tree, without an agent or a
//! session; with a signed receipt when asked ([`check_sealed`], what `loki ci judge` uses so a
//! pull request's verdict can be verified by anyone holding the receipt).
//!
//! # Sealed checks
//! A sealed check is a run of kind `seal` under `.loki/runs/<run>/` like a stop's: its
//! `run.started` names the session `check`, its event log holds each suite's result and
//! finding, the suites' logs are in its `checks/`, and its receipt (task source `check`, the
//! caller's reference, base = the revision judged against, head = a commit of the working tree)
//! carries the checks, findings, facts, the verdict as `judgement`, the declarations and what
//! stayed unproven. A check cut by a signal is recorded `run.interrupted` and nothing is sealed.
//! An unsealed check writes nothing in the repository: its suites' logs go to a temporary
//! directory that is removed.

use std::path::{Path, PathBuf};
use std::time::Instant;

use loki_checks::judge::{JudgeInput, Judged, judge};
use loki_core::layout::Repo;
use loki_core::run::RunStore;
use loki_events::RunRecorder;
use loki_events::payload::{RunCompleted, RunInterrupted, RunStarted};
use loki_git::Git;
use loki_protocol::Outcome;
use loki_receipt::schema::{IntegrityFinding, JudgeFact, StageTime, Time, sha256_hex};
use loki_receipt::{NotProven, ReceiptBuilder, Signer};
use loki_runner::detect;
use serde::Serialize;

use crate::SealError;
use crate::decide::{Evidence, Judgement, decide};
use crate::declare::{self, Applied};
use crate::session::{
    SealOptions, change_facts, declared_of, known_tests, not_proven, record_judgement, snapshot,
};
use loki_receipt::schema::Declaration;

/// The session name a sealed check's `run.started` carries (checks have no session).
pub const CHECK_SESSION: &str = "check";

/// What `loki seal check` found.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub base: String,
    pub judged: Judged,
    pub judgement: Judgement,
    /// The declarations given, applied.
    pub applied: Applied,
    pub not_proven: Vec<NotProven>,
    /// The signed receipt, for a sealed check.
    pub receipt: Option<CheckReceipt>,
}

/// The receipt a sealed check wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CheckReceipt {
    pub run_id: String,
    pub receipt_sha256: String,
    /// The receipt's outcome (`VERIFIED` only for a clean change).
    pub outcome: Outcome,
    /// The run's directory: `receipt.json`, `receipt.dsse.json`, `receipt.md`.
    pub dir: PathBuf,
}

/// Compares the working tree with `base_rev`: the judge on the base and the working tree, with
/// `declared` (from `--declared FILE`) applied. A declaration that names no change is refused
/// ([`SealError::Undeclarable`]).
pub fn check(
    repo_root: &Path,
    base_rev: &str,
    declared: &[Declaration],
    opts: &SealOptions,
) -> Result<CheckReport, SealError> {
    run(repo_root, base_rev, declared, opts, None)
}

/// [`check`], recorded as a run with a signed receipt whose task is `task` (a pull request's
/// reference, or the command): see the module doc.
pub fn check_sealed(
    repo_root: &Path,
    base_rev: &str,
    declared: &[Declaration],
    opts: &SealOptions,
    task: &str,
) -> Result<CheckReport, SealError> {
    run(repo_root, base_rev, declared, opts, Some(task))
}

fn run(
    repo_root: &Path,
    base_rev: &str,
    declared: &[Declaration],
    opts: &SealOptions,
    task: Option<&str>,
) -> Result<CheckReport, SealError> {
    let clock = Instant::now();
    let git = Git::new(repo_root);
    let base = git
        .rev_parse(base_rev)
        .map_err(|source| loki_runner::ChecksError::BadRevision {
            rev: base_rev.to_string(),
            source,
        })?;
    let (now_commit, now_tree) = snapshot(&git, "loki seal: check")?;
    let checks = detect(repo_root)?;
    let mut log = match task {
        Some(task) => Some(start_log(repo_root, task, &base, &now_commit)?),
        None => None,
    };
    // An unsealed check keeps nothing: its logs live in a directory removed when it ends.
    let scratch =
        loki_core::scratch::Scratch::new("loki-seal-check-").map_err(|e| SealError::Io {
            action: "create a temporary directory in",
            path: std::env::temp_dir(),
            source: e,
        })?;
    let mut run = opts.run.clone();
    run.log_dir = match &log {
        Some(l) => l.dir().join("checks"),
        None => scratch.path().to_path_buf(),
    };
    let judged = judge(&JudgeInput {
        repo_root,
        head_root: repo_root,
        base: &base,
        head_tree: &now_tree,
        checks: &checks,
        base_results: None,
        head_results: None,
        opts: &run,
        cache_dir: &opts.home.join("cache"),
        exclude: &[],
    });
    if let Some(signal) = loki_process::signals::signal_name() {
        if let Some(l) = log.as_mut() {
            l.interrupt(&RunInterrupted::because(format!(
                "{signal} while the suites ran: nothing was judged or sealed"
            )))?;
        }
        return Err(SealError::Interrupted { signal });
    }
    let mut judged = judged?;
    declare::check_names(declared, &judged.declare, &known_tests(&judged))?;
    let applied = declare::apply(&mut judged, declared, opts.expectation_changes);
    let judgement = decide(&Evidence {
        judged: &judged,
        undeclared: &applied.undeclared,
        blocks_so_far: 0,
        max_blocks: u32::MAX,
    });
    let judge_np = not_proven(&judged, &base);
    let contradictions: Vec<NotProven> = applied
        .contradictions()
        .map(|c| {
            NotProven::new(
                format!("declared: {}", c.test),
                format!("it contradicts the task: {}", c.reason),
                format!("loki seal check --base {base}"),
            )
        })
        .collect();
    let mut report = CheckReport {
        base: base.clone(),
        not_proven: report_not_proven(&judged, &judge_np, &contradictions, &base),
        judged,
        judgement,
        applied,
        receipt: None,
    };
    if let (Some(mut log), Some(task)) = (log, task) {
        let change = Change {
            git: &git,
            base: &base,
            head: &now_commit,
            tree: &now_tree,
            task,
        };
        let mut unproven = judge_np;
        unproven.extend(contradictions);
        report.receipt = Some(seal(&mut log, &change, &report, unproven, clock, opts)?);
    }
    Ok(report)
}

/// The run of a sealed check of `task`, from `base` to the `head` commit snapshot.
fn start_log(
    repo_root: &Path,
    task: &str,
    base: &str,
    head: &str,
) -> Result<RunRecorder, SealError> {
    Ok(RunRecorder::start(
        &RunStore::new(Repo::discover(repo_root)?),
        Some(task.to_string()),
        std::env::args().collect(),
        &RunStarted::Seal {
            session: CHECK_SESSION.to_string(),
            base: base.to_string(),
            head: head.to_string(),
        },
    )?)
}

/// The report's NOT PROVEN: the judge's, each pre-existing failure, each declared
/// contradiction.
fn report_not_proven(
    judged: &Judged,
    judge_np: &[NotProven],
    contradictions: &[NotProven],
    base: &str,
) -> Vec<NotProven> {
    let mut out = judge_np.to_vec();
    out.extend(judged.pre_existing.iter().map(|id| {
        NotProven::new(
            format!("pre-existing failure: {id}"),
            "it fails on the base too, so this change is not what it tests",
            format!("loki seal check --base {base}"),
        )
    }));
    out.extend(contradictions.iter().cloned());
    out
}

/// The change a sealed check judged.
struct Change<'a> {
    git: &'a Git,
    base: &'a str,
    head: &'a str,
    tree: &'a str,
    task: &'a str,
}

/// Seals the receipt of a check and ends its run with the verdict's exit code.
fn seal(
    log: &mut RunRecorder,
    c: &Change<'_>,
    report: &CheckReport,
    mut unproven: Vec<NotProven>,
    clock: Instant,
    opts: &SealOptions,
) -> Result<CheckReceipt, SealError> {
    let (judged, applied) = (&report.judged, &report.applied);
    record_judgement(log, judged)?;
    let mut facts = change_facts(c.git, log.id().as_str(), c.base, c.head, c.tree)?;
    facts.task.source = "check".to_string();
    facts.task.sha256 = sha256_hex(c.task.as_bytes());
    facts.task.reference = Some(c.task.to_string());
    facts.provider = "check".to_string();
    facts.checks = judged
        .head
        .iter()
        .map(|r| r.receipt_check(loki_protocol::CheckRole::Tests))
        .collect();
    facts.integrity = judged.findings.iter().map(IntegrityFinding::from).collect();
    facts.facts = judged.facts.iter().map(JudgeFact::from).collect();
    facts.judgement = Some(applied.verdict);
    facts.declared = declared_of(applied, None);
    facts.full_suite_ran = true;
    facts.pre_existing_failures.clone_from(&judged.pre_existing);
    let unresolved = report.judgement.unresolved();
    if !unresolved.is_empty() {
        unproven.push(NotProven::new(
            "the change",
            unresolved.join("; "),
            format!("loki seal check --base {}", c.base),
        ));
    }
    facts.extra_not_proven = unproven;
    facts.flags.unjudged = !judged.cannot_judge.is_empty();
    let wall_s = clock.elapsed().as_secs_f64();
    facts.time = Time {
        wall_s,
        stages: vec![StageTime {
            stage: "judge".to_string(),
            wall_s,
        }],
    };
    let signer = Signer::load_or_create(&opts.home, &opts.keys)?;
    let dir = log.dir().to_path_buf();
    let builder = ReceiptBuilder::new(facts);
    let sealed = log.seal(|log| builder.seal(&dir, log, &signer))?;
    let outcome = sealed.receipt.verdict;
    let receipt_sha256 = sealed.receipt.receipt_sha256.clone();
    log.finish(&RunCompleted {
        judgement: Some(applied.verdict),
        ..RunCompleted::new(sealed.receipt.verdict)
            .exit_code(i32::from(applied.verdict.exit_code().code()))
            .receipt(receipt_sha256.clone())
    })?;
    Ok(CheckReceipt {
        run_id: log.id().to_string(),
        receipt_sha256,
        outcome,
        dir,
    })
}
