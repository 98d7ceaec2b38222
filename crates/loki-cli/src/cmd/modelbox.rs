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
use loki_process::confine::{Network, NetworkCut};
use loki_workspace::modelbox::{describe, network_cut, network_words};

use crate::cli::GlobalArgs;
use loki_term::{DIM, YELLOW, paint};

/// Says what the box of a model-driven command is before it starts (see the module doc).
pub fn announce(global: &GlobalArgs, network: Network, cli_agent: bool) {
    let support = loki_process::confine::support();
    if !support.filesystem() {
        anstream::eprintln!(
            "{} Landlock is not available on this kernel: the model's commands are not boxed (they could open your keys and credentials by absolute path); the receipt lists it in NOT PROVEN",
            paint(YELLOW, "warning:")
        );
    }
    let cut = network_cut();
    // Said always, as the missing box is: the user chose "off" and gets less than that.
    if network == Network::Denied && !cli_agent && !matches!(cut, NetworkCut::Everything) {
        anstream::eprintln!(
            "{} the network of the model's commands is {}",
            paint(YELLOW, "warning:"),
            network_words(&cut)
        );
    }
    if global.verbose {
        anstream::eprintln!(
            "{}",
            paint(DIM, &describe(support, &cut, network, cli_agent))
        );
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
