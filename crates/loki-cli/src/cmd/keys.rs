//! `loki keys show|export|rotate`: the Ed25519 key that signs receipts (the text is
//! `loki_term::keys`).

use loki_protocol::outcome::ExitCode;
use loki_receipt::{KeyEnv, Signer, rotate};

use crate::cli::KeysCommand;
use crate::context::Ctx;

pub fn run(ctx: &Ctx, cmd: &KeysCommand) -> anyhow::Result<ExitCode> {
    let home = ctx.home()?;
    let env = KeyEnv::from_process();
    match cmd {
        KeysCommand::Show | KeysCommand::Export => {
            // Showing or exporting a key creates it on first use, as sealing would.
            let signer = Signer::load_or_create(home, &env)?;
            let info = signer.info();
            if matches!(cmd, KeysCommand::Export) {
                let pem = signer.export_public_pem()?;
                let json = serde_json::json!({"keyid": info.keyid, "public_key_pem": pem});
                crate::output::show(ctx.global.json, json, pem)
            } else {
                let json = loki_term::keys::show_json(info);
                crate::output::show(ctx.global.json, json, loki_term::keys::show(info))
            }
        }
        KeysCommand::Rotate => {
            let r = rotate(home, &env)?;
            let json = loki_term::keys::rotated_json(&r);
            crate::output::show(ctx.global.json, json, loki_term::keys::rotated(&r))
        }
    }
}
