//! `loki run`: run a command under observation and record a crash as an incident.
//!
//! Observing does not change what is observed. The command runs through the one process runner
//! (own process group, stdin closed, output bounded, killed on timeout) with the **caller's
//! environment unchanged** ([`command_env`]): nothing of loki's is added but the seed (`LOKI_SEED`,
//! and `PYTHONHASHSEED` unless the caller set it and no `--seed` was given) and `RUST_BACKTRACE=1`
//! when unset (frames make the signature); loki's own secrets (the signing key variables,
//! `LOKI_<KEY>` of secret keys) are the only names removed. `--clean-env`
//! ([`ObserveOptions::clean_env`]) opts in to dropping everything that looks like a secret as
//! well (the names and values [`record_env`] withholds).
//!
//! What is written to disk never holds a secret ([`record_env`]): the recorded environment
//! (`incident.json`'s `env_vars`, exported by `repro.sh`) keeps every variable's value except
//! those whose name looks like a secret ([`loki_process::is_secret_name`]) or whose value
//! carries a password in a URL (`postgres://user:pass@host`): those are recorded by name only
//! (`env_secrets`) and the reproduction takes their values from the environment it runs in. A
//! withheld value printed by the command is replaced by `[withheld]` in the recorded output.
//!
//! A run of kind `incident` is always recorded; only a crash adds `incident.json` and `repro.sh`
//! (mode 0755) to it, and the event `incident.recorded`.
//!
//! - exit 0: a clean run — `run.completed` with outcome `CLEAN`, nothing else;
//! - non-zero exit or a signal: a crash — parsed ([`crate::frames`]), signed
//!   ([`crate::signature`]), fingerprinted ([`fingerprint`]); outcome `CRASHED`; a death by
//!   signal N is exit code 128 + N with the signal's name (`SIGSEGV`) in `exit.signal_name`;
//! - timeout: outcome `TIMED_OUT` and no incident, because a hang cannot be told apart from a
//!   slow run by a reproduction (its replay would be a harness error by contract);
//! - command not found: outcome `NOT_RUN`, and [`HealError::CommandNotFound`];
//! - loki interrupted ([`loki_process::stop_all`]): the command's group got the signal,
//!   the run ends with `run.interrupted`, and nothing is recorded as a crash.
//!
//! Tool versions are looked up only after a crash, so a clean run pays nothing for them.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_core::run::RunStore;
use loki_events::RunRecorder;
use loki_events::payload::{IncidentRecorded, RunCompleted, RunInterrupted, RunStarted};
use loki_process::{self as process, Exit, Output, Spec, Streams};
use loki_protocol::RunEnd;

use crate::HealError;
use crate::frames::{Lang, parse_crash, parse_urls};
use crate::incident::{CrashInfo, ExitInfo, Fingerprint, INCIDENT_SCHEMA, Incident};
use crate::repro::render_script;
use crate::signature;

/// Default limit on an observed command (`loki run` without `--timeout`, the demo).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
/// Bytes of stdout and of stderr kept in `incident.json`: the end of the output holds the crash.
pub const TAIL_BYTES: usize = 8 * 1024;
/// Output captured per stream while observing (head and tail halves).
const CAPTURE_CAP: usize = 2 * 1024 * 1024;
/// A version query (`python3 --version`) that takes longer than this is skipped.
const TOOL_VERSION_TIMEOUT: Duration = Duration::from_secs(5);
/// Mode of `repro.sh`: executable by its owner, readable by all.
const SCRIPT_MODE: u32 = 0o755;
/// Shortest withheld value that is searched for in the recorded output: a shorter one (`1`,
/// `yes`) would blank out ordinary text and is not a credential anyway.
const MIN_REDACTED_LEN: usize = 8;
/// What a withheld value printed by the command becomes in `incident.json`.
const REDACTED: &str = "[withheld]";

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
    /// `--clean-env`: drop every variable that looks like a secret, not only loki's own.
    pub clean_env: bool,
    /// Set when the command is loki's page check ([`crate::web`]): its exit
    /// [`crate::web::PAGE_HARNESS_EXIT`] is a harness error, not a crash, and the incident
    /// records the page.
    pub browser: Option<crate::incident::BrowserInfo>,
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
    /// loki itself was interrupted ([`loki_process::stop_all`]) and stopped the command;
    /// `signal` names what loki got (`SIGINT`). Nothing is recorded as an incident.
    Interrupted {
        run_id: RunId,
        output: Output,
        signal: String,
    },
}

impl Observed {
    /// The run that recorded it.
    #[must_use]
    pub fn run_id(&self) -> &RunId {
        match self {
            Observed::Clean { run_id, .. }
            | Observed::Crashed { run_id, .. }
            | Observed::TimedOut { run_id, .. }
            | Observed::Interrupted { run_id, .. } => run_id,
        }
    }

    /// The exit status `loki run` passes on: 0 for a clean run, the recorded crash's code (128 +
    /// N for a death by signal N), else the command's own as the shell sees it (124 on timeout).
    #[must_use]
    pub fn exit_status(&self) -> i32 {
        match self {
            Observed::Clean { .. } => 0,
            Observed::Crashed { incident, .. } => incident.exit.code,
            Observed::TimedOut { output, .. } | Observed::Interrupted { output, .. } => {
                output.exit_code()
            }
        }
    }

    /// The command's captured output.
    #[must_use]
    pub fn output(&self) -> &Output {
        match self {
            Observed::Clean { output, .. }
            | Observed::Crashed { output, .. }
            | Observed::TimedOut { output, .. }
            | Observed::Interrupted { output, .. } => output,
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

/// The environment of the observed command (pure): `caller` (already without loki's own secrets,
/// [`loki_process::caller_env`]), under `clean` without anything secret-looking (by name,
/// or a value with a URL password), plus the
/// seed under the names runtimes read, and `RUST_BACKTRACE=1` unless set. `explicit_seed`
/// (`--seed`) overrides a `PYTHONHASHSEED` the caller set; otherwise the caller's stands.
#[must_use]
pub fn command_env(
    caller: Vec<(OsString, OsString)>,
    clean: bool,
    seed: u64,
    explicit_seed: bool,
) -> Vec<(OsString, OsString)> {
    let mut env = if clean {
        process::without_secrets(caller)
            .into_iter()
            .filter(|(_, v)| !carries_password(&v.to_string_lossy()))
            .collect()
    } else {
        caller
    };
    let has = |env: &[(OsString, OsString)], name: &str| env.iter().any(|(k, _)| k == name);
    let set = |env: &mut Vec<(OsString, OsString)>, name: &str, value: String| {
        env.retain(|(k, _)| k != name);
        env.push((name.into(), value.into()));
    };
    set(&mut env, loki_core::env::SEED.name, seed.to_string());
    if explicit_seed || !has(&env, "PYTHONHASHSEED") {
        set(&mut env, "PYTHONHASHSEED", seed.to_string());
    }
    if !has(&env, "RUST_BACKTRACE") {
        set(&mut env, "RUST_BACKTRACE", "1".into());
    }
    env
}

/// How an environment is written to disk (pure): the variables recorded with their values, the
/// names recorded without (a secret-looking name or a value with a URL password), and the
/// withheld values themselves (kept in memory only, to blank them out of recorded output).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordedEnv {
    pub values: BTreeMap<String, String>,
    pub withheld: Vec<String>,
    pub withheld_values: Vec<String>,
}

/// Splits `env` into what may be written and what may not (see the module doc).
#[must_use]
pub fn record_env(env: &[(OsString, OsString)]) -> RecordedEnv {
    let mut out = RecordedEnv::default();
    for (k, v) in env {
        let name = k.to_string_lossy().into_owned();
        let value = v.to_string_lossy().into_owned();
        if process::is_secret_name(&name) || carries_password(&value) {
            if !out.withheld.contains(&name) {
                out.withheld.push(name);
            }
            out.withheld_values.push(value);
        } else {
            out.values.insert(name, value);
        }
    }
    out.withheld.sort();
    out
}

/// True when `value` holds a URL with a password in it (`scheme://user:pass@host`): database and
/// broker URLs carry credentials under names that do not look secret (`DATABASE_URL`).
#[must_use]
pub fn carries_password(value: &str) -> bool {
    value.match_indices("://").any(|(i, _)| {
        let rest = &value[i + 3..];
        let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
        authority
            .rsplit_once('@')
            .is_some_and(|(userinfo, _)| userinfo.contains(':'))
    })
}

/// `text` with every withheld value of at least [`MIN_REDACTED_LEN`] bytes replaced (pure).
#[must_use]
pub fn redact(text: &str, withheld_values: &[String]) -> String {
    let mut out = text.to_string();
    // Longest first: a value that contains another is blanked whole.
    let mut values: Vec<&String> = withheld_values.iter().collect();
    values.sort_by_key(|v| std::cmp::Reverse(v.len()));
    for v in values {
        if v.len() >= MIN_REDACTED_LEN && out.contains(v.as_str()) {
            out = out.replace(v.as_str(), REDACTED);
        }
    }
    out
}

/// Runs the command and records what happened in a new run of `repo`.
pub fn observe(repo: &Repo, opts: &ObserveOptions) -> Result<Observed, HealError> {
    let Some(program) = opts.command.first() else {
        return Err(HealError::EmptyCommand);
    };
    let seed = opts.seed.unwrap_or_else(pick_seed);
    let env = command_env(
        process::caller_env(),
        opts.clean_env,
        seed,
        opts.seed.is_some(),
    );
    let recorded = record_env(&env);
    let mut log = RunRecorder::start(
        &RunStore::new(repo.clone()),
        None,
        opts.argv.clone(),
        &RunStarted::Incident {
            command: opts.command.clone(),
            seed,
        },
    )?;
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
                ..RunCompleted::new(RunEnd::NotRun)
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
    if out.cancelled {
        // Its end was loki's doing, not the program's: no crash to record.
        let signal = process::stop_signal()
            .and_then(signature::signal_name)
            .unwrap_or("a signal")
            .to_string();
        log.interrupt(&RunInterrupted {
            exit_code: Some(code),
            reason: Some(format!(
                "loki was interrupted ({signal}) and stopped the command's process group"
            )),
            ..RunInterrupted::because("")
        })?;
        return Ok(Observed::Interrupted {
            run_id: log.id().clone(),
            output: out,
            signal,
        });
    }
    if out.success() {
        log.finish(&RunCompleted::new(RunEnd::Clean).exit_code(0))?;
        return Ok(Observed::Clean {
            run_id: log.id().clone(),
            output: out,
        });
    }
    if opts.browser.is_some() && !out.timed_out && code == crate::web::PAGE_HARNESS_EXIT {
        // The check could not tell (no browser, the page never loaded): nothing to reproduce.
        let detail = harness_detail(&out);
        log.finish(&RunCompleted {
            reason: Some(detail.clone()),
            ..RunCompleted::new(RunEnd::NotRun).exit_code(code)
        })?;
        return Err(HealError::PageHarness { detail });
    }
    if out.timed_out {
        log.finish(&RunCompleted {
            timeout_s: Some(opts.timeout.as_secs()),
            ..RunCompleted::new(RunEnd::TimedOut).exit_code(code)
        })?;
        return Ok(Observed::TimedOut {
            run_id: log.id().clone(),
            output: out,
        });
    }
    record_crash(log, repo, opts, (seed, recorded), out)
}

/// Why the page check could not tell: the last line of its stderr, without its `[HARNESS]` tag.
fn harness_detail(out: &Output) -> String {
    out.stderr
        .text()
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("the page check failed")
        .trim_start_matches("[HARNESS] ")
        .to_string()
}

/// A crash of the observed command: its incident and reproduction script saved in the run's
/// directory, recorded, and the run finished as crashed.
fn record_crash(
    mut log: RunRecorder,
    repo: &Repo,
    opts: &ObserveOptions,
    (seed, recorded): (u64, RecordedEnv),
    out: Output,
) -> Result<Observed, HealError> {
    let run_dir = log.dir().to_path_buf();
    let code = out.exit_code();
    let cwd = std::fs::canonicalize(&opts.cwd).unwrap_or_else(|_| opts.cwd.clone());
    let incident = build_incident(log.id(), &repo.root, &cwd, opts, seed, recorded, &out);
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
    log.finish(&RunCompleted::new(RunEnd::Crashed).exit_code(code))?;
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
    recorded: RecordedEnv,
    out: &Output,
) -> Incident {
    // Withheld values are blanked before anything is parsed, so no field can carry one.
    let stdout = redact(&out.output.text(), &recorded.withheld_values);
    let stderr = redact(&out.stderr.text(), &recorded.withheld_values);
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
            signal_name: match out.exit {
                Exit::Signal(s) => Some(
                    signature::any_signal_name(s)
                        .map_or_else(|| format!("signal {s}"), str::to_string),
                ),
                Exit::Code(_) => None,
            },
        },
        stdout_tail: tail(&stdout, TAIL_BYTES),
        stderr_tail: tail(&stderr, TAIL_BYTES),
        crash: CrashInfo {
            lang,
            kind,
            message,
        },
        frames,
        urls: parse_urls(&all),
        signature: sig,
        env: match &opts.browser {
            Some(b) => {
                let mut f = fingerprint(Lang::Unknown, &opts.command[0], cwd);
                f.tools.insert("browser".into(), b.version.clone());
                f
            }
            None => fingerprint(lang, &opts.command[0], cwd),
        },
        env_vars: recorded.values,
        env_secrets: recorded.withheld,
        env_clean: opts.clean_env,
        browser: opts.browser.clone(),
        repro: "repro.sh".into(),
    }
}

/// The last `max` bytes of `text`, cut at a character boundary.
fn tail(text: &str, max: usize) -> String {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_string()
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

    fn os(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    fn get<'a>(env: &'a [(OsString, OsString)], name: &str) -> Option<&'a str> {
        env.iter()
            .find(|(k, _)| k == name)
            .and_then(|(_, v)| v.to_str())
    }

    #[test]
    fn the_command_env_is_the_callers_plus_the_seed() {
        let caller = os(&[
            ("OPENAI_API_KEY", "sk-app-key"),
            ("PATH", "/bin"),
            ("RUST_BACKTRACE", "full"),
            ("DATABASE_URL", "mysql://u:p@h/db"),
        ]);
        let env = command_env(caller.clone(), false, 42, false);
        assert_eq!(get(&env, "OPENAI_API_KEY"), Some("sk-app-key"));
        assert_eq!(get(&env, "RUST_BACKTRACE"), Some("full"));
        assert_eq!(get(&env, "LOKI_SEED"), Some("42"));
        assert_eq!(get(&env, "PYTHONHASHSEED"), Some("42"));
        assert_eq!(get(&env, "CI"), None);
        assert_eq!(get(&env, "NO_COLOR"), None);
        let clean = command_env(caller, true, 1, false);
        assert_eq!(get(&clean, "OPENAI_API_KEY"), None);
        assert_eq!(get(&clean, "DATABASE_URL"), None);
        assert_eq!(get(&clean, "PATH"), Some("/bin"));
        assert_eq!(get(&clean, "RUST_BACKTRACE"), Some("full"));
    }

    #[test]
    fn a_callers_hash_seed_stands_unless_a_seed_is_given() {
        let caller = os(&[("PYTHONHASHSEED", "0")]);
        let env = command_env(caller.clone(), false, 9, false);
        assert_eq!(get(&env, "PYTHONHASHSEED"), Some("0"));
        assert_eq!(get(&env, "RUST_BACKTRACE"), Some("1"));
        let env = command_env(caller, false, 9, true);
        assert_eq!(get(&env, "PYTHONHASHSEED"), Some("9"));
    }

    #[test]
    fn secrets_are_recorded_by_name_only() {
        let env = os(&[
            ("GITHUB_TOKEN", "ghp_abcdefgh"),
            ("DATABASE_URL", "postgres://app:hunter22@db:5432/x"),
            ("HTTP_PROXY", "http://proxy:3128"),
            ("HOME", "/home/u"),
        ]);
        let r = record_env(&env);
        assert_eq!(r.withheld, ["DATABASE_URL", "GITHUB_TOKEN"]);
        assert_eq!(r.values.keys().collect::<Vec<_>>(), ["HOME", "HTTP_PROXY"]);
        assert_eq!(
            redact("token ghp_abcdefgh in a log", &r.withheld_values),
            "token [withheld] in a log"
        );
        assert_eq!(redact("1 2 3", &["1".to_string()]), "1 2 3");
    }

    #[test]
    fn urls_with_passwords_are_told_apart() {
        assert!(carries_password("redis://:pw@host:6379"));
        assert!(carries_password("x=https://u:p@h/path@x"));
        assert!(!carries_password("https://user@host/a:b"));
        assert!(!carries_password("https://host/x?u=a:b@c"));
        assert!(!carries_password("plain"));
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
