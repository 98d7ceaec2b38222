//! The seal's state: one open baseline per worktree, and every session that joined it.
//!
//! # Keying
//!
//! A baseline belongs to the work, not to an agent's session id: agents start new session ids
//! for the same work (Claude Code's `/clear` and `--fork-session`, a second agent, a subagent),
//! and a baseline recorded by each new id would be taken from a tree the earlier id already
//! changed. So the state is keyed by the worktree: its canonical root, hashed
//! ([`worktree_state_path`]: `$LOKI_HOME/seal/worktrees/<sha256 of the canonical root>.json`,
//! directory 0700, atomic writes). A git worktree of the same repository has another root, so
//! another baseline. Every command that reads or writes a worktree's state holds its lock
//! (`<key>.lock`, beside the state; [`lock_worktree`]) for as long as it works, so concurrent
//! sessions and subagents of one worktree take turns.
//!
//! # The baseline and how it moves
//!
//! - recorded by the first `loki seal start` of a worktree ([`Origin::SessionStart`]), or, with
//!   no start, by the first stop from the last commit ([`Origin::LastCommit`]);
//! - advanced by a judged stop that let the agent go (allowed, released, or no change) to the
//!   tree it judged, with that stop's suite results ([`Origin::JudgedStop`]);
//! - replaced when the user says so (`loki seal reset`, `loki seal start --rebaseline`:
//!   [`Origin::Reset`]); the changes before it are kept as a [`Reset`] and named NOT PROVEN in
//!   every receipt sealed against that baseline, until a judged stop advances it.
//!
//! A blocked, failed or interrupted stop leaves it where it was. A later session start keeps it,
//! whatever its [`Source`]: it only joins the [`SealState::lineage`].
//!
//! # Format (`loki.seal/2`)
//!
//! [`SealState`] as JSON. Files of `loki.seal/1` (before the keying by worktree:
//! `$LOKI_HOME/seal/<session>.json`) still read: the first start or stop of that session in a
//! worktree with no state yet migrates it ([`load_open`]; the old file goes once the new one is
//! written).

use std::path::{Path, PathBuf};

use loki_checks::judge::Declarable;
use loki_protocol::Outcome;
use loki_receipt::NotProven;
use loki_receipt::schema::{Declaration, sha256_hex};
use loki_runner::{Check, CheckResult};
use serde::{Deserialize, Serialize};

use crate::{Agent, HookInput, SealError, Source};

/// Schema tag of a worktree's state file.
pub const STATE_SCHEMA: &str = "loki.seal/2";
/// Schema tag of a session's state file from before the keying by worktree.
pub const LEGACY_SCHEMA: &str = "loki.seal/1";
/// Stops kept in a worktree's history.
pub const HISTORY: usize = 20;
/// Sessions kept in a worktree's lineage (the first one always stays).
pub const LINEAGE: usize = 200;

/// A worktree's open baseline and what happened since.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SealState {
    pub schema: String,
    /// The session that took the current baseline (for a reset: the session that asked, or
    /// `reset`).
    pub session: String,
    pub repo_root: PathBuf,
    /// A commit (dangling, no ref) of the working tree the baseline is.
    pub snapshot: String,
    /// When the current baseline was taken.
    pub started_at: String,
    pub checks: Vec<Check>,
    pub baseline: Vec<CheckResult>,
    /// Consecutive blocks so far.
    pub blocks: u32,
    /// Seconds the baseline's suites took.
    #[serde(default)]
    pub baseline_s: f64,
    /// How the current baseline was taken.
    #[serde(default)]
    pub origin: Origin,
    /// The last stops, newest last (at most [`HISTORY`]).
    #[serde(default)]
    pub history: Vec<StopRecord>,
    /// What `loki seal declare` was told since the baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declarations: Vec<Declaration>,
    /// The changes the last stop found nobody had declared: what a declaration may name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending: Vec<Declarable>,
    /// Tests the last stop saw failing or changed: what a contradiction may name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub known: Vec<String>,
    /// The first request of the work's user, when an agent's transcript gave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
    /// Every session (and subagent) that joined this worktree's state, in order.
    #[serde(default)]
    pub lineage: Vec<Joined>,
    /// Baselines the user replaced since the last judged stop: the changes before each are NOT
    /// PROVEN in every receipt sealed against the current baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resets: Vec<Reset>,
}

/// How a worktree's current baseline was taken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// The SessionStart hook snapshotted the working tree and ran the suites.
    #[default]
    SessionStart,
    /// No start was recorded (hook installed mid-session, no or unreadable hook input): the first
    /// stop baselined from the last commit, whose suites the judge ran then.
    LastCommit,
    /// A stop judged the tree and let the agent go: the tree it judged, with its suite results.
    JudgedStop,
    /// The user replaced it (`loki seal reset`, `loki seal start --rebaseline`).
    Reset,
}

impl Origin {
    /// What the person reads about where the baseline came from ("since …").
    #[must_use]
    pub fn since(self, state: &SealState) -> String {
        match self {
            Origin::SessionStart => format!(
                "the baseline taken at the start of session {} ({})",
                state.session, state.started_at
            ),
            Origin::LastCommit => "the last commit (no session start was recorded)".to_string(),
            Origin::JudgedStop => format!(
                "the last judged stop ({}, session {})",
                state.started_at, state.session
            ),
            Origin::Reset => format!("the baseline reset at {}", state.started_at),
        }
    }
}

/// One session (or subagent) that joined a worktree's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Joined {
    pub session: String,
    /// The hook event it came with (`SessionStart`, `Stop`, `SubagentStop`, `AfterAgent`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Why the session started, when it came with a SessionStart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// Whose hook protocol it spoke.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Agent>,
    /// A subagent's id and type (Claude Code's and Codex's `SubagentStop`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    pub at: String,
}

impl Joined {
    /// The session (and subagent) a hook's input names, now.
    #[must_use]
    pub fn of(input: &HookInput) -> Joined {
        Joined {
            session: input.session(),
            event: input.hook_event_name.clone(),
            source: input.source.clone(),
            agent: input.agent,
            agent_id: input.agent_id.clone(),
            agent_type: input.agent_type.clone(),
            at: loki_core::time::now_rfc3339(),
        }
    }

    /// `session` (`source`, `agent`, subagent `type` `id`), for a person.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut tags: Vec<String> = Vec::new();
        if let Some(s) = &self.source {
            tags.push(s.as_str().to_string());
        }
        if let Some(e) = &self.event
            && self.source.is_none()
        {
            tags.push(e.clone());
        }
        if let Some(a) = self.agent {
            tags.push(a.as_str().to_string());
        }
        if let Some(id) = &self.agent_id {
            tags.push(format!(
                "subagent {}{id}",
                self.agent_type
                    .as_deref()
                    .map(|t| format!("{t} "))
                    .unwrap_or_default()
            ));
        }
        if tags.is_empty() {
            self.session.clone()
        } else {
            format!("{} ({})", self.session, tags.join(", "))
        }
    }
}

/// A baseline the user replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reset {
    /// When.
    pub at: String,
    /// The baseline it replaced: its commit, and when that was taken.
    pub previous: String,
    pub previous_since: String,
    pub by: ResetBy,
}

/// Who replaced a baseline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ResetBy {
    /// `loki seal reset`.
    Reset,
    /// `loki seal start --rebaseline`, in this session.
    Rebaseline { session: String },
}

/// Hex digits of a commit named in a NOT PROVEN entry.
const SHORT: usize = 12;

impl Reset {
    /// The receipt's entry: the changes before the reset were never judged.
    #[must_use]
    pub fn not_proven(&self) -> NotProven {
        let short: String = self.previous.chars().take(SHORT).collect();
        let why = match &self.by {
            ResetBy::Reset => "the user reset the baseline with `loki seal reset`".to_string(),
            ResetBy::Rebaseline { session } => format!(
                "the user reset the baseline with `loki seal start --rebaseline` (session {session})"
            ),
        };
        NotProven::new(
            format!(
                "the changes made before the reset at {} (base {short}..)",
                self.at
            ),
            why,
            format!("loki seal check --base {}", self.previous),
        )
    }
}

/// What one stop decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StopRecord {
    pub at: String,
    pub decision: Stopped,
    /// The receipt's verdict, when one was sealed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Outcome>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// Why it blocked or was released, one line per reason.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// The session that stopped (absent in states written before the keying by worktree).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
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

/// The tree a judged stop let through, to become the worktree's baseline.
pub(crate) struct Judged<'a> {
    pub snapshot: &'a str,
    pub results: &'a [CheckResult],
    pub session: &'a str,
}

impl SealState {
    /// How many stops in the history went through the release valve.
    #[must_use]
    pub fn released(&self) -> usize {
        self.history
            .iter()
            .filter(|r| r.decision == Stopped::Released)
            .count()
    }

    pub(crate) fn remember(&mut self, record: StopRecord) {
        self.history.push(record);
        let over = self.history.len().saturating_sub(HISTORY);
        self.history.drain(..over);
    }

    /// Adds the session (or subagent) of `input` to the lineage, unless it is there already.
    pub(crate) fn join(&mut self, input: &HookInput) {
        let j = Joined::of(input);
        if self
            .lineage
            .iter()
            .any(|x| x.session == j.session && x.agent_id == j.agent_id)
        {
            return;
        }
        self.lineage.push(j);
        if self.lineage.len() > LINEAGE {
            self.lineage.remove(1);
        }
    }

    /// The sessions of the lineage, each once, in order.
    #[must_use]
    pub fn sessions(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for j in &self.lineage {
            if !out.contains(&j.session.as_str()) {
                out.push(&j.session);
            }
        }
        out
    }

    /// The baseline becomes the tree a stop judged and let through: its suite results serve as
    /// the next stop's base, blocks and declarations start over, and the resets are settled
    /// (that stop's receipt named them).
    pub(crate) fn advance(&mut self, to: &Judged<'_>) {
        self.snapshot = to.snapshot.to_string();
        self.baseline = to.results.to_vec();
        self.baseline_s = to.results.iter().map(|r| r.duration_s).sum();
        self.session = to.session.to_string();
        self.started_at = loki_core::time::now_rfc3339();
        self.origin = Origin::JudgedStop;
        self.settle();
    }

    /// Blocks, declarations, what they may name, the request and the resets start over.
    pub(crate) fn settle(&mut self) {
        self.blocks = 0;
        self.declarations.clear();
        self.pending.clear();
        self.known.clear();
        self.request = None;
        self.resets.clear();
    }
}

/// The canonical root of a worktree (the path as given when it cannot be resolved).
#[must_use]
pub fn canonical(repo_root: &Path) -> PathBuf {
    std::fs::canonicalize(repo_root).unwrap_or_else(|_| repo_root.to_path_buf())
}

/// The key of a worktree: sha256 of its canonical root.
#[must_use]
pub fn worktree_key(repo_root: &Path) -> String {
    sha256_hex(canonical(repo_root).as_os_str().as_encoded_bytes())
}

/// The state file of a worktree: `$LOKI_HOME/seal/worktrees/<key>.json`.
#[must_use]
pub fn worktree_state_path(home: &Path, repo_root: &Path) -> PathBuf {
    worktrees_dir(home).join(format!("{}.json", worktree_key(repo_root)))
}

fn worktrees_dir(home: &Path) -> PathBuf {
    home.join("seal").join("worktrees")
}

/// The state file of a session from before the keying by worktree:
/// `$LOKI_HOME/seal/<session>.json`. Session ids that are not plain names are hashed, so an id
/// can never name a path outside the directory.
#[must_use]
pub fn state_path(home: &Path, session: &str) -> PathBuf {
    home.join("seal")
        .join(format!("{}.json", plain_name(session)))
}

/// `session` when it is a plain name, else its sha256.
pub(crate) fn plain_name(session: &str) -> String {
    let plain = !session.is_empty()
        && session.len() <= 128
        && session
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if plain {
        session.to_string()
    } else {
        sha256_hex(session.as_bytes())
    }
}

/// Holds a worktree's lock (`<key>.lock`, beside its state) for as long as it lives: a stop
/// reads the block counter and the baseline, judges and writes them back, so two stops of one
/// worktree at once would lose a count or judge against a baseline the other just moved. A
/// second command waits for the first.
pub(crate) fn lock_worktree(home: &Path, repo_root: &Path) -> Result<std::fs::File, SealError> {
    lock_at(&worktree_state_path(home, repo_root).with_extension("lock"))
}

/// The lock of a session's own file, where no worktree is known (a stop that could not find its
/// repository counts its failures there).
pub(crate) fn lock_session(home: &Path, session: &str) -> Result<std::fs::File, SealError> {
    lock_at(&state_path(home, session).with_extension("lock"))
}

fn lock_at(path: &Path) -> Result<std::fs::File, SealError> {
    if let Some(dir) = path.parent() {
        ensure_dirs(dir)?;
    }
    let io = |action: &'static str| {
        let path = path.to_path_buf();
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
        .open(path)
        .map_err(io("open the seal lock"))?;
    file.lock().map_err(io("lock"))?;
    Ok(file)
}

/// `dir` and its parents up to `$LOKI_HOME/seal`, each private.
fn ensure_dirs(dir: &Path) -> Result<(), SealError> {
    if dir.file_name().is_some_and(|n| n == "worktrees")
        && let Some(parent) = dir.parent()
    {
        loki_core::fs::ensure_private_dir(parent)?;
    }
    loki_core::fs::ensure_private_dir(dir)?;
    Ok(())
}

/// A worktree's open baseline as read, and the pre-worktree file it came from, if any (removed
/// once the state is saved under its worktree).
#[derive(Debug, Clone)]
pub(crate) struct Open {
    pub state: SealState,
    pub legacy: Option<PathBuf>,
}

/// The open baseline of `repo_root`: its worktree state; else, when `session` has a state file
/// from before the keying by worktree for this same worktree, that one (to migrate); else
/// `None`. A file that exists but cannot be read is an error (the stop fails closed).
pub(crate) fn load_open(
    home: &Path,
    repo_root: &Path,
    session: Option<&str>,
) -> Result<Option<Open>, SealError> {
    match read_state(&worktree_state_path(home, repo_root)) {
        Ok(state) => {
            return Ok(Some(Open {
                state,
                legacy: None,
            }));
        }
        Err(SealError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let Some(session) = session else {
        return Ok(None);
    };
    let path = state_path(home, session);
    match read_state(&path) {
        Ok(mut state) if canonical(&state.repo_root) == canonical(repo_root) => {
            state.schema = STATE_SCHEMA.to_string();
            if state.lineage.is_empty() {
                state.lineage.push(Joined {
                    session: state.session.clone(),
                    event: Some("SessionStart".to_string()),
                    source: None,
                    agent: None,
                    agent_id: None,
                    agent_type: None,
                    at: state.started_at.clone(),
                });
            }
            Ok(Some(Open {
                state,
                legacy: Some(path),
            }))
        }
        Ok(_) => Ok(None),
        Err(SealError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
            Ok(None)
        }
        Err(e) => Err(e),
    }
}

/// Writes `open`'s state under its worktree (atomically), then removes the file it was migrated
/// from.
pub(crate) fn save_open(home: &Path, open: &mut Open) -> Result<(), SealError> {
    save_state(home, &open.state)?;
    if let Some(old) = open.legacy.take() {
        match std::fs::remove_file(&old) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(SealError::Io {
                    action: "remove the migrated state",
                    path: old,
                    source: e,
                });
            }
        }
    }
    Ok(())
}

/// Writes `state` under its worktree, atomically.
pub(crate) fn save_state(home: &Path, state: &SealState) -> Result<(), SealError> {
    let path = worktree_state_path(home, &state.repo_root);
    if let Some(dir) = path.parent() {
        ensure_dirs(dir)?;
    }
    let mut bytes = serde_json::to_vec_pretty(state).map_err(|e| SealError::BadState {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    bytes.push(b'\n');
    loki_core::fs::write_atomic_mode(&path, &bytes, loki_core::fs::PRIVATE_FILE_MODE)?;
    Ok(())
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
    if state.schema != STATE_SCHEMA && state.schema != LEGACY_SCHEMA {
        return Err(SealError::BadState {
            path: path.to_path_buf(),
            reason: format!(
                "schema {:?}, expected {STATE_SCHEMA:?} (or {LEGACY_SCHEMA:?})",
                state.schema
            ),
        });
    }
    Ok(state)
}

/// The worktree whose state holds `session` in its lineage (or, before the keying by worktree,
/// the worktree of that session's own file).
pub fn worktree_of(home: &Path, session: &str) -> Result<Option<PathBuf>, SealError> {
    let found = sessions(home)?
        .into_iter()
        .flatten()
        .find(|s| s.session == session || s.lineage.iter().any(|j| j.session == session))
        .map(|s| s.repo_root);
    Ok(found)
}

/// Every worktree's state under `$LOKI_HOME/seal`, oldest baseline first, and each session file
/// from before the keying by worktree whose worktree has no state yet (it is still honoured); a
/// file that cannot be read is returned as its error, so `loki seal status` shows it instead of
/// hiding it.
pub fn sessions(home: &Path) -> Result<Vec<Result<SealState, SealError>>, SealError> {
    let mut out = json_files(&worktrees_dir(home))?
        .iter()
        .map(|p| read_state(p))
        .collect::<Vec<_>>();
    for path in json_files(&home.join("seal"))? {
        match read_state(&path) {
            Ok(s) if worktree_state_path(home, &s.repo_root).exists() => {}
            other => out.push(other),
        }
    }
    out.sort_by(|a, b| match (a, b) {
        (Ok(a), Ok(b)) => a.started_at.cmp(&b.started_at),
        (Ok(_), Err(_)) => std::cmp::Ordering::Less,
        (Err(_), Ok(_)) => std::cmp::Ordering::Greater,
        (Err(_), Err(_)) => std::cmp::Ordering::Equal,
    });
    Ok(out)
}

/// The `*.json` files directly in `dir` (none when it does not exist).
fn json_files(dir: &Path) -> Result<Vec<PathBuf>, SealError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(SealError::Io {
                action: "read the directory",
                path: dir.to_path_buf(),
                source: e,
            });
        }
    };
    Ok(entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("json") && p.is_file())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> SealState {
        SealState {
            schema: STATE_SCHEMA.into(),
            session: "s1".into(),
            repo_root: "/repo".into(),
            snapshot: "c0ffee".into(),
            started_at: "2026-12-01T09:00:00Z".into(),
            checks: Vec::new(),
            baseline: Vec::new(),
            blocks: 3,
            baseline_s: 1.0,
            origin: Origin::SessionStart,
            history: Vec::new(),
            declarations: Vec::new(),
            pending: Vec::new(),
            known: vec!["t::a".into()],
            request: Some("fix add".into()),
            lineage: Vec::new(),
            resets: vec![Reset {
                at: "2026-12-01T09:30:00Z".into(),
                previous: "0123456789abcdef0123".into(),
                previous_since: "2026-12-01T08:00:00Z".into(),
                by: ResetBy::Rebaseline {
                    session: "s1".into(),
                },
            }],
        }
    }

    fn input(session: &str, agent_id: Option<&str>) -> HookInput {
        HookInput {
            session_id: Some(session.into()),
            hook_event_name: Some("Stop".into()),
            agent_id: agent_id.map(Into::into),
            ..HookInput::default()
        }
    }

    #[test]
    fn each_session_and_subagent_joins_once() {
        let mut s = state();
        for (session, agent) in [
            ("s1", None),
            ("s1", None),
            ("s2", None),
            ("s1", Some("a1")),
            ("s1", Some("a1")),
        ] {
            s.join(&input(session, agent));
        }
        let joined: Vec<(&str, Option<&str>)> = s
            .lineage
            .iter()
            .map(|j| (j.session.as_str(), j.agent_id.as_deref()))
            .collect();
        assert_eq!(joined, [("s1", None), ("s2", None), ("s1", Some("a1"))]);
        assert_eq!(s.sessions(), ["s1", "s2"]);
    }

    #[test]
    fn a_judged_stop_moves_the_baseline_and_settles_what_was_open() {
        let mut s = state();
        s.advance(&Judged {
            snapshot: "beef",
            results: &[],
            session: "s2",
        });
        assert_eq!(
            (s.snapshot.as_str(), s.session.as_str(), s.origin),
            ("beef", "s2", Origin::JudgedStop)
        );
        assert_eq!(s.blocks, 0);
        assert!(s.resets.is_empty() && s.known.is_empty() && s.request.is_none());
        assert!(s.origin.since(&s).contains("the last judged stop"));
    }

    #[test]
    fn a_reset_reads_as_not_proven_with_the_command_that_judges_it() {
        let n = state().resets[0].not_proven();
        assert_eq!(
            n.what(),
            "the changes made before the reset at 2026-12-01T09:30:00Z (base 0123456789ab..)"
        );
        assert_eq!(
            n.why(),
            "the user reset the baseline with `loki seal start --rebaseline` (session s1)"
        );
        assert_eq!(n.prove(), "loki seal check --base 0123456789abcdef0123");
    }

    /// A state file as `loki seal start` and a judged `loki seal stop` wrote it before the
    /// check results embedded [`loki_protocol::CheckRun`] and a stop's verdict was an
    /// [`Outcome`]: it reads back and is written again byte for byte, key order included.
    #[test]
    fn a_recorded_state_file_reads_and_writes_back_byte_for_byte() {
        let recorded = include_str!("../testdata/recorded-state.json");
        let state: SealState = serde_json::from_str(recorded).unwrap();
        assert_eq!(state.baseline[0].run.kind, loki_protocol::CheckKind::Pytest);
        assert_eq!(state.history[0].verdict, Some(Outcome::Failed));
        let mut written = serde_json::to_vec_pretty(&state).unwrap();
        written.push(b'\n');
        assert_eq!(String::from_utf8(written).unwrap(), recorded);
    }
}
