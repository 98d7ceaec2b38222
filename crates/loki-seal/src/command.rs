//! The hook commands `loki seal start` and `loki seal stop`, from the agent's JSON to the
//! seal's answer: which repository the hook is about (the agent's `cwd`, else the directory
//! loki runs in), the options from the configuration ([`Env`]), and the stop's failing closed.
//!
//! # The stop fails closed ([`stop`])
//! It never returns an error and never lets one read as "done":
//! - hook input that cannot be read (not JSON, an unreadable stdin) must not trap the agent: the
//!   stop is judged as the session `default` (against the last commit when that session has no
//!   baseline), and the decision's words begin with what was wrong with the input;
//! - any error after that (no repository, no loki home, a judge that failed) becomes the
//!   decision of [`crate::status::failed`], its reason the error's whole chain on one line: a
//!   block, counted, released NOT VERIFIED after `seal.max_blocks` in a row; never an approval.
//!
//! Every decision reaches the person as well as the agent ([`crate::person::relay`]) before
//! it is answered in the agent's protocol ([`crate::respond`]).

use std::error::Error;
use std::path::{Path, PathBuf};

use loki_core::config::Config;
use loki_core::layout::Repo;

use crate::report::DEFAULT_MAX_BLOCKS;
use crate::{Agent, Decision, HookInput, HookResponse, SealError, SealOptions, Started};

/// What a hook command knows of the process it runs in.
#[derive(Debug, Clone, Copy)]
pub struct Env<'a> {
    /// The directory loki runs in: the repository when the agent names no `cwd`.
    pub cwd: &'a Path,
    /// `$LOKI_HOME` (`None`: neither `LOKI_HOME` nor `HOME` is set).
    pub home: Option<&'a Path>,
    pub config: &'a Config,
    /// This loki, whose `__confine` fences the judge's runs from each other.
    pub confine_exe: Option<&'a Path>,
}

impl Env<'_> {
    /// The repository the hook is about: the agent's `cwd`, else ours.
    ///
    /// # Errors
    /// That directory is in no repository.
    pub fn repo_root(&self, input: &HookInput) -> Result<PathBuf, SealError> {
        let start = input.cwd.clone().unwrap_or_else(|| self.cwd.to_path_buf());
        Ok(Repo::discover(&start)?.root)
    }

    /// The seal's options for the repository at `root` ([`SealOptions::from_config`]), its
    /// suites' logs under `root/.loki`.
    ///
    /// # Errors
    /// [`SealError::NoHome`].
    pub fn options(&self, root: &Path) -> Result<SealOptions, SealError> {
        let home = self.home.ok_or(SealError::NoHome)?;
        Ok(SealOptions::from_config(
            self.config,
            home.to_path_buf(),
            root.join(".loki"),
            self.confine_exe.map(Path::to_path_buf),
        ))
    }
}

/// `loki seal start` for `agent`: `stdin` is the hook's input (empty when run by hand). Returns
/// the input as read and what the start did ([`crate::baseline::start`]).
///
/// # Errors
/// The input is not JSON, the repository or loki's home cannot be found, or the baseline
/// cannot be recorded.
pub fn start(
    env: &Env<'_>,
    agent: Agent,
    stdin: &str,
    rebaseline: bool,
) -> Result<(HookInput, Started), SealError> {
    let mut input = HookInput::parse(stdin)?;
    input.agent = Some(agent);
    let root = env.repo_root(&input)?;
    let opts = env.options(&root)?;
    Repo::discover(&root)?.ensure_loki_dir()?;
    let started = crate::baseline::start(&root, &input, &opts, rebaseline)?;
    Ok((input, started))
}

/// What `loki seal stop` decided and how the agent is told.
#[derive(Debug, Clone)]
pub struct Answer {
    pub decision: Decision,
    pub response: HookResponse,
}

/// `loki seal stop` for `agent`: `stdin` is the hook's input as read, or why it could not be
/// read. See the module doc: it fails closed.
#[must_use]
pub fn stop(env: &Env<'_>, agent: Agent, stdin: std::io::Result<String>) -> Answer {
    let (mut input, input_problem) = match stdin.map(|t| HookInput::parse(&t)) {
        Ok(Ok(i)) => (i, None),
        Ok(Err(e)) => (HookInput::default(), Some(e.to_string())),
        Err(e) => (HookInput::default(), Some(chain(&e))),
    };
    input.agent = Some(agent);
    let decision = match judge(env, &input) {
        Ok(d) => d,
        Err(e) => failed(env, &input, &e),
    };
    let decision = match input_problem {
        Some(p) => decision.prefixed(&format!(
            "(the hook input was unreadable: {p}; judged as session \"default\") "
        )),
        None => decision,
    };
    crate::person::relay(agent, &decision);
    let response = crate::respond(agent, &decision);
    Answer { decision, response }
}

/// The stop judged ([`crate::session::stop`]).
fn judge(env: &Env<'_>, input: &HookInput) -> Result<Decision, SealError> {
    let root = env.repo_root(input)?;
    let opts = env.options(&root)?;
    loki_process::signals::left(
        "the stop was not judged: its receipt says INTERRUPTED and the session's state is unchanged",
    );
    Ok(crate::session::stop(&root, input, &opts)?.decision)
}

/// A stop that could not be judged blocks, and counts ([`crate::status::failed`]).
fn failed(env: &Env<'_>, input: &HookInput, e: &SealError) -> Decision {
    let max_blocks = env
        .config
        .uint("seal.max_blocks")
        .unwrap_or(DEFAULT_MAX_BLOCKS);
    let root = env.repo_root(input).ok();
    let session = input.session();
    crate::status::failed(env.home, root.as_deref(), &session, max_blocks, &chain(e))
}

/// An error and its causes on one line, `error: cause: cause`.
fn chain(e: &dyn Error) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cause = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_without_a_home_blocks_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        let config = Config::defaults();
        let env = Env {
            cwd: dir.path(),
            home: None,
            config: &config,
            confine_exe: None,
        };
        let a = stop(&env, Agent::Codex, Ok(String::new()));
        assert!(
            matches!(&a.decision, Decision::Block { reason }
                if reason.contains("neither LOKI_HOME nor HOME is set")),
            "a stop that could not be judged must block: {:?}",
            a.decision
        );
        assert!(a.response.stdout.contains("\"block\""), "{:?}", a.response);
    }

    #[test]
    fn unreadable_input_is_said_before_the_decision() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::defaults();
        let env = Env {
            cwd: dir.path(),
            home: None,
            config: &config,
            confine_exe: None,
        };
        let a = stop(&env, Agent::Claude, Ok("{not json".into()));
        assert!(
            matches!(&a.decision, Decision::Block { reason }
                if reason.starts_with("(the hook input was unreadable: ")),
            "{:?}",
            a.decision
        );
        assert_eq!(a.response.exit, 2);
    }

    #[test]
    fn a_chain_is_one_line() {
        let e = SealError::NoExe(std::io::Error::other("gone"));
        assert_eq!(
            chain(&e),
            "cannot tell where this loki is; name it with --command PATH: gone"
        );
    }
}
