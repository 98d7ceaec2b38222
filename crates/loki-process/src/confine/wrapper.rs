//! `loki __confine --deny P… --write P… --read-only P… --list P… [--no-network] -- program args…`: the
//! hidden wrapper through which every model-driven command starts untrusted commands. It confines
//! itself with [`super`] and then `exec`s the program, which inherits the
//! confinement (so does everything it starts).
//!
//! `--no-network` first moves the wrapper into a new network namespace
//! ([`super::unshare_network`]): no interface is up, so no protocol leaves (TCP, UDP
//! such as DNS, raw sockets, loopback services). Where the kernel refuses a namespace, Landlock ABI
//! 4 refuses TCP connect and bind (UDP is then not covered); with neither, the command does not run.
//!
//! `--own-pids` runs the program as the first process of a PID namespace of its own
//! ([`super::unshare_pids`]), as a child the wrapper waits for instead of `exec`:
//! when the program ends or is killed (a cap, Ctrl-C, or the watchdog after `kill -9` of loki
//! kills the wrapper's process group, which holds both), the kernel kills everything it
//! started, also what left its process group (Claude Code runs each Bash command in a session
//! of its own). Where no namespace can be made, the program is `exec`ed as without the flag
//! and the wrapper says so on stderr: only the process-group guarantee is left.
//!
//! `--egress-port N` (with `--no-network`) still lets TCP connect to port N (loki's egress proxy
//! for a CLI agent, on the host's loopback): no namespace then, Landlock ABI 4 rules alone
//! (UDP not covered), and without them the command does not run.
//!
//! `--pin P` makes P read-only and `--mask P` hides P, by mounts in a mount namespace of the
//! wrapper's own ([`super::pin_read_only`]) so the directory around them keeps
//! accepting new entries; where no mount namespace can be made they become `--read-only` and
//! `--deny` rules.
//!
//! `--probe-netns` alone only tries the namespace and exits 0, or 1 with the reason: how
//! [`super::network_cut`] learns what `--no-network` will hold back here.
//!
//! The binary hands it the arguments before its own argument parsing: it takes no global flags.
//! This module never prints: [`main`] returns a [`WrapperError`] whose [`WrapperError::exit_code`]
//! and [`WrapperError::prefix`] the binary prints as one error line, and passes the one
//! non-fatal notice (no PID namespace) to the caller's `warn`. Exit codes: 126 when the
//! confinement cannot be set up (the command never runs
//! unconfined, nor with the network it was denied: fail closed), 127 when the program cannot be
//! executed, otherwise the program's.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;

use super::{ConfineError, Enforcement, Network, NetworkMechanism, Policy, restrict_self_with};

/// One layer of the wrapper's arguments: its policy, whether it asked for its own PID namespace,
/// and where its `-- program args…` start in the argument list.
struct Layer {
    policy: Policy,
    own_pids: bool,
    program_at: usize,
}

/// Parses one layer from `args` (the arguments after `__confine`).
fn parse(args: &[OsString]) -> Result<Layer, String> {
    let mut policy = Policy::default();
    let mut own_pids = false;
    let mut i = 0;
    let path = |i: usize, flag: &str| {
        args.get(i + 1)
            .map(|p| std::path::PathBuf::from(p.clone()))
            .ok_or_else(|| format!("{flag} needs a path"))
    };
    loop {
        let Some(arg) = args.get(i).map(|a| a.to_string_lossy().into_owned()) else {
            return Err("missing `-- program args…`".into());
        };
        match arg.as_str() {
            "--deny" => policy.deny.push(path(i, "--deny")?),
            "--write" => policy.write.push(path(i, "--write")?),
            "--read-only" => policy.read_only.push(path(i, "--read-only")?),
            "--list" => policy.list.push(path(i, "--list")?),
            super::PIN_FLAG => policy.pinned.push(path(i, "--pin")?),
            super::MASK_FLAG => policy.masked.push(path(i, "--mask")?),
            "--no-network" => policy.network = Network::Denied,
            super::EGRESS_PORT_FLAG => {
                let port = args
                    .get(i + 1)
                    .and_then(|p| p.to_str())
                    .and_then(|p| p.parse::<u16>().ok())
                    .ok_or_else(|| format!("{arg} needs a port number"))?;
                policy.egress_ports.push(port);
            }
            super::OWN_PIDS_FLAG => own_pids = true,
            "--" => {
                return Ok(Layer {
                    policy,
                    own_pids,
                    program_at: i + 1,
                });
            }
            other => return Err(format!("unexpected argument {other:?}")),
        }
        i += if matches!(
            arg.as_str(),
            "--deny" | "--write" | "--read-only" | "--list" | "--pin" | "--mask" | "--egress-port"
        ) {
            2
        } else {
            1
        };
    }
}

/// Whether `program args…` is this same wrapper again (a box started inside a box: the judge
/// fencing its runs inside a build's box).
fn is_wrapper(program: &OsString, next: Option<&OsString>) -> bool {
    next.is_some_and(|n| n == super::WRAPPER_SUBCOMMAND)
        && std::env::current_exe()
            .ok()
            .and_then(|me| me.canonicalize().ok())
            .is_some_and(|me| std::path::Path::new(program).canonicalize().ok() == Some(me))
}

/// Why the wrapper did not run the program (or the probe found no namespace). Its text is the
/// error line after [`WrapperError::prefix`]; [`WrapperError::exit_code`] is what the wrapper
/// ends with.
#[derive(Debug, thiserror::Error)]
pub enum WrapperError {
    /// `--probe-netns`: the kernel's own words; what holds instead is the caller's to say.
    #[error("no network namespace: {0}")]
    ProbeNoNamespace(String),
    /// `--probe-netns` failed otherwise.
    #[error("{0}")]
    Probe(ConfineError),
    /// The wrapper's own command line is wrong.
    #[error(
        "{0} (usage: loki __confine [--deny PATH]… [--write PATH]… [--read-only PATH]… [--list PATH]… [--no-network] [--own-pids] -- PROGRAM [ARGS]…)"
    )]
    Usage(String),
    /// `--egress-port` needs Landlock ABI 4's TCP rules.
    #[error(
        "cannot limit the network to loki's egress proxy (no Landlock ABI 4); the command was not run"
    )]
    NoEgressLimit,
    /// The fence could not be set up: the command was not run (fail closed).
    #[error("{0}; the command was not run")]
    Confine(ConfineError),
    /// The program could not be executed.
    #[error("cannot run {program}: {source}")]
    Exec {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

impl WrapperError {
    /// The exit code the wrapper ends with: 1 for a failed probe, 126 when the confinement
    /// cannot be set up, 127 when the program cannot be executed.
    pub fn exit_code(&self) -> u8 {
        match self {
            WrapperError::ProbeNoNamespace(_) | WrapperError::Probe(_) => 1,
            WrapperError::Usage(_) | WrapperError::NoEgressLimit | WrapperError::Confine(_) => 126,
            WrapperError::Exec { .. } => 127,
        }
    }

    /// Who speaks in the error line: `loki __confine` for its own usage, `loki` otherwise.
    pub fn prefix(&self) -> &'static str {
        match self {
            WrapperError::Usage(_) => "loki __confine",
            _ => "loki",
        }
    }
}

impl loki_core::exit::Classify for WrapperError {
    /// A wrong command line is the caller's; everything else is a failure to run safely.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            WrapperError::Usage(_) => loki_core::exit::ExitClass::Usage,
            _ => loki_core::exit::ExitClass::Failure,
        }
    }
}

/// Runs the wrapper on the arguments after `__confine`. It returns only when it does not
/// `exec`: `Ok(code)` for a probe that found a namespace (0) or the program's exit code under
/// `--own-pids`, an error otherwise. `warn` receives the one non-fatal notice (no PID namespace),
/// without the `loki: ` prefix.
///
/// Nested wrappers (`loki __confine A -- loki __confine B -- program`) are applied here in one
/// process, as stacked Landlock layers whose rules are all computed before the first is
/// enforced: once a layer is on, the next one's walk could no longer list the directories it
/// has to carve, and would silently grant nothing.
pub fn main(args: &[OsString], warn: &mut dyn FnMut(&str)) -> Result<u8, WrapperError> {
    if let [only] = args
        && only == super::PROBE_NETNS_FLAG
    {
        return match super::unshare_network() {
            Ok(()) => Ok(0),
            Err(ConfineError::Network(why)) => Err(WrapperError::ProbeNoNamespace(why)),
            Err(e) => Err(WrapperError::Probe(e)),
        };
    }
    let (mut layers, rest) = layers_of(args)?;
    let Some((program, program_args)) = rest.split_first() else {
        return Err(WrapperError::Usage("missing the program after `--`".into()));
    };
    let network_denied = layers.iter().any(|l| l.policy.network == Network::Denied);
    // Egress ports are on the host's loopback: no namespace, Landlock's TCP rules alone, and
    // without them the command does not run.
    let egress = layers.iter().any(|l| !l.policy.egress_ports.is_empty());
    if network_denied && egress && super::support().network() != NetworkMechanism::LandlockTcp {
        return Err(WrapperError::NoEgressLimit);
    }
    // The namespace comes first: its uid and gid maps are written under /proc, which the
    // filesystem rules would refuse. A user namespace needs a single-threaded process; the
    // support probe's thread has been joined by then.
    if network_denied
        && !egress
        && let Err(e) = super::unshare_network()
        && super::support().network() != NetworkMechanism::LandlockTcp
    {
        return Err(WrapperError::Confine(e));
    }
    // Before the filesystem rules too (its uid and gid maps are under /proc).
    let own_pids = layers.iter().any(|l| l.own_pids)
        && match super::unshare_pids() {
            Ok(()) => true,
            Err(e) => {
                warn(&format!(
                    "{e}; what the command starts outside its process group may outlive it"
                ));
                false
            }
        };
    // Pins and masks by mount, before the rules.
    pin_and_mask(&mut layers);
    let computed: Vec<(Policy, Vec<super::Rule>)> = layers
        .into_iter()
        .map(|l| {
            let rules = super::rules(&l.policy);
            (l.policy, rules)
        })
        .collect();
    // Any enforcement level goes on: the engine checks availability before it relies on the
    // wrapper, and a kernel that enforces nothing is reported there, not here.
    for (policy, rules) in computed {
        restrict_self_with(&policy, rules)
            .map(|_: Enforcement| ())
            .map_err(WrapperError::Confine)?;
    }
    if own_pids {
        return run_as_init(program, program_args);
    }
    #[expect(
        clippy::disallowed_methods,
        reason = "the wrapper becomes the confined program: exec, not a child, so the fence it set up applies to it"
    )]
    let err = std::process::Command::new(program)
        .args(program_args)
        .exec();
    Err(WrapperError::Exec {
        program: program.to_string_lossy().into_owned(),
        source: err,
    })
}

/// The stacked wrappers' layers, outermost first, and the program's argv after the last one.
fn layers_of(args: &[OsString]) -> Result<(Vec<Layer>, &[OsString]), WrapperError> {
    let mut layers = Vec::new();
    let mut rest: &[OsString] = args;
    loop {
        let layer = parse(rest).map_err(WrapperError::Usage)?;
        let after = &rest[layer.program_at..];
        layers.push(layer);
        match after {
            [program, next, tail @ ..] if is_wrapper(program, Some(next)) => rest = tail,
            _ => return Ok((layers, after)),
        }
    }
}

/// Pins and masks the layers' paths by mount; where the kernel gives no mount namespace they
/// fall back to Landlock's read-only and deny rules, which carve the directories around them.
fn pin_and_mask(layers: &mut [Layer]) {
    let pinned: Vec<_> = layers
        .iter()
        .flat_map(|l| l.policy.pinned.clone())
        .collect();
    let masked: Vec<_> = layers
        .iter()
        .flat_map(|l| l.policy.masked.clone())
        .collect();
    if pinned.is_empty() && masked.is_empty() {
        return;
    }
    let mounted = super::pin_read_only(&pinned, &masked).is_ok();
    for l in layers {
        let p = &mut l.policy;
        if mounted {
            p.pinned.clear();
            p.masked.clear();
        } else {
            p.read_only.append(&mut p.pinned);
            p.deny.append(&mut p.masked);
        }
    }
}

/// Runs `program` as the namespace's first process and waits for it; its exit code, or 128 +
/// the signal that killed it (the shell convention).
fn run_as_init(program: &OsString, args: &[OsString]) -> Result<u8, WrapperError> {
    use std::os::unix::process::ExitStatusExt as _;
    #[expect(
        clippy::disallowed_methods,
        reason = "the wrapper's own child is the namespace's first process; the runner that started the wrapper bounds both (its group, its timeout)"
    )]
    let spawned = std::process::Command::new(program).args(args).spawn();
    let status = match spawned.and_then(|mut c| c.wait()) {
        Ok(s) => s,
        Err(source) => {
            return Err(WrapperError::Exec {
                program: program.to_string_lossy().into_owned(),
                source,
            });
        }
    };
    Ok(match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(sig)) => u8::try_from(128 + sig).unwrap_or(1),
        (None, None) => 1,
    })
}
