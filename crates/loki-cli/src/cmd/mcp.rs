//! `loki mcp [--http PORT] [--repo PATH]…`: loki's tools over the Model Context Protocol (the
//! server is `loki-mcp`). Over stdio nothing but the protocol may reach stdout, so everything
//! this command says goes to stderr.

use loki_protocol::outcome::ExitCode;

use crate::cli::McpArgs;
use crate::cmd::UsageError;
use crate::context::Ctx;

pub fn run(ctx: &Ctx, args: &McpArgs) -> anyhow::Result<ExitCode> {
    let mut repos = args.repos.clone();
    // Started inside a repository (as agents launch it, in the project), that one is served.
    if let Ok(here) = ctx.repo() {
        repos.push(here.root);
    }
    let exe = std::env::current_exe().map_err(|e| {
        anyhow::anyhow!("cannot find the loki executable to start builds with: {e}")
    })?;
    let options = loki_mcp::Options {
        exe,
        repos,
        home: ctx.home.clone(),
    };
    let tools = options
        .context()
        .map_err(|e| UsageError(format!("--repo: {}", e.message())))?;
    match args.http {
        None if ctx.global.json => {
            return Err(UsageError(
                "loki mcp speaks JSON-RPC on stdout, so --json does not apply; with --http PORT, --json prints the address as one object".into(),
            )
            .into());
        }
        None => loki_mcp::serve_stdio(tools)?,
        Some(port) => loki_mcp::serve_http(tools, port, |addr| {
            if ctx.global.json {
                crate::output::json(serde_json::json!({
                    "url": format!("http://{addr}{}", loki_mcp::HTTP_PATH)
                }));
            }
            anstream::eprintln!(
                "loki mcp: serving Streamable HTTP on http://{addr}{}",
                loki_mcp::HTTP_PATH
            );
        })?,
    }
    Ok(ExitCode::Success)
}
