//! One module per command. Each returns the exit code it decided; errors bubble to `main`.

pub mod ask;
pub mod backlog;
pub mod build;
pub mod checks;
pub mod ci;
pub mod completions;
pub mod config;
pub mod contract;
pub mod deep;
pub mod demo;
pub mod doctor;
pub mod events;
pub mod heal;
pub mod improve;
pub mod issue;
pub mod keys;
pub mod mcp;
pub mod modelbox;
pub mod pr;
pub mod providers;
pub mod runs;
pub mod seal;
pub mod serve;
pub mod slack;
pub mod verify;
pub mod version;
pub mod workspace;

use loki_core::exit::{Classify, ExitClass};
use loki_protocol::outcome::ExitCode;

use crate::cli::GlobalArgs;

/// How the process exits: a run's ladder, a `loki verify` verdict (their tables differ), or the
/// status of the command `loki run` observed, passed on as it was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Run(ExitCode),
    Verify(loki_protocol::outcome::VerifyVerdict),
    /// The observed command's own exit status (128 + N for a death by signal N).
    Observed(u8),
}

impl Exit {
    /// The process exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Run(c) => c.code(),
            Exit::Verify(v) => v.exit_status(),
            Exit::Observed(code) => code,
        }
    }
}

impl From<ExitCode> for Exit {
    fn from(c: ExitCode) -> Exit {
        Exit::Run(c)
    }
}

/// An error in what the user asked for (exit 2), as opposed to a failure while doing it (exit 1).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

impl Classify for UsageError {
    fn exit_class(&self) -> ExitClass {
        ExitClass::Usage
    }
}

/// A library error the command re-worded to add what it was doing: the message is the command's,
/// the exit class stays the one of the error it came from.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Worded {
    pub class: ExitClass,
    pub message: String,
}

impl Classify for Worded {
    fn exit_class(&self) -> ExitClass {
        self.class
    }
}

/// `loki "<task>"`: a one-word task (`loki refactor`) is a task, unless it is a command's name
/// mistyped (`loki verfy`): that is a usage error that names the command meant.
pub fn build_task(
    global: &GlobalArgs,
    task: &str,
    flags: &crate::cli::BuildFlags,
) -> anyhow::Result<ExitCode> {
    if let Some(meant) = mistyped_command(task) {
        let mut cmd = <crate::cli::Cli as clap::CommandFactory>::command();
        let err = cmd.error(
            clap::error::ErrorKind::InvalidSubcommand,
            format!(
                "unrecognized subcommand '{task}'\n\n  did you mean `loki {meant}`? To build a task, describe it in quotes: loki \"{task} the parser\"\n  `loki --help` lists the commands"
            ),
        );
        let _ = err.print();
        return Ok(ExitCode::Usage);
    }
    // `loki owner/repo#N`, an issue URL, `jira:KEY`, `linear:ID`: the issue, fetched first.
    if let Some(reference) = loki_intake::parse(task, &loki_intake::Hosts::from_env())? {
        return issue::build(global, &reference, flags);
    }
    let input = loki_engine::TaskInput {
        text: task.to_string(),
        source: "text".into(),
    };
    build::run_task(global, input, loki_core::run::RunKind::Build, flags)
}

/// Resolves a run argument: an id, or `latest` for the newest run.
pub use loki_workspace::resolve_run;

/// The command `word` most likely mistypes: a single word within two edits of a command's name
/// (and not the name itself, which clap would have taken).
fn mistyped_command(word: &str) -> Option<String> {
    let word = word.trim();
    if word.is_empty() || word.contains(char::is_whitespace) {
        return None;
    }
    let cmd = <crate::cli::Cli as clap::CommandFactory>::command();
    cmd.get_subcommands()
        .flat_map(|c| std::iter::once(c.get_name()).chain(c.get_all_aliases()))
        .map(|name| (strsim::damerau_levenshtein(word, name), name))
        .filter(|(d, name)| *d <= 2 && *d < name.len().max(word.len()) / 2 + 1)
        .min()
        .map(|(_, name)| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::mistyped_command;

    #[test]
    fn one_word_tasks_are_tasks_and_typos_name_the_command() {
        assert_eq!(mistyped_command("verfy").as_deref(), Some("verify"));
        assert_eq!(mistyped_command("dmeo").as_deref(), Some("demo"));
        assert_eq!(mistyped_command("refactor"), None);
        assert_eq!(mistyped_command("optimise"), None);
        assert_eq!(mistyped_command("fix the bug"), None);
    }
}
