//! The audit trail of `loki improve`: `.loki/improve/audit.jsonl`, hash-chained like a run's
//! event log.
//!
//! # Format
//! One JSON object per line:
//! `{"v":1,"seq":N,"ts":"…","action":"apply","actor":"canary","cycle"?:"cyc_…","detail"?:"…",
//!   "from"?:"sha256:…","to"?:"sha256:…","prev":"<hash of line N-1 or 64 zeros>","hash":"…"}`;
//! `hash` is the hex SHA-256 of the RFC 8785 form of the object without `hash`. Editing,
//! deleting, inserting or reordering a line breaks the chain at that line ([`verify`]).
//!
//! # Actions ([`Action`]) and actors
//! Actors are `cycle` (the cycle's own bookkeeping), `gate` (the proposal's schema checks),
//! `canary` (replays before an apply), `guard` (replays of the protected corpus after it) and
//! `user` (approve, reject, rollback, protect by hand). Budgets read the trail: automatic applies
//! per day count `apply` by `gate` or `canary`; the cooldown starts at the last `rollback`.
//!
//! # Concurrency and failure modes
//! Appends hold `audit.lock` (an exclusive `flock`), so a cycle and `loki improve approve` never
//! interleave or fork the chain. A torn last line (a crash mid-write) is moved to
//! `audit.jsonl.torn` by the next append, which continues after the last whole line.

use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ImproveError;
use crate::config::Paths;

/// The `prev` of line 0.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// A cycle lock left by a dead process was broken.
    LockBroken,
    /// A run joined the protected corpus.
    Protect,
    /// A run was refused as a protected case (it did not pass every admission replay).
    ProtectRefused,
    /// The gate refused a proposal.
    Reject,
    /// A rejected or rolled-back cycle's reflection.
    Reflect,
    /// The reflection itself failed.
    ReflectFail,
    /// The canary's result.
    CanaryEnd,
    /// A proposal was queued for a person.
    Pending,
    /// A person rejected a queued proposal.
    Discard,
    /// A revision was written (automatically, or by a person's approval).
    Apply,
    /// An apply was refused because the files changed since the cycle read them.
    Stale,
    /// The guard found no regression.
    GuardPass,
    /// The guard found a regression, could not judge, or failed.
    GuardFail,
    /// A revision was restored.
    Rollback,
    /// A rollback could not be done; the edit stays.
    RollbackRefused,
    /// A write interrupted by a crash was undone by the next cycle.
    Recover,
}

impl Action {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Action::LockBroken => "lock-broken",
            Action::Protect => "protect",
            Action::ProtectRefused => "protect-refused",
            Action::Reject => "reject",
            Action::Reflect => "reflect",
            Action::ReflectFail => "reflect-fail",
            Action::CanaryEnd => "canary-end",
            Action::Pending => "pending",
            Action::Discard => "discard",
            Action::Apply => "apply",
            Action::Stale => "stale",
            Action::GuardPass => "guard-pass",
            Action::GuardFail => "guard-fail",
            Action::Rollback => "rollback",
            Action::RollbackRefused => "rollback-refused",
            Action::Recover => "recover",
        }
    }
}

/// One audit entry before it is chained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub action: Action,
    pub actor: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycle: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

impl Entry {
    #[must_use]
    pub fn new(action: Action, actor: &str, cycle: Option<&str>) -> Entry {
        Entry {
            action,
            actor: actor.to_string(),
            cycle: cycle.map(str::to_string),
            detail: None,
            from: None,
            to: None,
        }
    }

    #[must_use]
    pub fn detail(mut self, detail: impl Into<String>) -> Entry {
        self.detail = Some(detail.into());
        self
    }

    #[must_use]
    pub fn revisions(mut self, from: &str, to: &str) -> Entry {
        self.from = Some(from.to_string());
        self.to = Some(to.to_string());
        self
    }
}

/// One chained line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    pub v: u32,
    pub seq: u64,
    pub ts: String,
    #[serde(flatten)]
    pub entry: Entry,
    pub prev: String,
    pub hash: String,
}

/// What [`verify`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Every line chains; `head` is the last hash (64 zeros when empty).
    Intact { count: u64, head: String },
    /// The first line (1-based) that breaks the chain, and why.
    Broken { line: u64, reason: String },
}

fn hash_of(line: &Line) -> Result<String, String> {
    let mut v = serde_json::to_value(line).map_err(|e| e.to_string())?;
    if let Some(o) = v.as_object_mut() {
        o.remove("hash");
    }
    let canon = serde_json_canonicalizer::to_vec(&v).map_err(|e| e.to_string())?;
    Ok(hex::encode(Sha256::digest(canon)))
}

/// Checks the chain of the trail at `path` (absent: intact and empty).
pub fn verify(path: &Path) -> Result<Verdict, ImproveError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Verdict::Intact {
                count: 0,
                head: GENESIS.to_string(),
            });
        }
        Err(e) => return Err(ImproveError::io("read", path, e)),
    };
    let mut prev = GENESIS.to_string();
    let mut count = 0u64;
    for (i, raw) in text.split_inclusive('\n').enumerate() {
        let n = i as u64 + 1;
        let broken = |reason: String| Ok(Verdict::Broken { line: n, reason });
        let Some(body) = raw.strip_suffix('\n') else {
            return broken("the last line is torn (no newline): an interrupted write".into());
        };
        let line: Line = match serde_json::from_str(body) {
            Ok(l) => l,
            Err(e) => return broken(format!("not an audit line: {e}")),
        };
        if line.seq != count {
            return broken(format!("seq is {}, expected {count}", line.seq));
        }
        if line.prev != prev {
            return broken("prev does not match the hash of the line before".into());
        }
        match hash_of(&line) {
            Ok(h) if h == line.hash => {}
            Ok(_) => return broken("hash does not match the line's content".into()),
            Err(e) => return broken(e),
        }
        prev = line.hash;
        count += 1;
    }
    Ok(Verdict::Intact { count, head: prev })
}

/// Every whole line of the trail, in order (a torn last line is left out). Lines are parsed, not
/// verified: budgets and the cooldown read the trail, `loki improve audit --verify` checks it.
pub fn read(paths: &Paths) -> Result<Vec<Line>, ImproveError> {
    let path = paths.audit();
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ImproveError::io("read", &path, e)),
    };
    text.split_inclusive('\n')
        .filter_map(|l| l.strip_suffix('\n'))
        .map(|l| {
            serde_json::from_str(l).map_err(|e| ImproveError::BadRecord {
                what: "audit line",
                path: path.clone(),
                reason: e.to_string(),
            })
        })
        .collect()
}

/// Appends `entry` to the trail, chained to the last whole line.
pub fn append(paths: &Paths, entry: Entry) -> Result<Line, ImproveError> {
    paths.ensure()?;
    let path = paths.audit();
    let lock_path = paths.dir.join("audit.lock");
    let file = std::fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|e| ImproveError::io("open", &lock_path, e))?;
    let _lock =
        loki_core::fs::FileLock::take(file).map_err(|e| ImproveError::io("lock", &lock_path, e))?;
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(ImproveError::io("read", &path, e)),
    };
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    if whole < bytes.len() {
        let torn = path.with_extension("jsonl.torn");
        loki_core::fs::append_line(&torn, &bytes[whole..])?;
        let f = std::fs::File::options()
            .write(true)
            .open(&path)
            .map_err(|e| ImproveError::io("open", &path, e))?;
        f.set_len(whole as u64)
            .map_err(|e| ImproveError::io("truncate", &path, e))?;
    }
    let last: Option<Line> = bytes[..whole]
        .split(|b| *b == b'\n')
        .rfind(|l| !l.is_empty())
        .map(serde_json::from_slice)
        .transpose()
        .map_err(|e| ImproveError::BadRecord {
            what: "audit line",
            path: path.clone(),
            reason: e.to_string(),
        })?;
    let mut line = Line {
        v: 1,
        seq: last.as_ref().map_or(0, |l| l.seq + 1),
        ts: loki_core::time::now_rfc3339(),
        entry,
        prev: last.map_or_else(|| GENESIS.to_string(), |l| l.hash),
        hash: String::new(),
    };
    line.hash = hash_of(&line).map_err(|reason| ImproveError::BadRecord {
        what: "audit line",
        path: path.clone(),
        reason,
    })?;
    let mut text = serde_json::to_string(&line).map_err(|e| ImproveError::BadRecord {
        what: "audit line",
        path: path.clone(),
        reason: e.to_string(),
    })?;
    text.push('\n');
    let mut f = std::fs::File::options()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| ImproveError::io("open for append", &path, e))?;
    // One write(2) on an O_APPEND descriptor: a reader sees the whole line or a torn one.
    f.write_all(text.as_bytes())
        .and_then(|()| f.sync_data())
        .map_err(|e| ImproveError::io("append to", &path, e))?;
    Ok(line)
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    fn paths() -> (loki_test_support::GitRepo, Paths) {
        let d = loki_test_support::GitRepo::new();
        let repo = loki_core::layout::Repo::discover(d.path()).unwrap();
        let p = Paths::new(&repo);
        (d, p)
    }

    #[test]
    fn appends_chain_and_any_edit_is_found_at_its_line() {
        let (_d, p) = paths();
        for a in [Action::Reject, Action::Apply, Action::Rollback] {
            append(&p, Entry::new(a, "cycle", Some("cyc_1")).detail("x")).unwrap();
        }
        let Verdict::Intact { count, .. } = verify(&p.audit()).unwrap() else {
            panic!("not intact")
        };
        assert_eq!(count, 3);
        let text = std::fs::read_to_string(p.audit()).unwrap();
        std::fs::write(p.audit(), text.replacen("\"apply\"", "\"reject\"", 1)).unwrap();
        assert!(matches!(
            verify(&p.audit()).unwrap(),
            Verdict::Broken { line: 2, .. }
        ));
        // Deleting a line breaks the next one.
        let lines: Vec<&str> = text.lines().collect();
        std::fs::write(p.audit(), format!("{}\n{}\n", lines[0], lines[2])).unwrap();
        assert!(matches!(
            verify(&p.audit()).unwrap(),
            Verdict::Broken { line: 2, .. }
        ));
    }

    #[test]
    fn a_torn_line_is_set_aside_and_the_chain_goes_on() {
        let (_d, p) = paths();
        append(&p, Entry::new(Action::Apply, "user", None)).unwrap();
        loki_core::fs::append_line(&p.audit(), b"{\"v\":1,\"seq\":1").unwrap();
        assert!(matches!(
            verify(&p.audit()).unwrap(),
            Verdict::Broken { line: 2, .. }
        ));
        append(&p, Entry::new(Action::Rollback, "user", None)).unwrap();
        assert!(matches!(
            verify(&p.audit()).unwrap(),
            Verdict::Intact { count: 2, .. }
        ));
        assert!(p.audit().with_extension("jsonl.torn").exists());
    }
}
