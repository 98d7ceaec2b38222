//! Deep verify: what runs after a build run has sealed (`loki deep <run>`, `loki build --deep`).
//!
//! For a finished build run with a change, in a fresh detached worktree at the run's head:
//! 1. the **full suite**: every detected runner, not only the impacted tests ([`loki_runner`]);
//! 2. the **app boot** ([`boot`]): every start command found, started, probed, stopped;
//! 3. a **secret scan** ([`secrets`]) of the change's added lines and new files.
//!
//! The suites and the app run in the box of the build's checks, built by the same code
//! ([`loki_engine::fence::Fence::check_env`] and [`Fence::checks_wrapper`]): the same
//! toolchains (`RUSTUP_HOME`, a private `CARGO_HOME` overlay, `PYENV_ROOT`, ... found where they
//! really are, even when `HOME` or `LOKI_HOME` moved), a private `HOME` and `TMPDIR` inside the
//! deep verify's own temporary directory, cargo's shared target directory in `.loki/cache`, and
//! the same Landlock rules. A suite that could not run because of the machine (no toolchain, an
//! unwritable temporary directory) is `not_run` with the tool and the fix
//! ([`loki_runner::exec::Environment`], [`DeepReport::environment`]), never a failure of the code.
//!
//! The outcome is the receipt's verdict ([`DeepReport::outcome`]): one word for the summary, the
//! receipt, the control plane and `--json`, with the exit code of the outcome ladder.
//!
//! It writes its own signed receipt (`kind` `deep`, same `run_id`, `repo` and `diff` as the main
//! receipt, `main_receipt` = the main receipt's `receipt_sha256`) with its own event log in
//! `.loki/runs/<run>/deep/` (`events.jsonl`, `receipt.json`, `receipt.dsse.json`, `receipt.md`,
//! `checks/<name>.log`), so `loki verify .loki/runs/<run>/deep` checks it like any run. Each item
//! that ran is a check of that receipt (it is out of NOT PROVEN when it passed); each that could
//! not run is a NOT PROVEN entry with the reason. A previous deep verify of the same run is kept,
//! renamed `deep.<unix seconds>`.
//!
//! # Invariants
//! - The main run's directory, outcome and receipt are never written (only `deep/` below it).
//! - A secret's value is never returned, logged or stored: findings carry file, line, rule and a
//!   redacted form.
//! - The worktree is removed when the verify ends, whatever happened.
//!
//! # Failure modes
//! [`DeepError::UnknownRun`], [`DeepError::NotSealed`], [`DeepError::NotABuild`] and
//! [`DeepError::NoChange`] are the caller's input (exit 2); the rest are loki's own failures.

pub mod boot;
pub mod detached;
pub mod secrets;

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use loki_core::RunId;
use loki_core::fs::write_atomic;
use loki_core::layout::Repo;
use loki_core::run::RunKind;
use loki_engine::fence::Fence;
use loki_events::EventWriter;
use loki_events::payload::{RunCompleted, RunStarted};
use loki_git::Git;
use loki_protocol::outcome::Outcome;
use loki_protocol::{CheckRole, CheckStatus, FindingKind, Stage};
use loki_receipt::schema::{Check, Cost, IntegrityFinding, StageTime, Time};
use loki_receipt::{KeyEnv, NotProven, Receipt, ReceiptBuilder, ReceiptFacts, Signer};
use loki_runner::detect::use_checkout_envs;
use loki_runner::{RunOptions, detect, run_check};

pub use boot::{BootResult, BootStatus, StartCommand};
pub use loki_runner::exec::Environment;
pub use secrets::{ScanReport, SecretFinding};

/// The directory below the run's that a deep verify writes.
pub const DEEP_DIR: &str = "deep";
/// The log of a detached deep verify, beside `deep/` in the run's directory.
pub const DEEP_LOG: &str = "deep.log";

/// What went wrong before the deep verify could seal.
#[derive(Debug, thiserror::Error)]
pub enum DeepError {
    #[error("no run {run} in {dir}; `loki runs list` shows the runs there")]
    UnknownRun { run: String, dir: PathBuf },
    #[error(
        "run {run} has no readable receipt ({reason}); deep verify needs a finished, sealed build run"
    )]
    NotSealed { run: String, reason: String },
    #[error("run {run} is a {kind} run; deep verify checks build runs")]
    NotABuild { run: String, kind: String },
    #[error("run {run} made no change (its diff is empty): there is nothing to deep-verify")]
    NoChange { run: String },
    #[error(
        "deep verify of run {run} interrupted ({signal}): nothing was proven; its INTERRUPTED receipt (sha256:{receipt_sha256}) is kept in {kept}, the previous deep verify stays in place"
    )]
    Interrupted {
        run: String,
        signal: &'static str,
        kept: PathBuf,
        receipt_sha256: String,
    },
    #[error("deep verify of run {run}: {action}: {reason}")]
    Failed {
        run: String,
        action: &'static str,
        reason: String,
    },
}

impl DeepError {
    /// The caller's input was wrong (exit 2), not loki.
    #[must_use]
    pub fn is_usage(&self) -> bool {
        matches!(
            self,
            DeepError::UnknownRun { .. }
                | DeepError::NotSealed { .. }
                | DeepError::NotABuild { .. }
                | DeepError::NoChange { .. }
        )
    }
}

/// What to deep-verify and how.
#[derive(Debug, Clone)]
pub struct DeepRequest {
    pub repo: Repo,
    pub run: RunId,
    /// loki's home (the signing key).
    pub home: PathBuf,
    pub key_env: KeyEnv,
    pub boot_window: Duration,
    /// Per-suite timeout; `None`: the runner's default.
    pub check_timeout: Option<Duration>,
    /// The `loki` binary whose `__confine` the suites and the app run through (the box of the
    /// build's checks); `None`: unconfined, said in NOT PROVEN.
    pub confine_exe: Option<PathBuf>,
}

/// What a deep verify found and where it wrote it.
#[derive(Debug, Clone)]
pub struct DeepReport {
    pub dir: PathBuf,
    pub receipt: Receipt,
    pub suite: Vec<loki_runner::CheckResult>,
    pub boots: Vec<BootResult>,
    pub scan: ScanReport,
    /// Why an item could not run (also in the receipt's NOT PROVEN).
    pub not_run: Vec<NotProven>,
}

impl DeepReport {
    /// The outcome: the receipt's verdict, the one word every surface shows.
    #[must_use]
    pub fn outcome(&self) -> Outcome {
        self.receipt.verdict
    }

    /// The suites the machine kept from running (the suite's name and why, with the fix).
    pub fn environment(&self) -> impl Iterator<Item = (&str, &Environment)> {
        self.suite
            .iter()
            .filter_map(|c| c.environment.as_ref().map(|e| (c.run.name.as_str(), e)))
    }

    /// Something that ran failed: a suite, a boot, or the scan found a secret.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.suite.iter().any(|c| {
            matches!(
                c.run.result,
                CheckStatus::Fail | CheckStatus::Flaky | CheckStatus::Timeout
            )
        }) || self
            .boots
            .iter()
            .any(|b| matches!(b.status, BootStatus::Crashed { .. }))
            || !self.scan.findings.is_empty()
    }
}

/// The directory a deep verify of `run` writes.
#[must_use]
pub fn deep_dir(repo: &Repo, run: &RunId) -> PathBuf {
    repo.run_dir(run).join(DEEP_DIR)
}

/// Loads the main receipt of `run` and checks that it can be deep-verified.
pub fn main_receipt(repo: &Repo, run: &RunId) -> Result<Receipt, DeepError> {
    let dir = repo.run_dir(run);
    if !dir.is_dir() {
        return Err(DeepError::UnknownRun {
            run: run.to_string(),
            dir: repo.runs_dir(),
        });
    }
    let path = dir.join(loki_receipt::builder::RECEIPT_FILE);
    let receipt: Receipt = std::fs::read(&path)
        .map_err(|e| e.to_string())
        .and_then(|b| serde_json::from_slice(&b).map_err(|e| e.to_string()))
        .map_err(|reason| DeepError::NotSealed {
            run: run.to_string(),
            reason: format!("{}: {reason}", path.display()),
        })?;
    if !matches!(receipt.kind, RunKind::Build | RunKind::Quick) {
        return Err(DeepError::NotABuild {
            run: run.to_string(),
            kind: receipt.kind.as_str().to_string(),
        });
    }
    if receipt.diff.files == 0 {
        return Err(DeepError::NoChange {
            run: run.to_string(),
        });
    }
    Ok(receipt)
}

/// Removes the worktree when dropped, whatever happened.
struct Checkout<'a> {
    git: &'a Git,
    path: PathBuf,
}

impl Drop for Checkout<'_> {
    fn drop(&mut self) {
        // Best effort: a leftover worktree is pruned by git later; the temp dir goes anyway.
        let _ = self.git.worktree_remove(&self.path);
    }
}

/// Runs the deep verify of `req.run` and seals its receipt (see the module doc).
///
/// It is written in a staging directory beside `deep/` (`deep.staging-XXXXXX`, a
/// [`loki_core::scratch::Scratch`] gone on every exit path; named `deep.…` so its events ship
/// under the same identity as the `deep/` it becomes) and takes the place of `deep/` only once sealed, the previous one renamed
/// `deep.<unix seconds>`. A verify that a signal cut seals an INTERRUPTED receipt (no check, no
/// finding) kept as `deep.<unix seconds>` and leaves `deep/` as it was
/// ([`DeepError::Interrupted`]).
pub fn run(req: &DeepRequest) -> Result<DeepReport, DeepError> {
    let main = main_receipt(&req.repo, &req.run)?;
    let fail = |action| failure(&req.run, action);
    let started = Instant::now();
    let dir = deep_dir(&req.repo, &req.run);
    let staging = loki_core::scratch::Scratch::new_in("deep.staging-", &req.repo.run_dir(&req.run))
        .map_err(|e| fail("create the deep directory")(&e))?;
    let mut events = EventWriter::open(staging.path(), req.run.as_str())
        .map_err(|e| fail("open the event log")(&e))?;
    events
        .record(&RunStarted::Deep {
            main_receipt: main.receipt_sha256.clone(),
            head: main.repo.head_sha.clone(),
        })
        .map_err(|e| fail("record the start")(&e))?;
    let mut stages = Vec::new();
    let verified = verify(
        req,
        &main,
        staging.path(),
        &mut events,
        &mut stages,
        started,
    );
    // A verify that sealed before the signal was seen is whole; one that did not is cut.
    if let (Err(_), Some(signal)) = (&verified, loki_process::signals::signal_name()) {
        let receipt = seal_interrupted(req, &main, staging.path(), &mut events, stages, started)?;
        let kept = place(
            staging,
            &dir.with_file_name(format!("{DEEP_DIR}.{}", unix_now())),
        )?;
        return Err(DeepError::Interrupted {
            run: req.run.to_string(),
            signal,
            kept,
            receipt_sha256: receipt.receipt_sha256,
        });
    }
    let mut report = verified?;
    if dir.exists() {
        let keep = dir.with_file_name(format!("{DEEP_DIR}.{}", unix_now()));
        std::fs::rename(&dir, &keep).map_err(|e| fail("keep the previous deep verify")(&e))?;
    }
    report.dir = place(staging, &dir)?;
    Ok(report)
}

/// Seconds since the epoch: the suffix of a kept deep verify.
fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The error of a deep verify of `run` that failed at `action`.
fn failure(run: &RunId, action: &'static str) -> impl Fn(&dyn std::fmt::Display) -> DeepError {
    let run = run.to_string();
    move |e: &dyn std::fmt::Display| DeepError::Failed {
        run: run.clone(),
        action,
        reason: e.to_string(),
    }
}

/// Moves the sealed staging directory to `to` (kept past the process from now on).
fn place(staging: loki_core::scratch::Scratch, to: &std::path::Path) -> Result<PathBuf, DeepError> {
    let from = staging.keep();
    std::fs::rename(&from, to).map_err(|e| DeepError::Failed {
        run: String::new(),
        action: "move the sealed deep verify into place",
        reason: format!("{} -> {}: {e}", from.display(), to.display()),
    })?;
    Ok(to.to_path_buf())
}

/// The INTERRUPTED receipt of a cut deep verify: the main run's repo and diff, the stages that
/// completed, and nothing the cut runs showed ([`loki_receipt::RunFlags::interrupted`]).
fn seal_interrupted(
    req: &DeepRequest,
    main: &Receipt,
    dir: &std::path::Path,
    events: &mut EventWriter,
    stages: Vec<StageTime>,
    started: Instant,
) -> Result<Receipt, DeepError> {
    let fail = |action| failure(&req.run, action);
    let mut facts = ReceiptFacts::new(req.run.as_str(), RunKind::Deep);
    facts.task = main.task.clone();
    facts.repo = main.repo.clone();
    facts.diff = main.diff.clone();
    facts.main_receipt = Some(main.receipt_sha256.clone());
    facts.flags.interrupted = true;
    facts.provider = "none".to_string();
    facts.model = "none".to_string();
    facts.cost = Cost {
        usd: Some(0.0),
        ..Cost::default()
    };
    facts.time = Time {
        wall_s: started.elapsed().as_secs_f64(),
        stages,
    };
    let signer = Signer::load_or_create(&req.home, &req.key_env)
        .map_err(|e| fail("load the signing key")(&e))?;
    let sealed = ReceiptBuilder::new(facts)
        .seal(dir, events, &signer)
        .map_err(|e| fail("seal the deep receipt")(&e))?;
    events
        .record(&loki_events::payload::RunInterrupted {
            outcome: Some(sealed.receipt.verdict.into()),
            exit_code: None,
            receipt_sha256: Some(sealed.receipt.receipt_sha256.clone()),
            reason: None,
        })
        .map_err(|e| fail("record the end")(&e))?;
    Ok(sealed.receipt)
}

/// What every step of a deep verify runs with: the checkout, the logs' directory, the checks'
/// box, and what it could not prove so far.
struct Sandbox<'a> {
    req: &'a DeepRequest,
    root: &'a std::path::Path,
    logs: &'a std::path::Path,
    env: Vec<(std::ffi::OsString, std::ffi::OsString)>,
    wrapper: Vec<std::ffi::OsString>,
    /// Proving what could not run: deep verify again, once the reason is dealt with.
    again: String,
    not_run: Vec<NotProven>,
}

/// The three items and the receipt, written into `dir` (the staging directory).
fn verify(
    req: &DeepRequest,
    main: &Receipt,
    dir: &std::path::Path,
    events: &mut EventWriter,
    stages: &mut Vec<StageTime>,
    started: Instant,
) -> Result<DeepReport, DeepError> {
    let fail = |action| failure(&req.run, action);
    let logs = dir.join("checks");
    std::fs::create_dir_all(&logs).map_err(|e| fail("create the deep directory")(&e))?;
    let git = Git::new(&req.repo.root);
    let tmp = loki_core::scratch::Scratch::new("loki-deep-")
        .map_err(|e| fail("create a temporary directory")(&e))?;
    let path = tmp.path().join("checkout");
    git.worktree_add_detached(&path, &main.repo.head_sha)
        .map_err(|e| fail("check out the run's head")(&e))?;
    let checkout = Checkout { git: &git, path };
    let root = checkout.path.clone();
    let mut not_run = Vec::new();
    // The build's checks' box, with its private home and temporary directory in ours.
    let fence = Fence::without_git(&tmp.path().join("box"), &req.repo.root)
        .map_err(|e| fail("prepare the checks' environment")(&e))?;
    let env = fence.check_env(&req.repo);
    let wrapper = confinement(req, &fence, &root, &mut not_run);
    let mut boxed = Sandbox {
        req,
        root: &root,
        logs: &logs,
        env,
        wrapper,
        again: loki_receipt::not_proven::deep(req.run.as_str()),
        not_run,
    };

    let t = Instant::now();
    let suite = full_suite(&mut boxed, events)?;
    stages.push(stage("suite", t));
    let t = Instant::now();
    let (boots, boot_checks) = app_boots(&mut boxed, &tmp.path().join("boot"))?;
    stages.push(stage("boot", t));
    let t = Instant::now();
    let (scan, scan_check) = secret_scan(req, &git, main, &logs, t)?;
    stages.push(stage("scan", t));
    drop(checkout);
    if loki_process::signals::signal_name().is_some() {
        // A boot or suite the signal cut looks like a crash or a failure: nothing is sealed.
        return Err(fail("finish")(&"interrupted"));
    }

    let mut facts = deep_facts(req, main, &suite, &scan);
    facts.checks = suite
        .iter()
        .map(|r| r.receipt_check(CheckRole::Tests))
        .chain(boot_checks)
        .chain(std::iter::once(scan_check))
        .collect();
    facts.extra_not_proven.clone_from(&boxed.not_run);
    facts.time = Time {
        wall_s: started.elapsed().as_secs_f64(),
        stages: stages.clone(),
    };
    let signer = Signer::load_or_create(&req.home, &req.key_env)
        .map_err(|e| fail("load the signing key")(&e))?;
    let builder = ReceiptBuilder::new(facts);
    let sealed = builder
        .seal(dir, events, &signer)
        .map_err(|e| fail("seal the deep receipt")(&e))?;
    let report = DeepReport {
        dir: dir.to_path_buf(),
        receipt: sealed.receipt,
        suite,
        boots,
        scan,
        not_run: boxed.not_run,
    };
    let code = i32::from(report.outcome().exit_code().code());
    events
        .record(
            &RunCompleted::new(report.receipt.verdict)
                .exit_code(code)
                .receipt(report.receipt.receipt_sha256.clone()),
        )
        .map_err(|e| fail("record the end")(&e))?;
    Ok(report)
}

/// Step 1, the full suite: every detected runner in the checkout, each result recorded; a suite
/// that could not run (or none detected) goes to NOT PROVEN.
fn full_suite(
    boxed: &mut Sandbox<'_>,
    events: &mut EventWriter,
) -> Result<Vec<loki_runner::CheckResult>, DeepError> {
    let req = boxed.req;
    let fail = |action| failure(&req.run, action);
    let mut detected = detect(boxed.root).map_err(|e| fail("detect the test suites")(&e))?;
    use_checkout_envs(&mut detected, &req.repo.root);
    let mut opts = RunOptions::new(boxed.logs);
    if let Some(timeout) = req.check_timeout {
        opts.timeout = timeout;
    }
    opts.wrapper.clone_from(&boxed.wrapper);
    opts.env.clone_from(&boxed.env);
    let mut suite = Vec::new();
    for check in &detected {
        let r = run_check(check, &opts).map_err(|e| fail("run a suite")(&e))?;
        events
            .record(
                &loki_events::payload::CheckResult::from(&r)
                    .in_stage(Stage::Deep, CheckRole::Tests),
            )
            .map_err(|e| fail("record a check")(&e))?;
        suite.push(r);
    }
    if detected.is_empty() {
        boxed.not_run.push(NotProven::new(
            "full suite",
            "no test suite was detected (loki doctor lists the test runners loki detects)",
            "loki doctor",
        ));
    }
    let again = &boxed.again;
    boxed.not_run.extend(
        suite
            .iter()
            .filter(|r| r.run.result == CheckStatus::NotRun)
            .map(|r| {
                NotProven::new(
                    format!("full suite: {}", r.run.name),
                    format!(
                        "it could not run ({})",
                        r.reason.as_deref().unwrap_or("no reason given")
                    ),
                    again.clone(),
                )
            }),
    );
    Ok(suite)
}

/// Step 2, the app boot: every start command found, booted in `scratch`, its log written; one
/// receipt check each. No start command, or one that could not run, goes to NOT PROVEN.
fn app_boots(
    boxed: &mut Sandbox<'_>,
    scratch: &std::path::Path,
) -> Result<(Vec<BootResult>, Vec<Check>), DeepError> {
    let req = boxed.req;
    let fail = |action| failure(&req.run, action);
    std::fs::create_dir_all(scratch).map_err(|e| fail("create the boot directory")(&e))?;
    let commands = boot::find_start_commands(boxed.root);
    if commands.is_empty() {
        boxed.not_run.push(NotProven::new(
            "app boot",
            "no start command found (package.json start/serve/dev/preview script, Cargo binary, Go main package, Python __main__.py)",
            format!("add a start command, then {}", boxed.again),
        ));
    }
    let mut boots = Vec::new();
    let mut boot_checks = Vec::new();
    for cmd in &commands {
        let b = boot::boot(
            cmd,
            boxed.root,
            scratch,
            req.boot_window,
            &boxed.env,
            &boxed.wrapper,
        );
        let name = format!("app boot: {}", cmd.ecosystem);
        let mut log = String::new();
        let _ = writeln!(log, "{name} ({})", cmd.why);
        log.push_str(&b.log);
        let _ = writeln!(log, "\n{}", describe_boot(&b.status));
        let log_path = boxed.logs.join(format!("app-boot-{}.log", cmd.ecosystem));
        write_atomic(&log_path, log.as_bytes()).map_err(|e| fail("write the boot log")(&e))?;
        let (result, passed, failed) = match &b.status {
            BootStatus::Booted { .. } => (CheckStatus::Pass, 1, 0),
            BootStatus::Crashed { .. } => (CheckStatus::Fail, 0, 1),
            BootStatus::NotRun { reason } => {
                boxed.not_run.push(NotProven::new(
                    format!("app boot ({})", cmd.ecosystem),
                    format!("it did not run: {reason}"),
                    boxed.again.clone(),
                ));
                (CheckStatus::NotRun, 0, 0)
            }
        };
        boot_checks.push(Check {
            name,
            kind: CheckRole::Boot,
            cmd: cmd.command_line(),
            result,
            executed: passed + failed,
            passed,
            failed,
            skipped: 0,
            duration_s: b.duration_s,
            log_sha256: loki_receipt::schema::sha256_hex(log.as_bytes()),
        });
        boots.push(b);
    }
    Ok((boots, boot_checks))
}

/// Step 3, the secret scan of the change's added lines, its log written into `logs`; the
/// receipt check counts files (a file with a finding fails). `t` is when the step began.
fn secret_scan(
    req: &DeepRequest,
    git: &Git,
    main: &Receipt,
    logs: &std::path::Path,
    t: Instant,
) -> Result<(ScanReport, Check), DeepError> {
    let fail = |action| failure(&req.run, action);
    let patch = git
        .diff_patch_zero_context(&main.repo.base_sha, &main.repo.head_sha)
        .map_err(|e| fail("read the change")(&e))?;
    let scan = secrets::scan_patch(&patch);
    drop(patch);
    let mut scan_log = format!(
        "secret scan of the change {}..{}: {} file(s), {} added line(s)\n",
        main.repo.base_sha, main.repo.head_sha, scan.files, scan.lines
    );
    for f in &scan.findings {
        let _ = writeln!(
            scan_log,
            "{}:{}: {} ({})",
            f.path, f.line, f.rule, f.redacted
        );
    }
    write_atomic(&logs.join("secret-scan.log"), scan_log.as_bytes())
        .map_err(|e| fail("write the scan log")(&e))?;
    let mut files_with: Vec<&str> = scan.findings.iter().map(|f| f.path.as_str()).collect();
    files_with.sort_unstable();
    files_with.dedup();
    let failed_files = files_with.len() as u64;
    let scan_check = Check {
        name: "secret scan".to_string(),
        kind: CheckRole::Secrets,
        cmd: "loki secret rules over the added lines".to_string(),
        result: if scan.findings.is_empty() {
            CheckStatus::Pass
        } else {
            CheckStatus::Fail
        },
        executed: scan.files,
        passed: scan.files.saturating_sub(failed_files),
        failed: failed_files,
        skipped: 0,
        duration_s: t.elapsed().as_secs_f64(),
        log_sha256: loki_receipt::schema::sha256_hex(scan_log.as_bytes()),
    };
    Ok((scan, scan_check))
}

/// The deep receipt's facts that come from the main receipt, the suite and the scan (its
/// checks, NOT PROVEN and time are the caller's).
fn deep_facts(
    req: &DeepRequest,
    main: &Receipt,
    suite: &[loki_runner::CheckResult],
    scan: &ScanReport,
) -> ReceiptFacts {
    let mut facts = ReceiptFacts::new(req.run.as_str(), RunKind::Deep);
    facts.task = main.task.clone();
    facts.repo = main.repo.clone();
    facts.diff = main.diff.clone();
    facts.main_receipt = Some(main.receipt_sha256.clone());
    facts.integrity = scan
        .findings
        .iter()
        .map(|f| IntegrityFinding {
            kind: FindingKind::Secret,
            path: f.path.clone(),
            line: Some(f.line),
            test: None,
            detail: format!("{} ({})", f.rule, f.redacted),
            advice: Some(FindingKind::Secret.advice().to_string()),
        })
        .collect();
    facts.full_suite_ran =
        !suite.is_empty() && suite.iter().all(|r| r.run.result != CheckStatus::NotRun);
    // No model ran: the cost is known to be nothing.
    facts.cost = Cost {
        usd: Some(0.0),
        ..Cost::default()
    };
    facts.provider = "none".to_string();
    facts.model = "none".to_string();
    facts
}

/// The wrapper of the build's checks' box for the checkout `root` (see the module doc), or none
/// with the reason in NOT PROVEN.
fn confinement(
    req: &DeepRequest,
    fence: &Fence,
    root: &std::path::Path,
    not_run: &mut Vec<NotProven>,
) -> Vec<std::ffi::OsString> {
    let Some(exe) = &req.confine_exe else {
        not_run.push(NotProven::new(
            "isolation",
            "the suite and the app ran unconfined (no confinement wrapper)",
            loki_receipt::not_proven::deep(req.run.as_str()),
        ));
        return Vec::new();
    };
    if !loki_process::confine::available() {
        not_run.push(NotProven::new(
            "isolation",
            "Landlock is not available on this kernel, so the suite and the app ran unconfined",
            format!(
                "{} on a kernel with Landlock (Linux 5.13 or later)",
                loki_receipt::not_proven::deep(req.run.as_str())
            ),
        ));
        return Vec::new();
    }
    let secrets = loki_engine::fence::secret_paths(&req.home, &req.key_env);
    fence.checks_wrapper(&req.repo, root, &secrets, exe)
}

fn stage(name: &str, t: Instant) -> StageTime {
    StageTime {
        stage: name.to_string(),
        wall_s: t.elapsed().as_secs_f64(),
    }
}

/// One line for a boot's status (the reason and exit code of a crash; the tail is in the log).
#[must_use]
pub fn describe_boot(status: &BootStatus) -> String {
    match status {
        BootStatus::Booted { how } => format!("booted: {how}"),
        BootStatus::Crashed {
            reason, exit_code, ..
        } => match exit_code {
            Some(c) => format!("crashed on boot: {reason} (exit {c})"),
            None => format!("crashed on boot: {reason}"),
        },
        BootStatus::NotRun { reason } => format!("not run: {reason}"),
    }
}

/// Where a detached deep verify of `run` logs, and where its receipt will be.
#[must_use]
pub fn detached_paths(repo: &Repo, run: &RunId) -> (PathBuf, PathBuf) {
    let dir = repo.run_dir(run);
    (
        dir.join(DEEP_LOG),
        dir.join(DEEP_DIR).join(loki_receipt::builder::RECEIPT_FILE),
    )
}
