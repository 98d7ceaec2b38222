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
//!
//! # Submodules
//! - `specs`: each tool's [`Spec`]: flags that take values, aliases, rules, positionals;
//! - `identify`: recognising a test command through its wrappers ([`identify`]);
//! - `args`: parsing arguments by a spec and comparing two versions ([`compare_args`]);
//! - `env`: the environment variables runners read ([`env_changes`], `RUSTFLAGS`);
//! - [`runs`]: every test command a script runs, and base and head runs compared (shared by the
//!   CI rules of [`crate::ci`] and the script rules of [`crate::config`]).
//!
//! Pure over text, never panics; shell scripts are read by [`crate::shell`].

mod args;
mod env;
mod identify;
pub mod runs;
mod specs;

pub use args::compare_args;
pub use env::{env_changes, rustflags_changes};
pub use identify::{TestCmd, identify};
pub use specs::{JS, PYTEST};

/// How a change weakens a test run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cat {
    /// Fewer tests run.
    Narrowed,
    /// A failure no longer fails the run.
    CannotFail,
    /// No test runs.
    NeverRuns,
}

/// One weakening, in words.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Change {
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
pub enum Mode {
    Ci,
    Config,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
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
pub enum Pos {
    Paths,
    GoPkgs,
    Ignore,
}

/// How one tool's arguments are read.
#[derive(Debug)]
pub struct Spec {
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

#[cfg(test)]
mod tests;
