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
//! box will do, not what the kernel's version suggests.
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

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, LandlockStatus, PathBeneath, PathFd, Ruleset,
    RulesetAttr, RulesetCreatedAttr, RulesetStatus,
};

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

impl crate::exit::Classify for ConfineError {
    /// The kernel or the filesystem refused to set up the fence: loki cannot run the command
    /// safely, which is a failure, not the user's input.
    fn exit_class(&self) -> crate::exit::ExitClass {
        match self {
            ConfineError::Ruleset(_)
            | ConfineError::Path { .. }
            | ConfineError::Network(_)
            | ConfineError::Pids(_)
            | ConfineError::Pin { .. } => crate::exit::ExitClass::Failure,
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

/// How [`Network::Denied`] cuts a box off on this machine: what a box that denies the network
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
        let probe = crate::process::Spec::new(exe, "/")
            .arg(WRAPPER_SUBCOMMAND)
            .arg(PROBE_NETNS_FLAG)
            .timeout(std::time::Duration::from_secs(10))
            .output_cap(4096);
        let refused = match crate::process::run(&probe) {
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

/// Moves the calling process into a new network namespace with no interface up, so nothing it
/// starts can reach any host (not even loopback). Plain `unshare` needs `CAP_SYS_ADMIN`; an
/// unprivileged process first gets a user namespace of its own, mapping its user and group to
/// themselves so files keep their owners. Call it single-threaded, before [`restrict_self`].
pub fn unshare_network() -> Result<(), ConfineError> {
    unshare_with(rustix::thread::UnshareFlags::NEWNET).map_err(ConfineError::Network)
}

/// Makes the calling process's next child the first process (pid 1) of a new PID namespace:
/// when that child ends or is killed, the kernel kills every process left in the namespace,
/// also those that left the child's process group or session (which a process-group kill
/// misses). Unprivileged, a user namespace mapping the user and group to themselves comes
/// first, as for [`unshare_network`]. Call it single-threaded, before [`restrict_self`].
pub fn unshare_pids() -> Result<(), ConfineError> {
    unshare_with(rustix::thread::UnshareFlags::NEWPID).map_err(ConfineError::Pids)
}

/// Makes each existing path of `paths` read-only for the calling process and everything it
/// starts: a mount namespace of its own (a user namespace first when unprivileged), every mount
/// made private so nothing propagates back to the host, then a bind mount of the path onto
/// itself remounted read-only, keeping the flags the kernel locks in a user namespace (nosuid,
/// nodev, noexec, the atime mode). Writes, new entries, renames and removal beneath it fail
/// (`EROFS`, `EBUSY` for the mount point itself); the directory around it stays as the policy
/// has it. A Landlock-restricted process cannot unmount it. Call it single-threaded, before
/// [`restrict_self`]. On an error nothing is half-promised: the caller falls back to
/// Landlock's read-only rules for every path.
///
/// Each existing path of `masks` gets an empty, read-only tmpfs mounted over it: what was there
/// cannot be listed, read or written.
pub fn pin_read_only(paths: &[PathBuf], masks: &[PathBuf]) -> Result<(), ConfineError> {
    use rustix::fs::StatVfsMountFlags as St;
    use rustix::mount::{MountFlags, MountPropagationFlags};
    let pin_err = |path: &Path, why: String| ConfineError::Pin {
        path: path.to_path_buf(),
        why,
    };
    let existing: Vec<PathBuf> = paths.iter().filter_map(|p| p.canonicalize().ok()).collect();
    let masks: Vec<PathBuf> = masks
        .iter()
        .filter_map(|p| p.canonicalize().ok())
        .filter(|p| p.is_dir())
        .collect();
    let Some(first) = existing.first().or(masks.first()) else {
        return Ok(());
    };
    unshare_with(rustix::thread::UnshareFlags::NEWNS).map_err(|e| pin_err(first, e))?;
    rustix::mount::mount_change(
        "/",
        MountPropagationFlags::REC | MountPropagationFlags::PRIVATE,
    )
    .map_err(|e| pin_err(first, format!("making the mounts private: {e}")))?;
    for path in &existing {
        rustix::mount::mount_bind(path, path).map_err(|e| pin_err(path, e.to_string()))?;
        let have = rustix::fs::statvfs(path)
            .map_err(|e| pin_err(path, e.to_string()))?
            .f_flag;
        let mut keep = MountFlags::empty();
        for (st, ms) in [
            (St::NOSUID, MountFlags::NOSUID),
            (St::NODEV, MountFlags::NODEV),
            (St::NOEXEC, MountFlags::NOEXEC),
            (St::NOATIME, MountFlags::NOATIME),
            (St::NODIRATIME, MountFlags::NODIRATIME),
            (St::RELATIME, MountFlags::RELATIME),
        ] {
            if have.contains(st) {
                keep |= ms;
            }
        }
        rustix::mount::mount_remount(path, MountFlags::BIND | MountFlags::RDONLY | keep, "")
            .map_err(|e| pin_err(path, format!("remounting read-only: {e}")))?;
    }
    for path in &masks {
        rustix::mount::mount(
            "tmpfs",
            path,
            "tmpfs",
            MountFlags::RDONLY | MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC,
            c"size=4k,mode=0555",
        )
        .map_err(|e| pin_err(path, format!("masking: {e}")))?;
    }
    Ok(())
}

/// `unshare(what)`, with a user namespace of its own first when plain `unshare` is refused.
fn unshare_with(what: rustix::thread::UnshareFlags) -> Result<(), String> {
    use rustix::thread::UnshareFlags;
    #[expect(
        deprecated,
        reason = "unshare_unsafe is unsafe only for CLONE_FILES, which is not asked for; unsafe code is forbidden here"
    )]
    let unshare = rustix::thread::unshare;
    if unshare(what).is_ok() {
        return Ok(());
    }
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    unshare(UnshareFlags::NEWUSER | what).map_err(|e| e.to_string())?;
    let write = |file: &str, text: String| {
        use std::io::Write as _;
        std::fs::OpenOptions::new()
            .write(true)
            .open(file)
            .and_then(|mut f| f.write_all(text.as_bytes()))
            .map_err(|e| format!("{file}: {e}"))
    };
    // setgroups must be denied before an unprivileged process may write its gid_map.
    write("/proc/self/setgroups", "deny".into())?;
    write("/proc/self/uid_map", format!("{uid} {uid} 1"))?;
    write("/proc/self/gid_map", format!("{gid} {gid} 1"))
}

/// The rules that implement `policy` (see the module doc). Paths are made absolute and
/// canonical; ones that do not exist are skipped.
#[must_use]
pub fn rules(policy: &Policy) -> Vec<Rule> {
    let deny: Vec<PathBuf> = policy
        .deny
        .iter()
        .chain(&policy.masked)
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    // Write rules stop at denied and read-only paths alike.
    let mut stop = deny.clone();
    stop.extend(
        policy
            .read_only
            .iter()
            .chain(&policy.pinned)
            .filter_map(|p| p.canonicalize().ok()),
    );
    let mut out = Vec::new();
    carve(Path::new("/"), &deny, Grant::Read, &mut out);
    for w in &policy.write {
        let Ok(w) = w.canonicalize() else { continue };
        // A write path inside a denied one would reopen it; one around a denied or read-only
        // path (a temporary directory holding loki's home or a checkout) is carved like `/`.
        if !deny.iter().any(|d| w.starts_with(d)) {
            carve(&w, &stop, Grant::Write, &mut out);
        }
    }
    out.extend(
        policy
            .list
            .iter()
            .filter_map(|p| p.canonicalize().ok())
            .map(|path| Rule {
                path,
                grant: Grant::List,
            }),
    );
    out
}

/// Rules (`grant`) for everything under `dir` except the denied paths.
fn carve(dir: &Path, deny: &[PathBuf], grant: Grant, out: &mut Vec<Rule>) {
    if deny.iter().any(|d| d == dir) {
        return;
    }
    if !deny.iter().any(|d| d.starts_with(dir)) {
        out.push(Rule {
            path: dir.to_path_buf(),
            grant,
        });
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    children.sort();
    for child in children {
        let Ok(meta) = std::fs::symlink_metadata(&child) else {
            continue;
        };
        // A rule on a symlink would grant its target (the rule's descriptor follows it), which
        // may be a denied path (`~/keys -> ~/.loki/keys`): a link gets no rule of its own, and
        // what it points to is reachable only where its real place is.
        if meta.file_type().is_symlink() {
            continue;
        }
        if meta.is_dir() {
            carve(&child, deny, grant, out);
        } else if !deny.contains(&child) {
            out.push(Rule { path: child, grant });
        }
    }
}

/// Confines the calling process (and everything it starts afterwards) to `policy`. Call it in a
/// process about to `exec`; it cannot be undone.
pub fn restrict_self(policy: &Policy) -> Result<Enforcement, ConfineError> {
    restrict_self_with(policy, rules(policy))
}

/// [`restrict_self`] with the rules computed beforehand ([`rules`]). Stacking layers needs it:
/// once the first layer is enforced, the walk of the next one may no longer list the
/// directories it has to carve, so every layer's rules are computed before any is enforced.
pub fn restrict_self_with(policy: &Policy, rules: Vec<Rule>) -> Result<Enforcement, ConfineError> {
    let err = |e: landlock::RulesetError| ConfineError::Ruleset(e.to_string());
    let all = AccessFs::from_all(TARGET_ABI);
    let read = AccessFs::from_read(TARGET_ABI);
    let mut base = Ruleset::default().handle_access(all).map_err(err)?;
    let tcp_rules =
        policy.network == Network::Denied && support().network() == NetworkMechanism::LandlockTcp;
    if tcp_rules {
        // Handled with no rule but the egress ports': every other TCP connect and bind is
        // refused.
        base = base
            .handle_access(AccessNet::from_all(ABI::V4))
            .map_err(err)?;
    }
    let mut ruleset = base.create().map_err(err)?;
    if tcp_rules {
        for port in &policy.egress_ports {
            ruleset = ruleset
                .add_rule(landlock::NetPort::new(*port, AccessNet::ConnectTcp))
                .map_err(err)?;
        }
    }
    for rule in rules {
        // Gone since the walk (a temporary file): nothing to grant.
        let Ok(fd) = PathFd::new(&rule.path) else {
            continue;
        };
        let is_dir = std::fs::metadata(&rule.path).is_ok_and(|m| m.is_dir());
        let mut access: BitFlags<AccessFs> = match rule.grant {
            Grant::Write => all,
            Grant::Read => read,
            Grant::List => AccessFs::ReadDir.into(),
        };
        if !is_dir {
            // Directory rights on a file are refused by the kernel.
            access &= AccessFs::from_file(TARGET_ABI);
        }
        if access.is_empty() {
            // A list-only rule on a file grants nothing.
            continue;
        }
        ruleset = ruleset
            .add_rule(PathBeneath::new(fd, access))
            .map_err(err)?;
    }
    let status = ruleset.restrict_self().map_err(err)?;
    Ok(match status.ruleset {
        RulesetStatus::FullyEnforced => Enforcement::Full,
        RulesetStatus::PartiallyEnforced => Enforcement::Partial,
        RulesetStatus::NotEnforced => Enforcement::NotEnforced,
    })
}

#[cfg(test)]
#[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
mod tests {
    use super::*;

    #[test]
    fn a_denied_path_is_carved_out_and_its_siblings_stay_readable() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        for d in [
            "home/.loki/keys",
            "home/.cargo",
            "repo/.loki/runs",
            "repo/src",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("home/notes.txt"), "n").unwrap();
        let policy = Policy {
            deny: vec![root.join("home/.loki"), root.join("repo/.loki/runs")],
            // `home` holds a denied path: it is carved, not granted whole; `root` holds the
            // read-only repository, which only its `src` is writable in.
            write: vec![
                root.join("repo/src"),
                root.join("missing"),
                root.join("home"),
                root.clone(),
            ],
            read_only: vec![root.join("repo")],
            pinned: Vec::new(),
            masked: Vec::new(),
            list: vec![root.join("repo")],
            network: Network::Allowed,
            egress_ports: Vec::new(),
        };
        let got = rules(&policy);
        let under: Vec<(String, Grant)> = got
            .iter()
            .filter_map(|r| {
                r.path
                    .strip_prefix(&root)
                    .ok()
                    .map(|p| (p.display().to_string(), r.grant))
            })
            .collect();
        let (r, w, l) = (Grant::Read, Grant::Write, Grant::List);
        // `repo` is listed only because the policy names it.
        assert_eq!(
            under,
            [
                ("home/.cargo".to_string(), r),
                ("home/notes.txt".to_string(), r),
                ("repo/src".to_string(), r),
                ("repo/src".to_string(), w),
                ("home/.cargo".to_string(), w),
                ("home/notes.txt".to_string(), w),
                ("home/.cargo".to_string(), w),
                ("home/notes.txt".to_string(), w),
                ("repo".to_string(), l),
            ]
        );
        // Nothing on the way to a denied path is granted as a whole.
        for r in got.iter().filter(|r| r.grant != Grant::List) {
            assert!(!policy.deny.iter().any(|d| d.starts_with(&r.path)), "{r:?}");
        }
    }

    #[test]
    fn a_symlink_beside_a_denied_path_does_not_reopen_it() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("home/.loki/keys")).unwrap();
        std::os::unix::fs::symlink(root.join("home/.loki/keys"), root.join("home/keys")).unwrap();
        let policy = Policy {
            deny: vec![root.join("home/.loki")],
            write: vec![root.join("home")],
            ..Policy::default()
        };
        let got = rules(&policy);
        assert!(
            !got.iter().any(|r| r.path == root.join("home/keys")),
            "{got:?}"
        );
    }

    #[test]
    fn the_wrapper_command_line_names_every_path() {
        let p = Policy {
            deny: vec!["/h/.loki".into()],
            write: vec!["/w".into(), "/tmp".into()],
            read_only: vec!["/tmp/repo".into()],
            list: vec!["/tmp/repo".into()],
            pinned: vec!["/tmp/repo/.git".into()],
            masked: vec!["/tmp/repo/.loki".into()],
            network: Network::Denied,
            egress_ports: vec![8080],
        };
        let argv: Vec<String> = p
            .wrapper(Path::new("/bin/loki"))
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            argv,
            [
                "/bin/loki",
                "__confine",
                "--deny",
                "/h/.loki",
                "--write",
                "/w",
                "--write",
                "/tmp",
                "--read-only",
                "/tmp/repo",
                "--list",
                "/tmp/repo",
                "--pin",
                "/tmp/repo/.git",
                "--mask",
                "/tmp/repo/.loki",
                "--no-network",
                "--egress-port",
                "8080",
                "--"
            ]
        );
    }

    #[test]
    fn the_model_box_denies_secrets_and_credentials_and_writes_only_its_own_places() {
        let spec = BoxSpec {
            worktree: Some("/r/.loki/worktrees/w".into()),
            protect: vec!["/r/.loki/worktrees/w/.git".into()],
            hide: vec!["/r/.loki/worktrees/w/.loki".into()],
            private: "/tmp/loki-agent-x".into(),
            secrets: vec!["/h/.loki".into()],
            others: vec!["/r/.loki/runs".into()],
            home: Some("/h".into()),
            also_write: Vec::new(),
            also_read_only: vec!["/r".into()],
            list: Vec::new(),
            network: Network::Denied,
        };
        let p = Policy::model_box(&spec);
        for denied in [
            "/h/.loki",
            "/r/.loki/runs",
            "/h/.ssh",
            "/h/.aws",
            "/h/.config/gh",
            "/h/.netrc",
            "/h/.docker/config.json",
            "/h/.git-credentials",
            "/h/.npmrc",
            "/h/.pypirc",
            "/h/.cargo/credentials",
            "/h/.cargo/credentials.toml",
        ] {
            assert!(p.deny.contains(&PathBuf::from(denied)), "{denied}");
        }
        let write: Vec<&str> = p.write.iter().filter_map(|w| w.to_str()).collect();
        assert_eq!(write, ["/r/.loki/worktrees/w", "/tmp/loki-agent-x", "/dev"]);
        assert_eq!(p.read_only, [PathBuf::from("/r")]);
        assert_eq!(p.pinned, [PathBuf::from("/r/.loki/worktrees/w/.git")]);
        assert_eq!(p.masked, [PathBuf::from("/r/.loki/worktrees/w/.loki")]);
        assert_eq!(p.network, Network::Denied);
    }
}
