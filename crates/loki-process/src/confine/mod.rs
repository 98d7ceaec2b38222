//! Filesystem confinement of untrusted commands (the agent's shell commands, CLI agents, and the
//! checks that run the agent's code), with Linux Landlock.
//!
//! # Policy
//! A [`Policy`] names paths to **deny** (no access at all: loki's home with the signing key, the
//! run records, other runs' worktrees, the user's credential files) and paths to **write**
//! (the worktree, the run-private home, the temporary directory, tool caches). Everything else
//! can be read and executed but not written, so the user's checkout cannot be modified.
//!
//! Landlock only grants: a rule on a directory covers everything beneath it. A denied path is
//! therefore carved out ([`rules`]): every directory on the way from `/` to it gets no rule
//! itself, and each of its other entries gets read access; the denied path gets nothing. A
//! symbolic link on the way gets no rule either (a rule would grant its target, perhaps a
//! denied path); its target is reachable where it really is.
//! Consequences, said plainly: listing a directory on such a way (`ls /`, `ls ~`) is refused,
//! and an entry created there after the rules were made is not reachable.
//!
//! # How it is applied
//! A process confines itself ([`restrict_self`]) and then `exec`s the command; the restriction
//! is inherited by everything that command starts and cannot be lifted. The `loki` binary
//! does this in a hidden subcommand ([`Policy::wrapper`] builds its command line), so no
//! `pre_exec` code runs in a forked child of a multi-threaded process.
//!
//! A write path that holds a denied or read-only path is carved the same way: its existing
//! entries are writable, but a new entry at its top cannot be created by a confined command
//! (the agent's file tools, which run in loki, still can). Paths that must stay read-only or
//! hidden *inside* a write path (the `.git` and `.loki` of the checkout `loki ask` works in, the
//! `.git` of a fix's replay) are therefore [`Policy::pinned`] and [`Policy::masked`]: the
//! wrapper makes them read-only by a bind mount, or hides them under an empty tmpfs, in a mount
//! namespace of its own ([`pin_read_only`]), and the checkout is not carved; only where the
//! kernel gives no mount namespace do they become Landlock rules, with the carve. A directory named in [`Policy::list`] gets a list-only rule, so that
//! `ls` and `git status` work at the top of such a checkout; it shows the names (never the
//! contents) of everything beneath, so it is never given around loki's home.
//!
//! # The model box
//! Every model-driven command (`loki ask`, a build run's sessions and checks, CLI agents) runs in
//! one box, built by [`Policy::model_box`] from a [`BoxSpec`]: loki's home and signing key, other
//! runs' records and worktrees, and the user's credential files ([`CREDENTIALS`]) are denied;
//! writes go only to the worktree (never its protected paths) and the run's private directory
//! (private `HOME`, `TMPDIR`, tool caches) and `/dev`; toolchains, caches and every `PATH`
//! directory are read-only. The network is denied unless the spec allows it
//! ([`Network::Denied`]): the wrapper moves into a new network namespace ([`unshare_network`]),
//! so no protocol leaves (UDP and DNS included); where the kernel refuses one, TCP connect and bind
//! are refused through Landlock ABI 4 (which does not cover UDP); with neither, the command does
//! not run. Landlock's TCP rules are added whenever the ABI has them, namespace or not. Which of
//! the three holds on this machine ([`network_cut`]) is asked of the wrapper itself in a child
//! process, so what loki says before a command, in `loki doctor` and in NOT PROVEN is what the
//! box will do, not what the kernel's version suggests. What a run's model can reach is one
//! [`AgentNetwork`], described in the same words wherever the run says it.
//!
//! # Failure modes
//! A kernel without Landlock (before 5.13, or disabled) enforces nothing: [`available`] says so
//! up front, so callers can record that the isolation was not enforced; [`restrict_self`]
//! returns [`Enforcement::NotEnforced`] rather than pretending. A policy path that does not exist
//! is skipped (there is nothing to protect or to write there). A policy that denies the network
//! where neither mechanism works is refused by the wrapper ([`ConfineError::Network`]): the
//! command does not run with the network on.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use landlock::ABI;

mod namespace;
mod probe;
mod reach;
mod rules;
pub mod wrapper;

pub use namespace::{pin_read_only, unshare_network, unshare_pids};
pub use probe::{NetworkCut, available, network_cut, support};
pub use reach::AgentNetwork;
pub use rules::{restrict_self, restrict_self_with, rules};

/// The Landlock ABI whose rights are handled. V5 covers reads, writes, renames across
/// directories, truncation and device ioctls; later ABIs add unix-socket and signal scoping,
/// which would break tools (docker, ssh-agent) without protecting files.
const TARGET_ABI: ABI = ABI::V5;
/// The first Landlock ABI with TCP rules.
const TCP_ABI: u32 = 4;
/// The hidden subcommand of `loki` that confines itself and runs a command.
pub const WRAPPER_SUBCOMMAND: &str = "__confine";
/// The wrapper's flag that gives the command a process namespace of its own ([`unshare_pids`]).
pub const OWN_PIDS_FLAG: &str = "--own-pids";
/// The wrapper's flag for a port of [`Policy::egress_ports`].
pub const EGRESS_PORT_FLAG: &str = "--egress-port";
/// The wrapper's flag for a path of [`Policy::pinned`].
pub const PIN_FLAG: &str = "--pin";
/// The wrapper's flag for a path of [`Policy::masked`].
pub const MASK_FLAG: &str = "--mask";
/// The wrapper's only argument when it is asked whether a network namespace can be made here
/// ([`network_cut`]): it tries [`unshare_network`] and exits 0, or 1 with the reason on stderr.
pub const PROBE_NETNS_FLAG: &str = "--probe-netns";

/// `wrapper` (an argv prefix from [`Policy::wrapper`]) with [`OWN_PIDS_FLAG`]: for a command
/// whose descendants may leave its process group (a CLI agent's shell tool runs each command
/// in a session of its own), so that they still end when it is killed. An empty prefix (no
/// wrapper) stays empty.
#[must_use]
pub fn with_own_pids(mut wrapper: Vec<OsString>) -> Vec<OsString> {
    if wrapper.get(1).is_some_and(|a| a == WRAPPER_SUBCOMMAND)
        && !wrapper.iter().any(|a| a == OWN_PIDS_FLAG)
    {
        wrapper.insert(2, OWN_PIDS_FLAG.into());
    }
    wrapper
}

/// `wrapper` (an argv prefix from [`Policy::wrapper`]) with the network denied but TCP connect
/// to `ports` ([`Policy::egress_ports`]): a CLI agent behind loki's egress proxy.
#[must_use]
pub fn with_egress(mut wrapper: Vec<OsString>, ports: &[u16]) -> Vec<OsString> {
    if wrapper.get(1).is_some_and(|a| a == WRAPPER_SUBCOMMAND) {
        let mut flags: Vec<OsString> = Vec::new();
        if !wrapper.iter().any(|a| a == "--no-network") {
            flags.push("--no-network".into());
        }
        for p in ports {
            flags.extend([EGRESS_PORT_FLAG.into(), p.to_string().into()]);
        }
        wrapper.splice(2..2, flags);
    }
    wrapper
}

/// Credential files and directories under the user's `HOME` that no model box can open.
pub const CREDENTIALS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".config/gcloud",
    ".config/gh",
    ".config/hub",
    ".git-credentials",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
];

/// Whether a confined command may use the network.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Network {
    /// Not restricted (the checks of the agent's code; `agent.network = "on"`).
    #[default]
    Allowed,
    /// TCP connect and bind refused (Landlock ABI 4), or no network at all (a namespace).
    Denied,
}

/// What a confined command may touch (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Policy {
    /// No access at all.
    pub deny: Vec<PathBuf>,
    /// Read, write, create and delete beneath these.
    pub write: Vec<PathBuf>,
    /// Never writable, even inside a `write` path (a repository checkout under the temporary
    /// directory); a `write` path inside one (the run's worktree) is still writable.
    pub read_only: Vec<PathBuf>,
    /// Directories whose entries (and everything's beneath) may be listed, not read.
    pub list: Vec<PathBuf>,
    /// Read-only like `read_only`, but by a read-only bind mount in a mount namespace of the
    /// wrapper's own ([`pin_read_only`]) where the kernel gives one, so the directory holding
    /// one (a checkout around its `.git`) is not carved and keeps accepting new entries. Where
    /// no namespace can be made the wrapper falls back to `read_only`; [`rules`] treats what is
    /// left here as `read_only`, so a policy is never weaker for it.
    pub pinned: Vec<PathBuf>,
    /// Denied like `deny`, but hidden by an empty read-only tmpfs mounted over it in the
    /// wrapper's mount namespace where the kernel gives one ([`pin_read_only`]), so the directory
    /// holding it is not carved. Fallback and [`rules`]: as `deny`.
    pub masked: Vec<PathBuf>,
    pub network: Network,
    /// With [`Network::Denied`]: the TCP ports a command may still connect to (loki's egress
    /// proxy on the host's loopback, a local model server), by Landlock ABI 4 rules. Non-empty,
    /// it keeps the command in the host's network namespace (the proxy must stay reachable), so
    /// it holds only where Landlock has TCP rules, and UDP is not covered.
    pub egress_ports: Vec<u16>,
}

/// What a rule grants beneath its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// Read and execute.
    Read,
    /// Everything.
    Write,
    /// Only listing directories (a carved write path itself: see the module doc).
    List,
}

/// One Landlock rule: `path` and what it grants beneath it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub path: PathBuf,
    pub grant: Grant,
}

/// Where a model box is drawn (see the module doc and [`Policy::model_box`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BoxSpec {
    /// Where the model works: writable, apart from `protect`.
    pub worktree: Option<PathBuf>,
    /// Read-only even inside the worktree (the checkout's `.git` for `loki ask`): pinned by a
    /// bind mount ([`Policy::pinned`]).
    pub protect: Vec<PathBuf>,
    /// Hidden even inside the worktree (the checkout's `.loki` for `loki ask`: other runs, their
    /// worktrees): masked by an empty tmpfs ([`Policy::masked`]).
    pub hide: Vec<PathBuf>,
    /// The run's private directory (private `HOME`, `TMPDIR`, tool caches): writable.
    pub private: PathBuf,
    /// loki's home and the signing key file: denied.
    pub secrets: Vec<PathBuf>,
    /// Other runs' records and worktrees, or the whole repository for the wall author: denied.
    pub others: Vec<PathBuf>,
    /// The user's real home, whose [`CREDENTIALS`] are denied.
    pub home: Option<PathBuf>,
    /// More writable paths loki's own helpers need (the checks' report directories and cache).
    pub also_write: Vec<PathBuf>,
    /// Read-only paths besides `protect` (the user's checkout around a run's worktree).
    pub also_read_only: Vec<PathBuf>,
    /// List-only directories ([`Policy::list`]).
    pub list: Vec<PathBuf>,
    pub network: Network,
}

/// What backs a box's network namespace (always tried first) on this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NetworkMechanism {
    /// Landlock ABI 4 as well: where a namespace is refused, TCP connect and bind are still
    /// refused (UDP then not covered).
    LandlockTcp,
    /// The namespace alone: when the kernel refuses it the command does not start.
    Namespace,
}

/// What this kernel's Landlock supports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version (0: none).
    pub abi: u32,
    /// Whether a ruleset was enforced by the probe.
    pub enforced: bool,
}

impl Support {
    /// Filesystem rules are enforced.
    #[must_use]
    pub fn filesystem(self) -> bool {
        self.enforced && self.abi >= 1
    }

    /// What backs the network namespace of [`Network::Denied`] here.
    #[must_use]
    pub fn network(self) -> NetworkMechanism {
        if self.enforced && self.abi >= TCP_ABI {
            NetworkMechanism::LandlockTcp
        } else {
            NetworkMechanism::Namespace
        }
    }
}

/// How much of a policy the kernel enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enforcement {
    Full,
    /// Some rights are not supported by this kernel (older ABI): files are still protected
    /// from the rights it has.
    Partial,
    NotEnforced,
}

/// Why confinement could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    #[error("cannot set up the Landlock ruleset: {0}")]
    Ruleset(String),
    #[error("cannot confine to {path}: {source}")]
    Path {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "cannot turn the network off (no Landlock ABI 4, and no network namespace: {0}); set agent.network = \"on\" to run with it"
    )]
    Network(String),
    #[error("cannot give the command a process namespace of its own: {0}")]
    Pids(String),
    #[error("cannot make {path} read-only by a bind mount: {why}")]
    Pin { path: PathBuf, why: String },
}

impl loki_core::exit::Classify for ConfineError {
    /// The kernel or the filesystem refused to set up the fence: loki cannot run the command
    /// safely, which is a failure, not the user's input.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            ConfineError::Ruleset(_)
            | ConfineError::Path { .. }
            | ConfineError::Network(_)
            | ConfineError::Pids(_)
            | ConfineError::Pin { .. } => loki_core::exit::ExitClass::Failure,
        }
    }
}

impl Policy {
    /// The command line that runs `program args…` confined by this policy through `exe` (the
    /// `loki` binary): `exe __confine --deny P… --write P… -- program args…`.
    #[must_use]
    pub fn wrapper(&self, exe: &Path) -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec![exe.into(), WRAPPER_SUBCOMMAND.into()];
        for p in &self.deny {
            argv.extend(["--deny".into(), p.clone().into_os_string()]);
        }
        for p in &self.write {
            argv.extend(["--write".into(), p.clone().into_os_string()]);
        }
        for p in &self.read_only {
            argv.extend(["--read-only".into(), p.clone().into_os_string()]);
        }
        for p in &self.list {
            argv.extend(["--list".into(), p.clone().into_os_string()]);
        }
        for p in &self.pinned {
            argv.extend([PIN_FLAG.into(), p.clone().into_os_string()]);
        }
        for p in &self.masked {
            argv.extend([MASK_FLAG.into(), p.clone().into_os_string()]);
        }
        if self.network == Network::Denied {
            argv.push("--no-network".into());
        }
        for port in &self.egress_ports {
            argv.extend([EGRESS_PORT_FLAG.into(), port.to_string().into()]);
        }
        argv.push("--".into());
        argv
    }

    /// The one policy of every model-driven command (see the module doc).
    #[must_use]
    pub fn model_box(spec: &BoxSpec) -> Policy {
        let mut deny: Vec<PathBuf> = spec.secrets.clone();
        deny.extend(spec.others.iter().cloned());
        if let Some(home) = &spec.home {
            deny.extend(CREDENTIALS.iter().map(|c| home.join(c)));
        }
        let mut write: Vec<PathBuf> = spec.worktree.iter().cloned().collect();
        write.push(spec.private.clone());
        // Terminals and /dev/null; nothing there outlives the run.
        write.push(PathBuf::from("/dev"));
        write.extend(spec.also_write.iter().cloned());
        Policy {
            deny,
            write,
            read_only: spec.also_read_only.clone(),
            list: spec.list.clone(),
            pinned: spec.protect.clone(),
            masked: spec.hide.clone(),
            network: spec.network,
            egress_ports: Vec::new(),
        }
    }
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests;
