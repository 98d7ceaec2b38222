//! `.loki/improve/`: where the cycle keeps its state, its settings (`improve.toml`) and its kill
//! switch.
//!
//! # `improve.toml` (every key optional; unknown keys are refused by name)
//! ```toml
//! enabled = true                # false pauses every cycle (the kill switch)
//! mode = "manual"               # manual: proposals are queued for `loki improve approve`; auto: applied
//! trigger = "failures"          # what `loki improve watch` uses: failures | score | manual
//! min_new_failures = 3          # failed runs under the current revision since the last cycle
//! require_recurring = true      # only failure signatures seen twice or more (default: mode = auto)
//! max_training_cases = 3        # failure groups the editor learns from per cycle
//! cooldown_hours = 24           # no cycle after an audited rollback for this long
//! max_cycles_per_day = 4        # cycles that reached the editor, per UTC day
//! max_tokens_per_day = 2000000  # tokens of every cycle of the UTC day
//! max_tokens_per_cycle = 500000
//! max_auto_applies_per_day = 2  # automatic applies (gate and canary actors) per UTC day
//! max_always_on_chars = 40000   # instructions.md plus the skills' index lines
//! editor_timeout_s = 600        # wall time of one editor session; past it the cycle is an outage
//! watch_debounce_s = 30         # `watch` waits for this much quiet after a failed run
//!
//! [canary]
//! replay_runs = 2               # replays of each case with the candidate (and the current) files
//!
//! [guard]
//! runs = 2                      # replays of each protected case after an automatic apply
//! ```
//!
//! # Kill switch ([`paused_by`])
//! Any of: the file `.loki/improve/improve.stop`, `LOKI_IMPROVE=off`, `enabled = false`. It is read
//! afresh at every check point of a cycle, so a pause that lands mid-cycle applies nothing.

use std::path::{Path, PathBuf};

use loki_core::layout::Repo;
use serde::{Deserialize, Serialize};

use crate::ImproveError;

/// Automatic or manual application of an accepted proposal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    Auto,
    Manual,
}

impl Mode {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Manual => "manual",
        }
    }
}

/// What starts a cycle and which failures it may learn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Trigger {
    /// Needs `min_new_failures` new failed runs under the current revision.
    Failures,
    /// The pass rate is the target: every failure counts, recurring or not, no minimum.
    Score,
    /// A person asked: no minimum; recurrence as configured.
    Manual,
}

impl Trigger {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Failures => "failures",
            Trigger::Score => "score",
            Trigger::Manual => "manual",
        }
    }
}

/// `[canary]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Canary {
    pub replay_runs: u32,
}

impl Default for Canary {
    fn default() -> Self {
        Canary { replay_runs: 2 }
    }
}

/// `[guard]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Guard {
    pub runs: u32,
}

impl Default for Guard {
    fn default() -> Self {
        Guard { runs: 2 }
    }
}

/// The settings of `improve.toml` (see the module doc for each key and its default).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ImproveConfig {
    pub enabled: bool,
    pub mode: Mode,
    pub trigger: Trigger,
    pub min_new_failures: u32,
    pub require_recurring: Option<bool>,
    pub max_training_cases: u32,
    pub cooldown_hours: f64,
    pub max_cycles_per_day: u32,
    pub max_tokens_per_day: u64,
    pub max_tokens_per_cycle: u64,
    pub max_auto_applies_per_day: u32,
    pub max_always_on_chars: usize,
    pub editor_timeout_s: u64,
    pub watch_debounce_s: u64,
    pub canary: Canary,
    pub guard: Guard,
}

impl Default for ImproveConfig {
    fn default() -> Self {
        ImproveConfig {
            enabled: true,
            // Manual by default: an edit of the agent's own instructions is applied by a person
            // until they choose otherwise.
            mode: Mode::Manual,
            trigger: Trigger::Failures,
            min_new_failures: 3,
            require_recurring: None,
            max_training_cases: 3,
            cooldown_hours: 24.0,
            max_cycles_per_day: 4,
            max_tokens_per_day: 2_000_000,
            max_tokens_per_cycle: 500_000,
            max_auto_applies_per_day: 2,
            // About 10k tokens: instructions are read on every model call.
            max_always_on_chars: 40_000,
            editor_timeout_s: 600,
            watch_debounce_s: 30,
            canary: Canary::default(),
            guard: Guard::default(),
        }
    }
}

impl ImproveConfig {
    /// Whether only recurring failure groups are learnt from: as set, else when the cycle's
    /// `mode` is auto.
    #[must_use]
    pub fn recurring(&self, mode: Mode) -> bool {
        self.require_recurring.unwrap_or(mode == Mode::Auto)
    }
}

/// The paths of `.loki/improve/`.
#[derive(Debug, Clone)]
pub struct Paths {
    pub repo: Repo,
    pub dir: PathBuf,
}

impl Paths {
    #[must_use]
    pub fn new(repo: &Repo) -> Paths {
        Paths {
            repo: repo.clone(),
            dir: repo.loki_dir().join("improve"),
        }
    }

    #[must_use]
    pub fn config(&self) -> PathBuf {
        self.dir.join("improve.toml")
    }
    #[must_use]
    pub fn stop_file(&self) -> PathBuf {
        self.dir.join("improve.stop")
    }
    #[must_use]
    pub fn lock(&self) -> PathBuf {
        self.dir.join("cycle.lock")
    }
    #[must_use]
    pub fn audit(&self) -> PathBuf {
        self.dir.join("audit.jsonl")
    }
    #[must_use]
    pub fn cycles(&self) -> PathBuf {
        self.dir.join("cycles")
    }
    #[must_use]
    pub fn pending(&self) -> PathBuf {
        self.dir.join("pending")
    }
    #[must_use]
    pub fn corpus(&self) -> PathBuf {
        self.dir.join("corpus")
    }
    #[must_use]
    pub fn revisions(&self) -> PathBuf {
        self.dir.join("revisions")
    }
    #[must_use]
    pub fn runs(&self) -> PathBuf {
        self.dir.join("runs")
    }
    /// `.loki/agent/`, the files the cycle edits.
    #[must_use]
    pub fn agent(&self) -> PathBuf {
        loki_instructions::agent_dir(&self.repo.root)
    }

    /// Creates `.loki/improve/` (and `.loki/`, excluded from git) when missing.
    pub fn ensure(&self) -> Result<(), ImproveError> {
        self.repo.ensure_loki_dir()?;
        std::fs::create_dir_all(&self.dir).map_err(|e| ImproveError::io("create", &self.dir, e))
    }

    /// Reads `improve.toml`; an absent file is the defaults.
    pub fn load_config(&self) -> Result<ImproveConfig, ImproveError> {
        load_config(&self.config())
    }
}

/// Reads one JSON record of `.loki/improve/` (`what` names its kind in errors).
pub fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
    what: &'static str,
) -> Result<T, ImproveError> {
    let text = std::fs::read_to_string(path).map_err(|e| ImproveError::io("read", path, e))?;
    serde_json::from_str(&text).map_err(|e| ImproveError::BadRecord {
        what,
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// Every `*.json` record in `dir` (absent: none), in no particular order; an unreadable one is
/// an error naming it.
pub fn read_json_dir<T: serde::de::DeserializeOwned>(
    dir: &Path,
    what: &'static str,
) -> Result<Vec<T>, ImproveError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ImproveError::io("list", dir, e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| ImproveError::io("list", dir, e))?.path();
        if path.extension().and_then(|e| e.to_str()) == Some("json") {
            out.push(read_json(&path, what)?);
        }
    }
    Ok(out)
}

/// Reads the settings file at `path` (absent: defaults).
pub fn load_config(path: &Path) -> Result<ImproveConfig, ImproveError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(ImproveConfig::default());
        }
        Err(e) => return Err(ImproveError::io("read", path, e)),
    };
    let cfg: ImproveConfig = toml::from_str(&text).map_err(|e| ImproveError::BadConfig {
        path: path.to_path_buf(),
        reason: format!("{}{}", e.message(), line_of(&text, &e)),
    })?;
    if cfg.canary.replay_runs == 0 || cfg.guard.runs == 0 {
        return Err(ImproveError::BadConfig {
            path: path.to_path_buf(),
            reason: "canary.replay_runs and guard.runs must be at least 1".into(),
        });
    }
    Ok(cfg)
}

/// ` (line N)` for a parse error: the line of an unknown key (toml points at its whole table),
/// else the start of the error's span.
fn line_of(text: &str, e: &toml::de::Error) -> String {
    let unknown = e
        .message()
        .strip_prefix("unknown field `")
        .and_then(|m| m.split('`').next());
    let line = unknown
        .and_then(|key| {
            text.lines().position(|l| {
                l.trim_start()
                    .strip_prefix(key)
                    .is_some_and(|rest| rest.trim_start().starts_with('='))
            })
        })
        .map(|i| i + 1)
        .or_else(|| e.span().map(|s| text[..s.start].lines().count().max(1)));
    line.map(|l| format!(" (line {l})")).unwrap_or_default()
}

/// Why cycles are paused, if they are: the stop file, `LOKI_IMPROVE=off`, or `enabled = false`.
/// A settings file that cannot be read pauses too (fail closed), naming the file.
#[must_use]
pub fn paused_by(paths: &Paths) -> Option<String> {
    if paths.stop_file().exists() {
        return Some(format!("{} exists", paths.stop_file().display()));
    }
    if loki_core::env::IMPROVE
        .get()
        .is_some_and(|v| v.eq_ignore_ascii_case("off") || v == "0" || v == "false")
    {
        return Some("LOKI_IMPROVE=off".to_string());
    }
    match paths.load_config() {
        Ok(c) if !c.enabled => Some(format!("enabled = false in {}", paths.config().display())),
        Ok(_) => None,
        Err(e) => Some(format!("the settings cannot be read: {e}")),
    }
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_unknown_keys() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("improve.toml");
        assert_eq!(load_config(&p).unwrap(), ImproveConfig::default());
        std::fs::write(&p, "mode = \"auto\"\n[canary]\nreplay_runs = 3\n").unwrap();
        let c = load_config(&p).unwrap();
        assert_eq!((c.mode, c.canary.replay_runs), (Mode::Auto, 3));
        assert!(c.recurring(Mode::Auto) && !c.recurring(Mode::Manual));
        std::fs::write(&p, "mode = \"auto\"\nmin_failures = 2\n").unwrap();
        let e = load_config(&p).unwrap_err().to_string();
        assert!(e.contains("min_failures") && e.contains("line 2"), "{e}");
        std::fs::write(&p, "[guard]\nruns = 0\n").unwrap();
        assert!(load_config(&p).is_err());
    }
}
