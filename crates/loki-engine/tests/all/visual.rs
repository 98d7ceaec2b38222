//! Visual evidence end to end: a build run that changes a page of a web app served by its `dev`
//! script, with a real headless Chromium. The screenshot is in the run directory and the
//! receipt, `loki verify` (the same `verify` it calls) holds it to its hash, and a capture that
//! cannot happen is NOT PROVEN without changing the outcome.

use std::path::{Path, PathBuf};

use loki_protocol::outcome::{Outcome, VerifyVerdict};
use loki_receipt::{KeyEnv, StepName, StepStatus, VerifyInput, VerifyOptions, VerifyReport};
use loki_test_support::GitRepo;
use serde_json::{Value, json};

use crate::common::{build_with, receipt};

const TASK: &str = "The about page says TODO; make it greet the visitor with `Hello, visitor`.";

/// Serves the checkout's files on `$PORT`, as a project's dev server would.
const SERVER: &str = r"const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');
http.createServer((req, res) => {
  let p = decodeURIComponent(req.url.split('?')[0]);
  if (p.endsWith('/')) p += 'index.html';
  fs.readFile(path.join(__dirname, p), (err, data) => {
    if (err) { res.writeHead(404); res.end('not found'); return; }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(data);
  });
}).listen(Number(process.env.PORT), process.env.HOST);
";

const WALL: &str = r"const { test } = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const path = require('node:path');

test('the about page greets the visitor', () => {
  const html = fs.readFileSync(path.join(__dirname, '..', 'about.html'), 'utf8');
  assert.match(html, /Hello, visitor/);
});
";

fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

fn done() -> Value {
    call("finish", json!({"status": "done", "detail": "done"}))
}

fn script() -> String {
    json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", json!({"path": "test/loki_wall_about.test.js", "content": WALL})),
            done()]},
        {"name": "implement", "turns": [
            call("edit", json!({"path": "about.html", "search": "TODO", "replace": "Hello, visitor"})),
            done()]}
    ]})
    .to_string()
}

/// A web app whose `dev` script is `dev` (the server above unless given).
fn site(dev: &str) -> GitRepo {
    let repo = GitRepo::new();
    repo.write(
        "package.json",
        &json!({"name": "site", "private": true,
                "scripts": {"dev": dev, "test": "node --test"}})
        .to_string(),
    )
    .write("server.js", SERVER)
    .write(
        "index.html",
        "<!doctype html><title>Home</title><h1>Home</h1><a href=\"about.html\">About</a>\n",
    )
    .write(
        "about.html",
        "<!doctype html><title>About</title><h1 style=\"color: teal\">TODO</h1>\n",
    )
    .write(
        "test/site.test.js",
        "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst fs = require('node:fs');\n\ntest('home exists', () => {\n  assert.ok(fs.existsSync(__dirname + '/../index.html'));\n});\n",
    );
    repo.commit("a site whose about page says TODO");
    repo
}

fn has_node() -> bool {
    loki_test_support::require_tool("node", &["--version"])
        && loki_test_support::require_tool("npm", &["--version"])
}

fn verify(run_dir: &Path, home: &Path) -> VerifyReport {
    loki_receipt::verify(
        &VerifyInput::RunDir(run_dir.to_path_buf()),
        &VerifyOptions {
            home: Some(home.to_path_buf()),
            env: KeyEnv::from_lookup(|_| None),
            pubkey: None,
            allow_unsigned: false,
        },
    )
}

fn not_proven(r: &Value) -> Vec<String> {
    r["not_proven"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            serde_json::from_value::<loki_receipt::NotProven>(v.clone())
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn a_changed_page_is_screenshot_into_the_receipt_and_held_to_its_hash() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    if !has_node() {
        return;
    }
    let repo = site("node server.js");
    let home = tempfile::tempdir().unwrap();
    let report = build_with(repo.path(), home.path(), TASK, &script(), |o| {
        o.visual_evidence = true;
        o.browser = Some(browser);
    });
    let r = receipt(repo.path(), &report);
    assert_eq!(report.outcome, Outcome::Verified, "{r:#}");
    assert_eq!(report.changed_files, ["about.html"]);
    let screens = r["evidence"]["screens"].as_array().unwrap();
    assert_eq!(screens.len(), 1, "{r:#}");
    let s = &screens[0];
    assert_eq!(s["route"], "/about.html");
    assert_eq!(s["file"], "screens/01-about-html.png");
    let run_dir = PathBuf::from(&report.receipt_path)
        .parent()
        .unwrap()
        .to_path_buf();
    let png_path = run_dir.join("screens/01-about-html.png");
    let png = std::fs::read(&png_path).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    assert_eq!(s["sha256"], loki_receipt::schema::sha256_hex(&png));
    assert_eq!(s["bytes"], png.len() as u64);
    assert!(
        !not_proven(&r).iter().any(|n| n.contains("visual evidence")),
        "{r:#}"
    );
    let md = std::fs::read_to_string(run_dir.join("receipt.md")).unwrap();
    assert!(
        md.contains("## Visual evidence") && md.contains("screens/01-about-html.png"),
        "{md}"
    );

    let ok = verify(&run_dir, home.path());
    assert_eq!(ok.verdict, VerifyVerdict::Verified, "{ok:?}");
    assert!(
        ok.steps
            .iter()
            .any(|st| st.name == StepName::Screens && st.status == StepStatus::Pass),
        "{ok:?}"
    );

    // Altered by one byte.
    let mut altered = png.clone();
    let last = altered.len() - 1;
    altered[last] ^= 0xff;
    std::fs::write(&png_path, &altered).unwrap();
    assert_tampered(&run_dir, home.path(), "was changed");
    std::fs::write(&png_path, &png).unwrap();
    assert_eq!(
        verify(&run_dir, home.path()).verdict,
        VerifyVerdict::Verified
    );

    // Deleted.
    std::fs::remove_file(&png_path).unwrap();
    assert_tampered(&run_dir, home.path(), "is missing");

    // Replaced by a symlink to the very same bytes.
    let copy = home.path().join("copy.png");
    std::fs::write(&copy, &png).unwrap();
    std::os::unix::fs::symlink(&copy, &png_path).unwrap();
    assert_tampered(&run_dir, home.path(), "symbolic link");
}

fn assert_tampered(run_dir: &Path, home: &Path, why: &str) {
    let report = verify(run_dir, home);
    assert_eq!(report.verdict, VerifyVerdict::Tampered, "{report:?}");
    let reason = report.reason.unwrap_or_default();
    assert!(
        reason.contains("screens/01-about-html.png") && reason.contains(why),
        "{reason}"
    );
}

#[test]
fn without_a_browser_the_screen_is_not_proven_and_the_outcome_stands() {
    if !has_node() {
        return;
    }
    let repo = site("node server.js");
    let home = tempfile::tempdir().unwrap();
    let report = build_with(repo.path(), home.path(), TASK, &script(), |o| {
        o.visual_evidence = true;
        o.browser = Some(home.path().join("gone/chromium"));
    });
    let r = receipt(repo.path(), &report);
    assert_eq!(report.outcome, Outcome::Verified, "{r:#}");
    assert!(r.get("evidence").is_none(), "{r:#}");
    let np = not_proven(&r);
    assert!(
        np.iter()
            .any(|n| n.starts_with("visual evidence: /about.html not captured: no Chromium found")),
        "{np:?}"
    );
}

#[test]
fn a_dev_script_that_crashes_is_not_proven_with_its_output() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    if !has_node() {
        return;
    }
    let repo = site("node -e \"console.error('port in use'); process.exit(3)\"");
    let home = tempfile::tempdir().unwrap();
    let report = build_with(repo.path(), home.path(), TASK, &script(), |o| {
        o.visual_evidence = true;
        o.browser = Some(browser);
    });
    let r = receipt(repo.path(), &report);
    assert_eq!(report.outcome, Outcome::Verified, "{r:#}");
    assert!(r.get("evidence").is_none(), "{r:#}");
    let np = not_proven(&r);
    let line = np
        .iter()
        .find(|n| n.starts_with("visual evidence: /about.html not captured"))
        .unwrap_or_else(|| panic!("{np:?}"));
    assert!(
        line.contains("npm run dev") && line.contains("port in use"),
        "{line}"
    );
}

#[test]
fn switched_off_the_run_shows_no_trace_of_it() {
    if !has_node() {
        return;
    }
    let repo = site("node server.js");
    let home = tempfile::tempdir().unwrap();
    let report = build_with(repo.path(), home.path(), TASK, &script(), |o| {
        o.visual_evidence = false;
        o.browser = Some(home.path().join("gone/chromium"));
    });
    let r = receipt(repo.path(), &report);
    assert_eq!(report.outcome, Outcome::Verified, "{r:#}");
    assert!(r.get("evidence").is_none(), "{r:#}");
    assert!(
        !not_proven(&r).iter().any(|n| n.contains("visual")),
        "{r:#}"
    );
    let stages: Vec<&str> = r["time"]["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["stage"].as_str().unwrap())
        .collect();
    assert!(!stages.contains(&"visual"), "{stages:?}");
}
