//! What the model's commands can reach on the network in one run, as one typed value
//! ([`AgentNetwork`]) and its one description ([`AgentNetwork::words`]): the build's intake line
//! and the `-v` box line a model-driven command prints before it starts both say these words, so
//! they never disagree (a CLI agent behind loki's egress proxy was "network on" in one and
//! "only its model" in the other).
//!
//! [`AgentNetwork::of`] decides from what the box will do here: the kernel's Landlock
//! ([`super::Support`]), how a denied network is cut on this machine ([`NetworkCut`]), the
//! user's `agent.network` choice and whether the agent is a CLI agent (which talks to its own
//! model: behind loki's egress proxy where Landlock has TCP rules, else with the network on).

use super::{Network, NetworkCut, NetworkMechanism, Support};

/// What the model's commands can reach on the network in a run (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentNetwork {
    /// No box on this kernel (no Landlock): nothing is cut off.
    NotBoxed,
    /// A CLI agent behind loki's egress proxy: its own model's hosts only (TCP; UDP is not
    /// covered, the proxy must stay on the host's loopback).
    ModelOnly,
    /// A CLI agent with the network on: it talks to its model, and no proxy can hold it here
    /// (or the user turned the network on).
    OnForTheClient,
    /// The user turned it on (`agent.network = "on"`).
    OnByChoice,
    /// Off: a network namespace of the box's own (Landlock's TCP rules too, where the kernel
    /// has them).
    Off { landlock_tcp: bool },
    /// Off for TCP only: no namespace here, Landlock ABI 4 refuses TCP; UDP is not covered.
    TcpOnly,
    /// Cannot be cut off here: the model's commands do not run.
    Refused,
}

impl AgentNetwork {
    /// The network of a run on a kernel with `support`, where a denied network is cut as `cut`,
    /// with the user's `network` choice, for a CLI agent or the built-in loop.
    #[must_use]
    pub fn of(support: Support, cut: &NetworkCut, network: Network, cli_agent: bool) -> Self {
        let tcp_rules = support.network() == NetworkMechanism::LandlockTcp;
        if !support.filesystem() {
            return AgentNetwork::NotBoxed;
        }
        match (cli_agent, network) {
            (true, Network::Denied) if tcp_rules => AgentNetwork::ModelOnly,
            (true, _) => AgentNetwork::OnForTheClient,
            (false, Network::Allowed) => AgentNetwork::OnByChoice,
            (false, Network::Denied) => match cut {
                NetworkCut::Everything => AgentNetwork::Off {
                    landlock_tcp: tcp_rules,
                },
                NetworkCut::TcpOnly(_) => AgentNetwork::TcpOnly,
                NetworkCut::Nothing(_) => AgentNetwork::Refused,
            },
        }
    }

    /// Its description, the same wherever a run says it.
    #[must_use]
    pub fn words(self) -> &'static str {
        match self {
            AgentNetwork::NotBoxed => "network not cut off (no box on this kernel)",
            AgentNetwork::ModelOnly => {
                "network: only the CLI agent's model, through loki's egress proxy (TCP; UDP not covered)"
            }
            AgentNetwork::OnForTheClient => "network on (the CLI agent talks to its model)",
            AgentNetwork::OnByChoice => "network on (agent.network = \"on\")",
            AgentNetwork::Off { landlock_tcp: true } => "network off (namespace; Landlock TCP)",
            AgentNetwork::Off {
                landlock_tcp: false,
            } => "network off (namespace)",
            AgentNetwork::TcpOnly => "network off for TCP only (Landlock TCP; no namespace)",
            AgentNetwork::Refused => "network cannot be turned off",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_setting_has_one_network_and_its_words() {
        let full = Support {
            abi: 6,
            enforced: true,
        };
        let fs_only = Support {
            abi: 3,
            enforced: true,
        };
        let none = Support {
            abi: 0,
            enforced: false,
        };
        let ns = NetworkCut::Everything;
        let tcp = NetworkCut::TcpOnly("no userns".into());
        let cases = [
            (full, &ns, Network::Denied, true, AgentNetwork::ModelOnly),
            (
                fs_only,
                &ns,
                Network::Denied,
                true,
                AgentNetwork::OnForTheClient,
            ),
            (
                full,
                &ns,
                Network::Allowed,
                true,
                AgentNetwork::OnForTheClient,
            ),
            (full, &ns, Network::Allowed, false, AgentNetwork::OnByChoice),
            (
                full,
                &ns,
                Network::Denied,
                false,
                AgentNetwork::Off { landlock_tcp: true },
            ),
            (
                fs_only,
                &ns,
                Network::Denied,
                false,
                AgentNetwork::Off {
                    landlock_tcp: false,
                },
            ),
            (full, &tcp, Network::Denied, false, AgentNetwork::TcpOnly),
            (none, &ns, Network::Denied, true, AgentNetwork::NotBoxed),
            (none, &ns, Network::Denied, false, AgentNetwork::NotBoxed),
        ];
        for (support, cut, network, cli, want) in cases {
            assert_eq!(
                AgentNetwork::of(support, cut, network, cli),
                want,
                "{support:?} {cut:?} {network:?} cli={cli}"
            );
        }
        let nothing = NetworkCut::Nothing("no namespace".into());
        assert_eq!(
            AgentNetwork::of(fs_only, &nothing, Network::Denied, false),
            AgentNetwork::Refused
        );
        assert!(AgentNetwork::ModelOnly.words().contains("egress proxy"));
    }
}
