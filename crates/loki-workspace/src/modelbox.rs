//! The model box in words: what its filesystem part enforces on this kernel, what
//! `agent.network = "off"` holds back on this machine, and the one line a model-driven command
//! shows with `-v`. The box itself is [`loki_process::confine::Policy::model_box`]; `loki doctor`
//! and every model-driven command describe it with these, so they never disagree.

use loki_process::confine::{AgentNetwork, Network, NetworkCut, Support};

/// What `agent.network = "off"` holds back for the boxes of the current process (the wrapper is
/// this process's binary).
#[must_use]
pub fn network_cut() -> NetworkCut {
    match std::env::current_exe() {
        Ok(exe) => loki_process::confine::network_cut(&exe),
        Err(e) => NetworkCut::Nothing(format!("cannot locate the loki binary: {e}")),
    }
}

/// What the filesystem part of the box enforces on a kernel with `support`.
#[must_use]
pub fn filesystem_words(support: Support) -> String {
    if support.filesystem() {
        format!(
            "Landlock ABI {}: the model's commands cannot open loki's home (keys), other runs or your credential files, and write only in the worktree and a private temporary directory (no toolchain, cache or PATH directory)",
            support.abi
        )
    } else {
        "Landlock is not available: the model's commands get a scrubbed environment and a private HOME, but could open or write files by absolute path".to_string()
    }
}

/// What `agent.network = "off"` holds back on this machine (`cut`, from
/// [`loki_process::confine::network_cut`]).
#[must_use]
pub fn network_words(cut: &NetworkCut) -> String {
    match cut {
        NetworkCut::Everything => {
            "off: a new network namespace (no protocol leaves, UDP and DNS included)".to_string()
        }
        NetworkCut::TcpOnly(why) => format!(
            "off for TCP only: TCP connect and bind refused by Landlock ABI 4+; UDP (DNS included) is not covered because this machine gives no network namespace ({why})"
        ),
        NetworkCut::Nothing(why) => format!(
            "cannot be turned off here: no network namespace ({why}) and no Landlock ABI 4; the model's commands do not run unless agent.network = \"on\""
        ),
    }
}

/// The one line `-v` prints before a model-driven command starts: the filesystem part, then
/// the network as [`AgentNetwork::words`] says it (the build's intake line says the same words).
#[must_use]
pub fn describe(support: Support, cut: &NetworkCut, network: Network, cli_agent: bool) -> String {
    let fs = if support.filesystem() {
        format!("Landlock ABI {}", support.abi)
    } else {
        "no Landlock (not boxed)".to_string()
    };
    let net = AgentNetwork::of(support, cut, network, cli_agent);
    format!("box: {fs}, {}", net.words())
}
