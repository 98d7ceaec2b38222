//! Recognising a test command: wrappers looked through, then the tool and its arguments.

use super::Spec;
use super::specs::{CARGO, GO, GOTESTSUM, JS, MAKE, NOX, OTHER, PYTEST, SCRIPT, TOX, UNITTEST};
use crate::shell::basename;

/// A recognised test command.
#[derive(Debug, Clone)]
pub struct TestCmd {
    /// What it runs, independent of spelling: `cargo test`, `cargo nextest run`, `pytest`,
    /// `go test`, `script test:unit`, `make test`, `jest`, ...
    pub tool: String,
    /// Tools that can stand in for each other when matching a base command to a head one.
    pub family: &'static str,
    pub spec: &'static Spec,
    pub args: Vec<String>,
    /// The command as written.
    pub text: String,
    /// `NAME=value` given on the command itself (`FOO=1 pytest`, `env FOO=1 pytest`).
    pub env: Vec<(String, String)>,
}

impl TestCmd {
    /// `tool` plus its arguments, for exact matching.
    pub fn key(&self) -> String {
        format!("{} {}", self.tool, self.args.join(" "))
    }
}

pub(super) fn is_flag(w: &str) -> bool {
    w.starts_with('-') && w.len() > 1
}

/// Skips a wrapper's own flags; `values` take the next word.
fn skip_flags<'a>(w: &'a [String], values: &[&str]) -> &'a [String] {
    let mut i = 0;
    while let Some(a) = w.get(i) {
        if a == "--" {
            return &w[i + 1..];
        }
        if !is_flag(a) {
            break;
        }
        i += if values.contains(&a.as_str()) { 2 } else { 1 };
    }
    w.get(i..).unwrap_or(&[])
}

fn is_testish(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("test") || n.contains("spec")
}

fn cmd(
    tool: impl Into<String>,
    family: &'static str,
    spec: &'static Spec,
    args: &[String],
) -> Option<TestCmd> {
    Some(TestCmd {
        tool: tool.into(),
        family,
        spec,
        args: args.to_vec(),
        text: String::new(),
        env: Vec::new(),
    })
}

/// The test command `words` run, if any (see the module doc).
pub fn identify(words: &[String], assigns: &[(String, String)]) -> Option<TestCmd> {
    let mut c = unwrap(words, assigns)?;
    c.text = words.join(" ");
    Some(c)
}

/// What one wrapper leaves: the words it runs, or the answer when the wrapper decides it.
enum Peeled<'a> {
    Inner(&'a [String]),
    Done(Option<TestCmd>),
}

fn unwrap(words: &[String], assigns: &[(String, String)]) -> Option<TestCmd> {
    let mut env: Vec<(String, String)> = assigns.to_vec();
    let mut w = words;
    // Wrappers, at most a few deep.
    for _ in 0..8 {
        let first = w.first()?;
        let name = basename(first);
        let next = w.get(1).map(String::as_str);
        let rest = &w[1..];
        let peeled = process_wrapper(name, rest, &mut env)
            .or_else(|| environment_runner(name, next, rest, &mut env))
            .or_else(|| js_wrapper(name, next, rest, &mut env));
        w = match peeled {
            Some(Peeled::Inner(inner)) => inner,
            Some(Peeled::Done(c)) => return c,
            None => return identify_known(w, env),
        };
    }
    None
}

/// Flags of `time`, `nice`, `stdbuf` and the like that take a value.
const PROCESS_WRAPPER_VALUES: &[&str] = &["-n", "-o", "-e", "-i", "-f", "-c"];
const SUDO_VALUES: &[&str] = &["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"];
const XVFB_RUN_VALUES: &[&str] = &[
    "-s",
    "--server-args",
    "-n",
    "--server-num",
    "-e",
    "--error-file",
    "-f",
    "--auth-file",
    "-w",
    "--wait",
    "-p",
    "--xauth-protocol",
];
/// Flags of `uv run`, `poetry run` and the like that take a value.
const ENVIRONMENT_RUN_VALUES: &[&str] = &[
    "--with",
    "--python",
    "-p",
    "--extra",
    "--group",
    "--package",
    "--env-file",
    "--directory",
    "--project",
    "--index",
    "--with-requirements",
    "-e",
    "--env",
    "--only-group",
    "--no-group",
];
/// Flags of `nyc` and `c8` that take a value.
const COVERAGE_JS_VALUES: &[&str] = &[
    "--reporter",
    "-r",
    "--include",
    "-n",
    "--exclude",
    "-x",
    "--report-dir",
    "--temp-dir",
    "--extension",
    "-e",
    "--require",
    "--src",
];

/// Leading `NAME=value` words, added to `env`.
fn take_assignments<'a>(mut r: &'a [String], env: &mut Vec<(String, String)>) -> &'a [String] {
    while let Some((k, v)) = r.first().and_then(|a| a.split_once('=')) {
        env.push((k.to_owned(), v.to_owned()));
        r = &r[1..];
    }
    r
}

/// Wrappers that run any program: `env`, `time`, `nice`, `sudo`, `timeout`, `xvfb-run`, ...
fn process_wrapper<'a>(
    name: &str,
    rest: &'a [String],
    env: &mut Vec<(String, String)>,
) -> Option<Peeled<'a>> {
    let inner = match name {
        "env" => {
            let r = skip_flags(rest, &["-u", "--unset", "-C", "--chdir", "-S"]);
            take_assignments(r, env)
        }
        "time" | "nice" | "nohup" | "stdbuf" | "unbuffer" | "chronic" | "catchsegv" | "faketty"
        | "valgrind" | "dbus-run-session" | "ionice" => skip_flags(rest, PROCESS_WRAPPER_VALUES),
        // The first word after the flags is the CPU list, the architecture or the duration.
        "taskset" | "setarch" => skip_flags(rest, &[]).get(1..).unwrap_or(&[]),
        "timeout" => skip_flags(rest, &["-s", "--signal", "-k", "--kill-after"])
            .get(1..)
            .unwrap_or(&[]),
        "sudo" => skip_flags(rest, SUDO_VALUES),
        "xvfb-run" => skip_flags(rest, XVFB_RUN_VALUES),
        _ => return None,
    };
    Some(Peeled::Inner(inner))
}

/// Python environment managers' `run`: `hatch run`, `uv run`, `uvx`, `pipx run`, `conda run`,
/// and `coverage run -m`.
fn environment_runner<'a>(
    name: &str,
    next: Option<&str>,
    rest: &'a [String],
    env: &mut Vec<(String, String)>,
) -> Option<Peeled<'a>> {
    let inner = match (name, next) {
        ("hatch", Some("run")) => {
            // `hatch run test:cov`: a hatch script named like a test, or a command.
            let r = skip_flags(&rest[1..], &["-e", "--env"]);
            let script = r
                .first()
                .filter(|s| is_testish(s) && recognise(r).is_none());
            if let Some(script) = script {
                let c =
                    cmd(format!("hatch run {script}"), "pytest", &OTHER, &r[1..]).map(|mut c| {
                        c.env = std::mem::take(env);
                        c
                    });
                return Some(Peeled::Done(c));
            }
            r
        }
        ("uv" | "poetry" | "pipenv" | "pdm" | "rye", Some("run")) => {
            skip_flags(&rest[1..], ENVIRONMENT_RUN_VALUES)
        }
        ("uvx" | "pipx", _) => {
            let r = if name == "pipx" && next == Some("run") {
                &rest[1..]
            } else {
                rest
            };
            skip_flags(r, &["--with", "--python", "-p", "--from", "--spec"])
        }
        ("conda" | "mamba" | "micromamba", Some("run")) => {
            skip_flags(&rest[1..], &["-n", "--name", "-p", "--prefix", "--cwd"])
        }
        ("coverage", Some("run")) => {
            let r = skip_flags_until_m(&rest[1..]);
            // Only `coverage run -m tool`: a script path is not a test command we know.
            let c = match r.first().map(String::as_str) {
                Some("-m") => {
                    let mut v = vec!["python".to_owned()];
                    v.extend_from_slice(r);
                    identify_known(&v, std::mem::take(env))
                }
                _ => None,
            };
            return Some(Peeled::Done(c));
        }
        _ => return None,
    };
    Some(Peeled::Inner(inner))
}

/// Wrappers of JS test commands: package runners (`npx`, `npm exec`), environment setters
/// (`cross-env`, `dotenv`) and coverage (`nyc`, `c8`).
fn js_wrapper<'a>(
    name: &str,
    next: Option<&str>,
    rest: &'a [String],
    env: &mut Vec<(String, String)>,
) -> Option<Peeled<'a>> {
    let inner = match (name, next) {
        ("npx" | "bunx" | "pnpx", _) => skip_flags(rest, &["-p", "--package", "-c", "--call"]),
        ("cross-env" | "cross-env-shell", _) => take_assignments(rest, env),
        ("dotenv" | "env-cmd", _) => {
            skip_flags(rest, &["-e", "-f", "-c", "-v", "--file", "--environments"])
        }
        ("nyc" | "c8", _) => skip_flags(rest, COVERAGE_JS_VALUES),
        ("npm" | "pnpm" | "yarn" | "bun", Some("exec" | "dlx" | "x")) => {
            skip_flags(&rest[1..], &["-p", "--package", "-c", "--call"])
        }
        _ => return None,
    };
    Some(Peeled::Inner(inner))
}

/// `coverage run` options up to `-m`.
fn skip_flags_until_m(w: &[String]) -> &[String] {
    let values = [
        "--source",
        "--rcfile",
        "--concurrency",
        "--omit",
        "--include",
        "--data-file",
        "--context",
    ];
    let mut i = 0;
    while let Some(a) = w.get(i) {
        if a == "-m" || !is_flag(a) {
            break;
        }
        i += if values.contains(&a.as_str()) { 2 } else { 1 };
    }
    w.get(i..).unwrap_or(&[])
}

fn identify_known(w: &[String], env: Vec<(String, String)>) -> Option<TestCmd> {
    let mut c = recognise(w)?;
    c.env = env;
    Some(c)
}

fn recognise(w: &[String]) -> Option<TestCmd> {
    let first = w.first()?;
    let name = basename(first);
    let arg = |k: usize| w.get(k).map(String::as_str);
    match name {
        "cargo" | "cross" => cargo(&w[1..]),
        "cargo-nextest" if arg(1) == Some("nextest") => cargo(&w[1..]),
        "pytest" | "py.test" | "nosetests" | "nose2" => cmd("pytest", "pytest", &PYTEST, &w[1..]),
        n if n.starts_with("python") || n == "py" || n.starts_with("pypy") => python(&w[1..]),
        "tox" => cmd("tox", "tox", &TOX, &w[1..]),
        "nox" => cmd("nox", "nox", &NOX, &w[1..]),
        "go" | "richgo" if arg(1) == Some("test") => cmd("go test", "go", &GO, &w[2..]),
        "gotestsum" => cmd("go test", "go", &GOTESTSUM, &w[1..]),
        "jest" => cmd("jest", "js", &JS, &w[1..]),
        "vitest" => vitest(w),
        "mocha" | "ava" | "tap" | "tape" | "jasmine" | "karma" | "playwright" | "cypress"
        | "uvu" => cmd(name, "js", &JS, &w[1..]),
        "node" | "nodejs" | "tsx" => node(w),
        "bun" if arg(1) == Some("test") => cmd("bun test", "js", &JS, &w[2..]),
        "deno" if arg(1) == Some("test") => cmd("deno test", "js", &JS, &w[2..]),
        "npm" | "pnpm" | "yarn" | "bun" => script_runner(name, &w[1..]),
        "make" | "gmake" | "just" | "task" | "mage" => make(name, &w[1..]),
        "dotnet" if arg(1) == Some("test") => cmd("dotnet test", "other", &OTHER, &w[2..]),
        "hatch" if arg(1) == Some("test") => cmd("hatch test", "pytest", &OTHER, &w[2..]),
        "mvn" | "mvnw" => maven(&w[1..]),
        "gradle" | "gradlew" => {
            w[1..]
                .iter()
                .any(|a| matches!(a.rsplit(':').next(), Some("test" | "check" | "build")))
                .then_some(())?;
            cmd("gradle", "other", &OTHER, &w[1..])
        }
        "ctest" => cmd("ctest", "other", &OTHER, &w[1..]),
        "bats" => cmd("bats", "other", &OTHER, &w[1..]),
        "gulp" | "grunt" => {
            let (task, args) = w[1..].split_first()?;
            is_testish(task).then_some(())?;
            cmd(format!("{name} {task}"), "js", &OTHER, args)
        }
        "bazel" | "bazelisk" if arg(1) == Some("test") => {
            cmd("bazel test", "other", &OTHER, &w[2..])
        }
        "rspec" => cmd("rspec", "other", &OTHER, &w[1..]),
        "phpunit" => cmd("phpunit", "other", &OTHER, &w[1..]),
        "mix" if arg(1) == Some("test") => cmd("mix test", "other", &OTHER, &w[2..]),
        "swift" if arg(1) == Some("test") => cmd("swift test", "other", &OTHER, &w[2..]),
        "turbo" => {
            let r = if arg(1) == Some("run") {
                &w[2..]
            } else {
                &w[1..]
            };
            let (task, args) = r.split_first()?;
            is_testish(task).then_some(())?;
            cmd(format!("script {task}"), "js", &SCRIPT, args)
        }
        // `bash scripts/test.sh`: a shell running the project's own test script.
        "bash" | "sh" | "zsh" | "pwsh" => {
            let script = w[1..].iter().find(|a| !is_flag(a))?;
            test_script(script, &w[2..])
        }
        _ => test_script(first, &w[1..]),
    }
}

/// `vitest`, `vitest list`, `vitest related` (as the flags they equal); `vitest bench` runs no test.
fn vitest(w: &[String]) -> Option<TestCmd> {
    let with = |flag: &str| [vec![flag.to_owned()], w[2..].to_vec()].concat();
    match w.get(1).map(String::as_str) {
        Some("bench") => None,
        Some("list") => cmd("vitest", "js", &JS, &with("--listTests")),
        Some("related") => cmd("vitest", "js", &JS, &with("--findRelatedTests")),
        _ => cmd("vitest", "js", &JS, &w[1..]),
    }
}

/// `node …` (or `nodejs`, `tsx`): a test script run directly, a runner's own entry point, or
/// `node --test`.
fn node(w: &[String]) -> Option<TestCmd> {
    // `node node_modules/jest/bin/jest.js`, `node --experimental-vm-modules .../jest`:
    // the runner's own entry point.
    // Node's own options that take a value (`--require ./setup.js`): the value is not
    // the script.
    const VALUED: &[&str] = &[
        "-r",
        "--require",
        "--import",
        "--loader",
        "--experimental-loader",
        "--env-file",
        "-C",
        "--conditions",
        "--test-name-pattern",
        "--test-reporter",
        "--test-reporter-destination",
        "--test-concurrency",
        "--test-shard",
        "--test-skip-pattern",
    ];
    let mut script = None;
    let mut k = 1;
    while k < w.len() {
        if !is_flag(&w[k]) {
            script = Some(k);
            break;
        }
        k += if VALUED.contains(&w[k].as_str()) {
            2
        } else {
            1
        };
    }
    if let Some(k) = script {
        let path = w[k].as_str();
        // `node test/run.js`, `node test`: a test script run directly.
        let direct = !w[1..k]
            .iter()
            .any(|a| a == "--test" || a.starts_with("--test="));
        if direct && is_testish(path) && !path.contains('$') {
            return cmd(format!("node {path}"), "js", &JS, &w[k + 1..]);
        }
        for runner in ["jest", "vitest", "mocha"] {
            let installed = path.contains(&format!("node_modules/{runner}/"))
                || path.contains(&format!("node_modules/.bin/{runner}"));
            if installed {
                return cmd(runner, "js", &JS, &w[k + 1..]);
            }
        }
    }
    let k = w
        .iter()
        .position(|a| a == "--test" || a.starts_with("--test="))?;
    let mut args: Vec<String> = w[1..k].to_vec();
    args.extend_from_slice(&w[k + 1..]);
    cmd("node --test", "js", &JS, &args)
}

/// `make test`, `just check`, …: the first target that names tests, with the flags.
fn make(name: &str, rest: &[String]) -> Option<TestCmd> {
    let mut args = Vec::new();
    let mut targets = Vec::new();
    let mut k = 0;
    while let Some(a) = rest.get(k) {
        if is_flag(a) {
            args.push(a.clone());
            if MAKE.values.contains(&a.as_str()) {
                if let Some(v) = rest.get(k + 1) {
                    args.push(v.clone());
                }
                k += 1;
            }
        } else if !a.contains('=') && targets.is_empty() || is_testish(a) {
            targets.push(a.clone());
        } else {
            args.push(a.clone());
        }
        k += 1;
    }
    let test = targets
        .iter()
        .find(|t| is_testish(t) || t.starts_with("check") || *t == "ci" || *t == "coverage")?;
    cmd(
        format!("{} {test}", if name == "gmake" { "make" } else { name }),
        "make",
        &MAKE,
        &args,
    )
}

/// `mvn` with a goal that runs the tests (`test`, `verify`, `install`, …, `surefire:test`).
fn maven(args: &[String]) -> Option<TestCmd> {
    const GOALS: [&str; 6] = [
        "test",
        "verify",
        "install",
        "package",
        "integration-test",
        "deploy",
    ];
    args.iter()
        .any(|a| GOALS.contains(&a.as_str()) || a.ends_with(":test"))
        .then_some(())?;
    cmd("mvn", "other", &OTHER, args)
}

/// `./scripts/test.sh`, `ci/run-tests.ps1`: a file the project runs its tests with, by name.
fn test_script(path: &str, args: &[String]) -> Option<TestCmd> {
    let file = path.contains('/')
        || [".sh", ".bash", ".ps1", ".py", ".cmd", ".bat"]
            .iter()
            .any(|e| path.ends_with(e));
    (file && is_testish(basename(path)) && !path.contains('$')).then_some(())?;
    cmd(path.to_owned(), "script", &OTHER, args)
}

fn python(w: &[String]) -> Option<TestCmd> {
    let mut k = 0;
    while let Some(a) = w.get(k) {
        match a.as_str() {
            "-m" => {
                let module = w.get(k + 1)?;
                let rest = &w[k + 2..];
                return match module.as_str() {
                    "pytest" | "py.test" => cmd("pytest", "pytest", &PYTEST, rest),
                    "unittest" => cmd("unittest", "pytest", &UNITTEST, rest),
                    "tox" => cmd("tox", "tox", &TOX, rest),
                    "nox" => cmd("nox", "nox", &NOX, rest),
                    "coverage" if rest.first().map(String::as_str) == Some("run") => {
                        let r = skip_flags_until_m(&rest[1..]);
                        (r.first().map(String::as_str) == Some("-m")).then_some(())?;
                        python(r)
                    }
                    _ => None,
                };
            }
            "-X" | "-W" => k += 2,
            a if is_flag(a) => k += 1,
            script => {
                let base = basename(script);
                let rest = &w[k + 1..];
                return match base {
                    "manage.py" if rest.first().map(String::as_str) == Some("test") => {
                        cmd("manage.py test", "pytest", &OTHER, &rest[1..])
                    }
                    // A project's own test script: `python run_tests.py`, `python ci/test.py`.
                    b if is_testish(b) => cmd(script.to_owned(), "script", &OTHER, rest),
                    "setup.py" if rest.first().map(String::as_str) == Some("test") => {
                        cmd("setup.py test", "pytest", &OTHER, &rest[1..])
                    }
                    _ => None,
                };
            }
        }
    }
    None
}

fn cargo(w: &[String]) -> Option<TestCmd> {
    let mut k = 0;
    // `+toolchain` and global options before the subcommand.
    while let Some(a) = w.get(k) {
        if a.starts_with('+') {
            k += 1;
        } else if ["--color", "-C", "--config", "-Z", "--manifest-path"].contains(&a.as_str()) {
            k += 2;
        } else if is_flag(a) {
            k += 1;
        } else {
            break;
        }
    }
    let sub = w.get(k)?.as_str();
    let rest = &w[k + 1..];
    let first = rest.first().map(String::as_str);
    match sub {
        "test" | "t" | "tarpaulin" => cmd("cargo test", "cargo", &CARGO, rest),
        "nextest" if matches!(first, Some("run" | "r")) => {
            cmd("cargo nextest run", "cargo", &CARGO, &rest[1..])
        }
        "llvm-cov" => match first {
            Some("report" | "clean" | "show-env" | "run") => None,
            Some("nextest") => cmd("cargo nextest run", "cargo", &CARGO, &rest[1..]),
            Some("test") => cmd("cargo test", "cargo", &CARGO, &rest[1..]),
            _ => cmd("cargo test", "cargo", &CARGO, rest),
        },
        "miri" | "insta" | "careful" => {
            let mut v = vec!["cargo".to_owned()];
            v.extend_from_slice(rest);
            recognise(&v)
        }
        // cargo-make and xtask tasks named like tests.
        "make" | "xtask" => {
            let (task, args) = rest.split_first()?;
            is_testish(task).then_some(())?;
            cmd(format!("cargo {sub} {task}"), "cargo", &MAKE, args)
        }
        "hack" => {
            // `cargo hack [--each-feature ...] test ...`: hack's options, then the subcommand.
            let j = rest.iter().position(|a| a == "test" || a == "nextest")?;
            let mut v = vec!["cargo".to_owned()];
            v.extend_from_slice(&rest[j..]);
            recognise(&v)
        }
        _ => None,
    }
}

/// `npm test`, `npm run test:unit`, `pnpm --filter x test`, `yarn workspace a test`, `bun run test`.
fn script_runner(pm: &str, w: &[String]) -> Option<TestCmd> {
    let mut pre: Vec<String> = Vec::new();
    let mut k = 0;
    while let Some(a) = w.get(k) {
        if !is_flag(a) {
            break;
        }
        pre.push(a.clone());
        if SCRIPT.values.contains(&a.as_str()) {
            if let Some(v) = w.get(k + 1) {
                pre.push(v.clone());
            }
            k += 1;
        }
        k += 1;
    }
    let sub = w.get(k)?.as_str();
    let after = &w[k + 1..];
    if pm != "npm"
        && !matches!(
            sub,
            "test" | "t" | "tst" | "run" | "run-script" | "workspace" | "npm"
        )
    {
        // `yarn jest`, `pnpm vitest run`: the package manager runs a binary.
        if let Some(mut c) = recognise(&w[k..]) {
            let mut args = pre;
            args.extend(c.args);
            c.args = args;
            return Some(c);
        }
    }
    let (script, rest): (&str, &[String]) = match sub {
        "test" | "t" | "tst" => ("test", after),
        "run" | "run-script" | "rum" | "urn" => {
            // `pnpm run -r test`: options may come before the script name too.
            let k = after.iter().position(|a| !is_flag(a))?;
            for a in &after[..k] {
                pre.push(a.clone());
            }
            let (s, r) = after[k..].split_first()?;
            (s.as_str(), r)
        }
        "workspace" if pm == "yarn" => {
            // `yarn workspace <name> test`
            let (ws, r) = after.split_first()?;
            pre.push("--workspace".into());
            pre.push(ws.clone());
            let inner = script_runner(pm, r)?;
            let mut args = pre;
            args.extend(inner.args);
            return cmd(inner.tool, "js", &SCRIPT, &args);
        }
        s if pm != "npm" && is_testish(s) => (s, after),
        _ => return None,
    };
    if !is_testish(script) {
        return None;
    }
    let mut args = pre;
    let rest: Vec<String> = rest.iter().filter(|a| *a != "--").cloned().collect();
    if !rest.is_empty() {
        args.push("--".into());
        args.extend(rest);
    }
    cmd(format!("script {script}"), "js", &SCRIPT, &args)
}
