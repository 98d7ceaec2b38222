//! One execution of the command: started through [`loki_process`], its output spooled and
//! parsed, cross-checked and judged.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use loki_core::scratch::Scratch;
use loki_process::{self as process, Spec};
use loki_protocol::CheckStatus;

use super::plan::{
    ReportPlan, doc_companion, insert_before_separator, report_plan, script_plan, write_report_file,
};
use super::status::{AttemptStatus, Facts, attempt_status, status_of};
use super::{MAX_PARSED_BYTES, RunOptions};
use crate::detect::Check;
use crate::reports::report::TestReport;
use crate::runners::cargo::{keep_going, with_message_format};
use crate::runners::runner;
use crate::{ChecksError, reports};

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

/// Runs `check` once and judges the run: the steps below, in order. An empty command, or one
/// that cannot be started, is an attempt that did not start (not an error); errors are only
/// loki's own (its scratch directory, the files the report plan or the node reporter writes).
pub(super) fn attempt(check: &Check, opts: &RunOptions) -> Result<Attempt, ChecksError> {
    let prepared = prepare(check, opts)?;
    let command = prepared.command();
    let Some((program, args)) = command.split_first() else {
        return Ok(not_started(
            String::new(),
            "the check has an empty command".into(),
        ));
    };
    let spec = prepared.spec(program, args);
    let argv = spec.display();
    let started = Instant::now();
    let out = match process::run(&spec) {
        Ok(out) => out,
        Err(e) if e.is_not_found() => {
            return Ok(not_started(argv, format!("{} not found", e.program())));
        }
        Err(e) => return Ok(not_started(argv, e.to_string())),
    };
    let log = out.output.bytes();
    let (text, unread) = read_spool(out.spooled.as_ref(), &log);
    let mut run = Run {
        exit_code: out.exit_code(),
        timed_out: out.timed_out,
        duration: out.duration,
        log,
        text,
        unread,
        kept_reports: Vec::new(),
        doc_report: None,
    };
    prepared.keep_going(&spec, started, &mut run);
    prepared.doc_run(&spec, started, &mut run);
    let read = prepared.read_reports(&mut run, &argv);
    let judgement = settle(&prepared, &run, &read);
    Ok(Attempt {
        argv,
        exit_code: Some(run.exit_code),
        duration: run.duration,
        log: run.log,
        report: read.report,
        judgement,
    })
}

/// What the steps of one attempt share: the check, how it runs, and what was set up for it
/// before it starts. The scratch directory lives as long as this (its report files are read
/// after the runs).
struct Prepared<'a> {
    check: &'a Check,
    opts: &'a RunOptions,
    tmp: Scratch,
    /// A fenced run's wrapper (the caller's plus the fence's) and its own `TMPDIR`.
    fenced: Option<(Vec<OsString>, PathBuf)>,
    /// How the runner is asked for structured reports.
    plan: ReportPlan,
    /// The package script as loki runs it, when the check has one.
    script: Option<crate::script::Plan>,
}

/// Sets up one attempt before anything runs: its scratch directory (inside the fence's when
/// fenced, with the fence's wrapper and a `TMPDIR` of its own), the report and script plans, and
/// what must not leak from an earlier run into this one (stale Python bytecode, old surefire
/// reports); writes the node reporter the script's node runs load.
fn prepare<'a>(check: &'a Check, opts: &'a RunOptions) -> Result<Prepared<'a>, ChecksError> {
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
    let plan = report_plan(check, tmp.path(), &opts.env)?;
    let script = script_plan(check, tmp.path());
    runner(check.kind).before_run(check);
    // The files the script's runner commands load (node's reporter), once each.
    let support: BTreeSet<(&str, &str)> = script
        .iter()
        .flat_map(|p| &p.reports)
        .filter_map(|r| runner(r.kind).script_support())
        .collect();
    for (name, body) in support {
        write_report_file(check, &tmp.path().join(name), body.as_bytes())?;
    }
    Ok(Prepared {
        check,
        opts,
        tmp,
        fenced,
        plan,
        script,
    })
}

/// What one attempt's runs produced so far: the first run's, with each completing run's
/// (keep-going, doctests) added as it ends.
struct Run {
    exit_code: i32,
    timed_out: bool,
    duration: Duration,
    /// The capture shown in the check's log.
    log: Vec<u8>,
    /// The whole output, parsed for the report.
    text: String,
    /// What of the first run's output could not be read, when something could not.
    unread: Option<String>,
    /// nextest's reports of the keep-going runs, moved aside before the next run overwrote them.
    kept_reports: Vec<PathBuf>,
    /// The doctests' run (`cargo test --doc` next to nextest).
    doc_report: Option<reports::cargo::LibtestRun>,
}

/// The report of an attempt, read from its files and output, and what in them does not add up.
struct Read {
    report: Option<TestReport>,
    anomalies: Vec<String>,
    /// A structured report was planned but none could be read.
    structured_missing: bool,
}

impl Prepared<'_> {
    /// The wrapper the command runs through: the fence's when fenced, else the caller's.
    fn wrapper(&self) -> &[OsString] {
        self.fenced
            .as_ref()
            .map_or(self.opts.wrapper.as_slice(), |(w, _)| w.as_slice())
    }

    /// The argv to run: the package script through `sh -c` when loki runs it itself, cargo with
    /// its message format (which the report is parsed from), else the check's own command.
    fn command(&self) -> Vec<String> {
        match &self.script {
            Some(p) => vec!["sh".to_owned(), "-c".to_owned(), p.script.clone()],
            None => runner(self.check.kind).command(&self.check.command),
        }
    }

    /// The process to start: `program args` with the report plan's arguments, in the check's
    /// directory, under the attempt's limits (timeout, output cap, spool, wrapper), with an
    /// environment that keeps output plain and bytecode unwritten, plus the plan's and the
    /// script's variables (`PATH` and `NODE_OPTIONS` are extended, not replaced).
    fn spec(&self, program: &str, args: &[String]) -> Spec {
        let (check, opts, plan) = (self.check, self.opts, &self.plan);
        let spool = self.tmp.path().join("output.log");
        // node's options must come before its file arguments; other runners take them last.
        let (first, rest) = if runner(check.kind).report_args_first(check) {
            (plan.args.clone(), Vec::new())
        } else {
            (Vec::new(), plan.args.clone())
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
            .wrapped(self.wrapper());
        if let Some((_, own_tmp)) = &self.fenced {
            spec = spec.env("TMPDIR", own_tmp);
        }
        for (k, v) in &plan.env {
            spec = spec.env(k, v);
        }
        if let Some(p) = &self.script {
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
        spec
    }

    /// A cargo test target that did not compile stopped the whole run: the rest runs without it,
    /// within what is left of the timeout, each run's output added to `run`. nextest writes its
    /// report to the same file each run: each is moved aside to be merged.
    fn keep_going(&self, spec: &Spec, started: Instant, run: &mut Run) {
        let (check, opts, plan, tmp) = (self.check, self.opts, &self.plan, self.tmp.path());
        let wrapper = self.wrapper();
        let runner = runner(check.kind);
        if !(runner.keeps_going()
            && self.script.is_none()
            && !run.timed_out
            && run.exit_code != 0
            && keep_going::wanted(&check.command, &run.text))
        {
            return;
        }
        let left = || opts.timeout.saturating_sub(started.elapsed());
        let meta = more(
            spec,
            wrapper,
            &keep_going::metadata_command(&check.command),
            left(),
            &tmp.join("metadata.log"),
        );
        let runs = meta.ok().and_then(|m| {
            let meta = keep_going::read_metadata(&m.text)?;
            keep_going::plan(&check.command, &run.text, &meta)
        });
        for (i, cmd) in runs.unwrap_or_default().iter().enumerate() {
            let cmd = insert_before_separator(&runner.command(cmd), &plan.args);
            run.log
                .extend_from_slice(format!("\n==== loki: {}\n", cmd.join(" ")).as_bytes());
            match more(
                spec,
                wrapper,
                &cmd,
                left(),
                &tmp.join(format!("keep-going-{i}.log")),
            ) {
                Ok(m) => {
                    run.log.extend_from_slice(&m.log);
                    run.duration += m.duration;
                    run.timed_out |= m.timed_out;
                    run.text.push('\n');
                    run.text.push_str(&m.text);
                }
                Err(e) => {
                    run.log
                        .extend_from_slice(format!("loki: not started: {e}\n").as_bytes());
                }
            }
            // nextest's JUnit file (cargo's plan has none), which the next run would overwrite.
            if let Some(junit) = plan.files.first() {
                let aside = tmp.join(format!("keep-going-{i}.xml"));
                if std::fs::rename(junit, &aside).is_ok() {
                    run.kept_reports.push(aside);
                }
            }
        }
    }

    /// nextest does not run doctests: the same selection through `cargo test --doc`, within what
    /// is left of the timeout. Its failure fails the attempt (unless the package has no library,
    /// so no doctests); its report is kept to be merged.
    fn doc_run(&self, spec: &Spec, started: Instant, run: &mut Run) {
        let Some(doc) = doc_companion(self.check).filter(|_| !run.timed_out) else {
            return;
        };
        let doc = with_message_format(&doc);
        let left = self.opts.timeout.saturating_sub(started.elapsed());
        run.log
            .extend_from_slice(format!("\n==== loki: {}\n", doc.join(" ")).as_bytes());
        match more(
            spec,
            self.wrapper(),
            &doc,
            left,
            &self.tmp.path().join("doc-output.log"),
        ) {
            Ok(d) => {
                run.log.extend_from_slice(&d.log);
                run.duration += d.duration;
                run.timed_out |= d.timed_out;
                let no_lib = d.text.contains("no library targets found");
                if !no_lib && run.exit_code == 0 {
                    run.exit_code = d.exit_code;
                }
                if !no_lib {
                    run.doc_report = reports::cargo::parse_libtest_run(&d.text);
                }
                run.text.push('\n');
                run.text.push_str(&d.text);
            }
            Err(e) => {
                run.log.extend_from_slice(
                    format!("loki: cargo test --doc not started: {e}\n").as_bytes(),
                );
                if run.exit_code == 0 {
                    run.exit_code = 1;
                }
            }
        }
    }

    /// The attempt's report: the planned report files (or surefire's) and the output, parsed;
    /// replaced by the script's merged reports or by nextest's kept ones when there are; with
    /// the doctests' added and the check's directory taken off test ids. What contradicts
    /// itself is an anomaly, including arguments the runner says it got that loki did not pass
    /// (`argv` is what was run) and an exit status it reports that is not the process's.
    fn read_reports(&self, run: &mut Run, argv: &str) -> Read {
        let check = self.check;
        let mut structured = self
            .plan
            .files
            .iter()
            .filter(|p| p.is_file())
            .filter_map(|p| std::fs::read(p).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .collect::<Vec<_>>();
        structured.extend(runner(check.kind).found_reports(check));
        let mut structured_missing = !self.plan.files.is_empty() && structured.is_empty();
        let mut parsed = reports::parse_run(check.kind, &structured, &run.text);
        // A planned report that is missing or unreadable: some tests ran unseen.
        let mut unread_reports: Vec<String> = Vec::new();
        if let Some(p) = &self.script
            && !p.reports.is_empty()
        {
            let merged = script_reports(p, &mut unread_reports);
            structured_missing = merged.is_none();
            if merged.is_some() {
                parsed.report = merged;
            }
        }
        let mut report = parsed.report;
        if !run.kept_reports.is_empty() {
            structured_missing = false;
            report = Some(kept_reports(&run.kept_reports, &run.text));
        }
        let mut anomalies = parsed.anomalies;
        anomalies.extend(unread_reports);
        // What the runner says it was started with must be what was run: a wrapper in between
        // (an interpreter that is a script, an alias) changes what runs without a trace in the
        // tree.
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
        if let Some(d) = run.doc_report.take() {
            anomalies.extend(d.anomalies());
            let r = report.get_or_insert_with(TestReport::default);
            r.tests.extend(d.report.tests);
            r.passed += d.report.passed;
            r.failed += d.report.failed;
            r.skipped += d.report.skipped;
        }
        if let (Some(status), false) = (parsed.reported_exit, run.timed_out)
            && i64::from(run.exit_code) != status
        {
            anomalies.push(format!(
                "pytest reported exit status {status} at the end of its session but the process exited with {} (something changed the exit)",
                run.exit_code
            ));
        }
        if let Some(r) = report.as_mut() {
            for dir in id_prefix_dirs(&check.cwd) {
                r.strip_id_prefix(&format!("{}/", dir.display()));
            }
        }
        Read {
            report,
            anomalies,
            structured_missing,
        }
    }
}

/// The reports of the script's runner commands, merged; `None` when none could be read. A
/// report that exists but does not parse is noted in `unread`: its tests were not counted.
fn script_reports(p: &crate::script::Plan, unread: &mut Vec<String>) -> Option<TestReport> {
    let mut merged: Option<TestReport> = None;
    for (n, r) in p.reports.iter().enumerate() {
        // A chain that stopped early, or a run a condition skipped, leaves no report.
        let Ok(bytes) = std::fs::read(&r.path) else {
            continue;
        };
        let body = String::from_utf8_lossy(&bytes);
        let one = runner(r.kind).parse_file(&body);
        if one.is_none() {
            unread.push(format!(
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
    merged
}

/// nextest's reports of a keep-going attempt, merged, with the targets its output marks as not
/// built counted as failed (`text` is the whole output).
fn kept_reports(kept: &[PathBuf], text: &str) -> TestReport {
    let mut merged = TestReport {
        source: "junit".into(),
        ..TestReport::default()
    };
    for p in kept {
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
    let marks = keep_going::nextest_marks(text);
    merged.failed += u64::try_from(marks.len()).unwrap_or(0);
    merged.tests.extend(marks);
    merged
}

/// The attempt's status: what the exit, the timeout and the report say ([`status_of`]); not run
/// when its output could not all be read (unless it timed out), and failed when its output does
/// not add up although it would pass (or not run) with a report.
fn settle(prepared: &Prepared<'_>, run: &Run, read: &Read) -> AttemptStatus {
    let judgement = status_of(&Facts {
        kind: prepared.check.kind,
        exit_code: run.exit_code,
        timed_out: run.timed_out,
        timeout: prepared.opts.timeout,
        report: read.report.as_ref(),
        structured_missing: read.structured_missing,
        log: &run.text,
    });
    if let Some(unread) = &run.unread
        && judgement.status != CheckStatus::Timeout
    {
        attempt_status(CheckStatus::NotRun, Some(unread.clone()))
    } else if !read.anomalies.is_empty()
        && matches!(judgement.status, CheckStatus::Pass | CheckStatus::NotRun)
        && read.report.is_some()
    {
        attempt_status(
            CheckStatus::Fail,
            Some(format!(
                "its output does not add up: {}",
                read.anomalies.join("; ")
            )),
        )
    } else {
        judgement
    }
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
