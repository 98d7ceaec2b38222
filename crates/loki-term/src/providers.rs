//! `loki providers`: one line per provider (`ready    ` in green or `not ready` in yellow, the
//! name padded to 10 columns, the kind dim and padded to 8, what it needs or uses), a blank line,
//! then what `provider.name` does: for `auto`, `provider.name is auto: picks <label> (<reason>)`
//! and the dim `auto order: …`; else `provider.name is <name>: used as chosen, never replaced`.

use std::fmt::Write as _;

use loki_agent::{Detection, ProviderChoice, ProviderInfo};
use serde_json::{Value, json};

use crate::{DIM, GREEN, YELLOW, paint};

/// The text of `loki providers`; `configured` is `provider.name` (`auto` when unset).
#[must_use]
pub fn list(infos: &[ProviderInfo], d: &Detection, configured: &str) -> String {
    let mut out = String::new();
    for i in infos {
        let tag = if i.ready {
            paint(GREEN, "ready    ")
        } else {
            paint(YELLOW, "not ready")
        };
        let _ = writeln!(
            out,
            "{tag}  {:<10} {} {}",
            i.name,
            paint(DIM, &format!("{:<8}", i.kind)),
            i.detail
        );
    }
    let _ = writeln!(out);
    if configured == "auto" {
        let pick = d
            .choice
            .as_ref()
            .map_or_else(|| "nothing".to_string(), ProviderChoice::label);
        let _ = writeln!(out, "provider.name is auto: picks {pick} ({})", d.reason);
        let order: Vec<&str> = d.order.iter().map(|c| c.name).collect();
        let _ = writeln!(
            out,
            "{}",
            paint(DIM, &format!("auto order: {}", order.join(", ")))
        );
    } else {
        let _ = writeln!(
            out,
            "provider.name is {configured}: used as chosen, never replaced"
        );
    }
    out
}

/// The `--json` object of `loki providers`.
#[must_use]
pub fn list_json(infos: &[ProviderInfo], d: &Detection, configured: &str) -> Value {
    let items: Vec<_> = infos
        .iter()
        .map(|i| json!({"name": i.name, "kind": i.kind, "ready": i.ready, "detail": i.detail}))
        .collect();
    let order: Vec<_> = d
        .order
        .iter()
        .map(|c| json!({"name": c.name, "available": c.available, "why": c.why}))
        .collect();
    json!({
        "configured": configured,
        "auto": d.choice.as_ref().map(ProviderChoice::label),
        "reason": d.reason,
        "order": order,
        "providers": items,
    })
}
