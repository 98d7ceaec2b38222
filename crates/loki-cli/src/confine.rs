//! `loki __confine --deny P… --write P… --read-only P… --list P… [--no-network] -- program args…`: the
//! hidden wrapper through which every model-driven command starts untrusted commands. It confines
//! itself with [`loki_core::confine`] and then `exec`s the program, which inherits the
//! confinement (so does everything it starts).
//!
//! `--no-network` first moves the wrapper into a new network namespace
//! ([`loki_core::confine::unshare_network`]): no interface is up, so no protocol leaves (TCP, UDP
//! such as DNS, raw sockets, loopback services). Where the kernel refuses a namespace, Landlock ABI
//! 4 refuses TCP connect and bind (UDP is then not covered); with neither, the command does not run.
//!
//! `--own-pids` runs the program as the first process of a PID namespace of its own
//! ([`loki_core::confine::unshare_pids`]), as a child the wrapper waits for instead of `exec`:
//! when the program ends or is killed (a cap, Ctrl-C, or the watchdog after `kill -9` of loki
//! kills the wrapper's process group, which holds both), the kernel kills everything it
//! started, also what left its process group (Claude Code runs each Bash command in a session
//! of its own). Where no namespace can be made, the program is `exec`ed as without the flag
//! and the wrapper says so on stderr: only the process-group guarantee is left.
//!
//! It is handled before argument parsing: it takes no global flags, and its own output is only
//! an error line. Exit codes: 126 when the confinement cannot be set up (the command never runs
//! unconfined, nor with the network it was denied: fail closed), 127 when the program cannot be
//! executed, otherwise the program's.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;

use loki_core::confine::{Enforcement, Network, NetworkMechanism, Policy, restrict_self};

/// Runs the wrapper on the arguments after `__confine`; returns only on failure.
pub fn run(args: &[OsString]) -> u8 {
    let mut policy = Policy::default();
    let mut own_pids = false;
    let mut rest = args.iter();
    loop {
        match rest
            .next()
            .map(|a| a.to_string_lossy().into_owned())
            .as_deref()
        {
            Some("--deny") => match rest.next() {
                Some(p) => policy.deny.push(p.into()),
                None => return usage("--deny needs a path"),
            },
            Some("--write") => match rest.next() {
                Some(p) => policy.write.push(p.into()),
                None => return usage("--write needs a path"),
            },
            Some("--read-only") => match rest.next() {
                Some(p) => policy.read_only.push(p.into()),
                None => return usage("--read-only needs a path"),
            },
            Some("--list") => match rest.next() {
                Some(p) => policy.list.push(p.into()),
                None => return usage("--list needs a path"),
            },
            Some("--no-network") => policy.network = Network::Denied,
            Some(loki_core::confine::OWN_PIDS_FLAG) => own_pids = true,
            Some("--") => break,
            Some(other) => return usage(&format!("unexpected argument {other:?}")),
            None => return usage("missing `-- program args…`"),
        }
    }
    let Some(program) = rest.next() else {
        return usage("missing the program after `--`");
    };
    // The namespace comes first: its uid and gid maps are written under /proc, which the
    // filesystem rules would refuse. A user namespace needs a single-threaded process; the
    // support probe's thread has been joined by then.
    if policy.network == Network::Denied
        && let Err(e) = loki_core::confine::unshare_network()
        && loki_core::confine::support().network() != NetworkMechanism::LandlockTcp
    {
        anstream::eprintln!("loki: {e}; the command was not run");
        return 126;
    }
    // Before the filesystem rules too (its uid and gid maps are under /proc).
    let own_pids = own_pids
        && match loki_core::confine::unshare_pids() {
            Ok(()) => true,
            Err(e) => {
                anstream::eprintln!(
                    "loki: {e}; what the command starts outside its process group may outlive it"
                );
                false
            }
        };
    // Any enforcement level goes on: the engine checks availability before it relies on the
    // wrapper, and a kernel that enforces nothing is reported there, not here.
    if let Err(e) = restrict_self(&policy).map(|_: Enforcement| ()) {
        anstream::eprintln!("loki: {e}; the command was not run");
        return 126;
    }
    if own_pids {
        return run_as_init(program, rest.as_slice());
    }
    #[expect(
        clippy::disallowed_methods,
        reason = "the wrapper becomes the confined program: exec, not a child, so the fence it set up applies to it"
    )]
    let err = std::process::Command::new(program).args(rest).exec();
    anstream::eprintln!("loki: cannot run {}: {err}", program.to_string_lossy());
    127
}

/// Runs `program` as the namespace's first process and waits for it; its exit code, or 128 +
/// the signal that killed it (the shell convention).
fn run_as_init(program: &OsString, args: &[OsString]) -> u8 {
    use std::os::unix::process::ExitStatusExt as _;
    #[expect(
        clippy::disallowed_methods,
        reason = "the wrapper's own child is the namespace's first process; the runner that started the wrapper bounds both (its group, its timeout)"
    )]
    let spawned = std::process::Command::new(program).args(args).spawn();
    let status = match spawned.and_then(|mut c| c.wait()) {
        Ok(s) => s,
        Err(e) => {
            anstream::eprintln!("loki: cannot run {}: {e}", program.to_string_lossy());
            return 127;
        }
    };
    match (status.code(), status.signal()) {
        (Some(code), _) => u8::try_from(code).unwrap_or(1),
        (None, Some(sig)) => u8::try_from(128 + sig).unwrap_or(1),
        (None, None) => 1,
    }
}

fn usage(what: &str) -> u8 {
    anstream::eprintln!(
        "loki __confine: {what} (usage: loki __confine [--deny PATH]… [--write PATH]… [--read-only PATH]… [--list PATH]… [--no-network] [--own-pids] -- PROGRAM [ARGS]…)"
    );
    126
}
