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
    // Any enforcement level goes on: the engine checks availability before it relies on the
    // wrapper, and a kernel that enforces nothing is reported there, not here.
    if let Err(e) = restrict_self(&policy).map(|_: Enforcement| ()) {
        anstream::eprintln!("loki: {e}; the command was not run");
        return 126;
    }
    #[expect(
        clippy::disallowed_methods,
        reason = "the wrapper becomes the confined program: exec, not a child, so the fence it set up applies to it"
    )]
    let err = std::process::Command::new(program).args(rest).exec();
    anstream::eprintln!("loki: cannot run {}: {err}", program.to_string_lossy());
    127
}

fn usage(what: &str) -> u8 {
    anstream::eprintln!(
        "loki __confine: {what} (usage: loki __confine [--deny PATH]… [--write PATH]… [--read-only PATH]… [--list PATH]… [--no-network] -- PROGRAM [ARGS]…)"
    );
    126
}
