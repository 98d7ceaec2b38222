//! `loki verify [run-id | latest | dir | receipt.json | receipt.dsse.json]`.
//!
//! The verdict and its exit code come from `loki-receipt`, the input from
//! [`loki_workspace::verify::locate`]; this module prints. With no argument it checks the newest
//! run; no run at all is exit 66.

use loki_core::exit::{Classify as _, ExitClass};
use loki_protocol::outcome::VerifyVerdict;
use loki_receipt::{KeyEnv, VerifyInput, VerifyOptions, VerifyReport, export_dsse, verify};
use loki_workspace::verify::{NotFound, locate};

use crate::cli::VerifyArgs;
use crate::cmd::{Exit, UsageError};
use crate::context::Ctx;

pub fn run(ctx: &Ctx, args: &VerifyArgs) -> anyhow::Result<Exit> {
    let opts = VerifyOptions {
        home: ctx.home.clone(),
        env: KeyEnv::from_process(),
        pubkey: args.pubkey.clone(),
        allow_unsigned: args.allow_unsigned,
    };
    let input = match locate(&ctx.repo(), args.target.as_deref()) {
        Ok(i) => i,
        Err(NotFound::NoRuns(reason)) => return Ok(print(ctx, &VerifyReport::no_runs(reason))),
        Err(NotFound::Usage(msg)) => return Err(UsageError(msg).into()),
    };
    if args.export_dsse {
        let VerifyInput::RunDir(dir) = &input else {
            return Err(UsageError(
                "--export-dsse takes a run (an id, `latest` or a run directory)".into(),
            )
            .into());
        };
        return match export_dsse(dir, &opts) {
            Ok(envelope) => {
                // The envelope is itself one JSON object: `--json` prints it as it is.
                match serde_json::from_str::<serde_json::Value>(&envelope) {
                    Ok(v) if ctx.global.json => crate::output::json(v),
                    _ => anstream::println!("{}", envelope.trim_end()),
                }
                Ok(Exit::Verify(VerifyVerdict::Verified))
            }
            Err(e) => {
                // `verify` exits by its verdict table: a refusal carries its verdict, and any
                // other error means the receipt could not be checked.
                let verdict = match e.exit_class() {
                    ExitClass::Verdict(v) => v,
                    ExitClass::Failure | ExitClass::Usage => VerifyVerdict::Unchecked,
                };
                let e = anyhow::Error::new(e);
                if ctx.global.json {
                    crate::output::error_json(&e, verdict.exit_status());
                } else {
                    crate::output::error(&e);
                }
                Ok(Exit::Verify(verdict))
            }
        };
    }
    let report = verify(&input, &opts);
    Ok(print(ctx, &report))
}

fn print(ctx: &Ctx, report: &VerifyReport) -> Exit {
    let quiet = ctx.global.quiet;
    let text = loki_term::verify::human(report, quiet) + if quiet { "\n" } else { "" };
    crate::output::print(ctx.global.json, loki_term::verify::json(report), text);
    Exit::Verify(report.verdict)
}
