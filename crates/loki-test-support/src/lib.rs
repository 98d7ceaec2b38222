//! Test helpers shared by loki's crates (a dev-dependency only).
//!
//! - [`GitRepo`]: a real git repository in a temp dir, with an identity and no user config leaking
//!   in, for tests that exercise real `git`.
//! - [`Sandbox`]: an isolated `HOME`/`LOKI_HOME` and a clean environment for running the `loki`
//!   binary, so tests never read or write the developer's real state.
//! - [`redact`]: filters that replace run ids, timestamps, hashes and temp paths in output, so
//!   snapshots pin the format rather than the values.
//!
//! - [`require`]: the one way a test asks for a tool or fixture outside Rust; under CI or
//!   `LOKI_REQUIRE_TOOLS=1` a missing one fails the test instead of skipping it.
//! - [`fake_llm`]: loopback fake model servers.
//! - [`fake_responses`]: a loopback fake of the OpenAI Responses API, the wire Codex speaks.
//! - [`fake_gemini`]: a loopback fake of the Gemini API, for the real Gemini CLI.

#![expect(
    clippy::missing_panics_doc,
    reason = "test helpers panic on a broken fixture by design; documenting each panic adds nothing"
)]
#![expect(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::disallowed_methods,
    reason = "test support fails loudly (a broken fixture stops the test at the line that broke it) and writes fixtures directly: they are not loki state"
)]

pub mod fake_gemini;
pub mod fake_llm;
pub mod fake_responses;
mod fake_server;
pub mod fake_slack;
pub mod fake_trackers;
pub mod procs;
pub mod require;

pub use require::{
    missing, pinned_agent_version, require_agent, require_browser, require_check_jsonschema,
    require_landlock, require_landlock_tcp, require_maven, require_mcp_inspector,
    require_mcp_python, require_mdbook, require_npm, require_postgres, require_py_package,
    require_py_tools, require_pytest, require_tool, tools_required,
};

use std::path::{Path, PathBuf};
use std::process::Command;

/// A temporary git repository with one identity and no global/system config.
#[derive(Debug)]
pub struct GitRepo {
    dir: tempfile::TempDir,
}

impl GitRepo {
    /// `git init` in a new temp dir on branch `main`.
    #[must_use]
    pub fn new() -> GitRepo {
        let dir = tempfile::tempdir().expect("create temp dir");
        let repo = GitRepo { dir };
        repo.git(&["init", "-q", "-b", "main"]);
        repo
    }

    /// The repository root.
    #[must_use]
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Writes a file (creating parent directories).
    pub fn write(&self, rel: &str, content: &str) -> &Self {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
        self
    }

    /// Stages everything and commits; returns the new commit id.
    pub fn commit(&self, message: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--no-verify", "-m", message]);
        self.git(&["rev-parse", "HEAD"]).trim().to_string()
    }

    /// Runs git in the repository with an isolated configuration; panics with its stderr on failure.
    pub fn git(&self, args: &[&str]) -> String {
        let out = git_command(self.path()).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

impl Default for GitRepo {
    fn default() -> Self {
        Self::new()
    }
}

/// A `git` command in `dir` that ignores the user's and the system's git config.
#[must_use]
pub fn git_command(dir: &Path) -> Command {
    let mut c = Command::new("git");
    c.current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Loki Test")
        .env("GIT_AUTHOR_EMAIL", "test@loki.invalid")
        .env("GIT_COMMITTER_NAME", "Loki Test")
        .env("GIT_COMMITTER_EMAIL", "test@loki.invalid");
    c
}

/// An isolated home for running the `loki` binary.
#[derive(Debug)]
pub struct Sandbox {
    home: tempfile::TempDir,
}

impl Sandbox {
    /// A new empty home.
    #[must_use]
    pub fn new() -> Sandbox {
        Sandbox {
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// The fake `HOME`.
    #[must_use]
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// `$LOKI_HOME` inside the fake home.
    #[must_use]
    pub fn loki_home(&self) -> PathBuf {
        self.home.path().join(".loki")
    }

    /// Applies the sandbox to a command: clears the environment except `PATH`, sets `HOME`,
    /// `LOKI_HOME`, `NO_COLOR`, and git's isolation variables.
    pub fn apply<'a>(&self, cmd: &'a mut Command) -> &'a mut Command {
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("LOKI_HOME", self.loki_home())
            .env("NO_COLOR", "1")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

/// Replaces volatile values in `text` with stable placeholders: the given paths (longest first),
/// run ids, RFC 3339 timestamps, 64-hex hashes, 40-hex commit ids and 12-hex short ids, also on
/// either side of a colon (`sha256:<hex>`).
#[must_use]
pub fn redact(text: &str, paths: &[(&Path, &str)]) -> String {
    let mut out = text.to_string();
    let mut paths: Vec<_> = paths.iter().collect();
    paths.sort_by_key(|(p, _)| std::cmp::Reverse(p.as_os_str().len()));
    for (p, name) in paths {
        out = out.replace(&p.display().to_string(), name);
    }
    replace_matching(&out, |w| {
        if is_run_id(w) {
            Some("[RUN_ID]")
        } else if w.len() == 64 && w.bytes().all(|b| b.is_ascii_hexdigit()) {
            Some("[SHA256]")
        } else if w.len() == 40 && w.bytes().all(|b| b.is_ascii_hexdigit()) {
            Some("[COMMIT]")
        } else if is_timestamp(w) {
            Some("[TS]")
        } else if w.len() == 12
            && w.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        {
            Some("[SHORT]")
        } else {
            None
        }
    })
}

/// The newest run directory under `runs` (a repository's `.loki/runs`), by the start each run
/// recorded in its `run.json` (milliseconds): run ids carry the second only, so two runs started
/// in the same second sort by their random suffix. Directories without a readable `run.json`
/// (a run still starting) sort by name after the recorded ones' time.
pub fn newest_run(runs: &Path) -> Option<std::path::PathBuf> {
    let mut listed: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(runs)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .map(|p| {
            let started = std::fs::read(p.join("run.json"))
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                .and_then(|v| v["started_at"].as_str().map(str::to_owned))
                .unwrap_or_default();
            (started, p)
        })
        .collect();
    listed.sort();
    listed.pop().map(|(_, p)| p)
}

fn is_run_id(w: &str) -> bool {
    w.len() == 24 && w.starts_with("run_") && w.as_bytes()[12] == b'_' && w.as_bytes()[19] == b'_'
}

fn is_timestamp(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() == 24 && b[4] == b'-' && b[10] == b'T' && w.ends_with('Z')
}

/// Applies `f` to every maximal run of `[A-Za-z0-9_:.-]` characters and replaces it when `f` says so.
fn replace_matching(text: &str, f: impl Fn(&str) -> Option<&'static str>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            // Try the whole token, then the token without trailing punctuation.
            let trimmed = word.trim_end_matches(['.', ':', ',']);
            match f(trimmed) {
                Some(r) => out.push_str(r),
                // `sha256:<hex>` and `git:<hex>`: judge each side of a colon on its own.
                None => {
                    let parts: Vec<String> = trimmed
                        .split(':')
                        .map(|p| f(p).map_or_else(|| p.to_string(), str::to_string))
                        .collect();
                    out.push_str(&parts.join(":"));
                }
            }
            out.push_str(&word[trimmed.len()..]);
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '.' | '-') {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redact_replaces_volatile_tokens() {
        let t = "run_20261129_151736_beef at 2026-11-29T15:17:36.123Z head 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.";
        assert_eq!(redact(t, &[]), "[RUN_ID] at [TS] head [SHA256].");
        assert_eq!(
            redact(
                "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef, git:b132a137cd16",
                &[]
            ),
            "sha256:[SHA256], git:[SHORT]"
        );
    }

    #[test]
    fn git_repo_commits() {
        let r = GitRepo::new();
        r.write("a.txt", "x\n");
        assert_eq!(r.commit("first").len(), 40);
    }
}
