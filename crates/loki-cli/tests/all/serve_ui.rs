//! The control plane's web UI in a real headless Chromium (driven over the DevTools protocol by
//! `loki-browser`), against a real `loki serve` on SQLite: the runs list shows the shipped runs
//! and draws its charts, a run whose receipt was tampered with carries the red banner, and the
//! answer box of a BLOCKED run posts the answer that `loki answer` then builds with. Structure is
//! checked in the rendered DOM and the screenshot's size, never pixel by pixel.

use std::time::{Duration, Instant};

use loki_browser::Browser;
use loki_test_support::Sandbox;
use serde_json::{Value, json};

use crate::cli::sandboxed;
use crate::contract::{TEST_AC_1, build, calc_repo, script};
use crate::serve::{Serve, answer_from_the_server_verifies, trust_home_key};

/// Evaluates `expr` in the page and returns its value.
fn eval(b: &mut Browser, expr: &str) -> Value {
    let r = b
        .page_call(
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        )
        .unwrap();
    assert!(r.get("exceptionDetails").is_none(), "{expr}: {r:#}");
    r["result"]["value"].clone()
}

/// Navigates to `url` and waits until the document has loaded.
fn open(b: &mut Browser, url: &str) {
    b.page_call("Page.navigate", json!({"url": url})).unwrap();
    wait_for(
        b,
        "document.readyState === 'complete' && document.body !== null",
    );
}

/// Waits (up to 20 s) until `cond` is true in the page.
fn wait_for(b: &mut Browser, cond: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if eval(b, &format!("Boolean({cond})")) == Value::Bool(true) {
            return;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {cond}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_web_ui_in_chromium_lists_runs_flags_tampering_and_takes_an_answer() {
    let Some(chromium) = loki_test_support::require_browser() else {
        return;
    };
    if !loki_test_support::require_pytest() {
        return;
    }
    let sb = Sandbox::new();
    let repo = calc_repo();
    let tmp = tempfile::tempdir().unwrap();

    // A VERIFIED run made while no server runs, its receipt's signature then altered on disk.
    let ok = script(&tmp.path().join("ok.json"), TEST_AC_1);
    let v = build(&sb, &repo, "Fix add() in calc.py.", &ok, 0);
    assert_eq!(v["outcome"], "VERIFIED", "{v:#}");
    let tampered = v["run_id"].as_str().unwrap().to_string();
    let run_dir = repo.path().join(".loki/runs").join(&tampered);
    let envelope = run_dir.join("receipt.dsse.json");
    let mut env: Value = serde_json::from_slice(&std::fs::read(&envelope).unwrap()).unwrap();
    let sig = env["signatures"][0]["sig"].as_str().unwrap().to_string();
    let flipped = if sig.starts_with('A') { "B" } else { "A" };
    env["signatures"][0]["sig"] = Value::String(format!("{flipped}{}", &sig[1..]));
    std::fs::write(&envelope, serde_json::to_vec(&env).unwrap()).unwrap();

    // The server: the key trusted, the tampered run backfilled, a BLOCKED run shipped live.
    let server = Serve::start(&sb);
    trust_home_key(&sb);
    sandboxed(&sb, sb.home())
        .args(["serve", "backfill"])
        .arg(&run_dir)
        .assert()
        .success();
    let conflicting = "Fix add() in calc.py.\n\n## Requirements\n- `add(2, 3)` must return 5\n- `add(2, 3)` must not return 5\n";
    let unused = script(&tmp.path().join("unused.json"), TEST_AC_1);
    let v = build(&sb, &repo, conflicting, &unused, 4);
    assert_eq!(v["outcome"], "BLOCKED", "{v:#}");
    let blocked = v["run_id"].as_str().unwrap().to_string();
    let runs = server.get("/v1/runs");
    let row = |id: &str| {
        runs["runs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["run"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("{id} not listed: {runs:#}"))
    };
    assert_eq!(row(&tampered)["state"], "tampered", "{runs:#}");
    let source = row(&blocked)["source"].as_str().unwrap().to_string();

    let mut b = Browser::launch(&chromium).unwrap();
    b.open_page().unwrap();

    // The runs list: both runs, their verdicts, and the charts drawn with marks in them.
    open(&mut b, &format!("{}/", server.url));
    let rows = eval(
        &mut b,
        "Array.from(document.querySelectorAll('#runs tbody tr')).map(r => r.innerText)",
    );
    let rows: Vec<String> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert!(
        rows.iter()
            .any(|r| r.contains("VERIFIED") && r.contains("tampered")),
        "{rows:?}"
    );
    assert!(rows.iter().any(|r| r.contains("BLOCKED")), "{rows:?}");
    let charts = eval(
        &mut b,
        "Array.from(document.querySelectorAll('svg.chart')).map(s => [s.getAttribute('aria-label'), s.querySelectorAll('rect, path, line, circle, polyline').length, s.getBoundingClientRect().width])",
    );
    let charts = charts.as_array().unwrap().clone();
    assert!(charts.len() >= 2, "{charts:?}");
    for c in &charts {
        assert!(c[1].as_u64().unwrap() > 0, "a chart with no marks: {c:?}");
        assert!(c[2].as_f64().unwrap() > 50.0, "a chart not laid out: {c:?}");
    }
    let labels: Vec<&str> = charts.iter().filter_map(|c| c[0].as_str()).collect();
    assert!(labels.contains(&"cost per day"), "{labels:?}");
    assert!(labels.contains(&"verdict mix"), "{labels:?}");
    let shot = b
        .page_call("Page.captureScreenshot", json!({"format": "png"}))
        .unwrap();
    let png = base64_len(shot["data"].as_str().unwrap());
    assert!(png > 1000, "a screenshot of {png} bytes");

    // The tampered run's page carries the red banner.
    open(
        &mut b,
        &format!(
            "{}/runs/{}/{tampered}",
            server.url,
            row(&tampered)["source"].as_str().unwrap()
        ),
    );
    let banner = eval(
        &mut b,
        "(document.querySelector('.banner-red') || {innerText: ''}).innerText",
    );
    assert!(
        banner.as_str().unwrap().to_lowercase().contains("tampered"),
        "{banner}"
    );

    // The BLOCKED run's answer box posts the answer; `loki answer` builds with it.
    open(&mut b, &format!("{}/runs/{source}/{blocked}", server.url));
    eval(
        &mut b,
        "document.querySelector('#answer textarea').value = 'AC-1: add sums.'; document.querySelector('#answer button').click(); true",
    );
    wait_for(
        &mut b,
        "document.querySelector('#answer output').textContent.length > 0",
    );
    let said = eval(
        &mut b,
        "document.querySelector('#answer output').textContent",
    );
    assert!(said.as_str().unwrap().starts_with("stored"), "{said}");
    b.close();

    answer_from_the_server_verifies(&sb, &repo, &blocked, tmp.path());
}

/// The decoded size of base64 `data`.
fn base64_len(data: &str) -> usize {
    data.trim_end_matches('=').len() * 3 / 4
}
