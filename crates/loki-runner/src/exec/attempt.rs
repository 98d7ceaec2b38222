//! One execution of the command: started through [`loki_process`], its output spooled and
//! parsed, cross-checked and judged.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_core::scratch::Scratch;
use loki_process::{self as process, Spec};
use loki_protocol::CheckStatus;

use super::keep_going;
use super::plan::{doc_companion, insert_before_separator, report_plan, script_plan};
use super::status::{AttemptStatus, Facts, attempt_status, status_of};
use super::{CARGO_MESSAGE_FORMAT, MAX_PARSED_BYTES, RunOptions};
use crate::detect::Check;
use crate::reports::report::TestReport;
use crate::{ChecksError, reports};
use loki_protocol::CheckKind;

/// One execution of the command.
#[derive(Debug)]
pub(super) struct Attempt {
    pub(super) argv: String,
    pub(super) exit_code: Option<i32>,
    pub(super) duration: Duration,
    pub(super) log: Vec<u8>,
    pub(super) report: Option<TestReport>,
    pub(super) judgement: AttemptStatus,
}

/// Most `.pyc` files a tree may hold before the sweep gives up (a pathological checkout).
const MAX_SWEPT_ENTRIES: usize = 200_000;

/// Removes the compiled bytecode in `__pycache__` directories of the repository holding `cwd`
/// (outside installed packages) before a Python suite runs. Python trusts a `.pyc` whose recorded
/// source size and mtime (in whole seconds) match the source, so a planted one (or a stale one
/// from an edit within the same second) would make the tests run code that is not the source
/// judged and committed; checks never write bytecode (`PYTHONDONTWRITEBYTECODE`), so what is
/// there came from elsewhere. Installed packages (`site-packages`, `dist-packages`) are trusted
/// like the rest of the environment. Best effort: a file that cannot be removed stays.
fn drop_bytecode(cwd: &Path) {
    let root = cwd
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(cwd);
    let files = loki_core::walk::Walk::new(root, loki_core::walk::Visibility::Everything)
        .max_entries(MAX_SWEPT_ENTRIES)
        .files();
    for f in files {
        let rel = f.rel_str();
        let in_cache = rel.split('/').any(|c| c == "__pycache__");
        let installed = rel
            .split('/')
            .any(|c| c == "site-packages" || c == "dist-packages");
        if in_cache && !installed && rel.ends_with(".pyc") {
            let _ = std::fs::remove_file(&f.path);
        }
    }
}

pub(super) fn attempt(check: &Check, opts: &RunOptions) -> Result<Attempt, ChecksError> {
    let temp_err = |source| ChecksError::Temp {
        check: check.name.clone(),
        source,
    };
    let tmp = match &opts.fence {
        Some(f) => {
            std::fs::create_dir_all(&f.scratch).map_err(temp_err)?;
            Scratch::new_in("loki-check-", &f.scratch)
        }
        None => Scratch::new("loki-check-"),
    }
    .map_err(temp_err)?;
    // A fenced run's temporary files go in its own directory (see [`RunFence`]).
    let fenced: Option<(Vec<OsString>, PathBuf)> = match &opts.fence {
        Some(f) => {
            let own_tmp = tmp.path().join("tmp");
            std::fs::create_dir_all(&own_tmp).map_err(temp_err)?;
            let mut argv = opts.wrapper.clone();
            argv.extend(f.wrapper(tmp.path(), &opts.env));
            Some((argv, own_tmp))
        }
        None => None,
    };
    let wrapper = fenced
        .as_ref()
        .map_or(opts.wrapper.as_slice(), |(w, _)| w.as_slice());
    let plan = report_plan(check, tmp.path(), &opts.env)?;
    let script = script_plan(check, tmp.path());
    if check.kind == CheckKind::Pytest {
        drop_bytecode(&check.cwd);
    }
    if check.kind == CheckKind::Maven {
        super::surefire::clear(&check.cwd);
    }
    if script
        .as_ref()
        .is_some_and(|p| p.reports.iter().any(|r| r.kind == CheckKind::Node))
    {
        loki_core::fs::write_atomic(
            &tmp.path().join(reports::tap::NODE_REPORTER_FILE),
            reports::tap::NODE_REPORTER_SOURCE.as_bytes(),
        )
        .map_err(|source| ChecksError::Log {
            check: check.name.clone(),
            source,
        })?;
    }
    let command = match (&script, check.kind) {
        (Some(p), _) => vec!["sh".to_owned(), "-c".to_owned(), p.script.clone()],
        (None, CheckKind::Cargo) => {
            insert_before_separator(&check.command, &[CARGO_MESSAGE_FORMAT.to_owned()])
        }
        (None, _) => check.command.clone(),
    };
    let Some((program, args)) = command.split_first() else {
        return Ok(not_started(
            String::new(),
            "the check has an empty command".into(),
        ));
    };
    let spool = tmp.path().join("output.log");
    // node's options must come before its file arguments; other runners take them last.
    let (first, rest) = match (check.kind, script.is_none()) {
        (CheckKind::Node, true) => (plan.args.clone(), Vec::new()),
        _ => (Vec::new(), plan.args.clone()),
    };
    let mut spec = Spec::new(program, &check.cwd)
        .args(&first)
        .args(args)
        .args(&rest)
        .envs(opts.env.clone())
        .env("CI", "1")
        .env("NO_COLOR", "1")
        .env("CARGO_TERM_COLOR", "never")
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .timeout(opts.timeout)
        .output_cap(opts.output_cap)
        .spool(&spool)
        .wrapped(wrapper);
    if let Some((_, own_tmp)) = &fenced {
        spec = spec.env("TMPDIR", own_tmp);
    }
    for (k, v) in &plan.env {
        spec = spec.env(k, v);
    }
    if let Some(p) = &script {
        let mut path = OsString::new();
        for dir in &p.path {
            path.push(dir.as_os_str());
            path.push(":");
        }
        path.push(spec.env_value("PATH").unwrap_or_default());
        spec = spec.env("PATH", path);
        for (k, v) in &p.env {
            spec = spec.env(k, v);
        }
        if let Some(extra) = &p.node_options {
            let mut opts = spec
                .env_value("NODE_OPTIONS")
                .unwrap_or_default()
                .to_owned();
            if !opts.is_empty() {
                opts.push(" ");
            }
            opts.push(extra);
            spec = spec.env("NODE_OPTIONS", opts);
        }
    }
    let argv = spec.display();
    let started = std::time::Instant::now();
    let out = match process::run(&spec) {
        Ok(out) => out,
        Err(e) if e.is_not_found() => {
            return Ok(not_started(argv, format!("{} not found", e.program())));
        }
        Err(e) => return Ok(not_started(argv, e.to_string())),
    };
    let mut log = out.output.bytes();
    let (mut text, unread) = read_spool(out.spooled.as_ref(), &log);
    let mut exit_code = out.exit_code();
    let mut timed_out = out.timed_out;
    let mut duration = out.duration;
    // A cargo test target that did not compile stopped the whole run: the rest runs without it.
    // nextest writes its report to the same file each run: each is moved aside to be merged.
    let nextest = check.kind == CheckKind::Nextest;
    let mut kept_reports: Vec<PathBuf> = Vec::new();
    if matches!(check.kind, CheckKind::Cargo | CheckKind::Nextest)
        && script.is_none()
        && !timed_out
        && exit_code != 0
        && keep_going::wanted(&check.command, &text)
    {
        let left = || opts.timeout.saturating_sub(started.elapsed());
        let meta = more(
            &spec,
            wrapper,
            &keep_going::metadata_command(&check.command),
            left(),
            &tmp.path().join("metadata.log"),
        );
        let runs = meta.ok().and_then(|m| {
            let meta = keep_going::read_metadata(&m.text)?;
            keep_going::plan(&check.command, &text, &meta)
        });
        for (i, run) in runs.unwrap_or_default().iter().enumerate() {
            let cmd = if nextest {
                insert_before_separator(run, &plan.args)
            } else {
                insert_before_separator(run, &[CARGO_MESSAGE_FORMAT.to_owned()])
            };
            log.extend_from_slice(format!("\n==== loki: {}\n", cmd.join(" ")).as_bytes());
            match more(
                &spec,
                wrapper,
                &cmd,
                left(),
                &tmp.path().join(format!("keep-going-{i}.log")),
            ) {
                Ok(m) => {
                    log.extend_from_slice(&m.log);
                    duration += m.duration;
                    timed_out |= m.timed_out;
                    text.push('\n');
                    text.push_str(&m.text);
                }
                Err(e) => {
                    log.extend_from_slice(format!("loki: not started: {e}\n").as_bytes());
                }
            }
            if let Some(junit) = plan.files.first().filter(|_| nextest) {
                let aside = tmp.path().join(format!("keep-going-{i}.xml"));
                if std::fs::rename(junit, &aside).is_ok() {
                    kept_reports.push(aside);
                }
            }
        }
    }
    // nextest does not run doctests: the same selection through `cargo test --doc`.
    let mut doc_report = None;
    if let Some(doc) = doc_companion(check).filter(|_| !timed_out) {
        let doc = insert_before_separator(&doc, &[CARGO_MESSAGE_FORMAT.to_owned()]);
        let left = opts.timeout.saturating_sub(started.elapsed());
        log.extend_from_slice(format!("\n==== loki: {}\n", doc.join(" ")).as_bytes());
        match more(
            &spec,
            wrapper,
            &doc,
            left,
            &tmp.path().join("doc-output.log"),
        ) {
            Ok(d) => {
                log.extend_from_slice(&d.log);
                duration += d.duration;
                timed_out |= d.timed_out;
                let no_lib = d.text.contains("no library targets found");
                if !no_lib && exit_code == 0 {
                    exit_code = d.exit_code;
                }
                if !no_lib {
                    doc_report = reports::cargo::parse_libtest_run(&d.text);
                }
                text.push('\n');
                text.push_str(&d.text);
            }
            Err(e) => {
                log.extend_from_slice(
                    format!("loki: cargo test --doc not started: {e}\n").as_bytes(),
                );
                if exit_code == 0 {
                    exit_code = 1;
                }
            }
        }
    }
    let mut structured = plan
        .files
        .iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .collect::<Vec<_>>();
    if check.kind == CheckKind::Maven {
        structured.extend(super::surefire::read(&check.cwd));
    }
    let mut structured_missing = !plan.files.is_empty() && structured.is_empty();
    let mut parsed = reports::parse_run(check.kind, &structured, &text);
    // A planned report that is missing or unreadable: some tests ran unseen.
    let mut unread_reports: Vec<String> = Vec::new();
    if let Some(p) = &script
        && !p.reports.is_empty()
    {
        let mut merged: Option<TestReport> = None;
        for (n, r) in p.reports.iter().enumerate() {
            // A chain that stopped early, or a run a condition skipped, leaves no report.
            let Ok(bytes) = std::fs::read(&r.path) else {
                continue;
            };
            let body = String::from_utf8_lossy(&bytes);
            let one = match r.kind {
                CheckKind::Node => reports::tap::parse_node_events(&body)
                    .or_else(|| reports::tap::parse_tap(&body)),
                _ => reports::js::parse_json(&body),
            };
            if one.is_none() {
                unread_reports.push(format!(
                    "the report of run {} of the test script ({}, {} bytes) could not be read, so its tests were not counted",
                    n + 1,
                    r.kind.as_str(),
                    bytes.len()
                ));
            }
            if let Some(one) = one {
                let m = merged.get_or_insert_with(|| TestReport {
                    source: "script".into(),
                    ..TestReport::default()
                });
                m.source = format!("{}+{}", m.source, one.source);
                m.passed += one.passed;
                m.failed += one.failed;
                m.skipped += one.skipped;
                m.tests.extend(one.tests);
            }
        }
        structured_missing = merged.is_none();
        if merged.is_some() {
            parsed.report = merged;
        }
    }
    let mut report = parsed.report;
    if !kept_reports.is_empty() {
        let mut merged = TestReport {
            source: "junit".into(),
            ..TestReport::default()
        };
        for p in &kept_reports {
            let one = std::fs::read(p)
                .ok()
                .and_then(|b| reports::junit::parse(&String::from_utf8_lossy(&b)));
            if let Some(one) = one {
                merged.passed += one.passed;
                merged.failed += one.failed;
                merged.skipped += one.skipped;
                merged.tests.extend(one.tests);
            }
        }
        let marks = keep_going::nextest_marks(&text);
        merged.failed += u64::try_from(marks.len()).unwrap_or(0);
        merged.tests.extend(marks);
        structured_missing = false;
        report = Some(merged);
    }
    let mut anomalies = parsed.anomalies;
    anomalies.extend(unread_reports);
    // What the runner says it was started with must be what was run: a wrapper in between (an
    // interpreter that is a script, an alias) changes what runs without a trace in the tree.
    if let Some(args) = &parsed.started_with {
        let extra: Vec<&str> = args
            .iter()
            .map(String::as_str)
            .filter(|a| !argv.contains(*a))
            .collect();
        if !extra.is_empty() {
            anomalies.push(format!(
                "pytest was started with arguments loki did not pass ({}): something between loki and pytest changed what runs",
                extra.join(" ")
            ));
        }
    }
    if let Some(d) = doc_report {
        anomalies.extend(d.anomalies());
        let r = report.get_or_insert_with(TestReport::default);
        r.tests.extend(d.report.tests);
        r.passed += d.report.passed;
        r.failed += d.report.failed;
        r.skipped += d.report.skipped;
    }
    if let (Some(status), false) = (parsed.reported_exit, timed_out)
        && i64::from(exit_code) != status
    {
        anomalies.push(format!(
            "pytest reported exit status {status} at the end of its session but the process exited with {exit_code} (something changed the exit)"
        ));
    }
    if let Some(r) = report.as_mut() {
        for dir in id_prefix_dirs(&check.cwd) {
            r.strip_id_prefix(&format!("{}/", dir.display()));
        }
    }
    let mut judgement = status_of(&Facts {
        kind: check.kind,
        exit_code,
        timed_out,
        timeout: opts.timeout,
        report: report.as_ref(),
        structured_missing,
        log: &text,
    });
    if let Some(unread) = unread
        && judgement.status != CheckStatus::Timeout
    {
        judgement = attempt_status(CheckStatus::NotRun, Some(unread));
    } else if !anomalies.is_empty()
        && matches!(judgement.status, CheckStatus::Pass | CheckStatus::NotRun)
        && report.is_some()
    {
        judgement = attempt_status(
            CheckStatus::Fail,
            Some(format!(
                "its output does not add up: {}",
                anomalies.join("; ")
            )),
        );
    }
    Ok(Attempt {
        argv,
        exit_code: Some(exit_code),
        duration,
        log,
        report,
        judgement,
    })
}

/// A run that completes a check's own: another cargo command, in the same place and environment.
struct More {
    text: String,
    log: Vec<u8>,
    duration: Duration,
    timed_out: bool,
    exit_code: i32,
}

/// Runs `cmd` as `spec` runs its command (directory, environment, wrapper, output cap), within
/// `left` of the check's time.
fn more(
    spec: &Spec,
    wrapper: &[OsString],
    cmd: &[String],
    left: Duration,
    spool: &Path,
) -> Result<More, String> {
    let (program, args) = cmd.split_first().ok_or("empty command")?;
    let more = Spec::new(program, &spec.cwd)
        .args(args)
        .envs(spec.env.clone())
        .timeout(left.max(Duration::from_secs(1)))
        .output_cap(spec.output_cap)
        .spool(spool)
        .wrapped(wrapper);
    let out = process::run(&more).map_err(|e| e.to_string())?;
    let log = out.output.bytes();
    let (text, _) = read_spool(out.spooled.as_ref(), &log);
    Ok(More {
        text,
        log,
        duration: out.duration,
        timed_out: out.timed_out,
        exit_code: out.exit_code(),
    })
}

/// The whole output of a run: the spool when there is one, else the capture. The second value
/// says what could not be read, when something could not.
fn read_spool(spooled: Option<&process::Spooled>, captured: &[u8]) -> (String, Option<String>) {
    let Some(sp) = spooled else {
        return (String::from_utf8_lossy(captured).into_owned(), None);
    };
    let mut note = None;
    if sp.truncated || sp.failed || sp.bytes > MAX_PARSED_BYTES {
        note = Some(format!(
            "only the first {} bytes of its output could be read",
            sp.bytes.min(MAX_PARSED_BYTES)
        ));
    }
    let read = std::fs::File::open(&sp.path).and_then(|f| {
        use std::io::Read as _;
        let mut buf = Vec::new();
        f.take(MAX_PARSED_BYTES).read_to_end(&mut buf)?;
        Ok(buf)
    });
    match read {
        Ok(bytes) => (String::from_utf8_lossy(&bytes).into_owned(), note),
        Err(e) => (
            String::from_utf8_lossy(captured).into_owned(),
            Some(format!("its spooled output could not be read ({e})")),
        ),
    }
}

/// The spellings of `cwd` a runner may put before a test file's path: as given (without a trailing
/// `/`, which `root.join("")` leaves) and resolved through symlinks (vitest and jest report real
/// paths).
fn id_prefix_dirs(cwd: &Path) -> Vec<PathBuf> {
    let given: PathBuf = cwd.components().collect();
    let mut dirs = vec![given.clone()];
    if let Ok(real) = std::fs::canonicalize(cwd)
        && real != given
    {
        dirs.push(real);
    }
    dirs
}

fn not_started(argv: String, reason: String) -> Attempt {
    Attempt {
        argv,
        exit_code: None,
        duration: Duration::ZERO,
        log: format!("loki: not started: {reason}\n").into_bytes(),
        report: None,
        judgement: attempt_status(CheckStatus::NotRun, Some(reason)),
    }
}

pub(super) fn log_section(out: &mut Vec<u8>, check: &Check, n: u32, a: &Attempt) {
    let exit = a
        .exit_code
        .map_or_else(|| "not started".to_owned(), |c| format!("exit {c}"));
    out.extend_from_slice(
        format!(
            "==== loki check {} attempt {n}: {} ({exit}, {}) in {}\n",
            check.name,
            a.argv,
            loki_core::time::human_duration(a.duration.as_secs_f64()),
            check.dir
        )
        .as_bytes(),
    );
    out.extend_from_slice(&a.log);
    if !a.log.ends_with(b"\n") {
        out.push(b'\n');
    }
}
