//! `loki doctor --airgap`: prints `loki_doctor::airgap`'s audit (destinations, then the
//! socket-counted demo). Exit 0 on pass, 1 otherwise. `--json`: `{destinations: [...], proof:
//! {...}, pass}`.

use loki_protocol::outcome::ExitCode;

use crate::context::Ctx;

pub fn run(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let dest = loki_doctor::airgap::destinations(&ctx.config, ctx.home.as_deref());
    let proof = loki_doctor::airgap::prove(&std::env::current_exe()?, ctx.home()?)?;
    if ctx.global.json {
        crate::output::json(
            serde_json::json!({"destinations": dest, "proof": proof, "pass": proof.pass}),
        );
    } else {
        anstream::print!("{}", loki_doctor::airgap::render(&dest, &proof));
    }
    Ok(if proof.pass {
        ExitCode::Success
    } else {
        ExitCode::Failure
    })
}
