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
    if ctx.global.json {
        crate::output::json(loki_term::providers::list_json(&infos, &d, configured));
    } else {
        anstream::print!("{}", loki_term::providers::list(&infos, &d, configured));
    }
    Ok(ExitCode::Success)
}
