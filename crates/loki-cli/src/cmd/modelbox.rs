//! The model box as the commands show it (the box itself is [`loki_process::confine::Policy::model_box`]):
//! the `agent.network` choice, what a model-driven command says before it starts, the `-v` echo of
//! every command the model runs, and the words `loki doctor` uses.
//!
//! Before a model-driven command starts: when Landlock is missing, one warning line on stderr
//! (always, even with `-q`: the user must know the box is not there); with `-v`, one line saying
//! what the box is. Each command the model runs is echoed to stderr as `  $ <command>` with `-v`.

use std::sync::Arc;

use loki_agent::RunHook;
use loki_process::confine::{Network, NetworkCut, NetworkMechanism, Support};

use crate::cli::GlobalArgs;
use crate::context::Ctx;
use loki_term::{DIM, YELLOW, paint};

/// The `agent.network` choice (default off).
pub fn network(ctx: &Ctx) -> Network {
    match ctx.config.str("agent.network") {
        Some("on") => Network::Allowed,
        _ => Network::Denied,
    }
}

/// What the filesystem part of the box enforces on a kernel with `support`.
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

/// The network of the current process's boxes (the wrapper is this binary).
pub fn cut() -> NetworkCut {
    match std::env::current_exe() {
        Ok(exe) => loki_process::confine::network_cut(&exe),
        Err(e) => NetworkCut::Nothing(format!("cannot locate the loki binary: {e}")),
    }
}

/// The one line `-v` prints before a model-driven command starts.
pub fn describe(support: Support, cut: &NetworkCut, network: Network, cli_agent: bool) -> String {
    let fs = if support.filesystem() {
        format!("Landlock ABI {}", support.abi)
    } else {
        "no Landlock (not boxed)".to_string()
    };
    let net = if cli_agent
        && network == Network::Denied
        && support.filesystem()
        && support.network() == NetworkMechanism::LandlockTcp
    {
        "network: only the CLI agent's model, through loki's egress proxy (TCP; UDP not covered)"
    } else if cli_agent {
        "network on (the CLI agent talks to its model)"
    } else if network == Network::Allowed {
        "network on (agent.network = \"on\")"
    } else {
        match (cut, support.network()) {
            (NetworkCut::Everything, NetworkMechanism::LandlockTcp) => {
                "network off (namespace; Landlock TCP)"
            }
            (NetworkCut::Everything, NetworkMechanism::Namespace) => "network off (namespace)",
            (NetworkCut::TcpOnly(_), _) => "network off for TCP only (Landlock TCP; no namespace)",
            (NetworkCut::Nothing(_), _) => "network cannot be turned off",
        }
    };
    format!("box: {fs}, {net}")
}

/// Says what the box of a model-driven command is before it starts (see the module doc).
pub fn announce(global: &GlobalArgs, network: Network, cli_agent: bool) {
    let support = loki_process::confine::support();
    if !support.filesystem() {
        anstream::eprintln!(
            "{} Landlock is not available on this kernel: the model's commands are not boxed (they could open your keys and credentials by absolute path); the receipt lists it in NOT PROVEN",
            paint(YELLOW, "warning:")
        );
    }
    let cut = cut();
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
