//! The seal's I/O shell: a stop judged against its worktree's open baseline, and what it
//! records. Taking a baseline is [`crate::baseline`], the state and how the baseline moves
//! [`crate::state`], `loki seal check` [`crate::check`]; decisions are in [`crate::decide`].
//!
//! A stop takes its worktree's lock, reads the open baseline (else migrates the session's file
//! from before the keying by worktree, else baselines from the last commit), adds its session
//! (or subagent) to the lineage, snapshots the tree and judges the change. A tree equal to the
//! baseline is "no change" (nothing runs, nothing is sealed), unless something was declared since
//! the last judgement (it is judged, so the declaration is signed). Every judged stop seals a receipt;
//! one that lets the agent go (allowed, released) advances the baseline to the tree it judged,
//! a blocked one counts towards `seal.max_blocks`, an interrupted one leaves the state as it was.

use std::path::{Path, PathBuf};

use loki_checks::judge::{JudgeInput, Judged, judge};
use loki_core::run::{RunKind, RunStore};
use loki_core::{RunId, layout::Repo};
use loki_events::RunRecorder;
use loki_events::payload::{
    CheckResult as CheckEvent, IntegrityFinding as FindingEvent, RunCompleted, RunStarted,
};
use loki_git::Git;
use loki_protocol::{CheckStatus, Outcome, RunEnd};
use loki_receipt::schema::{IntegrityFinding, JudgeFact, StageTime, Time, sha256_hex};
use loki_receipt::{KeyEnv, NotProven, ReceiptBuilder, ReceiptFacts, Signer};
use loki_runner::RunOptions;

use crate::decide::{Evidence, Judgement, block_message, decide};
use crate::declare::{self, Applied, Mode};
use crate::state::{
    Open, Origin, SealState, StopRecord, Stopped, load_open, lock_session, lock_worktree,
    save_open, state_path, worktree_state_path,
};
use crate::{Decision, HookInput, SealError};
use loki_receipt::schema::Declared;

pub use crate::baseline::{ResetReport, Started, reset, start};
pub use crate::check::{CheckReport, check};
pub use crate::state::{HISTORY, STATE_SCHEMA, sessions};

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

/// A commit of the working tree as it is now, and its tree, without touching the index or any ref.
pub(crate) fn snapshot(git: &Git, label: &str) -> Result<(String, String), SealError> {
    let tree = git.snapshot_worktree()?;
    Ok((git.commit_tree(&tree, label)?, tree))
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
    pub verdict: RunEnd,
    pub judged: Option<Judged>,
    /// Where the baseline came from (a stop without a recorded start baselines from HEAD).
    pub origin: Origin,
}

/// What a stop works with besides the state.
struct Stopping<'a> {
    git: &'a Git,
    input: &'a HookInput,
    opts: &'a SealOptions,
    session: &'a str,
    now_commit: &'a str,
    now_tree: &'a str,
    clock: std::time::Instant,
}

impl Stopping<'_> {
    fn sealing<'s>(&'s self, state: &'s SealState) -> Sealing<'s> {
        Sealing {
            git: self.git,
            state,
            session: self.session,
            now_commit: self.now_commit,
            now_tree: self.now_tree,
            opts: self.opts,
        }
    }
}

/// Stop: judge the change since the worktree's open baseline, decide, and seal a receipt (see
/// the module doc).
pub fn stop(
    repo_root: &Path,
    input: &HookInput,
    opts: &SealOptions,
) -> Result<StopReport, SealError> {
    let clock = std::time::Instant::now();
    let git = Git::new(repo_root);
    let session = input.session();
    let _worktree_lock = lock_worktree(&opts.home, repo_root)?;
    let mut open = match load_open(&opts.home, repo_root, Some(&session))? {
        Some(open) => open,
        None => Open {
            state: crate::baseline::from_head(&git, repo_root, input)?,
            legacy: None,
        },
    };
    open.state.join(input);
    let (now_commit, now_tree) = snapshot(&git, "loki seal: stop")?;
    let c = Stopping {
        git: &git,
        input,
        opts,
        session: &session,
        now_commit: &now_commit,
        now_tree: &now_tree,
        clock,
    };

    let store = RunStore::new(Repo::discover(repo_root)?);
    let log = RunRecorder::start(
        &store,
        Some(format!("seal session {session}")),
        std::env::args().collect(),
        &RunStarted::Seal {
            session: session.clone(),
            base: open.state.snapshot.clone(),
            head: now_commit.clone(),
        },
    )?;
    // A declaration made since the last judgement (a contradiction the agent names after an
    // allowed stop) must reach the person signed: that tree is judged, not waved through.
    if git.tree_of(&open.state.snapshot)? == now_tree && open.state.declarations.is_empty() {
        return no_change(&mut open, log, &c);
    }
    let mut run = opts.run.clone();
    run.log_dir = log.dir().join("checks");
    let state = &open.state;
    let judged = judge(&JudgeInput {
        repo_root,
        head_root: repo_root,
        base: &state.snapshot,
        head_tree: &now_tree,
        checks: &state.checks,
        base_results: (state.origin != Origin::LastCommit || !state.baseline.is_empty())
            .then_some(state.baseline.as_slice()),
        head_results: None,
        opts: &run,
        cache_dir: &opts.home.join("cache"),
        exclude: &[],
    });
    if let Some(signal) = loki_process::signals::signal_name() {
        // Suites the signal killed are no evidence either way: the worktree's state is left as
        // it was, so the next stop judges the change again.
        let secs = clock.elapsed().as_secs_f64();
        return interrupted_stop(&c.sealing(&open.state), log, signal, secs);
    }
    judged_stop(&mut open, judged?, log, &c)
}

/// The tree is the baseline's: allowed without running anything. Blocks and declarations start
/// over; the baseline (and any reset not yet named in a receipt) stays.
fn no_change(
    open: &mut Open,
    mut log: RunRecorder,
    c: &Stopping<'_>,
) -> Result<StopReport, SealError> {
    log.finish(&RunCompleted::new(RunEnd::NoChange).exit_code(0))?;
    let since = open.state.origin.since(&open.state);
    let state = &mut open.state;
    state.blocks = 0;
    state.declarations.clear();
    state.pending.clear();
    state.remember(StopRecord {
        at: loki_core::time::now_rfc3339(),
        decision: Stopped::NoChange,
        verdict: None,
        receipt_sha256: None,
        run_id: Some(log.id().to_string()),
        reasons: Vec::new(),
        session: Some(c.session.to_string()),
    });
    let origin = state.origin;
    save_open(&c.opts.home, open)?;
    clear_failures(&c.opts.home, &open.state.repo_root)?;
    Ok(StopReport {
        decision: Decision::Allow {
            message: format!("loki seal: no change since {since}; nothing to verify."),
        },
        judgement: Judgement::default(),
        run_id: log.id().clone(),
        receipt_sha256: None,
        verdict: RunEnd::NoChange,
        judged: None,
        origin,
    })
}

/// A judged stop: declarations applied, decided, sealed, and the state moved (see the module
/// doc).
fn judged_stop(
    open: &mut Open,
    mut judged: Judged,
    mut log: RunRecorder,
    c: &Stopping<'_>,
) -> Result<StopReport, SealError> {
    let opts = c.opts;
    let state = &mut open.state;
    if state.baseline.is_empty() && state.origin == Origin::LastCommit {
        // The judge ran the last commit's suites: later stops reuse them.
        state.baseline.clone_from(&judged.base);
    }
    if state.request.is_none() {
        state.request = c
            .input
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
    let (verdict, receipt_sha256) =
        seal_judgement(&mut log, c, state, (&judged, &judgement, &applied))?;
    let origin = state.origin;
    let since = origin.since(state);
    let decision = stop_decision(&StopContext {
        judged: &judged,
        judgement: &judgement,
        applied: &applied,
        receipt_sha256: &receipt_sha256,
        verdict: verdict.as_str(),
        blocks_before: state.blocks,
        max_blocks: opts.max_blocks,
        since: &since,
        from_head: if origin == Origin::LastCommit {
            " (no session start was recorded: judged against the last commit)"
        } else {
            ""
        },
    });
    let stopped = match decision {
        Decision::Block { .. } => Stopped::Blocked,
        Decision::Release { .. } => Stopped::Released,
        Decision::Allow { .. } => Stopped::Allowed,
    };
    state.remember(StopRecord {
        at: loki_core::time::now_rfc3339(),
        decision: stopped,
        verdict: Some(verdict),
        receipt_sha256: Some(receipt_sha256.clone()),
        run_id: Some(log.id().to_string()),
        reasons: judgement.unresolved(),
        session: Some(c.session.to_string()),
    });
    if stopped == Stopped::Blocked {
        state.blocks += 1;
        state.pending.clone_from(&applied.undeclared);
    } else {
        // Judged and let go: this tree, with the suite results just taken, is the baseline now.
        state.advance(&crate::state::Judged {
            snapshot: c.now_commit,
            results: &judged.head,
            session: c.session,
        });
    }
    state.known = known_tests(&judged);
    save_open(&opts.home, open)?;
    clear_failures(&opts.home, &open.state.repo_root)?;
    Ok(StopReport {
        decision,
        judgement,
        run_id: log.id().clone(),
        receipt_sha256: Some(receipt_sha256),
        verdict: verdict.into(),
        judged: Some(judged),
        origin,
    })
}

/// Seals the receipt of a judged stop and finishes its run, whose exit code is the hook's
/// answer; the receipt's verdict and sha256.
fn seal_judgement(
    log: &mut RunRecorder,
    c: &Stopping<'_>,
    state: &SealState,
    (judged, judgement, applied): (&Judged, &Judgement, &Applied),
) -> Result<(Outcome, String), SealError> {
    let opts = c.opts;
    let mut facts = receipt_facts(&c.sealing(state), judged, judgement, applied, log.id())?;
    let judge_s = c.clock.elapsed().as_secs_f64();
    facts.time = Time {
        wall_s: judge_s,
        stages: vec![StageTime {
            stage: "judge".to_string(),
            wall_s: judge_s,
        }],
    };
    let signer = Signer::load_or_create(&opts.home, &opts.keys)?;
    let builder = ReceiptBuilder::new(facts);
    let dir = log.dir().to_path_buf();
    let sealed = log.seal(|log| builder.seal(&dir, log, &signer))?;
    let verdict = sealed.receipt.verdict;
    // The hook's answer is the run's exit code: 2 blocks (Claude Code's protocol), 0 allows.
    let hook_exit = if judgement.blocks() { 2 } else { 0 };
    log.finish(&RunCompleted {
        blocked: judgement.blocks(),
        judgement: Some(applied.verdict),
        ..RunCompleted::new(sealed.receipt.verdict)
            .exit_code(hook_exit)
            .receipt(sealed.receipt.receipt_sha256.clone())
    })?;
    Ok((verdict, sealed.receipt.receipt_sha256.clone()))
}

/// The receipt's facts of a judged stop: the checks, findings, facts and declarations, and what
/// was not proven.
fn receipt_facts(
    sealing: &Sealing<'_>,
    judged: &Judged,
    judgement: &Judgement,
    applied: &Applied,
    run_id: &RunId,
) -> Result<ReceiptFacts, SealError> {
    let state = sealing.state;
    let mut facts = sealing.facts(run_id.as_str())?;
    facts.checks = judged
        .head
        .iter()
        .map(|r| r.receipt_check(loki_protocol::CheckRole::Tests))
        .collect();
    facts.integrity = judged.findings.iter().map(IntegrityFinding::from).collect();
    facts.facts = judged.facts.iter().map(JudgeFact::from).collect();
    facts.judgement = Some(applied.verdict);
    facts.declared = declared_of(applied, state.request.as_ref());
    facts.full_suite_ran = true;
    facts.pre_existing_failures.clone_from(&judged.pre_existing);
    let base = facts.repo.base_sha.clone();
    facts.extra_not_proven.extend(not_proven(judged, &base));
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
    Ok(facts)
}

/// What every stop's receipt says of the session, the worktree's lineage and the tree it judged.
struct Sealing<'a> {
    git: &'a Git,
    state: &'a SealState,
    /// The session that stopped.
    session: &'a str,
    now_commit: &'a str,
    now_tree: &'a str,
    opts: &'a SealOptions,
}

impl Sealing<'_> {
    /// The receipt's facts about the task, the repository and the diff, and the resets of the
    /// baseline it was judged against.
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
        facts.task.sha256 = sha256_hex(self.session.as_bytes());
        let others: Vec<&str> = state
            .sessions()
            .into_iter()
            .filter(|s| *s != self.session)
            .collect();
        facts.task.reference = Some(if others.is_empty() {
            format!("session {}", self.session)
        } else {
            format!(
                "session {} (this worktree's baseline is shared with sessions {})",
                self.session,
                others.join(", ")
            )
        });
        facts.provider = "hook".to_string();
        facts
            .extra_not_proven
            .extend(state.resets.iter().map(crate::state::Reset::not_proven));
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
    log.interrupt(&loki_events::payload::RunInterrupted {
        outcome: Some(sealed.receipt.verdict.into()),
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
        verdict: sealed.receipt.verdict.into(),
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
                .filter(|r| r.run.result != CheckStatus::Pass)
                .map(|r| (r.run.name.clone(), tail_of(&r.log_path)))
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
    let executed: u64 = judged.head.iter().map(|r| r.run.executed).sum();
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
        .filter(|t| t.status == loki_runner::TestStatus::Failed)
        .map(|t| t.id.clone())
        .collect();
    out.extend(judged.declare.iter().map(|d| d.test.clone()));
    out.sort();
    out.dedup();
    out.truncate(KNOWN);
    out
}

/// The file counting a worktree's consecutive stops that could not be checked at all (an error
/// before any judgement): `<key>.failures` beside its state, one decimal number.
fn failures_path(home: &Path, repo_root: &Path) -> PathBuf {
    worktree_state_path(home, repo_root).with_extension("failures")
}

fn clear_failures(home: &Path, repo_root: &Path) -> Result<(), SealError> {
    let path = failures_path(home, repo_root);
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
/// through, NOT VERIFIED, so a broken seal cannot trap an agent forever. The count is the
/// worktree's (`repo_root`), or, when the stop could not tell its worktree, the session's.
/// Returns the failures before this one and whether this stop is released.
pub fn failed_stop(
    home: &Path,
    repo_root: Option<&Path>,
    session: &str,
    max_blocks: u32,
) -> Result<(u32, bool), SealError> {
    let (_lock, path) = match repo_root {
        Some(root) => (lock_worktree(home, root)?, failures_path(home, root)),
        None => (
            lock_session(home, session)?,
            state_path(home, session).with_extension("failures"),
        ),
    };
    let before: u32 = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0);
    let released = before >= max_blocks;
    if released {
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(SealError::Io {
                    action: "remove",
                    path,
                    source: e,
                });
            }
        }
    } else {
        loki_core::fs::write_atomic_mode(
            &path,
            format!("{}\n", before + 1).as_bytes(),
            loki_core::fs::PRIVATE_FILE_MODE,
        )?;
    }
    Ok((before, released))
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
