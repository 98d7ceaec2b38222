//! `loki __confine --deny P… --write P… --read-only P… -- program args…`: the hidden wrapper through which the
//! engine starts untrusted commands. It confines itself with [`loki_core::confine`] and then
//! `exec`s the program, which inherits the confinement (so does everything it starts).
//!
//! It is handled before argument parsing: it takes no global flags, and its own output is only
//! an error line. Exit codes: 126 when the confinement cannot be set up (the command never runs
//! unconfined: fail closed), 127 when the program cannot be executed, otherwise the program's.

use std::ffi::OsString;
use std::os::unix::process::CommandExt as _;

use loki_core::confine::{Enforcement, Policy, restrict_self};

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
            Some("--") => break,
            Some(other) => return usage(&format!("unexpected argument {other:?}")),
            None => return usage("missing `-- program args…`"),
        }
    }
    let Some(program) = rest.next() else {
        return usage("missing the program after `--`");
    };
    // Any enforcement level goes on: the engine checks availability before it relies on the
    // wrapper, and a kernel that enforces nothing is reported there, not here.
    if let Err(e) = restrict_self(&policy).map(|_: Enforcement| ()) {
        eprintln!("loki: {e}; the command was not run");
        return 126;
    }
    #[expect(
        clippy::disallowed_methods,
        reason = "the wrapper becomes the confined program: exec, not a child, so the fence it set up applies to it"
    )]
    let err = std::process::Command::new(program).args(rest).exec();
    eprintln!("loki: cannot run {}: {err}", program.to_string_lossy());
    127
}

fn usage(what: &str) -> u8 {
    eprintln!(
        "loki __confine: {what} (usage: loki __confine [--deny PATH]… [--write PATH]… [--read-only PATH]… -- PROGRAM [ARGS]…)"
    );
    126
}
