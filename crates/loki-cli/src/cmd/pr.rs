//! `loki pr <run>` and the `PR:` line of a build with `--pr`. Publishing is
//! [`loki_intake::after`]'s (one code path for both, so a build's `--pr` is exactly `loki pr
//! <run>`); this resolves the run and prints.

use loki_core::run::RunStore;
use loki_intake::after::AfterBuild;
use loki_intake::pr::Published;
use loki_protocol::outcome::ExitCode;

use crate::cli::{GlobalArgs, PrArgs};
use crate::context::Ctx;

/// Checks, before a `--pr` build starts, that its request could be opened.
pub use loki_intake::after::preflight_run as preflight;

/// `loki pr <run>`.
pub fn run(global: &GlobalArgs, args: &PrArgs) -> anyhow::Result<ExitCode> {
    let ctx = Ctx::load(global)?;
    let repo = ctx.repo()?;
    let id = crate::cmd::resolve_run(&RunStore::new(repo.clone()), &args.run)?;
    let p = loki_intake::after::publish_run(&repo, &id, &args.remote, args.base.as_deref())?;
    if global.json {
        crate::output::json(&p);
    } else {
        anstream::println!("{}", said(&p));
    }
    Ok(ExitCode::Success)
}

/// `opened <url>` / `updated <url>`, and whether it is a draft.
pub fn said(p: &Published) -> String {
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
    format!("{what} {}{draft}", p.result.url)
}

/// Prints the `PR:` line of the summary (or the error, on stderr).
pub fn print(after: &AfterBuild) {
    match after {
        AfterBuild::Published(p) => anstream::println!("{:<12}{}", "PR:", said(p)),
        AfterBuild::Nothing => {
            anstream::println!("{:<12}none: the run made no change to propose", "PR:");
        }
        AfterBuild::Failed(m) => crate::output::error(&anyhow::anyhow!(m.clone())),
    }
}
