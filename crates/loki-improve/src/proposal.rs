//! A proposed edit of the agent's instructions: its schema, the gate, revisions kept for
//! rollback, compare-and-swap apply, and the queue of proposals waiting for a person.
//!
//! # Proposal (what the editor answers)
//! ```json
//! {"files": [{"path": "instructions.md", "content": "…"}],
//!  "delete": ["skills/old/SKILL.md"],
//!  "rationale": "why this helps the failing runs"}
//! ```
//! `files` replace or add whole files; paths are relative to `.loki/agent/`.
//!
//! # The gate ([`gate`])
//! Refuses (audited `reject`): a path other than `instructions.md` or `skills/<name>/SKILL.md`
//! (no `..`, no absolute path, nothing else in `.loki/`), a path given twice, text with a NUL, a
//! skill whose frontmatter does not parse or names another directory, an always-on text over
//! `max_always_on_chars`, an empty rationale, and a candidate revision that already failed
//! ([`failed_revisions`]: a proposal is not retried by repeating it). A proposal that changes nothing is
//! not refused: it is the editor's way of keeping the base (`keep-base`).
//!
//! # Apply ([`apply`]) and rollback
//! Before any write, the revision on disk must be the one the cycle read (compare-and-swap):
//! someone who edited by hand meanwhile wins, and the apply is `stale`. Both the old and the new
//! set of files are kept in `.loki/improve/revisions/<hex>.json` first (the byte-exact backup),
//! then each file is written atomically, then the revision on disk is read back and must be the
//! new one. Nothing outside `instructions.md` and `skills/*/SKILL.md` is ever written; a symlink
//! on the way to a file refuses the apply (it would write elsewhere). A rollback is an apply of a
//! kept revision.

use std::path::Path;

use loki_instructions::{AgentFile, AgentFiles, is_editable, revision_of};
use serde::{Deserialize, Serialize};

use crate::ImproveError;
use crate::audit::{self, Action};
use crate::config::Paths;

/// One file of a proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProposedFile {
    pub path: String,
    pub content: String,
}

/// What the editor proposes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Proposal {
    #[serde(default)]
    pub files: Vec<ProposedFile>,
    #[serde(default)]
    pub delete: Vec<String>,
    #[serde(default)]
    pub rationale: String,
}

/// Why the editor's answer is not a proposal (the words go back to the editor).
#[derive(Debug, thiserror::Error)]
pub enum ProposalError {
    #[error("the answer holds no JSON object")]
    NoObject,
    /// The object does not have the proposal's fields.
    #[error("the answer is not a proposal: {error}")]
    NotAProposal { error: serde_json::Error },
}

impl Proposal {
    /// Parses the editor's answer: a JSON object, alone or inside text (a fenced block).
    pub fn parse(text: &str) -> Result<Proposal, ProposalError> {
        let (Some(start), Some(end)) = (text.find('{'), text.rfind('}')) else {
            return Err(ProposalError::NoObject);
        };
        if end < start {
            return Err(ProposalError::NoObject);
        }
        serde_json::from_str(&text[start..=end])
            .map_err(|error| ProposalError::NotAProposal { error })
    }

    /// The whole set of files after applying this proposal to `base`.
    #[must_use]
    pub fn result(&self, base: &AgentFiles) -> Vec<AgentFile> {
        let mut files: Vec<AgentFile> = base
            .files
            .iter()
            .filter(|f| !self.delete.contains(&f.path))
            .filter(|f| !self.files.iter().any(|p| p.path == f.path))
            .cloned()
            .collect();
        files.extend(self.files.iter().map(|p| AgentFile {
            path: p.path.clone(),
            content: p.content.clone(),
        }));
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }
}

/// The gate's verdict on a proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// Passes: the candidate files and their revision.
    Pass {
        files: Vec<AgentFile>,
        revision: String,
    },
    /// Changes nothing.
    Unchanged,
    /// Refused, with why.
    Reject(String),
}

/// Checks `p` against the schema and limits (see the module doc). `failed` lists the candidate
/// revisions that earlier cycles or people already turned down.
pub fn gate(
    p: &Proposal,
    base: &AgentFiles,
    max_always_on_chars: usize,
    failed: &[String],
) -> Result<Gate, ImproveError> {
    let reject = |why: String| Ok(Gate::Reject(why));
    if p.rationale.trim().is_empty() {
        return reject("the proposal gives no rationale".into());
    }
    let mut seen: Vec<&str> = Vec::new();
    for path in p
        .files
        .iter()
        .map(|f| f.path.as_str())
        .chain(p.delete.iter().map(String::as_str))
    {
        if !is_editable(path) {
            return reject(format!(
                "{path:?} is not an editable file (only instructions.md and skills/<name>/SKILL.md)"
            ));
        }
        if seen.contains(&path) {
            return reject(format!("{path:?} is named twice"));
        }
        seen.push(path);
    }
    if let Some(f) = p.files.iter().find(|f| f.content.contains('\0')) {
        return reject(format!("{} contains a NUL byte", f.path));
    }
    let files = p.result(base);
    let candidate = AgentFiles {
        files: files.clone(),
    };
    if let Err((path, why)) = candidate.skills() {
        return reject(format!("{path}: {why}"));
    }
    let chars = candidate.always_on().chars().count();
    if chars > max_always_on_chars {
        return reject(format!(
            "the always-on instructions would be {chars} characters, over max_always_on_chars = {max_always_on_chars}"
        ));
    }
    let revision = revision_of(&files);
    if revision == base.revision() {
        return Ok(Gate::Unchanged);
    }
    if failed.contains(&revision) {
        return reject(format!(
            "revision {revision} already failed (rejected, not better in the canary, rolled back or turned down); propose something else"
        ));
    }
    Ok(Gate::Pass { files, revision })
}

/// Candidate revisions turned down before: by a cycle (rejected, canary-failed, rolled back) or
/// by a person (a pending proposal rejected, an apply rolled back by hand).
pub fn failed_revisions(
    paths: &Paths,
    records: &[crate::cycles::CycleRecord],
) -> Result<Vec<String>, ImproveError> {
    use crate::cycles::Outcome;
    let mut out: Vec<String> = records
        .iter()
        .filter(|r| {
            matches!(
                r.outcome,
                Outcome::Rejected | Outcome::CanaryFailed | Outcome::RolledBack
            )
        })
        .filter_map(|r| r.candidate_revision.clone())
        .collect();
    for l in audit::read(paths)? {
        match l.entry.action {
            Action::Discard => out.extend(l.entry.to),
            Action::Rollback => out.extend(l.entry.from),
            _ => {}
        }
    }
    Ok(out)
}

/// A kept revision: `.loki/improve/revisions/<hex>.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptRevision {
    pub revision: String,
    pub files: Vec<AgentFile>,
}

fn kept_path(paths: &Paths, revision: &str) -> std::path::PathBuf {
    paths
        .revisions()
        .join(format!("{}.json", revision.trim_start_matches("sha256:")))
}

/// Keeps `files` (whose revision is computed) for a later rollback.
pub fn keep(paths: &Paths, files: &[AgentFile]) -> Result<String, ImproveError> {
    let revision = revision_of(files);
    let path = kept_path(paths, &revision);
    if !path.exists() {
        let dir = paths.revisions();
        std::fs::create_dir_all(&dir).map_err(|e| ImproveError::io("create", &dir, e))?;
        loki_core::fs::write_json_atomic(
            &path,
            &KeptRevision {
                revision: revision.clone(),
                files: files.to_vec(),
            },
        )?;
    }
    Ok(revision)
}

/// A kept revision's files.
pub fn kept(paths: &Paths, revision: &str) -> Result<Vec<AgentFile>, ImproveError> {
    let revision = if revision.starts_with("sha256:") {
        revision.to_string()
    } else {
        format!("sha256:{revision}")
    };
    let path = kept_path(paths, &revision);
    if !path.exists() {
        return Err(ImproveError::NoRevision {
            revision,
            dir: paths.revisions(),
        });
    }
    let k: KeptRevision = crate::config::read_json(&path, "kept revision")?;
    if revision_of(&k.files) != revision {
        return Err(ImproveError::BadRecord {
            what: "kept revision",
            path,
            reason: "its files do not hash to its name".into(),
        });
    }
    Ok(k.files)
}

/// What [`apply`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applied {
    Done {
        from: String,
        to: String,
    },
    /// The files changed since they were read: the revision on disk.
    Stale {
        current: String,
    },
    /// Could not write: why (the files on disk are as they were, or restored).
    Refused(String),
}

/// Writes `files` as the whole set of `.loki/agent/` instruction files if the revision on disk is
/// still `expected` (see the module doc).
pub fn apply(paths: &Paths, expected: &str, files: &[AgentFile]) -> Result<Applied, ImproveError> {
    let dir = paths.agent();
    let current = match AgentFiles::load(&dir) {
        Ok(c) => c,
        Err(e) => {
            return Ok(Applied::Refused(format!(
                "the current files cannot be read: {e}"
            )));
        }
    };
    let from = current.revision();
    if from != expected {
        return Ok(Applied::Stale { current: from });
    }
    if let Some(bad) = files.iter().find(|f| !is_editable(&f.path)) {
        return Ok(Applied::Refused(format!(
            "{} is not an editable file",
            bad.path
        )));
    }
    keep(paths, &current.files)?;
    let to = keep(paths, files)?;
    if let Err(why) = write_set(&dir, &current.files, files) {
        // Put back what was there: the kept revision is the byte-exact backup.
        let _ = write_set(&dir, files, &current.files);
        return Ok(Applied::Refused(why));
    }
    let now = AgentFiles::load(&dir)
        .map(|a| a.revision())
        .unwrap_or_default();
    if now != to {
        let _ = write_set(&dir, files, &current.files);
        return Ok(Applied::Refused(format!(
            "the files read back as revision {now}, not {to}"
        )));
    }
    Ok(Applied::Done { from, to })
}

/// Writes `files` over whatever is on disk, even files that no longer read as a whole set (a
/// write that was interrupted): the recovery of a crash mid-apply. Only editable paths are
/// touched; symlinks still refuse.
pub fn apply_over(paths: &Paths, files: &[AgentFile]) -> Result<Applied, ImproveError> {
    let dir = paths.agent();
    let on_disk: Vec<AgentFile> = editable_on_disk(&dir);
    let from = revision_of(&on_disk);
    let to = keep(paths, files)?;
    if let Err(why) = write_set(&dir, &on_disk, files) {
        return Ok(Applied::Refused(why));
    }
    Ok(Applied::Done { from, to })
}

/// The editable files under `dir` that read as text, without the set's own checks.
fn editable_on_disk(dir: &Path) -> Vec<AgentFile> {
    let mut out = Vec::new();
    let mut candidates = vec![loki_instructions::INSTRUCTIONS_FILE.to_string()];
    if let Ok(entries) = std::fs::read_dir(dir.join(loki_instructions::SKILLS_DIR)) {
        for e in entries.flatten() {
            candidates.push(format!(
                "{}/{}/{}",
                loki_instructions::SKILLS_DIR,
                e.file_name().to_string_lossy(),
                loki_instructions::SKILL_FILE
            ));
        }
    }
    for path in candidates.into_iter().filter(|p| is_editable(p)) {
        let full = dir.join(&path);
        let regular = std::fs::symlink_metadata(&full).is_ok_and(|m| m.is_file());
        if let (true, Ok(content)) = (regular, std::fs::read_to_string(&full)) {
            out.push(AgentFile { path, content });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// Replaces the set `old` by `new` under `dir`: writes changed files, removes dropped ones.
fn write_set(dir: &Path, old: &[AgentFile], new: &[AgentFile]) -> Result<(), String> {
    for f in new {
        if old
            .iter()
            .any(|o| o.path == f.path && o.content == f.content)
        {
            continue;
        }
        let path = dir.join(&f.path);
        no_symlink_on_the_way(dir, &f.path)?;
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("create {}: {e}", parent.display()))?;
        }
        no_symlink_on_the_way(dir, &f.path)?;
        loki_core::fs::write_atomic(&path, f.content.as_bytes()).map_err(|e| e.to_string())?;
    }
    for o in old.iter().filter(|o| !new.iter().any(|n| n.path == o.path)) {
        no_symlink_on_the_way(dir, &o.path)?;
        let path = dir.join(&o.path);
        std::fs::remove_file(&path).map_err(|e| format!("remove {}: {e}", path.display()))?;
        // An emptied skill directory goes too (best effort: it may hold other files).
        if let Some(parent) = path.parent()
            && parent != dir
        {
            let _ = std::fs::remove_dir(parent);
        }
    }
    Ok(())
}

/// Refuses when `.loki`, `.loki/agent` or a directory or file of `rel` under `dir` is a symlink
/// (or exists but is not what it must be).
fn no_symlink_on_the_way(dir: &Path, rel: &str) -> Result<(), String> {
    let mut at = dir.to_path_buf();
    let mut check = vec![
        dir.parent().map(Path::to_path_buf).unwrap_or_default(),
        dir.to_path_buf(),
    ];
    for part in rel.split('/') {
        at.push(part);
        check.push(at.clone());
    }
    for p in check {
        if let Ok(m) = std::fs::symlink_metadata(&p)
            && m.file_type().is_symlink()
        {
            return Err(format!(
                "{} is a symlink; loki never writes instructions through one",
                p.display()
            ));
        }
    }
    let file = dir.join(rel);
    if let Ok(m) = std::fs::symlink_metadata(&file)
        && !m.is_file()
    {
        return Err(format!(
            "{} exists and is not a regular file",
            file.display()
        ));
    }
    Ok(())
}

/// A proposal waiting for a person: `.loki/improve/pending/<id>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub id: String,
    pub cycle: String,
    pub created_at: String,
    /// The revision the proposal was made against; approving checks it is still on disk.
    pub base_revision: String,
    pub candidate_revision: String,
    pub rationale: String,
    pub files: Vec<AgentFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canary: Option<crate::cycles::CanaryResult>,
}

/// Queues `p`.
pub fn save_pending(paths: &Paths, p: &Pending) -> Result<(), ImproveError> {
    let dir = paths.pending();
    std::fs::create_dir_all(&dir).map_err(|e| ImproveError::io("create", &dir, e))?;
    loki_core::fs::write_json_atomic(&dir.join(format!("{}.json", p.id)), p)?;
    Ok(())
}

/// Every queued proposal, oldest first.
pub fn list_pending(paths: &Paths) -> Result<Vec<Pending>, ImproveError> {
    let mut out: Vec<Pending> = crate::config::read_json_dir(&paths.pending(), PENDING)?;
    out.sort_by(|a, b| a.created_at.cmp(&b.created_at));
    Ok(out)
}

/// What a queued proposal is called in errors.
const PENDING: &str = "pending proposal";

/// One queued proposal by id (its file name; ids never contain a path separator).
pub fn read_pending(paths: &Paths, id: &str) -> Result<Pending, ImproveError> {
    let missing = || ImproveError::NoPending {
        id: id.to_string(),
        dir: paths.pending(),
    };
    if id.is_empty()
        || !id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        return Err(missing());
    }
    let path = paths.pending().join(format!("{id}.json"));
    if !path.exists() {
        return Err(missing());
    }
    crate::config::read_json(&path, PENDING)
}

/// Removes a queued proposal.
pub fn remove_pending(paths: &Paths, id: &str) -> Result<(), ImproveError> {
    let path = paths.pending().join(format!("{id}.json"));
    std::fs::remove_file(&path).map_err(|e| ImproveError::io("remove", &path, e))
}

/// Line counts added and removed going from `old` to `new` (for the receipt's diff).
#[must_use]
pub fn line_changes(old: &[AgentFile], new: &[AgentFile]) -> (u64, u64, u64) {
    let mut files = 0;
    let (mut ins, mut del) = (0u64, 0u64);
    let mut paths: Vec<&str> = old.iter().chain(new).map(|f| f.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    for p in paths {
        let a = old
            .iter()
            .find(|f| f.path == p)
            .map_or("", |f| f.content.as_str());
        let b = new
            .iter()
            .find(|f| f.path == p)
            .map_or("", |f| f.content.as_str());
        if a == b {
            continue;
        }
        files += 1;
        for change in similar::TextDiff::from_lines(a, b).iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => ins += 1,
                similar::ChangeTag::Delete => del += 1,
                similar::ChangeTag::Equal => {}
            }
        }
    }
    (files, ins, del)
}
