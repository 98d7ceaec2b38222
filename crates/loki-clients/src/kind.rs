//! The table of CLI agents: one [`CliKind`] arm per client for its name, install hint, scratch
//! files, the variables of its own model, the hosts it may reach, the variables loki sets and
//! the words loki's prompts use for its tools. Argument building is in [`crate::argv`], the
//! user's files and configuration in [`crate::files`].

use std::ffi::OsString;
use std::path::Path;

use crate::files::{PROJECT_CONFIGS, config_files};
use crate::words::{AIDER_WORDS, CLAUDE_WORDS, CODEX_WORDS, OPENCODE_WORDS, ToolWords};

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
