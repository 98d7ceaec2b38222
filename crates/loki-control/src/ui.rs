//! The web UI: server-rendered HTML over the same store as `/v1`, with its CSS and JavaScript
//! compiled into the binary (no CDN: it works offline).
//!
//! - `/`: the runs list (verdict, state, repo, task, model, cost, time), filters as a plain GET
//!   form, charts (cost per day, verdict mix) as server-rendered SVG, and live updates: the page
//!   listens to `/v1/live` (SSE) and reloads when a run changes.
//! - `/runs/:source/:run`: the run: a red banner for a tampered or conflicting run, the stage
//!   timeline (SVG bars of each stage's duration), checks, integrity findings, NOT PROVEN, the
//!   receipt and chain checks, the answer box of a BLOCKED run (it posts JSON to `/v1`), and the
//!   live event tail (`/v1/runs/:source/:run/stream`).
//!
//! Every value is HTML-escaped ([`esc`]); the pages carry no inline script, so a
//! `Content-Security-Policy` of `default-src 'self'` holds.

use std::fmt::Write as _;

use axum::Router;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use serde_json::Value;

use crate::server::AppState;
use crate::store::{Group, RunFilter, StatRow};

const CSS: &str = include_str!("ui/app.css");
const JS: &str = include_str!("ui/app.js");
/// What the pages allow: only this server's own assets and API.
const CSP: &str = "default-src 'self'; style-src 'self'; script-src 'self'; img-src 'self' data:";
/// Runs on the list page.
const LIST_PAGE: i64 = 100;
/// Days the cost chart shows.
const CHART_DAYS: usize = 30;

/// The UI's routes.
pub(crate) fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(list_page))
        .route("/runs/{source}/{run}", get(run_page))
        .route(
            "/assets/app.css",
            get(|| asset(CSS, "text/css; charset=utf-8")),
        )
        .route(
            "/assets/app.js",
            get(|| asset(JS, "text/javascript; charset=utf-8")),
        )
}

async fn asset(body: &'static str, kind: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// HTML-escapes text for element content and quoted attributes.
#[must_use]
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn page(title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{} · loki</title>\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <link rel=\"stylesheet\" href=\"/assets/app.css\"></head>\
         <body><header><a href=\"/\" class=\"brand\">loki control</a></header><main>{body}</main>\
         <script src=\"/assets/app.js\"></script></body></html>\n",
        esc(title)
    );
    ([(header::CONTENT_SECURITY_POLICY, CSP)], Html(html)).into_response()
}

fn error_page(status: StatusCode, msg: &str) -> Response {
    let mut r = page("error", &format!("<p class=\"error\">{}</p>", esc(msg)));
    *r.status_mut() = status;
    r
}

fn text<'a>(v: &'a Value, k: &str) -> &'a str {
    v.get(k).and_then(Value::as_str).unwrap_or("")
}

fn money(v: &Value) -> String {
    v.as_f64()
        .map_or_else(|| "—".to_string(), |x| format!("${x:.2}"))
}

#[derive(Debug, serde::Deserialize)]
struct ListQuery {
    verdict: Option<String>,
    repo: Option<String>,
    provider: Option<String>,
    state: Option<String>,
}

fn nonempty(s: Option<String>) -> Option<String> {
    s.filter(|s| !s.is_empty())
}

async fn list_page(State(st): State<AppState>, Query(q): Query<ListQuery>) -> Response {
    let filter = RunFilter {
        verdict: nonempty(q.verdict),
        repo: nonempty(q.repo),
        provider: nonempty(q.provider),
        state: nonempty(q.state),
        limit: LIST_PAGE,
        ..RunFilter::default()
    };
    let (runs, days, verdicts) = match (
        st.store.runs(&filter).await,
        st.store.stats(Group::Day).await,
        st.store.stats(Group::Verdict).await,
    ) {
        (Ok(r), Ok(d), Ok(v)) => (r, d, v),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            return error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string());
        }
    };
    let mut b = String::new();
    b.push_str("<h1>Runs</h1><form class=\"filters\" method=\"get\" action=\"/\">");
    for (name, value) in [
        ("verdict", &filter.verdict),
        ("repo", &filter.repo),
        ("provider", &filter.provider),
        ("state", &filter.state),
    ] {
        let _ = write!(
            b,
            "<label>{name} <input name=\"{name}\" value=\"{}\"></label>",
            esc(value.as_deref().unwrap_or(""))
        );
    }
    b.push_str("<button type=\"submit\">filter</button></form>");
    b.push_str("<section class=\"charts\">");
    b.push_str(&cost_chart(&days));
    b.push_str(&verdict_chart(&verdicts));
    b.push_str("</section>");
    b.push_str(
        "<table id=\"runs\" data-live=\"/v1/live\"><thead><tr><th>verdict</th><th>state</th>\
         <th>repo</th><th>task</th><th>model</th><th>cost</th><th>started</th><th>run</th></tr>\
         </thead><tbody>",
    );
    if runs.runs.is_empty() {
        b.push_str("<tr><td colspan=\"8\" class=\"empty\">no runs yet: runs ship here while `loki serve` runs</td></tr>");
    }
    for r in &runs.runs {
        let _ = write!(
            b,
            "<tr class=\"state-{state}\"><td><span class=\"verdict v-{verdict_class}\">{verdict}</span></td>\
             <td>{state}</td><td>{repo}</td><td>{task}</td><td>{model}</td><td>{cost}</td><td>{started}</td>\
             <td><a href=\"/runs/{source}/{run}\">{run}</a></td></tr>",
            state = esc(text(r, "state")),
            verdict_class = esc(&text(r, "verdict").to_ascii_lowercase()),
            verdict = esc(text(r, "verdict")),
            repo = esc(text(r, "repo")),
            task = esc(text(r, "task")),
            model = esc(text(r, "model")),
            cost = money(&r["cost_usd"]),
            started = esc(text(r, "started_at")),
            source = esc(text(r, "source")),
            run = esc(text(r, "run")),
        );
    }
    b.push_str("</tbody></table>");
    page("runs", &b)
}

/// Bars of cost per day, oldest left (server-rendered SVG).
fn cost_chart(days: &[StatRow]) -> String {
    let mut rows: Vec<&StatRow> = days.iter().take(CHART_DAYS).collect();
    rows.reverse();
    let max = rows
        .iter()
        .filter_map(|r| r.cost_usd)
        .fold(0.0_f64, f64::max);
    let (w, h, bar) = (600.0, 120.0, 18.0);
    let mut s = format!(
        "<figure><figcaption>cost per day</figcaption><svg class=\"chart chart-cost\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"cost per day\">"
    );
    for (i, r) in rows.iter().enumerate() {
        let cost = r.cost_usd.unwrap_or(0.0);
        let bh = if max > 0.0 {
            cost / max * (h - 20.0)
        } else {
            0.0
        };
        let x = i as f64 * (bar + 2.0);
        let _ = write!(
            s,
            "<rect class=\"bar\" x=\"{x}\" y=\"{y:.1}\" width=\"{bar}\" height=\"{bh:.1}\"><title>{day}: {cost}, {n} runs</title></rect>",
            y = h - bh,
            day = esc(&r.key),
            // An unmeasured day is said so, never drawn or written as $0.00.
            cost = r.cost_usd.map_or_else(
                || format!(
                    "not measured ({} run(s) without a price)",
                    r.cost_unmeasured
                ),
                |c| format!("${c:.2}")
            ),
            n = r.runs,
        );
    }
    s.push_str("</svg></figure>");
    s
}

/// One stacked bar of the verdict mix.
fn verdict_chart(verdicts: &[StatRow]) -> String {
    let total: i64 = verdicts.iter().map(|r| r.runs).sum();
    let w = 600.0;
    let mut s = format!(
        "<figure><figcaption>verdict mix</figcaption><svg class=\"chart chart-verdicts\" viewBox=\"0 0 {w} 30\" role=\"img\" aria-label=\"verdict mix\">"
    );
    let mut x = 0.0;
    for r in verdicts {
        #[expect(
            clippy::cast_precision_loss,
            reason = "run counts far below 2^52: the ratio is exact enough for a chart"
        )]
        let part = if total > 0 {
            r.runs as f64 / total as f64 * w
        } else {
            0.0
        };
        let _ = write!(
            s,
            "<rect class=\"seg v-{class}\" x=\"{x:.1}\" y=\"0\" width=\"{part:.1}\" height=\"30\"><title>{key}: {n}</title></rect>",
            class = esc(&r.key.to_ascii_lowercase()),
            key = esc(&r.key),
            n = r.runs,
        );
        x += part;
    }
    s.push_str("</svg></figure>");
    s
}

/// Seconds between two RFC 3339 times, when both parse.
fn seconds(from: &str, to: &str) -> Option<f64> {
    let a = chrono::DateTime::parse_from_rfc3339(from).ok()?;
    let b = chrono::DateTime::parse_from_rfc3339(to).ok()?;
    #[expect(
        clippy::cast_precision_loss,
        reason = "stage durations in milliseconds are far below 2^52"
    )]
    let ms = (b - a).num_milliseconds() as f64;
    Some(ms / 1000.0)
}

/// The stage timeline: one bar per stage, its length the stage's duration.
fn timeline(stages: &[Value]) -> String {
    let durations: Vec<(String, String, f64)> = stages
        .iter()
        .map(|s| {
            let d = seconds(text(s, "started_ts"), text(s, "ended_ts")).unwrap_or(0.0);
            (text(s, "name").to_string(), text(s, "state").to_string(), d)
        })
        .collect();
    let max = durations.iter().map(|d| d.2).fold(0.0_f64, f64::max);
    let (w, row) = (600.0, 22.0);
    #[expect(clippy::cast_precision_loss, reason = "a handful of stages")]
    let h = durations.len() as f64 * row;
    let mut s = format!(
        "<figure><figcaption>stage durations</figcaption><svg class=\"chart chart-stages\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-label=\"stage durations\">"
    );
    for (i, (name, state, d)) in durations.iter().enumerate() {
        #[expect(clippy::cast_precision_loss, reason = "a handful of stages")]
        let y = i as f64 * row;
        let bw = if max > 0.0 {
            d / max * (w - 160.0)
        } else {
            0.0
        };
        let _ = write!(
            s,
            "<text x=\"0\" y=\"{ty:.1}\">{name}</text><rect class=\"bar s-{state}\" x=\"150\" y=\"{y:.1}\" width=\"{bw:.1}\" height=\"{bh}\"><title>{name}: {d:.1} s ({state})</title></rect>",
            ty = y + 15.0,
            bh = row - 6.0,
            name = esc(name),
            state = esc(state),
        );
    }
    s.push_str("</svg></figure>");
    s
}

async fn run_page(
    State(st): State<AppState>,
    UrlPath((source, run)): UrlPath<(String, String)>,
) -> Response {
    let r = match st.store.run(&source, &run).await {
        Ok(Some(r)) => r,
        Ok(None) => {
            return error_page(
                StatusCode::NOT_FOUND,
                &format!("no run {run} from source {source}"),
            );
        }
        Err(e) => return error_page(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()),
    };
    let state = text(&r, "state");
    let mut b = String::new();
    if state == "tampered" || state == "conflict" {
        let _ = write!(
            b,
            "<div class=\"banner banner-red\" role=\"alert\"><strong>{}</strong>: {}</div>",
            esc(&state.to_ascii_uppercase()),
            esc(text(&r, "state_detail"))
        );
    }
    let _ = write!(
        b,
        "<h1>{run}</h1><dl class=\"facts\"><dt>verdict</dt><dd><span class=\"verdict v-{vc}\">{verdict}</span></dd>\
         <dt>state</dt><dd class=\"state-{state}\">{state}: {detail}</dd><dt>repo</dt><dd>{repo}</dd>\
         <dt>machine</dt><dd>{machine}</dd><dt>task</dt><dd>{task}</dd><dt>provider</dt><dd>{provider} {model}</dd>\
         <dt>cost</dt><dd>{cost}</dd><dt>started</dt><dd>{started}</dd><dt>ended</dt><dd>{ended}</dd></dl>",
        run = esc(text(&r, "run")),
        vc = esc(&text(&r, "verdict").to_ascii_lowercase()),
        verdict = esc(text(&r, "verdict")),
        state = esc(state),
        detail = esc(text(&r, "state_detail")),
        repo = esc(text(&r, "repo")),
        machine = esc(text(&r, "machine")),
        task = esc(text(&r, "task")),
        provider = esc(text(&r, "provider")),
        model = esc(text(&r, "model")),
        cost = money(&r["cost_usd"]),
        started = esc(text(&r, "started_at")),
        ended = esc(text(&r, "ended_at")),
    );
    if r["blocked"] == Value::Bool(true) {
        let _ = write!(
            b,
            "<section class=\"answer\"><h2>Question</h2><p class=\"question\">{q}</p>\
             <form id=\"answer\" data-post=\"/v1/runs/{s}/{run}/answer\"><textarea name=\"answer\" maxlength=\"4000\" required></textarea>\
             <button type=\"submit\">answer</button><output></output></form>\
             <p>then <code>loki answer {run}</code> in the repository builds again with it</p></section>",
            q = esc(text(&r, "question")),
            s = esc(&source),
            run = esc(&run),
        );
    }
    b.push_str("<h2>Stages</h2>");
    b.push_str(&timeline(
        r["stages"].as_array().map_or(&[][..], Vec::as_slice),
    ));
    b.push_str("<h2>Checks</h2><table class=\"checks\"><thead><tr><th>name</th><th>kind</th><th>result</th><th>passed</th><th>failed</th><th>skipped</th><th>seconds</th></tr></thead><tbody>");
    for c in r["checks"].as_array().into_iter().flatten() {
        let _ = write!(
            b,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            esc(text(c, "name")),
            esc(text(c, "kind")),
            esc(text(c, "result")),
            c["passed"],
            c["failed"],
            c["skipped"],
            c["duration_s"],
        );
    }
    b.push_str("</tbody></table><h2>Integrity findings</h2><ul class=\"findings\">");
    let findings = r["integrity"].as_array().map_or(&[][..], Vec::as_slice);
    if findings.is_empty() {
        b.push_str("<li class=\"none\">none</li>");
    }
    for f in findings {
        let _ = write!(
            b,
            "<li><code>{}</code> {}: {}</li>",
            esc(text(f, "kind")),
            esc(text(f, "path")),
            esc(text(f, "detail"))
        );
    }
    b.push_str("</ul><h2>NOT PROVEN</h2><ul class=\"not-proven\">");
    match r["not_proven"].as_array() {
        Some(items) => {
            // `{what, why, prove}`; receipts sealed before that hold a bare string.
            for i in items {
                match i.as_str() {
                    Some(bare) => {
                        let _ = write!(b, "<li>{}</li>", esc(bare));
                    }
                    None => {
                        let _ = write!(
                            b,
                            "<li><strong>{}</strong>: {}. Prove: <code>{}</code></li>",
                            esc(text(i, "what")),
                            esc(text(i, "why")),
                            esc(text(i, "prove"))
                        );
                    }
                }
            }
        }
        None => {
            b.push_str("<li class=\"none\">no verified receipt: nothing is claimed proven</li>");
        }
    }
    let _ = write!(
        b,
        "</ul><h2>Receipt</h2><p class=\"receipt\">{}</p><p class=\"chain\">{}</p>",
        esc(r["receipt"]
            .get("detail")
            .and_then(Value::as_str)
            .unwrap_or("no receipt received")),
        esc(r["chain"]
            .get("note")
            .and_then(Value::as_str)
            .unwrap_or("every line's hash was recomputed here"))
    );
    let _ = write!(
        b,
        "<h2>Events</h2><ol id=\"tail\" class=\"tail\" data-stream=\"/v1/runs/{}/{}/stream\"></ol>",
        esc(&source),
        esc(&run)
    );
    page(&run, &b)
}
