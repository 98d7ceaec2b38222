//! `loki __confine …`: the hidden wrapper through which every model-driven command starts
//! untrusted commands. Its body (flags, policy, namespaces, `exec`) is
//! [`loki_process::confine::wrapper`], whose module doc is the spec; this prints its one error
//! line (or its one notice) and ends with its exit code.

use std::ffi::OsString;

/// Runs the wrapper on the arguments after `__confine`; returns only when it did not `exec`.
pub fn run(args: &[OsString]) -> u8 {
    let mut warn = |notice: &str| anstream::eprintln!("loki: {notice}");
    match loki_process::confine::wrapper::main(args, &mut warn) {
        Ok(code) => code,
        Err(e) => {
            anstream::eprintln!("{}: {e}", e.prefix());
            e.exit_code()
        }
    }
}
