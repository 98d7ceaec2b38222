//! `loki ask "<prompt>"`: one agent session in this repository, without verification (the
//! session and its record are [`loki_engine::ask`], its options
//! [`loki_workspace::options::Setup::ask_options`]; this prints).
//!
//! It is for trying a provider: the agent works in the repository itself (not a worktree), and
//! nothing is checked or signed. The run is still recorded (`kind: ask`): events, the transcript
//! of every exchange, usage and cost.
//!
//! The model's commands (and a CLI agent) run in the model box
//! ([`loki_engine::fence::Scope::Checkout`]): the checkout is writable, new files at its top
//! included, but its `.git` is read-only and its `.loki` (other runs) hidden; loki's home, other runs and the user's credentials cannot be opened, `HOME`
//! and `TMPDIR` are private, and the network is off unless `agent.network = "on"`.

use loki_core::RunId;
use loki_protocol::outcome::ExitCode;

use crate::cli::AskArgs;
use crate::context::Ctx;
use loki_term::{DIM, paint};

impl AskArgs {
    /// The command's flags as the top configuration layer.
    pub fn provider_flags(&self) -> loki_workspace::flags::ConfigFlags {
        loki_workspace::flags::ConfigFlags {
            provider: self.provider.clone(),
            model: self.model.clone(),
            script: self.script.clone(),
            ..Default::default()
        }
    }
}

pub fn run(ctx: &Ctx, args: &AskArgs) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let (mut opts, chosen) = ctx.setup().ask_options(&args.prompt, args.max_turns)?;
    opts.on_run = crate::cmd::modelbox::echo_commands(&ctx.global);
    let (choice, why, network) = (chosen.choice, chosen.why, opts.network);
    let started = |id: &RunId, cli_agent: bool| -> anyhow::Result<()> {
        // Ctrl-C or SIGTERM: the agent's commands are stopped with their groups and loki says
        // what is left (the session has no safe point to stop at: a model call in flight cannot
        // be cut).
        crate::interrupt::install(format!(
            "the ask session (run {id}) was stopped; its edits so far stay in the working tree, unverified"
        ))?;
        if ctx.global.verbose {
            anstream::eprintln!(
                "{}",
                paint(
                    DIM,
                    &format!("provider {} ({why}); run {id}", choice.label())
                )
            );
        }
        crate::cmd::modelbox::announce(&ctx.global, network, cli_agent);
        Ok(())
    };
    let asked = loki_engine::ask::ask(&repo, chosen.backend, &opts, started)?;
    let id = asked.run_id;
    match asked.result {
        Ok(end) => {
            let json = loki_term::ask::ended_json(&choice.label(), &id, &end);
            let text = loki_term::ask::ended(&choice.label(), &id, &end);
            crate::output::show(ctx.global.json, json, text)
        }
        Err(e) => {
            // The exit code stays the agent error's: a setup problem (no key, bad URL, missing
            // CLI, a model call that failed) is the user's to fix (exit 2), anything else a
            // failure (exit 1). The run records the same code.
            let class = loki_core::exit::Classify::exit_class(&e);
            Err(crate::cmd::Worded {
                class,
                message: format!("the {} session failed (run {id}): {e}", choice.label()),
            }
            .into())
        }
    }
}
