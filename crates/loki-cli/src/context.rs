//! What every command that touches state needs: the effective configuration, `$LOKI_HOME`, and
//! the repository when there is one.

use std::path::PathBuf;

use anyhow::Context as _;
use loki_core::config::{Config, Inputs};
use loki_core::layout::{Repo, loki_home};

use crate::cli::GlobalArgs;

#[derive(Debug)]
pub struct Ctx {
    pub global: GlobalArgs,
    pub config: Config,
    pub home: Option<PathBuf>,
    /// The working directory loki was started in.
    pub cwd: PathBuf,
}

impl Ctx {
    /// Loads config layers for the current directory. A config error is fatal (exit 2).
    pub fn load(global: &GlobalArgs) -> anyhow::Result<Ctx> {
        Ctx::load_with(global, &[])
    }

    /// Like [`Ctx::load`], with command flags as the top layer: (key, value, flag name).
    pub fn load_with(
        global: &GlobalArgs,
        extra: &[(String, String, String)],
    ) -> anyhow::Result<Ctx> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        let repo = Repo::discover(&cwd);
        let home = loki_home();
        let mut flags = Vec::new();
        if let Some(c) = global.color {
            let v = match c {
                crate::cli::ColorWhen::Auto => "auto",
                crate::cli::ColorWhen::Always => "always",
                crate::cli::ColorWhen::Never => "never",
            };
            flags.push((
                "output.color".to_string(),
                v.to_string(),
                "--color".to_string(),
            ));
        }
        flags.extend(extra.iter().cloned());
        let inputs = Inputs {
            home: home.clone(),
            repo_root: repo.as_ref().ok().map(|r| r.root.clone()),
            file: global.config.clone(),
            env: loki_core::env::process_vars(),
            flags,
        };
        let config = Config::load(&inputs)?;
        Ok(Ctx {
            global: global.clone(),
            config,
            home,
            cwd,
        })
    }

    /// The repository, or the error that says how to get into one.
    pub fn repo(&self) -> Result<Repo, loki_core::CoreError> {
        Repo::discover(&self.cwd)
    }

    /// `$LOKI_HOME`, or an error saying to set it.
    pub fn home(&self) -> anyhow::Result<&PathBuf> {
        self.home.as_ref().ok_or_else(|| {
            anyhow::Error::new(crate::cmd::UsageError(
                "neither LOKI_HOME nor HOME is set; set LOKI_HOME to a directory for loki's keys and cache".into(),
            ))
        })
    }
}
