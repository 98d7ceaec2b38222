//! The intake stage: the base commit, the isolated worktree, the repository map and the test map.
//!
//! - [`preflight`] (before a run is even recorded): the repository has a commit and no tracked
//!   file has uncommitted changes (untracked files do not count: they are not in the base). A dirty
//!   tree is refused with the files named (exit 2): loki builds from a commit, and a change the user
//!   has not committed would be silently left out.
//! - [`run`]: records the base sha and tree, creates the worktree `.loki/worktrees/<run-id>` on the
//!   new branch `loki/<run-id>` at the base, the agent's [`Fence`], the [`RepoMap`] (cached by tree
//!   in `$LOKI_HOME/cache/repomap/`) and the test map ([`TestMap`]: the checks of each package,
//!   cached by tree and machine facts in `$LOKI_HOME/cache/testmap/`, and the test files). The
//!   user's checkout is never written.
//! - Environments: a worktree holds only tracked files, so the user's virtualenv (ignored by git)
//!   is not in it; the checks use the checkout's instead
//!   ([`loki_runner::detect::use_checkout_envs`]), and nothing is added to the worktree.

use std::path::{Path, PathBuf};

use loki_core::RunId;
use loki_core::layout::Repo;
use loki_git::Git;
use loki_process::confine::AgentNetwork;
use loki_repomap::{MapSource, RepoMap};
use loki_runner::Check;

use crate::EngineError;
use crate::fence::Fence;
use crate::options::Progress;
use crate::run::{Run, Step};

/// The test map: what runs the tests of each package, and which files are tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestMap {
    pub checks: Vec<Check>,
    pub test_files: Vec<String>,
}

impl TestMap {
    /// The checks impacted by a set of changed files.
    #[must_use]
    pub fn impacted(&self, changed: &[String]) -> Vec<Check> {
        crate::verify::impacted(&self.checks, changed, false).0
    }
}

/// What intake established.
#[derive(Debug)]
pub struct Intake {
    pub base: String,
    pub base_tree: String,
    pub origin: Option<String>,
    pub branch: String,
    pub worktree: PathBuf,
    pub map: RepoMap,
    /// Whether the map came from the cache, an earlier tree's map, or scratch.
    pub map_source: MapSource,
    /// Whether the test map's checks came from the cache.
    pub checks_cached: bool,
    pub tests: TestMap,
    pub fence: Fence,
    /// Holds the agent's private home and git directory; removed when the run ends.
    pub private: loki_core::scratch::Scratch,
    /// The worktree's `.git` file as git wrote it ([`restore_git_link`]).
    pub git_link: Vec<u8>,
}

/// Puts the worktree's `.git` file back as git wrote it when a command in the box changed it,
/// and says so in NOT PROVEN. The box lets the agent write its worktree, this file included;
/// loki's own git calls follow it, and a rewritten one could point them at a repository whose
/// configuration (filter drivers, an external diff) runs programs outside the box.
pub(crate) fn restore_git_link(s: &mut Run<'_>, i: &Intake) -> Result<(), EngineError> {
    let link = i.worktree.join(".git");
    if std::fs::symlink_metadata(&link).is_ok_and(|m| m.is_file())
        && std::fs::read(&link).is_ok_and(|b| b == i.git_link)
    {
        return Ok(());
    }
    // Whatever is there (a directory, a symlink, other text) goes; git's own file comes back.
    if std::fs::symlink_metadata(&link).is_ok_and(|m| m.is_dir()) {
        std::fs::remove_dir_all(&link).map_err(|e| EngineError::io("remove", &link, e))?;
    }
    loki_core::fs::write_atomic(&link, &i.git_link)?;
    s.note_once(
        "isolation: a command in the box rewrote the worktree's .git file; loki restored it",
    );
    Ok(())
}

/// The base commit, after checking that the tree is clean.
pub fn preflight(repo: &Repo) -> Result<String, EngineError> {
    let git = Git::new(&repo.root);
    let base = git.head()?.ok_or(EngineError::NoCommits)?;
    let dirty = git.dirty_tracked()?;
    if !dirty.is_empty() {
        return Err(EngineError::DirtyTree { files: dirty });
    }
    Ok(base)
}

/// The branch of a run.
#[must_use]
pub fn branch_of(run: &RunId) -> String {
    format!("loki/{run}")
}

/// Schema tag of a cached test map; bump it when [`Check`] or detection changes.
const TESTMAP_SCHEMA: &str = "loki.testmap/1";

/// A cached test map: the checks detected for one tree, with the machine facts they depend on.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct CachedChecks {
    schema: String,
    tree: String,
    /// What detection probed on this machine (`nextest=true`): a new tool means a new map.
    machine: String,
    checks: Vec<Check>,
}

/// The checks of `tree` checked out at `worktree`: from `<cache>/testmap/<tree>.json` when the
/// tree and the machine facts match (rebased onto this worktree), else detected and stored.
fn load_or_detect(
    cache_dir: &Path,
    worktree: &Path,
    tree: &str,
) -> Result<(Vec<Check>, bool), EngineError> {
    let machine = format!("nextest={}", which::which("cargo-nextest").is_ok());
    let file = cache_dir.join("testmap").join(format!("{tree}.json"));
    if let Ok(text) = std::fs::read_to_string(&file)
        && let Ok(c) = serde_json::from_str::<CachedChecks>(&text)
        && c.schema == TESTMAP_SCHEMA
        && c.tree == tree
        && c.machine == machine
    {
        return Ok((c.checks.iter().map(|k| k.at_root(worktree)).collect(), true));
    }
    let checks = loki_runner::detect(worktree)?;
    let cached = CachedChecks {
        schema: TESTMAP_SCHEMA.into(),
        tree: tree.into(),
        machine,
        checks: checks.clone(),
    };
    // A cache that cannot be written costs time next run, not correctness.
    if let Ok(bytes) = serde_json::to_vec(&cached) {
        crate::write_file(&file, &bytes)?;
    }
    Ok((checks, false))
}

/// Runs intake for run `run` on `branch` from `base` (see the module doc).
pub fn run(
    repo: &Repo,
    run: &RunId,
    branch: &str,
    base: &str,
    cache_dir: &Path,
) -> Result<Intake, EngineError> {
    let git = Git::new(&repo.root);
    let base_tree = git.tree_of(base)?;
    let origin = git.origin_url()?;
    let branch = branch.to_string();
    let worktree = repo.worktree_dir(run);
    if let Some(parent) = worktree.parent() {
        std::fs::create_dir_all(parent).map_err(|e| EngineError::io("create", parent, e))?;
    }
    git.worktree_add(&worktree, &branch, base)?;
    let link = worktree.join(".git");
    let git_link = std::fs::read(&link).map_err(|e| EngineError::io("read", &link, e))?;
    let private = loki_core::scratch::Scratch::new("loki-agent-")
        .map_err(|e| EngineError::io("create a private directory in", std::env::temp_dir(), e))?;
    let fence = Fence::create(
        private.path(),
        &repo.root,
        &worktree,
        &git.common_dir()?,
        &branch,
        base,
    )?;
    let files = Git::new(&worktree).ls_tree_blobs(base)?;
    let paths: Vec<String> = files.iter().map(|(p, _)| p.clone()).collect();
    let (map, map_source) = RepoMap::load_or_build(cache_dir, &worktree, &base_tree, &files)?;
    let (mut checks, checks_cached) = load_or_detect(cache_dir, &worktree, &base_tree)?;
    loki_runner::detect::use_checkout_envs(&mut checks, &repo.root);
    let test_files = paths
        .iter()
        .filter(|p| loki_integrity::is_test_path(p))
        .cloned()
        .collect();
    Ok(Intake {
        base: base.to_string(),
        base_tree,
        origin,
        branch,
        worktree,
        map,
        map_source,
        checks_cached,
        tests: TestMap { checks, test_files },
        fence,
        private,
        git_link,
    })
}

/// The intake stage of a run: [`run`], then the agent's confinement from its fence.
pub(crate) fn stage(s: &mut Run<'_>, cache: &Path) -> Result<(Step, Intake), EngineError> {
    let branch = s
        .opts
        .branch
        .clone()
        .unwrap_or_else(|| branch_of(&s.run_id));
    let i = run(&s.repo, &s.run_id, &branch, &s.base, cache)?;
    s.observer.progress(&Progress::Started {
        run_id: s.run_id.to_string(),
        branch: i.branch.clone(),
        worktree: i.worktree.clone(),
    });
    let detail = format!(
        "base {} · {} files ({}) · {} check(s){} · {} test file(s)",
        &s.base[..s.base.len().min(12)],
        i.map.files.len(),
        match i.map_source {
            MapSource::Cached => "map cached".to_string(),
            MapSource::Incremental { parsed } => format!("map updated, {parsed} file(s) parsed"),
            MapSource::Built => "map built".to_string(),
        },
        i.tests.checks.len(),
        if i.checks_cached { ", cached" } else { "" },
        i.tests.test_files.len()
    );
    s.wrapper = s.confinement(&i.fence, crate::fence::Scope::Agent(&i.worktree));
    s.check_wrapper = s.confinement(&i.fence, crate::fence::Scope::Checks(&i.worktree));
    let detail = if s.wrapper.is_empty() {
        detail
    } else {
        format!("{detail} · boxed (Landlock, {})", network_word(s))
    };
    Ok((Step::Done(detail), i))
}

/// What the model's commands can reach, for intake's detail line: the run's one
/// [`AgentNetwork`], in the words the `-v` box line uses too.
fn network_word(s: &Run<'_>) -> &'static str {
    let cut = s
        .opts
        .confine_exe
        .as_deref()
        .map(loki_process::confine::network_cut)
        .unwrap_or_else(|| {
            loki_process::confine::NetworkCut::Nothing("no confinement wrapper".into())
        });
    let cli_agent = matches!(s.opts.backend, loki_agent::Backend::Cli(_));
    AgentNetwork::of(
        loki_process::confine::support(),
        &cut,
        s.opts.network,
        cli_agent,
    )
    .words()
}
