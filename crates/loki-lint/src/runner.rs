//! One planned run: the processes through [`loki_process`], the findings read from their
//! output, which of them are new, the verdict ([`judge`], pure) and the log.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, Instant};

use loki_process::{self as process, Spec, Streams};
use loki_protocol::CheckStatus;
use sha2::{Digest, Sha256};

use super::parse::{self, LintFinding};
use super::plan::{FileArgs, LintGroup, Linter};
use super::{LineSet, LintRun};
use loki_runner::ChecksError;
use loki_runner::exec::RunOptions;

/// Bytes of output quoted in a reason.
const REASON_TAIL: usize = 600;
/// Findings quoted in a failure's reason; the run lists all of them.
const REASON_FINDINGS: usize = 3;
/// Exit codes from 126 up are the shell's "cannot execute" (126), "not found" (127) and deaths by
/// signal (128 + n): the linter did not get to judge the code.
const FIRST_CRASH_CODE: i32 = 126;
/// ruff and ESLint exit 2 for their own failures (bad configuration, internal error).
const TOOL_ERROR_CODE: i32 = 2;

/// Log-file names keep only these characters of a run name (as `exec` does for checks).
fn log_char(c: char) -> char {
    if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
        c
    } else {
        '_'
    }
}

/// The facts of one run that its verdict is computed from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts<'a> {
    pub linter: Linter,
    /// Why it never started, when it did not.
    pub not_started: Option<&'a str>,
    pub timed_out: bool,
    pub timeout: Duration,
    /// The first non-zero exit code of its processes, else 0.
    pub exit_code: i32,
    /// The tool's output was read: findings were parsed (or ESLint's JSON was).
    pub readable: bool,
    pub findings: usize,
    pub new: &'a [LintFinding],
    pub tail: &'a str,
}

fn at_line(f: &LintFinding) -> String {
    let code = f
        .code
        .as_deref()
        .map(|c| format!(" {c}"))
        .unwrap_or_default();
    match f.line {
        Some(l) => format!("{}:{l}:{code} {}", f.path, f.message),
        None => format!("{}:{code} {}", f.path, f.message),
    }
}

/// The verdict: not started → `not_run`; timed out → `timeout`; a finding on a changed line →
/// `fail`; the tool crashed (exit ≥ 126, or ruff/ESLint's own error code 2) → `not_run`; exit 0,
/// or a non-zero exit over findings that are all on untouched lines → `pass`; a non-zero exit
/// with nothing readable → `fail` for compilers (the build broke), `not_run` for linters.
pub(crate) fn judge(f: &Facts<'_>) -> (CheckStatus, Option<String>) {
    let syntax = if f.linter.syntax_only() {
        "syntax only; "
    } else {
        ""
    };
    if let Some(why) = f.not_started {
        return (CheckStatus::NotRun, Some(why.to_owned()));
    }
    if f.timed_out {
        return (
            CheckStatus::Timeout,
            Some(format!(
                "timed out after {}s; its process group was killed",
                f.timeout.as_secs()
            )),
        );
    }
    if !f.new.is_empty() {
        let shown: Vec<String> = f.new.iter().take(REASON_FINDINGS).map(at_line).collect();
        let more = if f.new.len() > REASON_FINDINGS {
            "; ..."
        } else {
            ""
        };
        return (
            CheckStatus::Fail,
            Some(format!(
                "{syntax}{} new finding(s) on changed lines: {}{more}",
                f.new.len(),
                shown.join("; ")
            )),
        );
    }
    let crashed = f.exit_code >= FIRST_CRASH_CODE
        || (matches!(f.linter, Linter::Ruff | Linter::Eslint) && f.exit_code == TOOL_ERROR_CODE);
    let tail = f.tail.trim();
    if crashed {
        return (
            CheckStatus::NotRun,
            Some(format!(
                "{} could not lint (exit {}): {tail}",
                f.linter.as_str(),
                f.exit_code
            )),
        );
    }
    let old = if f.findings > 0 {
        format!(
            "{} pre-existing finding(s) on untouched lines (in the log, not failing)",
            f.findings
        )
    } else {
        String::new()
    };
    if f.exit_code == 0 || f.readable {
        let reason = format!("{syntax}{old}");
        let reason = reason.trim_end_matches("; ").to_owned();
        return (CheckStatus::Pass, (!reason.is_empty()).then_some(reason));
    }
    let reason = format!(
        "exited with code {} and no finding loki could read: {tail}",
        f.exit_code
    );
    if f.linter.is_compiler() {
        (CheckStatus::Fail, Some(reason))
    } else {
        (CheckStatus::NotRun, Some(reason))
    }
}

/// `path` as the tool printed it, made repository-relative: relative paths start at `base`;
/// absolute ones inside the root lose it; anything outside the repository stays as printed.
pub(crate) fn normalise(path: &str, base: &str, root: &Path, real_root: &Path) -> String {
    let p = Path::new(path);
    let joined = if p.is_absolute() {
        match p.strip_prefix(root).or_else(|_| p.strip_prefix(real_root)) {
            Ok(rel) => rel.to_path_buf(),
            Err(_) => return path.to_owned(),
        }
    } else if base == "." {
        p.to_path_buf()
    } else {
        Path::new(base).join(p)
    };
    let mut parts: Vec<String> = Vec::new();
    for c in joined.components() {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return path.to_owned();
                }
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    parts.join("/")
}

/// What the processes of one run produced.
#[derive(Debug, Default)]
struct Ran {
    log: Vec<u8>,
    findings: Vec<LintFinding>,
    ignored: Vec<(String, String)>,
    readable: bool,
    exit_code: Option<i32>,
    timed_out: bool,
    not_started: Option<String>,
    duration: Duration,
    tail: String,
}

fn execute(group: &LintGroup, opts: &RunOptions) -> Ran {
    let rel = group.file_args_rel();
    let base: Vec<String> = group.argv.clone();
    let invocations: Vec<(Vec<String>, Option<&String>)> = match group.file_args {
        FileArgs::None => vec![(base, None)],
        FileArgs::All => vec![([base, rel.clone()].concat(), None)],
        FileArgs::PerFile => rel
            .iter()
            .map(|f| ([base.clone(), vec![f.clone()]].concat(), Some(f)))
            .collect(),
    };
    let started = Instant::now();
    let mut ran = Ran::default();
    for (argv, file) in invocations {
        let Some((program, args)) = argv.split_first() else {
            ran.not_started = Some("the linter has an empty command".into());
            break;
        };
        let remaining = opts.timeout.saturating_sub(started.elapsed());
        if remaining.is_zero() {
            ran.timed_out = true;
            break;
        }
        let (spec, shown) = invocation(group, opts, (program, args), remaining);
        let out = match process::run(&spec) {
            Ok(out) => out,
            Err(e) => {
                let why = if e.is_not_found() {
                    format!("{} not found", group.shown_program)
                } else {
                    e.to_string()
                };
                ran.log.extend_from_slice(
                    format!("==== {shown}\nloki: not started: {why}\n").as_bytes(),
                );
                ran.not_started = Some(why);
                break;
            }
        };
        let code = out.exit_code();
        ran.duration += out.duration;
        ran.timed_out |= out.timed_out;
        if ran.exit_code.is_none_or(|c| c == 0) {
            ran.exit_code = Some(code);
        }
        let stdout = out.output.text();
        let stderr = out.stderr.text();
        ran.log.extend_from_slice(
            format!(
                "==== {shown} (exit {code}, {}) in {}\n",
                loki_core::time::human_duration(out.duration.as_secs_f64()),
                group.dir
            )
            .as_bytes(),
        );
        for part in [&stdout, &stderr] {
            ran.log.extend_from_slice(part.as_bytes());
            if !part.is_empty() && !part.ends_with('\n') {
                ran.log.push(b'\n');
            }
        }
        ran.tail = tail_of(&format!("{stdout}{stderr}"));
        let found = match group.linter {
            Linter::Ruff => parse::ruff(&stdout),
            Linter::Pyflakes | Linter::PyCompile => parse::plain(&stdout),
            Linter::Tsc => parse::tsc(&stdout),
            Linter::Gofmt => parse::gofmt(&stdout, &rel),
            Linter::GoVet => parse::go_vet(&stdout),
            Linter::Clippy => parse::clippy(&stdout),
            Linter::Rustfmt => parse::rustfmt(&stdout),
            Linter::NodeCheck => match file {
                Some(f) if code != 0 && !out.timed_out => vec![parse::node_check(&stdout, f)],
                _ => Vec::new(),
            },
            Linter::Eslint => {
                let e = parse::eslint(&stdout);
                ran.readable |= e.parsed;
                ran.ignored.extend(e.ignored);
                e.findings
            }
        };
        ran.readable |= !found.is_empty();
        ran.findings.extend(found);
        if out.timed_out {
            break;
        }
    }
    ran
}

/// One run of the linter (`program` with `args`, within `remaining`) and how the log shows it:
/// in the group's directory, with the environment that keeps linters plain and quiet.
fn invocation(
    group: &LintGroup,
    opts: &RunOptions,
    (program, args): (&String, &[String]),
    remaining: Duration,
) -> (Spec, String) {
    let spec = Spec::new(program, &group.cwd)
        .args(args)
        .envs(opts.env.clone())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .env("CARGO_TERM_COLOR", "never")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .timeout(remaining)
        .output_cap(opts.output_cap)
        .streams(if group.linter == Linter::Eslint {
            Streams::Separate
        } else {
            Streams::Combined
        })
        .wrapped(&opts.wrapper);
    let mut shown_argv = vec![group.shown_program.clone()];
    shown_argv.extend(args.iter().cloned());
    let shown = if group.linter == Linter::PyCompile {
        group.command_line()
    } else {
        shown_argv
            .iter()
            .map(|a| process::shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    };
    (spec, shown)
}

/// The end of a group's log: how many findings, new on changed lines or pre-existing, each
/// one tagged, what was not linted, and the result with its reason.
fn summarise(
    log: &mut Vec<u8>,
    group: &LintGroup,
    findings: &[LintFinding],
    (new, is_new): (usize, &dyn Fn(&LintFinding) -> bool),
    ignored: &[String],
    (result, reason): (CheckStatus, Option<&str>),
) {
    let old = findings.len() - new;
    log.extend_from_slice(
        format!(
            "==== loki {}: {} finding(s): {} new on changed lines, {old} pre-existing on untouched lines (logged, never failing)\n",
            group.name,
            findings.len(),
            new
        )
        .as_bytes(),
    );
    for f in findings {
        let tag = if is_new(f) { "new" } else { "pre-existing" };
        log.extend_from_slice(format!("{tag}: {}\n", at_line(f)).as_bytes());
    }
    for i in ignored {
        log.extend_from_slice(format!("not linted: {i}\n").as_bytes());
    }
    let status = serde_json::to_value(result)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    log.extend_from_slice(
        format!(
            "==== result: {status}{}\n",
            reason.map(|r| format!(" ({r})")).unwrap_or_default()
        )
        .as_bytes(),
    );
}

/// Writes the group's log as `<log_dir>/<name>.log` and returns its path.
fn write_log(group: &LintGroup, opts: &RunOptions, log: &[u8]) -> Result<PathBuf, ChecksError> {
    std::fs::create_dir_all(&opts.log_dir).map_err(|e| ChecksError::Log {
        check: group.name.clone(),
        source: loki_core::CoreError::io("create directory", &opts.log_dir, e),
    })?;
    let log_path = opts.log_dir.join(format!(
        "{}.log",
        group.name.chars().map(log_char).collect::<String>()
    ));
    loki_core::fs::write_atomic(&log_path, log).map_err(|source| ChecksError::Log {
        check: group.name.clone(),
        source,
    })?;
    Ok(log_path)
}

fn tail_of(text: &str) -> String {
    let start = text.len().saturating_sub(REASON_TAIL);
    let start = (start..=text.len())
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(text.len());
    text[start..].trim().replace('\n', " | ")
}

/// Runs `group`, writes `<log_dir>/<name>.log` and returns the run and what ESLint said it
/// ignored (as not-covered notes).
pub(crate) fn run_group(
    group: &LintGroup,
    root: &Path,
    changed: &BTreeMap<&str, &LineSet>,
    opts: &RunOptions,
) -> Result<(LintRun, Vec<String>), ChecksError> {
    let mut ran = execute(group, opts);
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut findings: Vec<LintFinding> = std::mem::take(&mut ran.findings)
        .into_iter()
        .map(|mut f| {
            f.path = normalise(&f.path, &group.path_base, root, &real_root);
            f
        })
        .collect();
    findings.sort();
    findings.dedup();
    let ignored: Vec<String> = ran
        .ignored
        .iter()
        .map(|(p, why)| normalise(p, &group.path_base, root, &real_root) + ": " + why)
        .collect();
    let is_new = |f: &LintFinding| {
        group.files.contains(&f.path)
            && changed
                .get(f.path.as_str())
                .is_some_and(|lines| match f.line {
                    None => true,
                    Some(l) => lines.intersects(l, f.end_line.unwrap_or(l)),
                })
    };
    let new: Vec<LintFinding> = findings.iter().filter(|f| is_new(f)).cloned().collect();
    let (result, reason) = judge(&Facts {
        linter: group.linter,
        not_started: ran.not_started.as_deref(),
        timed_out: ran.timed_out,
        timeout: opts.timeout,
        exit_code: ran.exit_code.unwrap_or(0),
        readable: ran.readable,
        findings: findings.len(),
        new: &new,
        tail: &ran.tail,
    });
    let mut log = std::mem::take(&mut ran.log);
    summarise(
        &mut log,
        group,
        &findings,
        (new.len(), &is_new),
        &ignored,
        (result, reason.as_deref()),
    );
    let log_path = write_log(group, opts, &log)?;
    let ignored_paths: Vec<&str> = ignored
        .iter()
        .filter_map(|i| i.split_once(": ").map(|(p, _)| p))
        .collect();
    let files = group
        .files
        .iter()
        .filter(|f| !ignored_paths.contains(&f.as_str()))
        .count() as u64;
    let run = LintRun {
        name: group.name.clone(),
        cmd: group.command_line(),
        why: group.why.clone(),
        result,
        files,
        findings,
        new_findings: new,
        duration_s: (ran.duration.as_millis() as f64) / 1000.0,
        log_path,
        log_sha256: hex::encode(Sha256::digest(&log)),
        reason,
        exit_code: ran.exit_code,
    };
    let notes = ignored
        .into_iter()
        .map(|i| format!("lint: eslint did not lint {i}"))
        .collect();
    Ok((run, notes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(
        linter: Linter,
        exit_code: i32,
        findings: usize,
        new: &'a [LintFinding],
    ) -> Facts<'a> {
        Facts {
            linter,
            not_started: None,
            timed_out: false,
            timeout: Duration::from_secs(9),
            exit_code,
            readable: findings > 0,
            findings,
            new,
            tail: "boom",
        }
    }

    fn f(line: u32) -> LintFinding {
        LintFinding {
            path: "a.py".into(),
            line: Some(line),
            end_line: None,
            code: Some("F821".into()),
            message: "Undefined name `x`".into(),
        }
    }

    #[test]
    fn verdicts() {
        let new = [f(3)];
        let (s, r) = judge(&facts(Linter::Ruff, 1, 2, &new));
        assert_eq!(s, CheckStatus::Fail);
        assert_eq!(
            r.unwrap(),
            "1 new finding(s) on changed lines: a.py:3: F821 Undefined name `x`"
        );
        // Pre-existing findings make ruff exit 1, which is not a failure of the change.
        let (s, r) = judge(&facts(Linter::Ruff, 1, 2, &[]));
        assert_eq!(
            (s, r.unwrap().as_str()),
            (
                CheckStatus::Pass,
                "2 pre-existing finding(s) on untouched lines (in the log, not failing)"
            )
        );
        assert_eq!(
            judge(&facts(Linter::Ruff, 0, 0, &[])),
            (CheckStatus::Pass, None)
        );
        assert_eq!(
            judge(&facts(Linter::Ruff, 2, 0, &[])).0,
            CheckStatus::NotRun
        );
        assert_eq!(
            judge(&facts(Linter::Eslint, 2, 0, &[])).0,
            CheckStatus::NotRun
        );
        assert_eq!(
            judge(&facts(Linter::Pyflakes, 137, 1, &[])).0,
            CheckStatus::NotRun
        );
        assert_eq!(
            judge(&facts(Linter::Pyflakes, 1, 0, &[])).0,
            CheckStatus::NotRun
        );
        // A compiler that exits non-zero with nothing readable: the build broke.
        let (s, r) = judge(&facts(Linter::Clippy, 101, 0, &[]));
        assert_eq!(s, CheckStatus::Fail);
        assert!(r.unwrap().ends_with("no finding loki could read: boom"));
        let (s, r) = judge(&facts(Linter::PyCompile, 0, 0, &[]));
        assert_eq!((s, r.as_deref()), (CheckStatus::Pass, Some("syntax only")));
        let mut t = facts(Linter::GoVet, 124, 0, &new);
        t.timed_out = true;
        assert_eq!(judge(&t).0, CheckStatus::Timeout);
        t.not_started = Some("go not found");
        assert_eq!(
            judge(&t),
            (CheckStatus::NotRun, Some("go not found".into()))
        );
    }

    #[test]
    fn paths_become_repo_relative() {
        let root = Path::new("/r");
        assert_eq!(normalise("./a.go", "pkg", root, root), "pkg/a.go");
        assert_eq!(normalise("a b.py", ".", root, root), "a b.py");
        assert_eq!(
            normalise("/r/src/x.js", "web", root, Path::new("/real/r")),
            "src/x.js"
        );
        assert_eq!(
            normalise("/real/r/src/x.js", "web", root, Path::new("/real/r")),
            "src/x.js"
        );
        assert_eq!(
            normalise("../lib/y.rs", "crates/a", root, root),
            "crates/lib/y.rs"
        );
        assert_eq!(
            normalise("/home/u/.cargo/z.rs", ".", root, root),
            "/home/u/.cargo/z.rs"
        );
        assert_eq!(normalise("../../x", ".", root, root), "../../x");
    }
}
