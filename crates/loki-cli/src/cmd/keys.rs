//! `loki keys show|export|rotate`: the Ed25519 key that signs receipts.

use loki_core::outcome::ExitCode;
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
                anstream::print!("{}", signer.export_public_pem()?);
            } else if ctx.global.json {
                anstream::println!(
                    "{}",
                    serde_json::json!({
                        "keyid": info.keyid,
                        "path": info.path.as_ref().map(|p| p.display().to_string()),
                        "created": info.created,
                        "source": info.source.describe(),
                    })
                );
            } else {
                anstream::println!("{:<12}{}", "keyid:", info.keyid);
                anstream::println!("{:<12}{}", "source:", info.source.describe());
                if let Some(p) = &info.path {
                    anstream::println!("{:<12}{}", "path:", p.display());
                }
                anstream::println!(
                    "{:<12}{}",
                    "created:",
                    info.created.as_deref().unwrap_or("unknown")
                );
            }
        }
        KeysCommand::Rotate => {
            let r = rotate(home, &env)?;
            if ctx.global.json {
                anstream::println!(
                    "{}",
                    serde_json::json!({
                        "old_keyid": r.old.keyid, "new_keyid": r.new.keyid,
                        "retired_pubkey": r.retired_pubkey.display().to_string(),
                    })
                );
            } else {
                anstream::println!(
                    "new key {} ({})",
                    r.new.keyid,
                    r.new
                        .path
                        .as_ref()
                        .map(|p| p.display().to_string())
                        .unwrap_or_default()
                );
                anstream::println!(
                    "old key {} retired: its public key is kept at {} so earlier receipts still verify",
                    r.old.keyid,
                    r.retired_pubkey.display()
                );
            }
        }
    }
    Ok(ExitCode::Success)
}
