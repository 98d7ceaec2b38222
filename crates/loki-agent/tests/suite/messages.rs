//! The wording of the errors a user reads, pinned.

use std::path::PathBuf;
use std::time::Duration;

use loki_agent::AgentError;

#[test]
fn user_facing_error_messages() {
    let errors = [
        AgentError::Auth {
            provider: "openai",
            status: 401,
            variable: "OPENAI_API_KEY",
            config_key: "openai.api_key",
            body: "Incorrect API key provided".into(),
        },
        AgentError::ContextLength {
            provider: "anthropic",
            message: "prompt is too long: 210000 tokens > 200000 maximum".into(),
        },
        AgentError::RateLimited {
            provider: "anthropic",
            attempts: 5,
            body: String::new(),
        },
        AgentError::StreamIdle {
            provider: "openai",
            idle: Duration::from_secs(300),
        },
        AgentError::CliNotInstalled {
            agent: "claude",
            install: "npm install -g @anthropic-ai/claude-code",
        },
        AgentError::CliTimeout {
            agent: "aider",
            timeout: Duration::from_secs(900),
            tail: "Applied edit to src/lib.rs".into(),
        },
        AgentError::ScriptExhausted {
            path: PathBuf::from("demo.json"),
            session: "fix".into(),
            turn: 5,
            turns: 4,
        },
        AgentError::UnknownProvider { name: "gpt".into() },
        AgentError::MissingSetting {
            provider: "anthropic",
            what: "an API key",
            hint: "set ANTHROPIC_API_KEY (or anthropic.api_key)",
        },
    ];
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    insta::assert_snapshot!(text.join("\n"));
}
