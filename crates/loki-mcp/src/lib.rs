//! loki's MCP server (`loki mcp`): loki's commands as Model Context Protocol tools, so a coding
//! agent (Claude Code, Codex, Cursor) can start a verified build, follow it, judge its own
//! change and check a receipt without leaving its session.
//!
//! # What it owns
//! The protocol side only: tool names, input schemas, validation, resources, transports. Every
//! tool calls the library function the matching `loki` command calls (`loki-engine`'s `ops`,
//! `loki-receipt`'s `verify`, `loki-seal`'s `check`, `loki-heal`'s diagnosis, the run store), or
//! starts the `loki` executable itself for work that outlives a call (a build, a fix).
//!
//! # Transports
//! - stdio ([`serve_stdio`]): `loki mcp`, what agents launch. Every line is screened first
//!   ([`stdio`]): one that is not JSON is answered `-32700`, one that is not a JSON-RPC request
//!   `-32600`, an unknown method `-32601` naming it; the server keeps serving.
//! - Streamable HTTP ([`serve_http`]): `loki mcp --http PORT`, bound to `127.0.0.1` only, at
//!   `/mcp`; `Host` must be a loopback name and a browser `Origin` a loopback origin (DNS
//!   rebinding and cross-site requests are refused).
//!
//! # Tools (input → structured result)
//! Every input schema is generated from [`args`]; unknown fields are refused.
//! - `loki_run {repo, task, provider?, model?, script?}` → `{repo, run_id, pid, log, status}`:
//!   `loki run-task --file <task file>` in the background (see [`background`] for how the run
//!   id is learned at start); a `task` that is an issue reference (`owner/repo#N`, an issue URL,
//!   `jira:KEY-1`, `linear:TEAM-1`) runs `loki issue <ref>` instead, which fetches it first.
//! - `loki_status {repo, run?}` → `loki status`'s view (`stage`, `status`, `outcome`,
//!   `cost_usd`, `tokens`, …) plus `done`, `receipt`, `log` (a run started by this server) and,
//!   for a BLOCKED run, `question`.
//! - `loki_verify {repo?, target}` → `loki verify --json`'s report (`verdict`, `steps`, …) plus
//!   its text; `target` is a run id, `latest` (both need `repo`) or an absolute path to a
//!   receipt.json or receipt.dsse.json.
//! - `loki_seal_check {repo, base?}` → `{verdict: clean|declare|findings|cannot_judge, findings,
//!   declare, facts, cannot_judge, checks, not_proven, …}`, as `loki seal check --json`.
//! - `loki_runs {repo, limit?}` → `{runs: [run.json…], total}`, newest first.
//! - `loki_receipt {repo, run}` → `{run_id, path, receipt, markdown}`.
//! - `loki_fix {repo, run?, apply?, model?}` → the diagnosis (`crash`, `sources`, `refused`,
//!   `repro`); with `apply: true` exactly, `loki fix <run> --apply --yes` in the background and
//!   its heal run's `{run_id, pid, log}`.
//! - `loki_answer {repo, run, text, provider?, model?, script?}` → a follow-up build (as
//!   `loki_run`) whose task is the BLOCKED run's task, its question and the answer, decided by
//!   the same library function as `loki answer` (`loki_engine::ops::follow_up`: an answer to a
//!   contradiction in the delivery contract names the criterion that holds).
//!
//! Resources: `loki://runs/<id>` (the status object) and `loki://runs/<id>/receipt` (the receipt
//! object), listed for the repositories the server was started for.
//!
//! # Input validation (before anything is read or started)
//! - No NUL anywhere in a string argument; free text (`task`, `text`) must not be empty.
//! - A reference (`base`, `provider`, `model`, a run id, a `target`) must not start with `-`:
//!   it could reach a command line as an option.
//! - Run ids must parse as `run_YYYYMMDD_HHMMSS_xxxx` (or be `latest`): never a path.
//! - `repo` must be an absolute path to an existing directory inside a git work tree; it is
//!   canonicalized to the work tree's root. When the server was started with `--repo PATH`
//!   (repeatable) or inside a repository, the root must be one of those; a server started
//!   elsewhere with no `--repo` serves any work tree the client names. Paths (`script`, a
//!   receipt `target`) must be absolute and exist; a receipt outside the served repositories is
//!   refused when the server has a list.
//!
//! A refusal or a failed step is a tool result with `isError: true` and a message that names the
//! input and the problem (or the step and its cause); a panic inside a tool is caught the same
//! way. The server never exits because of one call.
//!
//! # What it must never do
//! - Change a file of the user's checkout unless the client asked for it in so many words
//!   (`loki_fix` patches only on `apply: true`; `loki_run` and `loki_answer` work in a worktree
//!   as every build does). Its own state (task files and logs) goes under `.loki/mcp/`.
//! - Print to stdout: over stdio that is the protocol's channel.
//! - Listen on anything but loopback, or, once the user named repositories (`--repo`, or the
//!   one it started in), act on any other.
//! - Pass a client's string to a program in a position where it reads as an option, or through a
//!   shell.

pub mod args;
pub mod background;
pub mod error;
mod server;
pub mod stdio;
pub mod tools;
pub mod validate;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

pub use error::{McpError, ToolError};
pub use server::LokiServer;

/// The path the HTTP transport serves.
pub const HTTP_PATH: &str = "/mcp";

/// How the server was started.
#[derive(Debug, Clone)]
pub struct Options {
    /// The `loki` executable background runs start (the running binary).
    pub exe: PathBuf,
    /// The repositories the user named (`--repo`, or the one `loki mcp` started in); empty:
    /// any work tree a client names.
    pub repos: Vec<PathBuf>,
    /// `$LOKI_HOME`: keys for `loki_verify` and the seal.
    pub home: Option<PathBuf>,
}

impl Options {
    /// The tools' context; a `--repo` that is not a git work tree is refused here.
    pub fn context(&self) -> Result<tools::Ctx, ToolError> {
        Ok(tools::Ctx {
            exe: self.exe.clone(),
            scope: validate::Scope::new(&self.repos)?,
            home: self.home.clone(),
        })
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, McpError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(McpError::Runtime)
}

/// Serves over stdin/stdout until the client closes the connection; every malformed line gets
/// a JSON-RPC error ([`stdio`]).
pub fn serve_stdio(ctx: tools::Ctx) -> Result<(), McpError> {
    runtime()?.block_on(stdio::serve(LokiServer::new(ctx)))
}

/// Serves Streamable HTTP on `127.0.0.1:port` (0: a free port) at [`HTTP_PATH`] until the process
/// is stopped; `ready` gets the bound address once it accepts connections.
pub fn serve_http(
    ctx: tools::Ctx,
    port: u16,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), McpError> {
    runtime()?.block_on(async move {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| McpError::Bind {
                addr: addr.to_string(),
                source,
            })?;
        let bound = listener.local_addr().map_err(McpError::Http)?;
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(["localhost", "127.0.0.1"])
            .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*"]);
        let server = LokiServer::new(ctx);
        let service: StreamableHttpService<LokiServer, LocalSessionManager> =
            StreamableHttpService::new(move || Ok(server.clone()), Default::default(), config);
        let router = axum::Router::new().nest_service(HTTP_PATH, service);
        ready(bound);
        axum::serve(listener, router).await.map_err(McpError::Http)
    })
}
