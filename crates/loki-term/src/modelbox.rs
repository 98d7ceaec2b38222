//! What a model-driven command says about the model box before its run (stderr): a warning when
//! Landlock is unavailable (the commands are not boxed), a warning when the network is meant to
//! be off but this machine cannot cut all of it (not for a CLI agent, whose own network the box
//! leaves alone), and with `-v` the box in one dim line. The words are
//! `loki_workspace::modelbox`'s, shared with `loki doctor`.

use loki_process::confine::{Network, NetworkCut, Support};
use loki_workspace::modelbox::{describe, network_words};

use crate::{DIM, YELLOW, paint};

/// The lines to print, in order, for a run with `network` on a kernel with `support` where
/// `agent.network = "off"` holds back `cut`.
#[must_use]
pub fn announce(
    support: Support,
    cut: &NetworkCut,
    network: Network,
    cli_agent: bool,
    verbose: bool,
) -> Vec<String> {
    let mut lines = Vec::new();
    if !support.filesystem() {
        lines.push(format!(
            "{} Landlock is not available on this kernel: the model's commands are not boxed (they could open your keys and credentials by absolute path); the receipt lists it in NOT PROVEN",
            paint(YELLOW, "warning:")
        ));
    }
    if network == Network::Denied && !cli_agent && !matches!(cut, NetworkCut::Everything) {
        lines.push(format!(
            "{} the network of the model's commands is {}",
            paint(YELLOW, "warning:"),
            network_words(cut)
        ));
    }
    if verbose {
        lines.push(paint(DIM, &describe(support, cut, network, cli_agent)));
    }
    lines
}
