//! `loki doctor`: prints `loki_doctor::checks`, one line per check (`loki_term::doctor`).
//!
//! Each line is `PASS|WARN|FAIL name: detail (how to fix)`. Exit 0 when nothing required fails;
//! `--json` prints every check even on failure.

use loki_doctor::checks::Inputs;
use loki_protocol::outcome::ExitCode;

use crate::context::Ctx;

pub fn run(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let support = loki_process::confine::support();
    let cut = loki_workspace::modelbox::network_cut();
    let words = loki_workspace::modelbox::network_words(&cut);
    let detect = || ctx.setup().detect();
    let checks = loki_doctor::checks::collect(&Inputs {
        repo: ctx.repo().ok(),
        config: &ctx.config,
        ignored: ctx
            .ignored
            .iter()
            .map(|bad| {
                (
                    bad.error.to_string(),
                    loki_term::config::repair_hint(bad.layer),
                )
            })
            .collect(),
        home: ctx.home.as_deref(),
        filesystem: (
            support.filesystem(),
            loki_workspace::modelbox::filesystem_words(support),
        ),
        network: ctx.setup().network(),
        cut: (cut, words),
        detect: &detect,
    });
    let ok = loki_doctor::checks::ok(&checks);
    if ctx.global.json {
        crate::output::json(loki_term::doctor::checks_json(&checks, ok));
    } else {
        anstream::print!("{}", loki_term::doctor::checks(&checks, ctx.global.quiet));
    }
    Ok(if ok {
        ExitCode::Success
    } else {
        ExitCode::Failure
    })
}
