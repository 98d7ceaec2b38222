//! CLI agents: coding CLIs the user already has (`claude`, `codex`, `aider`, `opencode`),
//! spawned in the worktree with the task as the prompt. They edit files themselves; loki only
//! runs them and reads what they report.
//!
//! # One table per client
//! Everything loki passes to a client or takes from it is in the methods of [`CliKind`], one arm
//! per client, checked against the pinned real programs (`.ci/agents.pins`) by the conformance
//! suite (`crates/loki-cli/tests/all/agents/providers.rs`: every flag in [`CliKind::flags`] is
//! listed by the real program's `--help`):
//! - [`CliKind::argv`]: the non-interactive command line, with `--model` when one was asked for;
//! - [`CliKind::client_files`]: the user's login and configuration files copied into the
//!   agent's private `HOME` (and only those: never loki's key or another program's credentials);
//! - [`CliKind::env_prefixes`]: the variables of the client's own model (its key, its endpoint)
//!   passed through the otherwise scrubbed environment;
//! - [`CliKind::scratch`]: what the client leaves in the worktree that is not the change
//!   (aider's repository-map cache), removed after its session;
//! - [`CliKind::fixed_env`]: variables loki sets (no self-update inside the box, history files
//!   out of the worktree);
//! - [`CliKind::words`]: how loki's prompts name the client's own tools;
//! - [`reported`]: the model, cost and tokens the client printed.
//!
//! | agent | command line |
//! | --- | --- |
//! | claude | `claude -p <task> --output-format json --permission-mode acceptEdits --allowedTools Bash,Edit,Write,Read` |
//! | codex | `codex exec --json --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check <task>` |
//! | aider | `aider --yes-always --no-auto-commits --no-gitignore --no-check-update --analytics-disable --no-pretty --no-fancy-input --message <task>` |
//! | opencode | `opencode run --format json --auto --title loki <task>` |
//!
//! Claude Code in `-p` mode refuses Bash under `acceptEdits` and refuses
//! `bypassPermissions` / `--dangerously-skip-permissions` when run as root (unless `IS_SANDBOX=1`),
//! so Bash is allowed by name (`--allowedTools`), which works for every user: loki's own box is
//! the boundary, not the client's prompts.
//!
//! Each runs through [`loki_core::process`]: its own process group, stdin null, a timeout after
//! which the whole group is killed ([`AgentError::CliTimeout`]), output captured and capped.
//! The environment is the caller's ([`CliAgent::env`], by default the current one); the engine
//! narrows it to the box's plus the client's own variables.
//!
//! Cost is what the agent reports, never a guess: claude's `total_cost_usd` (its JSON result),
//! aider's `$… session` cost line, opencode's `step_finish` costs. codex reports tokens, not
//! dollars, so its cost is `None` ("not measured", never 0). The model is the one the client
//! reports (claude's `modelUsage`, aider's `Model:` line, opencode's events), else the one asked
//! for. A missing program is [`AgentError::CliNotInstalled`] with the install command; a
//! non-zero exit is [`AgentError::CliFailed`] with the output tail.
//!
//! Codex (0.171): `exec` is non-interactive and never asks for approval; its own sandbox is off
//! because loki's box is the boundary (Codex's bubblewrap sandbox cannot nest inside it: Landlock
//! forbids the mounts it makes), and `--skip-git-repo-check` lets it run in any worktree. In the
//! box `HOME` is private, so Codex would find no config: its `config.toml` and `auth.json` (only
//! those, from `CODEX_HOME`, default `~/.codex`) are client files like every client's, copied into
//! the private `$HOME/.codex`, which becomes `CODEX_HOME` (so Codex writes its sessions inside the
//! box), and [`codex_passthrough`] passes the key variables its config's providers read
//! (`env_key`). The model is read from Codex's own session record (`turn_context.model` of the rollout
//! named by `thread.started`'s `thread_id`): `exec --json` does not print it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::error::AgentError;
use crate::message::Usage;
use crate::words::{AIDER_WORDS, CLAUDE_WORDS, CODEX_WORDS, OPENCODE_WORDS, ToolWords};

/// Default time a CLI agent may take: the default run cap (`run.cap_s`).
pub const DEFAULT_CLI_TIMEOUT: Duration = Duration::from_secs(900);
/// Output kept from a CLI agent (head + tail): its final JSON is at the end, its plan at the start.
pub const CLI_OUTPUT_CAP: usize = 4 * 1024 * 1024;
/// Bytes of output quoted in an error.
const ERROR_TAIL_BYTES: usize = 2000;

/// One element of a command line template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// Passed as written.
    Lit(&'static str),
    /// The task (the prompt).
    Task,
    /// The model flag and the model, when one was asked for ([`CliKind::model_flag`]).
    Model,
    /// The flags that hand the client the repository's test command, when the run has one
    /// ([`CliKind::test_flags`]): how a client that cannot run commands on its own (aider asks
    /// before every command it suggests) still runs the tests after its edits.
    Tests,
}

/// A file or directory of the user's that a client needs (its login, its configuration): read
/// from the real home (or the XDG directory the user set) and copied to the same place under
/// the agent's private `HOME`, where the box's `XDG_*` variables point.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientFile {
    /// The XDG variable whose directory holds it, when one does (`XDG_CONFIG_HOME`).
    pub xdg: Option<&'static str>,
    /// That directory's default under `HOME` (`.config`); empty for a file directly under it.
    pub base: &'static str,
    /// The path under that directory.
    pub path: &'static str,
}

impl ClientFile {
    /// A path directly under `HOME`.
    #[must_use]
    pub const fn home(path: &'static str) -> ClientFile {
        ClientFile {
            xdg: None,
            base: "",
            path,
        }
    }

    /// A path under an XDG base directory (`var`, by default `HOME/<base>`).
    #[must_use]
    pub const fn xdg(var: &'static str, base: &'static str, path: &'static str) -> ClientFile {
        ClientFile {
            xdg: Some(var),
            base,
            path,
        }
    }

    /// Where it is for a user whose environment is `env` (`None`: no `HOME`).
    #[must_use]
    pub fn source(&self, env: &[(OsString, OsString)]) -> Option<std::path::PathBuf> {
        let get = |name: &str| {
            env.iter()
                .find(|(k, v)| k == name && !v.is_empty())
                .map(|(_, v)| std::path::PathBuf::from(v))
        };
        let dir = match self.xdg.and_then(get) {
            Some(d) => d,
            None => get("HOME")?.join(self.base),
        };
        Some(dir.join(self.path))
    }

    /// Where it goes under the private home `home`.
    #[must_use]
    pub fn target(&self, home: &Path) -> std::path::PathBuf {
        home.join(self.base).join(self.path)
    }
}

/// Claude Code's login (OAuth tokens).
const CLAUDE_FILES: &[ClientFile] = &[ClientFile::home(".claude/.credentials.json")];
/// Codex's configuration and login, in `CODEX_HOME` (default `~/.codex`); not its history or
/// sessions.
const CODEX_FILES: &[ClientFile] = &[
    ClientFile::xdg("CODEX_HOME", ".codex", "config.toml"),
    ClientFile::xdg("CODEX_HOME", ".codex", "auth.json"),
];
/// aider's configuration, model settings, and OpenRouter's OAuth key, which aider's own login
/// writes. Not `~/.env`, which aider also reads: it is every program's, with their secrets.
const AIDER_FILES: &[ClientFile] = &[
    ClientFile::home(".aider.conf.yml"),
    ClientFile::home(".aider.model.settings.yml"),
    ClientFile::home(".aider.model.metadata.json"),
    ClientFile::home(".aider/oauth-keys.env"),
];
/// opencode's configuration directory and its logins (`opencode auth login`).
const OPENCODE_FILES: &[ClientFile] = &[
    ClientFile::xdg("XDG_CONFIG_HOME", ".config", "opencode"),
    ClientFile::xdg("XDG_DATA_HOME", ".local/share", "opencode/auth.json"),
];

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

    /// Whether it reports its cost in dollars (claude's `total_cost_usd`, aider's cost line,
    /// opencode's `step_finish` events): only then can a dollar cap hold.
    #[must_use]
    pub fn reports_cost(self) -> bool {
        match self {
            CliKind::Claude | CliKind::Aider | CliKind::Opencode => true,
            CliKind::Codex => false,
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

    /// The command line template: literal arguments and where the task goes ([`Arg::Task`]).
    #[must_use]
    pub fn template(self) -> &'static [Arg] {
        use Arg::{Lit, Model, Task, Tests};
        match self {
            CliKind::Claude => &[
                Lit("-p"),
                Task,
                Lit("--output-format"),
                Lit("json"),
                Lit("--permission-mode"),
                Lit("acceptEdits"),
                Lit("--allowedTools"),
                Lit("Bash,Edit,Write,Read"),
                Model,
            ],
            CliKind::Codex => &[
                Lit("exec"),
                Lit("--json"),
                Lit("--dangerously-bypass-approvals-and-sandbox"),
                Lit("--skip-git-repo-check"),
                Task,
            ],
            CliKind::Aider => &[
                Lit("--yes-always"),
                Lit("--no-auto-commits"),
                // Otherwise aider adds `.aider*` to the worktree's .gitignore: a change loki
                // would commit.
                Lit("--no-gitignore"),
                Lit("--no-check-update"),
                Lit("--analytics-disable"),
                Lit("--no-pretty"),
                Lit("--no-fancy-input"),
                Model,
                Tests,
                Lit("--message"),
                Task,
            ],
            CliKind::Opencode => &[
                Lit("run"),
                Lit("--format"),
                Lit("json"),
                Lit("--auto"),
                // A title of its own: otherwise opencode first asks the model for one.
                Lit("--title"),
                Lit("loki"),
                Model,
                Task,
            ],
        }
    }

    /// The flag that names the model (`None`: loki cannot choose it).
    #[must_use]
    pub fn model_flag(self) -> Option<&'static str> {
        match self {
            CliKind::Claude | CliKind::Aider | CliKind::Opencode => Some("--model"),
            CliKind::Codex => None,
        }
    }

    /// Every flag loki may pass (the conformance suite checks each against the real `--help`).
    #[must_use]
    pub fn flags(self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = self
            .template()
            .iter()
            .filter_map(|a| match a {
                Arg::Lit(l) if l.starts_with('-') => Some(*l),
                _ => None,
            })
            .collect();
        out.extend(self.model_flag());
        out.extend(self.test_flags().iter().filter(|f| f.starts_with('-')));
        out
    }

    /// How the test command is passed (`{cmd}` stands for it): aider runs it after each edit
    /// and gives the model the failures (`--auto-test`). Empty for clients that run commands
    /// themselves.
    #[must_use]
    pub fn test_flags(self) -> &'static [&'static str] {
        match self {
            CliKind::Aider => &["--test-cmd", "{cmd}", "--auto-test"],
            CliKind::Claude | CliKind::Codex | CliKind::Opencode => &[],
        }
    }

    /// The non-interactive arguments for `task` (and `model`, when one was asked for and the
    /// client takes one).
    #[must_use]
    pub fn argv(self, task: &str, model: Option<&str>) -> Vec<String> {
        self.argv_with_tests(task, model, None)
    }

    /// [`CliKind::argv`] with the repository's test command, for the clients that take one.
    #[must_use]
    pub fn argv_with_tests(
        self,
        task: &str,
        model: Option<&str>,
        tests: Option<&str>,
    ) -> Vec<String> {
        let mut args = Vec::new();
        for a in self.template() {
            match a {
                Arg::Lit(l) => args.push((*l).to_string()),
                Arg::Task => args.push(task.to_string()),
                Arg::Tests => {
                    if let Some(cmd) = tests {
                        args.extend(self.test_flags().iter().map(|f| {
                            if *f == "{cmd}" {
                                cmd.to_string()
                            } else {
                                (*f).to_string()
                            }
                        }));
                    }
                }
                Arg::Model => {
                    if let (Some(flag), Some(model)) = (self.model_flag(), model) {
                        args.push(flag.to_string());
                        args.push(model.to_string());
                    }
                }
            }
        }
        args
    }

    /// The non-interactive arguments for `task`, without a model.
    #[must_use]
    pub fn args(self, task: &str) -> Vec<String> {
        self.argv(task, None)
    }

    /// The user's files the client needs to be logged in and configured, copied into the
    /// agent's private `HOME` (see [`ClientFile`]). Verified against the real programs: a
    /// logged-in Claude Code needs only `~/.claude/.credentials.json` (its OAuth tokens; on
    /// Linux there is no keychain), not `~/.claude.json` (per-project history) or
    /// `~/.claude/settings.json` (the user's hooks, which would run inside the box).
    #[must_use]
    pub fn client_files(self) -> &'static [ClientFile] {
        match self {
            CliKind::Claude => CLAUDE_FILES,
            CliKind::Codex => CODEX_FILES,
            CliKind::Aider => AIDER_FILES,
            CliKind::Opencode => OPENCODE_FILES,
        }
    }

    /// Name prefixes of the scratch files the client leaves at the top of its working directory
    /// (caches, histories): removed after its session when they were not there before, so that
    /// they are not part of the change.
    #[must_use]
    pub fn scratch(self) -> &'static [&'static str] {
        match self {
            // Its repository map's cache (`.aider.tags.cache.v4/`) has no setting to move it.
            CliKind::Aider => &[
                ".aider.tags.cache.v",
                ".aider.chat.history",
                ".aider.input.history",
            ],
            CliKind::Claude | CliKind::Codex | CliKind::Opencode => &[],
        }
    }

    /// Prefixes of the variables of the client's own model (keys, endpoints, its settings),
    /// passed to it although the box scrubs secrets from everything else.
    #[must_use]
    pub fn env_prefixes(self) -> &'static [&'static str] {
        match self {
            CliKind::Claude => &["ANTHROPIC_", "CLAUDE_"],
            CliKind::Codex => &["OPENAI_", "CODEX_"],
            // aider reaches every provider litellm knows; these are the keys its docs name.
            CliKind::Aider => &[
                "AIDER_",
                "OPENAI_",
                "ANTHROPIC_",
                "GEMINI_",
                "OPENROUTER_",
                "DEEPSEEK_",
                "GROQ_",
                "MISTRAL_",
                "XAI_",
                "OLLAMA_",
            ],
            CliKind::Opencode => &[
                "OPENCODE_",
                "OPENAI_",
                "ANTHROPIC_",
                "GOOGLE_GENERATIVE_AI_",
                "OPENROUTER_",
                "GROQ_",
                "DEEPSEEK_",
                "XAI_",
            ],
        }
    }

    /// The hosts of the client's own model service (its API, its login), which loki's egress
    /// proxy forwards to when the agent's network is off ([`crate::egress`]); the endpoints its
    /// own variables name are added by [`CliKind::egress_allowlist`].
    #[must_use]
    pub fn model_hosts(self) -> &'static [&'static str] {
        match self {
            CliKind::Claude => &[
                "api.anthropic.com:443",
                "console.anthropic.com:443",
                "platform.claude.com:443",
                "claude.ai:443",
            ],
            CliKind::Codex => &[
                "api.openai.com:443",
                "auth.openai.com:443",
                "chatgpt.com:443",
            ],
            CliKind::Aider => &[
                "api.openai.com:443",
                "api.anthropic.com:443",
                "generativelanguage.googleapis.com:443",
                "openrouter.ai:443",
                "api.deepseek.com:443",
                "api.groq.com:443",
                "api.mistral.ai:443",
                "api.x.ai:443",
                "localhost:11434",
                "127.0.0.1:11434",
            ],
            CliKind::Opencode => &[
                "api.openai.com:443",
                "api.anthropic.com:443",
                "generativelanguage.googleapis.com:443",
                "openrouter.ai:443",
                "api.groq.com:443",
                "api.deepseek.com:443",
                "api.x.ai:443",
                "models.dev:443",
                "opencode.ai:443",
            ],
        }
    }

    /// Where the client may connect when its network is off: [`CliKind::model_hosts`], every
    /// `http(s)://` endpoint named by a variable of its own ([`CliKind::env_prefixes`]: a base
    /// URL pointing at a proxy, a gateway or a local server) in `env`, and every endpoint its
    /// configuration names ([`crate::egress::configured_endpoints`]): the files under `home`
    /// (the private home holding the client's copied files) and the clients' project files at
    /// the top of `workdir` ([`PROJECT_CONFIGS`]; no other file of the repository), sorted, once
    /// each.
    #[must_use]
    pub fn egress_allowlist(
        self,
        env: &[(OsString, OsString)],
        home: &Path,
        workdir: &Path,
    ) -> Vec<crate::egress::HostPort> {
        let mut out: Vec<crate::egress::HostPort> = self
            .model_hosts()
            .iter()
            .filter_map(|h| crate::egress::HostPort::parse(h, 443))
            .collect();
        for (k, v) in env {
            let name = k.to_string_lossy();
            if !self.env_prefixes().iter().any(|p| name.starts_with(p)) {
                continue;
            }
            let value = v.to_string_lossy();
            if let Some(hp) = crate::egress::HostPort::from_url(&value) {
                out.push(hp);
            } else if name == "OLLAMA_HOST"
                && let Some(hp) = crate::egress::HostPort::parse(&value, 11434)
            {
                out.push(hp);
            }
        }
        let project = PROJECT_CONFIGS.iter().map(|f| workdir.join(f));
        for file in config_files(home).into_iter().chain(project) {
            let small = std::fs::symlink_metadata(&file)
                .is_ok_and(|m| m.is_file() && m.len() <= 256 * 1024);
            if small && let Ok(text) = std::fs::read_to_string(&file) {
                out.extend(crate::egress::configured_endpoints(&text));
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// Variables loki sets for the client: `(name, value)`, where a value starting with
    /// `$TMPDIR/` or `$HOME/` is under the agent's private temporary directory or home.
    #[must_use]
    pub fn fixed_env(self) -> &'static [(&'static str, &'static str)] {
        match self {
            // The install is read-only in the box: no self-update.
            CliKind::Claude => &[("DISABLE_AUTOUPDATER", "1")],
            // Its copied config and login ([`CliKind::client_files`]); its sessions go there too.
            CliKind::Codex => &[("CODEX_HOME", "$HOME/.codex")],
            // Its history files default to the git root: the worktree, where loki would commit
            // them.
            CliKind::Aider => &[
                ("AIDER_CHAT_HISTORY_FILE", "$TMPDIR/aider.chat.history.md"),
                ("AIDER_INPUT_HISTORY_FILE", "$TMPDIR/aider.input.history"),
                // litellm's bundled prices, not a download at every start.
                ("LITELLM_LOCAL_MODEL_COST_MAP", "True"),
                // Without a git identity (the private home has no ~/.gitconfig) aider writes
                // one into the repository's config, which is read-only in the box: it crashes.
                // It never commits here (--no-auto-commits); `git config` reads these first.
                ("GIT_CONFIG_COUNT", "2"),
                ("GIT_CONFIG_KEY_0", "user.name"),
                ("GIT_CONFIG_VALUE_0", "loki agent"),
                ("GIT_CONFIG_KEY_1", "user.email"),
                ("GIT_CONFIG_VALUE_1", "agent@loki.invalid"),
            ],
            CliKind::Opencode => &[("OPENCODE_DISABLE_AUTOUPDATE", "1")],
        }
    }

    /// How loki's prompts name this client's tools.
    #[must_use]
    pub fn words(self) -> &'static ToolWords {
        match self {
            CliKind::Claude => &CLAUDE_WORDS,
            CliKind::Codex => &CODEX_WORDS,
            CliKind::Aider => &AIDER_WORDS,
            CliKind::Opencode => &OPENCODE_WORDS,
        }
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
    /// The model the agent reported it used (else the one it was asked to use).
    pub model: Option<String>,
    /// Its final reply, when it reports one apart from its log (claude's `result`, opencode's
    /// last text); otherwise its whole stdout.
    pub reply: String,
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
    /// The model asked for (`--model`); `None`: the client's own default.
    pub model: Option<String>,
    /// The repository's test command, for clients that take one ([`CliKind::test_flags`]).
    pub test_command: Option<String>,
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
            model: None,
            test_command: None,
        }
    }

    /// Runs the agent on `task` in `worktree`, blocking the thread.
    pub fn run_blocking(&self, task: &str, worktree: &Path) -> Result<CliOutcome, AgentError> {
        let agent = self.kind.name();
        let spec = loki_core::process::Spec::new(self.program.clone(), worktree)
            .args(self.kind.argv_with_tests(
                task,
                self.model.as_deref(),
                self.test_command.as_deref(),
            ))
            .envs(self.env.clone())
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
        let r = reported(self.kind, &stdout, &stderr);
        let codex_model = match self.kind {
            CliKind::Codex => codex_home_of(&self.env).and_then(|home| codex_model(&stdout, &home)),
            CliKind::Claude | CliKind::Aider | CliKind::Opencode => None,
        };
        Ok(CliOutcome {
            agent,
            command,
            exit_code: out.exit_code(),
            cost_usd: r.cost_usd,
            usage: r.usage,
            model: r.model.or(codex_model).or_else(|| self.model.clone()),
            reply: r.reply.unwrap_or_else(|| stdout.clone()),
            stdout,
            stderr,
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

/// The clients' project configuration files, relative to the working directory: the endpoints
/// they name are the client's too.
pub const PROJECT_CONFIGS: &[&str] = &[
    "opencode.json",
    "opencode.jsonc",
    ".aider.conf.yml",
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".codex/config.toml",
];

/// Configuration files under `dir` (three levels down at most, hidden directories included:
/// `~/.codex/config.toml`, `~/.config/opencode/opencode.json`, `.aider.conf.yml`), by extension,
/// at most 256 KiB each and 200 in all; symbolic links are not followed.
fn config_files(dir: &Path) -> Vec<std::path::PathBuf> {
    const EXTENSIONS: [&str; 6] = ["toml", "json", "jsonc", "yml", "yaml", "env"];
    const MAX_BYTES: u64 = 256 * 1024;
    let mut out = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    while let Some((d, depth)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(meta) = std::fs::symlink_metadata(e.path()) else {
                continue;
            };
            let path = e.path();
            if meta.is_dir() && depth < 3 {
                // Histories, caches and sessions are not configuration.
                let name = e.file_name();
                let skip = [
                    "node_modules",
                    "projects",
                    "sessions",
                    "cache",
                    "log",
                    "logs",
                    ".git",
                ]
                .iter()
                .any(|n| name == *n);
                if !skip {
                    stack.push((path, depth + 1));
                }
            } else if meta.is_file()
                && meta.len() <= MAX_BYTES
                && path
                    .extension()
                    .and_then(|x| x.to_str())
                    .is_some_and(|x| EXTENSIONS.contains(&x))
            {
                out.push(path);
                if out.len() >= 200 {
                    return out;
                }
            }
        }
    }
    out
}

/// What a boxed Codex needs from the user's environment `user_env` besides its files (the engine
/// adds it to the box's scrubbed one): every variable a `[model_providers.*] env_key` of the
/// user's `config.toml` names that `user_env` sets (the built-in
/// OpenAI provider's `OPENAI_API_KEY` passes as any `OPENAI_` variable does). Nothing else of the
/// user's: loki's own key and tokens stay out.
#[must_use]
pub fn codex_passthrough(user_env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    let Some(home) = codex_home_of(user_env) else {
        return Vec::new();
    };
    let mut out: Vec<(OsString, OsString)> = Vec::new();
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

/// What an agent reported in its output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reported {
    pub cost_usd: Option<f64>,
    pub usage: Option<Usage>,
    pub model: Option<String>,
    /// Its final reply, when its output has one apart from the log.
    pub reply: Option<String>,
}

/// Cost, usage, model and final reply an agent reported in its output (pure).
#[must_use]
pub fn reported(kind: CliKind, stdout: &str, stderr: &str) -> Reported {
    match kind {
        CliKind::Claude => claude_report(stdout),
        CliKind::Codex => Reported {
            usage: codex_usage(stdout),
            ..Reported::default()
        },
        CliKind::Aider => Reported {
            cost_usd: aider_cost(stdout).or_else(|| aider_cost(stderr)),
            model: aider_model(stdout).or_else(|| aider_model(stderr)),
            ..Reported::default()
        },
        CliKind::Opencode => opencode_report(stdout),
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

/// Claude Code's `--output-format json` result: `total_cost_usd`, `usage`, `result` (the final
/// reply) and `modelUsage` (per model: tokens and `costUSD`); the model is the one that cost the
/// most (the main model; a small one may answer side questions).
fn claude_report(stdout: &str) -> Reported {
    let Some(v) = last_json_with(stdout, "total_cost_usd") else {
        return Reported::default();
    };
    let u = &v["usage"];
    let usage = u.is_object().then(|| Usage {
        input_tokens: u["input_tokens"].as_u64().unwrap_or(0),
        output_tokens: u["output_tokens"].as_u64().unwrap_or(0),
        cache_read_tokens: u["cache_read_input_tokens"].as_u64().unwrap_or(0),
        cache_write_tokens: u["cache_creation_input_tokens"].as_u64().unwrap_or(0),
    });
    let model = v["modelUsage"].as_object().and_then(|m| {
        m.iter()
            .max_by(|(_, a), (_, b)| {
                let key = |x: &Value| {
                    (
                        x["costUSD"].as_f64().unwrap_or(0.0),
                        x["outputTokens"].as_u64().unwrap_or(0),
                    )
                };
                let (ca, oa) = key(a);
                let (cb, ob) = key(b);
                ca.total_cmp(&cb).then(oa.cmp(&ob))
            })
            .map(|(name, _)| name.clone())
    });
    Reported {
        cost_usd: v["total_cost_usd"].as_f64(),
        usage,
        model,
        reply: v["result"].as_str().map(str::to_string),
    }
}

/// opencode's `run --format json` events (one JSON object a line): `step_finish` parts carry
/// each step's `cost` and `tokens`; `text` parts the replies; the model is not in the events.
fn opencode_report(stdout: &str) -> Reported {
    let mut r = Reported::default();
    for v in stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
    {
        let part = &v["part"];
        match v["type"].as_str() {
            Some("step_finish") => {
                if let Some(c) = part["cost"].as_f64() {
                    *r.cost_usd.get_or_insert(0.0) += c;
                }
                let t = &part["tokens"];
                if t.is_object() {
                    r.usage.get_or_insert_with(Usage::default).add(&Usage {
                        input_tokens: t["input"].as_u64().unwrap_or(0),
                        output_tokens: t["output"].as_u64().unwrap_or(0)
                            + t["reasoning"].as_u64().unwrap_or(0),
                        cache_read_tokens: t["cache"]["read"].as_u64().unwrap_or(0),
                        cache_write_tokens: t["cache"]["write"].as_u64().unwrap_or(0),
                    });
                }
            }
            Some("text") => {
                if let Some(t) = part["text"].as_str() {
                    r.reply = Some(t.to_string());
                }
            }
            _ => {}
        }
    }
    r
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

/// The model of aider's `Model: <name> with <format> edit format` line (`Main model:` when it
/// also names a weak model).
fn aider_model(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l
            .trim()
            .strip_prefix("Main model: ")
            .or_else(|| l.trim().strip_prefix("Model: "))?;
        let name = rest.split(" with ").next()?.trim();
        (!name.is_empty()).then(|| name.to_string())
    })
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
        let claude = r#"{"type":"result","subtype":"success","result":"DONE","total_cost_usd":0.0421,"usage":{"input_tokens":12,"output_tokens":300,"cache_read_input_tokens":5000,"cache_creation_input_tokens":700},"modelUsage":{"claude-haiku-4-5":{"outputTokens":9,"costUSD":0.0001},"claude-sonnet-4-5":{"outputTokens":300,"costUSD":0.042}}}"#;
        let r = reported(CliKind::Claude, claude, "");
        assert_eq!(r.cost_usd, Some(0.0421));
        assert_eq!(r.usage.unwrap().cache_read_tokens, 5000);
        assert_eq!(r.model.as_deref(), Some("claude-sonnet-4-5"));
        assert_eq!(r.reply.as_deref(), Some("DONE"));
        assert_eq!(
            reported(CliKind::Claude, "not json", ""),
            Reported::default()
        );

        let aider = "Model: openai/gpt-4.1 with diff edit format\nTokens: 2.1k sent, 150 received. Cost: $0.0072 message, $0.0315 session.\n";
        let r = reported(CliKind::Aider, aider, "");
        assert_eq!(r.cost_usd, Some(0.0315));
        assert_eq!(r.model.as_deref(), Some("openai/gpt-4.1"));

        let codex = "{\"type\":\"thread.started\"}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":100,\"cached_input_tokens\":40,\"output_tokens\":9}}\n";
        let r = reported(CliKind::Codex, codex, "");
        assert_eq!(r.cost_usd, None);
        assert_eq!(
            r.usage,
            Some(Usage {
                input_tokens: 60,
                output_tokens: 9,
                cache_read_tokens: 40,
                cache_write_tokens: 0
            })
        );
        assert_eq!(reported(CliKind::Opencode, "done", ""), Reported::default());
    }

    #[test]
    #[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
    fn a_boxed_codex_gets_the_users_config_its_key_and_reports_its_model() {
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
        assert_eq!(codex_passthrough(&user), [os("MY_PROVIDER_KEY", "k1")]);
        // Its config and login only, from CODEX_HOME when set, else ~/.codex; into the private
        // home's .codex, which CODEX_HOME then names.
        let sources: Vec<PathBuf> = CliKind::Codex
            .client_files()
            .iter()
            .filter_map(|f| f.source(&user))
            .collect();
        assert_eq!(
            sources,
            [user_codex.join("config.toml"), user_codex.join("auth.json")]
        );
        let elsewhere = [os("HOME", "/h"), os("CODEX_HOME", "/elsewhere")];
        assert_eq!(
            CliKind::Codex.client_files()[0].source(&elsewhere),
            Some(PathBuf::from("/elsewhere/config.toml"))
        );
        let private = dir.path().join("box/home");
        let moved = private.join(".codex");
        assert_eq!(
            CliKind::Codex.client_files()[1].target(&private),
            moved.join("auth.json")
        );
        assert_eq!(CliKind::Codex.fixed_env(), [("CODEX_HOME", "$HOME/.codex")]);

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
    fn command_lines_are_non_interactive_and_take_the_model_before_the_task() {
        assert_eq!(
            CliKind::Claude.args("fix it"),
            [
                "-p",
                "fix it",
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits",
                "--allowedTools",
                "Bash,Edit,Write,Read"
            ]
        );
        assert_eq!(
            CliKind::Claude.argv("t", Some("claude-sonnet-4-5"))[8..],
            ["--model", "claude-sonnet-4-5"]
        );
        let aider = CliKind::Aider.argv("t", Some("openai/gpt-4.1"));
        assert_eq!(
            aider[aider.len() - 4..],
            ["--model", "openai/gpt-4.1", "--message", "t"]
        );
        assert_eq!(
            CliKind::Opencode.argv("t", Some("fake/m")),
            [
                "run", "--format", "json", "--auto", "--title", "loki", "--model", "fake/m", "t"
            ]
        );
        assert!(CliKind::Aider.flags().contains(&"--no-gitignore"));
    }

    #[test]
    fn client_files_come_from_the_users_home_or_xdg_dirs() {
        let env = |v: &[(&str, &str)]| -> Vec<(OsString, OsString)> {
            v.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect()
        };
        let f = ClientFile::xdg("XDG_CONFIG_HOME", ".config", "opencode");
        assert_eq!(
            f.source(&env(&[("HOME", "/h")])),
            Some("/h/.config/opencode".into())
        );
        assert_eq!(
            f.source(&env(&[("HOME", "/h"), ("XDG_CONFIG_HOME", "/x")])),
            Some("/x/opencode".into())
        );
        assert_eq!(
            f.target(Path::new("/p/home")),
            Path::new("/p/home/.config/opencode")
        );
        let c = ClientFile::home(".claude/.credentials.json");
        assert_eq!(c.source(&env(&[])), None);
        assert_eq!(
            c.target(Path::new("/p")),
            Path::new("/p/.claude/.credentials.json")
        );
    }
}
