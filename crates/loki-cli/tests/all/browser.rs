//! Web page crashes in a real headless Chromium: `loki run --url` records them as incidents
//! (on load, after a click, rejected promises, console.error, failed requests, a minified bundle
//! through its source map), `loki replay` reproduces them (`--video` as an animated PNG),
//! `loki fix` heals them, and a page that never loads is a harness error.

use std::path::{Path, PathBuf};

use loki_test_support::{GitRepo, Sandbox, redact};
use predicates::prelude::*;
use serde_json::{Value, json};

use crate::cli::sandboxed;

/// A repository with the given files under `site/`, committed.
fn site(files: &[(&str, &str)]) -> GitRepo {
    let r = GitRepo::new();
    for (name, text) in files {
        r.write(&format!("site/{name}"), text);
    }
    r.commit("site");
    r
}

fn loki(sb: &Sandbox, dir: &Path, browser: &Path) -> assert_cmd::Command {
    let mut c = sandboxed(sb, dir);
    c.env("LOKI_BROWSER", browser);
    c
}

/// `loki run --url /index.html --serve site [extra…]`: the recorded run id, the crash expected.
fn record(sb: &Sandbox, repo: &GitRepo, browser: &Path, extra: &[&str]) -> String {
    let out = loki(sb, repo.path(), browser)
        .args([
            "run",
            "--seed",
            "5",
            "--url",
            "/index.html",
            "--serve",
            "site",
        ])
        .args(extra)
        .assert()
        .code(1)
        .stderr(predicate::str::contains("crash recorded as run_"))
        .get_output()
        .stderr
        .clone();
    let text = String::from_utf8_lossy(&out);
    let at = text.find("crash recorded as ").unwrap() + "crash recorded as ".len();
    text[at..at + "run_YYYYMMDD_HHMMSS_xxxx".len()].to_string()
}

fn incident(repo: &GitRepo, run: &str) -> Value {
    let p = repo
        .path()
        .join(".loki/runs")
        .join(run)
        .join("incident.json");
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

fn real(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap()
}

const THROWS_ON_LOAD: &str =
    "function total(order) {\n  return order.items.length;\n}\n\ntotal(null);\n";
const PAGE: &str =
    "<!doctype html><title>t</title><button id=go>go</button><script src=app.js></script>\n";

#[test]
fn a_page_that_throws_on_load_is_recorded_diagnosed_and_reproduced() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    let sb = Sandbox::new();
    let repo = site(&[("index.html", PAGE), ("app.js", THROWS_ON_LOAD)]);
    let run = record(&sb, &repo, &browser, &[]);
    let inc = incident(&repo, &run);
    let root = real(repo.path());
    // The incident format, pinned: times, ids, versions, the binary's path and the environment
    // vary by machine and run.
    let exe = inc["command"][0].as_str().unwrap().to_string();
    let text = serde_json::to_string_pretty(&json!({
        "schema": inc["schema"], "command": inc["command"], "cwd": inc["cwd"], "seed": inc["seed"],
        "exit": inc["exit"], "crash": inc["crash"], "frames": inc["frames"],
        "signature": inc["signature"], "browser": inc["browser"],
        "tools": inc["env"]["tools"], "stderr_tail": inc["stderr_tail"], "repro": inc["repro"],
    }))
    .unwrap();
    let version = inc["browser"]["version"].as_str().unwrap().to_string();
    let text = redact(&text, &[(&root, "[REPO]")])
        .replace(&exe, "[LOKI]")
        .replace(&version, "[BROWSER VERSION]");
    insta::assert_snapshot!(text);
    assert!(inc["recorded_at"].is_string());
    loki(&sb, repo.path(), &browser)
        .arg("fix")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Source:     site/app.js:2 in total",
        ))
        .stdout(predicate::str::contains("return order.items.length;"));
    let script =
        std::fs::read_to_string(repo.path().join(".loki/runs").join(&run).join("repro.sh"))
            .unwrap();
    assert!(script.contains("__page"), "{script}");
    loki(&sb, repo.path(), &browser)
        .args(["replay", &run])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "[REPRODUCED] TypeError at total (site/app.js)",
        ))
        .stdout(predicate::str::contains("REPRODUCED: TypeError at total"));
}

#[test]
fn a_crash_after_a_click_is_recorded_with_its_steps_and_replayed_with_them() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    let sb = Sandbox::new();
    let app = "function save(form) {\n  return form.name.trim();\n}\ndocument.getElementById('go').addEventListener('click', () => save({}));\n";
    let repo = site(&[("index.html", PAGE), ("app.js", app)]);
    // Without the click the page is fine: a clean run, no incident.
    loki(&sb, repo.path(), &browser)
        .args(["run", "--url", "/index.html", "--serve", "site"])
        .assert()
        .success();
    std::fs::write(
        repo.path().join("steps.yaml"),
        "- wait: 50\n- click: '#go'\n",
    )
    .unwrap();
    let run = record(&sb, &repo, &browser, &["--steps", "steps.yaml"]);
    let inc = incident(&repo, &run);
    assert_eq!(inc["crash"]["kind"], "TypeError");
    assert_eq!(inc["frames"][0]["function"], "save");
    assert_eq!(inc["frames"][0]["line"], 2);
    assert_eq!(
        inc["browser"]["steps"],
        json!([{"wait": 50}, {"click": "#go"}])
    );
    loki(&sb, repo.path(), &browser)
        .args(["replay", &run])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("[REPRODUCED] TypeError at save"));
}

#[test]
fn rejections_console_errors_and_failed_requests_are_incidents_too() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    let sb = Sandbox::new();
    for (app, kind, message, function, line) in [
        (
            "async function load() {\n  throw new Error('no orders');\n}\nload();\n",
            "UnhandledRejection",
            "Error: no orders",
            "load",
            2,
        ),
        (
            "function warn(n) {\n  console.error('bad total', n);\n}\nwarn(3);\n",
            "ConsoleError",
            "bad total 3",
            "warn",
            2,
        ),
        (
            "function fetchOrders() {\n  return fetch('/orders.json');\n}\nfetchOrders();\n",
            "RequestFailed",
            "GET /orders.json 404 Not Found",
            "fetchOrders",
            2,
        ),
    ] {
        let repo = site(&[("index.html", PAGE), ("app.js", app)]);
        let run = record(&sb, &repo, &browser, &[]);
        let inc = incident(&repo, &run);
        assert_eq!(inc["crash"]["kind"], kind, "{inc:#}");
        assert_eq!(inc["crash"]["message"], message, "{inc:#}");
        assert_eq!(inc["frames"][0]["function"], function, "{inc:#}");
        assert_eq!(inc["frames"][0]["line"], line, "{inc:#}");
        let file = inc["frames"][0]["file"].as_str().unwrap();
        assert_eq!(Path::new(file), real(repo.path()).join("site/app.js"));
        loki(&sb, repo.path(), &browser)
            .args(["replay", &run])
            .assert()
            .code(1);
    }
}

/// The original of the minified bundle below.
const ORIGINAL: &str = "export function average(values) {\n  if (values.length === 0) throw new RangeError(\"average of no values\");\n  return values[0];\n}\n\nexport function report() {\n  document.title = String(average([]));\n}\n\nreport();\n";
const MINIFIED: &str = "function a(n){if(n.length===0)throw new RangeError(\"average of no values\");return n[0]}function r(){document.title=String(a([]))}r();";

/// A source map of MINIFIED to ORIGINAL (`../src/stats.js`), token by token.
fn source_map() -> String {
    let col = |s: &str| u32::try_from(MINIFIED.find(s).unwrap()).unwrap();
    let mut b = sourcemap::SourceMapBuilder::new(Some("app.min.js"));
    let src = Some("../src/stats.js");
    for (dst, line, c, name) in [
        (0, 0, 0, Some("average")),
        (col("if("), 1, 2, None),
        (col("throw"), 1, 27, None),
        (col("new Range"), 1, 33, None),
        (col("return n"), 2, 2, None),
        (col("function r"), 5, 0, Some("report")),
        (col("document"), 6, 2, None),
        (col("a([])"), 6, 26, Some("average")),
        (col("r();"), 9, 0, Some("report")),
    ] {
        b.add(0, dst, line, c, src, name, false);
    }
    let mut out = Vec::new();
    b.into_sourcemap().to_writer(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn frames_of_a_minified_bundle_resolve_through_its_source_map() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    let sb = Sandbox::new();
    let repo = GitRepo::new();
    repo.write("src/stats.js", ORIGINAL);
    repo.write(
        "dist/index.html",
        "<!doctype html><script src=app.min.js></script>\n",
    );
    repo.write(
        "dist/app.min.js",
        &format!("{MINIFIED}\n//# sourceMappingURL=app.min.js.map\n"),
    );
    repo.write("dist/app.min.js.map", &source_map());
    repo.commit("bundle");
    let out = loki(&sb, repo.path(), &browser)
        .args(["run", "--url", "/index.html", "--serve", "dist"])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    let run = {
        let t = String::from_utf8_lossy(&out);
        let at = t.find("crash recorded as ").unwrap() + "crash recorded as ".len();
        t[at..at + "run_YYYYMMDD_HHMMSS_xxxx".len()].to_string()
    };
    let inc = incident(&repo, &run);
    let original = real(repo.path()).join("src/stats.js");
    let frames = inc["frames"].as_array().unwrap();
    assert_eq!(
        Path::new(frames[0]["file"].as_str().unwrap()),
        original,
        "{inc:#}"
    );
    assert_eq!(frames[0]["line"], 2, "{inc:#}");
    assert_eq!(
        Path::new(frames[1]["file"].as_str().unwrap()),
        original,
        "{inc:#}"
    );
    assert_eq!(frames[1]["line"], 7, "{inc:#}");
    loki(&sb, repo.path(), &browser)
        .arg("fix")
        .assert()
        .success()
        .stdout(predicate::str::contains("Source:     src/stats.js:2"))
        .stdout(predicate::str::contains("throw new RangeError"));
}

/// A free TCP port on 127.0.0.1 (free when this returns; the test's server takes it next).
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

#[test]
fn a_page_that_never_loads_is_a_harness_error_and_a_fix_keeps_its_patch_and_backup() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    if !loki_test_support::require_tool("python3", &["--version"]) {
        return;
    }
    let sb = Sandbox::new();
    let port = free_port();
    let repo = site(&[("index.html", PAGE), ("app.js", THROWS_ON_LOAD)]);
    let url = format!("http://127.0.0.1:{port}/index.html");
    // The server dies before the page answers: nothing is recorded, and the reason is named.
    loki(&sb, repo.path(), &browser)
        .args([
            "run",
            "--url",
            &url,
            "--",
            "sh",
            "-c",
            "echo no server today; exit 4",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "could not tell whether the page crashes",
        ))
        .stderr(predicate::str::contains(
            "exited 4 before the page answered",
        ))
        .stderr(predicate::str::contains("no incident was recorded"));
    // Recorded with a real server (the repository's own script)...
    repo.write(
        "serve.sh",
        &format!("exec python3 -m http.server {port} --bind 127.0.0.1 --directory site\n"),
    );
    let out = loki(&sb, repo.path(), &browser)
        .args(["run", "--url", &url, "--", "sh", "serve.sh"])
        .assert()
        .code(1)
        .get_output()
        .stderr
        .clone();
    let t = String::from_utf8_lossy(&out);
    let at = t.find("crash recorded as ").unwrap() + "crash recorded as ".len();
    let run = t[at..at + "run_YYYYMMDD_HHMMSS_xxxx".len()].to_string();
    let inc = incident(&repo, &run);
    assert_eq!(inc["crash"]["kind"], "TypeError");
    // Served from site/ by a server loki knows nothing about: found there all the same.
    assert_eq!(
        Path::new(inc["frames"][0]["file"].as_str().unwrap()),
        real(repo.path()).join("site/app.js")
    );
    // ...and healed while the server cannot start: the replay cannot tell.
    repo.write("serve.sh", "echo 'port in use' >&2; exit 1\n");
    let patch = json!({"file": "site/app.js", "root_cause": "null order", "explanation": "guard",
        "original_snippet": "  return order.items.length;\n",
        "replacement_snippet": "  return order ? order.items.length : 0;\n"});
    let script = sb.home().join("heal.json");
    std::fs::write(
        &script,
        json!({"sessions": [{"name": "heal", "turns": [{"text": patch.to_string()}]}]}).to_string(),
    )
    .unwrap();
    loki(&sb, repo.path(), &browser)
        .env("LOKI_PROVIDER", "scripted")
        .env("LOKI_PROVIDER_SCRIPT", &script)
        .args(["fix", "--apply", "--yes", &run])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("the reproduction could not tell"))
        .stdout(predicate::str::contains(
            "the patch and site/app.js.loki.bak are both kept",
        ));
    assert!(repo.path().join("site/app.js.loki.bak").exists());
    assert_eq!(
        std::fs::read_to_string(repo.path().join("site/app.js.loki.bak")).unwrap(),
        THROWS_ON_LOAD
    );
    assert!(
        std::fs::read_to_string(repo.path().join("site/app.js"))
            .unwrap()
            .contains("order ? order.items.length : 0")
    );
}

#[test]
fn the_browser_demo_heals_its_page_offline_and_verifies_it() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    let sb = Sandbox::new();
    loki(&sb, sb.home(), &browser)
        .args(["fix", "--demo", "--browser"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Uncaught RangeError: average of no values",
        ))
        .stdout(predicate::str::contains("Page:       /index.html"))
        .stdout(predicate::str::contains("using the demo's built-in patch"))
        .stdout(predicate::str::contains(
            "+  if (values.length === 0) return 0;",
        ))
        .stdout(predicate::str::contains("Outcome:    VERIFIED"))
        .stdout(predicate::str::contains("site/stats.js.loki.bak removed"));
}

#[test]
fn replay_video_writes_an_animated_png_next_to_the_incident() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    let sb = Sandbox::new();
    let repo = site(&[("index.html", PAGE), ("app.js", THROWS_ON_LOAD)]);
    let run = record(&sb, &repo, &browser, &[]);
    loki(&sb, repo.path(), &browser)
        .args(["replay", "--video", &run])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "Video:      .loki/runs/{run}/replay.png"
        )));
    let png = std::fs::read(repo.path().join(".loki/runs").join(&run).join("replay.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(png.windows(4).any(|w| w == b"acTL"), "not an animated PNG");
    // A process crash has no screen.
    repo.write("boom.sh", "echo boom >&2; exit 3\n");
    let out = sandboxed(&sb, repo.path())
        .args(["run", "--", "sh", "boom.sh"])
        .assert()
        .code(3)
        .get_output()
        .stderr
        .clone();
    let t = String::from_utf8_lossy(&out);
    let at = t.find("run_").unwrap();
    let proc_run = &t[at..at + "run_YYYYMMDD_HHMMSS_xxxx".len()];
    sandboxed(&sb, repo.path())
        .args(["replay", "--video", proc_run])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--video records a web page's replay",
        ));
}
