//! `loki serve`: the control plane (`loki-control`) and its subcommands `trust`, `backfill`,
//! `status` and `prune`.

use std::time::Duration;

use anyhow::Context as _;
use loki_control::admin;
use loki_control::server::{ServeOptions, Server, default_db, runtime, stop_signal};
use loki_control::ship::{Client, Target, backfill, discover};
use loki_control::store::DbSpec;
use loki_protocol::outcome::ExitCode;

use crate::cli::{GlobalArgs, ServeArgs, ServeCommand};
use crate::cmd::UsageError;
use crate::context::Ctx;

/// How long `loki serve status` waits for each answer.
const STATUS_TIMEOUT: Duration = Duration::from_secs(2);

pub fn run(global: &GlobalArgs, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let ctx = Ctx::load(global)?;
    match &args.action {
        None => serve(&ctx, args),
        Some(ServeCommand::Trust { pubkey, db }) => {
            let pem = std::fs::read_to_string(pubkey)
                .with_context(|| format!("cannot read {}", pubkey.display()))?;
            let spec = db_spec(&ctx, db.as_deref())?;
            let keyid = admin::trust(&spec, &pem)?;
            if ctx.global.json {
                crate::output::json(serde_json::json!({"keyid": keyid,
                    "store": spec.display()}));
            } else {
                anstream::println!("trusted {keyid} in {}", spec.display());
            }
            Ok(ExitCode::Success)
        }
        Some(ServeCommand::Backfill { dir }) => {
            let client = Client::new(target(&ctx)?)?;
            let report = backfill(&client, dir)?;
            if ctx.global.json {
                let v = loki_term::serve::backfill_json(&report, client.url());
                crate::output::json(v);
            }
            let [shipped, failed, summary] = loki_term::serve::backfill(&report, client.url());
            anstream::print!("{shipped}");
            anstream::eprint!("{failed}");
            anstream::print!("{summary}");
            Ok(if report.failed.is_empty() {
                ExitCode::Success
            } else {
                ExitCode::Failure
            })
        }
        Some(ServeCommand::Status) => {
            let Ok(t) = target(&ctx) else {
                if ctx.global.json {
                    crate::output::json(loki_term::serve::status_json(None));
                } else {
                    anstream::println!("{}", loki_term::serve::status(None));
                }
                return Ok(ExitCode::Failure);
            };
            let s = admin::status(&Client::new(t)?, STATUS_TIMEOUT)?;
            if ctx.global.json {
                crate::output::json(loki_term::serve::status_json(Some(&s)));
            } else {
                anstream::println!("{}", loki_term::serve::status(Some(&s)));
            }
            Ok(ExitCode::Success)
        }
        Some(ServeCommand::Prune {
            repo,
            before,
            dry_run,
            db,
        }) => {
            let spec = db_spec(&ctx, db.as_deref())?;
            let pruned = admin::prune(&spec, repo, before, *dry_run)?;
            if ctx.global.json {
                crate::output::json(serde_json::json!({"repo": repo, "before": before,
                    "dry_run": dry_run, "run_ids": pruned.runs}));
                return Ok(ExitCode::Success);
            }
            let text = loki_term::serve::pruned(&pruned.runs, repo, before, *dry_run);
            anstream::print!("{text}");
            Ok(ExitCode::Success)
        }
    }
}

/// The store `--db` names (its directory must exist: it is never created), else the default
/// one under `$LOKI_HOME/control` (created, private).
fn db_spec(ctx: &Ctx, db: Option<&str>) -> anyhow::Result<DbSpec> {
    Ok(match db {
        Some(d) => DbSpec::parse(d),
        None => {
            let path = default_db(ctx.home()?);
            if let Some(dir) = path.parent() {
                loki_core::fs::ensure_private_dir(dir)?;
            }
            DbSpec::Sqlite(path)
        }
    })
}

/// The server the subcommands talk to.
fn target(ctx: &Ctx) -> anyhow::Result<Target> {
    discover(ctx.home.as_deref()).ok_or_else(|| {
        UsageError(
            "no control plane is running: start `loki serve`, or set LOKI_CONTROL_URL".into(),
        )
        .into()
    })
}

fn serve(ctx: &Ctx, args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let home = ctx.home()?.clone();
    let opts = ServeOptions {
        bind: args.bind,
        port: args.port,
        db: db_spec(ctx, args.db.as_deref())?,
        home: Some(home),
        token: loki_core::env::CONTROL_TOKEN.get(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        key_env: loki_receipt::KeyEnv::from_process(),
    };
    runtime()?.block_on(async {
        let server = Server::start(opts).await?;
        if ctx.global.json {
            crate::output::json(serde_json::json!({"url": server.url(),
                "store": server.instance().db, "pid": std::process::id()}));
        }
        anstream::println!(
            "listening on {} (store: {})",
            server.url(),
            server.instance().db
        );
        server.run(stop_signal()).await
    })?;
    Ok(ExitCode::Success)
}
