//! Running a suite in a scratch clone and reading which tests failed, where and with what values.
//!
//! Each ecosystem runs through its structured reporter (pytest JUnit XML, `go test -json`,
//! vitest/jest JSON) or, for cargo, libtest's text; a [`Failure`] carries the test id, the test
//! file and the line of the failing check inside it, and the raw failure text from which the
//! edits derive the expected and observed values.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use loki_process::{self as process, Spec};

use crate::corpus::Ecosystem;

/// The longest a single suite run may take.
const SUITE_TIMEOUT: Duration = Duration::from_secs(20 * 60);
/// Output kept per run; the structured reports are files, so this only bounds the text.
const OUTPUT_CAP: usize = 64 * 1024 * 1024;

/// One finished command.
#[derive(Debug, Clone)]
pub struct Ran {
    pub code: i32,
    pub secs: f64,
    pub text: String,
}

/// Runs `program args` in `cwd` with the process environment plus `env`.
pub fn run(
    program: &str,
    args: &[String],
    cwd: &Path,
    env: &[(String, String)],
    timeout: Duration,
) -> anyhow::Result<Ran> {
    // One entry per name, the override last; a program name resolves on the child's PATH.
    let mut all: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(k, _)| !env.iter().any(|(n, _)| OsString::from(n) == *k))
        .collect();
    all.extend(env.iter().map(|(k, v)| (k.into(), v.into())));
    let program = match env.iter().rev().find(|(k, _)| k == "PATH") {
        Some((_, path)) if !program.contains('/') => std::env::split_paths(path)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
            .map_or_else(|| program.to_owned(), |p| p.to_string_lossy().into_owned()),
        _ => program.to_owned(),
    };
    let program = program.as_str();
    let spec = Spec::new(program, cwd)
        .args(args.iter().map(OsString::from))
        .envs(all)
        .timeout(timeout)
        .output_cap(OUTPUT_CAP);
    let out = process::run(&spec).with_context(|| format!("run {program} in {}", cwd.display()))?;
    Ok(Ran {
        code: out.exit_code(),
        secs: out.duration.as_secs_f64(),
        text: out.output.text(),
    })
}

/// Runs a shell command line (the repository's own test command).
pub fn sh(
    line: &str,
    cwd: &Path,
    env: &[(String, String)],
    timeout: Duration,
) -> anyhow::Result<Ran> {
    run("sh", &["-c".into(), line.into()], cwd, env, timeout)
}

/// Runs `program args` and fails unless it exits 0.
pub fn must(
    program: &str,
    args: &[&str],
    cwd: &Path,
    env: &[(String, String)],
) -> anyhow::Result<String> {
    let args: Vec<String> = args.iter().map(|s| (*s).to_owned()).collect();
    let r = run(program, &args, cwd, env, SUITE_TIMEOUT)?;
    if r.code != 0 {
        anyhow::bail!(
            "`{program} {}` in {} exited {}: {}",
            args.join(" "),
            cwd.display(),
            r.code,
            tail(&r.text, 2000)
        );
    }
    Ok(r.text)
}

/// The last `n` bytes of `s`, on a char boundary.
pub fn tail(s: &str, n: usize) -> &str {
    let mut i = s.len().saturating_sub(n);
    while !s.is_char_boundary(i) {
        i += 1;
    }
    &s[i..]
}

/// A failing test as the runner reported it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Failure {
    pub id: String,
    /// The test function's name (pytest's without parameters, Go's top-level test, Rust's last
    /// path segment, JS's title).
    pub name: String,
    /// The test file, relative to the clone, when known.
    pub file: Option<String>,
    /// The line of the failing check in `file`, when the report gives it.
    pub line: Option<u32>,
    /// The runner's failure text.
    pub text: String,
}

/// The outcome of one structured suite run.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub code: i32,
    pub secs: f64,
    pub passed: BTreeSet<String>,
    pub failed: Vec<Failure>,
    /// The raw text, for reports when nothing could be parsed.
    pub text: String,
}

impl Outcome {
    pub fn failed_ids(&self) -> BTreeSet<String> {
        self.failed.iter().map(|f| f.id.clone()).collect()
    }
}

/// Runs the suite of `eco` in `dir` through its structured reporter.
pub fn structured(
    eco: Ecosystem,
    dir: &Path,
    env: &[(String, String)],
    extra: &[String],
    scratch: &Path,
) -> anyhow::Result<Outcome> {
    let report = scratch.join(format!("report-{}.out", std::process::id()));
    let _ = std::fs::remove_file(&report);
    let rep = report.to_string_lossy().into_owned();
    let (program, mut args): (String, Vec<String>) = match eco {
        Ecosystem::Pytest => (
            "python".into(),
            vec![
                "-m".into(),
                "pytest".into(),
                "-p".into(),
                "no:cacheprovider".into(),
                "-o".into(),
                "junit_family=xunit1".into(),
                format!("--junitxml={rep}"),
            ],
        ),
        Ecosystem::Cargo => ("cargo".into(), vec!["test".into(), "--no-fail-fast".into()]),
        Ecosystem::Go => (
            "go".into(),
            vec!["test".into(), "-json".into(), "./...".into()],
        ),
        Ecosystem::Vitest => (
            dir.join("node_modules/.bin/vitest")
                .to_string_lossy()
                .into_owned(),
            vec![
                "run".into(),
                "--reporter=json".into(),
                format!("--outputFile={rep}"),
            ],
        ),
        Ecosystem::Jest => (
            dir.join("node_modules/.bin/jest")
                .to_string_lossy()
                .into_owned(),
            vec!["--json".into(), format!("--outputFile={rep}")],
        ),
    };
    args.extend(extra.iter().cloned());
    if eco == Ecosystem::Cargo && !extra.iter().any(|a| a == "--") {
        // One test at a time: a test binary that crashes (SIGSEGV, abort) names the test it ran.
        args.extend(["--".into(), "--test-threads=1".into()]);
    }
    let ran = run(&program, &args, dir, env, SUITE_TIMEOUT)?;
    let report_text = std::fs::read_to_string(&report).unwrap_or_default();
    let mut out = match eco {
        Ecosystem::Pytest => parse_junit(&report_text),
        Ecosystem::Cargo => parse_libtest(&ran.text),
        Ecosystem::Go => parse_go_json(&ran.text, dir),
        Ecosystem::Vitest | Ecosystem::Jest => parse_jest_json(&report_text, dir),
    };
    out.code = ran.code;
    out.secs = ran.secs;
    out.text = ran.text;
    Ok(out)
}

/// pytest's JUnit XML (xunit1: testcases carry `file` and `line`).
fn parse_junit(xml: &str) -> Outcome {
    let mut out = Outcome::default();
    let Ok(doc) = roxmltree::Document::parse(xml) else {
        return out;
    };
    for tc in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let file = tc.attribute("file").unwrap_or("").to_owned();
        let name = tc.attribute("name").unwrap_or("").to_owned();
        let classname = tc.attribute("classname").unwrap_or("");
        let module = file.trim_end_matches(".py").replace('/', ".");
        let class = classname.strip_prefix(module.as_str()).unwrap_or(classname);
        let class = class.trim_start_matches('.');
        let id = if class.is_empty() {
            format!("{file}::{name}")
        } else {
            format!("{file}::{}::{name}", class.replace('.', "::"))
        };
        let bad = tc
            .children()
            .find(|c| c.has_tag_name("failure") || c.has_tag_name("error"));
        let skipped = tc.children().any(|c| c.has_tag_name("skipped"));
        match bad {
            Some(node) => {
                let text = format!(
                    "{}\n{}",
                    node.attribute("message").unwrap_or(""),
                    node.text().unwrap_or("")
                );
                let line = last_location(&text, &file);
                let base = name.split('[').next().unwrap_or(&name).to_owned();
                out.failed.push(Failure {
                    id,
                    name: base,
                    file: (!file.is_empty()).then_some(file),
                    line,
                    text,
                });
            }
            None if !skipped => {
                out.passed.insert(id);
            }
            None => {}
        }
    }
    out
}

/// The last `file:LINE:` of a traceback that is in `file`.
fn last_location(text: &str, file: &str) -> Option<u32> {
    let mut found = None;
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix(file).and_then(|r| r.strip_prefix(':')) {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse() {
                found = Some(n);
            }
        }
    }
    found
}

/// libtest's text from `cargo test`: `Running <target>` headers, `test x ... ok|FAILED`, and the
/// `---- x stdout ----` sections with the panic location and message.
fn parse_libtest(text: &str) -> Outcome {
    let mut out = Outcome::default();
    let mut target = String::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    let mut sections: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.lines() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix("Running ") {
            let rest = rest.strip_prefix("unittests ").unwrap_or(rest);
            target = rest.split(" (").next().unwrap_or(rest).to_owned();
            current = None;
            continue;
        }
        if let Some(rest) = t.strip_prefix("Doc-tests ") {
            target = format!("doc:{rest}");
            current = None;
            continue;
        }
        if let Some(rest) = line.strip_prefix("test ") {
            if let Some(name) = rest.strip_suffix(" ... ok") {
                out.passed.insert(format!("{target}::{name}"));
                continue;
            }
            if let Some(name) = rest.strip_suffix(" ... FAILED") {
                failed.push((target.clone(), name.to_owned()));
                continue;
            }
            // A test whose binary died under it (a signal): `test x ... error: test failed`.
            if let Some((name, after)) = rest.split_once(" ... ")
                && !after.starts_with("ok")
                && !after.starts_with("ignored")
                && !name.contains(' ')
            {
                failed.push((target.clone(), name.to_owned()));
                continue;
            }
        }
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|r| r.strip_suffix(" stdout ----"))
        {
            current = Some((target.clone(), name.to_owned()));
            continue;
        }
        if line == "failures:" || line.starts_with("test result:") {
            current = None;
            continue;
        }
        if let Some(key) = &current {
            let s = sections.entry(key.clone()).or_default();
            s.push_str(line);
            s.push('\n');
        }
    }
    for (target, name) in failed {
        let text = sections
            .get(&(target.clone(), name.clone()))
            .cloned()
            .unwrap_or_default();
        let (file, line) = panic_location(&text);
        let short = name.rsplit("::").next().unwrap_or(&name).to_owned();
        out.failed.push(Failure {
            id: format!("{target}::{name}"),
            name: short,
            file,
            line,
            text,
        });
    }
    out
}

/// `panicked at src/tests.rs:10:5:` → (`src/tests.rs`, 10).
fn panic_location(text: &str) -> (Option<String>, Option<u32>) {
    for l in text.lines() {
        if let Some(i) = l.find("panicked at ") {
            let rest = &l[i + "panicked at ".len()..];
            let mut parts = rest.split(':');
            let file = parts.next().unwrap_or("").to_owned();
            let line = parts.next().and_then(|n| n.parse().ok());
            if !file.is_empty() {
                return (Some(file), line);
            }
        }
    }
    (None, None)
}

/// `go test -json`: per-test actions and output lines; `x_test.go:12:` locates the check.
fn parse_go_json(text: &str, dir: &Path) -> Outcome {
    let mut out = Outcome::default();
    let module = std::fs::read_to_string(dir.join("go.mod"))
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("module ").map(|s| s.trim().to_owned()))
        })
        .unwrap_or_default();
    let mut outputs: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        let pkg = v["Package"].as_str().unwrap_or("").to_owned();
        let Some(test) = v["Test"].as_str().map(str::to_owned) else {
            continue;
        };
        match v["Action"].as_str() {
            Some("output") => {
                let o = outputs.entry((pkg, test)).or_default();
                o.push_str(v["Output"].as_str().unwrap_or(""));
            }
            Some("pass") => {
                out.passed.insert(format!("{pkg}::{test}"));
            }
            Some("fail") => failed.push((pkg, test)),
            _ => {}
        }
    }
    // A parent fails when a subtest does: keep the leaves, whose output holds the check.
    let leaves: Vec<&(String, String)> = failed
        .iter()
        .filter(|(p, t)| {
            !failed
                .iter()
                .any(|(p2, t2)| p2 == p && t2.starts_with(&format!("{t}/")))
        })
        .collect();
    for (pkg, test) in leaves {
        let text = outputs
            .get(&(pkg.clone(), test.clone()))
            .cloned()
            .unwrap_or_default();
        let rel_dir = pkg
            .strip_prefix(module.as_str())
            .unwrap_or("")
            .trim_start_matches('/')
            .to_owned();
        let mut file = None;
        let mut line = None;
        for l in text.lines() {
            let t = l.trim_start();
            if let Some((f, rest)) = t.split_once(".go:") {
                // Only the package's own test files: not the toolchain's testing.go in a panic.
                if f.contains(' ') || f.is_empty() || f.starts_with('/') || !f.ends_with("_test") {
                    continue;
                }
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let Ok(n) = digits.parse::<u32>() {
                    let f = format!("{f}.go");
                    let path = if rel_dir.is_empty() {
                        f
                    } else {
                        format!("{rel_dir}/{f}")
                    };
                    file = Some(path);
                    line = Some(n);
                    break;
                }
            }
        }
        let top = test.split('/').next().unwrap_or(test).to_owned();
        out.failed.push(Failure {
            id: format!("{pkg}::{test}"),
            name: top,
            file,
            line,
            text,
        });
    }
    out
}

/// jest's `--json` and vitest's json reporter (the same shape).
fn parse_jest_json(text: &str, dir: &Path) -> Outcome {
    let mut out = Outcome::default();
    let Ok(v) = serde_json::from_str::<serde_json::Value>(text) else {
        return out;
    };
    let root = dir.to_string_lossy().into_owned();
    let canon = dir
        .canonicalize()
        .map_or_else(|_| root.clone(), |p| p.to_string_lossy().into_owned());
    for file in v["testResults"].as_array().into_iter().flatten() {
        let abs = file["name"].as_str().unwrap_or("");
        let rel = rel_to(abs, &root, &canon);
        for a in file["assertionResults"].as_array().into_iter().flatten() {
            let full = a["fullName"].as_str().unwrap_or("").to_owned();
            let id = format!("{rel} > {full}");
            match a["status"].as_str() {
                Some("passed") => {
                    out.passed.insert(id);
                }
                Some("failed") => {
                    let text = a["failureMessages"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|m| m.as_str())
                        .collect::<Vec<_>>()
                        .join("\n");
                    let line = stack_line(&text, abs).or_else(|| {
                        a["location"]["line"]
                            .as_u64()
                            .and_then(|n| u32::try_from(n).ok())
                    });
                    out.failed.push(Failure {
                        id,
                        name: a["title"].as_str().unwrap_or("").to_owned(),
                        file: Some(rel.clone()),
                        line,
                        text,
                    });
                }
                _ => {}
            }
        }
    }
    out
}

fn rel_to(abs: &str, root: &str, canon: &str) -> String {
    for r in [root, canon] {
        if let Some(rest) = abs.strip_prefix(r) {
            return rest.trim_start_matches('/').to_owned();
        }
    }
    abs.to_owned()
}

/// The first stack frame in `abs_file`: `at … (/abs/test/x.test.ts:12:34)`.
fn stack_line(text: &str, abs_file: &str) -> Option<u32> {
    if abs_file.is_empty() {
        return None;
    }
    for l in text.lines() {
        if let Some(i) = l.find(abs_file) {
            let rest = &l[i + abs_file.len()..];
            let rest = rest.strip_prefix(':')?;
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse() {
                return Some(n);
            }
        }
    }
    None
}

/// The PATH with `first` in front.
pub fn path_with(first: &Path) -> String {
    let old = std::env::var("PATH").unwrap_or_default();
    format!("{}:{old}", first.display())
}

/// A virtualenv at `venv` with `packages` installed; returns its `bin`.
pub fn venv(venv: &Path, packages: &[String]) -> anyhow::Result<PathBuf> {
    let bin = venv.join("bin");
    if !bin.join("python").exists() {
        let v = venv.to_string_lossy().into_owned();
        must("python3", &["-m", "venv", &v], Path::new("/"), &[])?;
    }
    if !packages.is_empty() {
        let pip = bin.join("pip").to_string_lossy().into_owned();
        let mut args = vec!["install", "-q", "--disable-pip-version-check"];
        args.extend(packages.iter().map(String::as_str));
        must(&pip, &args, Path::new("/"), &[])?;
    }
    Ok(bin)
}
