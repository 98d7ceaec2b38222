//! Build options from the configuration: the provider chosen (and why) and built, its prices and
//! settings, the caps, the signing key, the check timeout and the model box's network. Every
//! command that starts a model (`loki "<task>"`, `loki ask`, a workspace run, a backlog, each
//! replay of `loki improve`) makes its options here, so each is built as the user's own run is.
//!
//! # The configuration is the one source
//! `loki.toml`, `LOKI_*` variables, command flags (the top layer) and the conventional
//! `ANTHROPIC_API_KEY` / `OPENAI_API_KEY` all arrive through [`Config`], so what `loki providers`
//! and `loki doctor` say is what a run will do. An explicit `provider.name` is never replaced by
//! another; `auto` picks by [`loki_agent::configured::detect`], and finding nothing is
//! [`WorkspaceError::NoProvider`] (exit 2), naming how to configure one.
//!
//! # Keys read
//! `provider.name`, `provider.prices` (a price file over the built-in table), `run.cap_s` /
//! `run.deep_cap_s`, `run.max_cost_usd`, `run.max_tokens`, `council.reviewers`,
//! `checks.timeout_s`, `agent.network` (`on`, else off), `deep.boot_window_s`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_agent::{Detection, PriceTable, ProviderChoice, ProviderInfo, ProviderSettings};
use loki_core::CoreError;
use loki_core::config::{Config, Ignored, Inputs};
use loki_core::layout::{Repo, loki_home};
use loki_core::run::RunKind;
use loki_engine::ask::AskOptions;
use loki_engine::{BuildOptions, TaskInput};
use loki_process::confine::Network;
use loki_receipt::KeyEnv;

use crate::WorkspaceError;

/// What options are made from: the effective configuration and the facts of the process.
#[derive(Debug, Clone)]
pub struct Setup<'a> {
    pub config: &'a Config,
    /// `$LOKI_HOME` (keys, caches), when it could be found.
    pub home: Option<&'a Path>,
    /// The runs directory of the repository loki was started in (the provider settings keep
    /// replay transcripts relative to it).
    pub runs_dir: Option<PathBuf>,
    /// loki's own command line, recorded in `run.json`.
    pub argv: Vec<String>,
    /// The `loki` binary, whose hidden `__confine` subcommand boxes the agent's commands.
    pub confine_exe: Option<PathBuf>,
}

/// The effective configuration of a command, as [`load_config`] found it.
#[derive(Debug)]
pub struct Loaded {
    pub config: Config,
    /// `$LOKI_HOME` (or `~/.loki`), when it can be found.
    pub home: Option<PathBuf>,
    /// Configuration files left out because they are broken (`repairable` loads only).
    pub ignored: Vec<Ignored>,
}

/// Loads the configuration layers of a command started in `cwd`: the defaults, the user's
/// `$LOKI_HOME/config.toml`, the `loki.toml` of the repository `cwd` is in (if any), `file`
/// (`--config`), the `LOKI_*` environment, and `flags` on top as `(key, value, flag name)`.
/// A broken file is an error, unless `repairable`: then it is left out and listed in
/// [`Loaded::ignored`], so the commands that mend a setup still run.
pub fn load_config(
    cwd: &Path,
    file: Option<PathBuf>,
    flags: Vec<(String, String, String)>,
    repairable: bool,
) -> Result<Loaded, CoreError> {
    let home = loki_home();
    let inputs = Inputs {
        home: home.clone(),
        repo_root: Repo::discover(cwd).ok().map(|r| r.root),
        file,
        env: loki_core::env::process_vars(),
        flags,
    };
    let (config, ignored) = if repairable {
        Config::load_repairable(&inputs)?
    } else {
        (Config::load(&inputs)?, Vec::new())
    };
    Ok(Loaded {
        config,
        home,
        ignored,
    })
}

/// One build as the user asked for it ([`Setup::single_build`]).
#[derive(Debug)]
pub struct SingleBuild {
    pub task: TaskInput,
    pub kind: RunKind,
    pub flags: crate::run::RunFlags,
    /// The delivery contract chosen by the caller (`--contract FILE`, a follow-up's).
    pub contract: Option<loki_contract::Contract>,
    /// The issue the task came from.
    pub issue: Option<loki_engine::IssueInput>,
}

/// The provider a command uses, built, with its label and why it was chosen.
#[derive(Debug)]
pub struct Chosen {
    pub backend: loki_agent::Backend,
    pub choice: ProviderChoice,
    pub settings: ProviderSettings,
    /// `chosen explicitly (<source>)` or `auto: <reason>`.
    pub why: String,
}

impl Setup<'_> {
    /// `$LOKI_HOME`, or [`WorkspaceError::NoHome`].
    pub fn home(&self) -> Result<&Path, WorkspaceError> {
        self.home.ok_or(WorkspaceError::NoHome)
    }

    /// Provider settings as the configuration has them.
    #[must_use]
    pub fn settings(&self) -> ProviderSettings {
        ProviderSettings::from_config(self.config, self.runs_dir.clone())
    }

    /// The price table: built in, with the file named by `provider.prices` over it.
    pub fn prices(&self) -> Result<PriceTable, WorkspaceError> {
        let table = PriceTable::builtin();
        match self.config.str("provider.prices").filter(|p| !p.is_empty()) {
            Some(path) => Ok(table.with_file(Path::new(path))?),
            None => Ok(table),
        }
    }

    /// What `auto` would pick, judged from the configuration (not only the raw environment).
    #[must_use]
    pub fn detect(&self) -> Detection {
        loki_agent::configured::detect(self.config, &|p| which::which(p).ok())
    }

    /// Every provider loki knows, and whether it is ready (`loki providers`).
    #[must_use]
    pub fn providers(&self) -> Vec<ProviderInfo> {
        loki_agent::describe(&self.settings(), &|p| which::which(p).ok())
    }

    /// The provider a command uses: the configured one, or `auto`'s pick, or
    /// [`WorkspaceError::NoProvider`]; with why it was chosen.
    pub fn choose(&self) -> Result<(ProviderChoice, String), WorkspaceError> {
        let name = self.config.str("provider.name").unwrap_or("auto");
        let source = self
            .config
            .entry("provider.name")
            .map(|e| e.source.to_string())
            .unwrap_or_default();
        match self.pick(name, &|_| true)? {
            Ok(choice) => Ok((choice, format!("chosen explicitly ({source})"))),
            Err(d) => match d.choice {
                Some(c) => Ok((c, format!("auto: {}", d.reason))),
                None => Err(WorkspaceError::NoProvider { reason: d.reason }),
            },
        }
    }

    /// The provider of a command that runs the model loop itself (`loki fix`), built: `spec`
    /// (`--model provider[/model]`) over the configuration's `provider.name`, and `auto` picks
    /// only an API provider (OpenAI, Anthropic). `None` when `auto` finds none; the settings
    /// carry the model `spec` names.
    pub fn choose_api(&self, spec: Option<&str>) -> Result<Option<Chosen>, WorkspaceError> {
        let mut settings = self.settings();
        let name = match spec {
            Some(spec) => {
                let (name, model) = spec.split_once('/').unwrap_or((spec, ""));
                if !model.is_empty() {
                    settings.model = Some(model.to_string());
                }
                name
            }
            None => self.config.str("provider.name").unwrap_or("auto"),
        };
        let api =
            |c: &ProviderChoice| matches!(c, ProviderChoice::OpenAi | ProviderChoice::Anthropic);
        let (choice, why) = match self.pick(name, &api)? {
            Ok(choice) => (choice, "chosen explicitly".to_string()),
            Err(d) => match d.choice {
                Some(c) => (c, format!("auto: {}", d.reason)),
                None => return Ok(None),
            },
        };
        let backend = loki_agent::build(&choice, &settings)?;
        Ok(Some(Chosen {
            backend,
            choice,
            settings,
            why,
        }))
    }

    /// The one chooser: `name` when it names a provider, else (`auto`) the detection, its choice
    /// kept only when `auto_takes` it.
    fn pick(
        &self,
        name: &str,
        auto_takes: &dyn Fn(&ProviderChoice) -> bool,
    ) -> Result<Result<ProviderChoice, Detection>, WorkspaceError> {
        if let Some(choice) = ProviderChoice::parse(name)? {
            return Ok(Ok(choice));
        }
        let mut d = self.detect();
        d.choice = d.choice.filter(|c| auto_takes(c));
        Ok(Err(d))
    }

    /// [`Setup::choose`], and the provider built from the settings.
    pub fn provider(&self) -> Result<Chosen, WorkspaceError> {
        let (choice, why) = self.choose()?;
        let settings = self.settings();
        let backend = loki_agent::build(&choice, &settings)?;
        Ok(Chosen {
            backend,
            choice,
            settings,
            why,
        })
    }

    /// The `agent.network` choice (default off).
    #[must_use]
    pub fn network(&self) -> Network {
        match self.config.str("agent.network") {
            Some("on") => Network::Allowed,
            _ => Network::Denied,
        }
    }

    /// The run cap (`run.cap_s`, default [`loki_engine::DEFAULT_CAP`]): also the deadline of
    /// the tracker calls made before a run.
    #[must_use]
    pub fn cap(&self) -> Duration {
        self.config
            .uint("run.cap_s")
            .map_or(loki_engine::DEFAULT_CAP, Duration::from_secs)
    }

    /// A build's options (see the module doc), with the provider's label and why it was chosen.
    /// The caller sets what is not configuration: `keep`, `commit`, `cancel`, `contract`,
    /// `issue`, `branch`, `on_command`.
    pub fn build_options(
        &self,
        task: TaskInput,
        kind: RunKind,
        deep: bool,
    ) -> Result<(BuildOptions, String, String), WorkspaceError> {
        let (choice, why) = self.choose()?;
        let backend = loki_agent::build(&choice, &self.settings())?;
        let mut opts =
            BuildOptions::new(task, backend, &choice.label(), self.home()?.to_path_buf());
        opts.kind = kind;
        opts.prices = self.prices()?;
        opts.deep = deep;
        let (cap_key, default_cap) = if deep {
            ("run.deep_cap_s", loki_engine::DEFAULT_DEEP_CAP)
        } else {
            ("run.cap_s", loki_engine::DEFAULT_CAP)
        };
        opts.cap = self
            .config
            .uint(cap_key)
            .map_or(default_cap, Duration::from_secs);
        opts.max_cost_usd = self.config.decimal("run.max_cost_usd");
        opts.max_tokens = self.config.uint("run.max_tokens");
        opts.council = self
            .config
            .uint("council.reviewers")
            .map_or(loki_engine::DEFAULT_REVIEWERS, |n| {
                usize::try_from(n).unwrap_or(usize::MAX)
            });
        opts.key_env = KeyEnv::from_process();
        if let Some(t) = self.config.uint("checks.timeout_s") {
            opts.check_timeout = Duration::from_secs(t);
        }
        opts.command.clone_from(&self.argv);
        opts.confine_exe.clone_from(&self.confine_exe);
        opts.network = self.network();
        Ok((opts, choice.label(), why))
    }

    /// The options of a single build (`loki "<task>"`, `run-task`, `quick`, an issue's, a
    /// follow-up's) once its tree passed the preflight: a contract on a quick run is refused
    /// ([`WorkspaceError::ContractOnQuick`]), with `--pr` the forge is checked before the
    /// provider is looked at, then [`Setup::build_options`] with the request's own.
    pub fn single_build(
        &self,
        repo: &Repo,
        req: SingleBuild,
    ) -> Result<(BuildOptions, String, String), WorkspaceError> {
        if req.contract.is_some() && req.kind != RunKind::Build {
            return Err(WorkspaceError::ContractOnQuick);
        }
        if req.flags.pr {
            let issue_ref = req.issue.as_ref().map(|i| i.reference.as_str());
            loki_intake::after::preflight_run(repo, issue_ref)?;
        }
        let (mut opts, label, why) = self.build_options(req.task, req.kind, req.flags.deep)?;
        opts.contract = req.contract;
        opts.issue = req.issue;
        opts.keep = req.flags.keep;
        opts.commit = req.flags.commit;
        Ok((opts, label, why))
    }

    /// The request of `loki deep <run>` in `repo`: `deep.boot_window_s` (default
    /// [`loki_deep::boot::DEFAULT_BOOT_WINDOW`]) and `checks.timeout_s` from the configuration,
    /// the signing key from `$LOKI_HOME` and the environment.
    pub fn deep_request(
        &self,
        repo: Repo,
        run: loki_core::RunId,
    ) -> Result<loki_deep::DeepRequest, WorkspaceError> {
        Ok(loki_deep::DeepRequest {
            repo,
            run,
            home: self.home()?.to_path_buf(),
            key_env: KeyEnv::from_process(),
            boot_window: Duration::from_secs(
                self.config
                    .uint("deep.boot_window_s")
                    .unwrap_or(loki_deep::boot::DEFAULT_BOOT_WINDOW.as_secs()),
            ),
            check_timeout: self
                .config
                .uint("checks.timeout_s")
                .map(Duration::from_secs),
            confine_exe: self.confine_exe.clone(),
        })
    }

    /// The options of a `loki ask` session and its provider: the model box denies the
    /// session's commands loki's home and the signing key file. The caller sets `on_run`.
    pub fn ask_options(
        &self,
        prompt: &str,
        max_turns: u32,
    ) -> Result<(AskOptions, Chosen), WorkspaceError> {
        let chosen = self.provider()?;
        let mut secrets = vec![self.home()?.to_path_buf()];
        secrets.extend(KeyEnv::from_process().signing_key_file);
        let opts = AskOptions {
            prompt: prompt.to_string(),
            argv: self.argv.clone(),
            provider: chosen.choice.label(),
            why: chosen.why.clone(),
            model: chosen.settings.model.clone(),
            max_turns,
            prices: self.prices()?,
            network: self.network(),
            secrets,
            confine_exe: self.confine_exe.clone(),
            on_run: None,
        };
        Ok((opts, chosen))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The configuration with only `flags` over the defaults.
    pub(crate) fn config(flags: &[(&str, &str)]) -> Config {
        Config::load(&Inputs {
            home: None,
            repo_root: None,
            file: None,
            env: Vec::new(),
            flags: flags
                .iter()
                .map(|(k, v)| ((*k).to_string(), (*v).to_string(), format!("--{k}")))
                .collect(),
        })
        .unwrap()
    }

    /// A configuration with the scripted provider and `more`, its script written in `dir`.
    fn scripted(dir: &Path, more: &[(&str, &str)]) -> Config {
        let script = dir.join("script.txt");
        loki_core::fs::write_atomic(&script, loki_engine::demo::SCRIPT.as_bytes()).unwrap();
        let script = script.display().to_string();
        let mut flags = vec![("provider.name", "scripted"), ("provider.script", &script)];
        flags.extend_from_slice(more);
        config(&flags)
    }

    /// A setup over `c` whose home is `home`: a path in the test's own temporary directory that
    /// need not exist.
    pub(crate) fn setup<'a>(c: &'a Config, home: &'a Path) -> Setup<'a> {
        Setup {
            config: c,
            home: Some(home),
            runs_dir: None,
            argv: vec!["loki".into(), "task".into()],
            confine_exe: None,
        }
    }

    #[test]
    fn options_follow_the_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let c = scripted(
            dir.path(),
            &[
                ("run.deep_cap_s", "60"),
                ("run.max_tokens", "1000"),
                ("council.reviewers", "0"),
                ("agent.network", "on"),
            ],
        );
        let task = TaskInput {
            text: "t".into(),
            source: "text".into(),
        };
        let home = dir.path().join("home");
        let (opts, label, why) = setup(&c, &home)
            .build_options(task, RunKind::Quick, true)
            .unwrap();
        assert_eq!(label, "scripted");
        assert!(why.starts_with("chosen explicitly"), "{why}");
        assert_eq!(opts.cap, Duration::from_secs(60));
        assert_eq!(opts.max_tokens, Some(1000));
        assert_eq!(opts.council, 0);
        assert_eq!(opts.kind, RunKind::Quick);
        assert_eq!(opts.network, Network::Allowed);
        assert_eq!(opts.command, vec!["loki".to_string(), "task".to_string()]);
        assert_eq!(setup(&c, &home).cap(), loki_engine::DEFAULT_CAP);
    }

    #[test]
    fn a_missing_home_is_the_users_to_fix() {
        use loki_core::exit::{Classify, ExitClass};
        let dir = tempfile::tempdir().unwrap();
        let c = scripted(dir.path(), &[]);
        let home = dir.path().join("home");
        let mut s = setup(&c, &home);
        s.home = None;
        let task = TaskInput {
            text: "t".into(),
            source: "text".into(),
        };
        let err = s.build_options(task, RunKind::Build, false).err().unwrap();
        assert!(matches!(err, WorkspaceError::NoHome), "{err}");
        assert_eq!(err.exit_class(), ExitClass::Usage);
        assert_eq!(
            err.to_string(),
            "neither LOKI_HOME nor HOME is set; set LOKI_HOME to a directory for loki's keys and cache"
        );
    }
}
