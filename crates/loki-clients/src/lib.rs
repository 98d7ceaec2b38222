//! CLI agents (clients): coding CLIs the user already has (`claude`, `codex`, `aider`, `opencode`),
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
//! - [`report::reported`]: the model, cost and tokens the client printed.
//!
//! | agent | command line |
//! | --- | --- |
//! | claude | `claude -p <task> --output-format json --permission-mode acceptEdits --allowedTools Bash,Edit,Write,Read` |
//! | codex | `codex exec --json --dangerously-bypass-approvals-and-sandbox --skip-git-repo-check <task>` |
//! | aider | `aider --yes-always --no-auto-commits --no-dirty-commits --no-gitignore --no-check-update --analytics-disable --no-pretty --no-fancy-input --message <task>` |
//! | opencode | `opencode run --format json --auto --title loki <task>` |
//!
//! Claude Code in `-p` mode refuses Bash under `acceptEdits` and refuses
//! `bypassPermissions` / `--dangerously-skip-permissions` when run as root (unless `IS_SANDBOX=1`),
//! so Bash is allowed by name (`--allowedTools`), which works for every user: loki's own box is
//! the boundary, not the client's prompts.
//!
//! Each runs through [`loki_process`]: its own process group, stdin null, a timeout after
//! which the whole group is killed ([`ClientError::Timeout`]), output captured and capped.
//! The environment is the caller's ([`CliAgent::env`], by default the current one); the engine
//! narrows it to the box's plus the client's own variables.
//!
//! Cost is what the agent reports, never a guess: claude's `total_cost_usd` (its JSON result),
//! aider's `$… session` cost line, opencode's `step_finish` costs. codex reports tokens, not
//! dollars, so its cost is `None` ("not measured", never 0). The model is the one the client
//! reports (claude's `modelUsage`, aider's `Model:` line, opencode's events), else the one asked
//! for. A missing program is [`ClientError::NotInstalled`] with the install command; a
//! non-zero exit is [`ClientError::Failed`] with the output tail.
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
//!
//! CLI agents are not model providers (`loki-agent` builds the one or the other from the user's
//! choice): they run the whole task in the worktree themselves. A boxed client's network goes
//! through [`egress`], a proxy that forwards only to its own model's hosts.
//!
//! # Modules
//! [`kind`] the table, [`argv`] command lines, [`files`] the user's files and configuration,
//! [`run`] running one, [`report`] parsing what it printed, [`words`] how prompts name its
//! tools, [`usage`] token counts, [`error`] the one error type.
//!
//! # Never
//! Print, copy a file the table does not name, or pass loki's own key or tokens to a client.

pub mod argv;
pub mod egress;
pub mod error;
pub mod files;
pub mod kind;
pub mod report;
pub mod run;
pub mod usage;
pub mod words;

pub use argv::Arg;
pub use error::ClientError;
pub use files::ClientFile;
pub use kind::CliKind;
pub use run::{CliAgent, CliOutcome};
pub use usage::Usage;
pub use words::{CLI_FINISH, ToolWords};
