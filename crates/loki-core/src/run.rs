//! The run store: one directory per run under `.loki/runs/`, described by `run.json`.
//!
//! `run.json` (written atomically, pretty JSON):
//! `{"schema":"loki.run/1","id":…,"kind":…,"status":"running|completed|interrupted","task"?:…,
//!   "started_at":…,"ended_at"?:…,"command":[…],"cwd":…,"pid":…,"pid_start"?:…,"outcome"?:…,
//!   "exit_code"?:…,"agent_revision"?:…}`.
//!
//! Liveness: a run recorded as `running` whose process is gone, or whose pid now belongs to a
//! different process (the kernel's start time of that pid differs from the recorded one), is
//! reported as `interrupted` by [`RunStore::list`] and [`RunStore::load`]: a run never stays
//! "running" forever because its process was killed.
//!
//! Failure modes: a `run.json` that is missing or not valid is reported by name
//! ([`ListedRun::Corrupt`]) and skipped; listing never fails because of one bad run.

use std::fs;
use std::path::{Path, PathBuf};

use loki_protocol::RunEnd;
use serde::{Deserialize, Serialize};

use crate::fs::write_json_atomic;
use crate::layout::Repo;
use crate::{CoreError, RunId};

/// Schema tag of `run.json`.
pub const RUN_SCHEMA: &str = "loki.run/1";

/// Whether a run is still going.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Running,
    Completed,
    Interrupted,
}

impl RunStatus {
    /// The name as printed and stored.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Completed => "completed",
            RunStatus::Interrupted => "interrupted",
        }
    }
}

/// What kind of run this is; each producer has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    Build,
    Quick,
    Seal,
    Heal,
    Incident,
    Improve,
    Ask,
    Checks,
    /// The deep verify of a finished build run (`loki deep`): full suite, app boot, secret scan.
    Deep,
}

impl RunKind {
    /// The name as printed and stored.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Build => "build",
            RunKind::Quick => "quick",
            RunKind::Seal => "seal",
            RunKind::Heal => "heal",
            RunKind::Incident => "incident",
            RunKind::Improve => "improve",
            RunKind::Ask => "ask",
            RunKind::Checks => "checks",
            RunKind::Deep => "deep",
        }
    }
}

/// The contents of `run.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    pub schema: String,
    pub id: RunId,
    pub kind: RunKind,
    pub status: RunStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    pub started_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    pub command: Vec<String>,
    pub cwd: String,
    pub pid: u32,
    /// The kernel's start time of `pid` (clock ticks since boot), to tell pid reuse apart.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid_start: Option<u64>,
    /// How the run ended (`VERIFIED`, `PASS`, `NO CHANGE`: [`RunEnd`]), as its terminal event says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<RunEnd>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The revision of the agent's instructions the run followed
    /// (`loki_instructions::AgentFiles::revision`); build runs only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_revision: Option<String>,
    /// The run's branch when it is not the default `loki/<run-id>` (a backlog run's
    /// `loki/backlog-<N>`); read it through [`RunRecord::branch`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

impl RunRecord {
    /// The branch the run commits to: the one recorded, else `loki/<run-id>`.
    #[must_use]
    pub fn branch(&self) -> String {
        self.branch
            .clone()
            .unwrap_or_else(|| format!("loki/{}", self.id))
    }
}

/// One entry of a listing: a readable run, or a run directory whose `run.json` is broken.
#[derive(Debug, Clone)]
pub enum ListedRun {
    Ok(Box<RunRecord>),
    Corrupt { dir: PathBuf, reason: String },
}

/// The runs of one repository.
#[derive(Debug, Clone)]
pub struct RunStore {
    repo: Repo,
    /// Where the run directories are: `.loki/runs` unless [`RunStore::at`] said otherwise.
    runs_dir: PathBuf,
}

impl RunStore {
    /// The store of `repo`; nothing is created until a run starts.
    #[must_use]
    pub fn new(repo: Repo) -> Self {
        let runs_dir = repo.runs_dir();
        RunStore { repo, runs_dir }
    }

    /// The store of `repo` whose runs live in `runs_dir` (inside `.loki/`): for producers that
    /// keep their records apart from the build runs (`loki improve` under `.loki/improve/runs`).
    #[must_use]
    pub fn at(repo: Repo, runs_dir: PathBuf) -> Self {
        RunStore { repo, runs_dir }
    }

    /// The repository this store belongs to.
    #[must_use]
    pub fn repo(&self) -> &Repo {
        &self.repo
    }

    /// The directory of a run.
    #[must_use]
    pub fn dir(&self, id: &RunId) -> PathBuf {
        self.runs_dir.join(id.as_str())
    }

    /// Creates the run directory and its `run.json` with status `running` for this process.
    pub fn start(
        &self,
        kind: RunKind,
        task: Option<String>,
        command: Vec<String>,
    ) -> Result<RunRecord, CoreError> {
        self.repo.ensure_loki_dir()?;
        fs::create_dir_all(&self.runs_dir)
            .map_err(|e| CoreError::io("create the runs directory", &self.runs_dir, e))?;
        // The directory is created exclusively, so two runs started at once in one repository
        // (a backlog, a workspace) never share an id: the same second with the same 16 random
        // bits picks again.
        let id = loop {
            let id = RunId::new();
            let dir = self.dir(&id);
            match fs::create_dir(&dir) {
                Ok(()) => break id,
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(CoreError::io("create run directory", &dir, e)),
            }
        };
        let pid = std::process::id();
        let rec = RunRecord {
            schema: RUN_SCHEMA.to_string(),
            id,
            kind,
            status: RunStatus::Running,
            task,
            started_at: crate::time::now_rfc3339(),
            ended_at: None,
            command,
            cwd: std::env::current_dir()
                .map(|p| p.display().to_string())
                .unwrap_or_default(),
            pid,
            pid_start: process_start_ticks(pid),
            outcome: None,
            exit_code: None,
            agent_revision: None,
            branch: None,
        };
        self.save(&rec)?;
        Ok(rec)
    }

    /// Writes `run.json` atomically.
    pub fn save(&self, rec: &RunRecord) -> Result<(), CoreError> {
        write_json_atomic(&self.dir(&rec.id).join("run.json"), rec)
    }

    /// Marks a run finished (`completed` or `interrupted`) with its outcome and exit code.
    pub fn finish(
        &self,
        rec: &mut RunRecord,
        status: RunStatus,
        outcome: Option<RunEnd>,
        exit_code: Option<i32>,
    ) -> Result<(), CoreError> {
        rec.status = status;
        rec.ended_at = Some(crate::time::now_rfc3339());
        rec.outcome = outcome;
        rec.exit_code = exit_code;
        self.save(rec)
    }

    /// Reads one run, with liveness applied (a dead `running` run reads as `interrupted`).
    pub fn load(&self, id: &RunId) -> Result<RunRecord, CoreError> {
        let dir = self.dir(id);
        if !dir.is_dir() {
            return Err(CoreError::RunNotFound {
                id: id.to_string(),
                dir: self.runs_dir.clone(),
            });
        }
        let mut rec = read_record(&dir)?;
        apply_liveness(&mut rec);
        Ok(rec)
    }

    /// Every run directory, newest first. Broken records are listed as such, never dropped.
    pub fn list(&self) -> Result<Vec<ListedRun>, CoreError> {
        let runs_dir = self.runs_dir.clone();
        self.repo.check_loki_dir()?;
        let entries = match fs::read_dir(&runs_dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(CoreError::io("list", runs_dir, e)),
        };
        let dirs: Vec<(String, PathBuf)> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.parse::<RunId>().ok().map(|_| (name, e.path()))
            })
            .collect();
        let mut listed: Vec<(String, ListedRun)> = dirs
            .into_iter()
            .map(|(_, dir)| match read_record(&dir) {
                Ok(mut rec) => {
                    apply_liveness(&mut rec);
                    (rec.started_at.clone(), ListedRun::Ok(Box::new(rec)))
                }
                Err(e) => {
                    // A broken record sorts by the time in its directory name.
                    let name = dir
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    let reason = match e {
                        CoreError::BadRunRecord { reason, .. } => reason,
                        other => other.to_string(),
                    };
                    (id_time(&name), ListedRun::Corrupt { dir, reason })
                }
            })
            .collect();
        // Newest first by the recorded start (milliseconds): two runs started in the same second
        // have ids whose order is only their random suffix.
        listed.sort_by(|a, b| b.0.cmp(&a.0));
        Ok(listed.into_iter().map(|(_, r)| r).collect())
    }

    /// The newest run id, if any run directory exists.
    pub fn latest(&self) -> Result<Option<RunId>, CoreError> {
        Ok(self.list()?.into_iter().find_map(|r| match r {
            ListedRun::Ok(rec) => Some(rec.id),
            ListedRun::Corrupt { .. } => None,
        }))
    }
}

/// `run_20261129_151736_beef` → `2026-11-29T15:17:36.000Z`, comparable with `started_at`.
fn id_time(name: &str) -> String {
    let d = name.get(4..19).unwrap_or("");
    match (
        d.get(0..4),
        d.get(4..6),
        d.get(6..8),
        d.get(9..11),
        d.get(11..13),
        d.get(13..15),
    ) {
        (Some(y), Some(mo), Some(da), Some(h), Some(mi), Some(se)) => {
            format!("{y}-{mo}-{da}T{h}:{mi}:{se}.000Z")
        }
        _ => String::new(),
    }
}

fn read_record(dir: &Path) -> Result<RunRecord, CoreError> {
    let path = dir.join("run.json");
    let bad = |reason: String| CoreError::BadRunRecord {
        path: path.clone(),
        reason,
    };
    let text = fs::read_to_string(&path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    let rec: RunRecord = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    if rec.schema != RUN_SCHEMA {
        return Err(bad(format!(
            "schema is {:?}, expected {RUN_SCHEMA:?}",
            rec.schema
        )));
    }
    let dir_name = dir.file_name().map(|n| n.to_string_lossy().into_owned());
    if dir_name.as_deref() != Some(rec.id.as_str()) {
        return Err(bad(format!(
            "id {} does not match its directory name",
            rec.id
        )));
    }
    Ok(rec)
}

fn apply_liveness(rec: &mut RunRecord) {
    if rec.status == RunStatus::Running && !is_alive(rec.pid, rec.pid_start) {
        rec.status = RunStatus::Interrupted;
    }
}

/// True when `pid` is running and, if `start` is known, is still the same process.
#[must_use]
pub fn is_alive(pid: u32, start: Option<u64>) -> bool {
    let Ok(signed) = i32::try_from(pid) else {
        return false;
    };
    let Some(p) = rustix::process::Pid::from_raw(signed) else {
        return false;
    };
    // Signal 0 checks existence; EPERM still means the process exists (someone else's).
    match rustix::process::test_kill_process(p) {
        Ok(()) | Err(rustix::io::Errno::PERM) => {}
        Err(_) => return false,
    }
    match (start, process_start_ticks(pid)) {
        (Some(recorded), Some(now)) => recorded == now,
        // Without /proc we cannot tell pid reuse apart; existence is the best evidence.
        _ => true,
    }
}

/// The start time of `pid` in clock ticks since boot (field 22 of `/proc/<pid>/stat`).
#[must_use]
pub fn process_start_ticks(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may contain spaces: split after the last ')'.
    let rest = &stat[stat.rfind(')')? + 1..];
    // rest starts at field 3 (state); field 22 is the 20th after it.
    rest.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;
    use crate::exit::Classify as _;

    fn store() -> (tempfile::TempDir, RunStore) {
        let d = tempfile::tempdir().unwrap();
        fs::create_dir_all(d.path().join(".git/info")).unwrap();
        let repo = Repo::discover(d.path()).unwrap();
        (d, RunStore::new(repo))
    }

    /// Runs started at once in one repository (a backlog's workers) each claim their own id:
    /// the directory is created exclusively, so two in the same second never share one.
    #[test]
    fn concurrent_starts_never_share_an_id() {
        let (_d, s) = store();
        let ids: Vec<RunId> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..16)
                .map(|_| {
                    scope.spawn(|| {
                        (0..8)
                            .map(|_| s.start(RunKind::Build, None, Vec::new()).unwrap().id)
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().unwrap())
                .collect()
        });
        let unique: std::collections::BTreeSet<&RunId> = ids.iter().collect();
        assert_eq!(unique.len(), 128);
        for id in &ids {
            assert_eq!(&s.load(id).unwrap().id, id);
        }
        assert_eq!(
            s.load(&ids[0]).unwrap().branch(),
            format!("loki/{}", ids[0])
        );
    }

    #[test]
    fn start_then_finish_round_trips() {
        let (_d, s) = store();
        let mut rec = s
            .start(RunKind::Build, Some("fix it".into()), vec!["loki".into()])
            .unwrap();
        assert_eq!(s.load(&rec.id).unwrap().status, RunStatus::Running);
        s.finish(
            &mut rec,
            RunStatus::Completed,
            Some(loki_protocol::Outcome::Verified.into()),
            Some(0),
        )
        .unwrap();
        let back = s.load(&rec.id).unwrap();
        assert_eq!(back, rec);
        assert_eq!(s.latest().unwrap(), Some(rec.id));
    }

    #[test]
    fn a_dead_running_run_reads_as_interrupted() {
        let (_d, s) = store();
        let mut rec = s.start(RunKind::Build, None, vec![]).unwrap();
        // A child that has exited: its pid is gone (or reused with another start time).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        rec.pid = pid;
        rec.pid_start = Some(1);
        s.save(&rec).unwrap();
        assert_eq!(s.load(&rec.id).unwrap().status, RunStatus::Interrupted);
    }

    #[test]
    fn pid_reuse_is_detected_by_start_time() {
        let me = std::process::id();
        let start = process_start_ticks(me).unwrap();
        assert!(is_alive(me, Some(start)));
        assert!(!is_alive(me, Some(start + 1)));
    }

    #[test]
    fn corrupt_run_json_is_named_and_skipped() {
        let (_d, s) = store();
        let good = s.start(RunKind::Seal, None, vec![]).unwrap();
        let bad_dir = s.repo().runs_dir().join("run_20200101_000000_abcd");
        fs::create_dir_all(&bad_dir).unwrap();
        fs::write(bad_dir.join("run.json"), "{not json").unwrap();
        let listed = s.list().unwrap();
        assert_eq!(listed.len(), 2);
        assert!(matches!(&listed[0], ListedRun::Ok(r) if r.id == good.id));
        assert!(matches!(&listed[1], ListedRun::Corrupt { dir, .. } if *dir == bad_dir));
        assert_eq!(s.latest().unwrap(), Some(good.id));
    }

    #[test]
    fn latest_is_by_start_time_even_within_one_second() {
        let (_d, s) = store();
        let started = s.start(RunKind::Seal, None, vec![]).unwrap();
        fs::remove_dir_all(s.dir(&started.id)).unwrap();
        let (mut a, mut b) = (started.clone(), started);
        // Same second, and the older run has the larger random suffix.
        a.id = "run_20261129_151736_ffff".parse().unwrap();
        b.id = "run_20261129_151736_0000".parse().unwrap();
        a.started_at = "2026-11-29T15:17:36.100Z".into();
        b.started_at = "2026-11-29T15:17:36.900Z".into();
        for r in [&a, &b] {
            fs::create_dir_all(s.dir(&r.id)).unwrap();
            s.save(r).unwrap();
        }
        assert_eq!(s.latest().unwrap(), Some(b.id.clone()));
        assert_eq!(
            id_time("run_20261129_151736_ffff"),
            "2026-11-29T15:17:36.000Z"
        );
    }

    #[test]
    fn unknown_run_is_a_usage_error() {
        let (_d, s) = store();
        let err = s
            .load(&"run_20200101_000000_abcd".parse().unwrap())
            .unwrap_err();
        assert_eq!(err.exit_class(), crate::exit::ExitClass::Usage);
    }
}
