//! Running a `package.json` test script the way its package manager would, with a structured
//! report from every test runner in it.
//!
//! A package manager runs `scripts.test` with `sh -c`, the package's (and its ancestors')
//! `node_modules/.bin` first on `PATH`. loki does the same itself ([`plan`]), which makes two
//! things possible that `npm test` cannot give:
//! - **every runner reports**: the script is split into its simple commands (on `&&`, `||`, `;`,
//!   `|`, outside quotes); each command that invokes vitest, jest or `node --test` — directly or
//!   through `npx`, `pnpm exec`, `yarn`, `cross-env VAR=1 …`, `env …` — gets the runner's report
//!   flags (its `Runner::script_flags`, in `crate::runners`) with a report file of its own, and
//!   `npm|pnpm|yarn run <script>` is replaced by that script, rewritten the same way (up to
//!   [`MAX_DEPTH`] levels), so a script that chains several runs (`vitest run && jest`, `npm run
//!   test:unit && npm run test:e2e`) still yields every test by id;
//! - **no package manager needed**: a pnpm or yarn project is judged on a machine without pnpm or
//!   yarn, because what they would run is the same script (a script that itself calls the missing
//!   tool fails with exit 127, which names it).
//!
//! npm runs `pretest` and `posttest` around `test`; they are run too when the package manager is
//! npm (pnpm and yarn 2+ do not run them). A `node-options` setting in the project's `.npmrc`
//! (the package's, then the repository root's) reaches the script's `NODE_OPTIONS`, as npm and
//! pnpm pass it on. Yarn Plug'n'Play projects (`.pnp.cjs`) cannot run
//! without yarn: for them [`plan`] returns `None` and the check runs through `yarn test`.
//!
//! Arguments a caller appends after `--` (a wall file, a narrowed selection) go to the script's
//! one runner command; with several runner commands they cannot be placed and the script runs
//! whole. With such arguments, the script's read-only checkers ([`is_checker`]: `eslint`
//! without `--fix`, `prettier --check`, `tsc --noEmit`, `biome check`, ..) are left out: they
//! decide nothing about a test, and a narrowed rerun of one test must not pay for linting the
//! whole project. [`Plan::others`] counts the commands that are neither runners nor checkers
//! (a build step): a script with none can be narrowed exactly ([`narrowable`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use loki_protocol::CheckKind;

use crate::runners::runner;

/// How deep `npm run x` inside a script is followed.
pub const MAX_DEPTH: usize = 4;

/// A runner command found in the script and the report it will write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub kind: CheckKind,
    pub path: PathBuf,
}

/// The rewritten script and what it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The `sh -c` text.
    pub script: String,
    /// `PATH` entries to put first (`node_modules/.bin` of the package and its ancestors).
    pub path: Vec<PathBuf>,
    /// Variables a package manager sets for a script.
    pub env: Vec<(OsString, OsString)>,
    /// One per runner command, in order.
    pub reports: Vec<Report>,
    /// `node-options` from the project's `.npmrc`, added to `NODE_OPTIONS`.
    pub node_options: Option<String>,
    /// `extra` could not be given to a single runner command and was dropped (the whole script
    /// runs).
    pub extra_dropped: bool,
    /// Commands that are neither a runner nor a read-only checker (a build, a codegen step).
    pub others: usize,
}

/// The plan for running `scripts.test` of the package in `pkg_dir` (whose manifest is
/// `manifest`, parsed), under the repository root `root`, with report files in `tmp` and `extra`
/// arguments for its runner. `None` when the script must run through its package manager.
#[must_use]
pub fn plan(
    pkg_dir: &Path,
    root: &Path,
    manifest: &serde_json::Value,
    pm: &str,
    extra: &[String],
    tmp: &Path,
) -> Option<Plan> {
    if pkg_dir.join(".pnp.cjs").exists() || pkg_dir.join(".pnp.js").exists() {
        return None;
    }
    let scripts = manifest.get("scripts")?;
    let test = scripts.get("test")?.as_str()?;
    let mut reports = Vec::new();
    let mut others = 0;
    let mut body = rewrite_inner(test, scripts, tmp, &mut reports, &mut others, 0, None);
    let mut extra_dropped = false;
    if !extra.is_empty() {
        if reports.len() == 1 {
            body = rewrite_with_extra(test, scripts, tmp, extra);
        } else {
            extra_dropped = true;
        }
    }
    if pm == "npm" {
        let hook = |name: &str| {
            scripts
                .get(name)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
        };
        if let Some(pre) = hook("pretest") {
            body = format!("{pre} && {body}");
        }
        if let Some(post) = hook("posttest") {
            body = format!("{body} && {post}");
        }
    }
    // Every ancestor, past the repository root, as npm's run-script does: a worktree nested in
    // the checkout (`.loki/worktrees/…`) finds the checkout's tools, as node finds its modules.
    let path: Vec<PathBuf> = pkg_dir
        .ancestors()
        .map(|d| d.join("node_modules").join(".bin"))
        .filter(|bin| bin.is_dir())
        .collect();
    let env = vec![
        ("npm_lifecycle_event".into(), "test".into()),
        ("npm_command".into(), "test".into()),
        (
            "npm_package_json".into(),
            pkg_dir.join("package.json").into_os_string(),
        ),
        ("INIT_CWD".into(), pkg_dir.as_os_str().to_owned()),
    ];
    let node_options = [pkg_dir, root]
        .iter()
        .find_map(|d| npmrc_node_options(&d.join(".npmrc")));
    Some(Plan {
        script: body,
        path,
        env,
        reports,
        node_options,
        extra_dropped,
        others,
    })
}

/// The `package.json` of the package in `pkg_dir`, parsed; `None` when it is missing or malformed.
#[must_use]
pub fn manifest(pkg_dir: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(pkg_dir.join("package.json")).ok()?;
    serde_json::from_str(&text).ok()
}

/// Whether `scripts.test` of the package in `pkg_dir` can run narrowed exactly: one runner
/// command, and nothing else but read-only checkers (which a narrowed run leaves out).
#[must_use]
pub fn narrowable(pkg_dir: &Path) -> bool {
    let Some(manifest) = manifest(pkg_dir) else {
        return false;
    };
    plan(
        pkg_dir,
        pkg_dir,
        &manifest,
        "pnpm",
        &["--".to_owned()],
        Path::new("/nonexistent"),
    )
    .is_some_and(|p| p.reports.len() == 1 && p.others == 0)
}

/// A command that only reads the project and reports (a linter, a format check, a type check
/// without output), as its program and arguments say.
#[must_use]
pub fn is_checker(program: &str, args: &[&str]) -> bool {
    let has = |flags: &[&str]| {
        args.iter().any(|a| {
            flags
                .iter()
                .any(|f| a == f || a.starts_with(&format!("{f}=")))
        })
    };
    let fixes = has(&[
        "--fix",
        "--fix-dry-run",
        "--write",
        "-w",
        "--apply",
        "--apply-unsafe",
    ]);
    match program {
        "true" => true,
        "eslint" | "oxlint" | "stylelint" | "markdownlint" | "publint" => !fixes,
        "prettier" => has(&["-c", "--check", "-l", "--list-different"]) && !fixes,
        "tsc" | "tsgo" | "vue-tsc" => has(&["--noEmit"]),
        "biome" => matches!(args.first(), Some(&("check" | "lint" | "ci"))) && !fixes,
        _ => false,
    }
}

/// The `node-options` value of an `.npmrc` file, if it sets one.
fn npmrc_node_options(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().find_map(|l| {
        let (k, v) = l.split_once('=')?;
        (k.trim() == "node-options")
            .then(|| v.trim().trim_matches(|c| c == '"' || c == '\'').to_owned())
    })
}

/// The script with the single runner command given `extra` (its reports are the same as
/// without: only arguments are appended).
fn rewrite_with_extra(
    script: &str,
    scripts: &serde_json::Value,
    tmp: &Path,
    extra: &[String],
) -> String {
    let mut reports = Vec::new();
    let quoted: Vec<String> = extra.iter().map(|a| shell_quote(a)).collect();
    rewrite_inner(
        script,
        scripts,
        tmp,
        &mut reports,
        &mut 0,
        0,
        Some(&quoted.join(" ")),
    )
}

fn rewrite_inner(
    script: &str,
    scripts: &serde_json::Value,
    tmp: &Path,
    reports: &mut Vec<Report>,
    others: &mut usize,
    depth: usize,
    extra: Option<&str>,
) -> String {
    let mut out = String::new();
    for piece in split(script) {
        match piece {
            Piece::Op(op) => {
                out.push(' ');
                out.push_str(op);
                out.push(' ');
            }
            Piece::Command(cmd) => {
                out.push_str(&command(&cmd, scripts, tmp, reports, others, depth, extra));
            }
        }
    }
    out
}

/// One simple command, rewritten.
fn command(
    cmd: &str,
    scripts: &serde_json::Value,
    tmp: &Path,
    reports: &mut Vec<Report>,
    others: &mut usize,
    depth: usize,
    extra: Option<&str>,
) -> String {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let mut i = 0;
    // Leading `VAR=value` assignments and wrappers that run the rest as a command.
    loop {
        match words.get(i) {
            Some(w) if is_assignment(w) => i += 1,
            Some(&("cross-env" | "env" | "npx" | "dotenv" | "nyc" | "c8")) => {
                i += 1;
                if words.get(i) == Some(&"--") {
                    i += 1;
                }
            }
            Some(&("pnpm" | "yarn" | "npm" | "bun")) => {
                let pm = words[i];
                let sub = words.get(i + 1).copied().unwrap_or("");
                let script_name = match (pm, sub) {
                    ("npm" | "pnpm" | "yarn" | "bun", "run" | "run-script") => {
                        words.get(i + 2).copied()
                    }
                    ("pnpm" | "yarn", s) if !s.is_empty() && !s.starts_with('-') => {
                        scripts.get(s).is_some().then_some(s)
                    }
                    _ => None,
                };
                if let Some(name) = script_name
                    && depth < MAX_DEPTH
                    && let Some(body) = scripts.get(name).and_then(|v| v.as_str())
                {
                    let inner =
                        rewrite_inner(body, scripts, tmp, reports, others, depth + 1, extra);
                    return format!("( {inner} )");
                }
                match (pm, sub) {
                    ("pnpm" | "npm", "exec") | ("yarn" | "bun", "x" | "exec") => {
                        i += 2;
                        if words.get(i) == Some(&"--") {
                            i += 1;
                        }
                    }
                    ("pnpm" | "yarn", s) if !s.is_empty() && !s.starts_with('-') && s != "test" => {
                        // `pnpm vitest`: the package manager runs a binary.
                        i += 1;
                    }
                    _ => {
                        *others += 1;
                        return cmd.to_owned();
                    }
                }
            }
            _ => break,
        }
    }
    let Some(program) = words.get(i) else {
        return cmd.to_owned();
    };
    if is_checker(program, &words[i + 1..]) {
        // A narrowed run leaves the project's checkers out (see the module doc).
        return if extra.is_some() {
            "true".to_owned()
        } else {
            cmd.to_owned()
        };
    }
    let args = &words[i + 1..];
    let n = reports.len();
    let kinds = CheckKind::ALL;
    let Some((kind, flags)) = kinds.into_iter().find_map(|k| {
        runner(k)
            .script_flags(program, args, tmp, n)
            .map(|f| (k, f))
    }) else {
        *others += 1;
        return cmd.to_owned();
    };
    reports.push(Report {
        kind,
        path: flags.report,
    });
    let tail = extra.map(|e| format!(" {e}")).unwrap_or_default();
    if flags.first {
        let head = words[..=i].join(" ");
        let rest = args.join(" ");
        return format!("{head}{} {rest}{tail}", flags.flags);
    }
    format!("{}{}{tail}", cmd.trim_end(), flags.flags)
}

/// The report flags a runner's command in a script gets (`Runner::script_flags`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScriptFlags {
    /// The flags, each with a leading space.
    pub(crate) flags: String,
    /// The report file they make the runner write.
    pub(crate) report: PathBuf,
    /// They go right after the program, before its arguments (node's options must precede its
    /// file arguments); otherwise after the whole command.
    pub(crate) first: bool,
}

fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// A piece of a script: a simple command, or an operator between two.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Command(String),
    Op(&'static str),
}

/// Splits on `&&`, `||`, `;` and `|` outside single and double quotes.
fn split(script: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let chars: Vec<char> = script.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            cur.push(c);
            if c == q {
                quote = None;
            } else if c == '\\' && q == '"' && i + 1 < chars.len() {
                cur.push(chars[i + 1]);
                i += 1;
            }
            i += 1;
            continue;
        }
        let two: String = chars[i..chars.len().min(i + 2)].iter().collect();
        let op: Option<&'static str> = match (two.as_str(), c) {
            ("&&", _) => Some("&&"),
            ("||", _) => Some("||"),
            (_, ';') => Some(";"),
            (_, '|') => Some("|"),
            _ => None,
        };
        match op {
            Some(op) => {
                out.push(Piece::Command(cur.trim().to_owned()));
                out.push(Piece::Op(op));
                cur.clear();
                i += op.len();
            }
            None => {
                if c == '\'' || c == '"' {
                    quote = Some(c);
                }
                cur.push(c);
                i += 1;
            }
        }
    }
    out.push(Piece::Command(cur.trim().to_owned()));
    out
}

pub(crate) fn shell_quote(s: &str) -> String {
    loki_process::shell_quote(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The plan of a package in a directory of the test's own (the plan looks there for Plug'n'Play
    /// files, `.npmrc` and `node_modules/.bin`), its reports under `/t` (a name in the script,
    /// never touched).
    fn plan_of(scripts: &serde_json::Value, pm: &str, extra: &[&str]) -> Plan {
        let extra: Vec<String> = extra.iter().map(|s| (*s).to_owned()).collect();
        let root = tempfile::tempdir().unwrap();
        let pkg = root.path().join("pkg");
        plan(
            &pkg,
            root.path(),
            &json!({ "scripts": scripts }),
            pm,
            &extra,
            Path::new("/t"),
        )
        .unwrap()
    }

    #[test]
    fn every_runner_in_a_chain_reports() {
        let p = plan_of(
            &json!({"test": "vitest run && npm run test:e2e", "test:e2e": "NODE_ENV=test jest --runInBand"}),
            "pnpm",
            &[],
        );
        assert_eq!(
            p.script,
            "vitest run --reporter=default --reporter=json --outputFile.json=/t/script-report-0.json && ( NODE_ENV=test jest --runInBand --json --outputFile=/t/script-report-1.json )"
        );
        assert_eq!(
            p.reports.iter().map(|r| r.kind).collect::<Vec<_>>(),
            [CheckKind::Vitest, CheckKind::Jest]
        );
    }

    #[test]
    fn wrappers_node_test_and_pre_post_hooks() {
        let p = plan_of(
            &json!({"test": "cross-env TZ=UTC npx vitest", "pretest": "tsc", "posttest": "echo done"}),
            "npm",
            &[],
        );
        assert!(
            p.script
                .starts_with("tsc && cross-env TZ=UTC npx vitest --reporter=default"),
            "{}",
            p.script
        );
        assert!(p.script.ends_with("&& echo done"), "{}", p.script);
        let p = plan_of(&json!({"test": "node --test test/"}), "pnpm", &[]);
        assert_eq!(
            p.script,
            "node --test-reporter=spec --test-reporter-destination=stdout --test-reporter=/t/loki-node-reporter.mjs --test-reporter-destination=/t/script-report-0.jsonl --test test/"
        );
        // pnpm does not run npm's pre/post hooks.
        let p = plan_of(&json!({"test": "jest", "pretest": "tsc"}), "pnpm", &[]);
        assert!(!p.script.contains("tsc"));
    }

    #[test]
    fn extra_arguments_go_to_the_one_runner() {
        let p = plan_of(&json!({"test": "vitest run"}), "npm", &["src/a.test.ts"]);
        assert!(p.script.ends_with(" src/a.test.ts"), "{}", p.script);
        assert!(!p.extra_dropped);
        let p = plan_of(
            &json!({"test": "vitest run && jest"}),
            "npm",
            &["a.test.ts"],
        );
        assert!(p.extra_dropped && !p.script.contains("a.test.ts"));
    }

    #[test]
    fn a_narrowed_run_leaves_the_checkers_out_and_a_build_step_in() {
        // unjs/ufo's script: the lint is two read-only checkers behind `pnpm lint`.
        let scripts = json!({
            "test": "pnpm lint && vitest run --typecheck",
            "lint": "eslint --ext .ts . && prettier -c src test",
        });
        let whole = plan_of(&scripts, "pnpm", &[]);
        assert!(
            whole.script.starts_with(
                "( eslint --ext .ts . && prettier -c src test ) && vitest run --typecheck"
            ),
            "{}",
            whole.script
        );
        assert_eq!(whole.others, 0);
        let narrowed = plan_of(&scripts, "pnpm", &["test/parse.test.ts"]);
        assert!(
            narrowed
                .script
                .starts_with("( true && true ) && vitest run --typecheck --reporter"),
            "{}",
            narrowed.script
        );
        assert!(
            narrowed.script.ends_with(" test/parse.test.ts"),
            "{}",
            narrowed.script
        );
        // A fixing linter writes files, a build step makes what the tests load: both stay, and
        // they are counted, so such a script is not narrowed.
        for test in [
            "eslint --fix . && vitest run",
            "pnpm build && vitest run",
            "tsc && jest",
        ] {
            let p = plan_of(
                &json!({"test": test, "build": "tsc -p ."}),
                "pnpm",
                &["a.test.ts"],
            );
            assert_eq!(p.others, 1, "{test}: {}", p.script);
            assert!(!p.script.contains("true"), "{test}: {}", p.script);
        }
        assert!(is_checker("tsgo", &["--noEmit"]));
        assert!(is_checker("biome", &["check", "."]));
        assert!(!is_checker("biome", &["check", "--write", "."]));
        assert!(!is_checker("prettier", &["--write", "."]));
        assert!(!is_checker("prettier", &["src"]));
    }

    #[test]
    #[expect(clippy::disallowed_methods, reason = "fixtures are written directly")]
    fn a_package_is_narrowable_when_its_script_is_one_runner_among_checkers() {
        let dir = tempfile::tempdir().unwrap();
        let write = |scripts: serde_json::Value| {
            std::fs::write(
                dir.path().join("package.json"),
                json!({ "scripts": scripts }).to_string(),
            )
            .unwrap();
        };
        write(
            json!({"test": "pnpm lint && pnpm test:types && pnpm vitest run", "lint": "eslint .", "test:types": "tsgo --noEmit"}),
        );
        assert!(narrowable(dir.path()));
        write(json!({"test": "pnpm build && vitest run", "build": "unbuild"}));
        assert!(!narrowable(dir.path()));
        write(json!({"test": "vitest run && jest"}));
        assert!(!narrowable(dir.path()));
        std::fs::remove_file(dir.path().join("package.json")).unwrap();
        assert!(!narrowable(dir.path()));
    }

    #[test]
    fn quotes_and_unknown_commands_are_left_alone() {
        let p = plan_of(&json!({"test": "echo 'a && b' && mocha"}), "npm", &[]);
        assert_eq!(p.script, "echo 'a && b' && mocha");
        assert!(p.reports.is_empty());
        // Recursion is bounded.
        let p = plan_of(&json!({"test": "npm run test"}), "npm", &[]);
        assert!(p.script.matches('(').count() <= MAX_DEPTH + 1);
    }

    #[test]
    fn npmrc_node_options_reach_the_script() {
        let t = tempfile::tempdir().unwrap();
        loki_core::fs::write_atomic(
            &t.path().join(".npmrc"),
            b"registry=https://x\nnode-options=\"--experimental-vm-modules\"\n",
        )
        .unwrap();
        let p = plan(
            t.path(),
            t.path(),
            &json!({"scripts": {"test": "jest"}}),
            "npm",
            &[],
            t.path(),
        )
        .unwrap();
        assert_eq!(p.node_options.as_deref(), Some("--experimental-vm-modules"));
    }

    #[test]
    fn plug_n_play_needs_yarn() {
        let t = tempfile::tempdir().unwrap();
        loki_core::fs::write_atomic(&t.path().join(".pnp.cjs"), b"").unwrap();
        assert!(
            plan(
                t.path(),
                t.path(),
                &json!({"scripts": {"test": "jest"}}),
                "yarn",
                &[],
                t.path()
            )
            .is_none()
        );
    }
}
