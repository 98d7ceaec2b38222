//! CLI agents: coding CLIs the user already has (`claude`, `codex`, `aider`, `opencode`),
//! spawned in the worktree with the task as the prompt. They edit files themselves; loki only
//! runs them and reads what they report.
//!
//! | agent | command line |
//! | --- | --- |
//! | claude | `claude -p <task> --output-format json --permission-mode acceptEdits` |
//! | codex | `codex exec --json --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check <task>` |
//! | aider | `aider --yes-always --no-auto-commits --message <task>` |
//! | opencode | `opencode run <task>` |
//!
//! Each runs through [`loki_core::process`]: its own process group, stdin null, a timeout after
//! which the whole group is killed ([`AgentError::CliTimeout`]), output captured and capped.
//! The environment is the caller's ([`CliAgent::env`], by default the current one): unlike the
//! `run` tool, these programs authenticate with the user's own keys and logins.
//!
//! Cost is what the agent reports, never a guess: claude's `total_cost_usd` (its JSON result),
//! aider's `$… session` cost line. codex reports tokens, not dollars, and opencode reports
//! neither, so their cost is `None` ("not measured", never 0). A missing program is
//! [`AgentError::CliNotInstalled`] with the install command; a non-zero exit is
//! [`AgentError::CliFailed`] with the output tail.
//!
//! Codex (0.171): `exec` is non-interactive and never asks for approval; its own sandbox is off
//! because loki's box is the boundary (Codex's bubblewrap sandbox cannot nest inside it: Landlock
//! forbids the mounts it makes), and `--skip-git-repo-check` lets it run in any worktree. In the
//! box `HOME` is private, so Codex would find no config: [`codex_passthrough`] names the user's
//! Codex home (`CODEX_HOME`, default `~/.codex`) and the key variables its config's providers
//! read (`env_key`), and before the run the user's `config.toml` and `auth.json` (only those) are
//! copied into `$HOME/.codex`, which becomes `CODEX_HOME`, so Codex writes its sessions inside the
//! box. The model is read from Codex's own session record (`turn_context.model` of the rollout
//! named by `thread.started`'s `thread_id`): `exec --json` does not print it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::error::AgentError;
use crate::message::Usage;

/// Default time a CLI agent may take: the default run cap (`run.cap_s`).
pub const DEFAULT_CLI_TIMEOUT: Duration = Duration::from_secs(900);
/// Output kept from a CLI agent (head + tail): its final JSON is at the end, its plan at the start.
pub const CLI_OUTPUT_CAP: usize = 4 * 1024 * 1024;
/// Bytes of output quoted in an error.
const ERROR_TAIL_BYTES: usize = 2000;

/// The CLI agents loki knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CliKind {
    Claude,
    Codex,
    Aider,
    Opencode,
}

impl CliKind {
    /// All of them, in auto-detection order.
    pub const ALL: [CliKind; 4] = [
        CliKind::Claude,
        CliKind::Codex,
        CliKind::Aider,
        CliKind::Opencode,
    ];

    /// The provider name, which is also the program name.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            CliKind::Claude => "claude",
            CliKind::Codex => "codex",
            CliKind::Aider => "aider",
            CliKind::Opencode => "opencode",
        }
    }

    /// Whether it reports its cost in dollars (claude's `total_cost_usd`, aider's cost line):
    /// only then can a dollar cap hold.
    #[must_use]
    pub fn reports_cost(self) -> bool {
        match self {
            CliKind::Claude | CliKind::Aider => true,
            CliKind::Codex | CliKind::Opencode => false,
        }
    }

    /// How to install it.
    #[must_use]
    pub fn install_hint(self) -> &'static str {
        match self {
            CliKind::Claude => "npm install -g @anthropic-ai/claude-code",
            CliKind::Codex => "npm install -g @openai/codex",
            CliKind::Aider => "python -m pip install aider-install && aider-install",
            CliKind::Opencode => "npm install -g opencode-ai",
        }
    }

    /// The non-interactive arguments for `task`.
    #[must_use]
    pub fn args(self, task: &str) -> Vec<String> {
        let v = |a: &[&str]| a.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
        let mut args = match self {
            CliKind::Claude => v(&[
                "-p",
                task,
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits",
            ]),
            CliKind::Codex => v(&[
                "exec",
                "--json",
                "--dangerously-bypass-approvals-and-sandbox",
                "--skip-git-repo-check",
            ]),
            CliKind::Aider => v(&["--yes-always", "--no-auto-commits", "--message"]),
            CliKind::Opencode => v(&["run"]),
        };
        if self != CliKind::Claude {
            args.push(task.to_string());
        }
        args
    }

    /// Parses a provider name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<CliKind> {
        CliKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// What a finished CLI agent reported.
#[derive(Debug, Clone, PartialEq)]
pub struct CliOutcome {
    pub agent: &'static str,
    /// The command line, for logs.
    pub command: String,
    pub exit_code: i32,
    /// stdout (capped head+tail).
    pub stdout: String,
    /// stderr (capped head+tail).
    pub stderr: String,
    /// Dollars the agent reported; `None` = not measured.
    pub cost_usd: Option<f64>,
    /// Tokens the agent reported, when it reports them.
    pub usage: Option<Usage>,
    /// The model the agent says it used, when it says.
    pub model: Option<String>,
    pub duration: Duration,
}

/// A CLI agent ready to run.
#[derive(Debug, Clone)]
pub struct CliAgent {
    pub kind: CliKind,
    /// The program to start (default: the agent's name, looked up on the env's `PATH`).
    pub program: OsString,
    pub timeout: Duration,
    /// The child's whole environment.
    pub env: Vec<(OsString, OsString)>,
    /// An argv prefix the agent runs through (the engine's filesystem confinement); empty: none.
    pub wrapper: Vec<OsString>,
}

impl CliAgent {
    /// An agent with the current environment and [`DEFAULT_CLI_TIMEOUT`].
    #[must_use]
    pub fn new(kind: CliKind) -> CliAgent {
        CliAgent {
            kind,
            program: kind.name().into(),
            timeout: DEFAULT_CLI_TIMEOUT,
            env: std::env::vars_os().collect(),
            wrapper: Vec::new(),
        }
    }

    /// Runs the agent on `task` in `worktree`, blocking the thread.
    pub fn run_blocking(&self, task: &str, worktree: &Path) -> Result<CliOutcome, AgentError> {
        let agent = self.kind.name();
        let env = match self.kind {
            CliKind::Codex => {
                codex_private_home(&self.env).map_err(|source| AgentError::Process {
                    agent,
                    source: loki_core::process::ProcessError::Spawn {
                        program:
                            "codex (copying its config.toml and auth.json into the private home)"
                                .into(),
                        source,
                    },
                })?
            }
            CliKind::Claude | CliKind::Aider | CliKind::Opencode => self.env.clone(),
        };
        let spec = loki_core::process::Spec::new(self.program.clone(), worktree)
            .args(self.kind.args(task))
            .envs(env.clone())
            .timeout(self.timeout)
            .output_cap(CLI_OUTPUT_CAP)
            .streams(loki_core::process::Streams::Separate)
            .wrapped(&self.wrapper);
        let command = spec.display();
        let out = loki_core::process::run(&spec).map_err(|e| {
            if e.is_not_found() {
                AgentError::CliNotInstalled {
                    agent,
                    install: self.kind.install_hint(),
                }
            } else {
                AgentError::Process { agent, source: e }
            }
        })?;
        let tail = || {
            let mut t = out.stderr.tail_text(ERROR_TAIL_BYTES / 2);
            t.push_str(&out.output.tail_text(ERROR_TAIL_BYTES / 2));
            t
        };
        if out.timed_out {
            return Err(AgentError::CliTimeout {
                agent,
                timeout: self.timeout,
                tail: tail(),
            });
        }
        if !out.success() {
            return Err(AgentError::CliFailed {
                agent,
                command,
                code: out.exit_code(),
                tail: tail(),
            });
        }
        let stdout = out.output.text();
        let stderr = out.stderr.text();
        let (cost_usd, usage) = reported(self.kind, &stdout, &stderr);
        let model = match self.kind {
            CliKind::Codex => env_value(&env, "CODEX_HOME")
                .and_then(|home| codex_model(&stdout, Path::new(&home))),
            CliKind::Claude | CliKind::Aider | CliKind::Opencode => None,
        };
        Ok(CliOutcome {
            agent,
            command,
            exit_code: out.exit_code(),
            stdout,
            stderr,
            cost_usd,
            usage,
            model,
            duration: out.duration,
        })
    }

    /// [`CliAgent::run_blocking`] on a blocking thread.
    pub async fn run(&self, task: &str, worktree: &Path) -> Result<CliOutcome, AgentError> {
        let me = self.clone();
        let task = task.to_string();
        let worktree = worktree.to_path_buf();
        tokio::task::spawn_blocking(move || me.run_blocking(&task, &worktree))
            .await
            .map_err(|e| AgentError::Task {
                message: e.to_string(),
            })?
    }
}

/// The value of `name` in `env`.
fn env_value(env: &[(OsString, OsString)], name: &str) -> Option<OsString> {
    env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

/// The user's Codex home: `CODEX_HOME`, else `$HOME/.codex`.
fn codex_home_of(env: &[(OsString, OsString)]) -> Option<PathBuf> {
    env_value(env, "CODEX_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| env_value(env, "HOME").map(|h| PathBuf::from(h).join(".codex")))
}

/// What a boxed Codex needs from the user's environment `user_env` (the engine adds it to the
/// box's scrubbed one): `CODEX_HOME` naming the user's Codex home, and every variable a
/// `[model_providers.*] env_key` of its `config.toml` names that `user_env` sets (the built-in
/// OpenAI provider's `OPENAI_API_KEY` passes as any `OPENAI_` variable does). Nothing else of the
/// user's: loki's own key and tokens stay out.
#[must_use]
pub fn codex_passthrough(user_env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let Some(home) = codex_home_of(user_env) else {
        return Vec::new();
    };
    let mut out = vec![("CODEX_HOME".into(), home.clone().into_os_string())];
    let config = std::fs::read_to_string(home.join("config.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .unwrap_or_default();
    let keys = config
        .get("model_providers")
        .and_then(toml::Value::as_table)
        .into_iter()
        .flat_map(|p| p.values())
        .filter_map(|p| p.get("env_key").and_then(toml::Value::as_str));
    for key in keys {
        // loki's signing key and home are never the agent's, whatever a config names.
        if key.starts_with("LOKI_RECEIPT_") || key == "LOKI_HOME" {
            continue;
        }
        if let Some(v) = env_value(user_env, key)
            && !out.iter().any(|(k, _)| k == key)
        {
            out.push((key.into(), v));
        }
    }
    out
}

/// Files of the user's Codex home a boxed run gets: its configuration and its login.
const CODEX_FILES: [&str; 2] = ["config.toml", "auth.json"];

/// `env` with `CODEX_HOME` moved to `$HOME/.codex`, holding copies of the user's `config.toml`
/// and `auth.json` (0600), when `CODEX_HOME` names another directory (the box's private `HOME`).
fn codex_private_home(env: &[(OsString, OsString)]) -> std::io::Result<Vec<(OsString, OsString)>> {
    let mut env = env.to_vec();
    let (Some(source), Some(home)) = (codex_home_of(&env), env_value(&env, "HOME")) else {
        return Ok(env);
    };
    let private = PathBuf::from(home).join(".codex");
    if source == private {
        return Ok(env);
    }
    std::fs::create_dir_all(&private)?;
    for name in CODEX_FILES {
        match std::fs::read(source.join(name)) {
            Ok(bytes) => loki_core::fs::write_atomic_mode(&private.join(name), &bytes, 0o600)
                .map_err(std::io::Error::other)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    env.retain(|(k, _)| k != "CODEX_HOME");
    env.push(("CODEX_HOME".into(), private.into_os_string()));
    Ok(env)
}

/// The model of the session `codex exec --json` printed in `stdout` (its `thread.started`), from
/// Codex's session record under `codex_home/sessions` (`turn_context.model`).
fn codex_model(stdout: &str, codex_home: &Path) -> Option<String> {
    let thread = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find(|v| v["type"] == "thread.started")?["thread_id"]
        .as_str()?
        .to_string();
    let suffix = format!("-{thread}.jsonl");
    // sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl
    let mut dirs = vec![(codex_home.join("sessions"), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = entry.path();
            if depth < 3 && path.is_dir() {
                dirs.push((path, depth + 1));
            } else if path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().ends_with(&suffix))
            {
                let text = std::fs::read_to_string(&path).ok()?;
                return text
                    .lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .find(|v| v["type"] == "turn_context")
                    .and_then(|v| v["payload"]["model"].as_str().map(str::to_string));
            }
        }
    }
    None
}

/// Cost and usage an agent reported in its output (pure).
#[must_use]
pub fn reported(kind: CliKind, stdout: &str, stderr: &str) -> (Option<f64>, Option<Usage>) {
    match kind {
        CliKind::Claude => claude_report(stdout),
        CliKind::Codex => (None, codex_usage(stdout)),
        CliKind::Aider => (aider_cost(stdout).or_else(|| aider_cost(stderr)), None),
        CliKind::Opencode => (None, None),
    }
}

/// The last JSON object in `text` that has `key` (whole text first, then line by line from the end).
fn last_json_with(text: &str, key: &str) -> Option<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(text.trim())
        && v.get(key).is_some()
    {
        return Some(v);
    }
    text.lines()
        .rev()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .find(|v| v.get(key).is_some())
}

fn claude_report(stdout: &str) -> (Option<f64>, Option<Usage>) {
    let Some(v) = last_json_with(stdout, "total_cost_usd") else {
        return (None, None);
    };
    let cost = v["total_cost_usd"].as_f64();
    let u = &v["usage"];
    let usage = u.is_object().then(|| Usage {
        input_tokens: u["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
        cache_read_tokens: u["cache_read_input_tokens"].as_u64().unwrap_or(0),
        cache_write_tokens: u["cache_creation_input_tokens"].as_u64().unwrap_or(0),
    });
    (cost, usage)
}

/// Sums the `usage` of codex's `turn.completed` events (`exec --json` JSONL).
fn codex_usage(stdout: &str) -> Option<Usage> {
    let mut total: Option<Usage> = None;
    for v in stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .filter(|v| v["type"] == "turn.completed")
    {
        let u = &v["usage"];
        let cached = u["cached_input_tokens"].as_u64().unwrap_or(0);
        total.get_or_insert_with(Usage::default).add(&Usage {
            input_tokens: u["input_tokens"]
                .as_u64()
                .unwrap_or(0)
                .saturating_sub(cached),
            output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
            cache_read_tokens: cached,
            cache_write_tokens: 0,
        });
    }
    total
}

/// The session total of aider's last `Cost: $X message, $Y session.` line.
fn aider_cost(text: &str) -> Option<f64> {
    let line = text
        .lines()
        .rev()
        .find(|l| l.contains("Cost: $") && l.contains("session"))?;
    let before = line.split(" session").next()?;
    let amount = before.rsplit('$').next()?;
    amount.trim().replace(',', "").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_costs_are_read_and_missing_ones_stay_none() {
        let claude = r#"{"type":"result","subtype":"success","total_cost_usd":0.0421,"usage":{"input_tokens":12,"output_tokens":300,"cache_read_input_tokens":5000,"cache_creation_input_tokens":700}}"#;
        let (c, u) = reported(CliKind::Claude, claude, "");
        assert_eq!(c, Some(0.0421));
        assert_eq!(u.unwrap().cache_read_tokens, 5000);
        assert_eq!(reported(CliKind::Claude, "not json", ""), (None, None));

        let aider = "Tokens: 2.1k sent, 150 received. Cost: $0.0072 message, $0.0315 session.\n";
        assert_eq!(reported(CliKind::Aider, aider, "").0, Some(0.0315));

        let codex = "{\"type\":\"thread.started\"}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":100,\"cached_input_tokens\":40,\"output_tokens\":9}}\n";
        let (c, u) = reported(CliKind::Codex, codex, "");
        assert_eq!(c, None);
        assert_eq!(
            u,
            Some(Usage {
                input_tokens: 60,
                output_tokens: 9,
                cache_read_tokens: 40,
                cache_write_tokens: 0
            })
        );
        assert_eq!(reported(CliKind::Opencode, "done", ""), (None, None));
    }

    #[test]
    #[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
    fn a_boxed_codex_gets_a_copy_of_the_users_config_its_key_and_reports_its_model() {
        let dir = tempfile::tempdir().unwrap();
        let user_codex = dir.path().join("user/.codex");
        std::fs::create_dir_all(&user_codex).unwrap();
        std::fs::write(
            user_codex.join("config.toml"),
            "[model_providers.p]\nenv_key = \"MY_PROVIDER_KEY\"\n[model_providers.q]\nenv_key = \"LOKI_RECEIPT_SIGNING_KEY\"\n",
        )
        .unwrap();
        std::fs::write(user_codex.join("auth.json"), "{}").unwrap();
        std::fs::write(user_codex.join("history.jsonl"), "private").unwrap();
        let os = |a: &str, b: &str| (OsString::from(a), OsString::from(b));
        let user = [
            os("HOME", &dir.path().join("user").display().to_string()),
            os("MY_PROVIDER_KEY", "k1"),
            os("LOKI_RECEIPT_SIGNING_KEY", "signing"),
            os("UNRELATED", "x"),
        ];
        let pass = codex_passthrough(&user);
        assert_eq!(
            pass,
            [
                os("CODEX_HOME", &user_codex.display().to_string()),
                os("MY_PROVIDER_KEY", "k1")
            ]
        );
        // In the box: a private HOME, and CODEX_HOME still naming the user's.
        let private = dir.path().join("box/home");
        let mut env = vec![os("HOME", &private.display().to_string())];
        env.extend(pass);
        let env = codex_private_home(&env).unwrap();
        let moved = private.join(".codex");
        assert_eq!(
            env_value(&env, "CODEX_HOME"),
            Some(moved.clone().into_os_string())
        );
        let mut copied: Vec<String> = std::fs::read_dir(&moved)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        copied.sort();
        assert_eq!(copied, ["auth.json", "config.toml"]);
        // Unboxed (CODEX_HOME is HOME's own): nothing moves.
        let home_env = [os("HOME", &dir.path().join("user").display().to_string())];
        assert_eq!(codex_private_home(&home_env).unwrap(), home_env);

        let sessions = moved.join("sessions/2026/12/02");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(
            sessions.join("rollout-2026-12-02T00-00-00-t-1.jsonl"),
            "{\"type\":\"session_meta\",\"payload\":{}}\n{\"type\":\"turn_context\",\"payload\":{\"model\":\"gpt-x\"}}\n",
        )
        .unwrap();
        let stdout = "{\"type\":\"thread.started\",\"thread_id\":\"t-1\"}\n";
        assert_eq!(codex_model(stdout, &moved).as_deref(), Some("gpt-x"));
        assert_eq!(
            codex_model(
                "{\"type\":\"thread.started\",\"thread_id\":\"t-2\"}",
                &moved
            ),
            None
        );
    }

    #[test]
    fn command_lines_are_non_interactive() {
        assert_eq!(
            CliKind::Claude.args("fix it"),
            [
                "-p",
                "fix it",
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits"
            ]
        );
        assert_eq!(
            CliKind::Codex.args("t"),
            [
                "exec",
                "--json",
                "--dangerously-bypass-approvals-and-sandbox",
                "--skip-git-repo-check",
                "t"
            ]
        );
        assert_eq!(
            CliKind::Aider.args("t"),
            ["--yes-always", "--no-auto-commits", "--message", "t"]
        );
        assert_eq!(CliKind::Opencode.args("t"), ["run", "t"]);
    }
}
