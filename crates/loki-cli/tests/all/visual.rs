//! Visual evidence through the binary: `loki "<task>"` on a web app whose about page the
//! scripted agent fixes screenshots that page into the run, `loki verify` holds it to its hash,
//! and `LOKI_VISUAL_EVIDENCE=0` leaves no trace.

use std::path::{Path, PathBuf};

use loki_test_support::{GitRepo, Sandbox};
use serde_json::{Value, json};

use crate::cli::sandboxed;

const TASK: &str = "The about page says TODO; make it greet the visitor with `Hello, visitor`.";
const SERVER: &str = "const http = require('node:http');\nconst fs = require('node:fs');\nconst path = require('node:path');\nhttp.createServer((req, res) => {\n  let p = decodeURIComponent(req.url.split('?')[0]);\n  if (p.endsWith('/')) p += 'index.html';\n  fs.readFile(path.join(__dirname, p), (err, data) => {\n    if (err) { res.writeHead(404); res.end('not found'); return; }\n    res.writeHead(200, { 'content-type': 'text/html' });\n    res.end(data);\n  });\n}).listen(Number(process.env.PORT), process.env.HOST);\n";
const WALL: &str = "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst fs = require('node:fs');\n\ntest('the about page greets', () => {\n  assert.match(fs.readFileSync(__dirname + '/../about.html', 'utf8'), /Hello, visitor/);\n});\n";

#[expect(
    clippy::needless_pass_by_value,
    reason = "json! values are built inline at each call"
)]
fn call(name: &str, args: Value) -> Value {
    json!({"tool_calls": [{"name": name, "arguments": args}]})
}

fn site() -> GitRepo {
    let repo = GitRepo::new();
    repo.write(
        "package.json",
        r#"{"name":"site","private":true,"scripts":{"dev":"node server.js","test":"node --test"}}"#,
    )
    .write("server.js", SERVER)
    .write("index.html", "<!doctype html><h1>Home</h1>\n")
    .write("about.html", "<!doctype html><h1>TODO</h1>\n")
    .write(
        "test/site.test.js",
        "const { test } = require('node:test');\nconst assert = require('node:assert');\n\ntest('one', () => assert.ok(true));\n",
    );
    repo.commit("a site whose about page says TODO");
    repo
}

fn script(dir: &Path) -> PathBuf {
    let done = call("finish", json!({"status": "done", "detail": "done"}));
    let s = json!({"sessions": [
        {"name": "wall", "turns": [
            call("write_file", json!({"path": "test/loki_wall_about.test.js", "content": WALL})),
            done.clone()]},
        {"name": "implement", "turns": [
            call("edit", json!({"path": "about.html", "search": "TODO", "replace": "Hello, visitor"})),
            done]}]});
    let path = dir.join("script.json");
    std::fs::write(&path, s.to_string()).unwrap();
    path
}

fn build(sb: &Sandbox, repo: &GitRepo, browser: &Path, visual: Option<&str>) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = sandboxed(sb, repo.path());
    cmd.args([TASK, "--provider", "scripted", "--script"])
        .arg(script(tmp.path()))
        .arg("--json")
        .env("LOKI_BROWSER", browser);
    if let Some(v) = visual {
        cmd.env("LOKI_VISUAL_EVIDENCE", v);
    }
    let out = cmd.assert().code(0).get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

fn verify(sb: &Sandbox, repo: &GitRepo) -> (i32, String) {
    let out = sandboxed(sb, repo.path())
        .arg("verify")
        .assert()
        .get_output()
        .clone();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

#[test]
fn loki_verify_holds_a_run_to_its_screenshot() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    if !loki_test_support::require_tool("npm", &["--version"]) {
        return;
    }
    let sb = Sandbox::new();
    let repo = site();
    let report = build(&sb, &repo, &browser, None);
    assert_eq!(report["outcome"], "VERIFIED", "{report:#}");
    let receipt_path = PathBuf::from(report["receipt_path"].as_str().unwrap());
    let run_dir = receipt_path.parent().unwrap().to_path_buf();
    let receipt: Value = serde_json::from_slice(&std::fs::read(&receipt_path).unwrap()).unwrap();
    let screen = &receipt["evidence"]["screens"][0];
    assert_eq!(screen["route"], "/about.html", "{receipt:#}");
    let png_path = run_dir.join(screen["file"].as_str().unwrap());
    let png = std::fs::read(&png_path).unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG");

    let (code, out) = verify(&sb, &repo);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("pass  screens"), "{out}");

    let mut altered = png.clone();
    altered[png.len() / 2] ^= 1;
    std::fs::write(&png_path, &altered).unwrap();
    let (code, out) = verify(&sb, &repo);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("Verify:     TAMPERED\n"), "{out}");
    assert!(
        out.contains("screens/01-about-html.png was changed"),
        "{out}"
    );
}

#[test]
fn switched_off_a_web_change_has_no_screens_and_no_not_proven_line() {
    let Some(browser) = loki_test_support::require_browser() else {
        return;
    };
    if !loki_test_support::require_tool("npm", &["--version"]) {
        return;
    }
    let sb = Sandbox::new();
    let repo = site();
    let report = build(&sb, &repo, &browser, Some("0"));
    assert_eq!(report["outcome"], "VERIFIED", "{report:#}");
    let text = report.to_string();
    assert!(!text.contains("visual evidence"), "{report:#}");
    let runs = repo.path().join(".loki/runs");
    let run = std::fs::read_dir(&runs).unwrap().next().unwrap().unwrap();
    assert!(!run.path().join("screens").exists());
    let receipt = std::fs::read_to_string(run.path().join("receipt.json")).unwrap();
    assert!(!receipt.contains("\"evidence\""), "{receipt}");
}
