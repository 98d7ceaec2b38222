//! Each tool's [`Spec`]: which flags take values, their aliases, what each flag means
//! ([`Rule`]) and what its positionals are.

use super::{Pos, Rule, Spec};

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

pub(super) static CARGO: Spec = Spec {
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
pub static PYTEST: Spec = Spec {
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
pub(super) static UNITTEST: Spec = Spec {
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
pub(super) static TOX: Spec = Spec {
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
pub(super) static NOX: Spec = Spec {
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
pub(super) static GO: Spec = Spec {
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
pub(super) static GOTESTSUM: Spec = Spec {
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
pub static JS: Spec = Spec {
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
pub(super) static SCRIPT: Spec = Spec {
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
pub(super) static MAKE: Spec = Spec {
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
pub(super) static OTHER: Spec = Spec {
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
