//! The editor: one model call that reads the failed runs and the current instructions and answers
//! with a [`Proposal`]; and the reflection, one call that says why a rejected or rolled-back
//! proposal failed, kept for the next cycle's editor.
//!
//! The editor gets the `propose` tool (its input schema is the proposal's) and must call it; a
//! JSON object in its text is accepted too. It sees the training runs' tasks, failure summaries
//! and the ends of their transcripts, the current files in full, and the last reflections; never
//! the protected cases (the holdout). The call is bounded by a wall timeout: past it, or when the
//! model call fails, the cycle is an `outage`.
//!
//! Any provider can edit. A model of the built-in loop (Anthropic, OpenAI-compatible, scripted,
//! replay) gets one request with the `propose` tool; the scripted provider plays the sessions
//! named [`EDITOR_SESSION`] and [`REFLECT_SESSION`]. A CLI agent (Claude Code, Codex, aider,
//! opencode) runs once in the model box as the wall author does (an empty directory, no
//! repository, loki's home and the user's credentials denied) and answers with the proposal as
//! JSON in its final message.

use std::time::Duration;

use loki_agent::{Backend, Message, Request, ToolSpec};
use loki_clients::Usage;
use loki_instructions::AgentFiles;
use serde_json::json;

use crate::cases::Case;
use crate::proposal::Proposal;

/// The scripted session label of the editor.
pub const EDITOR_SESSION: &str = "editor";
/// The scripted session label of a reflection.
pub const REFLECT_SESSION: &str = "reflect";
/// Output tokens an editor answer may take (whole instruction files).
const EDITOR_MAX_OUTPUT: u32 = 16_384;
/// Output tokens of a reflection (a paragraph).
const REFLECT_MAX_OUTPUT: u32 = 1_024;

const EDITOR_SYSTEM: &str = "You improve the instructions of a coding agent. The agent works on tasks in a git repository; loki verifies its changes with the repository's real tests and refuses cheats (deleted, skipped or weakened tests). You are shown runs that failed under the current instructions. Find what the instructions should have told the agent so that runs like these succeed, and propose the smallest edit of the instruction files that says it. Only `instructions.md` and `skills/<name>/SKILL.md` (YAML frontmatter with `name` equal to the directory and a `description`, then the body) can be written. Keep what works; never tell the agent to weaken, skip or delete tests. Answer by calling the `propose` tool once. To keep the instructions as they are, call it with no files.";

const REFLECT_SYSTEM: &str = "You review a failed attempt to improve a coding agent's instructions. In a short paragraph, say why the proposal did not help (or did harm) and what a next proposal should do differently. Answer in plain text.";

/// What an editor call produced.
#[derive(Debug, Clone, PartialEq)]
pub enum EditorAnswer {
    Proposal(Proposal),
    /// The answer was not a proposal: why.
    Malformed(String),
}

/// Why an editor call produced nothing (an outage of the model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outage(pub String);

fn propose_tool() -> ToolSpec {
    ToolSpec {
        name: "propose".to_string(),
        description: "Propose new contents for the agent's instruction files.".to_string(),
        parameters: json!({
            "type": "object",
            "properties": {
                "files": {"type": "array", "items": {"type": "object",
                    "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                    "required": ["path", "content"], "additionalProperties": false}},
                "delete": {"type": "array", "items": {"type": "string"}},
                "rationale": {"type": "string"}
            },
            "required": ["files", "rationale"],
            "additionalProperties": false
        }),
    }
}

/// The editor's brief.
#[must_use]
pub fn brief(
    repo: &loki_core::layout::Repo,
    training: &[Case],
    current: &AgentFiles,
    reflections: &[String],
) -> String {
    let mut s = String::from("Runs that failed under the current instructions:\n");
    for (i, c) in training.iter().enumerate() {
        s.push_str(&format!(
            "\n## Run {} ({}, outcome {})\nTask:\n<task>\n{}\n</task>\nWhat failed:\n{}\nEnd of its transcript:\n<transcript>\n{}\n</transcript>\n",
            i + 1,
            c.run,
            c.outcome,
            c.task.trim(),
            crate::cases::failure_summary(repo, &c.run),
            crate::cases::transcript_tail(repo, &c.run)
        ));
    }
    s.push_str("\nThe current instruction files (paths relative to .loki/agent/):\n");
    if current.is_empty() {
        s.push_str("(none yet)\n");
    }
    for f in &current.files {
        s.push_str(&format!(
            "\n<file path=\"{}\">\n{}\n</file>\n",
            f.path, f.content
        ));
    }
    if !reflections.is_empty() {
        s.push_str("\nWhat earlier attempts taught (do not repeat them):\n");
        for r in reflections {
            s.push_str(&format!("- {}\n", r.trim()));
        }
    }
    s
}

/// What a CLI agent needs to run in the model box: the repository (denied to it), loki's home
/// and the signing key file (denied), and the `loki` binary that applies the box.
#[derive(Debug, Clone)]
pub struct EditorBox {
    pub repo: loki_core::layout::Repo,
    pub secrets: Vec<std::path::PathBuf>,
    pub confine_exe: Option<std::path::PathBuf>,
}

/// Tells a CLI agent how to answer (it has no `propose` tool).
const CLI_ANSWER: &str = "Do not create or edit any file. End with your answer as one JSON object in your final message, nothing after it: {\"files\": [{\"path\": \"instructions.md\", \"content\": \"...\"}], \"delete\": [], \"rationale\": \"...\"} (no files to keep the instructions as they are).";

async fn cli_call(
    agent: &loki_clients::CliAgent,
    req: &Request,
    timeout: Duration,
    boxed: &EditorBox,
) -> Result<(loki_agent::Response, Usage), Outage> {
    let outage = |e: &dyn std::fmt::Display| Outage(e.to_string());
    let private = loki_core::scratch::Scratch::new("loki-editor-").map_err(|e| outage(&e))?;
    let work = private.path().join("work");
    std::fs::create_dir_all(&work).map_err(|e| outage(&e))?;
    let fence = loki_engine::fence::Fence::for_author(private.path(), &boxed.repo.root, &work)
        .map_err(|e| outage(&e))?;
    let wrapper = match &boxed.confine_exe {
        Some(exe) if loki_process::confine::available() => fence
            .policy(
                &boxed.repo,
                loki_engine::fence::Scope::Author,
                &boxed.secrets,
                // A CLI agent talks to its own model: the egress proxy below limits it to that.
                loki_process::confine::Network::Allowed,
            )
            .wrapper(exe),
        _ => Vec::new(),
    };
    // Its commands reach only its model, through loki's egress proxy (alive until the answer).
    let (mut agent, _egress) = loki_engine::session::boxed_cli(
        agent,
        &fence,
        &wrapper,
        &work,
        loki_process::confine::Network::Denied,
    )
    .map_err(|e| outage(&e))?;
    agent.timeout = agent.timeout.min(timeout);
    let mut prompt = req.system.clone();
    for m in &req.messages {
        if let Message::User { text } = m {
            prompt.push_str("\n\n");
            prompt.push_str(text);
        }
    }
    if !req.tools.is_empty() {
        prompt.push_str("\n\n");
        prompt.push_str(CLI_ANSWER);
    }
    let out = agent.run(&prompt, &work).await.map_err(|e| outage(&e))?;
    if out.exit_code != 0 {
        return Err(Outage(format!(
            "{} exited with {}: {}",
            out.agent,
            out.exit_code,
            out.stderr.lines().last().unwrap_or_default()
        )));
    }
    let usage = out.usage.unwrap_or_default();
    Ok((
        loki_agent::Response {
            text: Some(out.reply),
            tool_calls: Vec::new(),
            usage,
            stop: loki_agent::StopReason::EndTurn,
            model: out.model.unwrap_or_default(),
        },
        usage,
    ))
}

async fn one_call(
    backend: &Backend,
    label: &str,
    req: Request,
    timeout: Duration,
    boxed: &EditorBox,
) -> Result<(loki_agent::Response, Usage), Outage> {
    let provider = match backend {
        Backend::Loop(p) => p,
        Backend::Cli(agent) => {
            return match tokio::time::timeout(timeout, cli_call(agent, &req, timeout, boxed)).await
            {
                Ok(r) => r,
                Err(_) => Err(Outage(format!(
                    "the {label} session took longer than {}s (editor_timeout_s)",
                    timeout.as_secs()
                ))),
            };
        }
    };
    provider
        .begin_session(Some(label))
        .map_err(|e| Outage(e.to_string()))?;
    match tokio::time::timeout(timeout, provider.complete(&req)).await {
        Err(_) => Err(Outage(format!(
            "the {label} session took longer than {}s (editor_timeout_s)",
            timeout.as_secs()
        ))),
        Ok(Err(e)) => Err(Outage(e.to_string())),
        Ok(Ok(r)) => {
            let usage = r.usage;
            Ok((r, usage))
        }
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, Outage> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Outage(format!("cannot start the async runtime: {e}")))
}

/// Asks the editor for a proposal, its answer bounded by `tokens_left` of the cycle's cap. Tokens
/// spent are returned with the answer.
pub fn propose(
    backend: &Backend,
    brief: &str,
    timeout: Duration,
    tokens_left: u64,
    boxed: &EditorBox,
) -> Result<(EditorAnswer, u64), Outage> {
    let req = Request {
        system: EDITOR_SYSTEM.to_string(),
        messages: vec![Message::User {
            text: brief.to_string(),
        }],
        tools: vec![propose_tool()],
        max_output_tokens: u32::try_from(tokens_left)
            .unwrap_or(u32::MAX)
            .clamp(1, EDITOR_MAX_OUTPUT),
    };
    let rt = runtime()?;
    let (resp, usage) = rt.block_on(one_call(backend, EDITOR_SESSION, req, timeout, boxed))?;
    rt.shutdown_background();
    let tokens = usage.total();
    let answer = if let Some(call) = resp.tool_calls.iter().find(|c| c.name == "propose") {
        serde_json::from_value::<Proposal>(call.arguments.clone()).map_or_else(
            |e| {
                EditorAnswer::Malformed(format!(
                    "the propose call's arguments are not a proposal: {e}"
                ))
            },
            EditorAnswer::Proposal,
        )
    } else {
        match Proposal::parse(resp.text.as_deref().unwrap_or_default()) {
            Ok(p) => EditorAnswer::Proposal(p),
            Err(e) => EditorAnswer::Malformed(e.to_string()),
        }
    };
    Ok((answer, tokens))
}

/// Asks for one reflection on a failed proposal.
pub fn reflect(
    backend: &Backend,
    proposal: &str,
    what_happened: &str,
    timeout: Duration,
    boxed: &EditorBox,
) -> Result<(String, u64), Outage> {
    let req = Request {
        system: REFLECT_SYSTEM.to_string(),
        messages: vec![Message::User {
            text: format!("The proposal:\n{proposal}\n\nWhat happened to it:\n{what_happened}\n"),
        }],
        tools: Vec::new(),
        max_output_tokens: REFLECT_MAX_OUTPUT,
    };
    let rt = runtime()?;
    let (resp, usage) = rt.block_on(one_call(backend, REFLECT_SESSION, req, timeout, boxed))?;
    rt.shutdown_background();
    let text = resp.text.unwrap_or_default();
    if text.trim().is_empty() {
        return Err(Outage("the reflection was empty".to_string()));
    }
    Ok((text.trim().to_string(), usage.total()))
}
