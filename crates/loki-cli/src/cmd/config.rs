//! `loki config show|path|get|set|init`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use loki_core::config::{KEYS, Kind, key_def, parse_value};
use loki_core::outcome::ExitCode;

use crate::cli::ConfigCommand;
use crate::cmd::UsageError;
use crate::context::Ctx;
use crate::output::{DIM, paint};

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
        println!("{}", serde_json::json!({ "settings": entries }));
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
        Some(p) if p.exists() => (p.display().to_string(), "exists"),
        Some(p) => (p.display().to_string(), "not created"),
        None => (String::new(), "unavailable"),
    };
    let (u, us) = describe(&user);
    let (r, rs) = describe(&repo);
    if ctx.global.json {
        println!(
            "{}",
            serde_json::json!({
                "user": {"path": u, "state": us},
                "repo": {"path": r, "state": rs},
                "file": ctx.global.config.as_ref().map(|p| p.display().to_string()),
            })
        );
    } else {
        println!("user  {u} ({us})");
        println!("repo  {r} ({rs})");
        if let Some(f) = &ctx.global.config {
            println!("file  {}", f.display());
        }
    }
    Ok(ExitCode::Success)
}

fn get(ctx: &Ctx, key: &str) -> anyhow::Result<ExitCode> {
    let entry = ctx.config.entry(key).ok_or_else(|| unknown(key))?;
    if ctx.global.json {
        println!(
            "{}",
            serde_json::json!({"key": key, "value": entry.display_value(), "source": entry.source})
        );
    } else {
        println!("{}", entry.display_value());
    }
    Ok(ExitCode::Success)
}

fn unknown(key: &str) -> anyhow::Error {
    anyhow::Error::new(UsageError(format!(
        "unknown key {key:?}; `loki config show` lists the keys"
    )))
}

fn set(ctx: &Ctx, key: &str, value: &str, repo: bool) -> anyhow::Result<ExitCode> {
    let def = key_def(key).ok_or_else(|| unknown(key))?;
    let typed = parse_value(def, value).map_err(|why| UsageError(format!("{key}: {why}")))?;
    if def.kind == Kind::Secret && repo {
        return Err(UsageError(format!(
            "{key} is a secret: keep it out of the repository (use the user file or the {} variable)",
            loki_core::config::env_name(key)
        ))
        .into());
    }
    let file = if repo {
        repo_file(ctx)?
    } else {
        user_file(ctx)?
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", file.display())),
    };
    let mut doc: toml_edit::DocumentMut = text.parse().map_err(|e| {
        UsageError(format!(
            "{} is not valid TOML, so it was not changed: {e}",
            file.display()
        ))
    })?;
    let (table, leaf) = key.split_once('.').unwrap_or(("", key));
    let item = match typed {
        loki_core::config::Value::Uint(n) => toml_edit::value(i64::try_from(n).unwrap_or(i64::MAX)),
        loki_core::config::Value::Decimal(x) => toml_edit::value(x),
        loki_core::config::Value::Bool(b) => toml_edit::value(b),
        loki_core::config::Value::Str(s) => toml_edit::value(s),
    };
    if table.is_empty() {
        doc[leaf] = item;
    } else {
        if !doc.contains_table(table) {
            doc[table] = toml_edit::table();
        }
        doc[table][leaf] = item;
    }
    write_config(&file, doc.to_string().as_bytes(), def.kind == Kind::Secret)?;
    let shown = if def.kind == Kind::Secret {
        "set".to_string()
    } else {
        value.to_string()
    };
    if !ctx.global.quiet {
        println!("{key} = {shown}  ({})", file.display());
    }
    Ok(ExitCode::Success)
}

fn write_config(file: &Path, bytes: &[u8], secret: bool) -> anyhow::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    // A file that holds a secret is private; otherwise keep the usual mode.
    let mode = if secret || is_private(file) {
        0o600
    } else {
        0o644
    };
    loki_core::fs::write_atomic_mode(file, bytes, mode)?;
    Ok(())
}

fn is_private(file: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file).is_ok_and(|m| m.permissions().mode() & 0o077 == 0)
}

fn init(ctx: &Ctx, repo: bool, force: bool) -> anyhow::Result<ExitCode> {
    let file = if repo {
        repo_file(ctx)?
    } else {
        user_file(ctx)?
    };
    if file.exists() && !force {
        return Err(UsageError(format!(
            "{} exists; pass --force to replace it, or `loki config set` to change one key",
            file.display()
        ))
        .into());
    }
    let mut out = String::from(
        "# loki configuration. Layers, lowest first: defaults < ~/.loki/config.toml < loki.toml\n# < --config FILE < LOKI_* environment variables < command flags.\n",
    );
    let mut section = "";
    for def in KEYS {
        let (table, leaf) = def.key.split_once('.').unwrap_or(("", def.key));
        if table != section {
            write!(out, "\n[{table}]\n")?;
            section = table;
        }
        writeln!(
            out,
            "# {} (env {})",
            def.doc,
            loki_core::config::env_name(def.key)
        )?;
        let shown = match (def.kind, def.default) {
            (Kind::Secret, _) | (_, None) => "\"\"".to_string(),
            (Kind::Uint | Kind::Decimal | Kind::Bool, Some(d)) => d.to_string(),
            (_, Some(d)) => format!("{d:?}"),
        };
        writeln!(out, "# {leaf} = {shown}")?;
    }
    write_config(&file, out.as_bytes(), false)?;
    if !ctx.global.quiet {
        println!("wrote {}", file.display());
    }
    Ok(ExitCode::Success)
}
