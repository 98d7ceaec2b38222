//! `loki pr <run>` and the `PR:` line of a build with `--pr`. Publishing is
//! [`loki_intake::after`]'s (one code path for both, so a build's `--pr` is exactly `loki pr
//! <run>`); this resolves the run and prints.

use loki_core::run::RunStore;
use loki_intake::after::AfterBuild;
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
    let text = format!("{}\n", loki_term::build::published(&p));
    crate::output::show(global.json, &p, text)
}

/// Prints the `PR:` line of the summary (or the error, on stderr).
pub fn print(after: &AfterBuild) {
    match (loki_term::build::pr_line(after), after) {
        (Some(line), _) => anstream::println!("{line}"),
        (None, AfterBuild::Failed(m)) => crate::output::error(&anyhow::anyhow!(m.clone())),
        (None, _) => {}
    }
}
