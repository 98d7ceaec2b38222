//! Provider settings from the configuration, the auto choice, and `loki providers`.
//!
//! The configuration is the one source: `loki.toml`, `LOKI_*` variables and the conventional
//! `ANTHROPIC_API_KEY` / `OPENAI_API_KEY` all arrive through it, so what `loki providers` and
//! `loki doctor` say is what a run will do. An explicit provider is never replaced by another.

use loki_agent::{Detection, ProviderChoice, ProviderSettings, describe};
use loki_core::outcome::ExitCode;
use std::fmt::Write as _;

use crate::cmd::UsageError;
use crate::context::Ctx;
use loki_term::{DIM, GREEN, YELLOW, paint};

/// Provider settings as the configuration has them.
pub fn settings(ctx: &Ctx) -> ProviderSettings {
    ProviderSettings::from_config(&ctx.config, ctx.repo().ok().map(|r| r.runs_dir()))
}

/// The price table: built in, with the file named by `provider.prices` over it.
pub fn prices(ctx: &Ctx) -> anyhow::Result<loki_agent::PriceTable> {
    let table = loki_agent::PriceTable::builtin();
    match ctx.config.str("provider.prices").filter(|p| !p.is_empty()) {
        Some(path) => Ok(table.with_file(std::path::Path::new(path))?),
        None => Ok(table),
    }
}

/// What `auto` would pick, judged from the configuration (not only the raw environment).
pub fn detect(ctx: &Ctx) -> Detection {
    loki_agent::configured::detect(&ctx.config, &|p| which::which(p).ok())
}

/// The provider a command uses: the configured one, or `auto`'s pick, or an error saying how to
/// configure one.
pub fn choose(ctx: &Ctx) -> anyhow::Result<(ProviderChoice, String)> {
    let name = ctx.config.str("provider.name").unwrap_or("auto");
    let source = ctx
        .config
        .entry("provider.name")
        .map(|e| e.source.to_string())
        .unwrap_or_default();
    if let Some(choice) = ProviderChoice::parse(name)? {
        return Ok((choice, format!("chosen explicitly ({source})")));
    }
    let d = detect(ctx);
    match d.choice {
        Some(c) => Ok((c, format!("auto: {}", d.reason))),
        None => Err(UsageError(format!(
            "no model provider is available ({}); set ANTHROPIC_API_KEY or OPENAI_API_KEY, point openai.base_url at a local server, install an agent CLI, or pass --provider scripted --script FILE",
            d.reason
        ))
        .into()),
    }
}

/// `loki providers`.
pub fn list(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let infos = describe(&settings(ctx), &|p| which::which(p).ok());
    let d = detect(ctx);
    let configured = ctx
        .config
        .str("provider.name")
        .unwrap_or("auto")
        .to_string();
    if ctx.global.json {
        let items: Vec<_> = infos
            .iter()
            .map(|i| serde_json::json!({"name": i.name, "kind": i.kind, "ready": i.ready, "detail": i.detail}))
            .collect();
        let order: Vec<_> = d
            .order
            .iter()
            .map(|c| serde_json::json!({"name": c.name, "available": c.available, "why": c.why}))
            .collect();
        anstream::println!(
            "{}",
            serde_json::json!({
                "configured": configured,
                "auto": d.choice.as_ref().map(ProviderChoice::label),
                "reason": d.reason,
                "order": order,
                "providers": items,
            })
        );
        return Ok(ExitCode::Success);
    }
    let mut out = String::new();
    for i in &infos {
        let tag = if i.ready {
            paint(GREEN, "ready    ")
        } else {
            paint(YELLOW, "not ready")
        };
        writeln!(
            out,
            "{tag}  {:<10} {} {}",
            i.name,
            paint(DIM, &format!("{:<8}", i.kind)),
            i.detail
        )?;
    }
    writeln!(out)?;
    if configured == "auto" {
        let pick = d
            .choice
            .as_ref()
            .map_or_else(|| "nothing".to_string(), ProviderChoice::label);
        writeln!(out, "provider.name is auto: picks {pick} ({})", d.reason)?;
        let order: Vec<&str> = d.order.iter().map(|c| c.name).collect();
        writeln!(
            out,
            "{}",
            paint(DIM, &format!("auto order: {}", order.join(", ")))
        )?;
    } else {
        writeln!(
            out,
            "provider.name is {configured}: used as chosen, never replaced"
        )?;
    }
    anstream::print!("{out}");
    Ok(ExitCode::Success)
}
