//! The app boot check: find how the project starts, start it, see that it comes up, stop it.
//!
//! # Start commands (at the checkout's root; every one found is booted)
//! - Node: the first of the `package.json` scripts `start`, `serve`, `dev`, `preview`, as
//!   `npm run <script>`.
//! - Rust: a binary crate (`src/main.rs` or a `[[bin]]`): `cargo build --bins` first (not counted
//!   in the boot window), then `cargo run --quiet`.
//! - Go: a `main` package at the root of a `go.mod` module: `go build -o <tmp>/app .` first, then
//!   the binary.
//! - Python: a package with `__main__.py` at the root or under `src/`: `python3 -m <pkg>`.
//!
//! # Booted, crashed
//! The app runs in its own process group with a closed stdin, the environment it is given (the
//! checks' box's; the scrubbed environment when none is) plus `PORT=<a free port>` and
//! `HOST=127.0.0.1`, and bounded output. It has **booted** when it
//! listens on `PORT` (then `GET /` is sent and must not answer 5xx), stays alive for the boot
//! window, or exits 0 on its own (a program that is not a server). It **crashed on boot** when its
//! build fails, it exits non-zero or by a signal first, or its `GET /` answers 5xx; the exit code
//! and the output tail say why. It is stopped by killing its whole group.
//!
//! A ready line printed without listening is not waited for (the output is read at the end): such
//! an app counts as booted once it has stayed up for the window.

use std::ffi::OsString;
use std::io::{Read as _, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use loki_process::{self as process, Cancel, Exit, Spec};
use serde::{Deserialize, Serialize};

/// How long a started app must stay up (or take at most to listen).
pub const DEFAULT_BOOT_WINDOW: Duration = Duration::from_secs(10);
/// How long a build before the boot may take.
const BUILD_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// Bytes of output kept in the log and in a crash report's tail.
const OUTPUT_CAP: usize = 64 * 1024;
/// Characters of output tail quoted in a crash reason.
const TAIL_CHARS: usize = 800;
const POLL: Duration = Duration::from_millis(100);

/// One way to start the project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartCommand {
    /// `npm`, `cargo`, `go`, `python`.
    pub ecosystem: String,
    /// A build to run first (argv), outside the boot window.
    pub build: Option<Vec<String>>,
    /// The start command (argv). For Go, `{bin}` stands for the built binary.
    pub start: Vec<String>,
    /// Extra environment (`PYTHONPATH` for a `src/` layout).
    pub env: Vec<(String, String)>,
    /// Why this command was chosen.
    pub why: String,
}

impl StartCommand {
    /// The start command as one line.
    #[must_use]
    pub fn command_line(&self) -> String {
        self.start
            .iter()
            .map(|a| process::shell_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// How a boot went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum BootStatus {
    /// It came up: `how` says whether it listened (and what `GET /` answered), stayed up or
    /// exited 0.
    Booted { how: String },
    /// It did not: the build failed, it exited early, or it answered 5xx.
    Crashed {
        reason: String,
        exit_code: Option<i32>,
        tail: String,
    },
    /// It could not be tried (the program is missing, no port could be had).
    NotRun { reason: String },
}

/// The result of booting one start command.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootResult {
    pub command: StartCommand,
    pub status: BootStatus,
    pub duration_s: f64,
    /// Everything the build and the app printed (bounded), for the check's log.
    pub log: String,
}

/// Finds every start command at `root` (see the module doc for the order and rules).
#[must_use]
pub fn find_start_commands(root: &Path) -> Vec<StartCommand> {
    let mut out = Vec::new();
    out.extend(node(root));
    out.extend(cargo(root));
    out.extend(go(root));
    out.extend(python(root));
    out
}

fn node(root: &Path) -> Option<StartCommand> {
    let text = std::fs::read_to_string(root.join("package.json")).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    let scripts = json.get("scripts")?.as_object()?;
    let name = ["start", "serve", "dev", "preview"]
        .into_iter()
        .find(|s| scripts.get(*s).and_then(|v| v.as_str()).is_some())?;
    Some(StartCommand {
        ecosystem: "npm".to_string(),
        build: None,
        start: vec!["npm".into(), "run".into(), name.into()],
        env: Vec::new(),
        why: format!("package.json has a `{name}` script"),
    })
}

fn cargo(root: &Path) -> Option<StartCommand> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).ok()?;
    let has_bin = root.join("src/main.rs").is_file() || manifest.contains("[[bin]]");
    if !has_bin {
        return None;
    }
    Some(StartCommand {
        ecosystem: "cargo".to_string(),
        build: Some(vec![
            "cargo".into(),
            "build".into(),
            "--quiet".into(),
            "--bins".into(),
        ]),
        start: vec!["cargo".into(), "run".into(), "--quiet".into()],
        env: Vec::new(),
        why: "Cargo.toml builds a binary".to_string(),
    })
}

fn go(root: &Path) -> Option<StartCommand> {
    if !root.join("go.mod").is_file() {
        return None;
    }
    let main = std::fs::read_dir(root).ok()?.flatten().any(|e| {
        let p = e.path();
        p.extension().is_some_and(|x| x == "go")
            && !p.to_string_lossy().ends_with("_test.go")
            && std::fs::read_to_string(&p)
                .is_ok_and(|t| t.lines().any(|l| l.trim() == "package main"))
    });
    if !main {
        return None;
    }
    Some(StartCommand {
        ecosystem: "go".to_string(),
        build: Some(vec![
            "go".into(),
            "build".into(),
            "-o".into(),
            "{bin}".into(),
            ".".into(),
        ]),
        start: vec!["{bin}".into()],
        env: Vec::new(),
        why: "go.mod with a `main` package at the root".to_string(),
    })
}

fn python(root: &Path) -> Option<StartCommand> {
    for (base, pythonpath) in [(root.to_path_buf(), None), (root.join("src"), Some("src"))] {
        let Ok(entries) = std::fs::read_dir(&base) else {
            continue;
        };
        let mut pkgs: Vec<String> = entries
            .flatten()
            .filter(|e| e.path().join("__main__.py").is_file())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| !n.starts_with('.'))
            .collect();
        pkgs.sort();
        if let Some(pkg) = pkgs.into_iter().next() {
            return Some(StartCommand {
                ecosystem: "python".to_string(),
                build: None,
                start: vec!["python3".into(), "-m".into(), pkg.clone()],
                env: pythonpath
                    .map(|p| vec![("PYTHONPATH".to_string(), p.to_string())])
                    .unwrap_or_default(),
                why: format!(
                    "{}/__main__.py exists",
                    pythonpath.map_or(pkg.clone(), |p| format!("{p}/{pkg}"))
                ),
            });
        }
    }
    None
}

fn free_port() -> std::io::Result<u16> {
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(l.local_addr()?.port())
}

fn substitute(args: &[String], bin: &Path) -> Vec<String> {
    args.iter()
        .map(|a| {
            if a == "{bin}" {
                bin.to_string_lossy().into_owned()
            } else {
                a.clone()
            }
        })
        .collect()
}

fn spec(
    argv: &[String],
    root: &Path,
    cmd: &StartCommand,
    base: &[(OsString, OsString)],
    extra: &[(String, String)],
) -> Spec {
    let (program, args) = argv
        .split_first()
        .map_or(("", &[][..]), |(p, a)| (p.as_str(), a));
    let mut env = if base.is_empty() {
        process::scrubbed_env()
    } else {
        base.to_vec()
    };
    env.extend(
        cmd.env
            .iter()
            .chain(extra)
            .map(|(k, v)| (k.into(), v.into())),
    );
    Spec::new(program, root)
        .args(args)
        .envs(env)
        .output_cap(OUTPUT_CAP)
}

fn describe_exit(exit: Exit) -> (String, i32) {
    match exit {
        Exit::Code(c) => (format!("exited with code {c}"), c),
        Exit::Signal(s) => (format!("was killed by signal {s}"), 128 + s),
    }
}

/// `GET /` on the port: the status code, or why there was none.
fn probe(port: u16) -> Result<u16, String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut s =
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(|e| e.to_string())?;
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    s.write_all(b"GET / HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .map_err(|e| e.to_string())?;
    let mut buf = [0u8; 256];
    let n = s.read(&mut buf).map_err(|e| e.to_string())?;
    let head = String::from_utf8_lossy(&buf[..n]);
    head.strip_prefix("HTTP/")
        .and_then(|r| r.split(' ').nth(1))
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| "it did not answer HTTP".to_string())
}

fn listening(port: u16) -> bool {
    TcpStream::connect_timeout(
        &SocketAddr::from((Ipv4Addr::LOCALHOST, port)),
        Duration::from_millis(200),
    )
    .is_ok()
}

/// Boots `cmd` in `root`; `scratch` holds build outputs (the Go binary). `env` is the
/// environment the build and the app start from (empty: the scrubbed one), `wrapper` an argv
/// prefix they run through (the confinement; empty: none).
#[must_use]
pub fn boot(
    cmd: &StartCommand,
    root: &Path,
    scratch: &Path,
    window: Duration,
    env: &[(OsString, OsString)],
    wrapper: &[OsString],
) -> BootResult {
    let started = Instant::now();
    let bin: PathBuf = scratch.join("app");
    let mut log = String::new();
    let status = boot_inner(cmd, root, &bin, window, (env, wrapper), &mut log);
    BootResult {
        command: cmd.clone(),
        status,
        duration_s: started.elapsed().as_secs_f64(),
        log,
    }
}

fn boot_inner(
    cmd: &StartCommand,
    root: &Path,
    bin: &Path,
    window: Duration,
    (env, wrapper): (&[(OsString, OsString)], &[OsString]),
    log: &mut String,
) -> BootStatus {
    if let Err(status) = build_app(cmd, root, bin, (env, wrapper), log) {
        return status;
    }
    let port = match free_port() {
        Ok(p) => p,
        Err(e) => {
            return BootStatus::NotRun {
                reason: format!("no free port on 127.0.0.1: {e}"),
            };
        }
    };
    let (probed, output) = match start_and_probe(cmd, root, bin, window, (env, wrapper), port, log)
    {
        Ok(watched) => watched,
        Err(status) => return status,
    };
    log.push_str(&output.output.text());
    watched_status(probed, &output, port, window)
}

/// The build step of `cmd`, if it has one, its output appended to `log`; `Err` is the status
/// that ends the boot there (the build could not start, failed or timed out).
fn build_app(
    cmd: &StartCommand,
    root: &Path,
    bin: &Path,
    (env, wrapper): (&[(OsString, OsString)], &[OsString]),
    log: &mut String,
) -> Result<(), BootStatus> {
    let Some(build) = &cmd.build else {
        return Ok(());
    };
    let argv = substitute(build, bin);
    log.push_str(&format!("$ {}\n", argv.join(" ")));
    let out = process::run(
        &spec(&argv, root, cmd, env, &[])
            .timeout(BUILD_TIMEOUT)
            .wrapped(wrapper),
    )
    .map_err(|e| BootStatus::NotRun {
        reason: format!("the build could not start: {e}"),
    })?;
    log.push_str(&out.output.text());
    if !out.success() {
        let (how, code) = describe_exit(out.exit);
        return Err(BootStatus::Crashed {
            reason: if out.timed_out {
                format!("the build timed out after {}s", BUILD_TIMEOUT.as_secs())
            } else {
                format!("the build {how}")
            },
            exit_code: Some(code),
            tail: out.output.tail_text(TAIL_CHARS),
        });
    }
    Ok(())
}

/// What probing the app answered once it listened on `port` (`None`: it never listened within
/// the window), with the output of the app.
type Watched = (Option<Result<u16, String>>, process::Output);

/// Starts the app on `port` and waits, at most `window`, until it listens (then probes `GET /`
/// and stops it) or exits; `Err` is the status when it could not start or be watched.
fn start_and_probe(
    cmd: &StartCommand,
    root: &Path,
    bin: &Path,
    window: Duration,
    (env, wrapper): (&[(OsString, OsString)], &[OsString]),
    port: u16,
    log: &mut String,
) -> Result<Watched, BootStatus> {
    let argv = substitute(&cmd.start, bin);
    log.push_str(&format!("$ PORT={port} {}\n", argv.join(" ")));
    let cancel = Cancel::new();
    let extra = [
        ("PORT".to_string(), port.to_string()),
        ("HOST".to_string(), "127.0.0.1".to_string()),
    ];
    let running = process::spawn(
        &spec(&argv, root, cmd, env, &extra)
            .timeout(window)
            .cancel_with(cancel.clone())
            .wrapped(wrapper),
    )
    .map_err(|e| BootStatus::NotRun {
        reason: format!("`{}` could not start: {e}", cmd.command_line()),
    })?;
    let waiter = std::thread::spawn(move || running.wait());
    let deadline = Instant::now() + window;
    let mut probed: Option<Result<u16, String>> = None;
    while !waiter.is_finished() && Instant::now() < deadline {
        if listening(port) {
            probed = Some(probe(port));
            cancel.cancel();
            break;
        }
        std::thread::sleep(POLL);
    }
    match waiter.join() {
        Ok(Ok(o)) => Ok((probed, o)),
        Ok(Err(e)) => Err(BootStatus::NotRun {
            reason: format!("`{}` could not be watched: {e}", cmd.command_line()),
        }),
        Err(_) => Err(BootStatus::NotRun {
            reason: "the thread watching the app panicked".to_string(),
        }),
    }
}

/// The boot's status from what the probe answered and how the app ended: a server error or an
/// exit before listening is a crash; listening, staying up or exiting 0 is booted.
fn watched_status(
    probed: Option<Result<u16, String>>,
    output: &process::Output,
    port: u16,
    window: Duration,
) -> BootStatus {
    let tail = output.output.tail_text(TAIL_CHARS);
    match probed {
        Some(Ok(code)) if code >= 500 => BootStatus::Crashed {
            reason: format!("it listened on port {port} but GET / answered {code}"),
            exit_code: None,
            tail,
        },
        Some(Ok(code)) => BootStatus::Booted {
            how: format!("listened on port {port}; GET / answered {code}"),
        },
        Some(Err(why)) => BootStatus::Booted {
            how: format!("listened on port {port}; GET / got no HTTP answer ({why})"),
        },
        None if output.timed_out => BootStatus::Booted {
            how: format!(
                "stayed up for {}s without listening on port {port}",
                window.as_secs()
            ),
        },
        None if output.success() => BootStatus::Booted {
            how: "ran and exited 0 (not a server)".to_string(),
        },
        None => {
            let (how, code) = describe_exit(output.exit);
            BootStatus::Crashed {
                reason: format!("it {how} before listening on port {port}"),
                exit_code: Some(code),
                tail,
            }
        }
    }
}
