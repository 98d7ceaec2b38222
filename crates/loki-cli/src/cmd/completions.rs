//! `loki completions <shell>`.

use clap::CommandFactory;
use loki_protocol::outcome::ExitCode;

use crate::cli::{Cli, CompletionsArgs, GlobalArgs};
use crate::cmd::UsageError;

pub fn run(global: &GlobalArgs, args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    if global.json {
        let why = "completions are a shell script, so --json does not apply";
        return Err(UsageError(why.into()).into());
    }
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "loki", &mut std::io::stdout());
    Ok(ExitCode::Success)
}
