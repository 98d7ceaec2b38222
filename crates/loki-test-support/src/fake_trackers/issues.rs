//! The fake trackers' issue endpoints: GitHub, GitLab and Jira issues with their comments, and
//! Linear's `issue` query, each checking the tracker's own authentication.

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use super::{
    Behaviour, GITHUB_TOKEN, GITLAB_TOKEN, JIRA_EMAIL, JIRA_TOKEN, LINEAR_KEY, backlog_issue,
    body_text, github_listing, gitlab_listing, json_reply,
};
use crate::fake_server::Incoming;

/// What an issue endpoint answers from: the request's path and query, the server's origin (for
/// `link` headers) and its behaviour.
pub(super) struct Get<'a> {
    pub(super) req: &'a Incoming,
    pub(super) path: &'a str,
    pub(super) query: &'a str,
    pub(super) origin: &'a str,
    pub(super) behaviour: Behaviour,
}

impl Get<'_> {
    fn header(&self, n: &str) -> String {
        self.req.headers.get(n).cloned().unwrap_or_default()
    }
}

/// `GET /repos/...`: GitHub's issues, the backlog's and their comments (paged by `link`).
pub(super) fn github(g: &Get<'_>, violation: &mut dyn FnMut(String)) -> Response {
    let (p, query, origin, behaviour) = (g.path, g.query, g.origin, g.behaviour);
    let h = |n: &str| g.header(n);
    if h("authorization") != format!("Bearer {GITHUB_TOKEN}") {
        violation("GitHub wants Authorization: Bearer <token>".into());
    }
    if h("accept") != "application/vnd.github+json" {
        violation("GitHub wants Accept: application/vnd.github+json".into());
    }
    match p {
        "/repos/octo/widgets/issues" => github_listing(origin, query, violation),
        "/repos/octo/widgets/issues/13" | "/repos/octo/widgets/issues/14" => {
            let n = &p["/repos/octo/widgets/issues/".len()..];
            let (title, body) = backlog_issue(n);
            json_reply(
                StatusCode::OK,
                &json!({"number": n.parse::<u64>().unwrap(), "title": title, "body": body,
                        "labels": [{"name": "loki"}], "html_url": format!("https://github.com/octo/widgets/issues/{n}"),
                        "user": {"login": "ana"}}),
                &[],
            )
        }
        "/repos/octo/widgets/issues/13/comments" | "/repos/octo/widgets/issues/14/comments" => {
            if query != "per_page=100" {
                violation("comments are read 100 per page".into());
            }
            json_reply(StatusCode::OK, &json!([]), &[])
        }
        "/repos/octo/widgets/issues/12" => json_reply(
            StatusCode::OK,
            &json!({"title": "add() subtracts", "body": body_text(behaviour, "add(2, 3) returns -1; it must return 5."),
                    "labels": [{"name": "bug"}], "html_url": "https://github.com/octo/widgets/issues/12",
                    "user": {"login": "ana"}}),
            &[],
        ),
        "/repos/octo/widgets/issues/12/comments" => {
            if query.contains("page=2") {
                json_reply(
                    StatusCode::OK,
                    &json!([{"user": {"login": "bo"}, "body": "second page"}]),
                    &[],
                )
            } else {
                if !query.contains("per_page=100") {
                    violation("comments are read 100 per page".into());
                }
                let next = format!(
                    "<{origin}/repos/octo/widgets/issues/12/comments?per_page=100&page=2>; rel=\"next\""
                );
                json_reply(
                    StatusCode::OK,
                    &json!([{"user": {"login": "ana"}, "body": "first page"}]),
                    &[("link", next)],
                )
            }
        }
        _ => json_reply(StatusCode::NOT_FOUND, &json!({"message": "Not Found"}), &[]),
    }
}

/// `GET /api/v4/...`: GitLab's issues and their notes (paged by `x-next-page`).
pub(super) fn gitlab(g: &Get<'_>, violation: &mut dyn FnMut(String)) -> Response {
    let (p, query, origin) = (g.path, g.query, g.origin);
    let h = |n: &str| g.header(n);
    if h("private-token") != GITLAB_TOKEN {
        violation("GitLab wants PRIVATE-TOKEN".into());
    }
    match p {
        "/api/v4/projects/grp%2Fsub%2Fproj/issues" => gitlab_listing(query, violation),
        "/api/v4/projects/grp%2Fsub%2Fproj/issues/3" => json_reply(
            StatusCode::OK,
            &json!({"title": "add() subtracts", "description": "make add return the sum", "labels": ["bug"],
                    "web_url": format!("{origin}/grp/sub/proj/-/issues/3"), "author": {"username": "ana"}}),
            &[],
        ),
        "/api/v4/projects/grp%2Fsub%2Fproj/issues/3/notes" => {
            if query.contains("page=2") {
                json_reply(
                    StatusCode::OK,
                    &json!([{"author": {"username": "bo"}, "body": "second page", "system": false}]),
                    &[],
                )
            } else {
                json_reply(
                    StatusCode::OK,
                    &json!([{"author": {"username": "gl"}, "body": "added ~bug label", "system": true},
                            {"author": {"username": "ana"}, "body": "first page", "system": false}]),
                    &[("x-next-page", "2".into())],
                )
            }
        }
        _ => json_reply(
            StatusCode::NOT_FOUND,
            &json!({"message": "404 Not found"}),
            &[],
        ),
    }
}

/// `GET /rest/api/3/...`: Jira's issue PROJ-7 and its comments (paged by `startAt`).
pub(super) fn jira(g: &Get<'_>, violation: &mut dyn FnMut(String)) -> Response {
    let (p, query) = (g.path, g.query);
    let h = |n: &str| g.header(n);
    use base64::Engine as _;
    let want = format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(format!("{JIRA_EMAIL}:{JIRA_TOKEN}"))
    );
    if h("authorization") != want {
        violation("Jira wants Basic email:token".into());
    }
    match p {
        "/rest/api/3/issue/PROJ-7" => json_reply(
            StatusCode::OK,
            &json!({"key": "PROJ-7", "fields": {"summary": "add() subtracts", "labels": ["bug"],
                "reporter": {"displayName": "Ana"},
                "description": {"type": "doc", "version": 1, "content": [
                    {"type": "paragraph", "content": [{"type": "text", "text": "make add return the sum"}]},
                    {"type": "bulletList", "content": [{"type": "listItem", "content": [
                        {"type": "paragraph", "content": [{"type": "text", "text": "add(2, 3) == 5"}]}]}]}]}}}),
            &[],
        ),
        "/rest/api/3/issue/PROJ-7/comment" => {
            let text = |t: &str| json!({"type": "doc", "content": [{"type": "paragraph", "content": [{"type": "text", "text": t}]}]});
            if query.contains("startAt=0") {
                json_reply(
                    StatusCode::OK,
                    &json!({"startAt": 0, "total": 2, "comments": [{"author": {"displayName": "Ana"}, "body": text("first page")}]}),
                    &[],
                )
            } else if query.contains("startAt=1") {
                json_reply(
                    StatusCode::OK,
                    &json!({"startAt": 1, "total": 2, "comments": [{"author": {"displayName": "Bo"}, "body": text("second page")}]}),
                    &[],
                )
            } else {
                violation("comments are paged with startAt".into());
                json_reply(StatusCode::BAD_REQUEST, &json!({}), &[])
            }
        }
        _ => json_reply(
            StatusCode::NOT_FOUND,
            &json!({"errorMessages": ["Issue does not exist"]}),
            &[],
        ),
    }
}

/// `POST /graphql`: Linear's `issue` query for ENG-42 and its comments (paged by cursor).
pub(super) fn linear(g: &Get<'_>, violation: &mut dyn FnMut(String)) -> Response {
    let req = g.req;
    let h = |n: &str| g.header(n);
    if h("authorization") != LINEAR_KEY {
        violation("Linear wants Authorization: <api key> (no Bearer)".into());
    }
    let Ok(b) = &req.body else {
        violation("the body is not JSON".into());
        return json_reply(StatusCode::BAD_REQUEST, &json!({}), &[]);
    };
    let q = b["query"].as_str().unwrap_or_default();
    if !q.contains("issue(id: $id)") || !q.contains("pageInfo") {
        violation(format!("unexpected query {q}"));
    }
    let id = b["variables"]["id"].as_str().unwrap_or_default();
    if id != "ENG-42" {
        return json_reply(
            StatusCode::OK,
            &json!({"data": {"issue": null}, "errors": [{"message": "Entity not found"}]}),
            &[],
        );
    }
    let after = b["variables"]["after"].as_str();
    let (nodes, more) = match after {
        None => (
            json!([{"body": "first page", "user": {"name": "Ana"}}]),
            true,
        ),
        Some("c1") => (
            json!([{"body": "second page", "user": {"name": "Bo"}}]),
            false,
        ),
        Some(other) => {
            violation(format!("unknown cursor {other}"));
            (json!([]), false)
        }
    };
    json_reply(
        StatusCode::OK,
        &json!({"data": {"issue": {"identifier": "ENG-42", "title": "add() subtracts",
            "description": "make add return the sum", "url": "https://linear.app/acme/issue/ENG-42",
            "creator": {"name": "Ana"}, "labels": {"nodes": [{"name": "bug"}]},
            "comments": {"nodes": nodes, "pageInfo": {"hasNextPage": more, "endCursor": "c1"}}}}}),
        &[],
    )
}
