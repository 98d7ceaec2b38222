//! `loki verify [run-id | latest | dir | receipt.json | receipt.dsse.json]`.
//!
//! The verdict and its exit code come from `loki-receipt`; this module only finds the input and
//! prints. With no argument it checks the newest run; no run at all is exit 66.

use std::path::PathBuf;

use loki_core::RunId;
use loki_core::exit::{Classify as _, ExitClass};
use loki_core::run::RunStore;
use loki_protocol::outcome::VerifyVerdict;
use loki_receipt::{KeyEnv, VerifyInput, VerifyOptions, VerifyReport, export_dsse, verify};

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
    let input = match locate(ctx, args.target.as_deref()) {
        Ok(i) => i,
        Err(Located::NoRuns(reason)) => return Ok(print(ctx, &VerifyReport::no_runs(reason))),
        Err(Located::Usage(msg)) => return Err(UsageError(msg).into()),
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
    if ctx.global.json {
        crate::output::json(loki_term::verify::json(report));
    } else if ctx.global.quiet {
        anstream::println!("{}", loki_term::verify::human(report, true));
    } else {
        anstream::print!("{}", loki_term::verify::human(report, false));
    }
    Exit::Verify(report.verdict)
}

enum Located {
    NoRuns(String),
    Usage(String),
}

fn locate(ctx: &Ctx, target: Option<&str>) -> Result<VerifyInput, Located> {
    let store = || {
        ctx.repo()
            .map(RunStore::new)
            .map_err(|e| Located::NoRuns(format!("no run to verify: {e}")))
    };
    match target {
        None | Some("latest") => {
            let store = store()?;
            match store.latest() {
                Ok(Some(id)) => Ok(VerifyInput::RunDir(store.dir(&id))),
                Ok(None) => Err(Located::NoRuns(format!(
                    "no runs in {}",
                    store.repo().runs_dir().display()
                ))),
                Err(e) => Err(Located::Usage(e.to_string())),
            }
        }
        Some(t) => {
            if let Ok(id) = t.parse::<RunId>() {
                let store = store()?;
                let dir = store.dir(&id);
                if dir.is_dir() {
                    return Ok(VerifyInput::RunDir(dir));
                }
                // The receipts of `loki improve` cycles live beside the cycle's other state.
                let improve = loki_improve::Paths::new(store.repo())
                    .runs()
                    .join(id.as_str());
                if improve.is_dir() {
                    return Ok(VerifyInput::RunDir(improve));
                }
                return Err(Located::Usage(format!(
                    "no run {id} in {}; `loki runs list` shows the runs there",
                    store.repo().runs_dir().display()
                )));
            }
            let path = PathBuf::from(t);
            if path.exists() {
                Ok(VerifyInput::from_path(&path))
            } else {
                Err(Located::Usage(format!(
                    "{t} is neither a run id nor an existing file or directory"
                )))
            }
        }
    }
}
