//! `loki doctor --airgap`'s audit: every network destination loki itself can contact, with the
//! setting that turns it off and whether it is off now ([`destinations`]), then a proof that with
//! all of them off a build opens no internet socket ([`prove`]); `loki_term::doctor::airgap` is the human report.
//!
//! # Destinations
//! The providers (Anthropic, the OpenAI-compatible base URL, from the configuration), the model
//! hosts of each CLI agent loki can drive (`loki_clients::CliKind::model_hosts`), the issue
//! trackers and forges (`loki_intake::Endpoints::from_env`), the control plane
//! (`LOKI_CONTROL_URL`, or the URL in `$LOKI_HOME/control/instance.json` of a running
//! `loki serve`) and Slack (`LOKI_SLACK_API_URL`). A destination is `off` (nothing would contact
//! it now), `on` (a build or server would) or `on request` (contacted only when a command names
//! it, such as `loki issue owner/repo#1`).
//!
//! # The proof
//! `loki demo` (scripted model, no key) runs as a child of `loki __confine --no-network` (a fresh
//! network namespace, Landlock writes limited to its temp dir, `$LOKI_HOME` and `/dev/null`),
//! with an environment scrubbed of every destination's variables, under `strace -f -e
//! trace=socket,connect` when `strace` is on PATH. The counter is the number of `socket()` calls
//! of the families `AF_INET` and `AF_INET6`; other families (`AF_UNIX`, `AF_NETLINK`) are counted
//! apart and do not fail it. Pass: the demo ended VERIFIED and the counter is 0. Without strace
//! the counter is `none` and the audit says so (the namespace alone still holds the network
//! back, but nothing was counted): the verdict is then `unproven`, exit 1.
//!
//! The binary exits 0 on pass, 1 otherwise. `--json`: `{destinations: [...], proof: {...}, pass}`.
//!
//! # Failure modes
//! [`prove`] fails ([`DoctorError`]) only when the demo cannot be started or its trace read; a
//! demo that ran and did not verify, or a missing counter, is a [`Proof`] that does not pass.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use loki_core::config::Config;
use loki_process as process;
use serde::Serialize;

use crate::error::DoctorError;

/// The demo builds a small crate: minutes on a loaded machine at worst.
const DEMO_TIMEOUT: Duration = Duration::from_secs(600);
const OUTPUT_CAP: usize = 256 * 1024;

#[derive(Debug, Clone, Serialize)]
pub struct Destination {
    pub what: String,
    pub url: String,
    /// What turns it off.
    pub off_by: String,
    /// `off`, `on` or `on request`.
    pub state: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct Proof {
    /// `strace` or `none`.
    pub counter: String,
    pub demo_exit: Option<i32>,
    pub demo_verified: bool,
    /// `socket()` calls of AF_INET / AF_INET6, when counted.
    pub inet_sockets: Option<u64>,
    /// Other families (AF_UNIX, AF_NETLINK…), when counted.
    pub other_sockets: Option<u64>,
    /// Programs the tracer saw started (the demo's tree), when counted.
    pub programs_traced: Option<u64>,
    pub pass: bool,
    pub detail: String,
}

fn state(off: bool) -> &'static str {
    if off { "off" } else { "on" }
}

/// Every destination, in a fixed order, for configuration `c` and `$LOKI_HOME` `home`.
#[must_use]
pub fn destinations(c: &Config, home: Option<&Path>) -> Vec<Destination> {
    let provider = c.str("provider.name").unwrap_or("auto").to_string();
    let mut v = Vec::new();
    for (what, name, base) in [
        ("Anthropic API", "anthropic", "anthropic.base_url"),
        ("OpenAI-compatible API", "openai", "openai.base_url"),
    ] {
        let key = format!("{name}.api_key");
        let off = c.str(&key).is_none() && provider != name;
        v.push(Destination {
            what: what.into(),
            url: c.str(base).unwrap_or("(unset)").into(),
            off_by: format!(
                "no {key} (LOKI_{}) and provider.name is not {name}",
                key.to_uppercase().replace('.', "_")
            ),
            state: state(off),
        });
    }
    for kind in loki_clients::CliKind::ALL {
        let name = kind.name();
        v.push(Destination {
            what: format!("{name} CLI agent's model hosts"),
            url: kind.model_hosts().join(" "),
            off_by: format!("provider.name is not {name}"),
            state: state(provider != name),
        });
    }
    let e = loki_intake::Endpoints::from_env();
    let on_request = "on request";
    let trackers = [
        (
            "GitHub API",
            e.github_api_url.clone(),
            "LOKI_GITHUB_API_URL",
        ),
        ("GitLab", e.gitlab_url.clone(), "GITLAB_URL"),
        (
            "Jira",
            e.jira_base_url.clone().unwrap_or_else(|| "(unset)".into()),
            "JIRA_BASE_URL",
        ),
        (
            "Linear API",
            e.linear_api_url.clone(),
            "LOKI_LINEAR_API_URL",
        ),
    ];
    for (what, url, var) in trackers {
        let off = url == "(unset)";
        v.push(Destination {
            what: format!("{what} (issues, pull requests)"),
            url,
            off_by: format!(
                "name no issue reference (`loki issue`, `loki pr`); {var} points it elsewhere"
            ),
            state: if off { "off" } else { on_request },
        });
    }
    let control = loki_core::env::CONTROL_URL.get().or_else(|| {
        let bytes = std::fs::read(home?.join("control").join("instance.json")).ok()?;
        let j: serde_json::Value = serde_json::from_slice(&bytes).ok()?;
        j.get("url").and_then(|u| u.as_str()).map(str::to_string)
    });
    v.push(Destination {
        what: "control plane".into(),
        url: control.clone().unwrap_or_else(|| "(none)".into()),
        off_by: "unset LOKI_CONTROL_URL and stop `loki serve`".into(),
        state: state(control.is_none()),
    });
    let slack_off = !loki_core::env::SLACK_INBOUND
        .get()
        .is_none_or(|_| loki_core::env::SLACK_INBOUND.is_on())
        || loki_core::env::SLACK_BOT_TOKEN.get().is_none();
    v.push(Destination {
        what: "Slack (loki slack serve)".into(),
        url: loki_core::env::SLACK_API_URL
            .get()
            .unwrap_or_else(|| loki_core::env::SLACK_API_DEFAULT.into()),
        off_by: "LOKI_SLACK_INBOUND=0, or no SLACK_BOT_TOKEN".into(),
        state: state(slack_off),
    });
    v
}

/// Variables that would point the demo at a destination; the child never sees them.
fn is_destination_var(name: &str) -> bool {
    name.starts_with("SLACK_")
        || name.starts_with("LOKI_SLACK_")
        || name == loki_core::env::CONTROL_URL.name
        || name.ends_with("_API_KEY")
        || name.ends_with("_TOKEN")
        || name.ends_with("_BASE_URL")
        || name.ends_with("_API_URL")
        || name.starts_with("LOKI_PROVIDER_")
        || name.contains("PROXY")
        || name.contains("proxy")
}

/// Counts `socket(` calls in an strace file: (AF_INET or AF_INET6, any other family, programs
/// executed). The executions show the tracer saw the demo's process tree at all.
#[must_use]
pub fn count_sockets(trace: &str) -> (u64, u64, u64) {
    let mut inet = 0;
    let mut other = 0;
    let mut execs = 0;
    for line in trace.lines() {
        if line.contains("execve(") && !line.contains("= -1") {
            execs += 1;
        }
        let Some(at) = line.find("socket(") else {
            continue;
        };
        let args = &line[at + "socket(".len()..];
        if args.starts_with("AF_INET,") || args.starts_with("AF_INET6,") {
            inet += 1;
        } else {
            other += 1;
        }
    }
    (inet, other, execs)
}

/// Runs `loki demo` (`exe` is the loki binary) confined without network, with `home` as its
/// `$LOKI_HOME`, counting its sockets.
pub fn prove(exe: &Path, home: &Path) -> Result<Proof, DoctorError> {
    let io = |what: &'static str| move |source| DoctorError::Io { what, source };
    let exe = exe.to_path_buf();
    let home = home.to_path_buf();
    let tmp = loki_core::scratch::Scratch::new("loki-airgap-")
        .map_err(io("create the demo's temporary directory"))?;
    let work = tmp.path().join("tmp");
    std::fs::create_dir_all(&work).map_err(io("create the demo's temporary directory"))?;
    std::fs::create_dir_all(&home).map_err(io("create LOKI_HOME"))?;
    let trace = tmp.path().join("strace.txt");
    let strace = which::which("strace").ok();
    let mut argv: Vec<OsString> = Vec::new();
    if let Some(s) = &strace {
        argv.extend([
            s.clone().into_os_string(),
            "-f".into(),
            "-qq".into(),
            "-e".into(),
            "trace=socket,connect,execve".into(),
            "-o".into(),
            trace.clone().into_os_string(),
            "--".into(),
        ]);
    }
    argv.push(exe.clone().into_os_string());
    argv.push(loki_process::confine::WRAPPER_SUBCOMMAND.into());
    argv.push("--no-network".into());
    for w in [&work, &home, &PathBuf::from("/dev/null")] {
        argv.extend(["--write".into(), w.clone().into_os_string()]);
    }
    argv.extend(["--".into(), exe.clone().into_os_string(), "demo".into()]);
    let mut argv = argv.into_iter();
    let program = argv.next().unwrap_or_else(|| exe.clone().into_os_string());
    let mut env: Vec<(OsString, OsString)> = process::scrubbed_env()
        .into_iter()
        .filter(|(k, _)| !is_destination_var(&k.to_string_lossy()))
        .collect();
    // Everything the demo writes stays in its temp dir (the confinement allows no other): a
    // caller's CARGO_TARGET_DIR would send the demo crate's build elsewhere.
    env.retain(|(k, _)| k != "TMPDIR" && k != "LOKI_HOME" && k != "CARGO_TARGET_DIR");
    env.push(("TMPDIR".into(), work.clone().into_os_string()));
    env.push(("LOKI_HOME".into(), home.into_os_string()));
    let spec = process::Spec::new(program, tmp.path())
        .args(argv)
        .envs(env)
        .timeout(DEMO_TIMEOUT)
        .output_cap(OUTPUT_CAP);
    let out = process::run(&spec)?;
    let text = out.output.text();
    let demo_exit = match out.exit {
        process::Exit::Code(c) => Some(c),
        process::Exit::Signal(_) => None,
    };
    let demo_verified = demo_exit == Some(0) && text.contains("Outcome:    VERIFIED");
    let counted = strace
        .as_ref()
        .map(|_| std::fs::read_to_string(&trace).map(|t| count_sockets(&t)))
        .transpose()
        .map_err(io("read the strace output"))?;
    let (inet, other) = (counted.map(|c| c.0), counted.map(|c| c.1));
    let execs = counted.map_or(0, |c| c.2);
    // A trace without the demo's programs counted nothing.
    let pass = demo_verified && inet == Some(0) && execs > 1;
    let detail = if out.timed_out {
        format!("the demo did not end within {}s", DEMO_TIMEOUT.as_secs())
    } else if !demo_verified {
        let tail: Vec<&str> = text.lines().rev().take(5).collect();
        format!(
            "the demo did not end VERIFIED (exit {demo_exit:?}): {}",
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )
    } else if strace.is_some() && execs <= 1 {
        "strace recorded none of the demo's programs: nothing was counted".into()
    } else if strace.is_none() {
        "no socket counter available (install strace): the demo ran without network, nothing was counted".into()
    } else {
        String::new()
    };
    Ok(Proof {
        counter: if strace.is_some() { "strace" } else { "none" }.into(),
        demo_exit,
        demo_verified,
        inet_sockets: inet,
        other_sockets: other,
        programs_traced: counted.map(|c| c.2),
        pass,
        detail,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sockets_are_counted_by_family() {
        let t = "11 execve(\"/usr/bin/git\", [\"git\"], 0x0) = 0\n12 execve(\"/nope\", [], 0x0) = -1 ENOENT\n12 socket(AF_UNIX, SOCK_STREAM, 0) = 3\n13 socket(AF_INET6, SOCK_DGRAM, 0) = 4\n13 socket(AF_INET, SOCK_STREAM, 0) = -1 EACCES\n14 connect(3, {sa_family=AF_UNIX}, 110) = 0\n";
        assert_eq!(count_sockets(t), (2, 1, 1));
    }

    #[test]
    fn destination_variables_are_kept_from_the_demo() {
        assert!(is_destination_var("SLACK_BOT_TOKEN"));
        assert!(is_destination_var(loki_core::env::CONTROL_URL.name));
        assert!(!is_destination_var("PATH"));
    }
}
