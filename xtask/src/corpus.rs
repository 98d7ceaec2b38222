//! The corpus definition, `eval/corpus.toml`: declarative data only.
//!
//! `[repos."owner/name"]` says how a repository is set up and tested; every `[[entry]]` names one
//! upstream fix commit of such a repository. Nothing here is code from the repositories: the
//! driver fetches nothing, it reads the mirrors the search tool's `fetch` brought in.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, bail};
use serde::Deserialize;

/// The test runner an entry's suite uses; it decides the structured run and the edit rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ecosystem {
    Pytest,
    Cargo,
    Vitest,
    Jest,
    Go,
}

impl Ecosystem {
    pub fn as_str(self) -> &'static str {
        match self {
            Ecosystem::Pytest => "pytest",
            Ecosystem::Cargo => "cargo",
            Ecosystem::Vitest => "vitest",
            Ecosystem::Jest => "jest",
            Ecosystem::Go => "go",
        }
    }
}

/// How a scratch clone is prepared before anything runs in it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    /// Python packages pip-installs into a fresh virtualenv (outside the clone, first on PATH).
    #[serde(default)]
    pub pip: Vec<String>,
    /// `pip install -e .` of the clone at the fix commit (an editable install, as developers do).
    #[serde(default)]
    pub editable: bool,
    /// The Node package manager (`npm`, `pnpm`), installed as the lockfile asks.
    pub node: Option<String>,
    /// Its install arguments, run at each entry's fix commit (e.g. `["install", "--frozen-lockfile"]`).
    #[serde(default)]
    pub node_install: Vec<String>,
    /// pnpm settings written to a private `$XDG_CONFIG_HOME/pnpm/rc` (nested `pnpm` calls in a
    /// test script read that file, not the environment).
    #[serde(default)]
    pub pnpm_config: BTreeMap<String, String>,
    /// Extra environment for every command (e.g. `GOPROXY = "off"`).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
}

/// One repository: its setup and its test command.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repo {
    pub ecosystem: Ecosystem,
    #[serde(default)]
    pub setup: Setup,
    /// The suite as the repository runs it (timed once per entry at the fix commit).
    pub test_command: String,
    /// Extra arguments for the driver's structured run (pytest paths, cargo flags).
    #[serde(default)]
    pub test_args: Vec<String>,
}

/// One upstream fix commit.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub repo: String,
    pub fix: String,
    pub ecosystem: Ecosystem,
    pub title: String,
    /// The test ids seen failing at the parent with the fix's test files applied.
    #[serde(default)]
    pub failing: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Corpus {
    pub repos: BTreeMap<String, Repo>,
    pub entry: Vec<Entry>,
}

impl Corpus {
    pub fn load(path: &Path) -> anyhow::Result<Corpus> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("read {}", path.display()))?;
        let corpus: Corpus =
            toml::from_str(&text).with_context(|| format!("parse {}", path.display()))?;
        for (i, e) in corpus.entry.iter().enumerate() {
            let Some(repo) = corpus.repos.get(&e.repo) else {
                bail!(
                    "entry {} ({}) names repo {} with no [repos] table",
                    i + 1,
                    e.fix,
                    e.repo
                );
            };
            if repo.ecosystem != e.ecosystem {
                bail!(
                    "entry {} ({}): ecosystem differs from its repo's",
                    i + 1,
                    e.fix
                );
            }
            if e.fix.len() != 40 || !e.fix.bytes().all(|b| b.is_ascii_hexdigit()) {
                bail!("entry {}: fix must be a full 40-hex commit id", i + 1);
            }
        }
        Ok(corpus)
    }
}

/// The directory name of a repository's mirror (`owner+name`).
pub fn mirror_name(repo: &str) -> String {
    repo.replace('/', "+")
}
