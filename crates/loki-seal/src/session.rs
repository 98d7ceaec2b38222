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
use loki_receipt::schema::{
    Check as ReceiptCheck, IntegrityFinding, JudgeFact, StageTime, Time, sha256_hex,
};
use loki_receipt::{KeyEnv, NotProven, ReceiptBuilder, ReceiptFacts, Signer};
use serde::{Deserialize, Serialize};

use crate::decide::{Evidence, Judgement, block_message, decide};
use crate::declare::{self, Applied, Mode};
use crate::{Decision, HookInput, SealError};
use loki_checks::judge::Declarable;
use loki_receipt::schema::{Declaration, Declared};

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
    /// `seal.expectation_changes`.
    pub expectation_changes: Mode,
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
    /// Seconds the baseline took to record.
    #[serde(default)]
    pub baseline_s: f64,
    /// Where the baseline came from.
    #[serde(default)]
    pub origin: Origin,
    /// The last stops, newest last (at most [`HISTORY`]).
    #[serde(default)]
    pub history: Vec<StopRecord>,
    /// What `loki seal declare` was told in this session.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declarations: Vec<Declaration>,
    /// The changes the last stop found nobody had declared: what a declaration may name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<Declarable>,
    /// Tests the last stop saw failing or changed: what a contradiction may name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known: Vec<String>,
    /// The session's first request from its user, when the agent's transcript gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
}

/// Where a session's baseline came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The SessionStart hook snapshotted the working tree and ran the suites.
    #[default]
    SessionStart,
    /// No start was recorded (hook installed mid-session, no or unreadable hook input): the first
    /// stop baselined from the last commit, whose suites the judge ran then.
    LastCommit,
}

/// What one stop decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StopRecord {
    pub at: String,
    pub decision: Stopped,
    /// The receipt's verdict, when one was sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Why it blocked or was released, one line per reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// How a stop ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stopped {
    Allowed,
    Blocked,
    /// Let through by the release valve, unproven.
    Released,
    /// Nothing changed since the baseline: nothing ran, nothing was sealed.
    NoChange,
}

impl Stopped {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Stopped::Allowed => "allowed",
            Stopped::Blocked => "blocked",
            Stopped::Released => "released",
            Stopped::NoChange => "no change",
        }
    }
}

/// Stops kept in a session's history.
pub const HISTORY: usize = 20;

impl SealState {
    /// Whether any stop of this session went through the release valve.
    #[must_use]
    pub fn released(&self) -> usize {
        self.history
            .iter()
            .filter(|r| r.decision == Stopped::Released)
            .count()
    }

    fn remember(&mut self, record: StopRecord) {
        self.history.push(record);
        let over = self.history.len().saturating_sub(HISTORY);
        self.history.drain(..over);
    }
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
pub(crate) fn lock_session(home: &Path, session: &str) -> Result<std::fs::File, SealError> {
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

pub(crate) fn save_state(home: &Path, state: &SealState) -> Result<(), SealError> {
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

pub(crate) fn load_state(home: &Path, session: &str) -> Result<SealState, SealError> {
    let path = state_path(home, session);
    match read_state(&path) {
        Err(SealError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Err(SealError::NoBaseline {
                session: session.to_string(),
                path,
            })
        }
        other => other,
    }
}

fn read_state(path: &Path) -> Result<SealState, SealError> {
    let text = std::fs::read_to_string(path).map_err(|e| SealError::Io {
        action: "read",
        path: path.to_path_buf(),
        source: e,
    })?;
    let state: SealState = serde_json::from_str(&text).map_err(|e| SealError::BadState {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    if state.schema != STATE_SCHEMA {
        return Err(SealError::BadState {
            path: path.to_path_buf(),
            reason: format!("schema {:?}, expected {STATE_SCHEMA:?}", state.schema),
        });
    }
    Ok(state)
}

/// A commit of the working tree as it is now, and its tree, without touching the index or any ref.
pub(crate) fn snapshot(git: &Git, label: &str) -> Result<(String, String), SealError> {
    let tree = git.snapshot_worktree()?;
    Ok((git.commit_tree(&tree, label)?, tree))
}

fn run_all(checks: &[Check], opts: &RunOptions) -> Result<Vec<CheckResult>, SealError> {
    checks
        .iter()
        .map(|c| run_check(c, opts).map_err(SealError::from))
        .collect()
}

/// What [`start`] did.
#[derive(Debug, Clone)]
pub struct Started {
    pub state: SealState,
    /// The session already had a baseline (a resume, a compaction, a cleared context): it was
    /// kept, not re-recorded, so a cheat made before the resume is still judged.
    pub kept: bool,
}

/// SessionStart: snapshot, run the suites, store the baseline. A session id that already has a
/// baseline in this repository keeps it (agents fire SessionStart again on resume, compact and
/// clear, with the same id); `rebaseline` records a new one anyway.
pub fn start(
    repo_root: &Path,
    input: &HookInput,
    opts: &SealOptions,
    rebaseline: bool,
) -> Result<Started, SealError> {
    let git = Git::new(repo_root);
    let session = input.session();
    let _session_lock = lock_session(&opts.home, &session)?;
    if !rebaseline {
        match load_state(&opts.home, &session) {
            Ok(state) if state.repo_root == repo_root => {
                return Ok(Started { state, kept: true });
            }
            Ok(_) | Err(SealError::NoBaseline { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    let clock = std::time::Instant::now();
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
        baseline_s: clock.elapsed().as_secs_f64(),
        origin: Origin::SessionStart,
        history: Vec::new(),
        declarations: Vec::new(),
        pending: Vec::new(),
        known: Vec::new(),
        request: None,
    };
    save_state(&opts.home, &state)?;
    Ok(Started { state, kept: false })
}

/// A session without a recorded start: the baseline is the last commit, judged by running its
/// suites at this stop (the judge runs the base when it has no base results).
fn baseline_from_head(git: &Git, repo_root: &Path, session: &str) -> Result<SealState, SealError> {
    let head = git.head()?.ok_or_else(|| SealError::NoBaseline {
        session: session.to_string(),
        path: repo_root.to_path_buf(),
    })?;
    Ok(SealState {
        schema: STATE_SCHEMA.to_string(),
        session: session.to_string(),
        repo_root: repo_root.to_path_buf(),
        snapshot: head,
        started_at: loki_core::time::now_rfc3339(),
        checks: detect(repo_root)?,
        baseline: Vec::new(),
        blocks: 0,
        baseline_s: 0.0,
        origin: Origin::LastCommit,
        history: Vec::new(),
        declarations: Vec::new(),
        pending: Vec::new(),
        known: Vec::new(),
        request: None,
    })
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
    /// The sealed receipt; `None` for a stop with no change (nothing to prove, nothing sealed).
    pub receipt_sha256: Option<String>,
    /// The receipt's verdict (`VERIFIED`, `FAILED`, …), or `NO CHANGE`.
    pub verdict: String,
    pub judged: Option<Judged>,
    /// Where the baseline came from (a stop without a recorded start baselines from HEAD).
    pub origin: Origin,
}

/// The outcome word of a stop whose tree is the baseline's: nothing changed, nothing to prove.
pub const NO_CHANGE: &str = "NO CHANGE";

/// Stop: compare with the session's baseline, decide, and seal a receipt. A session without a
/// recorded start baselines from the last commit (and says so); a stop whose tree is the
/// baseline's is allowed as "no change" without running anything.
pub fn stop(
    repo_root: &Path,
    input: &HookInput,
    opts: &SealOptions,
) -> Result<StopReport, SealError> {
    let clock = std::time::Instant::now();
    let git = Git::new(repo_root);
    let session = input.session();
    let _session_lock = lock_session(&opts.home, &session)?;
    let mut state = match load_state(&opts.home, &session) {
        Ok(state) if state.repo_root == repo_root => state,
        Ok(_) | Err(SealError::NoBaseline { .. }) => baseline_from_head(&git, repo_root, &session)?,
        Err(e) => return Err(e),
    };
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
    let since = match state.origin {
        Origin::SessionStart => "the session started",
        Origin::LastCommit => "the last commit (no session start was recorded)",
    };
    let base_tree = git.tree_of(&state.snapshot)?;
    if base_tree == now_tree {
        log.finish(&RunCompleted::new(NO_CHANGE).exit_code(0))?;
        state.blocks = 0;
        state.remember(StopRecord {
            at: loki_core::time::now_rfc3339(),
            decision: Stopped::NoChange,
            verdict: None,
            receipt_sha256: None,
            run_id: Some(log.id().to_string()),
            reasons: Vec::new(),
        });
        save_state(&opts.home, &state)?;
        clear_failures(&opts.home, &session)?;
        return Ok(StopReport {
            decision: Decision::Allow {
                message: format!("loki seal: no change since {since}; nothing to verify."),
            },
            judgement: Judgement::default(),
            run_id: log.id().clone(),
            receipt_sha256: None,
            verdict: NO_CHANGE.to_string(),
            judged: None,
            origin: state.origin,
        });
    }
    let dir = log.dir().to_path_buf();

    let mut run = opts.run.clone();
    run.log_dir = dir.join("checks");
    let judged = judge(&JudgeInput {
        repo_root,
        head_root: repo_root,
        base: &state.snapshot,
        head_tree: &now_tree,
        checks: &state.checks,
        base_results: (state.origin == Origin::SessionStart || !state.baseline.is_empty())
            .then_some(state.baseline.as_slice()),
        head_results: None,
        opts: &run,
        cache_dir: &opts.home.join("cache"),
        exclude: &[],
    });
    let sealing = |state| Sealing {
        git: &git,
        state,
        now_commit: &now_commit,
        now_tree: &now_tree,
        opts,
    };
    if let Some(signal) = loki_process::signals::signal_name() {
        // Suites the signal killed are no evidence either way: the session's state is left as
        // it was, so the next stop judges the change again.
        let secs = clock.elapsed().as_secs_f64();
        return interrupted_stop(&sealing(&state), log, signal, secs);
    }
    let mut judged = judged?;
    if state.baseline.is_empty() && state.origin == Origin::LastCommit {
        // The judge ran the last commit's suites: later stops of the session reuse them.
        state.baseline.clone_from(&judged.base);
    }
    if state.request.is_none() {
        state.request = input
            .transcript_path
            .as_deref()
            .and_then(declare::first_request);
    }
    let applied = declare::apply(&mut judged, &state.declarations, opts.expectation_changes);
    record_judgement(&mut log, &judged)?;
    let judgement = decide(&Evidence {
        judged: &judged,
        undeclared: &applied.undeclared,
        blocks_so_far: state.blocks,
        max_blocks: opts.max_blocks,
    });
    let mut facts = sealing(&state).facts(log.id().as_str())?;
    facts.checks = judged
        .head
        .iter()
        .map(|r| ReceiptCheck::of_suite(r, "tests"))
        .collect();
    facts.integrity = judged.findings.iter().map(IntegrityFinding::from).collect();
    facts.facts = judged.facts.iter().map(JudgeFact::from).collect();
    facts.judgement = Some(applied.verdict);
    facts.declared = declared_of(&applied, state.request.as_ref());
    facts.full_suite_ran = true;
    facts.pre_existing_failures.clone_from(&judged.pre_existing);
    let base = facts.repo.base_sha.clone();
    facts.extra_not_proven.extend(not_proven(&judged, &base));
    let check_again = format!("loki seal check --base {base}");
    if state.origin == Origin::LastCommit {
        facts.extra_not_proven.push(NotProven::new(
            "the baseline of this session",
            "no session start was recorded: the baseline is the last commit, so changes made before this session are judged as the agent's (the session-start hook records the baseline)",
            "loki seal install",
        ));
    }
    if judgement.released {
        facts.extra_not_proven.push(NotProven::new(
            format!("seal released after {} consecutive blocks", state.blocks),
            format!("unresolved: {}", judgement.unresolved().join("; ")),
            check_again.clone(),
        ));
    } else if judgement.blocks() {
        let unresolved = judgement.unresolved().join("; ");
        facts.extra_not_proven.push(NotProven::new(
            "stop refused",
            if unresolved.is_empty() {
                "the judge blocked the stop".to_string()
            } else {
                unresolved
            },
            check_again.clone(),
        ));
    }
    for c in applied.contradictions() {
        facts.extra_not_proven.push(NotProven::new(
            format!("the agent declares that {} contradicts the task", c.test),
            format!("its reason: {}", c.reason),
            check_again.clone(),
        ));
    }
    facts.flags.unjudged = !judged.cannot_judge.is_empty();
    let judge_s = clock.elapsed().as_secs_f64();
    facts.time = Time {
        wall_s: judge_s,
        stages: vec![StageTime {
            stage: "judge".to_string(),
            wall_s: judge_s,
        }],
    };
    let signer = Signer::load_or_create(&opts.home, &opts.keys)?;
    let builder = ReceiptBuilder::new(facts);
    let sealed = log.seal(|log| builder.seal(&dir, log, &signer))?;
    let verdict = sealed.receipt.verdict.to_string();
    // The hook's answer is the run's exit code: 2 blocks (Claude Code's protocol), 0 allows.
    let hook_exit = if judgement.blocks() { 2 } else { 0 };
    log.finish(&RunCompleted {
        blocked: judgement.blocks(),
        judgement: Some(applied.verdict),
        ..RunCompleted::new(verdict.clone())
            .exit_code(hook_exit)
            .receipt(sealed.receipt.receipt_sha256.clone())
    })?;

    let receipt_sha256 = sealed.receipt.receipt_sha256.clone();
    let blocks_before = state.blocks;
    state.blocks = if judgement.blocks() {
        state.blocks + 1
    } else {
        0
    };
    state.remember(StopRecord {
        at: loki_core::time::now_rfc3339(),
        decision: if judgement.released {
            Stopped::Released
        } else if judgement.blocks() {
            Stopped::Blocked
        } else {
            Stopped::Allowed
        },
        verdict: Some(verdict.clone()),
        receipt_sha256: Some(receipt_sha256.clone()),
        run_id: Some(log.id().to_string()),
        reasons: judgement.unresolved(),
    });
    state.pending.clone_from(&applied.undeclared);
    state.known = known_tests(&judged);
    save_state(&opts.home, &state)?;
    clear_failures(&opts.home, &session)?;

    let from_head = if state.origin == Origin::LastCommit {
        " (no session start was recorded: judged against the last commit)"
    } else {
        ""
    };
    let decision = stop_decision(&StopContext {
        judged: &judged,
        judgement: &judgement,
        applied: &applied,
        receipt_sha256: &receipt_sha256,
        verdict: &verdict,
        blocks_before,
        max_blocks: opts.max_blocks,
        since,
        from_head,
    });
    Ok(StopReport {
        decision,
        judgement,
        run_id: log.id().clone(),
        receipt_sha256: Some(receipt_sha256),
        verdict,
        judged: Some(judged),
        origin: state.origin,
    })
}

/// What every stop's receipt says of the session and the tree it judged.
struct Sealing<'a> {
    git: &'a Git,
    state: &'a SealState,
    now_commit: &'a str,
    now_tree: &'a str,
    opts: &'a SealOptions,
}

impl Sealing<'_> {
    /// The receipt's facts about the task, the repository and the diff.
    fn facts(&self, run_id: &str) -> Result<ReceiptFacts, SealError> {
        let state = self.state;
        let mut facts = change_facts(
            self.git,
            run_id,
            &state.snapshot,
            self.now_commit,
            self.now_tree,
        )?;
        facts.task.source = "hook".to_string();
        facts.task.sha256 = sha256_hex(state.session.as_bytes());
        facts.task.reference = Some(format!("session {}", state.session));
        facts.provider = "hook".to_string();
        Ok(facts)
    }
}

/// A seal receipt's facts about the repository and the change from `base` to the snapshot
/// `head` (commit) with tree `tree`; the task and provider are the caller's.
pub(crate) fn change_facts(
    git: &Git,
    run_id: &str,
    base: &str,
    head: &str,
    tree: &str,
) -> Result<ReceiptFacts, SealError> {
    let mut facts = ReceiptFacts::new(run_id, RunKind::Seal);
    facts.tool.version = env!("CARGO_PKG_VERSION").to_string();
    facts.repo.origin = git.origin_url().ok().flatten();
    facts.repo.base_sha = base.to_string();
    facts.repo.head_sha = head.to_string();
    facts.repo.tree = tree.to_string();
    let stat = git.diff_stat(base, head)?;
    facts.diff.sha256 = git.diff_digest(base, head)?;
    facts.diff.files = stat.files;
    facts.diff.insertions = stat.insertions;
    facts.diff.deletions = stat.deletions;
    Ok(facts)
}

/// A stop cut by SIGINT or SIGTERM while its suites ran: an INTERRUPTED receipt with no check,
/// finding or verdict ([`loki_receipt::RunFlags::interrupted`]), `run.interrupted` in the log and
/// the session's state untouched. The agent is not blocked (nothing was found) and is told the
/// change was not judged.
fn interrupted_stop(
    c: &Sealing<'_>,
    mut log: RunRecorder,
    signal: &str,
    judge_s: f64,
) -> Result<StopReport, SealError> {
    let dir = log.dir().to_path_buf();
    let mut facts = c.facts(log.id().as_str())?;
    facts.flags.interrupted = true;
    facts.time = Time {
        wall_s: judge_s,
        stages: Vec::new(),
    };
    facts
        .extra_not_proven
        .push(loki_receipt::not_proven::NotProven::new(
            "the change",
            format!("loki was interrupted ({signal}) while the suites ran"),
            "the agent's next stop, or `loki seal check`",
        ));
    let signer = Signer::load_or_create(&c.opts.home, &c.opts.keys)?;
    let builder = ReceiptBuilder::new(facts);
    let sealed = log.seal(|log| builder.seal(&dir, log, &signer))?;
    let verdict = sealed.receipt.verdict.to_string();
    log.interrupt(&loki_events::payload::RunInterrupted {
        outcome: Some(verdict.clone()),
        exit_code: None,
        receipt_sha256: Some(sealed.receipt.receipt_sha256.clone()),
        reason: Some(format!("{signal} while the suites ran")),
    })?;
    Ok(StopReport {
        decision: Decision::Allow {
            message: format!(
                "loki seal: interrupted ({signal}) before the change was judged: NOT VERIFIED; the next stop judges it again."
            ),
        },
        judgement: Judgement::default(),
        run_id: log.id().clone(),
        receipt_sha256: Some(sealed.receipt.receipt_sha256.clone()),
        verdict,
        judged: None,
        origin: c.state.origin,
    })
}

/// What a stop's decision is made from.
struct StopContext<'a> {
    judged: &'a Judged,
    judgement: &'a Judgement,
    applied: &'a Applied,
    receipt_sha256: &'a str,
    verdict: &'a str,
    blocks_before: u32,
    max_blocks: u32,
    since: &'a str,
    from_head: &'a str,
}

/// The stop's answer: a declared contradiction releases the session NOT VERIFIED; findings and
/// undeclared changes refuse it (until the release valve opens); an open question lets it stop
/// NOT VERIFIED; else it is allowed, with what was declared shown to the person.
fn stop_decision(c: &StopContext<'_>) -> Decision {
    let StopContext {
        judged,
        judgement,
        applied,
        receipt_sha256,
        verdict,
        blocks_before,
        max_blocks,
        since,
        from_head,
    } = *c;
    let contradictions: Vec<String> = applied
        .contradictions()
        .map(|d| format!("{}: \"{}\"", d.test, d.reason))
        .collect();
    if !contradictions.is_empty() {
        let unresolved = judgement.unresolved();
        let tail = if unresolved.is_empty() {
            String::new()
        } else {
            format!(" Also unresolved: {}.", unresolved.join("; "))
        };
        return Decision::Release {
            message: format!(
                "loki seal: RELEASED, NOT VERIFIED: the agent declares that the tests contradict the task ({}).{tail} Receipt sha256:{receipt_sha256}. See `loki seal status`.",
                contradictions.join("; ")
            ),
        };
    }
    if judgement.blocks() {
        let reason = if judgement.reasons.is_empty() {
            declare::declare_message(&applied.undeclared)
        } else {
            let tails: Vec<(String, String)> = judged
                .head
                .iter()
                .filter(|r| r.result != CheckStatus::Pass)
                .map(|r| (r.name.clone(), tail_of(&r.log_path)))
                .collect();
            block_message(judgement, &tails)
        };
        return Decision::Block {
            reason: format!("{reason}{from_head}"),
        };
    }
    if judgement.released {
        return Decision::Release {
            message: format!(
                "loki seal: RELEASED, NOT VERIFIED: the change was refused {blocks_before} times in a row (seal.max_blocks = {max_blocks}), so this stop is let through unproven. Unresolved: {}. Receipt sha256:{receipt_sha256}. See `loki seal status`.",
                judgement.unresolved().join("; ")
            ),
        };
    }
    let declared = declared_line(applied);
    if !judgement.cannot_judge.is_empty() {
        return Decision::Allow {
            message: format!(
                "loki seal: NOT VERIFIED: the change could not be judged ({}){from_head}.{declared} Receipt sha256:{receipt_sha256}",
                judgement.cannot_judge.join("; ")
            ),
        };
    }
    let executed: u64 = judged.head.iter().map(|r| r.executed).sum();
    let allowed: Vec<&str> = judged
        .facts
        .iter()
        .filter(|f| f.kind == loki_checks::judge::FactKind::ExpectationChangeAllowed)
        .map(|f| f.test.as_str())
        .collect();
    let allowed = if allowed.is_empty() {
        String::new()
    } else {
        format!(
            " Expectations changed (allowed by seal.expectation_changes): {}.",
            allowed.join(", ")
        )
    };
    let weakened: Vec<String> = judged
        .facts
        .iter()
        .filter(|f| f.kind == loki_checks::judge::FactKind::WeakenedWithoutCodeChange)
        .map(|f| f.detail.clone())
        .collect();
    let weakened = if weakened.is_empty() {
        String::new()
    } else {
        format!(" Note: {}.", weakened.join("; "))
    };
    Decision::Allow {
        message: format!(
            "loki seal: {verdict}: {} suite(s), {executed} tests executed; no test newly failing, deleted, skipped, or edited to pass since {since}.{declared}{allowed}{weakened} Receipt sha256:{receipt_sha256}",
            judged.head.len()
        ),
    }
}

/// What the person reads about the declarations of an allowed stop ("" when there are none).
fn declared_line(applied: &Applied) -> String {
    if applied.declared.is_empty() {
        return String::new();
    }
    let items: Vec<String> = applied
        .declared
        .iter()
        .map(|d| {
            let change = match (d.was.first(), d.now.first()) {
                (Some(w), Some(n)) => format!(" (was `{w}`, now `{n}`)"),
                (Some(w), None) => format!(" (was `{w}`)"),
                _ => String::new(),
            };
            format!("{}{change}: \"{}\"", d.test, d.reason)
        })
        .collect();
    format!(" Declared by the agent as asked for: {}.", items.join("; "))
}

/// The receipt's declarations: what was declared and what is still undeclared, with the request.
pub(crate) fn declared_of(applied: &Applied, request: Option<&String>) -> Option<Declared> {
    let items = applied.for_receipt();
    (!items.is_empty()).then(|| Declared {
        request: request.cloned(),
        items,
    })
}

/// Tests a contradiction may name: those failing at head, and those with a change to declare.
pub(crate) fn known_tests(judged: &Judged) -> Vec<String> {
    /// Tests remembered per stop.
    const KNOWN: usize = 500;
    let mut out: Vec<String> = judged
        .head
        .iter()
        .flat_map(|r| r.tests.iter())
        .filter(|t| t.status == loki_checks::TestStatus::Failed)
        .map(|t| t.id.clone())
        .collect();
    out.extend(judged.declare.iter().map(|d| d.test.clone()));
    out.sort();
    out.dedup();
    out.truncate(KNOWN);
    out
}

/// The file counting a session's consecutive stops that could not be checked at all (an error
/// before any judgement): `<state>.failures`, one decimal number.
fn failures_path(home: &Path, session: &str) -> PathBuf {
    state_path(home, session).with_extension("failures")
}

fn clear_failures(home: &Path, session: &str) -> Result<(), SealError> {
    let path = failures_path(home, session);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(SealError::Io {
            action: "remove",
            path,
            source: e,
        }),
    }
}

/// Counts a stop that failed before it could be judged (it is blocked, failing closed) and says
/// whether the release valve opens: after `max_blocks` such stops in a row the next one is let
/// through, NOT VERIFIED, so a broken seal cannot trap an agent forever. Returns the failures
/// before this one and whether this stop is released.
pub fn failed_stop(home: &Path, session: &str, max_blocks: u32) -> Result<(u32, bool), SealError> {
    let _session_lock = lock_session(home, session)?;
    let path = failures_path(home, session);
    let before: u32 = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    let released = before >= max_blocks;
    if released {
        clear_failures(home, session)?;
    } else {
        loki_core::fs::write_atomic_mode(
            &path,
            format!("{}\n", before + 1).as_bytes(),
            loki_core::fs::PRIVATE_FILE_MODE,
        )?;
    }
    Ok((before, released))
}

/// Every session state under `$LOKI_HOME/seal`, oldest start first; a file that cannot be read
/// is returned as its error, so `loki seal status` shows it instead of hiding it.
pub fn sessions(home: &Path) -> Result<Vec<Result<SealState, SealError>>, SealError> {
    let dir = home.join("seal");
    let entries = match std::fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(SealError::Io {
                action: "read the directory",
                path: dir,
                source: e,
            });
        }
    };
    let mut out = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        out.push(read_state(&path));
    }
    out.sort_by(|a, b| match (a, b) {
        (Ok(a), Ok(b)) => a.started_at.cmp(&b.started_at),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => std::cmp::Ordering::Equal,
    });
    Ok(out)
}

/// Appends the judgement's evidence to the event log: each suite's result, each finding and fact.
pub(crate) fn record_judgement(log: &mut RunRecorder, judged: &Judged) -> Result<(), SealError> {
    for r in &judged.head {
        log.append(&CheckEvent::from(r))?;
    }
    for f in &judged.findings {
        log.append(&FindingEvent::from(f))?;
    }
    Ok(())
}

/// What the judgement leaves unproven, in the receipt's words; judging again against `base` is
/// how each is settled.
pub(crate) fn not_proven(judged: &Judged, base: &str) -> Vec<NotProven> {
    let mut out: Vec<NotProven> = judged
        .cannot_judge
        .iter()
        .map(|c| loki_receipt::not_proven::cannot_judge(&c.check, &c.reason, &c.fix, base))
        .collect();
    out.extend(
        judged
            .not_proven
            .iter()
            .map(|n| loki_receipt::not_proven::judge_note(n.clone(), base)),
    );
    out.extend(judged.comparison.uncompared.iter().map(|u| {
        NotProven::new(
            format!("test-by-test comparison of {}", u.check),
            u.reason.clone(),
            format!("loki seal check --base {base}"),
        )
    }));
    out
}

fn tail_of(path: &Path) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let start = bytes.len().saturating_sub(TAIL_BYTES);
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}
