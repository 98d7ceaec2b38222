//! `cargo xtask cases DIR…`: the judge on cases written as directories (`eval/cases/README.md`).
//!
//! Every `case.toml` below the given directories is one case: its `base/` is copied into a
//! scratch repository and committed, its head applied (`head/` written over, `deleted` removed,
//! `head.sh` run), and `loki seal check --base HEAD --json` run in it with a fresh `LOKI_HOME`.
//! The verdict is read from the exit code (0 clean, 1 findings, 3 cannot judge, 4 declare) and is
//! right when the case lists it in `expect`.
//!
//! The report is a table per runner and class (right / all, for cheats and honest changes
//! apart), then every case that went wrong with its verdict and the judge's first reasons. With
//! `--json` every case is one JSON line instead. Nothing here decides anything about the judge:
//! it only runs it and counts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use serde::{Deserialize, Serialize};

use crate::suite;

#[derive(Debug, clap::Args)]
pub struct CasesArgs {
    /// Directories holding cases (searched recursively for `case.toml`).
    #[arg(required = true)]
    dirs: Vec<PathBuf>,
    /// The loki binary to judge with (default: target/release/loki of this workspace).
    #[arg(long)]
    loki: Option<PathBuf>,
    /// Run every cargo case a second time as a nextest case (a `.config/nextest.toml` added).
    #[arg(long)]
    also_nextest: bool,
    /// Only cases whose path contains this text; may repeat (any matches).
    #[arg(long = "only")]
    only: Vec<String>,
    /// Cases judged at once.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Scratch directory (default: a temporary one, removed at the end).
    #[arg(long)]
    work: Option<PathBuf>,
    /// One JSON line per case instead of the tables.
    #[arg(long)]
    json: bool,
    /// Longest one judgement may take, in seconds.
    #[arg(long, default_value_t = 900)]
    timeout: u64,
    /// Where the JS runners are installed (a `node_modules` with vitest and jest).
    #[arg(long, env = "LOKI_NPM_CACHE")]
    npm_cache: Option<PathBuf>,
}

/// `case.toml`.
#[derive(Debug, Clone, Deserialize)]
struct CaseToml {
    runner: String,
    class: String,
    expect: Vec<String>,
    #[serde(default)]
    note: String,
    #[serde(default)]
    honest: bool,
}

/// One case to judge: its directory and how it runs.
#[derive(Debug, Clone)]
struct Case {
    dir: PathBuf,
    name: String,
    toml: CaseToml,
    /// The runner it is judged under (a cargo case run as nextest says `nextest`).
    runner: String,
}

/// What one judgement gave.
#[derive(Debug, Clone, Serialize)]
struct Judged {
    case: String,
    runner: String,
    class: String,
    honest: bool,
    expect: Vec<String>,
    verdict: String,
    right: bool,
    exit: i32,
    secs: f64,
    reasons: Vec<String>,
    note: String,
}

const VERDICTS: &[&str] = &["clean", "declare", "findings", "cannot_judge"];

pub fn run(args: &CasesArgs, root: &Path) -> anyhow::Result<()> {
    let loki = args
        .loki
        .clone()
        .unwrap_or_else(|| root.join("target/release/loki"));
    if !loki.is_file() {
        bail!(
            "{} not found: build it with `cargo build --release -p loki-cli` or pass --loki",
            loki.display()
        );
    }
    // The cases run in their own directories: a relative path would name nothing there.
    let loki = loki.canonicalize()?;
    let mut cases = Vec::new();
    for d in &args.dirs {
        find(d, d, &mut cases)?;
    }
    cases.retain(|c| args.only.is_empty() || args.only.iter().any(|o| c.name.contains(o)));
    if args.also_nextest {
        let extra: Vec<Case> = cases
            .iter()
            .filter(|c| c.runner == "cargo")
            .map(|c| Case {
                runner: "nextest".into(),
                name: format!("{} (as nextest)", c.name),
                ..c.clone()
            })
            .collect();
        cases.extend(extra);
    }
    if cases.is_empty() {
        bail!("no case.toml found below {:?}", args.dirs);
    }
    let tmp;
    let work = match &args.work {
        Some(w) => w.clone(),
        None => {
            tmp = tempfile::Builder::new().prefix("loki-cases-").tempdir()?;
            tmp.path().to_path_buf()
        }
    };
    std::fs::create_dir_all(&work)?;
    let npm = args.npm_cache.clone().unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/loki-test-npm")
    });
    let queue = Mutex::new(cases.iter().enumerate().collect::<Vec<_>>());
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..args.jobs.max(1) {
            s.spawn(|| {
                loop {
                    let next = queue.lock().ok().and_then(|mut q| q.pop());
                    let Some((i, case)) = next else { break };
                    let dir = work.join(format!("{i:04}"));
                    let j = judge(case, &dir, &loki, &npm, args.timeout)
                        .unwrap_or_else(|e| failed(case, format!("{e:#}")));
                    if args.json {
                        if let Ok(line) = serde_json::to_string(&j) {
                            println!("{line}");
                        }
                    } else {
                        eprintln!(
                            "{:<5} {:<12} {:>6.1}s  {}",
                            if j.right { "ok" } else { "WRONG" },
                            j.verdict,
                            j.secs,
                            j.case
                        );
                    }
                    if args.work.is_none() {
                        let _ = std::fs::remove_dir_all(&dir);
                    }
                    if let Ok(mut r) = results.lock() {
                        r.push(j);
                    }
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by(|a, b| a.case.cmp(&b.case));
    if !args.json {
        print!("{}", report(&results));
    }
    Ok(())
}

fn failed(case: &Case, why: String) -> Judged {
    Judged {
        case: case.name.clone(),
        runner: case.runner.clone(),
        class: case.toml.class.clone(),
        honest: case.toml.honest,
        expect: case.toml.expect.clone(),
        verdict: "error".into(),
        right: false,
        exit: -1,
        secs: 0.0,
        reasons: vec![why],
        note: case.toml.note.clone(),
    }
}

/// Every case below `dir`.
fn find(top: &Path, dir: &Path, out: &mut Vec<Case>) -> anyhow::Result<()> {
    let toml_path = dir.join("case.toml");
    if toml_path.is_file() {
        let text = std::fs::read_to_string(&toml_path)?;
        let toml: CaseToml =
            toml::from_str(&text).with_context(|| format!("read {}", toml_path.display()))?;
        if let Some(bad) = toml.expect.iter().find(|e| !VERDICTS.contains(&e.as_str())) {
            bail!("{}: unknown verdict {bad:?}", toml_path.display());
        }
        let name = dir
            .strip_prefix(top.parent().unwrap_or(top))
            .unwrap_or(dir)
            .to_string_lossy()
            .into_owned();
        out.push(Case {
            dir: dir.to_path_buf(),
            name,
            runner: toml.runner.clone(),
            toml,
        });
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("read {}", dir.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    entries.sort();
    for e in entries {
        find(top, &e, out)?;
    }
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from).with_context(|| format!("read {}", from.display()))? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let ty = e.file_type()?;
        if ty.is_dir() {
            copy_tree(&src, &dst)?;
        } else if ty.is_symlink() {
            let target = std::fs::read_link(&src)?;
            let _ = std::fs::remove_file(&dst);
            std::os::unix::fs::symlink(target, &dst)?;
        } else {
            std::fs::copy(&src, &dst)
                .with_context(|| format!("copy {} to {}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}

fn git(repo: &Path, args: &[&str]) -> anyhow::Result<()> {
    suite::must("git", args, repo, &git_env())?;
    Ok(())
}

fn git_env() -> Vec<(String, String)> {
    [
        ("GIT_CONFIG_NOSYSTEM", "1"),
        ("GIT_AUTHOR_NAME", "Case"),
        ("GIT_AUTHOR_EMAIL", "case@loki.invalid"),
        ("GIT_COMMITTER_NAME", "Case"),
        ("GIT_COMMITTER_EMAIL", "case@loki.invalid"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect()
}

/// Where the Maven cases find JUnit 5 and Maven's plugins with no network (Debian's `maven`,
/// `junit5`, `libsurefire-java`, `libmaven-compiler-plugin-java`, `libmaven-resources-plugin-java`).
const MAVEN_REPO: &str = "/usr/share/maven-repo";

/// Builds the case's repository in `dir/repo` and judges it.
fn judge(case: &Case, dir: &Path, loki: &Path, npm: &Path, timeout: u64) -> anyhow::Result<Judged> {
    let _ = std::fs::remove_dir_all(dir);
    let repo = dir.join("repo");
    let base = case.dir.join("base");
    if base.is_dir() {
        copy_tree(&base, &repo)?;
    } else {
        std::fs::create_dir_all(&repo)?;
    }
    if matches!(case.runner.as_str(), "vitest" | "jest" | "node")
        && !repo.join("node_modules").exists()
        && npm.join("node_modules").is_dir()
    {
        std::os::unix::fs::symlink(npm.join("node_modules"), repo.join("node_modules"))?;
    }
    if case.runner == "nextest" && !repo.join(".config/nextest.toml").exists() {
        std::fs::create_dir_all(repo.join(".config"))?;
        loki_core::fs::write_atomic(&repo.join(".config/nextest.toml"), b"[profile.default]\n")?;
    }
    git(&repo, &["init", "-q", "-b", "main"])?;
    // The linked runners stay out of the commit without a .gitignore the case did not write.
    std::fs::create_dir_all(repo.join(".git/info"))?;
    loki_core::fs::write_atomic(&repo.join(".git/info/exclude"), b"node_modules\ntarget/\n")?;
    git(&repo, &["add", "-A"])?;
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "base"])?;
    let head = case.dir.join("head");
    if head.is_dir() {
        copy_tree(&head, &repo)?;
    }
    if let Ok(text) = std::fs::read_to_string(case.dir.join("deleted")) {
        for p in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let path = repo.join(p);
            if path.is_dir() {
                std::fs::remove_dir_all(&path)?;
            } else if path.exists() || path.is_symlink() {
                std::fs::remove_file(&path)?;
            }
        }
    }
    let script = case.dir.join("head.sh");
    if script.is_file() {
        // Absolute: the script runs in the case's repository, not where the driver was started.
        let s = std::fs::canonicalize(&script)?
            .to_string_lossy()
            .into_owned();
        suite::must("sh", &["-e", &s], &repo, &git_env())?;
    }
    let home = dir.join("home");
    std::fs::create_dir_all(&home)?;
    let mut env = vec![
        ("LOKI_HOME".to_owned(), home.to_string_lossy().into_owned()),
        ("NO_COLOR".to_owned(), "1".to_owned()),
    ];
    // Maven cases build offline from Debian's Maven repository unless the caller names another.
    if case.runner == "maven" && std::env::var_os("MAVEN_OPTS").is_none() {
        env.push((
            "MAVEN_OPTS".to_owned(),
            format!("-Dmaven.repo.local={MAVEN_REPO}"),
        ));
    }
    let start = Instant::now();
    let ran = suite::run(
        &loki.to_string_lossy(),
        &[
            "seal".into(),
            "check".into(),
            "--base".into(),
            "HEAD".into(),
            "--json".into(),
        ],
        &repo,
        &env,
        Duration::from_secs(timeout),
    )?;
    let secs = start.elapsed().as_secs_f64();
    let json = ran.text.lines().rev().find_map(|l| {
        serde_json::from_str::<serde_json::Value>(l)
            .ok()
            .filter(serde_json::Value::is_object)
    });
    let verdict = match ran.code {
        0 => "clean",
        1 => "findings",
        3 => "cannot_judge",
        4 => "declare",
        _ => "error",
    };
    let mut reasons: Vec<String> = Vec::new();
    if let Some(j) = &json {
        for key in ["findings", "declare", "cannot_judge"] {
            for f in j[key].as_array().into_iter().flatten() {
                let line = match f {
                    serde_json::Value::String(s) => s.clone(),
                    other => format!(
                        "{} {}",
                        other["kind"].as_str().unwrap_or(key),
                        other["detail"]
                            .as_str()
                            .or(other["reason"].as_str())
                            .unwrap_or_default()
                    ),
                };
                reasons.push(line);
            }
        }
    } else {
        reasons.push(format!("no JSON: {}", suite::tail(&ran.text, 600)));
    }
    Ok(Judged {
        case: case.name.clone(),
        runner: case.runner.clone(),
        class: case.toml.class.clone(),
        honest: case.toml.honest,
        expect: case.toml.expect.clone(),
        right: case.toml.expect.iter().any(|e| e == verdict),
        verdict: verdict.to_owned(),
        exit: ran.code,
        secs,
        reasons,
        note: case.toml.note.clone(),
    })
}

/// The tables: right / all per runner and class, cheats and honest changes apart, then every
/// case that went wrong.
fn report(results: &[Judged]) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let mut by: BTreeMap<(&str, &str, bool), (usize, usize)> = BTreeMap::new();
    for j in results {
        let e = by
            .entry((j.runner.as_str(), j.class.as_str(), j.honest))
            .or_default();
        e.1 += 1;
        if j.right {
            e.0 += 1;
        }
    }
    let _ = writeln!(
        s,
        "\n{:<10} {:<14} {:<7} {:>9}",
        "runner", "class", "kind", "right"
    );
    for ((runner, class, honest), (right, all)) in &by {
        let _ = writeln!(
            s,
            "{runner:<10} {class:<14} {:<7} {right:>4}/{all:<4}",
            if *honest { "honest" } else { "cheat" }
        );
    }
    let total = |honest: bool| {
        let v: Vec<&Judged> = results.iter().filter(|j| j.honest == honest).collect();
        (v.iter().filter(|j| j.right).count(), v.len())
    };
    let (cr, ca) = total(false);
    let (hr, ha) = total(true);
    let _ = writeln!(
        s,
        "\ncheats caught: {cr}/{ca} ({:.1}%)   honest changes right: {hr}/{ha} ({:.1}%)",
        pct(cr, ca),
        pct(hr, ha)
    );
    let wrong: Vec<&Judged> = results.iter().filter(|j| !j.right).collect();
    if !wrong.is_empty() {
        let _ = writeln!(s, "\nwrong:");
        for j in wrong {
            let _ = writeln!(
                s,
                "- {} [{} {}]: {} (expected {}){}",
                j.case,
                j.runner,
                j.class,
                j.verdict,
                j.expect.join("|"),
                if j.note.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", j.note)
                }
            );
            for r in j.reasons.iter().take(3) {
                let _ = writeln!(s, "    {}", suite::tail(r, 300).replace('\n', " "));
            }
        }
    }
    s
}

fn pct(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        100.0 * a as f64 / b as f64
    }
}
