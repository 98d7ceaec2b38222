//! `loki`: the only binary. It parses the command line, loads the configuration, calls the
//! libraries and prints what `loki_term` renders. The exit code of an error is decided in one place, [`exit_code_for`],
//! by the error's own class (`loki_core::exit`); the code of a result comes from the ladders in
//! `loki_protocol::outcome`.

// The binary is the one place that writes to the terminal, and it does so through anstream
// (a test below keeps it so), whose macros the print lints do not see.

mod cli;
mod cmd;
mod confine;
mod context;
mod interrupt;
mod log;
mod output;

use std::process::ExitCode as ProcessExit;

use clap::{CommandFactory, Parser};
use loki_core::exit::{Probe, classify_chain, probe};
use loki_protocol::outcome::ExitCode;

use crate::cli::{Cli, Command};
use crate::context::Ctx;

/// Exit status for output cut off by a closed pipe (`loki runs list | head`): 128 + SIGPIPE, as a
/// process killed by the signal would report.
const BROKEN_PIPE_EXIT: i32 = 141;

/// Rust ignores SIGPIPE, so printing into a closed pipe panics inside `println!`. A reader that
/// stopped reading is not an error: end quietly, as other command-line tools do. Every other
/// panic keeps the default report.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.contains("Broken pipe") {
            std::process::exit(BROKEN_PIPE_EXIT);
        }
        default(info);
    }));
}

fn main() -> ProcessExit {
    quiet_on_broken_pipe();
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if argv
        .get(1)
        .is_some_and(|a| a == loki_process::confine::WRAPPER_SUBCOMMAND)
    {
        return ProcessExit::from(confine::run(&argv[2..]));
    }
    if argv
        .get(1)
        .is_some_and(|a| a == loki_heal::web::PAGE_SUBCOMMAND)
    {
        // The page check's browser is its child: a signal (passed on by the parent loki) stops
        // it, and the check removes the browser's profile before it ends.
        if let Err(e) = interrupt::install("the page check was stopped") {
            output::error(&e);
        }
        return ProcessExit::from(loki_heal::page::run(
            &argv[2..],
            &mut anstream::stdout(),
            &mut anstream::stderr(),
        ));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout (exit 0) and usage errors to stderr (exit 2);
            // under `--json` a usage error is the error object on stdout too.
            let _ = e.print();
            let code = u8::try_from(e.exit_code()).unwrap_or(2);
            if e.use_stderr() && asks_for_json(&argv) {
                output::json(loki_term::error::usage_json(&e.render().to_string(), code));
            }
            return ProcessExit::from(code);
        }
    };
    if cli.global.json
        && let Err(e) = output::init_json()
    {
        anstream::eprintln!("error: cannot set up the --json output: {e}");
        return ProcessExit::from(1);
    }
    output::init_color(&cli.global);
    log::init(cli.global.verbose, loki_term::color::stderr_color());
    let json = cli.global.json;
    let code = match run(cli) {
        Ok(code) => code,
        Err(err) => {
            let code = exit_code_for(&err);
            if json {
                output::error_json(&err, code);
            } else {
                output::error(&err);
            }
            code
        }
    };
    // A command stopped by SIGINT/SIGTERM says what it left and ends with the signal's code.
    let code = interrupt::finish().map_or(code, ExitCode::code);
    ProcessExit::from(code)
}

/// Whether the command line asks for `--json` (before a `--` that ends loki's own flags).
fn asks_for_json(argv: &[std::ffi::OsString]) -> bool {
    argv.iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json")
}

/// How long a command waits at exit for its runs' last events to reach the control plane.
const SHIP_FLUSH: std::time::Duration = std::time::Duration::from_secs(2);

fn run(cli: Cli) -> anyhow::Result<u8> {
    // Every run ships its events to a running control plane (`loki serve`, or LOKI_CONTROL_URL);
    // the server itself records no runs. The shipper finds the server on the first event only.
    let shipper = match &cli.command {
        Some(Command::Serve(_)) => None,
        _ => {
            let s = loki_control::ship::Shipper::start(loki_core::layout::loki_home());
            loki_events::install_sink(s.clone());
            Some(s)
        }
    };
    let out = dispatch(cli).map(cmd::Exit::code);
    if let Some(s) = shipper {
        s.flush(SHIP_FLUSH);
    }
    out
}

fn dispatch(cli: Cli) -> anyhow::Result<cmd::Exit> {
    let global = cli.global.clone();
    let command = match (cli.command, cli.task) {
        (Some(c), _) => c,
        (None, Some(task)) => {
            return cmd::build_task(&global, &task, &cli.build).map(cmd::Exit::from);
        }
        (None, None) if global.json => {
            return Err(cmd::UsageError(
                "no command or task given: `loki --help` lists the commands".into(),
            )
            .into());
        }
        (None, None) => {
            let mut c = Cli::command();
            c.print_help()?;
            anstream::println!();
            return Ok(ExitCode::Usage.into());
        }
    };
    // Every command that can run children or write state gets the one signal handler, so Ctrl-C
    // stops its children, lets it claim nothing half-done and removes its temporary directories.
    // The servers keep the default (they end at once; `serve` has its own shutdown).
    if !matches!(command, Command::Serve(_) | Command::Mcp(_)) {
        interrupt::install(
            "the command was stopped before it finished; whatever it recorded says so",
        )?;
    }
    // How each command loads its context: the commands a user repairs a broken configuration
    // file with run without it (`Ctx::load_repairable`); the others stop on it.
    let load = || Ctx::load(&global);
    let repairable = || Ctx::load_repairable(&global);
    let code = match command {
        Command::Version => cmd::version::run(&global),
        Command::Completions(args) => cmd::completions::run(&global, &args),
        Command::Doctor(args) if args.airgap => cmd::doctor::airgap(&load()?),
        Command::Doctor(_) => cmd::doctor::run(&repairable()?),
        Command::Config(c) if c.repairs() => cmd::config::run(&repairable()?, c),
        Command::Config(c) => cmd::config::run(&load()?, c),
        Command::Runs(c) => cmd::runs::run(&load()?, c),
        Command::Events(args) => cmd::events::run(&load()?, &args),
        Command::Checks(c) => cmd::checks::run(&load()?, c),
        Command::Verify(args) => return cmd::verify::run(&repairable()?, &args),
        Command::Deep(args) => cmd::deep::run(&load()?, &args),
        Command::Keys(c) => cmd::keys::run(&repairable()?, &c),
        Command::Seal(c) => cmd::seal::run(&load()?, c),
        Command::Providers => cmd::providers::list(&load()?),
        Command::Ask(args) => {
            cmd::ask::run(&Ctx::load_with(&global, args.provider_flags())?, &args)
        }
        Command::RunTask(args) => cmd::build::run_file(&global, &args),
        Command::Quick(args) => cmd::build::quick(&global, &args),
        Command::Demo(args) => return cmd::demo::run(&load()?, &args),
        Command::Contract(args) => cmd::contract::run(&load()?, &args),
        Command::Answer(args) => cmd::contract::answer(&global, &args),
        Command::Status(args) => cmd::build::status(&load()?, &args),
        Command::Logs(args) => cmd::build::logs(&load()?, &args),
        Command::Apply(args) => cmd::build::apply(&load()?, &args),
        Command::Discard(args) => cmd::build::discard(&load()?, &args),
        Command::Run(args) => return cmd::heal::run(&load()?, &args),
        Command::Fix(args) => cmd::heal::fix(&load()?, &args),
        Command::Replay(args) => cmd::heal::replay(&load()?, &args),
        Command::Improve(args) => cmd::improve::run(&global, &args),
        Command::Mcp(args) => cmd::mcp::run(&load()?, &args),
        Command::Slack(c) => cmd::slack::run(&global, &c),
        Command::Issue(args) => cmd::issue::run(&global, &args),
        Command::Pr(args) => cmd::pr::run(&global, &args),
        Command::Ci(c) => cmd::ci::run(&load()?, &c),
        Command::Backlog(args) => cmd::backlog::run(&global, &args),
        Command::Workspace(c) => cmd::workspace::run(&global, &c),
        Command::Serve(args) => cmd::serve::run(&global, &args),
    };
    code.map(cmd::Exit::from)
}

/// Every error type that reaches the binary, so the class of an error chain is found wherever
/// in the chain it sits (under anyhow context lines). Each type decides its own class
/// (`loki_core::exit::Classify`); a library error type the binary can receive needs its probe
/// here (a test fails on a classified type that has none and is not in the tests' `NOT_PROBED`).
const PROBES: &[Probe] = &[
    probe::<cmd::UsageError>,
    probe::<cmd::Worded>,
    probe::<loki_core::CoreError>,
    probe::<loki_core::paths::PathError>,
    probe::<loki_process::ProcessError>,
    probe::<loki_process::confine::ConfineError>,
    probe::<loki_process::signals::SignalError>,
    probe::<loki_runner::ChecksError>,
    probe::<loki_events::EventError>,
    probe::<loki_receipt::ReceiptError>,
    probe::<loki_agent::AgentError>,
    probe::<loki_clients::ClientError>,
    probe::<loki_contract::ContractError>,
    probe::<loki_seal::SealError>,
    probe::<loki_heal::HealError>,
    probe::<loki_engine::EngineError>,
    probe::<loki_improve::ImproveError>,
    probe::<loki_intake::IntakeError>,
    probe::<loki_intake::review::OutError>,
    probe::<loki_intake::review::JudgeError>,
    probe::<loki_mcp::McpError>,
    probe::<loki_control::ControlError>,
    probe::<loki_chat::ChatError>,
    probe::<loki_doctor::DoctorError>,
    probe::<loki_workspace::UnknownWorkspace>,
    probe::<loki_workspace::WorkspaceError>,
];

/// Maps an error to its exit code: the class of the outermost classified error in its chain.
fn exit_code_for(err: &anyhow::Error) -> u8 {
    classify_chain(err.chain(), PROBES).code()
}

#[cfg(test)]
mod tests {
    /// Colour follows `--color`, `NO_COLOR` and the terminal only when everything is printed
    /// through anstream, which strips the styles when colour is off: a bare `println!` would
    /// write them into a file or a pipe.
    #[test]
    fn every_print_goes_through_anstream() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut bare = Vec::new();
        let mut dirs = vec![src];
        while let Some(dir) = dirs.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                for (n, line) in text.lines().enumerate() {
                    let code = line.split("//").next().unwrap_or("");
                    for mac in ["println!(", "eprintln!(", "print!(", "eprint!("] {
                        for (at, _) in code.match_indices(mac) {
                            let before = &code[..at];
                            // `e` of `eprintln!`; `"` of a string naming the macros.
                            let prefixed = before.ends_with("anstream::")
                                || before.ends_with('e')
                                || before.ends_with('"');
                            if !prefixed {
                                bare.push(format!("{}:{}: {}", p.display(), n + 1, line.trim()));
                            }
                        }
                    }
                }
            }
        }
        assert!(
            bare.is_empty(),
            "print through anstream:\n{}",
            bare.join("\n")
        );
    }

    use super::*;
    use anyhow::Context as _;

    /// Classified error types that never reach the binary bare: they arrive inside the errors of
    /// the crates that call them, which classify them; the confinement wrapper's error ends the
    /// wrapper process itself.
    const NOT_PROBED: &[&str] = &[
        "GitError",
        "PatchError",
        "RepoMapError",
        "IntegrityError",
        "WrapperError",
    ];

    /// A library error type without its probe would exit 1 whatever its class says (a malformed
    /// `--contract` file did, until this test).
    #[test]
    fn every_classified_error_type_has_its_probe() {
        let main = include_str!("main.rs");
        let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut missing = Vec::new();
        let mut dirs: Vec<_> = std::fs::read_dir(&crates)
            .unwrap()
            .map(|e| e.unwrap().path().join("src"))
            .collect();
        while let Some(dir) = dirs.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries {
                let p = e.unwrap().path();
                if p.is_dir() {
                    dirs.push(p);
                    continue;
                }
                let text = std::fs::read_to_string(&p).unwrap();
                // Top-level impls only: one inside a test module is a test's own type.
                for line in text.lines().filter(|l| l.starts_with("impl")) {
                    let Some((_, ty)) = line.split_once("Classify for ") else {
                        continue;
                    };
                    let ty = ty.trim_end_matches(" {").trim();
                    let probed = main.contains(&format!("::{ty}>,"));
                    if !probed && !NOT_PROBED.contains(&ty) && !main.contains(&format!("enum {ty}"))
                    {
                        missing.push(format!("{ty} ({})", p.display()));
                    }
                }
            }
        }
        assert!(missing.is_empty(), "add a probe for: {missing:?}");
    }
    use loki_protocol::outcome::VerifyVerdict;

    #[test]
    fn a_library_error_keeps_its_class_under_context_lines() {
        let usage = anyhow::Error::new(loki_heal::HealError::EmptyCommand)
            .context("while observing")
            .context("loki run");
        assert_eq!(exit_code_for(&usage), 2);
        let wrapped = anyhow::Error::new(loki_engine::EngineError::Core(
            loki_core::CoreError::BadRunId { id: "x".into() },
        ));
        assert_eq!(exit_code_for(&wrapped), 2);
        let failure = anyhow::Error::new(loki_heal::HealError::Runtime(std::io::Error::other(
            "no threads",
        )));
        assert_eq!(exit_code_for(&failure), 1);
        let refused = anyhow::Error::new(loki_receipt::ReceiptError::ExportRefused {
            verdict: VerifyVerdict::NotVerified,
            reason: None,
        });
        assert_eq!(exit_code_for(&refused), 4);
    }

    #[test]
    fn cli_errors_carry_their_class_and_unknown_errors_are_failures() {
        let worded = anyhow::Error::new(cmd::Worded {
            class: loki_core::exit::ExitClass::Usage,
            message: "the scripted session failed".into(),
        });
        assert_eq!(exit_code_for(&worded), 2);
        assert_eq!(
            exit_code_for(&anyhow::Error::new(cmd::UsageError("bad".into()))),
            2
        );
        assert_eq!(exit_code_for(&anyhow::anyhow!("disk on fire")), 1);
        let io: anyhow::Result<()> =
            Err(std::io::Error::other("gone")).context("cannot read the current directory");
        assert_eq!(exit_code_for(&io.unwrap_err()), 1);
    }
}
