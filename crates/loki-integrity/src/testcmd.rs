//! Test commands: which shell commands run tests (by their command words), and how a change to a
//! test command's arguments or environment changes what it proves.
//!
//! # Recognising a test command
//! [`identify`] looks through wrappers (`env`, `time`, `timeout`, `xvfb-run`, `sudo`, `uv run`,
//! `poetry run`, `pdm run`, `pipenv run`, `hatch run`, `conda run`, `npx`, `pnpm exec`,
//! `coverage run -m`, `python -m`) and recognises `cargo test` / `nextest run` / `llvm-cov` /
//! `tarpaulin` / `hack` / `miri` / `insta test`, `pytest`, `python -m unittest`, `tox`, `nox`,
//! `go test`, `gotestsum`, `npm|pnpm|yarn|bun test` and `run test*` scripts, `jest`, `vitest`,
//! `mocha`, `node --test`, `bun test`, `deno test`, `make|just|task test*|check*`, `dotnet test`,
//! `mvn`, `gradle`, `ctest`, `bazel test`, `rspec`, `phpunit`.
//!
//! # Comparing two versions of one
//! Arguments are parsed per tool ([`Spec`]: which flags take values, aliases, what follows `--`)
//! into flags and positionals, then compared by what each flag *means* ([`Rule`]):
//! - `Filter` (`-k`, `--skip`, `-run`, `-E`, `-t`, `--exclude`, `--deselect`, `--ignore`, ...): a
//!   value the base did not pass narrows the run;
//! - `Select` groups (`-p`, `--lib`/`--bins`/`--test`, `tox -e`, `--filter`): a non-empty head
//!   selection that does not contain the base's (empty = everything) narrows it;
//! - `Required` (`--workspace`, `--all-features`, `--features`, `-race`, `-tags`,
//!   `--doctest-modules`): a value the head dropped narrows it;
//! - `NoRun` (`--no-run`, `--collect-only`, `--list`, `-n`): nothing runs; `Unfailing`
//!   (`--passWithNoTests`, `-u`, `--if-present`, `-i`, `-DskipTests`): it cannot fail;
//!   `Retries` (`--retries`, `--reruns`); `StopsEarly` (`-x`, `--maxfail`, `bail`) only where the
//!   judge's own runs read the options (test configuration, not CI); `Preload` (`-p plugin`,
//!   `--require`) loads code into the run;
//! - positionals: test paths and name filters (`Paths`: adding some where there were none, or
//!   dropping one that no head path covers, narrows) or Go packages (`GoPkgs`: none means `.`).
//!
//! Flags without a rule (`-v`, `-q`, `--tb`, `-n auto`, `--color`, `--release`, `--locked`, ...)
//! change nothing. Words that are expanded at run time (`$ARGS`, `${{ matrix.x }}`) are compared
//! as they are written and otherwise ignored. [`env_changes`] compares the variables a runner reads
//! (`PYTEST_ADDOPTS`, `GOFLAGS`, `NODE_OPTIONS`, `RUSTFLAGS`, `INSTA_UPDATE`, `TOXENV`, ...).

use std::collections::{BTreeMap, BTreeSet};

use super::shell::{basename, split_words};

/// How a change weakens a test run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Cat {
    /// Fewer tests run.
    Narrowed,
    /// A failure no longer fails the run.
    CannotFail,
    /// No test runs.
    NeverRuns,
}

/// One weakening, in words.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Change {
    pub cat: Cat,
    pub text: String,
}

impl Change {
    fn new(cat: Cat, text: impl Into<String>) -> Change {
        Change {
            cat,
            text: text.into(),
        }
    }
}

/// Where a command runs: CI (its exit status is what counts) or the judge's own runs through test
/// configuration (where stopping early also hides tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Ci,
    Config,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rule {
    Filter,
    /// A filter only with one of these values (`--run-ignored only`).
    FilterIf(&'static [&'static str]),
    Select(&'static str),
    Required,
    NoRun,
    Unfailing,
    UnfailingIf(&'static [&'static str]),
    Retries,
    StopsEarly,
    Preload,
    /// `pytest -p`: `no:x` drops plugin x (a finding for the plugins that collect or run tests),
    /// anything else loads a plugin.
    PytestPlugin,
    /// `pytest -o key=value`: overrides an ini key.
    IniOverride,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Pos {
    Paths,
    GoPkgs,
    Ignore,
}

/// How one tool's arguments are read.
#[derive(Debug)]
pub(crate) struct Spec {
    pub name: &'static str,
    /// Flags that take the next word as their value.
    pub values: &'static [&'static str],
    pub aliases: &'static [(&'static str, &'static str)],
    pub rules: &'static [(&'static str, Rule)],
    pub pos: Pos,
    /// How the words after `--` are read.
    pub sub: Option<&'static Spec>,
    /// `-run`, `-DskipTests`: one dash, long names, no bundling.
    pub single_dash_long: bool,
    /// Leading positionals that are subcommands, not filters (`vitest run`).
    pub subcommands: &'static [&'static str],
}

use Rule::*;

const TARGETS: Rule = Select("targets");
const PACKAGES: Rule = Select("packages");

#[rustfmt::skip]
static LIBTEST: Spec = Spec {
    name: "libtest",
    values: &[
        "--skip", "--test-threads", "--format", "--color", "-Z", "--logfile", "--shuffle-seed",
    ],
    aliases: &[],
    rules: &[
        ("--skip", Filter),
        ("--exact", Filter),
        ("--ignored", Filter),
        ("--include-ignored", Required),
        ("--list", NoRun),
    ],
    pos: Pos::Paths,
    sub: None,
    single_dash_long: false,
    subcommands: &[],
};

#[rustfmt::skip]
const CARGO_VALUES: &[&str] = &[
    "-p", "--package", "--exclude", "--bin", "--test", "--example", "--bench", "--features",
    "--target", "--target-dir", "--manifest-path", "-j", "--jobs", "--profile", "--color",
    "--message-format", "--config", "-Z", "--lockfile-path", "--cargo-profile", "-E",
    "--filterset", "--filter-expr", "--partition", "--retries", "--test-threads", "--run-ignored",
    "--no-tests", "--archive-file", "--workspace-remap", "--status-level", "--final-status-level",
    "-P", "--tool-config-file", "--exclude-features", "--depth", "--include-features",
    "--output-path", "--codecov", "--lcov", "--out", "-o", "--fail-under", "--skip",
];

const CARGO_ALIASES: &[(&str, &str)] = &[
    ("--all", "--workspace"),
    ("--package", "-p"),
    ("-F", "--features"),
    ("--filterset", "-E"),
    ("--filter-expr", "-E"),
    ("--profile", "-P"),
];

const CARGO_RULES: &[(&str, Rule)] = &[
    ("-p", PACKAGES),
    ("--workspace", Required),
    ("--exclude", Filter),
    ("--lib", TARGETS),
    ("--bins", TARGETS),
    ("--bin", TARGETS),
    ("--tests", TARGETS),
    ("--test", TARGETS),
    ("--examples", TARGETS),
    ("--example", TARGETS),
    ("--benches", TARGETS),
    ("--bench", TARGETS),
    ("--doc", TARGETS),
    ("--all-targets", TARGETS),
    ("--all-features", Required),
    ("--features", Required),
    ("--no-default-features", Filter),
    ("--no-run", NoRun),
    ("-E", Filter),
    ("--skip", Filter),
    ("--exact", Filter),
    ("--partition", Filter),
    ("--run-ignored", FilterIf(&["only", "ignored-only"])),
    ("--retries", Retries),
    ("--no-tests", UnfailingIf(&["pass", "warn"])),
    // cargo insta: accepting snapshots rewrites the expectation to what the code does.
    ("--accept", Unfailing),
    ("--accept-unseen", Unfailing),
    ("--force-update-snapshots", Unfailing),
];

static CARGO: Spec = Spec {
    name: "cargo test",
    values: CARGO_VALUES,
    aliases: CARGO_ALIASES,
    rules: CARGO_RULES,
    pos: Pos::Paths,
    sub: Some(&LIBTEST),
    single_dash_long: false,
    subcommands: &[],
};

#[rustfmt::skip]
pub(crate) static PYTEST: Spec = Spec {
    name: "pytest",
    values: &[
        "-k", "-m", "--deselect", "--ignore", "--ignore-glob", "-p", "-c", "--config-file",
        "--rootdir", "--confcutdir", "--maxfail", "--tb", "-r", "--durations", "--durations-min",
        "--junitxml", "--junit-xml", "--junit-prefix", "-n", "--numprocesses", "--dist", "--cov",
        "--cov-report", "--cov-config", "--cov-fail-under", "--timeout", "--basetemp",
        "--log-level", "--log-cli-level", "--log-file", "--log-format", "--log-date-format", "-W",
        "--pythonwarnings", "--import-mode", "--doctest-glob", "--reruns", "--reruns-delay",
        "--count", "-o", "--override-ini", "--capture", "--color", "--code-highlight", "--assert",
        "--show-capture", "--tx", "--rsyncdir", "--max-worker-restart", "--randomly-seed",
        "--inline-snapshot", "--timeout-method", "--html", "--json-report-file", "--splits",
        "--group", "--shard-id", "--num-shards", "--lfnf", "--last-failed-no-failures",
        "--deselect-file",
    ],
    aliases: &[
        ("--collect-only", "--co"),
        ("--exitfirst", "-x"),
        ("--last-failed", "--lf"),
        ("--stepwise", "--sw"),
        ("--config-file", "-c"),
        ("--override-ini", "-o"),
        ("--junit-xml", "--junitxml"),
        ("--numprocesses", "-n"),
        ("--version", "-V"),
        ("--help", "-h"),
    ],
    rules: &[
        ("-k", Filter),
        ("-m", Filter),
        ("--deselect", Filter),
        ("--ignore", Filter),
        ("--ignore-glob", Filter),
        ("--lf", Filter),
        ("--sw", Filter),
        ("--sw-skip", Filter),
        ("--co", NoRun),
        ("--setup-only", NoRun),
        ("--setup-plan", NoRun),
        ("--fixtures", NoRun),
        ("--fixtures-per-test", NoRun),
        ("--markers", NoRun),
        ("-V", NoRun),
        ("-h", NoRun),
        ("-p", PytestPlugin),
        ("-o", IniOverride),
        ("-c", Filter),
        ("--rootdir", Filter),
        ("--pyargs", Filter),
        ("--continue-on-collection-errors", Unfailing),
        ("--snapshot-update", Unfailing),
        ("--force-regen", Unfailing),
        (
            "--inline-snapshot",
            UnfailingIf(&["fix", "create", "update", "review"]),
        ),
        ("--reruns", Retries),
        ("--doctest-modules", Required),
        ("--doctest-glob", Required),
        ("-x", StopsEarly),
        ("--maxfail", StopsEarly),
        ("--splits", Filter),
        ("--group", Filter),
        ("--shard-id", Filter),
        ("--deselect-file", Filter),
    ],
    pos: Pos::Paths,
    sub: None,
    single_dash_long: false,
    subcommands: &[],
};

#[rustfmt::skip]
static UNITTEST: Spec = Spec {
    name: "unittest",
    values: &[
        "-k", "-s", "-p", "-t", "--start-directory", "--pattern", "--top-level-directory",
    ],
    aliases: &[
        ("--start-directory", "-s"),
        ("--pattern", "-p"),
        ("--top-level-directory", "-t"),
    ],
    rules: &[("-k", Filter), ("-s", Filter), ("-p", Filter)],
    pos: Pos::Paths,
    sub: None,
    single_dash_long: false,
    subcommands: &["discover"],
};

#[rustfmt::skip]
static TOX: Spec = Spec {
    name: "tox",
    values: &[
        "-e", "--env", "-c", "--conf", "-f", "--factor", "-m", "--labels", "-x", "--override",
        "--workdir", "--root", "-p", "--parallel", "--skip-env", "--installpkg", "--hashseed",
        "--result-json", "-o",
    ],
    aliases: &[
        ("--env", "-e"),
        ("--labels", "-m"),
        ("--factor", "-f"),
        ("--conf", "-c"),
    ],
    rules: &[
        ("-e", Select("envs")),
        ("-m", Select("envs")),
        ("-f", Select("envs")),
        ("--skip-env", Filter),
        ("-c", Filter),
        (
            "--skip-missing-interpreters",
            UnfailingIf(&["", "true", "config"]),
        ),
    ],
    pos: Pos::Ignore,
    sub: Some(&PYTEST),
    single_dash_long: false,
    subcommands: &[],
};

#[rustfmt::skip]
static NOX: Spec = Spec {
    name: "nox",
    values: &[
        "-s", "--session", "--sessions", "-k", "-t", "--tags", "-p", "--python", "-f",
        "--noxfile", "--envdir", "--default-venv-backend", "--force-venv-backend", "-db", "-fb",
    ],
    aliases: &[
        ("--session", "-s"),
        ("--sessions", "-s"),
        ("-e", "-s"),
        ("--tags", "-t"),
        ("--python", "-p"),
    ],
    rules: &[
        ("-s", Select("sessions")),
        ("-k", Filter),
        ("-t", Select("tags")),
        ("-p", Select("pythons")),
        ("--no-error-on-missing-interpreters", Unfailing),
    ],
    pos: Pos::Ignore,
    sub: Some(&PYTEST),
    single_dash_long: false,
    subcommands: &[],
};

#[rustfmt::skip]
static GO: Spec = Spec {
    name: "go test",
    values: &[
        "-run", "-skip", "-bench", "-benchtime", "-count", "-cpu", "-parallel", "-timeout",
        "-tags", "-coverprofile", "-covermode", "-coverpkg", "-o", "-p", "-ldflags", "-gcflags",
        "-asmflags", "-exec", "-list", "-shuffle", "-vet", "-mod", "-modfile", "-C", "-overlay",
        "-pkgdir", "-toolexec", "-blockprofile", "-cpuprofile", "-memprofile", "-mutexprofile",
        "-outputdir", "-trace", "-fuzz", "-fuzztime",
    ],
    aliases: &[],
    rules: &[
        ("-run", Filter),
        ("-skip", Filter),
        ("-short", Filter),
        ("-list", NoRun),
        ("-c", NoRun),
        ("-tags", Required),
        ("-race", Required),
        ("-exec", Preload),
        ("-toolexec", Preload),
        ("-overlay", Preload),
    ],
    pos: Pos::GoPkgs,
    sub: None,
    single_dash_long: true,
    subcommands: &[],
};

#[rustfmt::skip]
static GOTESTSUM: Spec = Spec {
    name: "gotestsum",
    values: &[
        "--format", "-f", "--junitfile", "--jsonfile", "--packages", "--rerun-fails",
        "--rerun-fails-max-failures", "--post-run-command", "--raw-command", "--watch",
    ],
    aliases: &[],
    rules: &[("--rerun-fails", Retries), ("--post-run-command", Preload)],
    pos: Pos::Ignore,
    sub: Some(&GO),
    single_dash_long: false,
    subcommands: &[],
};

#[rustfmt::skip]
const JS_VALUES: &[&str] = &[
    "-t", "--testNamePattern", "--testPathPattern", "--testPathPatterns",
    "--testPathIgnorePatterns", "-c", "--config", "--shard", "--selectProjects",
    "--ignoreProjects", "--reporters", "--reporter", "--maxWorkers", "-w", "--testTimeout",
    "--coverageReporters", "--outputFile", "--rootDir", "--roots", "--env", "--testEnvironment",
    "--seed", "--changedSince", "--testMatch", "--testRegex", "--exclude", "--project", "--root",
    "-r", "--dir", "--pool", "--environment", "--minWorkers", "--retry", "--bail", "--mode",
    "--changed", "--test-name-pattern", "--test-skip-pattern", "--test-shard", "--test-reporter",
    "--test-reporter-destination", "--require", "--import", "--loader", "--experimental-loader",
    "--test-concurrency", "--test-timeout", "-g", "--grep", "-f", "--fgrep", "--retries",
    "--spec", "--timeout", "--slow", "--ui", "--filter", "--ignore", "--testRunner",
    "--setupFiles", "--setupFilesAfterEnv", "--globalSetup", "--workspace", "--inspect-brk",
    "--rerun-each", "--preload", "--sequence.seed", "--typecheck.include",
];

const JS_RULES: &[(&str, Rule)] = &[
    ("-t", Filter),
    ("--testPathPattern", Filter),
    ("--testPathPatterns", Filter),
    ("--testPathIgnorePatterns", Filter),
    ("--onlyChanged", Filter),
    ("--changedSince", Filter),
    ("--lastCommit", Filter),
    ("--findRelatedTests", Filter),
    ("--onlyFailures", Filter),
    ("--shard", Filter),
    ("--selectProjects", Filter),
    ("--ignoreProjects", Filter),
    ("--testMatch", Filter),
    ("--testRegex", Filter),
    ("--roots", Filter),
    ("--rootDir", Filter),
    ("-c", Filter),
    ("--testRunner", Preload),
    ("--setupFiles", Preload),
    ("--setupFilesAfterEnv", Preload),
    ("--globalSetup", Preload),
    ("--passWithNoTests", Unfailing),
    ("--listTests", NoRun),
    ("--showConfig", NoRun),
    ("-u", Unfailing),
    ("--exclude", Filter),
    ("--project", Select("projects")),
    ("--changed", Filter),
    ("--root", Filter),
    ("--dir", Filter),
    ("--retry", Retries),
    ("--allowOnly", Filter),
    ("--dangerouslyIgnoreUnhandledErrors", Unfailing),
    ("--test-name-pattern", Filter),
    ("--test-skip-pattern", Filter),
    ("--test-only", Filter),
    ("--test-shard", Filter),
    ("--require", Preload),
    ("--import", Preload),
    ("--loader", Preload),
    ("--experimental-loader", Preload),
    ("--preload", Preload),
    ("-g", Filter),
    ("-f", Filter),
    ("--invert", Filter),
    ("--retries", Retries),
    ("--only", Filter),
    ("--filter", Filter),
    ("--ignore", Filter),
    ("--no-run", NoRun),
];

const JS_ALIASES: &[(&str, &str)] = &[
    ("--testNamePattern", "-t"),
    ("--updateSnapshot", "-u"),
    ("--update", "-u"),
    ("--update-snapshots", "-u"),
    ("--config", "-c"),
    ("-o", "--onlyChanged"),
    ("--grep", "-g"),
    ("--fgrep", "-f"),
    ("-r", "--require"),
    ("--test-name-pattern", "-t"),
    ("--experimental-test-only", "--test-only"),
];

/// jest, vitest, mocha, node --test, bun test, deno test: one table, since a `test` script may
/// hold any of them and their selection flags rarely clash.
pub(crate) static JS: Spec = Spec {
    name: "js",
    values: JS_VALUES,
    aliases: JS_ALIASES,
    rules: JS_RULES,
    pos: Pos::Paths,
    sub: None,
    single_dash_long: false,
    subcommands: &["run", "watch", "dev", "test", "start"],
};

/// A package manager running a `test*` script: its own selection flags, the script's arguments
/// after the script name read as [`JS`].
#[rustfmt::skip]
static SCRIPT: Spec = Spec {
    name: "script",
    values: &[
        "--filter", "-F", "--workspace", "-w", "--prefix", "-C", "--dir", "--cwd", "--loglevel",
        "--filter-prod", "--reporter", "--workspace-concurrency", "--cwd",
    ],
    aliases: &[
        ("-F", "--filter"),
        ("--filter-prod", "--filter"),
        ("-w", "--workspace"),
    ],
    rules: &[
        ("--filter", PACKAGES),
        ("--workspace", PACKAGES),
        ("--workspaces", Required),
        ("-ws", Required),
        ("-r", Required),
        ("--recursive", Required),
        ("--if-present", Unfailing),
        ("--affected", Filter),
    ],
    pos: Pos::Ignore,
    sub: Some(&JS),
    single_dash_long: false,
    subcommands: &[],
};

#[rustfmt::skip]
static MAKE: Spec = Spec {
    name: "make",
    values: &[
        "-C", "-f", "--file", "--makefile", "-j", "--jobs", "-l", "-o", "-W", "-I", "--directory",
        "--justfile", "-d", "--working-directory", "--set", "-t", "--taskfile",
    ],
    aliases: &[
        ("--ignore-errors", "-i"),
        ("--dry-run", "-n"),
        ("--just-print", "-n"),
        ("--recon", "-n"),
        ("--question", "-q"),
        ("--touch", "--make-touch"),
    ],
    rules: &[
        ("-i", Unfailing),
        ("-n", NoRun),
        ("-q", NoRun),
        ("--make-touch", NoRun),
    ],
    pos: Pos::Ignore,
    sub: None,
    single_dash_long: false,
    subcommands: &[],
};

#[rustfmt::skip]
static OTHER: Spec = Spec {
    name: "other",
    values: &[
        "--filter", "-R", "-E", "-L", "-LE", "--tests", "-x", "--exclude-task", "-pl",
        "--projects", "-e", "--example", "--tag", "--group", "--exclude-group", "--testsuite",
        "--test_filter", "--test_tag_filters", "--test_lang_filters", "--only", "--exclude",
        "--skip", "-t", "--test", "--logger", "--results-directory", "-c", "--configuration",
        "-f", "--framework",
    ],
    aliases: &[
        ("--exclude-task", "-x"),
        ("--projects", "-pl"),
        ("--example", "-e"),
        ("--tag", "-t"),
    ],
    rules: &[
        ("--filter", Filter),
        ("-R", Filter),
        ("-E", Filter),
        ("-L", Filter),
        ("-LE", Filter),
        ("--tests", Filter),
        ("-x", Filter),
        ("-pl", PACKAGES),
        ("-e", Filter),
        ("-t", Filter),
        ("--group", Filter),
        ("--exclude-group", Filter),
        ("--testsuite", Filter),
        ("--test_filter", Filter),
        ("--test_tag_filters", Filter),
        ("--only", Filter),
        ("--exclude", Filter),
        ("--skip", Filter),
        ("--dry-run", NoRun),
        ("-N", NoRun),
        ("--list-tests", NoRun),
        ("-DskipTests", Unfailing),
        ("-Dmaven.test.skip", Unfailing),
        ("-Dmaven.test.failure.ignore", Unfailing),
        ("-DskipITs", Filter),
        ("-Dtest", Filter),
        ("-Dit.test", Filter),
        ("-Dgroups", Filter),
        ("-DexcludedGroups", Filter),
        ("--continue", Unfailing),
    ],
    pos: Pos::Paths,
    sub: None,
    single_dash_long: true,
    subcommands: &[],
};

/// A recognised test command.
#[derive(Debug, Clone)]
pub(crate) struct TestCmd {
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
    pub(crate) fn key(&self) -> String {
        format!("{} {}", self.tool, self.args.join(" "))
    }
}

fn is_flag(w: &str) -> bool {
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
pub(crate) fn identify(words: &[String], assigns: &[(String, String)]) -> Option<TestCmd> {
    let mut c = unwrap(words, assigns)?;
    c.text = words.join(" ");
    Some(c)
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
        w = match (name, next) {
            ("env", _) => {
                let mut r = skip_flags(rest, &["-u", "--unset", "-C", "--chdir", "-S"]);
                while let Some((k, v)) = r.first().and_then(|a| a.split_once('=')) {
                    env.push((k.to_owned(), v.to_owned()));
                    r = &r[1..];
                }
                r
            }
            (
                "time" | "nice" | "nohup" | "stdbuf" | "unbuffer" | "chronic" | "catchsegv"
                | "faketty" | "valgrind" | "dbus-run-session" | "ionice",
                _,
            ) => skip_flags(rest, &["-n", "-o", "-e", "-i", "-f", "-c"]),
            ("taskset" | "setarch", _) => {
                let r = skip_flags(rest, &[]);
                r.get(1..).unwrap_or(&[])
            }
            ("sudo", _) => skip_flags(
                rest,
                &["-u", "-g", "-C", "-D", "-h", "-p", "-U", "-r", "-t"],
            ),
            ("timeout", _) => {
                let r = skip_flags(rest, &["-s", "--signal", "-k", "--kill-after"]);
                r.get(1..).unwrap_or(&[])
            }
            ("xvfb-run", _) => skip_flags(
                rest,
                &[
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
                ],
            ),
            ("hatch", Some("run")) => {
                // `hatch run test:cov`: a hatch script named like a test, or a command.
                let r = skip_flags(&rest[1..], &["-e", "--env"]);
                let script = r
                    .first()
                    .filter(|s| is_testish(s) && recognise(r).is_none());
                if let Some(script) = script {
                    let mut c = cmd(format!("hatch run {script}"), "pytest", &OTHER, &r[1..])?;
                    c.env = env;
                    return Some(c);
                }
                r
            }
            ("uv" | "poetry" | "pipenv" | "pdm" | "rye", Some("run")) => skip_flags(
                &rest[1..],
                &[
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
                ],
            ),
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
            ("npx" | "bunx" | "pnpx", _) => skip_flags(rest, &["-p", "--package", "-c", "--call"]),
            // Environment and coverage wrappers of JS test commands.
            ("cross-env" | "cross-env-shell", _) => {
                let mut r = rest;
                while let Some((k, v)) = r.first().and_then(|a| a.split_once('=')) {
                    env.push((k.to_owned(), v.to_owned()));
                    r = &r[1..];
                }
                r
            }
            ("dotenv" | "env-cmd", _) => {
                skip_flags(rest, &["-e", "-f", "-c", "-v", "--file", "--environments"])
            }
            ("nyc" | "c8", _) => skip_flags(
                rest,
                &[
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
                ],
            ),
            ("npm" | "pnpm" | "yarn" | "bun", Some("exec" | "dlx" | "x")) => {
                skip_flags(&rest[1..], &["-p", "--package", "-c", "--call"])
            }
            ("coverage", Some("run")) => {
                let r = skip_flags_until_m(&rest[1..]);
                match r.first().map(String::as_str) {
                    Some("-m") => {
                        let mut v = vec!["python".to_owned()];
                        v.extend_from_slice(r);
                        return identify_known(&v, env);
                    }
                    _ => return None,
                }
            }
            _ => return identify_known(w, env),
        };
    }
    None
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
        "vitest" => match arg(1) {
            Some("bench") => None,
            Some("list") => cmd(
                "vitest",
                "js",
                &JS,
                &[vec!["--listTests".to_owned()], w[2..].to_vec()].concat(),
            ),
            Some("related") => cmd(
                "vitest",
                "js",
                &JS,
                &[vec!["--findRelatedTests".to_owned()], w[2..].to_vec()].concat(),
            ),
            _ => cmd("vitest", "js", &JS, &w[1..]),
        },
        "mocha" | "ava" | "tap" | "tape" | "jasmine" | "karma" | "playwright" | "cypress"
        | "uvu" => cmd(name, "js", &JS, &w[1..]),
        "node" | "nodejs" | "tsx" => {
            // `node node_modules/jest/bin/jest.js`, `node --experimental-vm-modules .../jest`:
            // the runner's own entry point.
            let script = w[1..].iter().position(|a| !is_flag(a)).map(|k| k + 1);
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
        "bun" if arg(1) == Some("test") => cmd("bun test", "js", &JS, &w[2..]),
        "deno" if arg(1) == Some("test") => cmd("deno test", "js", &JS, &w[2..]),
        "npm" | "pnpm" | "yarn" | "bun" => script_runner(name, &w[1..]),
        "make" | "gmake" | "just" | "task" | "mage" => {
            let rest = &w[1..];
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
            let test = targets.iter().find(|t| {
                is_testish(t) || t.starts_with("check") || *t == "ci" || *t == "coverage"
            })?;
            cmd(
                format!("{} {test}", if name == "gmake" { "make" } else { name }),
                "make",
                &MAKE,
                &args,
            )
        }
        "dotnet" if arg(1) == Some("test") => cmd("dotnet test", "other", &OTHER, &w[2..]),
        "hatch" if arg(1) == Some("test") => cmd("hatch test", "pytest", &OTHER, &w[2..]),
        "mvn" | "mvnw" => {
            let goals = [
                "test",
                "verify",
                "install",
                "package",
                "integration-test",
                "deploy",
            ];
            w[1..]
                .iter()
                .any(|a| goals.contains(&a.as_str()) || a.ends_with(":test"))
                .then_some(())?;
            cmd("mvn", "other", &OTHER, &w[1..])
        }
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

// ---------------------------------------------------------------------------------------------
// Arguments

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Parsed {
    /// Canonical flag → its values (`""` for none).
    flags: BTreeMap<String, Vec<String>>,
    pos: Vec<String>,
    sub: Option<Box<Parsed>>,
}

fn dynamic(w: &str) -> bool {
    w.contains("${{") || w.contains('$') || w.contains("{posargs")
}

fn canon<'a>(spec: &Spec, name: &'a str) -> &'a str {
    spec.aliases
        .iter()
        .find(|(a, _)| *a == name)
        .map_or(name, |(_, c)| c)
}

fn parse_args(spec: &'static Spec, args: &[String]) -> Parsed {
    let mut p = Parsed::default();
    let mut k = 0;
    let mut seen_positional = false;
    while let Some(a) = args.get(k) {
        k += 1;
        if a == "--" {
            match spec.sub {
                Some(sub) => p.sub = Some(Box::new(parse_args(sub, &args[k..]))),
                None => p
                    .pos
                    .extend(args[k..].iter().filter(|w| !dynamic(w)).cloned()),
            }
            break;
        }
        if dynamic(a) {
            continue;
        }
        if !is_flag(a) || a.parse::<f64>().is_ok() {
            if !seen_positional && spec.subcommands.contains(&a.as_str()) {
                seen_positional = true;
                continue;
            }
            seen_positional = true;
            p.pos.push(a.clone());
            continue;
        }
        let mut push = |name: &str, value: &str| {
            p.flags
                .entry(canon(spec, name).to_owned())
                .or_default()
                .push(value.to_owned());
        };
        if let Some((n, v)) = a
            .split_once('=')
            .filter(|_| a.starts_with("--") || spec.single_dash_long)
        {
            push(n, v);
            continue;
        }
        if spec.values.contains(&a.as_str()) {
            let v = args
                .get(k)
                .filter(|v| !(is_flag(v) && spec.name == "js" && a == "--bail"));
            push(a, v.map_or("", |v| v.as_str()));
            if v.is_some() {
                k += 1;
            }
            continue;
        }
        if !a.starts_with("--") && !spec.single_dash_long && a.chars().count() > 2 {
            let short: String = a.chars().take(2).collect();
            if spec.values.contains(&short.as_str()) {
                push(&short, &a[short.len()..]);
                continue;
            }
            // `-vx`: bundled boolean short flags.
            if a[1..].chars().all(|c| c.is_ascii_alphabetic()) {
                for c in a[1..].chars() {
                    push(&format!("-{c}"), "");
                }
                continue;
            }
        }
        push(a, "");
    }
    p
}

fn show_flag(name: &str, value: &str) -> String {
    if value.is_empty() {
        format!("`{name}`")
    } else if value.contains(' ') {
        format!("`{name} '{value}'`")
    } else {
        format!("`{name} {value}`")
    }
}

/// Splits Select/Required values: `--features a,b`, `-e py39,py310`.
fn items(values: &[String]) -> BTreeSet<String> {
    values
        .iter()
        .flat_map(|v| v.split([',', ' ']))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// pytest plugins whose removal stops tests being collected, run or reported.
#[rustfmt::skip]
const PYTEST_CORE_PLUGINS: &[&str] = &[
    "python", "unittest", "doctest", "nose", "skipping", "runner", "main", "terminal", "junitxml",
    "assertion", "fixtures", "warnings", "capture", "pytester", "logging", "faulthandler",
];
/// ini keys an `-o` override may set without changing which tests run or how they pass.
#[rustfmt::skip]
const HARMLESS_INI: &[&str] = &[
    "markers", "filterwarnings", "minversion", "console_output_style", "cache_dir", "log_cli",
    "log_level", "log_cli_level", "log_format", "log_date_format", "log_file", "log_file_level",
    "asyncio_mode", "asyncio_default_fixture_loop_scope", "timeout", "junit_family",
    "junit_suite_name", "junit_logging", "junit_duration_report", "required_plugins",
    "doctest_optionflags", "faulthandler_timeout", "tmp_path_retention_count",
    "tmp_path_retention_policy", "verbosity_assertions", "verbosity_test_cases",
];

fn rule_of(spec: &Spec, name: &str) -> Option<Rule> {
    spec.rules.iter().find(|(n, _)| *n == name).map(|(_, r)| *r)
}

/// What changed between two argument lists of the same tool, as weakenings.
pub(crate) fn compare_args(
    spec: &'static Spec,
    base: &[String],
    head: &[String],
    mode: Mode,
) -> Vec<Change> {
    let (b, h) = (parse_args(spec, base), parse_args(spec, head));
    let mut out = Vec::new();
    compare_parsed(spec, &b, &h, mode, &mut out);
    out
}

fn compare_parsed(spec: &'static Spec, b: &Parsed, h: &Parsed, mode: Mode, out: &mut Vec<Change>) {
    let none: Vec<String> = Vec::new();
    let mut groups: BTreeMap<&str, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
    let names: BTreeSet<&String> = b.flags.keys().chain(h.flags.keys()).collect();
    for name in names {
        let bv = b.flags.get(name).unwrap_or(&none);
        let hv = h.flags.get(name).unwrap_or(&none);
        let Some(rule) = rule_of(spec, name) else {
            continue;
        };
        let added: Vec<&String> = hv.iter().filter(|v| !bv.contains(v)).collect();
        match rule {
            Filter | FilterIf(_) => {
                for v in &added {
                    if let FilterIf(vals) = rule
                        && !vals.contains(&v.as_str())
                    {
                        continue;
                    }
                    out.push(Change::new(
                        Cat::Narrowed,
                        format!("adds {}", show_flag(name, v)),
                    ));
                }
            }
            Unfailing | UnfailingIf(_) => {
                for v in &added {
                    if let UnfailingIf(vals) = rule
                        && !vals.contains(&v.as_str())
                    {
                        continue;
                    }
                    out.push(Change::new(
                        Cat::CannotFail,
                        format!("adds {}", show_flag(name, v)),
                    ));
                }
            }
            NoRun => {
                if !hv.is_empty() && bv.is_empty() {
                    out.push(Change::new(
                        Cat::NeverRuns,
                        format!("adds {}, so no test runs", show_flag(name, "")),
                    ));
                }
            }
            Retries => {
                let n = |v: &[String]| {
                    v.iter()
                        .filter_map(|x| x.parse::<u64>().ok())
                        .max()
                        .unwrap_or(if v.is_empty() { 0 } else { 1 })
                };
                if n(hv) > n(bv) {
                    out.push(Change::new(
                        Cat::Narrowed,
                        format!(
                            "adds {}: a failure that goes away on a rerun now passes",
                            show_flag(name, hv.last().map_or("", |s| s.as_str()))
                        ),
                    ));
                }
            }
            StopsEarly => {
                if mode == Mode::Config {
                    for v in &added {
                        out.push(Change::new(
                            Cat::Narrowed,
                            format!("adds {}: the run stops at the first failures and the rest never report", show_flag(name, v)),
                        ));
                    }
                }
            }
            Preload => {
                for v in &added {
                    out.push(Change::new(
                        Cat::Narrowed,
                        format!(
                            "adds {}, which loads code into the test run",
                            show_flag(name, v)
                        ),
                    ));
                }
            }
            PytestPlugin => {
                for v in &added {
                    match v.strip_prefix("no:") {
                        Some(p) if PYTEST_CORE_PLUGINS.contains(&p) => out.push(Change::new(
                            Cat::Narrowed,
                            format!("adds `-p {v}`, which disables pytest's `{p}` plugin"),
                        )),
                        Some(_) => {}
                        None => out.push(Change::new(
                            Cat::Narrowed,
                            format!("adds `-p {v}`, which loads a plugin that can change collection and outcomes"),
                        )),
                    }
                }
            }
            IniOverride => {
                for v in &added {
                    let key = v.split_once('=').map_or(v.as_str(), |(k, _)| k).trim();
                    if !HARMLESS_INI.contains(&key) {
                        out.push(Change::new(
                            Cat::Narrowed,
                            format!(
                                "adds {}, which overrides the `{key}` setting",
                                show_flag(name, v)
                            ),
                        ));
                    }
                }
            }
            Required => {
                let (bi, hi) = (items(bv), items(hv));
                if !bv.is_empty() && hv.is_empty() {
                    out.push(Change::new(
                        Cat::Narrowed,
                        format!("drops {}", show_flag(name, &bv.join(","))),
                    ));
                } else {
                    for lost in bi.difference(&hi) {
                        out.push(Change::new(
                            Cat::Narrowed,
                            format!("drops {}", show_flag(name, lost)),
                        ));
                    }
                }
            }
            Select(group) => {
                let e = groups.entry(group).or_default();
                let show = |v: &String| {
                    if v.is_empty() {
                        name.clone()
                    } else {
                        format!("{name} {v}")
                    }
                };
                if matches!(name.as_str(), "--features" | "-e" | "-m" | "-f" | "-s" | "-t" | "-p" if spec.name != "cargo test")
                {
                    e.0.extend(items(bv).iter().map(|v| format!("{name} {v}")));
                    e.1.extend(items(hv).iter().map(|v| format!("{name} {v}")));
                } else {
                    e.0.extend(bv.iter().map(show));
                    e.1.extend(hv.iter().map(show));
                }
            }
        }
    }
    for (group, (bs, hs)) in groups {
        if hs.is_empty() || (!bs.is_empty() && bs.is_subset(&hs)) {
            continue;
        }
        let list = |s: &BTreeSet<String>| {
            s.iter()
                .map(|x| format!("`{x}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if bs.is_empty() {
            out.push(Change::new(
                Cat::Narrowed,
                format!("now selects only {} (it ran all {group})", list(&hs)),
            ));
        } else {
            let lost: BTreeSet<String> = bs.difference(&hs).cloned().collect();
            out.push(Change::new(
                Cat::Narrowed,
                format!("no longer selects {}", list(&lost)),
            ));
        }
    }
    positionals(spec.pos, &b.pos, &h.pos, out);
    match (&b.sub, &h.sub, spec.sub) {
        (None, None, _) | (_, _, None) => {}
        (bs, hs, Some(sub)) => {
            let empty = Parsed::default();
            compare_parsed(
                sub,
                bs.as_deref().unwrap_or(&empty),
                hs.as_deref().unwrap_or(&empty),
                mode,
                out,
            );
        }
    }
}

fn norm_path(p: &str) -> String {
    let p = p.strip_prefix("./").unwrap_or(p);
    let p = p.trim_end_matches('/');
    if p.is_empty() { ".".into() } else { p.into() }
}

/// Whether head path or pattern `h` covers base `b` (`tests` covers `tests/a.py`; `./...` covers
/// every package).
fn covers(h: &str, b: &str) -> bool {
    let (h, b) = (norm_path(h), norm_path(b));
    if h == b || h == "." && b != ".." {
        return true;
    }
    if h == "..." {
        return true;
    }
    if let Some(dir) = h.strip_suffix("/...") {
        let b = b.strip_suffix("/...").unwrap_or(&b);
        return b == dir || b.starts_with(&format!("{dir}/"));
    }
    // A pytest node id: `tests/a.py::test_x` is covered by `tests/a.py`.
    let b_file = b.split("::").next().unwrap_or(&b);
    b_file == h || b_file.starts_with(&format!("{h}/"))
}

fn positionals(pos: Pos, b: &[String], h: &[String], out: &mut Vec<Change>) {
    let show = |v: &[&String]| {
        v.iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match pos {
        Pos::Ignore => {}
        Pos::Paths => {
            if b.is_empty() && !h.is_empty() {
                let hs: Vec<&String> = h.iter().collect();
                out.push(Change::new(
                    Cat::Narrowed,
                    format!("now runs only {}", show(&hs)),
                ));
            } else {
                let lost: Vec<&String> = b
                    .iter()
                    .filter(|x| !h.iter().any(|y| covers(y, x)))
                    .collect();
                if !lost.is_empty() && !h.is_empty() {
                    out.push(Change::new(
                        Cat::Narrowed,
                        format!("no longer runs {}", show(&lost)),
                    ));
                }
            }
        }
        Pos::GoPkgs => {
            let dot = vec![".".to_owned()];
            let b = if b.is_empty() {
                dot.clone()
            } else {
                b.to_vec()
            };
            let h = if h.is_empty() { dot } else { h.to_vec() };
            let lost: Vec<&String> = b
                .iter()
                .filter(|x| !h.iter().any(|y| covers(y, x)))
                .collect();
            if !lost.is_empty() {
                out.push(Change::new(
                    Cat::Narrowed,
                    format!("no longer tests the packages {}", show(&lost)),
                ));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Environment

/// Variables that change how tests run, compared between a base and a head environment.
pub(crate) fn env_changes(
    b: &BTreeMap<String, String>,
    h: &BTreeMap<String, String>,
) -> Vec<Change> {
    let mut out = Vec::new();
    let get = |m: &BTreeMap<String, String>, k: &str| m.get(k).cloned().unwrap_or_default();
    let names: BTreeSet<&String> = b.keys().chain(h.keys()).collect();
    for name in names {
        let (bv, hv) = (get(b, name), get(h, name));
        if bv == hv || dynamic(&hv) {
            continue;
        }
        let words = |s: &str| split_words(s);
        let mut sub = Vec::new();
        match name.as_str() {
            "PYTEST_ADDOPTS" => sub = compare_args(&PYTEST, &words(&bv), &words(&hv), Mode::Ci),
            "GOFLAGS" => sub = compare_args(&GO, &words(&bv), &words(&hv), Mode::Ci),
            "NODE_OPTIONS" => sub = compare_args(&JS, &words(&bv), &words(&hv), Mode::Ci),
            "TOXENV" | "NOXSESSION" => {
                let (bs, hs) = (
                    items(std::slice::from_ref(&bv)),
                    items(std::slice::from_ref(&hv)),
                );
                if !hs.is_empty() && (bs.is_empty() || !bs.is_subset(&hs)) {
                    sub.push(Change::new(Cat::Narrowed, format!("selects `{hv}`")));
                }
            }
            "RUSTFLAGS" | "RUSTDOCFLAGS" | "CARGO_ENCODED_RUSTFLAGS" => {
                sub = rustflags_changes(&words(&bv), &words(&hv));
            }
            "INSTA_UPDATE" if matches!(hv.as_str(), "always" | "unseen" | "new") => {
                sub.push(Change::new(
                    Cat::CannotFail,
                    "snapshots are rewritten to what the code produces",
                ));
            }
            "INSTA_FORCE_PASS" | "UPDATE_EXPECT" | "UPDATE_SNAPSHOTS" | "SNAPSHOT_UPDATE"
            | "UPDATE_GOLDEN"
                if !hv.is_empty() && hv != "0" && hv != "false" =>
            {
                sub.push(Change::new(
                    Cat::CannotFail,
                    "expected outputs are rewritten to what the code produces",
                ));
            }
            "TRYBUILD" if hv == "overwrite" => {
                sub.push(Change::new(
                    Cat::CannotFail,
                    "expected outputs are rewritten to what the code produces",
                ));
            }
            "NEXTEST_RETRIES"
                if hv.parse::<u64>().unwrap_or(0) > bv.parse::<u64>().unwrap_or(0) =>
            {
                sub.push(Change::new(Cat::Narrowed, "failing tests are retried"));
            }
            "PYTHONPATH" | "NODE_PATH" => {
                let sep = |s: &str| {
                    s.split(':')
                        .filter(|x| !x.is_empty())
                        .map(str::to_owned)
                        .collect::<BTreeSet<_>>()
                };
                if !sep(&hv).is_subset(&sep(&bv)) {
                    sub.push(Change::new(
                        Cat::Narrowed,
                        "new import paths can shadow the modules under test",
                    ));
                }
            }
            _ => {}
        }
        for c in sub {
            out.push(Change::new(c.cat, format!("{name}: {}", c.text)));
        }
    }
    out
}

/// `--cfg` switches and turned-off runtime checks added to rustc flags.
pub(crate) fn rustflags_changes(b: &[String], h: &[String]) -> Vec<Change> {
    fn flags(w: &[String]) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut k = 0;
        while let Some(a) = w.get(k) {
            let joined = |name: &str| -> Option<String> {
                if a == name {
                    w.get(k + 1).map(|v| format!("{name} {v}"))
                } else {
                    a.strip_prefix(name)
                        .map(|v| format!("{name} {}", v.trim_start_matches('=')))
                }
            };
            if let Some(f) = joined("--cfg").or_else(|| joined("-C")) {
                if a == "--cfg" || a == "-C" {
                    k += 1;
                }
                out.insert(f);
            }
            k += 1;
        }
        out
    }
    let (bf, hf) = (flags(b), flags(h));
    let mut out = Vec::new();
    for f in hf.difference(&bf) {
        let off = |k: &str| {
            f.starts_with(&format!("-C {k}="))
                && ["off", "no", "n", "false"]
                    .iter()
                    .any(|v| f.ends_with(&format!("={v}")))
        };
        if f.starts_with("--cfg") {
            out.push(Change::new(
                Cat::Narrowed,
                format!("adds `{f}`, which switches code paths at compile time"),
            ));
        } else if off("debug-assertions") || off("overflow-checks") {
            out.push(Change::new(
                Cat::CannotFail,
                format!("adds `{f}`, which turns off runtime checks the tests rely on"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Vec<String> {
        split_words(s)
    }

    fn id(s: &str) -> Option<(String, Vec<String>)> {
        identify(&w(s), &[]).map(|c| (c.tool, c.args))
    }

    fn changes(base: &str, head: &str) -> Vec<String> {
        changes_in(base, head, Mode::Ci)
    }

    fn changes_in(base: &str, head: &str, mode: Mode) -> Vec<String> {
        let (Some(b), Some(h)) = (identify(&w(base), &[]), identify(&w(head), &[])) else {
            return vec!["not a test command".into()];
        };
        assert_eq!(b.tool, h.tool, "{base} / {head}");
        compare_args(b.spec, &b.args, &h.args, mode)
            .into_iter()
            .map(|c| c.text)
            .collect()
    }

    #[test]
    fn recognises_test_commands() {
        for (cmd, tool) in [
            ("cargo test --workspace", "cargo test"),
            ("cargo +nightly --locked test", "cargo test"),
            ("cargo nextest run --workspace", "cargo nextest run"),
            ("cargo llvm-cov --workspace --lcov", "cargo test"),
            ("cargo llvm-cov nextest", "cargo nextest run"),
            ("cargo hack --each-feature test", "cargo test"),
            ("cargo insta test", "cargo test"),
            ("pytest -q", "pytest"),
            ("python -m pytest tests", "pytest"),
            ("python3 -X dev -m pytest", "pytest"),
            ("uv run --frozen pytest", "pytest"),
            ("poetry run python -m pytest", "pytest"),
            ("coverage run -m pytest", "pytest"),
            ("timeout 600 xvfb-run -a pytest", "pytest"),
            ("env CI=1 pytest", "pytest"),
            ("tox -e py311", "tox"),
            ("nox -s tests", "nox"),
            ("go test ./...", "go test"),
            ("gotestsum -- ./...", "go test"),
            ("npm test", "script test"),
            ("npm run test:unit", "script test:unit"),
            ("pnpm --filter web test", "script test"),
            ("pnpm test:e2e", "script test:e2e"),
            ("yarn test", "script test"),
            ("yarn workspace web test", "script test"),
            ("npx vitest run", "vitest"),
            ("./node_modules/.bin/jest --ci", "jest"),
            ("node --test test/", "node --test"),
            ("make test", "make test"),
            ("cross-env NODE_ENV=test jest --ci", "jest"),
            ("nyc --reporter=lcov mocha", "mocha"),
            ("c8 node --test", "node --test"),
            ("node test/run.js", "node test/run.js"),
            ("node --expose-gc test", "node test"),
            (
                "node --experimental-vm-modules node_modules/jest/bin/jest.js",
                "jest",
            ),
            ("pnpm run -r test", "script test"),
            ("cargo make test", "cargo make test"),
            ("make ci", "make ci"),
            ("faketty cargo test -- --nocapture", "cargo test"),
            ("hatch run test:cov", "hatch run test:cov"),
            ("hatch run pytest -x", "pytest"),
            ("bats/bin/bats --tap test", "bats"),
            ("./scripts/test.sh --all", "./scripts/test.sh"),
            ("bash ci/run-tests.sh", "ci/run-tests.sh"),
            ("python tools/run_tests.py", "tools/run_tests.py"),
            ("just test-all", "just test-all"),
            ("python -m unittest discover", "unittest"),
        ] {
            assert_eq!(id(cmd).map(|(t, _)| t).as_deref(), Some(tool), "{cmd}");
        }
        for cmd in [
            "cargo build",
            "cargo nextest list",
            "npm run build",
            "echo cargo test",
            "pip install pytest",
            "python setup.py build",
            "go vet ./...",
            "vitest bench",
            "make lint",
            "node index.js",
            "npm install",
            "./scripts/build.sh",
            "bash -c 'echo hi'",
            "cat tests/data.txt",
        ] {
            assert!(id(cmd).is_none(), "{cmd}");
        }
    }

    #[test]
    fn narrowing_arguments() {
        assert_eq!(
            changes("cargo test --workspace", "cargo test --workspace --lib"),
            ["now selects only `--lib` (it ran all targets)"]
        );
        assert_eq!(
            changes("cargo test --workspace", "cargo test -p core"),
            [
                "drops `--workspace`",
                "now selects only `-p core` (it ran all packages)"
            ]
        );
        assert_eq!(
            changes("cargo test --all", "cargo test --workspace"),
            Vec::<String>::new()
        );
        assert_eq!(
            changes(
                "cargo test --workspace",
                "cargo test --workspace --exclude cli"
            ),
            ["adds `--exclude cli`"]
        );
        assert_eq!(
            changes(
                "cargo test --workspace",
                "cargo test --workspace -- --skip slow"
            ),
            ["adds `--skip slow`"]
        );
        assert_eq!(
            changes("cargo test", "cargo test parse"),
            ["now runs only `parse`"]
        );
        assert_eq!(
            changes("cargo test --all-features", "cargo test"),
            ["drops `--all-features`"]
        );
        assert_eq!(
            changes("cargo test --features a,b", "cargo test --features a"),
            ["drops `--features b`"]
        );
        assert_eq!(
            changes("cargo test", "cargo test --no-run"),
            ["adds `--no-run`, so no test runs"]
        );
        assert_eq!(
            changes("cargo nextest run", "cargo nextest run -E 'not test(slow)'"),
            ["adds `-E 'not test(slow)'`"]
        );
        assert_eq!(
            changes("cargo nextest run", "cargo nextest run --retries 3")[0]
                .split(':')
                .next(),
            Some("adds `--retries 3`")
        );
        assert_eq!(
            changes("pytest", "pytest -k 'not db'"),
            ["adds `-k 'not db'`"]
        );
        assert_eq!(
            changes("pytest -k 'not slow'", "pytest -k 'not slow'"),
            Vec::<String>::new()
        );
        assert_eq!(
            changes(
                "pytest",
                "pytest -m 'not integration' --deselect tests/a.py::t"
            ),
            [
                "adds `--deselect tests/a.py::t`",
                "adds `-m 'not integration'`"
            ]
        );
        assert_eq!(
            changes("pytest", "pytest --ignore=tests/slow"),
            ["adds `--ignore tests/slow`"]
        );
        assert_eq!(
            changes("pytest", "pytest tests/unit"),
            ["now runs only `tests/unit`"]
        );
        assert_eq!(
            changes("pytest tests/a tests/b", "pytest tests/a"),
            ["no longer runs `tests/b`"]
        );
        assert_eq!(
            changes("pytest tests/unit", "pytest tests"),
            Vec::<String>::new()
        );
        assert_eq!(
            changes("pytest", "pytest --co"),
            ["adds `--co`, so no test runs"]
        );
        assert_eq!(
            changes("pytest", "pytest -p no:doctest"),
            ["adds `-p no:doctest`, which disables pytest's `doctest` plugin"]
        );
        assert_eq!(
            changes("go test ./...", "go test ./pkg/one"),
            ["no longer tests the packages `./...`"]
        );
        assert_eq!(
            changes("go test ./...", "go test -run TestOne ./..."),
            ["adds `-run TestOne`"]
        );
        assert_eq!(
            changes("go test -race ./...", "go test ./..."),
            ["drops `-race`"]
        );
        assert_eq!(
            changes("go test ./...", "go test -short ./..."),
            ["adds `-short`"]
        );
        assert_eq!(changes("go test .", "go test ./..."), Vec::<String>::new());
        assert_eq!(
            changes("vitest run", "vitest run src/one.test.ts"),
            ["now runs only `src/one.test.ts`"]
        );
        assert_eq!(changes("jest", "jest -t adds"), ["adds `-t adds`"]);
        assert_eq!(
            changes("jest", "jest --testPathPattern=math"),
            ["adds `--testPathPattern math`"]
        );
        assert_eq!(
            changes("jest", "jest --passWithNoTests"),
            ["adds `--passWithNoTests`"]
        );
        assert_eq!(changes("vitest run", "vitest run -u"), ["adds `-u`"]);
        assert_eq!(
            changes("npm test", "npm test -- -t adds"),
            ["adds `-t adds`"]
        );
        assert_eq!(
            changes("pnpm -r test", "pnpm --filter web test"),
            [
                "drops `-r`",
                "now selects only `--filter web` (it ran all packages)"
            ]
        );
        assert_eq!(
            changes("tox", "tox -e lint"),
            ["now selects only `-e lint` (it ran all envs)"]
        );
        assert_eq!(
            changes("tox -e py39,py310", "tox -e py310"),
            ["no longer selects `-e py39`"]
        );
        assert_eq!(
            changes("tox -e py310", "tox -e py39,py310"),
            Vec::<String>::new()
        );
        assert_eq!(changes("make test", "make -i test"), ["adds `-i`"]);
        // Options that only change how results are shown or how fast they come.
        for (b, h) in [
            (
                "cargo test --workspace",
                "cargo test --workspace --locked -q --release -j 2 -- --nocapture --test-threads=1",
            ),
            (
                "pytest",
                "pytest -ra -v --tb=short --durations=10 -n auto --strict-markers -x",
            ),
            (
                "go test ./...",
                "go test -v -count=1 -timeout 10m -json ./...",
            ),
            (
                "vitest run",
                "vitest run --coverage --reporter=verbose --bail 1",
            ),
            (
                "cargo test ${{ matrix.flags }}",
                "cargo test ${{ matrix.other }}",
            ),
            ("pytest --runxfail", "pytest"),
            ("cargo test -p a", "cargo test -p a -p b"),
        ] {
            assert_eq!(changes(b, h), Vec::<String>::new(), "{b} -> {h}");
        }
        // In test configuration, stopping early hides tests from the judge.
        assert_eq!(changes_in("pytest", "pytest -x", Mode::Config).len(), 1);
    }

    #[test]
    fn environment() {
        let m = |kv: &[(&str, &str)]| {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>()
        };
        let c = env_changes(
            &m(&[]),
            &m(&[("PYTEST_ADDOPTS", "-k 'not slow'"), ("RUST_LOG", "debug")]),
        );
        assert_eq!(c.len(), 1);
        assert!(c[0].text.starts_with("PYTEST_ADDOPTS: adds `-k"), "{c:?}");
        assert_eq!(
            env_changes(&m(&[]), &m(&[("INSTA_UPDATE", "always")]))[0].cat,
            Cat::CannotFail
        );
        assert_eq!(
            env_changes(&m(&[]), &m(&[("RUSTFLAGS", "--cfg fake")])).len(),
            1
        );
        assert!(env_changes(&m(&[]), &m(&[("RUSTFLAGS", "-D warnings")])).is_empty());
        assert!(
            env_changes(
                &m(&[("RUSTFLAGS", "--cfg x")]),
                &m(&[("RUSTFLAGS", "--cfg x -D warnings")])
            )
            .is_empty()
        );
    }
}
