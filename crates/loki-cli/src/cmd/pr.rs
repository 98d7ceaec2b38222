//! `loki pr <run>`: push the run's branch and open (or update) a GitHub pull request or GitLab
//! merge request whose body is the run's evidence ([`loki_intake::pr::publish`]). The forge token
//! is read from the environment for this publish step only; the push uses the user's own git
//! credentials.

use std::time::Instant;

use loki_core::outcome::ExitCode;
use loki_core::run::RunStore;
use loki_intake::{Endpoints, Hosts};

use crate::cli::{GlobalArgs, PrArgs};
use crate::cmd::resolve_run;
use crate::context::Ctx;

pub fn run(global: &GlobalArgs, args: &PrArgs) -> anyhow::Result<ExitCode> {
    let ctx = Ctx::load(global)?;
    let repo = ctx.repo()?;
    let id = resolve_run(&RunStore::new(repo.clone()), &args.run)?;
    let p = loki_intake::pr::publish(
        &repo,
        &id,
        &args.remote,
        args.base.as_deref(),
        &Endpoints::from_env(),
        &Hosts::from_env(),
        Instant::now() + loki_engine::DEFAULT_CAP,
    )?;
    if global.json {
        anstream::println!("{}", serde_json::to_string(&p)?);
    } else {
        let what = if p.result.created {
            "opened"
        } else {
            "updated"
        };
        let draft = if p.draft {
            " (a draft: the run is not VERIFIED)"
        } else {
            ""
        };
        anstream::println!("{what} {}{draft}", p.result.url);
    }
    Ok(ExitCode::Success)
}
