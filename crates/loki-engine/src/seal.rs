//! The seal stage: the run's facts into a signed receipt ([`loki_receipt::ReceiptBuilder::seal`]).
//!
//! Before sealing, the engine checks that nobody else wrote what it vouches for: the event log
//! must be exactly the chain this process wrote (same count and head; an appended line with a
//! valid hash is still someone else's line), and every sealed wall copy must still have its hash.
//! Anything else is tampering: the outcome is FAILED and the reason is in NOT PROVEN.
//!
//! Facts mapped into the receipt: checks of the last verification (role `tests` or `wall`), the
//! wall's files and its run on the base, the integrity findings plus one `reverted_wall_edit`
//! finding per restored wall file, the delivery contract's criteria proven or not by the wall
//! ([`loki_contract::proof::prove`]), cost summed over sessions (`usd` null when any session was not
//! measured), and the stage times.

use loki_events::payload::{StageCompleted, StageEnd, StageStarted};
use loki_events::{LogStatus, verify_log};
use loki_git::Git;
use loki_protocol::outcome::Outcome;
use loki_protocol::{FindingKind, Stage, StageState};
use loki_receipt::schema::{
    Check, Cost, DiffStats, IntegrityFinding, JudgeFact, RepoState, StageTime, Task, Time,
    Wall as ReceiptWall, WallFile as ReceiptWallFile,
};
use loki_receipt::{NotProven, ReceiptBuilder, ReceiptFacts, RunFlags, Signer};
use sha2::{Digest, Sha256};

use crate::EngineError;
use crate::report::BuildReport;
use crate::run::{Products, Run};

/// What sealing produced.
#[derive(Debug, Clone)]
pub(crate) struct SealedInfo {
    pub outcome: Outcome,
    pub receipt_sha256: String,
    pub receipt_path: String,
    pub keyid: String,
    pub not_proven: Vec<NotProven>,
    pub head_sha: String,
    pub changed: Vec<String>,
    pub cost: Cost,
    pub wall_s: f64,
}

/// Seals the run (always called, whatever happened before): opens the stage, reads the final
/// tree, looks for tampering, gathers the receipt's facts, signs and writes the receipt, and
/// closes the stage.
pub(crate) fn seal(s: &mut Run<'_>, p: &Products) -> Result<SealedInfo, EngineError> {
    begin(s)?;
    let started = std::time::Instant::now();
    let (repo, diff, changed) = final_tree(s, p)?;
    let tampered = tampering(s, p);

    let mut facts = ReceiptFacts::new(s.run_id.as_str(), s.opts.kind);
    facts.task = Task {
        source: s.opts.task.source.clone(),
        sha256: hex::encode(Sha256::digest(s.opts.task.text.as_bytes())),
        reference: s.opts.issue.as_ref().map(|i| i.reference.clone()),
    };
    let head_sha = repo.head_sha.clone();
    facts.repo = repo;
    facts.diff = diff;
    verification_facts(&mut facts, s, p);
    reverted_wall_edits(&mut facts, s, p);
    if let Some((c, sha256)) = &p.contract {
        facts.contract = Some(loki_receipt::schema::Contract {
            sha256: sha256.clone(),
            criteria: loki_contract::proof::prove(c, &wall_evidence(s, p)),
        });
    }
    facts.evidence = p.evidence.clone();
    facts.assessments = p
        .council
        .as_ref()
        .map(loki_council::Council::assessments)
        .unwrap_or_default();
    tampering_and_notes(&mut facts, s, &tampered);
    let cost = session_cost(s);
    facts.cost = cost;
    facts.time = times(s);
    let wall_s = facts.time.wall_s;
    facts.provider = s.opts.provider_label.clone();
    facts.model = s
        .sessions
        .iter()
        .map(|x| x.model.clone())
        .find(|m| !m.is_empty())
        .unwrap_or_default();
    facts.agent_revision = Some(s.agent.revision());
    facts.flags = flags(s, p, &tampered);

    let signer = Signer::load_or_create(&s.opts.home, &s.opts.key_env)?;
    let builder = ReceiptBuilder::new(facts);
    let sealed = s.log.seal(|log| builder.seal(&s.run_dir, log, &signer))?;
    let detail = format!(
        "{} · sha256:{}",
        sealed.receipt.verdict.as_str(),
        sealed.receipt.receipt_sha256
    );
    end(s, started, detail)?;
    Ok(SealedInfo {
        outcome: sealed.receipt.verdict,
        receipt_sha256: sealed.receipt.receipt_sha256.clone(),
        receipt_path: sealed.receipt_path.display().to_string(),
        keyid: sealed.keyid.clone(),
        not_proven: sealed.receipt.not_proven.clone(),
        head_sha,
        changed,
        cost,
        wall_s,
    })
}

/// Opens the seal stage: notes a cancel that came after the last stage, then logs and reports
/// the stage's start.
fn begin(s: &mut Run<'_>) -> Result<(), EngineError> {
    if s.opts.cancel.is_cancelled() && !s.interrupted {
        // Between the last stage and the seal: nothing is cut, but the run did not finish.
        s.interrupted = true;
        s.notes
            .push("interrupted (Ctrl-C or SIGTERM) before seal".to_string());
    }
    s.log.append(&StageStarted { stage: Stage::Seal })?;
    s.observer
        .progress(&crate::Progress::StageStarted { stage: Stage::Seal });
    Ok(())
}

/// Logs and reports the seal stage's end, with the verdict and the receipt's hash as detail.
fn end(s: &mut Run<'_>, started: std::time::Instant, detail: String) -> Result<(), EngineError> {
    s.log.append(&StageCompleted(StageEnd::new(
        Stage::Seal,
        detail.clone(),
        Some(started.elapsed().as_secs_f64()),
    )))?;
    s.observer.progress(&crate::Progress::StageEnded {
        stage: Stage::Seal,
        state: StageState::Completed,
        seconds: started.elapsed().as_secs_f64(),
        detail,
    });
    Ok(())
}

/// The state the receipt vouches for: the final head (the base when no commit was made) and its
/// tree, the diff from the base, and the paths it changes.
fn final_tree(
    s: &Run<'_>,
    p: &Products,
) -> Result<(RepoState, DiffStats, Vec<String>), EngineError> {
    let git = Git::new(&s.repo.root);
    let (head_sha, tree) = match (&p.head, &p.intake) {
        (Some(h), _) => (h.clone(), git.tree_of(h)?),
        _ => (s.base.clone(), git.tree_of(&s.base)?),
    };
    let diff_sha = git.diff_digest(&s.base, &tree)?;
    let stat = git.diff_stat(&s.base, &tree)?;
    let changed: Vec<String> = git
        .changes(&s.base, &tree)?
        .into_iter()
        .map(|c| c.path)
        .collect();
    let repo = RepoState {
        origin: p.intake.as_ref().and_then(|i| i.origin.clone()),
        base_sha: s.base.clone(),
        head_sha,
        tree,
    };
    let diff = DiffStats {
        sha256: diff_sha,
        files: stat.files,
        insertions: stat.insertions,
        deletions: stat.deletions,
    };
    Ok((repo, diff, changed))
}

/// Everything that was written behind loki's back: an event log that is not exactly the chain
/// this process wrote, and sealed wall copies whose hash changed. Empty when nothing was.
fn tampering(s: &Run<'_>, p: &Products) -> Vec<String> {
    let mut tampered: Vec<String> = Vec::new();
    let log_path = s.log.log_path().to_path_buf();
    match verify_log(&log_path, Some(s.run_id.as_str())) {
        Ok(sum) => match sum.status {
            LogStatus::Intact if sum.count == s.log.count() && sum.head == s.log.head() => {}
            LogStatus::Intact => tampered.push(format!(
                "event log: {} events on disk, {} written by loki",
                sum.count,
                s.log.count()
            )),
            LogStatus::Interrupted { torn_bytes } => {
                tampered.push(format!("event log: {torn_bytes} stray bytes at the end"));
            }
            LogStatus::Broken(bad) => {
                tampered.push(format!("event log: line {}: {}", bad.line, bad.reason));
            }
        },
        Err(e) => tampered.push(format!("event log: {e}")),
    }
    for p in loki_contract::wall::tampered_copies(&s.run_dir, &p.wall) {
        tampered.push(format!("sealed wall copy changed: {p}"));
    }
    tampered
}

/// The wall and what the last verification found: its checks, integrity findings, facts and
/// declarations, whether the full suite ran, and (unless the run was interrupted) its NOT PROVEN.
fn verification_facts(facts: &mut ReceiptFacts, s: &Run<'_>, p: &Products) {
    let v = p.verification.as_ref();
    facts.wall = ReceiptWall {
        files: p
            .wall
            .files
            .iter()
            .map(|f| ReceiptWallFile {
                path: f.path.clone(),
                sha256: f.sha256.clone(),
            })
            .collect(),
        base_run: p.gate.base,
        passed: p.gate.already_satisfied || v.is_some_and(crate::verify::Verification::wall_passed),
    };
    let Some(v) = v else {
        return;
    };
    facts.checks = v
        .results
        .iter()
        .map(|r| r.result.receipt_check(r.role))
        .chain(v.lint.iter().map(Check::from))
        .collect();
    facts.integrity = v.findings.iter().map(IntegrityFinding::from).collect();
    facts.facts = v.facts.iter().map(JudgeFact::from).collect();
    if !v.declared.is_empty() {
        facts.declared = Some(loki_receipt::schema::Declared {
            request: None,
            items: v.declared.clone(),
        });
    }
    facts.full_suite_ran = v.full_suite;
    if !s.interrupted {
        facts.extra_not_proven.extend(v.not_proven.iter().cloned());
    }
}

/// One `reverted_wall_edit` finding and one NOT PROVEN entry per sealed wall file the agent
/// edited and the run restored.
fn reverted_wall_edits(facts: &mut ReceiptFacts, s: &Run<'_>, p: &Products) {
    // An interrupted run claims nothing of its last state (see `RunFlags::interrupted`): a wall
    // file restored after a cut session is not an edit the agent finished.
    let reverted: &[String] = if s.interrupted { &[] } else { &p.reverted };
    for p in reverted {
        facts.integrity.push(IntegrityFinding {
            kind: FindingKind::RevertedWallEdit,
            path: p.clone(),
            line: None,
            test: None,
            advice: Some(FindingKind::RevertedWallEdit.advice().into()),
            detail: "the agent edited a sealed wall test; it was restored from the sealed copy"
                .into(),
        });
        facts.extra_not_proven.push(NotProven::new(
            format!("reverted test edit: {p}"),
            "the agent edited a sealed acceptance test; it was restored, so the change was verified against the sealed copy only",
            loki_receipt::not_proven::logs(s.run_id.as_str()),
        ));
    }
}

/// NOT PROVEN entries for each sign of tampering, then for each note the run made.
fn tampering_and_notes(facts: &mut ReceiptFacts, s: &Run<'_>, tampered: &[String]) {
    let logs = loki_receipt::not_proven::logs(s.run_id.as_str());
    facts.extra_not_proven.extend(tampered.iter().map(|t| {
        NotProven::new(
            format!("tampering: {t}"),
            "a sealed file or the event log changed behind loki's back: nothing the run claims can be trusted",
            format!("loki verify {}", s.run_id),
        )
    }));
    facts.extra_not_proven.extend(
        s.notes
            .iter()
            .map(|n| NotProven::new(n.clone(), NOTED_WHY, logs.clone())),
    );
}

/// The cost summed over the sessions: tokens always, dollars only when every session measured
/// them (`usd` null otherwise).
fn session_cost(s: &Run<'_>) -> Cost {
    let measured = s.sessions.iter().filter(|x| x.cost_usd.is_some()).count() as u64;
    let total = s.sessions.len() as u64;
    let mut cost = Cost {
        // Folded from +0.0: the empty f64 sum is -0.0 (`$-0.00` for a run with no session).
        usd: (measured == total).then(|| {
            s.sessions
                .iter()
                .filter_map(|x| x.cost_usd)
                .fold(0.0, |a, b| a + b)
        }),
        measured_sessions: measured,
        total_sessions: total,
        ..Cost::default()
    };
    for x in &s.sessions {
        cost.input_tokens += x.usage.input_tokens;
        cost.output_tokens += x.usage.output_tokens;
        cost.cache_read_tokens += x.usage.cache_read_tokens;
        cost.cache_write_tokens += x.usage.cache_write_tokens;
    }
    cost
}

/// The run's wall time so far and the time of each stage.
fn times(s: &Run<'_>) -> Time {
    Time {
        wall_s: s.started.elapsed().as_secs_f64(),
        stages: s
            .stage_times
            .iter()
            .map(|(n, t)| StageTime {
                stage: n.as_str().to_owned(),
                wall_s: *t,
            })
            .collect(),
    }
}

/// The flags the verdict is derived from.
fn flags(s: &Run<'_>, p: &Products, tampered: &[String]) -> RunFlags {
    RunFlags {
        tampered: !tampered.is_empty(),
        already_satisfied: p.gate.already_satisfied,
        budget_hit: s.budget_hit,
        spec_conflict: s.spec_conflict,
        stalled: s.stalled,
        unjudged: p.verification.as_ref().is_some_and(|v| v.unjudged),
        interrupted: s.interrupted,
    }
}

/// What the run knows of each sealed wall file, for the contract's proof ([`loki_contract::proof`]).
fn wall_evidence(s: &Run<'_>, p: &Products) -> Vec<loki_contract::proof::WallEvidence> {
    let tampered = loki_contract::wall::tampered_copies(&s.run_dir, &p.wall);
    let v = p.verification.as_ref();
    p.wall
        .files
        .iter()
        .map(|f| {
            let head = v.and_then(|v| {
                v.results
                    .iter()
                    .find(|r| {
                        r.role == loki_protocol::CheckRole::Wall
                            && r.result.run.name == f.check.name
                    })
                    .map(|r| r.result.clone())
            });
            let ran_sealed = v.is_none_or(|v| v.wall_intact.contains(&f.path));
            loki_contract::proof::WallEvidence {
                path: f.path.clone(),
                unchanged: ran_sealed && !tampered.contains(&f.path),
                base: p
                    .gate
                    .results
                    .iter()
                    .find(|r| r.run.name == f.check.name)
                    .cloned(),
                head,
            }
        })
        .collect()
}

/// The `why` of a NOT PROVEN entry made from a note of the run: the note says what happened and
/// why in its own words; the log has the detail.
const NOTED_WHY: &str = "recorded by the run as it happened (the log has the detail)";

/// An entry as the summary's Reason line says it: `what: why`, or the note alone.
fn reason_text(n: &NotProven) -> String {
    if n.why() == NOTED_WHY || n.is_bare() {
        n.what().to_string()
    } else {
        format!("{}: {}", n.what(), n.why())
    }
}

/// The first NOT PROVEN entry that explains a non-zero exit (skipping the ones every run has).
fn reason(s: &Run<'_>, info: &SealedInfo) -> Option<String> {
    let always = loki_receipt::builder::always_not_proven(s.opts.kind);
    let specific = |prefix: &str| {
        info.not_proven
            .iter()
            .find(|n| n.what().starts_with(prefix))
            .map(reason_text)
    };
    let generic = || {
        info.not_proven
            .iter()
            .find(|n| n.what() != loki_receipt::builder::FULL_SUITE && !always.contains(&n.what()))
            .map(reason_text)
    };
    if !info.outcome.is_success()
        && let Some(f) = &s.provider_failure
    {
        // Tampering outranks everything; after it, the failed model call is why nothing was done.
        return specific("tampering").or_else(|| Some(f.reason()));
    }
    match info.outcome {
        Outcome::Verified | Outcome::AlreadySatisfied => None,
        Outcome::BudgetStop => specific("run cap")
            .or_else(|| specific("cost budget"))
            .or_else(|| specific("token cap")),
        Outcome::Blocked => specific("spec conflict"),
        Outcome::Stalled => specific("stalled"),
        Outcome::Interrupted | Outcome::Failed if s.interrupted => {
            specific("interrupted (").or_else(|| specific("interrupted"))
        }
        Outcome::Interrupted => specific("interrupted"),
        Outcome::Failed => specific("tampering")
            .or_else(|| specific("integrity"))
            .or_else(generic),
        Outcome::Partial => specific("integrity")
            .or_else(|| specific("assessment by council"))
            .or_else(generic),
    }
    .or_else(generic)
}

/// The report the CLI prints.
pub(crate) fn report(s: &Run<'_>, p: &Products, info: SealedInfo, exit_code: u8) -> BuildReport {
    let reason = reason(s, &info);
    let tokens = info.cost.input_tokens
        + info.cost.output_tokens
        + info.cost.cache_read_tokens
        + info.cost.cache_write_tokens;
    let mut stages = s.stage_times.clone();
    stages.retain(|(n, _)| *n != Stage::Seal);
    BuildReport {
        run_id: s.run_id.to_string(),
        outcome: info.outcome,
        interrupted: s.interrupted,
        exit_code,
        reason,
        receipt_sha256: info.receipt_sha256,
        receipt_path: info.receipt_path,
        signed_keyid: info.keyid,
        not_proven: info.not_proven,
        cost_usd: info.cost.usd,
        provider: s.opts.provider_label.clone(),
        tokens,
        wall_s: info.wall_s,
        stages,
        branch: p
            .intake
            .as_ref()
            .map(|i| i.branch.clone())
            .unwrap_or_default(),
        worktree: p
            .intake
            .as_ref()
            .map(|i| i.worktree.display().to_string())
            .unwrap_or_default(),
        head_sha: info.head_sha,
        base_sha: s.base.clone(),
        changed_files: info.changed,
        agent_s: s.sessions.iter().map(|x| x.model_seconds).sum(),
        checks_s: s.checks_s,
        council: p
            .council
            .as_ref()
            .map(loki_council::Council::lines)
            .unwrap_or_default(),
    }
}
