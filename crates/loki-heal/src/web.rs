//! Browser incidents: what `loki run --url` records and how its reproduction checks the page.
//!
//! A page crash is recorded through the same machinery as a process crash
//! ([`crate::record::observe`]): the observed command is loki's own hidden page check,
//! [`page_command`] (`loki __page --url URL [--serve DIR] [--steps-json JSON] [-- SERVER…]`),
//! which starts the server, loads the page in headless Chromium, runs the steps and prints what
//! went wrong in the Node/V8 stack format the parsers read ([`render`]):
//!
//! ```text
//! Uncaught TypeError: Cannot read properties of null (reading 'total')
//!     at average (/repo/site/app.js:3:17)
//!     at HTMLButtonElement.<anonymous> (/repo/site/app.js:9:5)
//!
//! UnhandledRejection: Error: no orders
//!     at load (/repo/site/app.js:14:9)
//! ConsoleError: save failed 500
//!     at save (/repo/site/app.js:20:11)
//! RequestFailed: GET /api/orders.json 404 Not Found
//!     at load (/repo/site/app.js:13:3)
//! ```
//!
//! (The incident's `crash.lang` is therefore `node`: V8's format, the same engine.) Each problem
//! is a head line (`Uncaught <Name>: msg`, `UnhandledRejection: <desc>`,
//! `ConsoleError: <args>`, `RequestFailed: <method> <path> <status>`) and its frames, innermost
//! first; the first problem is the crash. The check exits 1 when there was a problem, 0 when
//! there was none, and [`PAGE_HARNESS_EXIT`] when it could not tell (no browser, the page never
//! loaded, a step's selector matched nothing): `loki run` records no incident for that, and
//! `repro.sh` reports it as `[HARNESS]`, so `loki fix` keeps the patch and its backup.
//!
//! # Frames to files ([`Mapper`])
//! A frame URL of the page's own origin is a served path: `/static/app.js` is
//! `<serve root>/static/app.js` (the serve root is `--serve DIR`, else the directory the check
//! runs in), else the first of `<repo>/static/app.js` and `<repo>/<dir>/static/app.js` for the
//! usual static directories ([`STATIC_DIRS`]) that exists. When that file ends with `//# sourceMappingURL=<map>` (a file beside it or a
//! `data:…;base64,` URL), the position is looked up in the map and the frame names the original
//! source (`webpack:///`, `file://` and `./` prefixes stripped, relative to the map's
//! directory) and its line, column and name. A frame is mapped only to a file inside the
//! repository; anything else keeps its path (same origin) or its URL, and the port of a server
//! started per run never enters the output.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use loki_browser::{PageError, PageErrorKind, UrlFrame};

use crate::HealError;

/// The hidden subcommand that checks a page.
pub const PAGE_SUBCOMMAND: &str = "__page";
/// Exit code of a page check that could not tell (see the module doc).
pub const PAGE_HARNESS_EXIT: i32 = 3;
/// When set for a page check, the screencast is written to this file (an animated PNG).
pub const VIDEO_ENV: &str = loki_core::env::PAGE_VIDEO.name;
/// The file `loki replay --video` writes in the incident's run directory.
pub const VIDEO_FILE: &str = "replay.png";

/// A web page to check, as `loki run --url` names it.
#[derive(Debug, Clone, Copy)]
pub struct PageSpec<'a> {
    /// Where loki runs; `serve` is relative to it.
    pub cwd: &'a Path,
    pub url: &'a str,
    pub serve: Option<&'a Path>,
    pub steps: Option<&'a Path>,
    pub server: &'a [String],
}

/// What `loki run --url` observes: loki's own page check ([`page_command`] of `exe`), with the
/// page, the steps and the browser's version recorded in the incident. The browser is looked up
/// first, so a machine without one is told how to get it before anything is recorded.
/// `argv` is loki's own command line, for `run.json`.
pub fn page_options(
    page: &PageSpec<'_>,
    exe: &Path,
    argv: Vec<String>,
    seed: Option<u64>,
    timeout: std::time::Duration,
    clean_env: bool,
) -> Result<crate::ObserveOptions, HealError> {
    let program = loki_browser::find().map_err(|e| HealError::PageSpec(e.to_string()))?;
    let version = loki_browser::version_of(&program)?;
    let steps = match page.steps {
        Some(f) => {
            let text = std::fs::read_to_string(f).map_err(|e| {
                HealError::PageSpec(format!("cannot read the steps file {}: {e}", f.display()))
            })?;
            loki_browser::parse_steps(&text)
                .map_err(|e| HealError::PageSpec(format!("{}: {e}", f.display())))?
        }
        None => Vec::new(),
    };
    let serve = match page.serve {
        Some(d) => Some(
            std::fs::canonicalize(page.cwd.join(d))
                .map_err(|e| HealError::PageSpec(format!("cannot serve {}: {e}", d.display())))?,
        ),
        None => None,
    };
    if serve.is_none() && !page.url.contains("://") {
        return Err(HealError::PageSpec(format!(
            "--url {} is not an absolute URL: give http://host:port/path, or --serve DIR to serve a directory at that path",
            page.url
        )));
    }
    let command = page_command(
        &exe.display().to_string(),
        page.url,
        serve.as_deref(),
        &steps,
        page.server,
    );
    Ok(crate::ObserveOptions {
        command,
        cwd: page.cwd.to_path_buf(),
        seed,
        timeout,
        argv,
        clean_env,
        browser: Some(crate::incident::BrowserInfo {
            url: page.url.to_string(),
            version,
            serve: serve.map(|d| d.display().to_string()),
            steps,
        }),
    })
}

/// The argv of a page check (pure): `exe __page --url URL [--serve DIR] [--steps-json J] [-- SERVER…]`.
#[must_use]
pub fn page_command(
    exe: &str,
    url: &str,
    serve: Option<&Path>,
    steps: &[loki_browser::Step],
    server: &[String],
) -> Vec<String> {
    let mut c = vec![
        exe.to_string(),
        PAGE_SUBCOMMAND.into(),
        "--url".into(),
        url.into(),
    ];
    if let Some(d) = serve {
        c.push("--serve".into());
        c.push(d.display().to_string());
    }
    if !steps.is_empty() {
        c.push("--steps-json".into());
        c.push(serde_json::to_string(steps).unwrap_or_default());
    }
    if !server.is_empty() {
        c.push("--".into());
        c.extend(server.iter().cloned());
    }
    c
}

/// The video a replay of the incident in `dir` records when `video` is asked for: where it will
/// be, and the variable that asks the page check for it. A video left by an earlier replay is
/// removed first, so it cannot pass for this one's; an incident that is not a page's is
/// [`HealError::NotAPage`].
pub fn replay_video(
    dir: &Path,
    inc: &crate::Incident,
    run: &str,
    video: bool,
) -> Result<(PathBuf, Vec<(std::ffi::OsString, std::ffi::OsString)>), HealError> {
    let path = dir.join(VIDEO_FILE);
    if !video {
        return Ok((path, Vec::new()));
    }
    if inc.browser.is_none() {
        return Err(HealError::NotAPage {
            run: run.to_string(),
        });
    }
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(HealError::io("remove the earlier replay video", &path, e)),
    }
    let extra = vec![(VIDEO_ENV.into(), path.clone().into_os_string())];
    Ok((path, extra))
}

/// Where servers commonly serve a repository's pages from, tried after the serve root and the
/// repository root (a `python3 -m http.server --directory site` names no root to loki).
pub const STATIC_DIRS: &[&str] = &["site", "public", "static", "www", "dist", "build", "src"];

/// A source map, parsed once per generated file.
type Maps = HashMap<PathBuf, Option<(PathBuf, sourcemap::SourceMap)>>;

/// Maps frame URLs to repository files; see the module doc.
#[derive(Debug)]
pub struct Mapper {
    repo_root: PathBuf,
    serve_root: PathBuf,
    origin: String,
    maps: Maps,
}

/// A frame after mapping: a file path (absolute, inside the repository) or the URL path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mapped {
    pub function: String,
    pub location: String,
    pub line: u32,
    pub column: u32,
}

impl Mapper {
    /// `page_url` is the absolute URL checked (its origin decides what is "own").
    #[must_use]
    pub fn new(repo_root: &Path, serve_root: &Path, page_url: &str) -> Mapper {
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        Mapper {
            repo_root: canon(repo_root),
            serve_root: canon(serve_root),
            origin: loki_browser::page::origin_of(page_url)
                .unwrap_or_default()
                .to_string(),
            maps: HashMap::new(),
        }
    }

    fn inside(&self, p: &Path) -> Option<PathBuf> {
        let real = std::fs::canonicalize(p).ok()?;
        (real.starts_with(&self.repo_root) && real.is_file()).then_some(real)
    }

    /// The repository file a served path names: under the serve root, else under the
    /// repository root or one of its usual static directories ([`STATIC_DIRS`]), first match.
    fn served_file(&self, path: &str) -> Option<PathBuf> {
        std::iter::once(self.serve_root.clone())
            .chain(std::iter::once(self.repo_root.clone()))
            .chain(STATIC_DIRS.iter().map(|d| self.repo_root.join(d)))
            .find_map(|root| {
                loki_browser::serve::file_for(&root, path).and_then(|p| self.inside(&p))
            })
    }

    /// Maps one frame.
    pub fn map(&mut self, f: &UrlFrame) -> Mapped {
        let unmapped = |location: String| Mapped {
            function: f.function.clone(),
            location,
            line: f.line,
            column: f.column,
        };
        let Some(path) = f
            .url
            .strip_prefix(&self.origin)
            .filter(|_| !self.origin.is_empty())
        else {
            return unmapped(f.url.clone());
        };
        let Some(file) = self.served_file(path) else {
            return unmapped(path.split(['?', '#']).next().unwrap_or(path).to_string());
        };
        if let Some(m) = self.through_map(&file, f) {
            return m;
        }
        Mapped {
            function: f.function.clone(),
            location: file.display().to_string(),
            line: f.line,
            column: f.column,
        }
    }

    fn through_map(&mut self, file: &Path, f: &UrlFrame) -> Option<Mapped> {
        if !self.maps.contains_key(file) {
            let loaded = load_map(file);
            self.maps.insert(file.to_path_buf(), loaded);
        }
        let (map_dir, sm) = self.maps.get(file)?.as_ref()?;
        let tok = sm.lookup_token(f.line.saturating_sub(1), f.column.saturating_sub(1))?;
        let src = tok.get_source()?;
        let rel = strip_source_scheme(src);
        let orig = self.inside(&map_dir.join(rel))?;
        Some(Mapped {
            function: tok
                .get_name()
                .filter(|_| f.function.is_empty())
                .map_or_else(|| f.function.clone(), str::to_string),
            location: orig.display().to_string(),
            line: tok.get_src_line() + 1,
            column: tok.get_src_col() + 1,
        })
    }
}

/// `webpack:///./src/a.js` → `src/a.js`, `file:///abs` → `/abs` (pure).
fn strip_source_scheme(src: &str) -> &str {
    let s = src
        .strip_prefix("webpack:///")
        .or_else(|| {
            src.strip_prefix("webpack://")
                .map(|r| r.split_once('/').map_or(r, |(_, p)| p))
        })
        .or_else(|| src.strip_prefix("file://"))
        .unwrap_or(src);
    s.strip_prefix("./").unwrap_or(s)
}

/// The source map a generated file names, with the directory its sources are relative to.
fn load_map(file: &Path) -> Option<(PathBuf, sourcemap::SourceMap)> {
    let text = std::fs::read_to_string(file).ok()?;
    let url = text.lines().rev().take(5).find_map(|l| {
        let l = l.trim();
        l.strip_prefix("//# sourceMappingURL=")
            .or_else(|| l.strip_prefix("//@ sourceMappingURL="))
            .map(str::trim)
    })?;
    let dir = file.parent()?.to_path_buf();
    if let Some(data) = url.strip_prefix("data:") {
        use base64::Engine as _;
        let (_, b64) = data.split_once(";base64,")?;
        let bytes = base64::engine::general_purpose::STANDARD.decode(b64).ok()?;
        return sourcemap::SourceMap::from_slice(&bytes)
            .ok()
            .map(|m| (dir, m));
    }
    let decoded = loki_browser::serve::percent_decode(url.split(['?', '#']).next()?)?;
    if decoded.contains("://") {
        return None;
    }
    let map_path = dir.join(decoded);
    let bytes = std::fs::read(&map_path).ok()?;
    let sm = sourcemap::SourceMap::from_slice(&bytes).ok()?;
    Some((map_path.parent()?.to_path_buf(), sm))
}

/// The head line of one problem (pure).
fn head(e: &PageError) -> String {
    let one_line = |s: &str| s.lines().next().unwrap_or_default().to_string();
    match e.kind {
        PageErrorKind::Exception if e.name.is_empty() => {
            format!("Uncaught Error: {}", one_line(&e.message))
        }
        PageErrorKind::Exception => format!("Uncaught {}: {}", e.name, one_line(&e.message)),
        PageErrorKind::Rejection if e.name.is_empty() => {
            format!("UnhandledRejection: {}", one_line(&e.message))
        }
        PageErrorKind::Rejection => {
            format!("UnhandledRejection: {}: {}", e.name, one_line(&e.message))
        }
        PageErrorKind::ConsoleError => format!("ConsoleError: {}", one_line(&e.message)),
        PageErrorKind::Request => format!("RequestFailed: {}", one_line(&e.message)),
    }
}

/// Renders the problems a page check found (see the module doc). A problem without frames
/// gets the page document as its one frame, so every problem names a file.
pub fn render(errors: &[PageError], mapper: &mut Mapper, page_url: &str) -> String {
    let mut out = String::new();
    for e in errors {
        out.push_str(&head(e));
        out.push('\n');
        let page = [UrlFrame {
            function: String::new(),
            url: page_url.to_string(),
            line: 1,
            column: 1,
        }];
        let frames: &[UrlFrame] = if e.frames.is_empty() {
            &page
        } else {
            &e.frames
        };
        for f in frames {
            let m = mapper.map(f);
            let at = format!("{}:{}:{}", m.location, m.line, m.column);
            if m.function.is_empty() {
                out.push_str(&format!("    at {at}\n"));
            } else {
                out.push_str(&format!("    at {} ({at})\n", m.function));
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_schemes_are_stripped() {
        assert_eq!(strip_source_scheme("webpack:///./src/a.js"), "src/a.js");
        assert_eq!(strip_source_scheme("webpack://app/src/a.js"), "src/a.js");
        assert_eq!(strip_source_scheme("../src/a.ts"), "../src/a.ts");
    }

    #[test]
    fn rendered_problems_parse_as_the_crash_with_the_first_first() {
        let d = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(d.path()).unwrap();
        std::fs::File::create(root.join("app.js")).unwrap();
        let url = "http://127.0.0.1:5/index.html";
        let mut m = Mapper::new(&root, &root, url);
        let errors = vec![
            PageError {
                kind: PageErrorKind::Exception,
                name: "TypeError".into(),
                message: "x is null".into(),
                frames: vec![UrlFrame {
                    function: "avg".into(),
                    url: "http://127.0.0.1:5/app.js".into(),
                    line: 3,
                    column: 9,
                }],
            },
            PageError {
                kind: PageErrorKind::Request,
                name: String::new(),
                message: "GET /x.json 404 Not Found".into(),
                frames: vec![],
            },
        ];
        let text = render(&errors, &mut m, url);
        let crash = crate::parse_crash(&text).unwrap();
        assert_eq!(crash.kind, "TypeError");
        assert_eq!(crash.frames[0].function.as_deref(), Some("avg"));
        assert_eq!(
            crash.frames[0].file.as_deref(),
            Some(root.join("app.js").to_str().unwrap())
        );
        assert!(
            text.contains("RequestFailed: GET /x.json 404 Not Found\n    at /index.html:1:1\n"),
            "{text}"
        );
    }
}
