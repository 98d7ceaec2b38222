//! `loki config show|path|get|set|init`. Editing the files is `loki_core::config::edit`'s.

use std::path::{Path, PathBuf};

use loki_core::config::edit::{self, Layer};
use loki_protocol::outcome::ExitCode;

use crate::cli::ConfigCommand;
use crate::context::Ctx;

pub fn run(ctx: &Ctx, cmd: ConfigCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        ConfigCommand::Show => show(ctx),
        ConfigCommand::Path => path(ctx),
        ConfigCommand::Get { key } => get(ctx, &key),
        ConfigCommand::Set { key, value, repo } => set(ctx, &key, &value, repo),
        ConfigCommand::Init { repo, force } => init(ctx, repo, force),
    }
}

fn show(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let json = loki_term::config::show_json(&ctx.config);
    crate::output::show(ctx.global.json, json, loki_term::config::show(&ctx.config))
}

fn user_file(ctx: &Ctx) -> anyhow::Result<PathBuf> {
    Ok(ctx.home()?.join("config.toml"))
}

fn repo_file(ctx: &Ctx) -> anyhow::Result<PathBuf> {
    Ok(ctx.repo()?.root.join("loki.toml"))
}

fn path(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let user = ctx.home.as_ref().map(|h| h.join("config.toml"));
    let repo = ctx.repo().ok().map(|r| r.root.join("loki.toml"));
    fn there(p: Option<&Path>) -> Option<(&Path, bool)> {
        p.map(|p| (p, p.exists()))
    }
    let (text, json) = loki_term::config::paths(
        there(user.as_deref()),
        there(repo.as_deref()),
        ctx.global.config.as_deref(),
    );
    crate::output::show(ctx.global.json, json, text)
}

fn get(ctx: &Ctx, key: &str) -> anyhow::Result<ExitCode> {
    let entry = ctx.config.entry(key).ok_or_else(|| unknown(key))?;
    let json =
        serde_json::json!({"key": key, "value": entry.display_value(), "source": entry.source});
    crate::output::show(
        ctx.global.json,
        json,
        format_args!("{}\n", entry.display_value()),
    )
}

fn unknown(key: &str) -> anyhow::Error {
    loki_core::CoreError::UnknownKey { key: key.into() }.into()
}

fn set(ctx: &Ctx, key: &str, value: &str, repo: bool) -> anyhow::Result<ExitCode> {
    let (file, layer) = if repo {
        (repo_file(ctx)?, Layer::Repo)
    } else {
        (user_file(ctx)?, Layer::User)
    };
    let written = edit::set(&file, layer, key, value)?;
    if ctx.global.json {
        crate::output::json(serde_json::json!({"key": key, "value": written.shown, "file": file}));
    } else if !ctx.global.quiet {
        anstream::println!("{key} = {}  ({})", written.shown, file.display());
    }
    Ok(ExitCode::Success)
}

fn init(ctx: &Ctx, repo: bool, force: bool) -> anyhow::Result<ExitCode> {
    let file = if repo {
        repo_file(ctx)?
    } else {
        user_file(ctx)?
    };
    edit::init(&file, force)?;
    if ctx.global.json {
        crate::output::json(serde_json::json!({"file": file}));
    } else if !ctx.global.quiet {
        anstream::println!("wrote {}", file.display());
    }
    Ok(ExitCode::Success)
}
