//! `loki run`: run a command under observation and record a crash as an incident.
//!
//! The command runs through the one process runner (own process group, stdin closed, output
//! bounded, killed on timeout) with the scrubbed environment plus the seed variables
//! ([`seed_vars`]). A run of kind `incident` is always recorded; only a crash adds
//! `incident.json` and `repro.sh` (mode 0755) to it, and the event `incident.recorded`.
//!
//! - exit 0: a clean run — `run.completed` with outcome `CLEAN`, nothing else;
//! - non-zero exit or a signal: a crash — parsed ([`crate::frames`]), signed
//!   ([`crate::signature`]), fingerprinted ([`fingerprint`]); outcome `CRASHED`;
//! - timeout: outcome `TIMED_OUT` and no incident, because a hang cannot be told apart from a
//!   slow run by a reproduction (its replay would be a harness error by contract);
//! - command not found: outcome `NOT_RUN`, and [`HealError::CommandNotFound`].
//!
//! Tool versions are looked up only after a crash, so a clean run pays nothing for them.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::process::{self, Exit, Output, Spec, Streams};
use loki_core::run::RunStore;
use loki_events::RunRecorder;
use loki_events::payload::{IncidentRecorded, RunCompleted, RunStarted};

use crate::HealError;
use crate::frames::{Lang, parse_crash, parse_urls};
use crate::incident::{CrashInfo, ExitInfo, Fingerprint, INCIDENT_SCHEMA, Incident};
use crate::repro::render_script;
use crate::signature;

/// Bytes of stdout and of stderr kept in `incident.json`: the end of the output holds the crash.
pub const TAIL_BYTES: usize = 8 * 1024;
/// Output captured per stream while observing (head and tail halves).
const CAPTURE_CAP: usize = 2 * 1024 * 1024;
/// A version query (`python3 --version`) that takes longer than this is skipped.
const TOOL_VERSION_TIMEOUT: Duration = Duration::from_secs(5);
/// Mode of `repro.sh`: executable by its owner, readable by all.
const SCRIPT_MODE: u32 = 0o755;
/// Variables copied from loki's environment into the reproduction when set: they change what
/// programs do (PATH picks the interpreter, the locale and time zone change output).
const COPIED_VARS: &[&str] = &[
    "PATH",
    "LANG",
    "LC_ALL",
    "TZ",
    "NODE_OPTIONS",
    "RUST_BACKTRACE",
];
/// Outcomes recorded in `run.json`.
pub const OUTCOME_CLEAN: &str = "CLEAN";
pub const OUTCOME_CRASHED: &str = "CRASHED";
pub const OUTCOME_TIMED_OUT: &str = "TIMED_OUT";
pub const OUTCOME_NOT_RUN: &str = "NOT_RUN";

/// What to observe.
#[derive(Debug, Clone)]
pub struct ObserveOptions {
    pub command: Vec<String>,
    /// Where the command runs (must be inside the repository).
    pub cwd: PathBuf,
    /// The seed; `None` picks one and records it.
    pub seed: Option<u64>,
    pub timeout: Duration,
    /// loki's own command line, for `run.json`.
    pub argv: Vec<String>,
}

/// How the observed command ended.
#[derive(Debug)]
pub enum Observed {
    Clean {
        run_id: RunId,
        output: Output,
    },
    Crashed {
        run_id: RunId,
        incident: Box<Incident>,
        output: Output,
        run_dir: PathBuf,
    },
    TimedOut {
        run_id: RunId,
        output: Output,
    },
}

impl Observed {
    /// The run that recorded it.
    #[must_use]
    pub fn run_id(&self) -> &RunId {
        match self {
            Observed::Clean { run_id, .. }
            | Observed::Crashed { run_id, .. }
            | Observed::TimedOut { run_id, .. } => run_id,
        }
    }

    /// The command's captured output.
    #[must_use]
    pub fn output(&self) -> &Output {
        match self {
            Observed::Clean { output, .. }
            | Observed::Crashed { output, .. }
            | Observed::TimedOut { output, .. } => output,
        }
    }
}

/// A seed when the user gave none: different per run, recorded so the replay uses the same.
fn pick_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::from(d.subsec_nanos()) ^ d.as_secs())
        % 1_000_000
}

/// The variables a run and its reproduction set: the seed under the names runtimes read, the
/// copied variables, and `RUST_BACKTRACE=1` unless set (frames make the signature).
#[must_use]
pub fn seed_vars(seed: u64, env: &dyn Fn(&str) -> Option<String>) -> BTreeMap<String, String> {
    let mut vars = BTreeMap::new();
    for k in COPIED_VARS {
        if let Some(v) = env(k) {
            vars.insert((*k).to_string(), v);
        }
    }
    vars.entry("RUST_BACKTRACE".into())
        .or_insert_with(|| "1".into());
    vars.insert(loki_core::env::SEED.name.into(), seed.to_string());
    vars.insert("PYTHONHASHSEED".into(), seed.to_string());
    vars
}

/// Runs the command and records what happened in a new run of `repo`.
pub fn observe(repo: &Repo, opts: &ObserveOptions) -> Result<Observed, HealError> {
    let Some(program) = opts.command.first() else {
        return Err(HealError::EmptyCommand);
    };
    let seed = opts.seed.unwrap_or_else(pick_seed);
    let vars = seed_vars(seed, &|k| std::env::var(k).ok());
    let mut log = RunRecorder::start(
        &RunStore::new(repo.clone()),
        None,
        opts.argv.clone(),
        &RunStarted::Incident {
            command: opts.command.clone(),
            seed,
        },
    )?;
    let run_dir = log.dir().to_path_buf();
    let mut env: Vec<(OsString, OsString)> = process::scrubbed_env();
    // The recorded values win, exactly as in the reproduction.
    env.retain(|(k, _)| !vars.contains_key(&*k.to_string_lossy()));
    env.extend(vars.iter().map(|(k, v)| (k.into(), v.into())));
    let spec = Spec::new(program, &opts.cwd)
        .args(&opts.command[1..])
        .envs(env)
        .timeout(opts.timeout)
        .output_cap(CAPTURE_CAP)
        .streams(Streams::Separate);
    let out = match process::run(&spec) {
        Ok(o) => o,
        Err(e) => {
            let not_found = e.is_not_found();
            let detail = e.to_string();
            log.finish(&RunCompleted {
                reason: Some(detail),
                ..RunCompleted::new(OUTCOME_NOT_RUN)
            })?;
            return Err(if not_found {
                HealError::CommandNotFound {
                    program: program.clone(),
                    detail: "install it or check the command after `--`".into(),
                }
            } else {
                HealError::Process {
                    command: spec.display(),
                    source: e,
                }
            });
        }
    };
    let code = out.exit_code();
    if out.success() {
        log.finish(&RunCompleted::new(OUTCOME_CLEAN).exit_code(0))?;
        return Ok(Observed::Clean {
            run_id: log.id().clone(),
            output: out,
        });
    }
    if out.timed_out {
        log.finish(&RunCompleted {
            timeout_s: Some(opts.timeout.as_secs()),
            ..RunCompleted::new(OUTCOME_TIMED_OUT).exit_code(code)
        })?;
        return Ok(Observed::TimedOut {
            run_id: log.id().clone(),
            output: out,
        });
    }
    let cwd = std::fs::canonicalize(&opts.cwd).unwrap_or_else(|_| opts.cwd.clone());
    let incident = build_incident(log.id(), &repo.root, &cwd, opts, seed, vars, &out);
    crate::incident::save(&run_dir, &incident)?;
    let script = run_dir.join(&incident.repro);
    loki_core::fs::write_atomic_mode(&script, render_script(&incident).as_bytes(), SCRIPT_MODE)?;
    // The temporary file's mode passed through the umask; the script must be executable.
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(SCRIPT_MODE))
        .map_err(|e| HealError::io("make executable", &script, e))?;
    log.append(&IncidentRecorded {
        signature: incident.signature.id.clone(),
        signature_text: incident.signature.text.clone(),
        kind: incident.crash.kind.clone(),
        exit_code: code,
        frames: incident.frames.len(),
    })?;
    log.finish(&RunCompleted::new(OUTCOME_CRASHED).exit_code(code))?;
    Ok(Observed::Crashed {
        run_id: log.id().clone(),
        incident: Box::new(incident),
        output: out,
        run_dir,
    })
}

fn build_incident(
    id: &RunId,
    root: &Path,
    cwd: &Path,
    opts: &ObserveOptions,
    seed: u64,
    env_vars: BTreeMap<String, String>,
    out: &Output,
) -> Incident {
    let stdout = out.output.text();
    let stderr = out.stderr.text();
    let all = format!("{stdout}\n{stderr}");
    let crash = parse_crash(&stderr).or_else(|| parse_crash(&all));
    let code = out.exit_code();
    let sig = signature::compute(crash.as_ref(), code, &[cwd, root], &all);
    let lang = crash.as_ref().map_or(Lang::Unknown, |c| c.lang);
    let (kind, message, frames) = match crash {
        Some(c) => (c.kind, c.message, c.frames),
        None => (signature::bare_exit_kind(code), String::new(), Vec::new()),
    };
    Incident {
        schema: INCIDENT_SCHEMA.into(),
        run_id: id.to_string(),
        recorded_at: loki_core::time::now_rfc3339(),
        command: opts.command.clone(),
        cwd: cwd.display().to_string(),
        seed,
        timeout_s: opts.timeout.as_secs().max(1),
        exit: ExitInfo {
            code,
            signal: match out.exit {
                Exit::Signal(s) => Some(s),
                Exit::Code(_) => None,
            },
        },
        stdout_tail: out.output.tail_text(TAIL_BYTES),
        stderr_tail: out.stderr.tail_text(TAIL_BYTES),
        crash: CrashInfo {
            lang,
            kind,
            message,
        },
        frames,
        urls: parse_urls(&all),
        signature: sig,
        env: fingerprint(lang, &opts.command[0], cwd),
        env_vars,
        repro: "repro.sh".into(),
    }
}

/// The version query for the tool behind a crash (pure).
#[must_use]
pub fn version_query(lang: Lang, program: &str) -> Option<(&'static str, Vec<&'static str>)> {
    let base = Path::new(program)
        .file_name()
        .map_or(program.to_string(), |n| n.to_string_lossy().into_owned());
    Some(match lang {
        Lang::Python => ("python3", vec!["--version"]),
        Lang::Node => ("node", vec!["--version"]),
        Lang::Rust if base == "cargo" => ("cargo", vec!["--version"]),
        Lang::Rust => ("rustc", vec!["--version"]),
        Lang::Go => ("go", vec!["version"]),
        Lang::Java => ("java", vec!["-version"]),
        Lang::Native => ("cc", vec!["--version"]),
        Lang::Unknown => return None,
    })
}

/// OS, architecture, kernel and the version of the tool behind the crash.
#[must_use]
pub fn fingerprint(lang: Lang, program: &str, cwd: &Path) -> Fingerprint {
    let mut tools = BTreeMap::new();
    if let Some((tool, args)) = version_query(lang, program) {
        let spec = Spec::new(tool, cwd)
            .args(args)
            .envs(process::scrubbed_env())
            .timeout(TOOL_VERSION_TIMEOUT)
            .output_cap(4096);
        if let Ok(out) = process::run(&spec)
            && out.success()
            && let Some(first) = out.output.text().lines().find(|l| !l.trim().is_empty())
        {
            tools.insert(tool.to_string(), first.trim().to_string());
        }
    }
    Fingerprint {
        os: std::env::consts::OS.into(),
        arch: std::env::consts::ARCH.into(),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .ok()
            .map(|s| s.trim().to_string()),
        tools,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_vars_set_the_seed_and_keep_a_users_backtrace_choice() {
        let v = seed_vars(42, &|k| (k == "RUST_BACKTRACE").then(|| "full".to_string()));
        assert_eq!(v["LOKI_SEED"], "42");
        assert_eq!(v["PYTHONHASHSEED"], "42");
        assert_eq!(v["RUST_BACKTRACE"], "full");
        let v = seed_vars(1, &|_| None);
        assert_eq!(v["RUST_BACKTRACE"], "1");
        assert!(!v.contains_key("PATH"));
    }

    #[test]
    fn version_queries_follow_the_language() {
        assert_eq!(version_query(Lang::Python, "python3").unwrap().0, "python3");
        assert_eq!(
            version_query(Lang::Rust, "/usr/bin/cargo").unwrap().0,
            "cargo"
        );
        assert_eq!(version_query(Lang::Unknown, "x"), None);
    }
}
