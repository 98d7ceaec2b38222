//! Every environment variable loki reads for itself, sets for the programs it runs, or that its
//! test suite reads: one registry, each with its name and what it does.
//!
//! Code reads a variable through its entry ([`Var::get`], [`Var::get_os`], [`Var::is_on`]), never
//! with `std::env::var("LOKI_…")` of its own: a test walks the source tree and fails on such a
//! read anywhere but here, so the list stays complete. The configuration's variables
//! (`LOKI_<KEY>` for every key of [`crate::config::KEYS`], and the conventional names some keys
//! also answer to, such as `ANTHROPIC_API_KEY`) are read by the config layer from
//! [`process_vars`] all at once; [`all`] lists them after the entries here, with their key's doc.
//!
//! The environment of a *child* is never this module's business: the process runner builds it
//! (scrubbed of secrets, see `loki_process::scrub`, or the caller's own for an observed
//! command, see `loki_process::caller_env`); this module only says which names are loki's
//! own secrets ([`is_loki_secret`]).

use std::ffi::OsString;

use crate::config;

/// Who reads a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// loki itself reads it.
    Loki,
    /// loki sets it for a program it runs (a reproduction, a test runner's plugin).
    Child,
    /// Only loki's own test suite and benchmarks read it.
    Tests,
}

/// One environment variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Var {
    pub name: &'static str,
    pub scope: Scope,
    /// One line: what it does, and its default.
    pub doc: &'static str,
}

impl Var {
    /// The value when set, not empty and valid UTF-8.
    #[must_use]
    pub fn get(&self) -> Option<String> {
        std::env::var(self.name).ok().filter(|v| !v.is_empty())
    }

    /// The value when set and not empty, in any encoding (paths).
    #[must_use]
    pub fn get_os(&self) -> Option<OsString> {
        std::env::var_os(self.name).filter(|v| !v.is_empty())
    }

    /// A switch: set, and not empty, `0` or `false`.
    #[must_use]
    pub fn is_on(&self) -> bool {
        self.get_os().is_some_and(|v| v != "0" && v != "false")
    }
}

/// `$LOKI_HOME`: loki's user state.
pub const LOKI_HOME: Var = Var {
    name: "LOKI_HOME",
    scope: Scope::Loki,
    doc: "user state: keys, cache, the user config file (default ~/.loki)",
};
/// `$HOME`, for the default `~/.loki` and for the credential files a fence denies.
pub const HOME: Var = Var {
    name: "HOME",
    scope: Scope::Loki,
    doc: "the home directory: LOKI_HOME defaults to $HOME/.loki; credentials under it are fenced",
};
/// `NO_COLOR` (<https://no-color.org>).
pub const NO_COLOR: Var = Var {
    name: "NO_COLOR",
    scope: Scope::Loki,
    doc: "when set and not empty, no colour in terminal output (--color overrides it)",
};
/// A PEM signing key given directly.
pub const RECEIPT_SIGNING_KEY: Var = Var {
    name: "LOKI_RECEIPT_SIGNING_KEY",
    scope: Scope::Loki,
    doc: "an Ed25519 PKCS#8 PEM private key that signs receipts (instead of LOKI_HOME/keys)",
};
/// A PEM signing key file.
pub const RECEIPT_SIGNING_KEY_FILE: Var = Var {
    name: "LOKI_RECEIPT_SIGNING_KEY_FILE",
    scope: Scope::Loki,
    doc: "a file (mode 0600) holding the Ed25519 PEM private key that signs receipts",
};
/// Retired public keys that still verify old receipts.
pub const RECEIPT_RETIRED_PUBKEYS: Var = Var {
    name: "LOKI_RECEIPT_RETIRED_PUBKEYS",
    scope: Scope::Loki,
    doc: "comma-separated public key files of retired signing keys that `loki verify` trusts",
};
/// Diagnostics on stderr.
pub const LOG: Var = Var {
    name: "LOKI_LOG",
    scope: Scope::Loki,
    doc: "diagnostics on stderr, a tracing filter such as `info` or `loki_checks=debug` (default: off; `--verbose` shows info)",
};
/// The kill switch of `loki improve`.
pub const IMPROVE: Var = Var {
    name: "LOKI_IMPROVE",
    scope: Scope::Loki,
    doc: "`off` pauses `loki improve` and its watcher: no cycle starts, and one under way applies nothing (default: on)",
};
/// Tests of `loki improve`: the check point at which a child test process aborts (a crash).
pub const IMPROVE_ABORT_AT: Var = Var {
    name: "LOKI_IMPROVE_ABORT_AT",
    scope: Scope::Tests,
    doc: "tests: the `loki improve` check point (locked, captured, proposed, canary, applied) at which a child test process aborts, to prove crash safety",
};
/// Issue trackers (`loki owner/repo#N`, `loki issue REF`): the user's credentials and
/// endpoints, read for the fetch of the issue only, never handed to the agent.
pub const GITHUB_TOKEN: Var = Var {
    name: "GITHUB_TOKEN",
    scope: Scope::Loki,
    doc: "a GitHub token for reading issues (optional for public repositories)",
};
pub const GITHUB_API_URL: Var = Var {
    name: "LOKI_GITHUB_API_URL",
    scope: Scope::Loki,
    doc: "the GitHub REST API (default https://api.github.com; GitHub Enterprise: https://<host>/api/v3)",
};
pub const GITLAB_URL: Var = Var {
    name: "GITLAB_URL",
    scope: Scope::Loki,
    doc: "a self-hosted GitLab (default https://gitlab.com)",
};
pub const GITLAB_TOKEN: Var = Var {
    name: "GITLAB_TOKEN",
    scope: Scope::Loki,
    doc: "a GitLab token for reading issues and merge requests",
};
pub const JIRA_BASE_URL: Var = Var {
    name: "JIRA_BASE_URL",
    scope: Scope::Loki,
    doc: "the Jira site (https://<site>.atlassian.net or a self-hosted URL); with JIRA_EMAIL and JIRA_API_TOKEN",
};
pub const JIRA_EMAIL: Var = Var {
    name: "JIRA_EMAIL",
    scope: Scope::Loki,
    doc: "the Jira account's email, for JIRA_API_TOKEN",
};
pub const JIRA_API_TOKEN: Var = Var {
    name: "JIRA_API_TOKEN",
    scope: Scope::Loki,
    doc: "a Jira API token",
};
pub const LINEAR_API_KEY: Var = Var {
    name: "LINEAR_API_KEY",
    scope: Scope::Loki,
    doc: "a Linear API key for reading issues",
};
pub const LINEAR_API_URL: Var = Var {
    name: "LOKI_LINEAR_API_URL",
    scope: Scope::Loki,
    doc: "the Linear API (default https://api.linear.app)",
};
/// CI (`loki ci judge|post`): what the CI system says about the pull or merge request a job
/// runs for, and where its API is. Read by `loki ci` only; the token stays `GITHUB_TOKEN` /
/// `GITLAB_TOKEN`.
pub const GITHUB_ACTIONS: Var = Var {
    name: "GITHUB_ACTIONS",
    scope: Scope::Loki,
    doc: "`true` in GitHub Actions: `loki ci` reads the pull request from GITHUB_EVENT_PATH",
};
pub const GITHUB_EVENT_PATH: Var = Var {
    name: "GITHUB_EVENT_PATH",
    scope: Scope::Loki,
    doc: "GitHub Actions: the event's JSON file (a pull_request event names the request, its head and base)",
};
pub const ACTIONS_API_URL: Var = Var {
    name: "GITHUB_API_URL",
    scope: Scope::Loki,
    doc: "GitHub Actions: the REST API loki talks to in a job (`loki ci post`, issues, pull requests; LOKI_GITHUB_API_URL overrides it)",
};
pub const GITHUB_SERVER_URL: Var = Var {
    name: "GITHUB_SERVER_URL",
    scope: Scope::Loki,
    doc: "GitHub Actions: the web server, for the link to the job's run",
};
pub const GITHUB_RUN_ID: Var = Var {
    name: "GITHUB_RUN_ID",
    scope: Scope::Loki,
    doc: "GitHub Actions: the workflow run, for the link from the check run and the comment",
};
pub const GITHUB_OUTPUT: Var = Var {
    name: "GITHUB_OUTPUT",
    scope: Scope::Loki,
    doc: "GitHub Actions: the step's output file; `loki ci post` adds verdict, passed, receipt-sha256, comment-url",
};
pub const GITHUB_STEP_SUMMARY: Var = Var {
    name: "GITHUB_STEP_SUMMARY",
    scope: Scope::Loki,
    doc: "GitHub Actions: the job summary file; `loki ci post` appends the verdict's Markdown",
};
pub const GITLAB_CI: Var = Var {
    name: "GITLAB_CI",
    scope: Scope::Loki,
    doc: "`true` in GitLab CI: `loki ci` reads the merge request from the CI_* variables",
};
pub const CI_API_V4_URL: Var = Var {
    name: "CI_API_V4_URL",
    scope: Scope::Loki,
    doc: "GitLab CI: the REST API v4 loki talks to in a job (`loki ci post`, issues, merge requests; GITLAB_URL overrides it)",
};
pub const CI_PROJECT_PATH: Var = Var {
    name: "CI_PROJECT_PATH",
    scope: Scope::Loki,
    doc: "GitLab CI: the project (group/project) whose merge request is judged",
};
pub const CI_PROJECT_URL: Var = Var {
    name: "CI_PROJECT_URL",
    scope: Scope::Loki,
    doc: "GitLab CI: the project's web page, for the merge request's link",
};
pub const CI_MERGE_REQUEST_IID: Var = Var {
    name: "CI_MERGE_REQUEST_IID",
    scope: Scope::Loki,
    doc: "GitLab CI: the merge request of a merge request pipeline",
};
pub const CI_MERGE_REQUEST_TARGET_BRANCH_NAME: Var = Var {
    name: "CI_MERGE_REQUEST_TARGET_BRANCH_NAME",
    scope: Scope::Loki,
    doc: "GitLab CI: the branch the merge request merges into (what `loki ci judge` judges against)",
};
pub const CI_MERGE_REQUEST_SOURCE_BRANCH_SHA: Var = Var {
    name: "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA",
    scope: Scope::Loki,
    doc: "GitLab CI (merged results pipelines): the merge request's head, which the commit status is set on",
};
pub const CI_COMMIT_SHA: Var = Var {
    name: "CI_COMMIT_SHA",
    scope: Scope::Loki,
    doc: "GitLab CI: the commit the pipeline runs for (the commit status's, unless CI_MERGE_REQUEST_SOURCE_BRANCH_SHA is set)",
};
pub const CI_JOB_URL: Var = Var {
    name: "CI_JOB_URL",
    scope: Scope::Loki,
    doc: "GitLab CI: the job's page, for the link from the commit status and the note",
};
/// The seed a recorded incident ran with.
pub const SEED: Var = Var {
    name: "LOKI_SEED",
    scope: Scope::Child,
    doc: "set for a command under `loki run` and its reproduction: the seed it ran with",
};
/// The headless browser `loki run --url` drives.
pub const BROWSER: Var = Var {
    name: "LOKI_BROWSER",
    scope: Scope::Loki,
    doc: "the Chromium or Chrome binary for web page checks (`loki run --url`) [default: chromium on PATH]",
};
/// The switch of visual evidence in build runs.
pub const VISUAL_EVIDENCE: Var = Var {
    name: "LOKI_VISUAL_EVIDENCE",
    scope: Scope::Loki,
    doc: "`0` turns off the screenshots of changed web pages in build run receipts [default: on]",
};
/// Where a page check writes its screencast.
pub const PAGE_VIDEO: Var = Var {
    name: "LOKI_PAGE_VIDEO",
    scope: Scope::Child,
    doc: "set for a web page's reproduction by `loki replay --video`: the animated PNG to write",
};
/// The time limit of a reproduction script.
pub const REPRO_TIMEOUT: Var = Var {
    name: "LOKI_REPRO_TIMEOUT",
    scope: Scope::Child,
    doc: "set for repro.sh: seconds before the reproduction is stopped",
};
/// Where loki's pytest plugin writes its report.
pub const PYTEST_REPORT: Var = Var {
    name: "LOKI_PYTEST_REPORT",
    scope: Scope::Child,
    doc: "set for pytest: the file loki's result plugin writes per-test outcomes to",
};
/// `CI`: a missing test tool fails the test instead of skipping it.
pub const CI: Var = Var {
    name: "CI",
    scope: Scope::Tests,
    doc: "tests: a missing tool (go, pytest, node, agent programs) fails the test instead of skipping it",
};
/// The same switch as `CI`, for a developer machine.
pub const REQUIRE_TOOLS: Var = Var {
    name: "LOKI_REQUIRE_TOOLS",
    scope: Scope::Tests,
    doc: "tests: like CI, a missing tool fails the test instead of skipping it (scripts/test sets it)",
};
/// Where `scripts/test` installs the npm packages tests need.
pub const NPM_CACHE: Var = Var {
    name: "LOKI_NPM_CACHE",
    scope: Scope::Tests,
    doc: "tests: the npm install the JavaScript cases use (default ~/.cache/loki-test-npm)",
};
/// Where `scripts/test` installs the pinned real agent programs (`.ci/agents.pins`).
pub const AGENTS: Var = Var {
    name: "LOKI_AGENTS",
    scope: Scope::Tests,
    doc: "tests: the pinned real agent programs of the conformance suite (default ~/.cache/loki-test-agents)",
};
/// Where `scripts/test` installs the Python tools tests need.
pub const PY_TOOLS: Var = Var {
    name: "LOKI_PY_TOOLS",
    scope: Scope::Tests,
    doc: "tests: the Python tools (pytest) the Python cases use (default ~/.cache/loki-test-py)",
};
/// Where `scripts/test` installs the real MCP clients the `loki mcp` tests drive.
pub const MCP_CLIENTS: Var = Var {
    name: "LOKI_MCP_CLIENTS",
    scope: Scope::Tests,
    doc: "tests: the MCP clients (Python SDK in py/, the Inspector CLI in npm/) the loki mcp cases drive (default ~/.cache/loki-test-mcp)",
};
/// Narrows the judge corpus test to named cases.
pub const JUDGE_CASES: Var = Var {
    name: "LOKI_JUDGE_CASES",
    scope: Scope::Tests,
    doc: "tests: comma-separated names of the seal-judge cases to run (default all)",
};
/// Makes the guide's tests write the real outputs into its chapters.
pub const GUIDE_BLESS: Var = Var {
    name: "LOKI_GUIDE_BLESS",
    scope: Scope::Tests,
    doc: "tests: write what each guide command printed into docs/guide (for an author to review)",
};
/// A built `loki` binary for the heal benchmark.
pub const BENCH_BIN: Var = Var {
    name: "LOKI_BIN",
    scope: Scope::Tests,
    doc: "benchmarks: a built loki binary whose `loki run -- true` the heal benchmark also measures",
};
/// Python source whose tree the AST dump test prints.
pub const AST_DUMP: Var = Var {
    name: "LOKI_AST_DUMP",
    scope: Scope::Tests,
    doc: "tests: source text whose syntax tree loki-checks' ast dump test prints (for writing rules)",
};
/// The file name the AST dump test parses the source as.
/// Set for a workspace's integration command (`loki workspace run`).
pub const WORKSPACE: Var = Var {
    name: "LOKI_WORKSPACE",
    scope: Scope::Child,
    doc: "set for a workspace's integration command: the workspace's name (its cwd holds a checkout of each repository at its run's head)",
};
pub const AST_PATH: Var = Var {
    name: "LOKI_AST_PATH",
    scope: Scope::Tests,
    doc: "tests: the file name LOKI_AST_DUMP is parsed as, which picks the grammar (default a.py)",
};

/// Where runs ship their events (a `loki serve` URL), instead of the local instance.json.
pub const CONTROL_URL: Var = Var {
    name: "LOKI_CONTROL_URL",
    scope: Scope::Loki,
    doc: "the control plane runs ship to (default: the `loki serve` named in LOKI_HOME/control/instance.json, if it answers)",
};

/// The control plane's Bearer token: required to bind `loki serve` beyond loopback, sent by shippers.
pub const CONTROL_TOKEN: Var = Var {
    name: "LOKI_CONTROL_TOKEN",
    scope: Scope::Loki,
    doc: "the Bearer token of a control plane bound beyond loopback; `loki serve` requires it there and runs send it",
};

/// A PostgreSQL server for the control plane's store tests.
pub const TEST_POSTGRES_URL: Var = Var {
    name: "LOKI_TEST_POSTGRES_URL",
    scope: Scope::Tests,
    doc: "tests: a PostgreSQL URL whose user may create databases (scripts/test starts a private server)",
};

/// Chat intake (`loki slack serve`): the bot's credentials, its switch and the API it posts to.
pub const SLACK_BOT_TOKEN: Var = Var {
    name: "SLACK_BOT_TOKEN",
    scope: Scope::Loki,
    doc: "the Slack bot token (xoxb-…) `loki slack serve` posts replies with",
};
pub const SLACK_SIGNING_SECRET: Var = Var {
    name: "SLACK_SIGNING_SECRET",
    scope: Scope::Loki,
    doc: "the Slack app's signing secret `loki slack serve` verifies every request with",
};
pub const SLACK_INBOUND: Var = Var {
    name: "LOKI_SLACK_INBOUND",
    scope: Scope::Loki,
    doc: "`0` or `false` turns chat intake off: `loki slack serve` refuses to start (default: on)",
};
pub const SLACK_API_URL: Var = Var {
    name: "LOKI_SLACK_API_URL",
    scope: Scope::Loki,
    doc: "the Slack Web API `loki slack serve` posts to (default https://slack.com/api)",
};
/// Where [`SLACK_API_URL`] points when unset: Slack's public Web API. Here, not in the chat
/// crate, so that what reads the destination (`loki doctor --airgap`) needs no chat client.
pub const SLACK_API_DEFAULT: &str = "https://slack.com/api";

/// Every variable of this registry, loki's own first, then those set for children, then the
/// test suite's.
pub const VARS: &[Var] = &[
    LOKI_HOME,
    HOME,
    NO_COLOR,
    RECEIPT_SIGNING_KEY,
    RECEIPT_SIGNING_KEY_FILE,
    RECEIPT_RETIRED_PUBKEYS,
    LOG,
    IMPROVE,
    BROWSER,
    VISUAL_EVIDENCE,
    CONTROL_URL,
    CONTROL_TOKEN,
    GITHUB_TOKEN,
    GITHUB_API_URL,
    GITLAB_URL,
    GITLAB_TOKEN,
    JIRA_BASE_URL,
    JIRA_EMAIL,
    JIRA_API_TOKEN,
    LINEAR_API_KEY,
    LINEAR_API_URL,
    SLACK_BOT_TOKEN,
    SLACK_SIGNING_SECRET,
    SLACK_INBOUND,
    SLACK_API_URL,
    GITHUB_ACTIONS,
    GITHUB_EVENT_PATH,
    ACTIONS_API_URL,
    GITHUB_SERVER_URL,
    GITHUB_RUN_ID,
    GITHUB_OUTPUT,
    GITHUB_STEP_SUMMARY,
    GITLAB_CI,
    CI_API_V4_URL,
    CI_PROJECT_PATH,
    CI_PROJECT_URL,
    CI_MERGE_REQUEST_IID,
    CI_MERGE_REQUEST_TARGET_BRANCH_NAME,
    CI_MERGE_REQUEST_SOURCE_BRANCH_SHA,
    CI_COMMIT_SHA,
    CI_JOB_URL,
    SEED,
    REPRO_TIMEOUT,
    PAGE_VIDEO,
    WORKSPACE,
    PYTEST_REPORT,
    CI,
    REQUIRE_TOOLS,
    NPM_CACHE,
    AGENTS,
    PY_TOOLS,
    MCP_CLIENTS,
    JUDGE_CASES,
    GUIDE_BLESS,
    BENCH_BIN,
    AST_DUMP,
    AST_PATH,
    IMPROVE_ABORT_AT,
    TEST_POSTGRES_URL,
];

/// loki's own secrets: the variables that hand loki a signing key, and the `LOKI_<KEY>` names of
/// the secret configuration keys (`LOKI_OPENAI_API_KEY`). They configure loki, never the programs
/// it observes, so even `loki run`, which passes the caller's environment on unchanged, drops
/// them. The conventional names those keys also answer to (`OPENAI_API_KEY`) are the user's
/// and are not among them: an application may need its own key.
#[must_use]
pub fn is_loki_secret(name: &str) -> bool {
    name == RECEIPT_SIGNING_KEY.name
        || name == RECEIPT_SIGNING_KEY_FILE.name
        || name == CONTROL_TOKEN.name
        || config::KEYS
            .iter()
            .any(|k| k.kind == config::Kind::Secret && config::env_name(k.key) == name)
}

/// One line of [`all`]: a variable's name, scope and doc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub name: String,
    pub scope: Scope,
    pub doc: String,
}

/// Every variable loki reads, sets or tests with: [`VARS`], then the configuration's variables
/// (`LOKI_<KEY>` and each key's aliases) in key order, documented by their key.
#[must_use]
pub fn all() -> Vec<Listed> {
    let own = VARS.iter().map(|v| Listed {
        name: v.name.to_string(),
        scope: v.scope,
        doc: v.doc.to_string(),
    });
    let configured = config::KEYS.iter().flat_map(|k| {
        std::iter::once(config::env_name(k.key))
            .chain(k.env_aliases.iter().map(|a| (*a).to_string()))
            .map(move |name| Listed {
                name,
                scope: Scope::Loki,
                doc: format!("config {}: {}", k.key, k.doc),
            })
    });
    own.chain(configured).collect()
}

/// The `LOKI_<KEY>` variable of a configuration key, for a value needed before the configuration
/// is loaded (the colour choice of an error printed while loading it).
#[must_use]
pub fn config_value(key: &str) -> Option<String> {
    std::env::var(config::env_name(key))
        .ok()
        .filter(|v| !v.is_empty())
}

/// The process environment for the config layer, which picks `LOKI_<KEY>` and the aliases out
/// of it. A variable whose name or value is not UTF-8 is left out: no key reads one, and
/// `std::env::vars` would panic on it.
#[must_use]
pub fn process_vars() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// Columns of a line of alias names in [`help_text`], inside clap's 100.
const HELP_WIDTH: usize = 90;

/// The `Environment:` section of `loki --help`: the variables loki itself reads, then one entry
/// for the configuration's variables with their aliases. Those set for children and the test
/// suite's are left out: a user never sets them.
#[must_use]
pub fn help_text() -> String {
    let mut out = String::from("Environment:\n");
    for v in VARS.iter().filter(|v| v.scope == Scope::Loki) {
        out.push_str(&format!("  {}\n          {}\n", v.name, v.doc));
    }
    out.push_str(
        "  LOKI_<KEY>\n          a configuration key, dots as underscores (LOKI_RUN_CAP_S); \
         `loki config show` lists them\n",
    );
    // The conventional names some keys also answer to, wrapped like clap wraps help.
    let mut line = String::from(" ");
    for alias in config::KEYS.iter().flat_map(|k| k.env_aliases.iter()) {
        if line.len() + alias.len() > HELP_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(alias);
        line.push(',');
    }
    out.push_str(line.trim_end_matches(','));
    out.push_str("\n          the same keys under the names other tools use for them\n");
    out
}

#[cfg(test)]
#[path = "env_tests.rs"]
mod tests;
