//! The model box as the commands show it (the box itself is
//! [`loki_process::confine::Policy::model_box`], the `agent.network` choice
//! [`loki_workspace::options`]'s, its words [`loki_workspace::modelbox`]'s): what a model-driven
//! command says before it starts and the `-v` echo of every command the model runs.
//!
//! Before a model-driven command starts: when Landlock is missing, one warning line on stderr
//! (always, even with `-q`: the user must know the box is not there); with `-v`, one line saying
//! what the box is. Each command the model runs is echoed to stderr as `  $ <command>` with `-v`.

use std::sync::Arc;

use loki_agent::RunHook;
use loki_process::confine::Network;
use loki_workspace::modelbox::network_cut;

use crate::cli::GlobalArgs;
use loki_term::{DIM, paint};

/// Says what the box of a model-driven command is before it starts (see the module doc).
pub fn announce(global: &GlobalArgs, network: Network, cli_agent: bool) {
    let support = loki_process::confine::support();
    let cut = network_cut();
    for line in loki_term::modelbox::announce(support, &cut, network, cli_agent, global.verbose) {
        anstream::eprintln!("{line}");
    }
}

/// The hook that echoes each command the model runs, with `-v`.
pub fn echo_commands(global: &GlobalArgs) -> Option<RunHook> {
    global.verbose.then(|| {
        RunHook(Arc::new(|command: &str| {
            anstream::eprintln!("{}", paint(DIM, &format!("  $ {command}")));
        }))
    })
}
