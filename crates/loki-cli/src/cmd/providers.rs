//! `loki providers`: what each provider needs and what `auto` picks (the choice itself is
//! [`loki_workspace::options`]'s: the configuration is the one source).

use loki_agent::ProviderChoice;
use loki_protocol::outcome::ExitCode;
use std::fmt::Write as _;

use crate::context::Ctx;
use loki_term::{DIM, GREEN, YELLOW, paint};

/// `loki providers`.
pub fn list(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let setup = ctx.setup();
    let infos = setup.providers();
    let d = setup.detect();
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
        crate::output::json(serde_json::json!({
            "configured": configured,
            "auto": d.choice.as_ref().map(ProviderChoice::label),
            "reason": d.reason,
            "order": order,
            "providers": items,
        }));
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
