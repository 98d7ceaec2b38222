//! `loki doctor`: prints `loki_doctor::checks`, one line per check.
//!
//! Each line is `PASS|WARN|FAIL name: detail (how to fix)`. Exit 0 when nothing required fails;
//! `--json` prints every check even on failure.

use std::fmt::Write as _;

use loki_core::outcome::ExitCode;
use loki_doctor::checks::{Inputs, Status};

use crate::cmd::modelbox;
use crate::context::Ctx;
use loki_term::{GREEN, RED, YELLOW, paint};

pub fn run(ctx: &Ctx) -> anyhow::Result<ExitCode> {
    let support = loki_process::confine::support();
    let cut = modelbox::cut();
    let words = modelbox::network_words(&cut);
    let detect = || crate::cmd::providers::detect(ctx);
    let checks = loki_doctor::checks::collect(&Inputs {
        repo: ctx.repo().ok(),
        config: &ctx.config,
        ignored: ctx
            .ignored
            .iter()
            .map(|bad| {
                (
                    bad.error.to_string(),
                    crate::context::repair_hint(bad.layer),
                )
            })
            .collect(),
        home: ctx.home.as_deref(),
        filesystem: (support.filesystem(), modelbox::filesystem_words(support)),
        network: modelbox::network(ctx),
        cut: (cut, words),
        detect: &detect,
    });
    let ok = loki_doctor::checks::ok(&checks);
    if ctx.global.json {
        anstream::println!("{}", serde_json::json!({ "ok": ok, "checks": checks }));
    } else {
        let mut out = String::new();
        for c in &checks {
            if ctx.global.quiet && c.status == Status::Pass {
                continue;
            }
            let tag = match c.status {
                Status::Pass => paint(GREEN, "PASS"),
                Status::Warn => paint(YELLOW, "WARN"),
                Status::Fail => paint(RED, "FAIL"),
            };
            let fix = c
                .fix
                .as_ref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default();
            writeln!(out, "{tag} {}: {}{fix}", c.name, c.detail)?;
        }
        anstream::print!("{out}");
    }
    Ok(if ok {
        ExitCode::Success
    } else {
        ExitCode::Failure
    })
}
