//! `loki doctor`'s checks: what loki needs on this machine, one [`Check`] each.
//!
//! Only required checks can FAIL: git, the configuration, `$LOKI_HOME` permissions and the
//! signing key's safety. Everything optional (test runners, agent CLIs, API keys) is WARN when
//! missing. [`collect`] runs them in a fixed order from what the caller knows ([`Inputs`]); the
//! binary prints them (`PASS|WARN|FAIL name: detail (how to fix)`) and exits 0 when nothing
//! required fails. Probes run through the process runner (closed stdin, own group, timeout,
//! scrubbed environment).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use loki_core::config::Config;
use loki_core::layout::Repo;
use loki_process as process;
use loki_process::confine::{Network, NetworkCut};
use serde::Serialize;

/// How long a `--version` probe may take before it counts as broken.
const PROBE_TIMEOUT: Duration = Duration::from_secs(10);
/// A version line is short; anything more is noise.
const PROBE_OUTPUT_CAP: usize = 64 * 1024;
/// git 2.25 added `git worktree` features loki relies on (`--no-checkout` with `add -b`).
const MIN_GIT: (u32, u32) = (2, 25);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Warn,
    Fail,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub status: Status,
    pub name: String,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

fn check(status: Status, name: &str, detail: impl Into<String>, fix: Option<&str>) -> Check {
    Check {
        status,
        name: name.to_string(),
        detail: detail.into(),
        fix: fix.map(str::to_string),
    }
}

/// What the checks need from the caller: its repository, configuration, home and the model
/// box as the binary sees it.
pub struct Inputs<'a> {
    /// The repository loki runs in, `None` outside one.
    pub repo: Option<Repo>,
    pub config: &'a Config,
    /// Configuration files left out because they are broken: (the error, how to mend it).
    pub ignored: Vec<(String, &'static str)>,
    /// `$LOKI_HOME`, `None` when neither it nor `HOME` is set.
    pub home: Option<&'a Path>,
    /// Whether Landlock confines the model's files, and that in words.
    pub filesystem: (bool, String),
    /// `agent.network` as configured.
    pub network: Network,
    /// How a network cut is enforced here, and that in words.
    pub cut: (NetworkCut, String),
    /// What `provider = auto` would pick (called only when the provider is `auto`).
    pub detect: &'a dyn Fn() -> loki_agent::Detection,
}

impl std::fmt::Debug for Inputs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Inputs")
            .field("repo", &self.repo)
            .field("ignored", &self.ignored)
            .field("home", &self.home)
            .field("network", &self.network)
            .finish_non_exhaustive()
    }
}

/// Whether nothing required failed.
#[must_use]
pub fn ok(checks: &[Check]) -> bool {
    checks.iter().all(|c| c.status != Status::Fail)
}

/// Every check, in a fixed order.
#[must_use]
pub fn collect(inputs: &Inputs<'_>) -> Vec<Check> {
    let mut v = vec![git()];
    v.push(match &inputs.repo {
        Some(repo) => match repo.check_loki_dir() {
            Ok(()) => check(
                Status::Pass,
                "repository",
                repo.root.display().to_string(),
                None,
            ),
            Err(e) => check(
                Status::Fail,
                "repository",
                e.to_string(),
                Some("move .loki aside"),
            ),
        },
        None => check(
            Status::Warn,
            "repository",
            "not inside a git repository",
            Some("run loki inside the repository you want to work on"),
        ),
    });
    if inputs.ignored.is_empty() {
        v.push(check(Status::Pass, "config", "all layers parse", None));
    }
    for (error, hint) in &inputs.ignored {
        v.push(check(
            Status::Fail,
            "config",
            format!("{error} (ignored for now)"),
            Some(*hint),
        ));
    }
    v.push(tool(
        "cargo",
        &["--version"],
        "cargo",
        "needed for Rust repositories: install Rust with rustup",
    ));
    v.push(tool(
        "cargo-nextest",
        &["nextest", "--version"],
        "cargo",
        "optional: `cargo install cargo-nextest` gives per-test results faster",
    ));
    v.push(tool(
        "python3",
        &["--version"],
        "python3",
        "needed for Python repositories",
    ));
    v.push(tool(
        "pytest",
        &["-m", "pytest", "--version"],
        "python3",
        "needed for pytest suites: `python3 -m pip install pytest`",
    ));
    v.push(tool(
        "node",
        &["--version"],
        "node",
        "needed for JavaScript/TypeScript repositories",
    ));
    v.push(tool("go", &["version"], "go", "needed for Go repositories"));
    v.push(browser());
    v.push(agent_clis());
    v.extend(seal_hooks(inputs.repo.as_ref()));
    v.extend(confinement(inputs));
    v.extend(api_keys(inputs.config));
    v.push(provider(inputs.config, inputs.detect));
    v.extend(home(inputs.home));
    v
}

/// Per agent whose settings exist in this repository: whether it will really run loki seal's hooks
/// (registered hooks an untrusted project never loads protect no one).
fn seal_hooks(repo: Option<&Repo>) -> Vec<Check> {
    let Some(repo) = repo else {
        return Vec::new();
    };
    let user = loki_seal::UserEnv::from_process();
    let found: Vec<Check> = loki_seal::Agent::ALL
        .into_iter()
        .filter(|a| loki_seal::install::settings_path(&repo.root, *a).exists())
        .map(|a| {
            let act = loki_seal::activation(a, &repo.root, &user);
            let status = match act.active {
                loki_seal::Active::Yes => Status::Pass,
                loki_seal::Active::No | loki_seal::Active::Unknown => Status::Warn,
            };
            check(
                status,
                &format!("seal hooks ({})", a.as_str()),
                format!("{}: {}", act.active.as_str(), act.detail),
                act.fix.as_deref(),
            )
        })
        .collect();
    if found.is_empty() {
        return vec![check(
            Status::Pass,
            "seal hooks",
            "no agent settings in this repository",
            Some("loki seal install --agent claude|codex|gemini|cursor"),
        )];
    }
    found
}

/// What the model box enforces on this machine: the filesystem rules (Landlock and its ABI)
/// and how `agent.network = "off"` is enforced, in words a user can check.
fn confinement(inputs: &Inputs<'_>) -> Vec<Check> {
    let (filesystem, fs_words) = &inputs.filesystem;
    let fs = if *filesystem {
        check(Status::Pass, "isolation", fs_words.clone(), None)
    } else {
        check(
            Status::Warn,
            "isolation",
            format!("{fs_words} (receipts say so in NOT PROVEN)"),
            Some("Linux 5.13 or newer with Landlock enabled (lsm=landlock)"),
        )
    };
    let (cut, words) = &inputs.cut;
    let words = words.clone();
    let net = match (inputs.network, cut) {
        (Network::Allowed, _) => check(
            Status::Warn,
            "network",
            "on for the model's commands (agent.network = \"on\"; receipts say so in NOT PROVEN)",
            Some("loki config set agent.network off"),
        ),
        (_, NetworkCut::Everything) => check(Status::Pass, "network", words, None),
        (_, NetworkCut::TcpOnly(_)) => check(
            Status::Warn,
            "network",
            words,
            Some(
                "allow network namespaces (user.max_net_namespaces > 0; in a container, a seccomp profile that permits unshare)",
            ),
        ),
        (_, NetworkCut::Nothing(_)) => check(
            Status::Warn,
            "network",
            words,
            Some("allow network namespaces, or Linux 6.7 or newer for Landlock TCP rules"),
        ),
    };
    vec![fs, net]
}

/// Runs `program args` through the process runner (closed stdin, own group, timeout, scrubbed
/// environment) and returns the first line of its output.
fn probe(program: &str, args: &[&str]) -> Result<String, String> {
    let cwd = std::env::current_dir().map_err(|e| e.to_string())?;
    let spec = process::Spec::new(program, cwd)
        .args(args.iter().copied())
        .envs(process::scrubbed_env())
        .timeout(PROBE_TIMEOUT)
        .output_cap(PROBE_OUTPUT_CAP);
    let out = process::run(&spec).map_err(|e| {
        if e.is_not_found() {
            "not found on PATH".to_string()
        } else {
            e.to_string()
        }
    })?;
    let text = out.output.text();
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    if out.timed_out {
        Err(format!(
            "did not answer within {}s",
            PROBE_TIMEOUT.as_secs()
        ))
    } else if out.success() {
        Ok(first)
    } else {
        Err(format!("exited with code {}: {first}", out.exit_code()))
    }
}

fn git() -> Check {
    match probe("git", &["--version"]) {
        Ok(v) => {
            let ver = v
                .trim_start_matches("git version ")
                .split_whitespace()
                .next()
                .unwrap_or("");
            let mut parts = ver.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
            let found = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
            if found >= MIN_GIT {
                check(Status::Pass, "git", v, None)
            } else {
                check(
                    Status::Fail,
                    "git",
                    format!("{v} is older than {}.{}", MIN_GIT.0, MIN_GIT.1),
                    Some("install a newer git"),
                )
            }
        }
        Err(e) => check(
            Status::Fail,
            "git",
            e,
            Some("install git: loki works in git repositories"),
        ),
    }
}

fn tool(name: &str, args: &[&str], program: &str, fix: &str) -> Check {
    match probe(program, args) {
        Ok(v) => check(Status::Pass, name, v, None),
        Err(e) => check(Status::Warn, name, e, Some(fix)),
    }
}

/// The headless browser `loki run --url` would use: its path and version, or how to get one.
fn browser() -> Check {
    const FIX: &str = "needed for `loki run --url` and `loki fix --demo --browser`";
    match loki_browser::find() {
        Ok(path) => match loki_browser::version_of(&path) {
            Ok(v) => check(
                Status::Pass,
                "browser",
                format!("{} ({v})", path.display()),
                None,
            ),
            Err(e) => check(Status::Warn, "browser", e.to_string(), Some(FIX)),
        },
        Err(e) => check(Status::Warn, "browser", e.to_string(), Some(FIX)),
    }
}

fn agent_clis() -> Check {
    let names: Vec<&str> = loki_clients::CliKind::ALL
        .iter()
        .map(|k| k.name())
        .collect();
    let found: Vec<String> = names
        .iter()
        .filter_map(|c| {
            which::which(c)
                .ok()
                .map(|p| format!("{c} ({})", p.display()))
        })
        .collect();
    if found.is_empty() {
        check(
            Status::Warn,
            "agent CLIs",
            format!("none of {} on PATH", names.join(", ")),
            Some("optional: install one to use it as --provider"),
        )
    } else {
        check(Status::Pass, "agent CLIs", found.join(", "), None)
    }
}

fn api_keys(config: &Config) -> Vec<Check> {
    [
        ("anthropic.api_key", "ANTHROPIC_API_KEY", "anthropic"),
        ("openai.api_key", "OPENAI_API_KEY", "openai"),
    ]
    .into_iter()
    .map(|(key, var, provider)| {
        let set = config.str(key).is_some_and(|s| !s.is_empty());
        let name = format!("{provider} key");
        if set {
            let src = config
                .entry(key)
                .map(|e| e.source.to_string())
                .unwrap_or_default();
            check(Status::Pass, &name, format!("set ({src})"), None)
        } else {
            check(
                Status::Warn,
                &name,
                "unset",
                Some(&format!("export {var}=… to use --provider {provider}")),
            )
        }
    })
    .collect()
}

/// The provider a run would use: an explicit choice as configured, or what `auto` picks and why.
/// An explicit choice is never replaced by another.
fn provider(config: &Config, detect: &dyn Fn() -> loki_agent::Detection) -> Check {
    let configured = config.str("provider.name").unwrap_or("auto");
    let source = config
        .entry("provider.name")
        .map(|e| e.source.to_string())
        .unwrap_or_default();
    if configured != "auto" {
        return check(
            Status::Pass,
            "provider",
            format!("{configured} (chosen explicitly: {source})"),
            None,
        );
    }
    let d = detect();
    let order: Vec<&str> = d.order.iter().map(|c| c.name).collect();
    let order = order.join(", ");
    match d.choice {
        Some(_) => check(
            Status::Pass,
            "provider",
            format!("{} (order: {order})", d.reason),
            None,
        ),
        None => check(
            Status::Warn,
            "provider",
            format!("auto finds none (order: {order})"),
            Some("set a key or install an agent CLI; `loki demo` needs none"),
        ),
    }
}

fn home(home: Option<&Path>) -> Vec<Check> {
    let Some(home) = home else {
        return vec![check(
            Status::Fail,
            "LOKI_HOME",
            "neither LOKI_HOME nor HOME is set",
            Some("set LOKI_HOME"),
        )];
    };
    let mut v = Vec::new();
    match std::fs::metadata(home) {
        Err(_) => v.push(check(
            Status::Pass,
            "LOKI_HOME",
            format!("{} (created on first use)", home.display()),
            None,
        )),
        Ok(m) if m.permissions().mode() & 0o022 != 0 => v.push(check(
            Status::Fail,
            "LOKI_HOME",
            format!(
                "{} is writable by others (mode {:o})",
                home.display(),
                m.permissions().mode() & 0o777
            ),
            Some(&format!("chmod go-w {}", home.display())),
        )),
        Ok(_) => v.push(check(
            Status::Pass,
            "LOKI_HOME",
            home.display().to_string(),
            None,
        )),
    }
    v.push(signing_key(&loki_core::layout::default_signing_key_path(
        home,
    )));
    v
}

fn signing_key(path: &Path) -> Check {
    let name = "signing key";
    match std::fs::symlink_metadata(path) {
        Err(_) => check(
            Status::Pass,
            name,
            format!("{} (created on first seal)", path.display()),
            None,
        ),
        Ok(m) if m.file_type().is_symlink() => check(
            Status::Fail,
            name,
            format!(
                "{} is a symlink; loki refuses to sign with it",
                path.display()
            ),
            Some("replace it with the key file itself, mode 0600"),
        ),
        Ok(m) if m.permissions().mode() & 0o077 != 0 => check(
            Status::Fail,
            name,
            format!(
                "{} is readable by others (mode {:o})",
                path.display(),
                m.permissions().mode() & 0o777
            ),
            Some(&format!("chmod 600 {}", path.display())),
        ),
        Ok(_) => check(
            Status::Pass,
            name,
            format!("{} (mode 600)", path.display()),
            None,
        ),
    }
}
