//! `loki config show|path|get|set|init`. Editing the files is `loki_core::config::edit`'s.

use std::fmt::Write as _;
use std::path::PathBuf;

use loki_core::config::edit::{self, Layer};
use loki_core::config::{KEYS, Kind};
use loki_core::outcome::ExitCode;

use crate::cli::ConfigCommand;
use crate::context::Ctx;
use loki_term::{DIM, paint};

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
    if ctx.global.json {
        let entries: Vec<_> = ctx
            .config
            .entries()
            .map(|e| {
                serde_json::json!({
                    "key": e.def.key,
                    "value": e.display_value(),
                    "secret": e.def.kind == Kind::Secret,
                    "source": e.source,
                    "env": loki_core::config::env_name(e.def.key),
                })
            })
            .collect();
        crate::output::json(serde_json::json!({ "settings": entries }));
        return Ok(ExitCode::Success);
    }
    let width = KEYS.iter().map(|k| k.key.len()).max().unwrap_or(0);
    let mut out = String::new();
    for e in ctx.config.entries() {
        let value = e.display_value();
        writeln!(
            out,
            "{:<width$}  {:<28}  {}",
            e.def.key,
            value,
            paint(DIM, &e.source.to_string())
        )?;
    }
    anstream::print!("{out}");
    Ok(ExitCode::Success)
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
    let describe = |p: &Option<PathBuf>| match p {
        Some(p) if p.exists() => (Some(p.display().to_string()), "exists"),
        Some(p) => (Some(p.display().to_string()), "not created"),
        None => (None, "unavailable"),
    };
    let (u, us) = describe(&user);
    let (r, rs) = describe(&repo);
    if ctx.global.json {
        crate::output::json(serde_json::json!({
            "user": {"path": u, "state": us},
            "repo": {"path": r, "state": rs},
            "file": ctx.global.config.as_ref().map(|p| p.display().to_string()),
        }));
    } else {
        let (u, r) = (u.unwrap_or_default(), r.unwrap_or_default());
        anstream::println!("user  {u} ({us})");
        anstream::println!("repo  {r} ({rs})");
        if let Some(f) = &ctx.global.config {
            anstream::println!("file  {}", f.display());
        }
    }
    Ok(ExitCode::Success)
}

fn get(ctx: &Ctx, key: &str) -> anyhow::Result<ExitCode> {
    let entry = ctx.config.entry(key).ok_or_else(|| unknown(key))?;
    if ctx.global.json {
        crate::output::json(
            serde_json::json!({"key": key, "value": entry.display_value(), "source": entry.source}),
        );
    } else {
        anstream::println!("{}", entry.display_value());
    }
    Ok(ExitCode::Success)
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
