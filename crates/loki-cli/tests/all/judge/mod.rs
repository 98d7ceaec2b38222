//! The judge (`loki seal check --base HEAD --json`) against determined cheats and honest changes,
//! issue 11: one fixture repository per ecosystem, a table of cases per fixture.
//!
//! Each fixture is a small library with tests, committed once (the base). Every case starts from
//! that base (`git reset --hard`, `git clean -fdx` keeping the dependency links and build
//! directories named by the fixture, `.git/config` and `.git/info/*` restored, replace refs
//! dropped), optionally commits a few edits of its own first (`pre`: a different base), applies
//! its edits to the working tree, runs the real `loki` binary with the real runners, and checks the
//! exit code and the JSON against what the contract in the judge plan says:
//! - exit 0 (`clean`): no findings, nothing to declare, every fact kind the case names present;
//! - exit 4 (`declare`, issue 31): the change alters what existing tests expect (a deliberate
//!   behaviour change) or removes tests with their code; `declare[]` must hold every kind named;
//! - exit 1 (`findings`): at least one finding of one of the acceptable kinds (a class of cheat is
//!   caught by any of them), optionally naming a test or package;
//! - exit 3 (`cannot_judge`): a suite could not run; `cannot_judge[]` says what to install;
//! - `not_clean`: 1 or 3, never 0 (a suite that executed nothing).
//!
//! A fixture's test runs all its cases (sharing the repository and its warm build), prints one line
//! per case and fails at the end naming every case that went wrong, with the JSON and stderr.
//! `LOKI_JUDGE_CASES=name,name` runs only the named cases (for working on one).
//!
//! Each table says, in a comment, which of its cases the binary of commit ab4b6ca (before the
//! judge of issue 11) gets wrong and what it said instead: every adversarial class has at least
//! one such case per ecosystem where the construct exists. Those tests fail until the judge
//! lands; they are the judge's acceptance tests, not to be weakened to pass. In those notes
//! `newly_failing` and `test_deleted` stand for today's reasons "now fail" and "no longer run",
//! which today's JSON carries in `reasons` only.

#![expect(
    clippy::panic,
    clippy::print_stderr,
    reason = "a fixture that cannot be set up stops the test where it broke, and each case prints its line of the table on stderr (shown when the test fails, or with --nocapture)"
)]

mod ci;
mod fence;
mod gotest;
mod intent;
mod java;
mod js;
mod kept;
mod pytest;
mod rust;
mod workspaces;

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use loki_test_support::{GitRepo, Sandbox};
use serde_json::Value;

/// One change to the working tree.
#[derive(Debug, Clone)]
pub enum Edit {
    /// Writes a file (creating parent directories).
    Write(String, String),
    /// Replaces the only occurrence of a string in a file (a missing one is a broken table).
    Replace(String, String, String),
    Delete(String),
    Rename(String, String),
    /// A shell command in the repository (git plumbing, a venv, a symlink).
    Sh(String),
}

pub fn write(path: &str, content: impl Into<String>) -> Edit {
    Edit::Write(path.into(), content.into())
}

pub fn replace(path: &str, from: &str, to: &str) -> Edit {
    Edit::Replace(path.into(), from.into(), to.into())
}

pub fn delete(path: &str) -> Edit {
    Edit::Delete(path.into())
}

pub fn rename(from: &str, to: &str) -> Edit {
    Edit::Rename(from.into(), to.into())
}

pub fn sh(command: &str) -> Edit {
    Edit::Sh(command.into())
}

/// What the judge must say.
#[derive(Debug, Clone)]
pub enum Expect {
    /// Exit 0, verdict clean, no findings, and every one of these fact kinds present.
    Clean(&'static [&'static str]),
    /// Exit 1 with at least one finding of one of these kinds.
    Findings(&'static [&'static str]),
    /// Exit 4: intent must be declared; `declare` holds a change of each of these kinds.
    Declare(&'static [&'static str]),
    /// Exit 3: a suite could not be run; `cannot_judge` must mention every one of these words.
    CannotJudge(&'static [&'static str]),
    /// Exit 1 or 3, never 0.
    NotClean,
}

/// One row of a table.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: &'static str,
    /// The rule of issue 11 the case is about (0: the plain bug fix).
    pub rule: u8,
    /// Edits committed on top of the fixture's base before the case (the case's own base).
    pub pre: Vec<Edit>,
    pub edits: Vec<Edit>,
    /// Extra environment of the `loki` process.
    pub env: Vec<(String, String)>,
    pub expect: Expect,
    /// Words that must appear in the findings (a test id, a package, a file).
    pub names: Vec<&'static str>,
    /// Runs with a home of its own: no baseline cached by the cases before it.
    pub fresh_home: bool,
    /// `(test, class)`: the comparison must classify a test whose id contains `test` as `class`
    /// (`fixed`: failed at base and passes at head, so the base run ran the base's code).
    pub compared: Vec<(&'static str, &'static str)>,
    /// `(words, present)`: NOT PROVEN must (or must not) say `words` (how a run was made).
    pub notes: Vec<(&'static str, bool)>,
}

impl Case {
    pub fn new(name: &'static str, rule: u8, edits: Vec<Edit>, expect: Expect) -> Case {
        Case {
            name,
            rule,
            pre: Vec::new(),
            edits,
            env: Vec::new(),
            expect,
            names: Vec::new(),
            fresh_home: false,
            compared: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// NOT PROVEN must say `words`.
    pub fn noting(mut self, words: &'static str) -> Case {
        self.notes.push((words, true));
        self
    }

    /// NOT PROVEN must not say `words`.
    pub fn not_noting(mut self, words: &'static str) -> Case {
        self.notes.push((words, false));
        self
    }

    pub fn compared(mut self, test: &'static str, class: &'static str) -> Case {
        self.compared.push((test, class));
        self
    }

    pub fn fresh_home(mut self) -> Case {
        self.fresh_home = true;
        self
    }

    pub fn pre(mut self, edits: Vec<Edit>) -> Case {
        self.pre = edits;
        self
    }

    pub fn env(mut self, key: &str, value: impl Into<String>) -> Case {
        self.env.push((key.into(), value.into()));
        self
    }

    pub fn naming(mut self, names: &[&'static str]) -> Case {
        self.names.extend_from_slice(names);
        self
    }
}

/// Clean, no fact required.
pub const CLEAN: Expect = Expect::Clean(&[]);

/// A deliberate behaviour change: the changed expectation must be declared (issue 31).
pub const BEHAVIOUR_CHANGED: Expect = Expect::Declare(&["expectation_changed"]);

/// A fixture repository shared by the cases of one ecosystem.
pub struct Fixture {
    pub name: &'static str,
    pub repo: GitRepo,
    pub sandbox: Sandbox,
    /// Untracked paths kept between cases (dependency links, build output, virtualenvs).
    keep: Vec<&'static str>,
    base: String,
    git_files: Vec<(PathBuf, Option<Vec<u8>>)>,
    env: Vec<(OsString, OsString)>,
}

/// Files of `.git` that cases change and every case gets back as they were.
const GIT_STATE: &[&str] = &["config", "info/exclude", "info/attributes"];

impl Fixture {
    /// Commits `files` as the base of the fixture.
    pub fn new(name: &'static str, files: &[(&str, String)], keep: &[&'static str]) -> Fixture {
        let repo = GitRepo::new();
        for (path, content) in files {
            repo.write(path, content);
        }
        let base = repo.commit("fixture base");
        let git_files = GIT_STATE
            .iter()
            .map(|f| {
                let p = repo.path().join(".git").join(f);
                let bytes = std::fs::read(&p).ok();
                (p, bytes)
            })
            .collect();
        Fixture {
            name,
            repo,
            sandbox: Sandbox::new(),
            keep: keep.to_vec(),
            base,
            git_files,
            env: toolchain_env(),
        }
    }

    /// Adds `key=value` to the environment of every `loki` run and fixture command.
    pub fn with_env(mut self, key: &str, value: &str) -> Fixture {
        self.env.push((key.into(), value.into()));
        self
    }

    /// The repository root.
    pub fn path(&self) -> &Path {
        self.repo.path()
    }

    /// Runs a shell command in the repository (fixture setup: links, virtualenvs); panics on failure.
    pub fn sh(&self, command: &str) {
        let out = self
            .shell(command)
            .output()
            .unwrap_or_else(|e| panic!("{}: sh {command}: {e}", self.name));
        assert!(
            out.status.success(),
            "{}: sh {command}: {}{}",
            self.name,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn shell(&self, command: &str) -> Command {
        let mut sh = Command::new("sh");
        sh.current_dir(self.path())
            .env("HOME", self.sandbox.home())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "Loki Test")
            .env("GIT_AUTHOR_EMAIL", "test@loki.invalid")
            .env("GIT_COMMITTER_NAME", "Loki Test")
            .env("GIT_COMMITTER_EMAIL", "test@loki.invalid")
            .envs(self.env.iter().cloned())
            .args(["-c", command]);
        sh
    }

    /// Back to the committed base with the kept paths in place.
    fn reset(&self) {
        for (path, bytes) in &self.git_files {
            match bytes {
                Some(b) => std::fs::write(path, b).unwrap(),
                None => {
                    let _ = std::fs::remove_file(path);
                }
            }
        }
        let replaced = self.repo.git(&["replace", "-l"]);
        for r in replaced.lines().filter(|l| !l.is_empty()) {
            self.repo.git(&["replace", "-d", r]);
        }
        self.repo.git(&["reset", "-q", "--hard", &self.base]);
        let mut clean = vec!["clean", "-fdqx"];
        for k in &self.keep {
            clean.extend(["-e", k]);
        }
        self.repo.git(&clean);
    }

    fn apply(&self, edits: &[Edit]) {
        let root = self.path();
        for e in edits {
            match e {
                Edit::Write(p, c) => {
                    self.repo.write(p, c);
                }
                Edit::Replace(p, from, to) => {
                    let text = std::fs::read_to_string(root.join(p))
                        .unwrap_or_else(|e| panic!("{}: read {p}: {e}", self.name));
                    assert_eq!(
                        text.matches(from.as_str()).count(),
                        1,
                        "{}: {p} must hold {from:?} exactly once",
                        self.name
                    );
                    std::fs::write(root.join(p), text.replacen(from.as_str(), to, 1)).unwrap();
                }
                Edit::Delete(p) => std::fs::remove_file(root.join(p))
                    .unwrap_or_else(|e| panic!("{}: delete {p}: {e}", self.name)),
                Edit::Rename(from, to) => {
                    let to = root.join(to);
                    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
                    std::fs::rename(root.join(from), to)
                        .unwrap_or_else(|e| panic!("{}: rename {from}: {e}", self.name));
                }
                Edit::Sh(c) => self.sh(c),
            }
        }
    }

    /// Runs every case (or those named in `LOKI_JUDGE_CASES`); panics at the end with the wrong ones.
    pub fn run(&self, cases: &[Case]) {
        let only: Option<Vec<String>> = loki_core::env::JUDGE_CASES
            .get()
            .map(|v| v.split(',').map(str::to_owned).collect());
        let started = Instant::now();
        let mut wrong = Vec::new();
        let mut table = String::new();
        for case in cases {
            if only
                .as_ref()
                .is_some_and(|o| !o.iter().any(|n| n == case.name))
            {
                continue;
            }
            let t = Instant::now();
            let verdict = self.judge(case);
            let secs = t.elapsed().as_secs_f64();
            let mark = if verdict.is_ok() { "ok   " } else { "WRONG" };
            let short = verdict
                .as_ref()
                .err()
                .map(|w| w.lines().next().unwrap_or_default().to_owned())
                .unwrap_or_default();
            let line = format!(
                "judge {:<10} rule {:>2} {:<48} {mark} {secs:>5.1}s {short}",
                self.name, case.rule, case.name
            );
            eprintln!("{line}");
            let _ = writeln!(table, "{line}");
            if let Err(why) = verdict {
                wrong.push(format!("--- {}::{}: {why}", self.name, case.name));
            }
        }
        eprintln!(
            "judge {}: {} case(s) wrong, {:.1}s",
            self.name,
            wrong.len(),
            started.elapsed().as_secs_f64()
        );
        assert!(
            wrong.is_empty(),
            "{table}\n{} case(s) judged wrongly:\n{}",
            wrong.len(),
            wrong.join("\n\n")
        );
    }

    fn judge(&self, case: &Case) -> Result<(), String> {
        self.reset();
        if !case.pre.is_empty() {
            self.apply(&case.pre);
            self.repo.commit(&format!("case base: {}", case.name));
        }
        self.apply(&case.edits);
        let out = self.loki(case);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        let evidence = |why: String| {
            let shown: String = stdout.chars().take(12_000).collect();
            let tail: String = {
                let chars: Vec<char> = stderr.chars().collect();
                chars[chars.len().saturating_sub(3000)..].iter().collect()
            };
            format!(
                "expected {:?}, {why} (exit {code:?})\nJSON: {shown}\nstderr: {tail}",
                case.expect
            )
        };
        let json: Value = match serde_json::from_str(stdout.trim()) {
            Ok(v) => v,
            Err(e) => return Err(evidence(format!("stdout is not one JSON object: {e}"))),
        };
        let kinds = |field: &str| -> Vec<String> {
            json[field]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|f| f["kind"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let findings = kinds("findings");
        let facts = kinds("facts");
        match case.expect {
            Expect::Clean(required) => {
                if code != Some(0) || !findings.is_empty() || json["clean"] != true {
                    return Err(evidence(format!("not clean: findings {findings:?}")));
                }
                if json["verdict"] != "clean" {
                    return Err(evidence(format!("verdict {}", json["verdict"])));
                }
                let absent: Vec<_> = required
                    .iter()
                    .filter(|r| !facts.iter().any(|f| f == *r))
                    .collect();
                if !absent.is_empty() {
                    return Err(evidence(format!("facts {facts:?} lack {absent:?}")));
                }
            }
            Expect::Findings(accepted) => {
                if code != Some(1) || json["verdict"] != "findings" {
                    return Err(evidence(format!(
                        "not judged as findings: {findings:?}, verdict {}",
                        json["verdict"]
                    )));
                }
                if !findings.iter().any(|f| accepted.contains(&f.as_str())) {
                    return Err(evidence(format!("findings {findings:?}, none accepted")));
                }
            }
            Expect::Declare(required) => {
                let changes = kinds("declare");
                if code != Some(4) || json["verdict"] != "declare" || !findings.is_empty() {
                    return Err(evidence(format!(
                        "not judged as declare: findings {findings:?}, declare {changes:?}, verdict {}",
                        json["verdict"]
                    )));
                }
                let absent: Vec<_> = required
                    .iter()
                    .filter(|r| !changes.iter().any(|f| f == *r))
                    .collect();
                if !absent.is_empty() {
                    return Err(evidence(format!("declare {changes:?} lacks {absent:?}")));
                }
            }
            Expect::CannotJudge(words) => {
                let said = json["cannot_judge"].to_string();
                if code != Some(3) || json["verdict"] != "cannot_judge" {
                    return Err(evidence("not judged as cannot_judge".into()));
                }
                let absent: Vec<_> = words.iter().filter(|w| !said.contains(*w)).collect();
                if !absent.is_empty() {
                    return Err(evidence(format!("cannot_judge does not say {absent:?}")));
                }
            }
            Expect::NotClean => {
                if !matches!(code, Some(1 | 3)) || json["clean"] != false {
                    return Err(evidence("judged clean".into()));
                }
            }
        }
        let said = json["findings"].to_string();
        let absent: Vec<_> = case.names.iter().filter(|n| !said.contains(*n)).collect();
        if !absent.is_empty() {
            return Err(evidence(format!("the findings do not name {absent:?}")));
        }
        let notes = json["not_proven"].to_string();
        for (words, present) in &case.notes {
            if notes.contains(words) != *present {
                return Err(evidence(format!(
                    "NOT PROVEN {} {words:?}",
                    if *present { "does not say" } else { "says" }
                )));
            }
        }
        for (test, class) in &case.compared {
            let tests = json["comparison"]["tests"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let classes: Vec<String> = tests
                .iter()
                .filter(|t| t["id"].as_str().is_some_and(|id| id.contains(test)))
                .map(|t| t["class"].as_str().unwrap_or_default().to_owned())
                .collect();
            if !classes.iter().any(|c| c == class) {
                return Err(evidence(format!(
                    "the comparison classes {test} as {classes:?}, not {class}"
                )));
            }
        }
        Ok(())
    }

    fn loki(&self, case: &Case) -> std::process::Output {
        let mut c = Command::new(assert_cmd::cargo::cargo_bin("loki"));
        let own = case.fresh_home.then(Sandbox::new);
        own.as_ref().unwrap_or(&self.sandbox).apply(&mut c);
        c.current_dir(self.path())
            .envs(self.env.iter().cloned())
            .envs(case.env.iter().map(|(k, v)| (k, v)))
            .args(["seal", "check", "--base", "HEAD", "--json"]);
        c.output()
            .unwrap_or_else(|e| panic!("{}: run loki: {e}", self.name))
    }
}

/// What the runners need from the real environment under the sandbox's fake `HOME`: the Rust
/// toolchain (rustup and cargo homes) and Go's build cache (content-addressed, so sharing it keeps
/// the standard library compiled without letting one build stand in for another).
pub fn toolchain_env() -> Vec<(OsString, OsString)> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let var = |name: &str, default: PathBuf| -> (OsString, OsString) {
        (
            name.into(),
            std::env::var_os(name).unwrap_or_else(|| default.into_os_string()),
        )
    };
    vec![
        var("RUSTUP_HOME", home.join(".rustup")),
        var("CARGO_HOME", home.join(".cargo")),
        var("GOCACHE", home.join(".cache/go-build")),
        ("GOTOOLCHAIN".into(), "local".into()),
    ]
}

/// `$LOKI_NPM_CACHE/node_modules` with vitest and jest installed: the JS fixtures link it. `None`
/// (the test returns) only outside CI; under `scripts/test` a missing install fails the test.
pub fn npm_cache() -> Option<PathBuf> {
    loki_test_support::require_npm(&["vitest", "jest"])
}

/// Whether `tool args…` runs: the fixtures use the real runners. False (the test returns) only
/// outside CI; under `scripts/test` a missing runner fails the test.
#[must_use]
pub fn require(tool: &str, args: &[&str]) -> bool {
    loki_test_support::require_tool(tool, args)
}
