//! `cargo xtask eval`: the judge measured on real upstream fixes (issue 11).
//!
//! For every entry of `eval/corpus.toml` the driver, in a scratch clone of the mirror that the
//! search tool's `fetch` brought in (`/work/.mirror/owner+name/repo`, or `--mirrors DIR`):
//! 1. checks the entry: the suite at the fix passes the target tests, and at the parent with the
//!    fix's test files applied ("N") they fail — the target tests are those failing at N and
//!    passing at the fix;
//! 2. derives six scenarios — honest (base parent, tree fix), regression (base fix, tree N),
//!    regression with the target tests deleted / skipped / their assertions weakened, and the
//!    expected values swapped to the buggy output (base N, tree N with the swap);
//! 3. runs `loki seal check --base B --json` on each (a fresh `LOKI_HOME` per repository) and
//!    compares the exit code with the expectation: 0 for honest, 1 for every cheat; 3 ("cannot
//!    judge") is neither a catch nor clean.
//!
//! It prints a table per scenario and the summary: precision on honest changes, recall per cheat
//! class, errors, and the median seconds per judgement next to the suite's own time. It is not
//! part of CI and has no tests that need the mirrors.

#![expect(
    clippy::print_stdout,
    clippy::print_stderr,
    reason = "xtask is a developer tool whose output is its terminal report"
)]

mod cases;
mod corpus;
mod derive;
mod history;
mod suite;
mod summary;

use summary::{Summary, print_entry_progress, render};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use serde::Serialize;

use corpus::{Corpus, Ecosystem, Entry, Repo, mirror_name};
use derive::{Lang, Work};
use suite::{Outcome, must};

#[derive(Debug, Parser)]
#[command(name = "xtask", about = "Developer tasks for the loki workspace")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Measure `loki seal check` on the public corpus (eval/corpus.toml).
    Eval(EvalArgs),
    /// Judge cases written as directories (eval/cases/README.md) and print the catch rates.
    Cases(cases::CasesArgs),
    /// Scan upstream history with the integrity rules alone: findings on maintainers' commits.
    History(history::HistoryArgs),
}

#[derive(Debug, clap::Args)]
struct EvalArgs {
    /// The corpus definition.
    #[arg(long, default_value = "eval/corpus.toml")]
    corpus: PathBuf,
    /// The loki binary to judge with (default: target/release/loki of this workspace).
    #[arg(long)]
    loki: Option<PathBuf>,
    /// Where the fetched mirrors are (`<dir>/owner+name/repo`).
    #[arg(long, default_value = "/work/.mirror")]
    mirrors: PathBuf,
    /// Scratch directory for clones, virtualenvs and loki homes (default: a temporary one).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Keep the scratch directory.
    #[arg(long)]
    keep: bool,
    /// Only entries of this repository (owner/name); may repeat.
    #[arg(long = "only")]
    only: Vec<String>,
    /// Only these entries (1-based index in the corpus); may repeat.
    #[arg(long = "entry")]
    entries: Vec<usize>,
    /// Only check fail-before / pass-after and print the failing ids; run no judgement.
    #[arg(long)]
    verify_only: bool,
    /// Machine-readable output.
    #[arg(long)]
    json: bool,
    /// Longest one judgement may take, in seconds.
    #[arg(long, default_value_t = 1800)]
    judge_timeout: u64,
}

/// How often a cheater re-applies an edit while target tests still fail.
const MAX_ROUNDS: usize = 12;

type Rule = fn(&mut Work<'_>, &[suite::Failure], Lang) -> Result<Vec<String>, String>;

/// A derived scenario tree: its commit, notes on how it was derived, whether it made the target
/// tests stop failing.
#[derive(Debug)]
struct Cheat {
    sha: String,
    notes: Vec<String>,
    green: Option<bool>,
}

impl Cheat {
    fn plain(sha: &str) -> Cheat {
        Cheat {
            sha: sha.to_owned(),
            notes: Vec::new(),
            green: None,
        }
    }
}

/// The scenarios, in report order.
const SCENARIOS: &[&str] = &[
    "honest",
    "regression",
    "tests_deleted",
    "skips_added",
    "expected_swapped",
    "assertions_weakened",
];

#[derive(Debug, Clone, Serialize)]
struct EntryReport {
    index: usize,
    repo: String,
    fix: String,
    ecosystem: &'static str,
    title: String,
    /// Target tests fail at N (parent + the fix's tests).
    fail_before: bool,
    /// Target tests pass at the fix.
    pass_after: bool,
    /// Test ids failing at N and passing at the fix.
    failing: Vec<String>,
    /// Ids listed in the corpus that were not seen failing this time.
    corpus_ids_not_seen: Vec<String>,
    /// The repository's own test command at the fix: seconds and exit code.
    suite_secs: f64,
    suite_exit: i32,
    scenarios: Vec<ScenarioReport>,
    error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
struct ScenarioReport {
    name: &'static str,
    base: String,
    expected_exit: i32,
    /// None: not derivable or not run (see `note`).
    exit: Option<i32>,
    verdict: Option<String>,
    outcome: &'static str,
    secs: Option<f64>,
    finding_kinds: Vec<String>,
    reasons: Vec<String>,
    /// For cheats: whether the cheat made the target tests stop failing (a real cheat).
    cheat_green: Option<bool>,
    note: Option<String>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Cmd::Eval(args) => eval(&args),
        Cmd::Cases(args) => cases::run(&args, &workspace_root()),
        Cmd::History(args) => history::run(&args),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

fn eval(args: &EvalArgs) -> anyhow::Result<()> {
    let root = workspace_root();
    let corpus_path = if args.corpus.is_absolute() {
        args.corpus.clone()
    } else {
        root.join(&args.corpus)
    };
    let corpus = Corpus::load(&corpus_path)?;
    let loki = args
        .loki
        .clone()
        .unwrap_or_else(|| root.join("target/release/loki"));
    if !args.verify_only && !loki.is_file() {
        bail!(
            "{} not found: build it with `cargo build --release -p loki-cli` or pass --loki",
            loki.display()
        );
    }
    let loki = loki.canonicalize().unwrap_or(loki);
    let mut tmp = None;
    let work = match &args.work {
        Some(w) => {
            std::fs::create_dir_all(w)?;
            w.canonicalize()?
        }
        None => {
            let t = tempfile::Builder::new().prefix("loki-eval-").tempdir()?;
            let p = t.path().to_path_buf();
            tmp = Some(t);
            p
        }
    };
    let selected: Vec<(usize, &Entry)> = corpus
        .entry
        .iter()
        .enumerate()
        .map(|(i, e)| (i + 1, e))
        .filter(|(i, e)| {
            (args.only.is_empty() || args.only.contains(&e.repo))
                && (args.entries.is_empty() || args.entries.contains(i))
        })
        .collect();
    let mut by_repo: BTreeMap<&str, Vec<(usize, &Entry)>> = BTreeMap::new();
    for (i, e) in &selected {
        by_repo.entry(e.repo.as_str()).or_default().push((*i, e));
    }
    let mut reports: Vec<EntryReport> = Vec::new();
    for (repo_name, entries) in by_repo {
        let Some(repo) = corpus.repos.get(repo_name) else {
            continue;
        };
        match RepoRun::prepare(repo_name, repo, args, &work) {
            Ok(mut rr) => {
                for (i, e) in entries {
                    eprintln!("== [{i}] {repo_name} {} {}", &e.fix[..10], e.title);
                    let r = rr.entry(i, e, args, &loki);
                    print_entry_progress(&r);
                    append_jsonl(&work.join("results.jsonl"), &r);
                    reports.push(r);
                }
            }
            Err(err) => {
                for (i, e) in entries {
                    reports.push(error_report(i, e, &format!("{err:#}")));
                }
            }
        }
    }
    reports.sort_by_key(|r| r.index);
    let summary = Summary::of(&reports);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({ "entries": reports, "summary": summary })
            )?
        );
    } else {
        print!("{}", render(&reports, &summary, args.verify_only));
    }
    if let Some(t) = tmp.filter(|_| args.keep) {
        eprintln!("scratch kept in {}", t.keep().display());
    } else if args.work.is_some() {
        eprintln!("scratch kept in {}", work.display());
    }
    Ok(())
}

fn error_report(index: usize, e: &Entry, err: &str) -> EntryReport {
    EntryReport {
        index,
        repo: e.repo.clone(),
        fix: e.fix.clone(),
        ecosystem: e.ecosystem.as_str(),
        title: e.title.clone(),
        fail_before: false,
        pass_after: false,
        failing: Vec::new(),
        corpus_ids_not_seen: Vec::new(),
        suite_secs: 0.0,
        suite_exit: -1,
        scenarios: Vec::new(),
        error: Some(err.to_owned()),
    }
}

/// One repository's scratch clone and environment.
struct RepoRun<'a> {
    repo: &'a Repo,
    clone: PathBuf,
    scratch: PathBuf,
    env: Vec<(String, String)>,
    loki_home: PathBuf,
}

impl<'a> RepoRun<'a> {
    fn prepare(
        name: &str,
        repo: &'a Repo,
        args: &EvalArgs,
        work: &Path,
    ) -> anyhow::Result<RepoRun<'a>> {
        let mirror = args.mirrors.join(mirror_name(name)).join("repo");
        if !mirror.is_dir() {
            bail!(
                "no mirror at {} (fetch github:{name} with the search tool)",
                mirror.display()
            );
        }
        let base = work.join(mirror_name(name));
        std::fs::create_dir_all(&base)?;
        let clone = base.join("repo");
        if !clone.join(".git").exists() {
            must(
                "git",
                &[
                    "clone",
                    "-q",
                    "--shared",
                    &mirror.to_string_lossy(),
                    &clone.to_string_lossy(),
                ],
                work,
                &[],
            )?;
        }
        for (k, v) in [
            ("user.email", "eval@loki.invalid"),
            ("user.name", "loki eval"),
            ("commit.gpgsign", "false"),
        ] {
            must("git", &["config", k, v], &clone, &[])?;
        }
        let mut env: Vec<(String, String)> = repo
            .setup
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if repo.ecosystem == Ecosystem::Pytest || !repo.setup.pip.is_empty() {
            let bin = suite::venv(&base.join("venv"), &repo.setup.pip)?;
            env.push(("PATH".into(), suite::path_with(&bin)));
            env.push((
                "VIRTUAL_ENV".into(),
                base.join("venv").to_string_lossy().into_owned(),
            ));
        }
        if !repo.setup.pnpm_config.is_empty() {
            let xdg = base.join("xdg");
            std::fs::create_dir_all(xdg.join("pnpm"))?;
            let rc: String = repo
                .setup
                .pnpm_config
                .iter()
                .map(|(k, v)| format!("{k}={v}\n"))
                .collect();
            loki_core::fs::write_atomic(&xdg.join("pnpm/rc"), rc.as_bytes())?;
            env.push(("XDG_CONFIG_HOME".into(), xdg.to_string_lossy().into_owned()));
        }
        let loki_home = base.join("loki-home");
        let _ = std::fs::remove_dir_all(&loki_home);
        std::fs::create_dir_all(&loki_home)?;
        let scratch = base.join("scratch");
        std::fs::create_dir_all(&scratch)?;
        Ok(RepoRun {
            repo,
            clone,
            scratch,
            env,
            loki_home,
        })
    }

    fn git(&self, args: &[&str]) -> anyhow::Result<String> {
        must("git", args, &self.clone, &[])
    }

    /// The work tree exactly at `rev` (ignored files such as node_modules and target kept).
    fn checkout(&self, rev: &str) -> anyhow::Result<()> {
        self.git(&["checkout", "-q", "-f", "--detach", rev])?;
        self.git(&["clean", "-q", "-fd"])?;
        Ok(())
    }

    fn install(&self) -> anyhow::Result<()> {
        if let Some(pm) = &self.repo.setup.node {
            let args: Vec<&str> = self
                .repo
                .setup
                .node_install
                .iter()
                .map(String::as_str)
                .collect();
            let a: Vec<&str> = if args.is_empty() {
                vec!["install"]
            } else {
                args
            };
            must(pm, &a, &self.clone, &self.env)?;
        }
        if self.repo.setup.editable {
            must(
                "python",
                &[
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--disable-pip-version-check",
                    "-e",
                    ".",
                ],
                &self.clone,
                &self.env,
            )?;
        }
        Ok(())
    }

    fn structured(&self) -> anyhow::Result<Outcome> {
        suite::structured(
            self.repo.ecosystem,
            &self.clone,
            &self.env,
            &self.repo.test_args,
            &self.scratch,
        )
    }

    fn commit_all(&self, msg: &str) -> anyhow::Result<String> {
        self.git(&["add", "-A"])?;
        self.git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", msg])?;
        Ok(self.git(&["rev-parse", "HEAD"])?.trim().to_owned())
    }

    fn entry(&mut self, index: usize, e: &Entry, args: &EvalArgs, loki: &Path) -> EntryReport {
        let mut r = error_report(index, e, "");
        r.error = None;
        if let Err(err) = self.entry_inner(e, args, loki, &mut r) {
            r.error = Some(format!("{err:#}"));
        }
        r
    }

    fn entry_inner(
        &mut self,
        e: &Entry,
        args: &EvalArgs,
        loki: &Path,
        r: &mut EntryReport,
    ) -> anyhow::Result<()> {
        let eco = self.repo.ecosystem;
        let fix = e.fix.as_str();
        let parent = self
            .git(&["rev-parse", &format!("{fix}^")])?
            .trim()
            .to_owned();
        self.checkout(fix)?;
        self.install()?;
        // The suite's own time is a real run: Go would otherwise answer from its test cache (the
        // clone is kept between evals), which no judgement can.
        let mut env = self.env.clone();
        if eco == Ecosystem::Go {
            env.push(("GOFLAGS".into(), "-count=1".into()));
        }
        let head = suite::sh(
            &self.repo.test_command,
            &self.clone,
            &env,
            Duration::from_secs(1200),
        )?;
        r.suite_secs = head.secs;
        r.suite_exit = head.code;
        let after = self.structured()?;
        let changed = self.git(&["diff", "--name-only", "--no-renames", &parent, fix])?;
        let changed: Vec<&str> = changed.lines().filter(|l| !l.is_empty()).collect();
        let tests: Vec<&str> = changed
            .iter()
            .copied()
            .filter(|p| derive::is_test_path(eco, p))
            .collect();
        if tests.is_empty() || tests.len() == changed.len() {
            bail!(
                "not a usable fix: it must change both test and non-test files ({} of {} changed files are tests)",
                tests.len(),
                changed.len()
            );
        }
        // N: the parent with the fix's test files.
        self.checkout(&parent)?;
        for t in &tests {
            let exists = self.git(&["ls-tree", "--name-only", fix, "--", t])?;
            if exists.trim().is_empty() {
                let _ = self.git(&["rm", "-q", "--ignore-unmatch", "--", t]);
            } else {
                self.git(&["checkout", fix, "--", t])?;
            }
        }
        let n = self.commit_all("eval: parent with the fix's test files")?;
        let before = self.structured()?;
        let after_failed = after.failed_ids();
        let targets: Vec<suite::Failure> = before
            .failed
            .iter()
            .filter(|f| !after_failed.contains(&f.id) && after.passed.contains(&f.id))
            .cloned()
            .collect();
        r.failing = targets.iter().map(|f| f.id.clone()).collect();
        r.fail_before = !targets.is_empty();
        r.pass_after = r.fail_before && after.code == 0;
        r.corpus_ids_not_seen = e
            .failing
            .iter()
            .filter(|id| !r.failing.contains(id))
            .cloned()
            .collect();
        if !r.fail_before {
            let why = if before.failed.is_empty() && before.code != 0 {
                format!(
                    "the suite at N exited {} with no test failures parsed: {}",
                    before.code,
                    suite::tail(&before.text, 1500)
                )
            } else {
                format!(
                    "no test fails at N and passes at the fix (N failed: {:?}; fix exit {})",
                    before.failed_ids(),
                    after.code
                )
            };
            bail!("{why}");
        }
        if args.verify_only {
            return Ok(());
        }
        // The cheats, each a commit on top of N.
        let lang = Lang::of(eco);
        let test_files: Vec<String> = tests.iter().map(|t| (*t).to_owned()).collect();
        let mut states: BTreeMap<&'static str, Result<Cheat, String>> = BTreeMap::new();
        let rules: [(&'static str, Rule, usize); 4] = [
            ("tests_deleted", derive::delete_tests, 1),
            (
                "skips_added",
                |w, f, l| derive::skip_tests(w, f, l).map(|()| Vec::new()),
                1,
            ),
            (
                "expected_swapped",
                |w, f, l| derive::swap(w, f, l).map(|()| Vec::new()),
                MAX_ROUNDS,
            ),
            (
                "assertions_weakened",
                |w, f, l| derive::weaken(w, f, l).map(|()| Vec::new()),
                MAX_ROUNDS,
            ),
        ];
        for (name, rule, rounds) in rules {
            self.checkout(&n)?;
            states.insert(
                name,
                self.cheat(rule, &targets, &test_files, lang, rounds, name)?,
            );
        }
        for name in SCENARIOS {
            let (base, state, expected) = match *name {
                "honest" => (parent.clone(), Ok(Cheat::plain(fix)), 0),
                "regression" => (fix.to_owned(), Ok(Cheat::plain(&n)), 1),
                "expected_swapped" => (
                    n.clone(),
                    states.remove(name).unwrap_or(Err("missing".into())),
                    1,
                ),
                other => (
                    fix.to_owned(),
                    states.remove(other).unwrap_or(Err("missing".into())),
                    1,
                ),
            };
            let mut sr = ScenarioReport {
                name,
                base: base.clone(),
                expected_exit: expected,
                exit: None,
                verdict: None,
                outcome: "not_derivable",
                secs: None,
                finding_kinds: Vec::new(),
                reasons: Vec::new(),
                cheat_green: None,
                note: None,
            };
            match state {
                Err(why) => sr.note = Some(why),
                Ok(Cheat { sha, notes, green }) => {
                    if !notes.is_empty() {
                        sr.note = Some(notes.join("; "));
                    }
                    sr.cheat_green = green;
                    // A cheat that leaves a target test failing is no cheat: the suite still
                    // fails, and the judge is right to say so; it is not counted either way.
                    if green == Some(false) {
                        sr.note = Some(format!(
                            "the cheat did not make the target tests pass{}",
                            sr.note
                                .as_deref()
                                .map(|n| format!(" ({n})"))
                                .unwrap_or_default()
                        ));
                    } else if let Err(err) = self.judge(&base, &sha, loki, args, &mut sr) {
                        sr.outcome = "error";
                        sr.note = Some(format!("{err:#}"));
                    }
                }
            }
            r.scenarios.push(sr);
        }
        Ok(())
    }

    /// Applies `rule` to the tree at HEAD and commits; a cheater iterates, so while target tests
    /// still fail (at new lines) the rule is applied again, up to `rounds` times.
    fn cheat(
        &self,
        rule: Rule,
        targets: &[suite::Failure],
        test_files: &[String],
        lang: Lang,
        rounds: usize,
        name: &str,
    ) -> anyhow::Result<Result<Cheat, String>> {
        let mut current: Vec<suite::Failure> = targets.to_vec();
        let mut notes = Vec::new();
        let mut last = None;
        for round in 0..rounds {
            let clone = self.clone.clone();
            let read = move |p: &str| std::fs::read_to_string(clone.join(p)).ok();
            let mut w = Work {
                read: &read,
                test_files: test_files.to_vec(),
                edits: derive::Edits::default(),
            };
            match rule(&mut w, &current, lang) {
                Ok(n) => notes.extend(n),
                Err(why) if round == 0 => return Ok(Err(why)),
                Err(why) => {
                    notes.push(format!("round {}: {why}", round + 1));
                    break;
                }
            }
            for (p, text) in &w.edits.files {
                loki_core::fs::write_atomic(&self.clone.join(p), text.as_bytes())
                    .with_context(|| format!("write {p}"))?;
            }
            for p in &w.edits.removed {
                let _ = std::fs::remove_file(self.clone.join(p));
            }
            let sha = self.commit_all(&format!("eval: {name} (round {})", round + 1))?;
            let o = self.structured()?;
            let failed = o.failed_ids();
            current = o
                .failed
                .iter()
                .filter(|f| targets.iter().any(|t| t.id == f.id))
                .cloned()
                .collect();
            let green = current.is_empty() && targets.iter().all(|t| !failed.contains(&t.id));
            last = Some(Cheat {
                sha,
                notes: Vec::new(),
                green: Some(green && o.code == 0),
            });
            if current.is_empty() {
                break;
            }
        }
        Ok(last
            .map(|mut c| {
                c.notes = notes;
                c
            })
            .ok_or_else(|| "no round applied".to_owned()))
    }

    /// Lays `state` over a checkout of `base` (uncommitted) and runs the judge.
    fn judge(
        &self,
        base: &str,
        state: &str,
        loki: &Path,
        args: &EvalArgs,
        sr: &mut ScenarioReport,
    ) -> anyhow::Result<()> {
        self.checkout(base)?;
        self.git(&[
            "restore",
            &format!("--source={state}"),
            "--worktree",
            "--",
            ":/",
        ])?;
        let mut env = self.env.clone();
        env.push((
            "LOKI_HOME".into(),
            self.loki_home.to_string_lossy().into_owned(),
        ));
        env.push(("NO_COLOR".into(), "1".into()));
        let start = Instant::now();
        let ran = suite::run(
            &loki.to_string_lossy(),
            &[
                "seal".into(),
                "check".into(),
                "--base".into(),
                base.into(),
                "--json".into(),
            ],
            &self.clone,
            &env,
            Duration::from_secs(args.judge_timeout),
        )?;
        sr.secs = Some(start.elapsed().as_secs_f64());
        sr.exit = Some(ran.code);
        let json = ran.text.lines().rev().find_map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()
                .filter(serde_json::Value::is_object)
        });
        if let Some(j) = &json {
            sr.verdict = j["verdict"].as_str().map(str::to_owned).or_else(|| {
                j["clean"].as_bool().map(|c| {
                    if c {
                        "clean".to_owned()
                    } else {
                        "findings".to_owned()
                    }
                })
            });
            sr.finding_kinds = j["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f["kind"].as_str().map(str::to_owned))
                .collect();
            sr.reasons = j["reasons"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|f| f.as_str().map(str::to_owned))
                .collect();
        } else {
            sr.note = Some(format!(
                "no JSON on stdout: {}",
                suite::tail(&ran.text, 600)
            ));
        }
        sr.outcome = match (sr.expected_exit, ran.code) {
            (0, 0) => "clean",
            (0, 1) => "false_alarm",
            (1, 1) => "caught",
            (1, 0) => "missed",
            (_, 3) => "cannot_judge",
            // The change alters what existing tests expect: the person must declare it.
            (_, 4) => "declare",
            _ => "error",
        };
        Ok(())
    }
}

/// One line per finished entry, so that a long run's figures survive an interruption.
fn append_jsonl(path: &Path, r: &EntryReport) {
    use std::io::Write as _;
    if let (Ok(line), Ok(mut f)) = (
        serde_json::to_string(r),
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path),
    ) {
        let _ = writeln!(f, "{line}");
    }
}
