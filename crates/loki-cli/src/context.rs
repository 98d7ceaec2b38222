//! What every command that touches state needs: the effective configuration (loaded by
//! [`loki_workspace::options::load_config`]), `$LOKI_HOME`, and the repository when there is one.

use std::path::PathBuf;

use anyhow::Context as _;
use clap::ValueEnum as _;
use loki_core::config::{Config, Ignored};
use loki_core::layout::Repo;
use loki_workspace::flags::ConfigFlags;

use crate::cli::GlobalArgs;

#[derive(Debug)]
pub struct Ctx {
    pub global: GlobalArgs,
    pub config: Config,
    pub home: Option<PathBuf>,
    /// The working directory loki was started in.
    pub cwd: PathBuf,
    /// Configuration files left out because they are broken ([`Ctx::load_repairable`] only).
    pub ignored: Vec<Ignored>,
}

impl Ctx {
    /// Loads config layers for the current directory. A config error is fatal (exit 2).
    pub fn load(global: &GlobalArgs) -> anyhow::Result<Ctx> {
        Ctx::load_with(global, ConfigFlags::default())
    }

    /// For the commands that repair or inspect a setup (`config path|init|set`, `doctor`,
    /// `verify`, `keys`): a broken configuration file is left out and reported on stderr instead
    /// of stopping the command, so the user can still mend it with loki.
    pub fn load_repairable(global: &GlobalArgs) -> anyhow::Result<Ctx> {
        let ctx = Ctx::load_layers(global, ConfigFlags::default(), true)?;
        for bad in &ctx.ignored {
            anstream::eprintln!("{}", loki_term::config::ignored(bad));
        }
        Ok(ctx)
    }

    /// Like [`Ctx::load`], with command flags as the top layer (`--color` is added to them).
    pub fn load_with(global: &GlobalArgs, flags: ConfigFlags) -> anyhow::Result<Ctx> {
        Ctx::load_layers(global, flags, false)
    }

    fn load_layers(
        global: &GlobalArgs,
        mut flags: ConfigFlags,
        repairable: bool,
    ) -> anyhow::Result<Ctx> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        // `--color` as the configuration key `output.color` spells it: the flag's own word.
        let word = |c: crate::cli::ColorWhen| c.to_possible_value().map(|v| v.get_name().into());
        flags.color = global.color.and_then(word);
        let loaded = loki_workspace::options::load_config(
            &cwd,
            global.config.clone(),
            flags.layer(),
            repairable,
        )?;
        Ok(Ctx {
            global: global.clone(),
            config: loaded.config,
            home: loaded.home,
            cwd,
            ignored: loaded.ignored,
        })
    }

    /// The repository, or the error that says how to get into one.
    pub fn repo(&self) -> Result<Repo, loki_core::CoreError> {
        Repo::discover(&self.cwd)
    }

    /// What build options are made from: the configuration, `$LOKI_HOME`, this repository's runs
    /// directory, the command line and this binary (the model box's wrapper).
    pub fn setup(&self) -> loki_workspace::options::Setup<'_> {
        loki_workspace::options::Setup {
            config: &self.config,
            home: self.home.as_deref(),
            runs_dir: self.repo().ok().map(|r| r.runs_dir()),
            argv: std::env::args().collect(),
            confine_exe: std::env::current_exe().ok(),
        }
    }

    /// `$LOKI_HOME`, or an error saying to set it.
    pub fn home(&self) -> anyhow::Result<&PathBuf> {
        Ok(self
            .home
            .as_ref()
            .ok_or(loki_workspace::WorkspaceError::NoHome)?)
    }
}
