//! The binary's terminal I/O that is not a command's: the colour choice, error printing and the
//! `--json` channel. How things look is `loki_term`'s.
//!
//! # The `--json` contract
//! Under `--json` stdout carries exactly one JSON object and nothing else; its shape is the
//! command's schema in `schemas/cli/` (one file per command, tested for every command). To make
//! that hold whatever a command, a library or a child process prints, [`init_json`] runs first:
//! it keeps a private copy of stdout for the object and points file descriptor 1 at stderr, so
//! every other line (progress, a child's output, a Python traceback) lands on stderr. [`json`]
//! writes the one object; a second object is refused (it goes to stderr with a note), so a
//! caller parsing stdout never reads two. An error under `--json` is the object
//! `{"error", "causes", "exit_code"}` ([`error_json`]) unless the command already printed its
//! object. Keys a command [`defer`]s (what `loki run --auto-heal` observed before it healed) are
//! merged into the one object when it is written.

use std::io::Write as _;
use std::sync::Mutex;

use loki_protocol::outcome::ExitCode;

use crate::cli::{ColorWhen, GlobalArgs};

/// The `--json` channel: the saved stdout, whether the object was written, and keys to merge.
struct Channel {
    out: Option<std::fs::File>,
    printed: bool,
    deferred: Vec<(String, serde_json::Value)>,
}

static CHANNEL: Mutex<Channel> = Mutex::new(Channel {
    out: None,
    printed: false,
    deferred: Vec::new(),
});

/// Decides colour once for the process ([`loki_term::color`]).
pub fn init_color(global: &GlobalArgs) {
    loki_term::color::init(global.color.map(|c| match c {
        ColorWhen::Auto => loki_term::color::ColorWhen::Auto,
        ColorWhen::Always => loki_term::color::ColorWhen::Always,
        ColorWhen::Never => loki_term::color::ColorWhen::Never,
    }));
}

/// Under `--json`: keeps stdout for the one object and sends everything else written to file
/// descriptor 1 (by this process or any child it starts) to stderr. Must run before anything
/// is printed.
pub fn init_json() -> std::io::Result<()> {
    let saved = rustix::io::dup(std::io::stdout())?;
    rustix::stdio::dup2_stdout(std::io::stderr())?;
    let mut ch = CHANNEL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    ch.out = Some(std::fs::File::from(saved));
    Ok(())
}

/// Prints the command's one JSON object on stdout (the saved stdout under `--json`). A value
/// that is not an object is a bug in the command: it is wrapped as `{"value": …}` so the
/// contract still holds. A second object goes to stderr.
pub fn json(value: impl serde::Serialize) {
    let value = match serde_json::to_value(value) {
        Ok(v) => v,
        Err(e) => serde_json::json!({"error": format!("cannot serialize the output: {e}"),
            "causes": [], "exit_code": 1}),
    };
    let mut object = match value {
        serde_json::Value::Object(m) => m,
        other => {
            let mut m = serde_json::Map::new();
            m.insert("value".into(), other);
            m
        }
    };
    let mut ch = CHANNEL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for (k, v) in std::mem::take(&mut ch.deferred) {
        object.entry(k).or_insert(v);
    }
    let line = serde_json::Value::Object(object).to_string();
    if ch.printed {
        anstream::eprintln!("loki: a second JSON object was not printed on stdout: {line}");
        return;
    }
    ch.printed = true;
    match ch.out.as_mut() {
        Some(f) => {
            // A closed pipe is the reader's choice, as in `quiet_on_broken_pipe`.
            let _ = writeln!(f, "{line}").and_then(|()| f.flush());
        }
        None => anstream::println!("{line}"),
    }
}

/// Prints a command's result in the form asked for: its JSON object under `--json`, else `text`
/// on stdout as it is.
pub fn print(json: bool, value: impl serde::Serialize, text: impl std::fmt::Display) {
    if json {
        self::json(value);
    } else {
        anstream::print!("{text}");
    }
}

/// [`print`] for a command that ends there and succeeded.
pub fn show(
    json: bool,
    value: impl serde::Serialize,
    text: impl std::fmt::Display,
) -> anyhow::Result<ExitCode> {
    print(json, value, text);
    Ok(ExitCode::Success)
}

/// Exit 0 when `ok`, else 1: a command whose answer is pass or fail.
pub fn pass_fail(ok: bool) -> ExitCode {
    if ok {
        ExitCode::Success
    } else {
        ExitCode::Failure
    }
}

/// Keeps `key` for the command's one JSON object, written later by [`json`].
pub fn defer(key: &str, value: impl serde::Serialize) {
    let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
    let mut ch = CHANNEL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    ch.deferred.retain(|(k, _)| k != key);
    ch.deferred.push((key.into(), value));
}

/// Whether the one JSON object was written.
pub fn json_printed() -> bool {
    CHANNEL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .printed
}

/// Prints an error for `--json`: one object on stdout, so a caller parsing stdout gets JSON on
/// failure too (the words still go to stderr, [`error`]). A command that already printed its
/// object keeps it: the words alone say what went wrong after it.
pub fn error_json(err: &anyhow::Error, exit_code: u8) {
    if !json_printed() {
        json(loki_term::error::json(err.chain(), exit_code));
    }
    error(err);
}

/// Prints an error and its causes to stderr as `error: … \n  caused by: …`.
pub fn error(err: &anyhow::Error) {
    anstream::eprintln!("{}", loki_term::error::text(err.chain()));
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use clap::CommandFactory as _;

    /// `schemas/cli/` at the repository root: one schema per command's `--json` object.
    fn schema_dir() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas/cli")
    }

    /// The schema name of every command: its path joined by `-` (`seal-check`), `build` for
    /// `loki "<task>"`. A command with optional subcommands (`improve`, `serve`) is a command
    /// too; clap's own `help` is not.
    fn commands(cmd: &clap::Command, prefix: &str, out: &mut BTreeSet<String>) {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let name = if prefix.is_empty() {
                sub.get_name().to_string()
            } else {
                format!("{prefix}-{}", sub.get_name())
            };
            let has_subs = sub.get_subcommands().any(|s| s.get_name() != "help");
            if !has_subs || !sub.is_subcommand_required_set() {
                out.insert(name.clone());
            }
            commands(sub, &name, out);
        }
    }

    /// `--json` is a global flag, so every command accepts it: every command needs its schema
    /// (a new command without one fails here), and every schema names a command.
    #[test]
    fn every_command_has_a_json_schema_and_every_schema_a_command() {
        let mut wanted = BTreeSet::from(["build".to_string()]);
        commands(&crate::cli::Cli::command(), "", &mut wanted);
        assert!(wanted.contains("seal-check") && wanted.contains("improve"));
        assert!(wanted.contains("serve-status") && !wanted.contains("seal"));
        let shared = ["defs", "error"];
        let mut found = BTreeSet::new();
        for e in std::fs::read_dir(schema_dir()).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            let stem = name
                .strip_suffix(".schema.json")
                .unwrap_or(&name)
                .to_string();
            if !shared.contains(&stem.as_str()) {
                found.insert(stem);
            }
        }
        let missing: Vec<_> = wanted.difference(&found).collect();
        let orphans: Vec<_> = found.difference(&wanted).collect();
        assert!(
            missing.is_empty(),
            "commands without a schema in schemas/cli: {missing:?}"
        );
        assert!(orphans.is_empty(), "schemas without a command: {orphans:?}");
        for name in wanted.iter().map(String::as_str).chain(shared) {
            let path = schema_dir().join(format!("{name}.schema.json"));
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            assert_eq!(
                v["$schema"], "https://json-schema.org/draft/2020-12/schema",
                "{name}"
            );
            assert_eq!(
                v["$id"],
                format!("https://loki.dev/schema/cli/{name}.schema.json"),
                "{name}"
            );
        }
    }
}
