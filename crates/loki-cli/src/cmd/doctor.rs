//! `loki doctor`: prints `loki_doctor::checks`, one line per check (`loki_term::doctor`).
//!
//! Each line is `PASS|WARN|FAIL name: detail (how to fix)`. Exit 0 when nothing required fails;
//! `--json` prints every check even on failure.
//!
//! `loki doctor --airgap`: prints `loki_doctor::airgap`'s audit (destinations, then the
//! socket-counted demo). Exit 0 on pass, 1 otherwise. `--json`: `{destinations: [...], proof:
//! {...}, pass}`.

use loki_doctor::checks::Inputs;
use loki_protocol::outcome::ExitCode;

use crate::context::Ctx;
use crate::output::pass_fail;

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
    let text = loki_term::doctor::checks(&checks, ctx.global.quiet);
    let json = loki_term::doctor::checks_json(&checks, ok);
    crate::output::print(ctx.global.json, json, text);
    Ok(pass_fail(ok))
}

/// `loki doctor --airgap`.
pub fn airgap(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let dest = loki_doctor::airgap::destinations(&ctx.config, ctx.home.as_deref());
    let proof = loki_doctor::airgap::prove(&std::env::current_exe()?, ctx.home()?)?;
    let json = serde_json::json!({"destinations": dest, "proof": proof, "pass": proof.pass});
    let text = loki_term::doctor::airgap(&dest, &proof);
    crate::output::print(ctx.global.json, json, text);
    Ok(pass_fail(proof.pass))
}
