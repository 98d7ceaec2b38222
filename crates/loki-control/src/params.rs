//! The query parameters of `/v1` and the JSON answers to requests the API cannot serve.
//!
//! # Contract
//!
//! - Every query string is parsed into a struct that names each parameter it takes; an unknown
//!   parameter, a number that is not one (`limit=abc`) or a time that is not one
//!   (`since=garbage`) is `400` with `{"error": "..."}` naming the parameter and what it takes.
//!   Nothing is silently ignored: a filter that was not applied would show a wrong list as right.
//! - `since` / `until` take an RFC 3339 time (any offset; compared in UTC) or a date
//!   (`YYYY-MM-DD`, the start of that UTC day). They are normalised to the store's timestamp form
//!   (`2026-11-29T15:17:36.123Z`), which sorts as it compares.
//! - A path no route serves is `404` with `{"error": "..."}`, never an empty body.

use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde_json::json;

use crate::check::RunState;

/// A JSON error: `{"error": "..."}`.
pub(crate) fn fail(status: StatusCode, msg: impl Into<String>) -> Response {
    (status, axum::Json(json!({"error": msg.into()}))).into_response()
}

/// A query parameter that is wrong, and why: a JSON 400.
#[derive(Debug, Clone)]
pub(crate) struct BadParam(String);

impl IntoResponse for BadParam {
    fn into_response(self) -> Response {
        fail(StatusCode::BAD_REQUEST, self.0)
    }
}

/// [`Query`], but a bad query string is a JSON 400 (axum's own rejection is plain text).
#[derive(Debug, Clone)]
pub(crate) struct Params<T>(pub T);

impl<T, S> FromRequestParts<S> for Params<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        match Query::<T>::from_request_parts(parts, state).await {
            Ok(Query(v)) => Ok(Params(v)),
            Err(e) => Err(bad_query(&e)),
        }
    }
}

fn bad_query(e: &QueryRejection) -> Response {
    fail(
        StatusCode::BAD_REQUEST,
        format!(
            "bad query string: {}; see the README's /v1 section for the parameters each route takes",
            e.body_text()
        ),
    )
}

/// `since` / `until` in the store's form, or why not (see the module doc).
pub(crate) fn time_bound(name: &str, value: &str) -> Result<String, BadParam> {
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(value) {
        return Ok(t
            .with_timezone(&chrono::Utc)
            .format("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string());
    }
    if let Ok(d) = chrono::NaiveDate::parse_from_str(value, "%Y-%m-%d") {
        return Ok(format!("{}T00:00:00.000Z", d.format("%Y-%m-%d")));
    }
    Err(BadParam(format!(
        "{name}={value:?} is not a time: give an RFC 3339 time (2026-11-29T15:17:36Z) or a date (2026-11-29)"
    )))
}

/// A page size: at least 1 (the largest is clamped by the route).
pub(crate) fn page_size(value: Option<i64>, default: i64) -> Result<i64, BadParam> {
    match value {
        None => Ok(default),
        Some(n) if n >= 1 => Ok(n),
        Some(n) => Err(BadParam(format!(
            "limit={n} is not a page size: give a whole number of at least 1"
        ))),
    }
}

/// A run state filter: one of the four states.
pub(crate) fn state(value: Option<String>) -> Result<Option<String>, BadParam> {
    const STATES: [RunState; 4] = [
        RunState::Intact,
        RunState::Tampered,
        RunState::Unattested,
        RunState::Conflict,
    ];
    match value {
        Some(v) if !STATES.iter().any(|s| s.as_str() == v) => Err(BadParam(format!(
            "state={v:?} is not a run state: give one of {}",
            STATES.map(RunState::as_str).join(", ")
        ))),
        v => Ok(v),
    }
}

/// The fallback of every route: a JSON 404.
pub(crate) async fn not_found(uri: Uri) -> Response {
    fail(
        StatusCode::NOT_FOUND,
        format!(
            "no route {}: the API is under /v1 (see the README), the UI at /",
            uri.path()
        ),
    )
}
