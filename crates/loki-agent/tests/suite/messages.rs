//! The wording of the errors a user reads, pinned.

use std::path::PathBuf;
use std::time::Duration;

use loki_agent::{AgentError, FailureKind, ProviderFailure};
use loki_clients::ClientError;

#[test]
fn user_facing_error_messages() {
    let errors: Vec<AgentError> = vec![
        ProviderFailure::new("openai", FailureKind::Auth, "Incorrect API key provided")
            .with_status(401)
            .at("https://api.openai.com/v1/chat/completions", 1)
            .into(),
        ProviderFailure::new(
            "anthropic",
            FailureKind::ContextLength,
            "prompt is too long: 210000 tokens > 200000 maximum",
        )
        .with_status(400)
        .at("https://api.anthropic.com/v1/messages", 1)
        .into(),
        ProviderFailure::new("anthropic", FailureKind::RateLimited, "")
            .with_status(429)
            .at("https://api.anthropic.com/v1/messages", 3)
            .into(),
        ProviderFailure::new("openai", FailureKind::Timeout, "300s")
            .at("http://localhost:11434/v1/chat/completions", 1)
            .into(),
        ClientError::NotInstalled {
            agent: "claude",
            install: "npm install -g @anthropic-ai/claude-code",
        }
        .into(),
        ClientError::Timeout {
            agent: "aider",
            timeout: Duration::from_secs(900),
            tail: "Applied edit to src/lib.rs".into(),
        }
        .into(),
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
