//! Visual evidence against a real headless Chromium: a static site served by the static server,
//! each changed route a PNG with its hash; a spent budget and a missing browser are skips.

use std::path::PathBuf;
use std::time::Duration;

use loki_browser::evidence::{self, Launcher, Request};
use sha2::{Digest, Sha256};

fn site() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("index.html", "<!doctype html><h1>Home</h1>"),
        (
            "docs/guide.html",
            "<!doctype html><h1 style=\"color:#c00\">Guide</h1>",
        ),
        ("style.css", "h1 { font-family: sans-serif }"),
    ] {
        let p = d.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    d
}

fn request(root: &std::path::Path, out: &std::path::Path, browser: Option<PathBuf>) -> Request {
    let changed: Vec<String> = ["docs/guide.html", "style.css", "README.md"]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
    let plan = evidence::plan(root, &changed).unwrap();
    assert_eq!(plan.launcher, Some(Launcher::Static));
    assert_eq!(plan.routes, ["/docs/guide.html", "/"]);
    Request {
        root: root.to_path_buf(),
        plan,
        out_dir: out.to_path_buf(),
        env: loki_process::scrubbed_env(),
        wrapper: Vec::new(),
        budget: Duration::from_secs(90),
        browser,
    }
}

#[test]
fn a_static_site_is_shot_route_by_route_with_hashes() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    let d = site();
    let out = tempfile::tempdir().unwrap();
    let got = evidence::capture(&request(d.path(), out.path(), Some(browser)));
    assert_eq!(got.skipped, Vec::<String>::new());
    let files: Vec<&str> = got.shots.iter().map(|s| s.file.as_str()).collect();
    assert_eq!(files, ["01-docs-guide-html.png", "02-root.png"]);
    for s in &got.shots {
        let png = std::fs::read(out.path().join(&s.file)).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{}", s.file);
        assert_eq!(s.sha256, hex::encode(Sha256::digest(&png)));
        assert_eq!(s.bytes, png.len() as u64);
    }
    // Two different pages, two different pictures.
    assert_ne!(got.shots[0].sha256, got.shots[1].sha256);
}

#[test]
fn a_spent_budget_and_a_missing_browser_are_skips_naming_the_routes() {
    let d = site();
    let out = tempfile::tempdir().unwrap();
    let mut req = request(d.path(), out.path(), Some(out.path().join("gone/chromium")));
    let got = evidence::capture(&req);
    assert!(got.shots.is_empty());
    assert_eq!(got.skipped.len(), 1, "{:?}", got.skipped);
    assert!(
        got.skipped[0]
            .starts_with("visual evidence: /docs/guide.html, / not captured: no Chromium found"),
        "{:?}",
        got.skipped
    );

    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    req.browser = Some(browser);
    req.budget = Duration::ZERO;
    let got = evidence::capture(&req);
    assert!(got.shots.is_empty());
    assert!(
        got.skipped[0].contains("not captured: the time budget of 0s was spent"),
        "{:?}",
        got.skipped
    );
}

/// A dev server that, like Vite, ignores `PORT` and listens only where `--port` says (and on
/// 5173 without it): the app is still reached and shot.
#[test]
fn a_dev_server_that_ignores_port_is_given_the_port_as_a_flag() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    if !loki_test_support::require_tool("npm", &["--version"]) {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let root = d.path();
    std::fs::write(
        root.join("package.json"),
        r#"{"name":"app","private":true,"scripts":{"dev":"vite"}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(root.join("src/pages")).unwrap();
    std::fs::write(root.join("src/pages/index.html"), "<h1>x</h1>").unwrap();
    let bin = root.join("node_modules/.bin");
    std::fs::create_dir_all(&bin).unwrap();
    let server = r#"#!/usr/bin/env node
const a = process.argv; const i = a.indexOf('--port');
const port = i > 0 ? Number(a[i + 1]) : 5173;
require('http').createServer((q, r) => { r.setHeader('content-type', 'text/html');
  r.end('<!doctype html><h1 style="color:#06c">served by the stand-in vite on ' + port + '</h1>'); })
  .listen(port, '127.0.0.1');
"#;
    std::fs::write(bin.join("vite"), server).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("vite"), std::fs::Permissions::from_mode(0o755)).unwrap();

    let plan = evidence::plan(root, &["src/pages/index.html".to_string()]).unwrap();
    assert_eq!(plan.launcher, Some(Launcher::Script("dev".into())));
    let out = tempfile::tempdir().unwrap();
    let got = evidence::capture(&Request {
        root: root.to_path_buf(),
        plan,
        out_dir: out.path().to_path_buf(),
        env: loki_process::scrubbed_env(),
        wrapper: Vec::new(),
        budget: Duration::from_secs(90),
        browser: Some(browser),
    });
    assert_eq!(got.skipped, Vec::<String>::new());
    assert_eq!(got.shots.len(), 1, "{:?}", got.shots);
}
