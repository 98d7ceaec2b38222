//! `loki serve`: the control plane (`loki-control`) and its subcommands `trust`, `backfill`,
//! `status` and `prune`. Starting, storing and asking are [`loki_control::admin`]'s, the text
//! [`loki_term::serve`]'s.

use std::time::Duration;

use anyhow::Context as _;
use loki_control::admin::{self, db_spec, running};
use loki_control::server::ServeOptions;
use loki_control::ship::{Client, backfill};
use loki_protocol::outcome::ExitCode;

use crate::cli::{GlobalArgs, ServeArgs, ServeCommand};
use crate::context::Ctx;
use crate::output::{pass_fail, show};

/// How long `loki serve status` waits for each answer.
const STATUS_TIMEOUT: Duration = Duration::from_secs(2);

pub fn run(global: &GlobalArgs, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let ctx = Ctx::load(global)?;
    let (json, home) = (global.json, ctx.home.as_deref());
    match &args.action {
        None => serve(&ctx, args),
        Some(ServeCommand::Trust { pubkey, db }) => {
            let pem = std::fs::read_to_string(pubkey)
                .with_context(|| format!("cannot read {}", pubkey.display()))?;
            let spec = db_spec(db.as_deref(), home)?;
            let keyid = admin::trust(&spec, &pem)?;
            let text = format!("trusted {keyid} in {}\n", spec.display());
            show(
                json,
                serde_json::json!({"keyid": keyid, "store": spec.display()}),
                text,
            )
        }
        Some(ServeCommand::Backfill { dir }) => {
            let client = Client::new(running(home)?)?;
            let report = backfill(&client, dir)?;
            if json {
                crate::output::json(loki_term::serve::backfill_json(&report, client.url()));
            }
            let [shipped, failed, summary] = loki_term::serve::backfill(&report, client.url());
            anstream::print!("{shipped}");
            anstream::eprint!("{failed}");
            anstream::print!("{summary}");
            Ok(pass_fail(report.failed.is_empty()))
        }
        Some(ServeCommand::Status) => {
            let status = match running(home) {
                Ok(t) => Some(admin::status(&Client::new(t)?, STATUS_TIMEOUT)?),
                Err(_) => None,
            };
            let text = format!("{}\n", loki_term::serve::status(status.as_ref()));
            let v = loki_term::serve::status_json(status.as_ref());
            crate::output::print(json, v, text);
            Ok(pass_fail(status.is_some()))
        }
        Some(ServeCommand::Prune {
            repo,
            before,
            dry_run,
            db,
        }) => {
            let spec = db_spec(db.as_deref(), home)?;
            let pruned = admin::prune(&spec, repo, before, *dry_run)?;
            let v = serde_json::json!({"repo": repo, "before": before, "dry_run": dry_run,
                "run_ids": pruned.runs});
            show(
                json,
                v,
                loki_term::serve::pruned(&pruned.runs, repo, before, *dry_run),
            )
        }
    }
}

fn serve(ctx: &Ctx, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let home = ctx.home()?.clone();
    let opts = ServeOptions {
        bind: args.bind,
        port: args.port,
        db: db_spec(args.db.as_deref(), Some(&home))?,
        home: Some(home),
        token: loki_core::env::CONTROL_TOKEN.get(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        key_env: loki_receipt::KeyEnv::from_process(),
    };
    admin::serve(opts, |server| {
        let (url, store) = (server.url(), server.instance().db);
        if ctx.global.json {
            crate::output::json(serde_json::json!({"url": url, "store": store,
                "pid": std::process::id()}));
        }
        anstream::println!("listening on {url} (store: {store})");
    })?;
    Ok(ExitCode::Success)
}
