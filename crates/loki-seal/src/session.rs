//! The seal's I/O shell: session state, start, stop and check. Decisions are in [`crate::decide`].

use std::path::{Path, PathBuf};

use loki_checks::judge::{JudgeInput, Judged, judge};
use loki_checks::{Check, CheckResult, CheckStatus, RunOptions, detect, run_check};
use loki_core::run::{RunKind, RunStore};
use loki_core::{RunId, layout::Repo};
use loki_events::RunRecorder;
use loki_events::payload::{
    CheckResult as CheckEvent, IntegrityFinding as FindingEvent, RunCompleted, RunStarted,
};
use loki_git::Git;
use loki_receipt::schema::{Check as ReceiptCheck, IntegrityFinding, JudgeFact, sha256_hex};
use loki_receipt::{KeyEnv, ReceiptBuilder, ReceiptFacts, Signer};
use serde::{Deserialize, Serialize};

use crate::decide::{Evidence, Judgement, block_message, decide};
use crate::{Decision, HookInput, SealError};

/// Schema tag of a session state file.
pub const STATE_SCHEMA: &str = "loki.seal/1";
/// Bytes of a failing suite's output quoted to the agent.
const TAIL_BYTES: usize = 1500;

/// How the seal runs.
#[derive(Debug, Clone)]
pub struct SealOptions {
    /// `$LOKI_HOME`: session state, the signing key, the baseline cache.
    pub home: PathBuf,
    /// How suites run (timeout, output cap, environment).
    pub run: RunOptions,
    /// Consecutive blocks before the release valve opens.
    pub max_blocks: u32,
    /// Where the signing key comes from.
    pub keys: KeyEnv,
}

/// What `start` recorded for a session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SealState {
    pub schema: String,
    pub session: String,
    pub repo_root: PathBuf,
    /// A commit (dangling, no ref) of the working tree at session start.
    pub snapshot: String,
    pub started_at: String,
    pub checks: Vec<Check>,
    pub baseline: Vec<CheckResult>,
    /// Consecutive blocks so far.
    pub blocks: u32,
}

/// The state file of a session: `$LOKI_HOME/seal/<session>.json`. Session ids that are not plain
/// names are hashed, so an id can never name a path outside the directory.
#[must_use]
pub fn state_path(home: &Path, session: &str) -> PathBuf {
    let plain = !session.is_empty()
        && session.len() <= 128
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    let name = if plain {
        session.to_string()
    } else {
        sha256_hex(session.as_bytes())
    };
    home.join("seal").join(format!("{name}.json"))
}

/// Holds the session's lock (`<state>.lock`, beside the state file) for as long as it lives: a stop
/// reads the block counter, judges and writes it back, so two stops of one session at once would
/// lose a count. A second stop waits for the first.
fn lock_session(home: &Path, session: &str) -> Result<std::fs::File, SealError> {
    let dir = home.join("seal");
    loki_core::fs::ensure_private_dir(&dir)?;
    let path = state_path(home, session).with_extension("lock");
    let io = |action: &'static str| {
        let path = path.clone();
        move |source| SealError::Io {
            action,
            path,
            source,
        }
    };
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(io("open the session lock"))?;
    file.lock().map_err(io("lock"))?;
    Ok(file)
}

fn save_state(home: &Path, state: &SealState) -> Result<(), SealError> {
    let dir = home.join("seal");
    loki_core::fs::ensure_private_dir(&dir)?;
    let mut bytes = serde_json::to_vec_pretty(state).map_err(|e| SealError::BadState {
        path: dir.clone(),
        reason: e.to_string(),
    })?;
    bytes.push(b'\n');
    loki_core::fs::write_atomic_mode(
        &state_path(home, &state.session),
        &bytes,
        loki_core::fs::PRIVATE_FILE_MODE,
    )?;
    Ok(())
}

fn load_state(home: &Path, session: &str) -> Result<SealState, SealError> {
    let path = state_path(home, session);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(SealError::NoBaseline {
                session: session.to_string(),
                path,
            });
        }
        Err(e) => {
            return Err(SealError::Io {
                action: "read",
                path,
                source: e,
            });
        }
    };
    let state: SealState = serde_json::from_str(&text).map_err(|e| SealError::BadState {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    if state.schema != STATE_SCHEMA {
        return Err(SealError::BadState {
            path,
            reason: format!("schema {:?}, expected {STATE_SCHEMA:?}", state.schema),
        });
    }
    Ok(state)
}

/// A commit of the working tree as it is now, and its tree, without touching the index or any ref.
fn snapshot(git: &Git, label: &str) -> Result<(String, String), SealError> {
    let tree = git.snapshot_worktree()?;
    Ok((git.commit_tree(&tree, label)?, tree))
}

fn run_all(checks: &[Check], opts: &RunOptions) -> Result<Vec<CheckResult>, SealError> {
    checks
        .iter()
        .map(|c| run_check(c, opts).map_err(SealError::from))
        .collect()
}

/// SessionStart: snapshot, run the suites, store the baseline.
pub fn start(
    repo_root: &Path,
    input: &HookInput,
    opts: &SealOptions,
) -> Result<SealState, SealError> {
    let git = Git::new(repo_root);
    let session = input.session();
    let (snapshot, _) = snapshot(&git, "loki seal: session start")?;
    let checks = detect(repo_root)?;
    let mut run = opts.run.clone();
    run.log_dir = opts.home.join("seal").join("logs").join(sanitize(&session));
    let baseline = run_all(&checks, &run)?;
    let state = SealState {
        schema: STATE_SCHEMA.to_string(),
        session,
        repo_root: repo_root.to_path_buf(),
        snapshot,
        started_at: loki_core::time::now_rfc3339(),
        checks,
        baseline,
        blocks: 0,
    };
    save_state(&opts.home, &state)?;
    Ok(state)
}

fn sanitize(session: &str) -> String {
    state_path(Path::new(""), session)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What a stop decided and recorded.
#[derive(Debug, Clone)]
pub struct StopReport {
    pub decision: Decision,
    pub judgement: Judgement,
    pub run_id: RunId,
    pub receipt_sha256: String,
    /// The receipt's verdict (`VERIFIED`, `FAILED`, …).
    pub verdict: String,
    pub judged: Judged,
}

/// Stop: compare with the session's baseline, decide, and seal a receipt.
pub fn stop(
    repo_root: &Path,
    input: &HookInput,
    opts: &SealOptions,
) -> Result<StopReport, SealError> {
    let git = Git::new(repo_root);
    let _session_lock = lock_session(&opts.home, &input.session())?;
    let mut state = load_state(&opts.home, &input.session())?;
    let (now_commit, now_tree) = snapshot(&git, "loki seal: stop")?;

    let store = RunStore::new(Repo::discover(repo_root)?);
    let mut log = RunRecorder::start(
        &store,
        Some(format!("seal session {}", state.session)),
        std::env::args().collect(),
        &RunStarted::Seal {
            session: state.session.clone(),
            base: state.snapshot.clone(),
            head: now_commit.clone(),
        },
    )?;
    let dir = log.dir().to_path_buf();

    let mut run = opts.run.clone();
    run.log_dir = dir.join("checks");
    let judged = judge(&JudgeInput {
        repo_root,
        head_root: repo_root,
        base: &state.snapshot,
        head_tree: &now_tree,
        checks: &state.checks,
        base_results: Some(&state.baseline),
        head_results: None,
        opts: &run,
        cache_dir: &opts.home.join("cache"),
        exclude: &[],
    })?;
    record_judgement(&mut log, &judged)?;
    let judgement = decide(&Evidence {
        judged: &judged,
        blocks_so_far: state.blocks,
        max_blocks: opts.max_blocks,
    });
    let origin = git.origin_url().ok().flatten();
    let diff_sha256 = git.diff_digest(&state.snapshot, &now_commit)?;
    let stat = git.diff_stat(&state.snapshot, &now_commit)?;

    let mut facts = ReceiptFacts::new(log.id().as_str(), RunKind::Seal);
    facts.tool.version = env!("CARGO_PKG_VERSION").to_string();
    facts.task.source = "hook".to_string();
    facts.task.sha256 = sha256_hex(state.session.as_bytes());
    facts.task.reference = Some(format!("session {}", state.session));
    facts.repo.origin = origin;
    facts.repo.base_sha.clone_from(&state.snapshot);
    facts.repo.head_sha.clone_from(&now_commit);
    facts.repo.tree.clone_from(&now_tree);
    facts.diff.sha256 = diff_sha256;
    facts.diff.files = stat.files;
    facts.diff.insertions = stat.insertions;
    facts.diff.deletions = stat.deletions;
    facts.checks = judged
        .head
        .iter()
        .map(|r| ReceiptCheck::of_suite(r, "tests"))
        .collect();
    facts.integrity = judged.findings.iter().map(IntegrityFinding::from).collect();
    facts.facts = judged.facts.iter().map(JudgeFact::from).collect();
    facts.full_suite_ran = true;
    facts.pre_existing_failures.clone_from(&judged.pre_existing);
    facts.extra_not_proven.extend(not_proven(&judged));
    if judgement.released {
        facts.extra_not_proven.push(format!(
            "seal released after {} consecutive blocks; unresolved: {}",
            state.blocks,
            judgement.reasons.join("; ")
        ));
    } else if judgement.blocks() {
        facts
            .extra_not_proven
            .push(format!("stop refused: {}", judgement.reasons.join("; ")));
    }
    facts.provider = "hook".to_string();
    facts.model = String::new();
    let signer = Signer::load_or_create(&opts.home, &opts.keys)?;
    let builder = ReceiptBuilder::new(facts);
    let sealed = log.seal(|log| builder.seal(&dir, log, &signer))?;
    let verdict = sealed.receipt.verdict.to_string();
    // The hook's answer is the run's exit code: 2 blocks (Claude Code's protocol), 0 allows.
    let hook_exit = if judgement.blocks() { 2 } else { 0 };
    log.finish(&RunCompleted {
        blocked: judgement.blocks(),
        ..RunCompleted::new(verdict.clone())
            .exit_code(hook_exit)
            .receipt(sealed.receipt.receipt_sha256.clone())
    })?;

    state.blocks = if judgement.blocks() {
        state.blocks + 1
    } else {
        0
    };
    save_state(&opts.home, &state)?;

    let receipt_sha256 = sealed.receipt.receipt_sha256.clone();
    let decision = if judgement.blocks() {
        let tails: Vec<(String, String)> = judged
            .head
            .iter()
            .filter(|r| r.result != CheckStatus::Pass)
            .map(|r| (r.name.clone(), tail_of(&r.log_path)))
            .collect();
        Decision::Block {
            reason: block_message(&judgement, &tails),
        }
    } else if judgement.released {
        Decision::Release {
            message: format!(
                "loki seal: released after {} consecutive blocks; NOT VERIFIED ({}). Receipt sha256:{receipt_sha256}",
                opts.max_blocks,
                judgement.reasons.join("; ")
            ),
        }
    } else if !judgement.cannot_judge.is_empty() {
        Decision::Allow {
            message: format!(
                "loki seal: NOT VERIFIED: the change could not be judged ({}). Receipt sha256:{receipt_sha256}",
                judgement.cannot_judge.join("; ")
            ),
        }
    } else {
        let executed: u64 = judged.head.iter().map(|r| r.executed).sum();
        let changed: Vec<&str> = judged
            .facts
            .iter()
            .filter(|f| f.kind == loki_checks::judge::FactKind::ExpectationChanged)
            .map(|f| f.test.as_str())
            .collect();
        let expectations = if changed.is_empty() {
            String::new()
        } else {
            format!(
                " Expectations changed (the old form fails on the new code and the new form on the old: a behaviour change, check it was asked for): {}.",
                changed.join(", ")
            )
        };
        Decision::Allow {
            message: format!(
                "loki seal: {verdict}: {} suite(s), {executed} tests executed, no test newly failing or weakened.{expectations} Receipt sha256:{receipt_sha256}",
                judged.head.len()
            ),
        }
    };
    Ok(StopReport {
        decision,
        judgement,
        run_id: log.id().clone(),
        receipt_sha256,
        verdict,
        judged,
    })
}

/// Appends the judgement's evidence to the event log: each suite's result, each finding and fact.
fn record_judgement(log: &mut RunRecorder, judged: &Judged) -> Result<(), SealError> {
    for r in &judged.head {
        log.append(&CheckEvent::from(r))?;
    }
    for f in &judged.findings {
        log.append(&FindingEvent::from(f))?;
    }
    Ok(())
}

/// What the judgement leaves unproven, in the receipt's words.
fn not_proven(judged: &Judged) -> Vec<String> {
    let mut out: Vec<String> = judged
        .cannot_judge
        .iter()
        .map(|c| format!("cannot judge {}: {} ({})", c.check, c.reason, c.fix))
        .collect();
    out.extend(judged.not_proven.iter().cloned());
    out.extend(
        judged
            .comparison
            .uncompared
            .iter()
            .map(|u| format!("test-by-test comparison of {}: {}", u.check, u.reason)),
    );
    out
}

fn tail_of(path: &Path) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let start = bytes.len().saturating_sub(TAIL_BYTES);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

/// What `loki seal check` found.
#[derive(Debug, Clone)]
pub struct CheckReport {
    pub base: String,
    pub judged: Judged,
    pub judgement: Judgement,
    pub not_proven: Vec<String>,
}

/// Compares the working tree with `base_rev`: the judge on the base and the working tree.
pub fn check(
    repo_root: &Path,
    base_rev: &str,
    opts: &SealOptions,
) -> Result<CheckReport, SealError> {
    let git = Git::new(repo_root);
    let base = git
        .rev_parse(base_rev)
        .map_err(|source| loki_checks::ChecksError::BadRevision {
            rev: base_rev.to_string(),
            source,
        })?;
    let (_, now_tree) = snapshot(&git, "loki seal: check")?;
    let checks = detect(repo_root)?;
    let logs = tempfile::Builder::new()
        .prefix("loki-seal-check-")
        .tempdir()
        .map_err(|e| SealError::Io {
            action: "create a temporary directory in",
            path: std::env::temp_dir(),
            source: e,
        })?;
    let mut run = opts.run.clone();
    run.log_dir = logs.path().to_path_buf();
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
    })?;
    let judgement = decide(&Evidence {
        judged: &judged,
        blocks_so_far: 0,
        max_blocks: u32::MAX,
    });
    let mut not_proven = not_proven(&judged);
    not_proven.extend(
        judged
            .pre_existing
            .iter()
            .map(|id| format!("pre-existing failure: {id}")),
    );
    Ok(CheckReport {
        base,
        judged,
        judgement,
        not_proven,
    })
}
