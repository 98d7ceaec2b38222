//! `loki ask "<prompt>"`: one agent session in this repository, without verification.
//!
//! It is for trying a provider: the agent works in the repository itself (not a worktree), and
//! nothing is checked or signed. The run is still recorded (`kind: ask`): events, the transcript
//! of every exchange, usage and cost.
//!
//! The model's commands (and a CLI agent) run in the model box
//! ([`loki_engine::isolation::Scope::Checkout`]): the checkout is writable, new files at its top
//! included, but its `.git` is read-only and its `.loki` (other runs) hidden; loki's home, other runs and the user's credentials cannot be opened, `HOME`
//! and `TMPDIR` are private, and the network is off unless `agent.network = "on"`.

use loki_agent::{Backend, SessionConfig, Transcript, build, run_session};
use loki_core::outcome::ExitCode;
use loki_core::run::RunStore;
use loki_engine::isolation::{Fence, Scope};
use loki_events::RunRecorder;
use loki_events::payload::{Cost, RunCompleted, RunStarted, SessionEnded, SessionStarted};
use serde_json::json;

use crate::cli::AskArgs;
use crate::cmd::providers::{choose, settings};
use crate::context::Ctx;
use crate::output::{DIM, paint};

impl AskArgs {
    /// The command's flags as the top configuration layer.
    pub fn provider_flags(&self) -> Vec<(String, String, String)> {
        let mut f = Vec::new();
        if let Some(p) = &self.provider {
            f.push(("provider.name".into(), p.clone(), "--provider".into()));
        }
        if let Some(m) = &self.model {
            f.push(("provider.model".into(), m.clone(), "--model".into()));
        }
        if let Some(s) = &self.script {
            f.push((
                "provider.script".into(),
                s.display().to_string(),
                "--script".into(),
            ));
        }
        f
    }
}

pub fn run(ctx: &Ctx, args: &AskArgs) -> anyhow::Result<ExitCode> {
    let repo = ctx.repo()?;
    let (choice, why) = choose(ctx)?;
    let settings = settings(ctx);
    let backend = build(&choice, &settings)?;
    let mut rec = RunRecorder::start(
        &RunStore::new(repo.clone()),
        Some(args.prompt.clone()),
        std::env::args().collect(),
        &RunStarted::Ask {
            provider: choice.label(),
            why: why.clone(),
        },
    )?;
    let dir = rec.dir().to_path_buf();
    // Ctrl-C or SIGTERM: the agent's commands are stopped with their groups and loki says what
    // is left (the session has no safe point to stop at: a model call in flight cannot be cut).
    crate::interrupt::install(format!(
        "the ask session (run {}) was stopped; its edits so far stay in the working tree, unverified",
        rec.id()
    ))?;
    rec.append(&SessionStarted {
        provider: Some(choice.label()),
        model: settings.model.clone(),
        ..SessionStarted::default()
    })?;
    if ctx.global.verbose {
        anstream::eprintln!(
            "{}",
            paint(
                DIM,
                &format!("provider {} ({why}); run {}", choice.label(), rec.id())
            )
        );
    }
    let network = crate::cmd::modelbox::network(ctx);
    let cli_agent = matches!(backend, Backend::Cli(_));
    crate::cmd::modelbox::announce(&ctx.global, network, cli_agent);
    let private = tempfile::Builder::new().prefix("loki-ask-").tempdir()?;
    let fence = Fence::without_git(private.path())?;
    let wrapper = match std::env::current_exe() {
        Ok(exe) if loki_process::confine::available() => {
            let mut secrets = vec![ctx.home()?.clone()];
            secrets.extend(loki_receipt::KeyEnv::from_process().signing_key_file);
            let net = if cli_agent {
                loki_process::confine::Network::Allowed
            } else {
                network
            };
            fence
                .policy(&repo, Scope::Checkout, &secrets, net)
                .wrapper(&exe)
        }
        _ => Vec::new(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let result = match backend {
        Backend::Loop(provider) => {
            let mut cfg = SessionConfig::new(&args.prompt);
            cfg.limits.max_turns = args.max_turns;
            cfg.prices = crate::cmd::providers::prices(ctx)?;
            cfg.transcript = Transcript::new(Some(dir.join("transcript.jsonl")));
            cfg.tools.run_env = Some(fence.env());
            cfg.tools.run_wrapper = wrapper;
            cfg.tools.on_run = crate::cmd::modelbox::echo_commands(&ctx.global);
            rt.block_on(run_session(provider.as_ref(), &repo.root, &cfg))
                .map(|o| {
                    let detail = o
                        .finish
                        .as_ref()
                        .map(|f| f.detail.clone())
                        .unwrap_or_default();
                    (
                        format!("{:?}", o.end).to_lowercase(),
                        detail,
                        o.cost_usd,
                        o.usage.input_tokens,
                        o.usage.output_tokens,
                        o.turns,
                    )
                })
        }
        Backend::Cli(agent) => {
            // The proxy (when the network is off) lives until the agent has finished.
            let (boxed, _egress) =
                loki_engine::session::boxed_cli(&agent, &fence, &wrapper, &repo.root, network)?;
            rt.block_on(boxed.run(&args.prompt, &repo.root))
        }
        .map_err(loki_agent::AgentError::from)
        .map(|o| {
            let (i, out) = o
                .usage
                .map_or((0, 0), |u| (u.input_tokens, u.output_tokens));
            let tail: String = o
                .stdout
                .chars()
                .rev()
                .take(2000)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            (format!("exit {}", o.exit_code), tail, o.cost_usd, i, out, 1)
        }),
    };
    match result {
        Ok((end, detail, cost, input, output, turns)) => {
            rec.append(&Cost {
                usd: cost,
                input_tokens: input,
                output_tokens: output,
                ..Cost::default()
            })?;
            rec.append(&SessionEnded {
                end: Some(end.clone()),
                turns: Some(turns),
                ..SessionEnded::default()
            })?;
            rec.finish(&RunCompleted::new("ASKED").exit_code(0))?;
            let cost_text = cost.map_or_else(|| "not measured".to_string(), loki_agent::cost::usd);
            if ctx.global.json {
                anstream::println!(
                    "{}",
                    json!({"run": rec.id(), "provider": choice.label(), "end": end, "detail": detail,
                           "turns": turns, "input_tokens": input, "output_tokens": output, "cost_usd": cost})
                );
            } else {
                if !detail.is_empty() {
                    anstream::println!("{detail}");
                }
                anstream::println!(
                    "{}",
                    paint(
                        DIM,
                        &format!(
                            "{} · {end} after {turns} turn(s) · {} tokens · cost {cost_text} · run {} (not verified)",
                            choice.label(),
                            input + output,
                            rec.id()
                        )
                    )
                );
            }
            Ok(ExitCode::Success)
        }
        Err(e) => {
            // The exit code stays the agent error's: a setup problem (no key, bad URL, missing
            // CLI, a model call that failed) is the user's to fix (exit 2), anything else a
            // failure (exit 1). The run records the same code.
            let class = loki_core::exit::Classify::exit_class(&e);
            rec.append(&SessionEnded {
                error: Some(e.to_string()),
                failure: e.provider_failure().map(|f| f.kind.as_str().to_string()),
                ..SessionEnded::default()
            })?;
            rec.finish(&RunCompleted::new("ERROR").exit_code(i32::from(class.code())))?;
            let msg = format!(
                "the {} session failed (run {}): {e}",
                choice.label(),
                rec.id()
            );
            Err(crate::cmd::Worded {
                class,
                message: msg,
            }
            .into())
        }
    }
}
