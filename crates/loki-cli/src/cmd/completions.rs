//! `loki completions <shell>`.

use clap::CommandFactory;
use loki_protocol::outcome::ExitCode;

use crate::cli::{Cli, CompletionsArgs};

pub fn run(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "loki", &mut std::io::stdout());
    Ok(ExitCode::Success)
}
