//! What this machine enforces: the kernel's Landlock support ([`support`]) and how a box that
//! denies the network is cut off ([`network_cut`], asked of the wrapper itself).

use std::path::Path;

use landlock::{Access, AccessFs, LandlockStatus, Ruleset, RulesetAttr, RulesetStatus};

use super::{NetworkMechanism, PROBE_NETNS_FLAG, Support, TARGET_ABI, WRAPPER_SUBCOMMAND};

/// Whether this kernel enforces Landlock filesystem rules ([`support`]).
#[must_use]
pub fn available() -> bool {
    support().filesystem()
}

/// What this kernel enforces: a throwaway thread restricts itself (Landlock restricts only the
/// calling thread) and reports how much was enforced and the kernel's ABI. Asked once per
/// process.
#[must_use]
pub fn support() -> Support {
    static SUPPORT: std::sync::OnceLock<Support> = std::sync::OnceLock::new();
    *SUPPORT.get_or_init(probe_kernel)
}

fn probe_kernel() -> Support {
    let probe = std::thread::spawn(|| {
        Ruleset::default()
            .handle_access(AccessFs::from_all(TARGET_ABI))
            .and_then(landlock::Ruleset::create)
            .and_then(landlock::RulesetCreated::restrict_self)
    });
    let Ok(Ok(status)) = probe.join() else {
        return Support {
            abi: 0,
            enforced: false,
        };
    };
    let abi = match status.landlock {
        LandlockStatus::Available {
            effective_abi,
            kernel_abi,
        } => kernel_abi
            .and_then(|k| u32::try_from(k).ok())
            // The ABI enum is non-exhaustive, so it cannot be cast: its Display is the number.
            .unwrap_or_else(|| effective_abi.to_string().parse().unwrap_or(0)),
        LandlockStatus::NotEnabled | LandlockStatus::NotImplemented => 0,
    };
    Support {
        abi,
        enforced: matches!(
            status.ruleset,
            RulesetStatus::FullyEnforced | RulesetStatus::PartiallyEnforced
        ),
    }
}

/// How [`Network::Denied`](super::Network::Denied) cuts a box off on this machine: what a box that denies the network
/// really holds back, for the line a command prints before it starts, `loki doctor` and the
/// receipt's NOT PROVEN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkCut {
    /// A new network namespace: no protocol leaves (UDP and DNS included).
    Everything,
    /// No namespace here (the reason), but Landlock ABI 4 refuses TCP connect and bind: UDP is
    /// not covered.
    TcpOnly(String),
    /// Neither: a box that denies the network is refused, its command does not run.
    Nothing(String),
}

/// What a box that denies the network holds back here. Whether a namespace can be made is asked
/// of the wrapper (`exe __confine --probe-netns`) in a child process, as a box would make it: a
/// namespace needs a single-threaded process (unprivileged) and may be refused by the kernel
/// or its limits (`user.max_net_namespaces`, a container's seccomp profile). Asked once per
/// process; a probe that cannot run counts as a refusal, so the claim is never stronger than
/// what was seen.
#[must_use]
pub fn network_cut(exe: &Path) -> NetworkCut {
    static CUT: std::sync::OnceLock<NetworkCut> = std::sync::OnceLock::new();
    CUT.get_or_init(|| {
        let probe = crate::Spec::new(exe, "/")
            .arg(WRAPPER_SUBCOMMAND)
            .arg(PROBE_NETNS_FLAG)
            .timeout(std::time::Duration::from_secs(10))
            .output_cap(4096);
        let refused = match crate::run(&probe) {
            Ok(out) if out.success() => return NetworkCut::Everything,
            Ok(out) => {
                let why = out.stderr.text();
                let why = why.trim().trim_start_matches("loki: ");
                if why.is_empty() {
                    format!("the probe exited with {}", out.exit_code())
                } else {
                    why.to_string()
                }
            }
            Err(e) => e.to_string(),
        };
        if support().network() == NetworkMechanism::LandlockTcp {
            NetworkCut::TcpOnly(refused)
        } else {
            NetworkCut::Nothing(refused)
        }
    })
    .clone()
}
