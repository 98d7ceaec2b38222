//! Visual evidence of a build run: screenshots of the web pages its change touched.
//!
//! # When
//! [`plan`] decides from the changed paths and the checkout: there is something to capture when
//! at least one changed path is a page file ([`crate::routes::is_page_file`]) and the checkout is
//! a web app, that is it has a way to be served ([`Launcher`]) or a changed file is markup
//! (`.html`, `.vue`, `.svelte`, `.astro`). A library whose `.js` changed is not a web app: nothing
//! is captured and nothing is said.
//!
//! # How ([`capture`])
//! 1. The browser is found ([`crate::launch::find`], or the caller's) before anything starts.
//! 2. The app is served: the first of the `package.json` scripts `dev`, `preview`, `start` as
//!    `npm run <script>`, in the checkout, with the caller's environment and wrapper (the run's
//!    box), `PORT=<a free port>` and `HOST=127.0.0.1` (and `-- --port N --host 127.0.0.1` for a
//!    dev server that ignores `PORT`: Vite, Astro, Nuxt, Angular, webpack, Parcel), in its own process group with a closed
//!    stdin and bounded output ([`crate::harness`]'s server runner); or, with no such script and
//!    an `index.html` at the root, [`crate::serve`] over the checkout. It is up when
//!    `http://127.0.0.1:<port>/` answers HTTP.
//! 3. Each route ([`crate::routes::routes_for`], at most [`crate::routes::MAX_ROUTES`]) is loaded
//!    in a fresh page at the fixed viewport ([`crate::page::screenshot`]) and its PNG written
//!    atomically as `<out_dir>/NN-<slug>.png` (`01-about.png`), with its SHA-256 and size.
//! 4. The browser and the app's whole process group are stopped, whatever happened.
//!
//! # Failure modes
//! Capture never fails its caller: no browser, no way to serve the app, a script that exits or
//! never listens, a page that does not load, the time budget spent — each is a line in
//! [`Capture::skipped`] (for NOT PROVEN) naming what was not captured and why. Every wait is
//! bounded: starting the app and each page by the budget, the browser's launch by its own limit.

use std::ffi::OsString;
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use loki_process::Spec;
use sha2::{Digest, Sha256};

use crate::harness::{ServerProc, wait_until_answers};
use crate::routes;
use crate::{Browser, BrowserError};

/// The `package.json` scripts that serve the app, in the order they are preferred: a dev server
/// needs no build step, a preview serves a build, `start` is often production.
pub const SCRIPTS: &[&str] = &["dev", "preview", "start"];
/// Time a page gets after `load` for late rendering (fonts, client-side frameworks).
const SETTLE: Duration = Duration::from_millis(500);
/// Output of the app kept (head and tail) for the reason it did not come up.
const OUTPUT_CAP: usize = 64 * 1024;
/// Characters of the app's output quoted in a reason.
const TAIL_CHARS: usize = 600;
/// The least time worth starting a page load with.
const MIN_LOAD: Duration = Duration::from_millis(500);

/// How the app is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launcher {
    /// `npm run <script>`.
    Script(String),
    /// [`crate::serve`] over the checkout (it has an `index.html` and no script).
    Static,
}

impl Launcher {
    /// As said in reasons.
    #[must_use]
    pub fn describe(&self) -> String {
        match self {
            Launcher::Script(s) => format!("`npm run {s}`"),
            Launcher::Static => "the static file server".to_string(),
        }
    }
}

/// What a run's change asks to capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The routes, in order.
    pub routes: Vec<String>,
    /// Routes left out by [`routes::MAX_ROUTES`].
    pub dropped: usize,
    /// How to serve the app (`None`: there is no way; capture says so).
    pub launcher: Option<Launcher>,
}

/// The launcher of the app at `root` (see the module doc).
#[must_use]
pub fn launcher(root: &Path) -> Option<Launcher> {
    let script = std::fs::read_to_string(root.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|json| {
            let scripts = json.get("scripts")?.as_object()?.clone();
            SCRIPTS
                .iter()
                .find(|s| scripts.get(**s).and_then(|v| v.as_str()).is_some())
                .map(|s| (*s).to_string())
        });
    match script {
        Some(s) => Some(Launcher::Script(s)),
        None if root.join("index.html").is_file() => Some(Launcher::Static),
        None => None,
    }
}

/// What to capture for a change of `changed` (paths relative to `root`), or `None` when the
/// change touched no page of a web app (see the module doc).
#[must_use]
pub fn plan(root: &Path, changed: &[String]) -> Option<Plan> {
    let pages: Vec<String> = changed
        .iter()
        .filter(|p| routes::is_page_file(p))
        .cloned()
        .collect();
    if pages.is_empty() {
        return None;
    }
    let launcher = launcher(root);
    if launcher.is_none() && !pages.iter().any(|p| routes::is_markup(p)) {
        return None;
    }
    let (routes, dropped) = routes::routes_for(&pages);
    Some(Plan {
        routes,
        dropped,
        launcher,
    })
}

/// One capture.
#[derive(Debug, Clone)]
pub struct Request {
    /// The checkout the app is served from.
    pub root: PathBuf,
    pub plan: Plan,
    /// Where the PNGs go (created when needed).
    pub out_dir: PathBuf,
    /// The app's environment (`PORT` and `HOST` are added).
    pub env: Vec<(OsString, OsString)>,
    /// An argv prefix the app runs through (the run's box; empty: none).
    pub wrapper: Vec<OsString>,
    /// Everything (starting the app and the browser, every page) ends within this.
    pub budget: Duration,
    /// The browser (`None`: [`crate::launch::find`]).
    pub browser: Option<PathBuf>,
}

/// One screenshot written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shot {
    pub route: String,
    /// Its file name in the output directory (`01-about.png`).
    pub file: String,
    /// Hex SHA-256 of the PNG.
    pub sha256: String,
    pub bytes: u64,
}

/// What a capture produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Capture {
    pub shots: Vec<Shot>,
    /// One line per thing not captured, with the reason (`visual evidence: …`).
    pub skipped: Vec<String>,
}

/// Captures the plan's routes; never fails (see the module doc).
#[must_use]
pub fn capture(req: &Request) -> Capture {
    let mut out = Capture::default();
    let deadline = Instant::now() + req.budget;
    if let Err(why) = capture_inner(req, deadline, &mut out) {
        let missing: Vec<&str> = req
            .plan
            .routes
            .iter()
            .filter(|r| !out.shots.iter().any(|s| &s.route == *r))
            .map(String::as_str)
            .collect();
        out.skipped.push(format!(
            "visual evidence: {} not captured: {why}",
            missing.join(", ")
        ));
    }
    if req.plan.dropped > 0 {
        out.skipped.push(format!(
            "visual evidence: {} more changed route(s) not captured (at most {} per run)",
            req.plan.dropped,
            routes::MAX_ROUTES
        ));
    }
    out
}

/// Serves the app, then shoots each route; an `Err` is the reason every route not yet shot was
/// skipped.
fn capture_inner(req: &Request, deadline: Instant, out: &mut Capture) -> Result<(), String> {
    let program = match &req.browser {
        Some(p) => which::which(p).map_err(|_| {
            BrowserError::NotFound {
                looked: format!("{} is not an executable", p.display()),
            }
            .to_string()
        })?,
        None => crate::launch::find().map_err(|e| e.to_string())?,
    };
    let Some(launcher) = &req.plan.launcher else {
        return Err(format!(
            "the app has no way to be served (no {} script in package.json, no index.html at its root)",
            SCRIPTS.join(", ")
        ));
    };
    // Held until the end: dropping either stops the app.
    let (origin, _server, _static) = match launcher {
        Launcher::Script(name) => {
            let port = free_port().map_err(|e| format!("no free port on 127.0.0.1: {e}"))?;
            let mut args = vec!["run".to_string(), name.clone()];
            args.extend(port_args(&script_text(&req.root, name), port));
            let spec = Spec::new("npm", &req.root)
                .args(args)
                .envs(req.env.clone())
                .env("PORT", port.to_string())
                .env("HOST", "127.0.0.1")
                .timeout(left(deadline))
                .output_cap(OUTPUT_CAP)
                .wrapped(&req.wrapper);
            let mut server = ServerProc::spawn(spec).map_err(|e| e.to_string())?;
            let origin = format!("http://127.0.0.1:{port}");
            wait_until_answers(&format!("{origin}/"), Some(&mut server), left(deadline)).map_err(
                |e| match e {
                    BrowserError::NotLoaded { .. } => format!(
                        "{} did not listen on port {port} (its PORT) within the time budget of {}s",
                        launcher.describe(),
                        req.budget.as_secs()
                    ),
                    other => tail(&other.to_string()),
                },
            )?;
            (origin, Some(server), None)
        }
        Launcher::Static => {
            let server = crate::serve::Server::start(&req.root).map_err(|e| e.to_string())?;
            (server.origin(), None, Some(server))
        }
    };
    if left(deadline) < MIN_LOAD {
        return Err(spent(req.budget));
    }
    // The launch has its own bound (`launch::LAUNCH_TIMEOUT`); the pages are held to the budget.
    let mut browser = Browser::launch(&program).map_err(|e| e.to_string())?;
    let result = shoot_all(req, &mut browser, &origin, deadline, out);
    browser.close();
    result
}

fn shoot_all(
    req: &Request,
    browser: &mut Browser,
    origin: &str,
    deadline: Instant,
    out: &mut Capture,
) -> Result<(), String> {
    std::fs::create_dir_all(&req.out_dir)
        .map_err(|e| format!("cannot create {}: {e}", req.out_dir.display()))?;
    for (i, route) in req.plan.routes.iter().enumerate() {
        let remaining = left(deadline);
        if remaining < MIN_LOAD {
            return Err(spent(req.budget));
        }
        let url = crate::page::join_url(origin, route);
        let png = match crate::page::screenshot(browser, &url, SETTLE.min(remaining), remaining) {
            Ok(png) => png,
            // A page that does not load is that route's problem; the browser is still usable.
            Err(e) if e.is_page_problem() => {
                out.skipped
                    .push(format!("visual evidence: {route} not captured: {e}"));
                continue;
            }
            Err(e) => return Err(e.to_string()),
        };
        let file = format!("{:02}-{}.png", i + 1, routes::slug(route));
        let path = req.out_dir.join(&file);
        loki_core::fs::write_atomic(&path, &png).map_err(|e| e.to_string())?;
        out.shots.push(Shot {
            route: route.clone(),
            file,
            sha256: hex::encode(Sha256::digest(&png)),
            bytes: png.len() as u64,
        });
    }
    Ok(())
}

/// Dev servers that ignore `PORT` and take the port as a flag: the first word of the script.
/// Each accepts `--port N --host H` (Vite and what is built on it, Astro, Nuxt, Angular,
/// webpack's dev server, Parcel). Next.js and Create React App read `PORT`.
const PORT_FLAG_SERVERS: &[&str] = &[
    "vite",
    "astro",
    "nuxt",
    "nuxi",
    "ng",
    "webpack",
    "webpack-dev-server",
    "parcel",
];

/// The text of the `package.json` script `name` at `root` (empty when unreadable).
fn script_text(root: &Path, name: &str) -> String {
    std::fs::read_to_string(root.join("package.json"))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|json| Some(json.get("scripts")?.get(name)?.as_str()?.to_string()))
        .unwrap_or_default()
}

/// Arguments `npm run` passes on to a script whose server takes its port as a flag. Only for a
/// single command: npm appends them to the script's end, which in `a && b` is `b`'s.
fn port_args(script: &str, port: u16) -> Vec<String> {
    if script.contains("&&")
        || script.contains("||")
        || script.contains(';')
        || script.contains('|')
    {
        return Vec::new();
    }
    // `cross-env X=1 vite`, `FOO=1 vite`: the program is the first word that is not an assignment.
    let program = script
        .split_whitespace()
        .find(|w| !w.contains('=') && *w != "cross-env" && *w != "env");
    match program {
        Some(p) if PORT_FLAG_SERVERS.contains(&p) => vec![
            "--".to_string(),
            "--port".to_string(),
            port.to_string(),
            "--host".to_string(),
            "127.0.0.1".to_string(),
        ],
        _ => Vec::new(),
    }
}

fn spent(budget: Duration) -> String {
    format!("the time budget of {}s was spent", budget.as_secs())
}

fn left(deadline: Instant) -> Duration {
    deadline.saturating_duration_since(Instant::now())
}

fn free_port() -> std::io::Result<u16> {
    let l = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(l.local_addr()?.port())
}

/// The last [`TAIL_CHARS`] characters of a long reason (an app's output).
fn tail(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= TAIL_CHARS {
        return s.to_string();
    }
    let kept: String = chars[chars.len() - TAIL_CHARS..].iter().collect();
    format!("…{kept}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &str) {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        loki_core::fs::write_atomic(&p, text.as_bytes()).unwrap();
    }

    fn changed(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|p| (*p).to_string()).collect()
    }

    #[test]
    fn servers_that_ignore_port_get_it_as_a_flag_and_only_for_one_command() {
        let flags = ["--", "--port", "4100", "--host", "127.0.0.1"];
        for script in [
            "vite",
            "vite dev --open",
            "cross-env NODE_ENV=dev astro dev",
            "ng serve",
        ] {
            assert_eq!(port_args(script, 4100), flags, "{script}");
        }
        for script in [
            "next dev",
            "react-scripts start",
            "node server.js",
            "vite build && vite preview",
            "",
        ] {
            assert!(port_args(script, 4100).is_empty(), "{script}");
        }
    }

    #[test]
    fn the_launcher_prefers_dev_then_preview_then_start_then_a_static_index() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(launcher(d.path()), None);
        write(d.path(), "index.html", "<h1>x</h1>");
        assert_eq!(launcher(d.path()), Some(Launcher::Static));
        write(
            d.path(),
            "package.json",
            r#"{"scripts":{"start":"node s.js","preview":"vite preview","test":"x"}}"#,
        );
        assert_eq!(launcher(d.path()), Some(Launcher::Script("preview".into())));
        write(
            d.path(),
            "package.json",
            r#"{"scripts":{"start":"node s.js","dev":"vite"}}"#,
        );
        assert_eq!(launcher(d.path()), Some(Launcher::Script("dev".into())));
    }

    #[test]
    fn a_library_script_change_plans_nothing_and_markup_always_plans() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "package.json", r#"{"scripts":{"test":"vitest"}}"#);
        assert_eq!(plan(d.path(), &changed(&["math.js"])), None);
        assert_eq!(
            plan(d.path(), &changed(&["README.md", "tests/a.test.js"])),
            None
        );
        let p = plan(d.path(), &changed(&["src/App.vue"]));
        assert_eq!(
            p,
            Some(Plan {
                routes: vec!["/".into()],
                dropped: 0,
                launcher: None
            })
        );
    }
}
