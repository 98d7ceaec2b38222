//! `loki slack serve [--port N] [--bind ADDR]`: the chat intake (the server is `loki-chat`). The
//! switch and both credentials are checked before anything else, so a missing one binds no port.

use loki_protocol::outcome::ExitCode;

use crate::cli::{GlobalArgs, SlackCommand};
use crate::context::Ctx;

pub fn run(global: &GlobalArgs, c: &SlackCommand) -> anyhow::Result<ExitCode> {
    let SlackCommand::Serve { port, bind } = c;
    let credentials = loki_chat::Credentials::from_env()?;
    let ctx = Ctx::load(global)?;
    let repo = ctx.repo()?;
    let exe = std::env::current_exe().map_err(|e| {
        anyhow::anyhow!("cannot find the loki executable to start builds with: {e}")
    })?;
    let opts = loki_chat::Options {
        credentials,
        repo: repo.root.clone(),
        exe,
        home: ctx.home.clone(),
        addr: std::net::SocketAddr::new(*bind, *port),
    };
    loki_chat::serve(&opts, |addr| {
        if global.json {
            crate::output::json(serde_json::json!({
                "url": format!("http://{addr}{}", loki_chat::EVENTS_PATH),
                "repo": repo.root,
            }));
        }
        anstream::eprintln!(
            "loki slack: serving the Events API on http://{addr}{} for {}",
            loki_chat::EVENTS_PATH,
            repo.root.display()
        );
    })?;
    Ok(ExitCode::Success)
}
