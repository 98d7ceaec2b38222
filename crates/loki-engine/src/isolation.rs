//! Isolation of the untrusted agent: what its commands (and the tests it may have written) can see.
//!
//! # What the agent gets
//! - **A scrubbed environment** ([`loki_core::process::scrubbed_env`]: no tokens, no keys, no
//!   `LOKI_RECEIPT_*`), without `LOKI_HOME`, with `HOME` and `XDG_CONFIG_HOME` pointed at a
//!   run-private directory outside the repository. Tool homes that live under the real `HOME`
//!   (`CARGO_HOME`, `RUSTUP_HOME`, `PYENV_ROOT`, `GOPATH`, `NVM_DIR`) are set to where they really
//!   are, so toolchains keep working; they hold no secrets loki knows of.
//! - **A private git directory** (`GIT_DIR`, `GIT_WORK_TREE`): a fresh repository whose only ref is
//!   the run's branch at the base commit and which borrows the object store through
//!   `objects/info/alternates`. `git log --all` therefore shows the base and its history, never the
//!   user's other branches or earlier runs' commits.
//!
//! # How it is applied
//! The built-in loop's `run` tool starts `sh -c <command>` with the engine's scrubbed environment;
//! [`Fenced`] wraps the provider and prefixes each `run` command with [`Fence::prefix`] (exports and
//! `unset`), and strips the prefix again from the conversation it sends to the model, so the model
//! sees only what it wrote while every command runs fenced. Checks run with [`Fence::env`]. CLI
//! agents get [`Fence::env`] plus the credentials they need to talk to their own model.
//!
//! # Limits (said plainly)
//! This is environment isolation, not a sandbox: a process of the same user that already knows an
//! absolute path can still open it. The event log and the receipt are protected by their hash
//! chain and signature (tampering is detected, [`crate::seal`]), the wall by its sealed hashes.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_agent::{AgentError, BoxFuture, Message, Provider, Request, Response};
use loki_core::process::{self, Spec, Streams};

use crate::EngineError;

/// Tool homes kept at their real location when `HOME` moves: (variable, default under `HOME`,
/// an entry a real one has — an empty directory of that name is not a tool home).
const TOOL_HOMES: &[(&str, &str, &str)] = &[
    ("CARGO_HOME", ".cargo", "bin"),
    ("RUSTUP_HOME", ".rustup", "toolchains"),
    ("PYENV_ROOT", ".pyenv", "versions"),
    ("GOPATH", "go", "pkg"),
    ("NVM_DIR", ".nvm", "nvm.sh"),
];
/// Variables never passed to the agent even though their names do not look secret.
const WITHHELD: &[&str] = &["LOKI_HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"];
/// Setting up the private git directory is local and small.
const GIT_TIMEOUT: Duration = Duration::from_secs(60);
/// The line that ends the fence prefix; everything after it is the model's command.
const FENCE_END: &str = "# loki: fenced environment above\n";

/// The agent's environment for one run.
#[derive(Debug, Clone)]
pub struct Fence {
    home: PathBuf,
    /// The private git directory and the work tree it describes; `None` for the wall author,
    /// whose directory is outside any repository.
    git: Option<(PathBuf, PathBuf)>,
    env: Vec<(OsString, OsString)>,
}

impl Fence {
    /// Creates the private home and git directory under `private` (outside the repository) for
    /// `worktree`, whose branch `branch` is at `base`. `repo_git_common` is the repository's
    /// `.git` directory (the object store to borrow).
    pub fn create(
        private: &Path,
        worktree: &Path,
        repo_git_common: &Path,
        branch: &str,
        base: &str,
    ) -> Result<Fence, EngineError> {
        let home = private.join("home");
        std::fs::create_dir_all(&home).map_err(|e| EngineError::io("create", &home, e))?;
        let git_root = private.join("git");
        git(private, &["init", "-q", &git_root.to_string_lossy()], &[])?;
        let git_dir = git_root.join(".git");
        let alternates = git_dir.join("objects/info/alternates");
        let objects = repo_git_common.join("objects");
        loki_core::fs::write_atomic(&alternates, format!("{}\n", objects.display()).as_bytes())?;
        let env = [
            ("GIT_DIR", git_dir.as_os_str()),
            ("GIT_WORK_TREE", worktree.as_os_str()),
        ];
        let reference = format!("refs/heads/{branch}");
        git(worktree, &["update-ref", &reference, base], &env)?;
        git(worktree, &["symbolic-ref", "HEAD", &reference], &env)?;
        git(worktree, &["read-tree", "HEAD"], &env)?;
        let mut fence = Fence {
            home,
            git: Some((git_dir, worktree.to_path_buf())),
            env: Vec::new(),
        };
        fence.env = fence.build_env(std::env::vars_os());
        Ok(fence)
    }

    /// A fence without a repository: only the private home under `private` (the wall author).
    pub fn without_git(private: &Path) -> Result<Fence, EngineError> {
        let home = private.join("home");
        std::fs::create_dir_all(&home).map_err(|e| EngineError::io("create", &home, e))?;
        let mut fence = Fence {
            home,
            git: None,
            env: Vec::new(),
        };
        fence.env = fence.build_env(std::env::vars_os());
        Ok(fence)
    }

    /// The private `HOME`.
    #[must_use]
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// The agent's whole environment (for checks and CLI agents).
    #[must_use]
    pub fn env(&self) -> Vec<(OsString, OsString)> {
        self.env.clone()
    }

    /// `vars` scrubbed and fenced (pure apart from looking at which tool homes exist).
    fn build_env(
        &self,
        vars: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> Vec<(OsString, OsString)> {
        let vars: Vec<(OsString, OsString)> = vars.into_iter().collect();
        let real_home = vars
            .iter()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v));
        let mut out: Vec<(OsString, OsString)> = process::scrub(vars.iter().cloned())
            .into_iter()
            .filter(|(k, _)| {
                let k = k.to_string_lossy();
                !WITHHELD.contains(&k.as_ref()) && k != "HOME" && k != "XDG_CONFIG_HOME"
            })
            .collect();
        for (var, sub, marker) in TOOL_HOMES {
            if out.iter().any(|(k, _)| k == var) {
                continue;
            }
            if let Some(dir) = real_home
                .as_ref()
                .map(|h| h.join(sub))
                .filter(|d| d.join(marker).exists())
            {
                out.push(((*var).into(), dir.into_os_string()));
            }
        }
        // A toolchain installed under another home (HOME itself moved, as in sandboxes): found
        // through the `cargo` on PATH (`<cargo home>/bin/cargo`, rustup's home beside it).
        if !out.iter().any(|(k, _)| k == "CARGO_HOME")
            && let Some(cargo_home) = cargo_home_on_path(&vars)
        {
            let rustup = cargo_home.with_file_name(".rustup");
            if !out.iter().any(|(k, _)| k == "RUSTUP_HOME") && rustup.join("toolchains").is_dir() {
                out.push(("RUSTUP_HOME".into(), rustup.into_os_string()));
            }
            out.push(("CARGO_HOME".into(), cargo_home.into_os_string()));
        }
        // pyenv's shims find their root through PYENV_ROOT or HOME: keep the one on PATH.
        if !out.iter().any(|(k, _)| k == "PYENV_ROOT")
            && let Some(root) = dir_on_path(&vars, "shims", ".pyenv")
        {
            out.push(("PYENV_ROOT".into(), root.into_os_string()));
        }
        out.push(("HOME".into(), self.home.clone().into_os_string()));
        out.push((
            "XDG_CONFIG_HOME".into(),
            self.home.join(".config").into_os_string(),
        ));
        if let Some((git_dir, worktree)) = &self.git {
            out.push(("GIT_DIR".into(), git_dir.clone().into_os_string()));
            out.push(("GIT_WORK_TREE".into(), worktree.clone().into_os_string()));
        }
        out.sort();
        out
    }

    /// The shell lines that put a `run` command into the fenced environment.
    #[must_use]
    pub fn prefix(&self) -> String {
        // The `run` tool's environment is already scrubbed of secrets; what is left to withhold
        // are the names that do not look secret but lead to the key (WITHHELD).
        let mut s = format!("unset {}\n", WITHHELD.join(" "));
        for (k, v) in &self.env {
            let k = k.to_string_lossy();
            if ["HOME", "XDG_CONFIG_HOME", "GIT_DIR", "GIT_WORK_TREE"].contains(&k.as_ref())
                || TOOL_HOMES.iter().any(|(t, _, _)| *t == k)
            {
                s.push_str(&format!(
                    "export {k}={}\n",
                    process::shell_quote(&v.to_string_lossy())
                ));
            }
        }
        s.push_str(FENCE_END);
        s
    }
}

fn git(cwd: &Path, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Result<(), EngineError> {
    let mut spec = Spec::new("git", cwd)
        .args(args.iter().map(OsString::from))
        .envs(process::scrubbed_env())
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .timeout(GIT_TIMEOUT)
        .streams(Streams::Separate);
    for (k, v) in env {
        spec = spec.env(*k, *v);
    }
    let out = process::run(&spec).map_err(|e| EngineError::Refused {
        action: "set up the agent's private git directory",
        detail: e.to_string(),
    })?;
    if !out.success() {
        return Err(EngineError::Refused {
            action: "set up the agent's private git directory",
            detail: format!(
                "`{}` exited {}: {}",
                spec.display(),
                out.exit_code(),
                out.stderr.tail_text(500)
            ),
        });
    }
    Ok(())
}

/// `<dir>` when `<dir>/bin/cargo` is the first `cargo` on `PATH` and `<dir>` is named `.cargo`.
fn cargo_home_on_path(vars: &[(OsString, OsString)]) -> Option<PathBuf> {
    let path = vars
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())?;
    let bin = std::env::split_paths(&path).find(|d| d.join("cargo").is_file())?;
    let home = bin.parent()?;
    (bin.file_name()? == "bin" && home.file_name()? == ".cargo").then(|| home.to_path_buf())
}

/// `<dir>` for the first `PATH` entry `<dir>/<leaf>` where `<dir>` is named `name`.
fn dir_on_path(vars: &[(OsString, OsString)], leaf: &str, name: &str) -> Option<PathBuf> {
    let path = vars
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())?;
    std::env::split_paths(&path).find_map(|d| {
        let parent = d.parent()?;
        (d.file_name()? == leaf && parent.file_name()? == name).then(|| parent.to_path_buf())
    })
}

/// A provider whose `run` commands execute inside a [`Fence`].
#[derive(Debug)]
pub struct Fenced<'a> {
    inner: &'a dyn Provider,
    prefix: String,
}

impl<'a> Fenced<'a> {
    #[must_use]
    pub fn new(inner: &'a dyn Provider, fence: &Fence) -> Fenced<'a> {
        Fenced {
            inner,
            prefix: fence.prefix(),
        }
    }

    /// The request as the model wrote it: fence prefixes removed from earlier `run` calls.
    fn unfenced(&self, req: &Request) -> Request {
        let mut req = req.clone();
        for m in &mut req.messages {
            if let Message::Assistant { tool_calls, .. } = m {
                for c in tool_calls.iter_mut().filter(|c| c.name == "run") {
                    if let Some(serde_json::Value::String(cmd)) = c.arguments.get_mut("command")
                        && let Some(rest) = cmd.strip_prefix(&self.prefix)
                    {
                        *cmd = rest.to_string();
                    }
                }
            }
        }
        req
    }

    fn fence(&self, mut resp: Response) -> Response {
        for c in resp.tool_calls.iter_mut().filter(|c| c.name == "run") {
            if let Some(serde_json::Value::String(cmd)) = c.arguments.get_mut("command") {
                *cmd = format!("{}{cmd}", self.prefix);
            }
        }
        resp
    }
}

impl Provider for Fenced<'_> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn begin_session(&self, label: Option<&str>) -> Result<(), AgentError> {
        self.inner.begin_session(label)
    }

    fn complete<'b>(&'b self, req: &'b Request) -> BoxFuture<'b, Result<Response, AgentError>> {
        Box::pin(async move {
            let clean = self.unfenced(req);
            let resp = self.inner.complete(&clean).await?;
            Ok(self.fence(resp))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fence() -> Fence {
        Fence {
            home: "/tmp/private/home".into(),
            git: Some((
                "/tmp/private/git/.git".into(),
                "/repo/.loki/worktrees/w".into(),
            )),
            env: Vec::new(),
        }
    }

    #[test]
    fn the_env_withholds_secrets_and_moves_home() {
        let f = fence();
        let vars = [
            ("HOME", "/root"),
            ("LOKI_HOME", "/root/.loki"),
            ("ANTHROPIC_API_KEY", "sk-1"),
            ("LOKI_RECEIPT_SIGNING_KEY", "pem"),
            ("GITHUB_TOKEN", "ghp"),
            ("PATH", "/usr/bin"),
        ]
        .map(|(k, v)| (OsString::from(k), OsString::from(v)));
        let env = f.build_env(vars);
        let get = |k: &str| {
            env.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.to_string_lossy().into_owned())
        };
        assert_eq!(get("HOME").as_deref(), Some("/tmp/private/home"));
        assert_eq!(get("PATH").as_deref(), Some("/usr/bin"));
        for gone in [
            "LOKI_HOME",
            "ANTHROPIC_API_KEY",
            "LOKI_RECEIPT_SIGNING_KEY",
            "GITHUB_TOKEN",
        ] {
            assert_eq!(get(gone), None, "{gone}");
        }
        assert_eq!(get("GIT_DIR").as_deref(), Some("/tmp/private/git/.git"));
    }

    #[test]
    fn the_prefix_is_added_to_run_and_hidden_from_the_model() {
        #[derive(Debug)]
        struct Echo;
        impl Provider for Echo {
            fn name(&self) -> &'static str {
                "echo"
            }
            fn model(&self) -> &str {
                "echo"
            }
            fn complete<'a>(
                &'a self,
                req: &'a Request,
            ) -> BoxFuture<'a, Result<Response, AgentError>> {
                // Answers with the command it saw last, so the test can see what the model saw.
                let seen = req.messages.iter().rev().find_map(|m| match m {
                    Message::Assistant { tool_calls, .. } => tool_calls
                        .first()
                        .and_then(|c| c.arguments.get("command"))
                        .and_then(|v| v.as_str().map(str::to_string)),
                    _ => None,
                });
                Box::pin(async move {
                    Ok(Response {
                        text: seen,
                        tool_calls: vec![loki_agent::ToolCall::from_text(
                            "c".into(),
                            "run".into(),
                            r#"{"command":"env"}"#,
                        )],
                        usage: loki_agent::Usage::default(),
                        stop: loki_agent::StopReason::ToolUse,
                        model: "echo".into(),
                    })
                })
            }
        }
        let f = fence();
        let fenced = Fenced::new(&Echo, &f);
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let mut req = Request {
            system: String::new(),
            messages: vec![],
            tools: vec![],
            max_output_tokens: 10,
        };
        let first = rt.block_on(fenced.complete(&req)).unwrap();
        let cmd = first.tool_calls[0].arguments["command"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(cmd.starts_with("unset LOKI_HOME "), "{cmd}");
        assert!(cmd.ends_with(&format!("{FENCE_END}env")), "{cmd}");
        req.messages.push(first.to_message());
        let second = rt.block_on(fenced.complete(&req)).unwrap();
        assert_eq!(second.text.as_deref(), Some("env"));
    }
}
