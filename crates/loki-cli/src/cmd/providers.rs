//! `loki providers`: what each provider needs and what `auto` picks (the choice itself is
//! [`loki_workspace::options`]'s: the configuration is the one source).

use loki_protocol::outcome::ExitCode;

use crate::context::Ctx;

/// `loki providers`.
pub fn list(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let setup = ctx.setup();
    let infos = setup.providers();
    let d = setup.detect();
    let configured = ctx.config.str("provider.name").unwrap_or("auto");
    let json = loki_term::providers::list_json(&infos, &d, configured);
    let text = loki_term::providers::list(&infos, &d, configured);
    crate::output::show(ctx.global.json, json, text)
}
