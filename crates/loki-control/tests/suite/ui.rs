//! The web UI over real HTTP: the structure of its pages (a browser test comes later), its
//! embedded assets, and the live-update stream it listens to.

use serde_json::{Value, json};

use super::fixture::{Ending, Key, Run, record};
use super::server::Running;

async fn html(url: &str) -> (u16, String, String) {
    let r = reqwest::get(url).await.unwrap();
    let status = r.status().as_u16();
    let csp = r
        .headers()
        .get("content-security-policy")
        .map(|h| h.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, csp, r.text().await.unwrap())
}

async fn ship(s: &Running, run: &Run) -> Value {
    let body = json!({"machine": "laptop", "repo": "/work/widget", "run": run.run,
                      "events": run.events, "receipt": run.envelope});
    let r = reqwest::Client::new()
        .post(format!("{}/v1/ingest", s.url))
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    r.json().await.unwrap()
}

fn source() -> String {
    loki_control::store::source_id("laptop", "/work/widget")
}

#[tokio::test]
async fn the_runs_list_shows_a_shipped_run_with_filters_charts_and_no_outside_assets() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_130000_aaaa",
        &key,
        Ending::Sealed,
        "x",
    );
    let mut s = Running::local().await;
    s.trust(&key.pem).await;
    let (st, _, empty) = html(&format!("{}/", s.url)).await;
    assert_eq!(st, 200);
    assert!(empty.contains("no runs yet"), "{empty}");
    ship(&s, &run).await;
    let (st, csp, page) = html(&format!("{}/", s.url)).await;
    assert_eq!(st, 200);
    assert!(csp.contains("default-src 'self'"), "{csp}");
    assert!(page.starts_with("<!doctype html>"), "{page}");
    assert!(
        page.contains(&format!(
            "<a href=\"/runs/{}/{}\">{}</a>",
            source(),
            run.run,
            run.run
        )),
        "{page}"
    );
    assert!(
        page.contains("<span class=\"verdict v-verified\">VERIFIED</span>"),
        "{page}"
    );
    assert!(page.contains("<tr class=\"state-intact\">"), "{page}");
    assert!(
        page.contains("<form class=\"filters\" method=\"get\" action=\"/\">"),
        "{page}"
    );
    assert!(page.contains("<svg class=\"chart chart-cost\""), "{page}");
    assert!(page.contains("<rect class=\"bar\""), "{page}");
    assert!(
        page.contains("<svg class=\"chart chart-verdicts\""),
        "{page}"
    );
    assert!(page.contains("<rect class=\"seg v-verified\""), "{page}");
    assert!(page.contains("data-live=\"/v1/live\""), "{page}");
    // A filter that matches nothing empties the table.
    let (_, _, filtered) = html(&format!("{}/?verdict=FAILED", s.url)).await;
    assert!(
        !filtered.contains(&run.run) && filtered.contains("value=\"FAILED\""),
        "{filtered}"
    );
    // Offline: no asset or script from anywhere else.
    let (st, _, css) = html(&format!("{}/assets/app.css", s.url)).await;
    let (st2, _, js) = html(&format!("{}/assets/app.js", s.url)).await;
    assert_eq!((st, st2), (200, 200));
    assert!(js.contains("EventSource"), "{js}");
    for text in [&page, &css, &js] {
        assert!(
            !text.contains("http://") && !text.contains("https://"),
            "{text}"
        );
    }
    s.stop().await;
}

#[tokio::test]
async fn a_run_page_shows_stages_checks_not_proven_and_the_receipt() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_130000_bbbb",
        &key,
        Ending::Sealed,
        "x",
    );
    let mut s = Running::local().await;
    s.trust(&key.pem).await;
    ship(&s, &run).await;
    let (st, _, page) = html(&format!("{}/runs/{}/{}", s.url, source(), run.run)).await;
    assert_eq!(st, 200);
    assert!(!page.contains("banner-red"), "{page}");
    assert!(page.contains("<svg class=\"chart chart-stages\""), "{page}");
    assert!(
        page.contains("<text x=\"0\" y=\"15.0\">plan</text>"),
        "{page}"
    );
    assert!(page.contains("<td>impacted tests</td>"), "{page}");
    assert!(
        page.contains("<h2>NOT PROVEN</h2><ul class=\"not-proven\"><li>"),
        "{page}"
    );
    assert!(page.contains("signature by"), "{page}");
    assert!(
        page.contains(&format!(
            "data-stream=\"/v1/runs/{}/{}/stream\"",
            source(),
            run.run
        )),
        "{page}"
    );
    assert!(!page.contains("id=\"answer\""), "{page}");
    let (st, _, missing) = html(&format!("{}/runs/{}/run_nope", s.url, source())).await;
    assert_eq!(st, 404);
    assert!(missing.contains("no run run_nope"), "{missing}");
    s.stop().await;
}

#[tokio::test]
async fn a_tampered_run_shows_the_red_banner_and_a_blocked_run_the_answer_box() {
    let key = Key::new();
    let (d1, d2) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut tampered = record(
        d1.path(),
        "run_20261201_130000_cccc",
        &key,
        Ending::Sealed,
        "x",
    );
    tampered.events[3]
        .data
        .insert("detail".to_string(), json!("<script>alert(1)</script>"));
    let blocked = record(
        d2.path(),
        "run_20261201_130000_dddd",
        &key,
        Ending::Blocked,
        "x",
    );
    let mut s = Running::local().await;
    s.trust(&key.pem).await;
    ship(&s, &tampered).await;
    ship(&s, &blocked).await;
    let (_, _, page) = html(&format!("{}/runs/{}/{}", s.url, source(), tampered.run)).await;
    assert!(
        page.contains("<div class=\"banner banner-red\" role=\"alert\"><strong>TAMPERED</strong>: line 3 of the event log"),
        "{page}"
    );
    assert!(!page.contains("<script>alert"), "{page}");
    let (_, _, page) = html(&format!("{}/runs/{}/{}", s.url, source(), blocked.run)).await;
    assert!(!page.contains("banner-red"), "{page}");
    assert!(
        page.contains(&format!(
            "<form id=\"answer\" data-post=\"/v1/runs/{}/{}/answer\">",
            source(),
            blocked.run
        )),
        "{page}"
    );
    assert!(
        page.contains("which database should the flag configure?"),
        "{page}"
    );
    s.stop().await;
}

#[tokio::test]
async fn the_live_stream_says_changed_when_a_run_arrives() {
    let key = Key::new();
    let repo = tempfile::tempdir().unwrap();
    let run = record(
        repo.path(),
        "run_20261201_130000_eeee",
        &key,
        Ending::Sealed,
        "x",
    );
    let mut s = Running::local().await;
    let mut resp = reqwest::get(format!("{}/v1/live", s.url)).await.unwrap();
    let first = String::from_utf8(resp.chunk().await.unwrap().unwrap().to_vec()).unwrap();
    assert!(first.contains("event: ready"), "{first}");
    ship(&s, &run).await;
    let mut seen = String::new();
    while !seen.contains("event: changed") {
        let chunk = tokio::time::timeout(std::time::Duration::from_secs(5), resp.chunk())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    drop(resp);
    s.stop().await;
}
