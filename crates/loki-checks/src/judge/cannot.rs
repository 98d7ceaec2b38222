//! "Cannot judge": a check whose run at head or at base proved nothing (it did not run, ran
//! nothing, timed out, or failed before any test), why, and what to install or change, from its
//! log's first error and the toolchain the project pins.

use std::path::Path;

use loki_protocol::CheckStatus;

use super::CannotJudge;
use loki_runner::detect::Check;
use loki_runner::exec::CheckResult;

/// Why a check's result on `side` cannot be judged, and what to do, if it cannot.
pub(super) fn cannot_judge(side: &str, check: &Check, r: &CheckResult) -> Option<CannotJudge> {
    let reason = r.reason.clone().unwrap_or_else(|| "no reason given".into());
    let fix = match r.run.result {
        // A suite that fails before any test reports (it does not build, its toolchain is
        // missing) says nothing about any test.
        CheckStatus::Fail if r.tests.is_empty() => {
            let why = first_error(&r.log_path);
            let base_fix = fix_for_error(check, why.as_deref().unwrap_or(&reason));
            let fix = match pinned_toolchain(check) {
                Some(pin) => format!("{pin}; {base_fix}"),
                None => base_fix,
            };
            return Some(CannotJudge {
                check: check.name.clone(),
                reason: format!(
                    "{side}: {reason}{}",
                    why.as_deref().map(|w| format!(": {w}")).unwrap_or_default()
                ),
                fix,
            });
        }
        CheckStatus::Pass | CheckStatus::Fail | CheckStatus::Flaky => return None,
        CheckStatus::Timeout => format!(
            "the suite did not finish in time: raise checks.timeout_s or make `{}` faster",
            check.command_line()
        ),
        // The runner reports unreadable output as a failure; this word comes only from old
        // receipts, and says as little about any test as a suite that never ran.
        CheckStatus::NotRun | CheckStatus::Unparseable => fix_for(check, &reason),
    };
    Some(CannotJudge {
        check: check.name.clone(),
        reason: format!("{side}: {reason}"),
        fix,
    })
}

/// The first line of a check's log that reads like the reason it could not run.
fn first_error(log: &Path) -> Option<String> {
    let text = std::fs::read(log).ok()?;
    let text = String::from_utf8_lossy(&text);
    text.lines()
        .map(str::trim)
        .find(|l| {
            let low = l.to_ascii_lowercase();
            (low.starts_with("error")
                || low.starts_with("go: ")
                || low.contains("is not installed")
                || low.contains("requires go")
                || low.contains("unknown directive"))
                && !low.starts_with("error: test failed")
        })
        .map(|l| l.chars().take(300).collect())
}

/// The toolchain a project pins, in words, when it pins one: a suite that cannot build often
/// needs exactly that.
fn pinned_toolchain(check: &Check) -> Option<String> {
    let read = |name: &str| std::fs::read_to_string(check.cwd.join(name)).ok();
    if let Some(t) = read("rust-toolchain.toml").or_else(|| read("rust-toolchain")) {
        let channel = t
            .lines()
            .map(str::trim)
            .find_map(|l| l.strip_prefix("channel"))
            .map(|v| {
                v.trim_start_matches([' ', '='])
                    .trim()
                    .trim_matches('"')
                    .to_owned()
            })
            .unwrap_or_else(|| t.trim().to_owned());
        return Some(format!(
            "the project pins Rust {channel} (rust-toolchain): `rustup toolchain install {channel}`"
        ));
    }
    let m = read("go.mod")?;
    let toolchain = m
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("toolchain "))
        .map(str::to_owned);
    let go = m
        .lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix("go "))
        .map(|v| format!("go{}", v.trim()));
    let want = toolchain.or(go)?;
    Some(format!(
        "the module asks for {want} (go.mod): install that version of Go"
    ))
}

/// What to change so that a suite that failed before any test can run.
fn fix_for_error(check: &Check, why: &str) -> String {
    let low = why.to_ascii_lowercase();
    if let Some(at) = low.find("toolchain '") {
        let name: String = why[at + "toolchain '".len()..]
            .chars()
            .take_while(|c| *c != '\'')
            .collect();
        let short = name.split('-').next().unwrap_or(&name);
        return format!(
            "install the Rust toolchain the project pins: `rustup toolchain install {short}`"
        );
    }
    if low.contains("requires go") {
        return format!("install the Go version the module requires ({why})");
    }
    format!(
        "make `{}` build and run on the base and the head: {why}",
        check.command_line()
    )
}

/// What to install or change so that `check` can run, from why it did not.
fn fix_for(check: &Check, reason: &str) -> String {
    let r = reason.to_ascii_lowercase();
    if let Some(tool) = r.strip_suffix(" not found").filter(|t| !t.contains(' ')) {
        let tool = tool.rsplit('/').next().unwrap_or(tool);
        return match tool {
            "pnpm" => "install pnpm (`corepack enable pnpm`, or `npm install -g pnpm`), then `pnpm install`".into(),
            "yarn" => "install yarn (`corepack enable yarn`, or `npm install -g yarn`), then `yarn install`".into(),
            "go" => "install Go (https://go.dev/dl, or your package manager's golang package)".into(),
            "cargo" => "install Rust (https://rustup.rs)".into(),
            "node" | "npm" => "install Node.js".into(),
            "cargo-nextest" => "install cargo-nextest (`cargo install cargo-nextest`), which this project opts into".into(),
            other => format!("install `{other}` and put it on PATH"),
        };
    }
    if r.contains("no module named pytest") {
        return format!(
            "install pytest for the interpreter the suite runs with: `{} -m pip install pytest`",
            check.command.first().map_or("python3", String::as_str)
        );
    }
    if r.contains("dependencies are not installed") || r.contains("exit 127") {
        let pm = check.command.first().map_or("npm", String::as_str);
        let install = match pm {
            "pnpm" => "pnpm install",
            "yarn" => "yarn install",
            "bun" => "bun install",
            _ => "npm ci",
        };
        return format!(
            "install the package's dependencies: `{install}` in {}",
            check.dir
        );
    }
    if r.contains("no tests executed") {
        return format!(
            "`{}` ran no test: check its configuration selects the tests",
            check.command_line()
        );
    }
    format!("make `{}` run here: {reason}", check.command_line())
}
