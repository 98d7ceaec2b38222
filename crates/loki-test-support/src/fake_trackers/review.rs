//! The fake forges' review endpoints (`loki ci post`): GitHub issue comments listed and edited
//! and check runs found, created and updated; GitLab merge request notes listed and edited and
//! commit statuses set. Each request is checked like the rest of the fake: the auth header of
//! its forge (GitHub's media type and API version too), the query parameters, the body's exact
//! keys and the values GitHub and GitLab accept (conclusions, states, lengths, a full commit id),
//! and that the request, comment or check run it names exists in that repository.

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Value, json};

use super::{GITHUB_TOKEN, GITLAB_TOKEN, Shared, json_reply, query_pairs, repo_of};
use crate::fake_server::Incoming;

/// GitHub's limit on a comment's body and a check run's summary.
const GITHUB_BODY_MAX: usize = 65_536;
/// GitLab's limit on a commit status's description.
const GITLAB_DESCRIPTION_MAX: usize = 255;

const CONCLUSIONS: [&str; 8] = [
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "success",
    "skipped",
    "stale",
    "timed_out",
];
const STATES: [&str; 6] = [
    "pending", "running", "success", "failed", "canceled", "skipped",
];

fn is_sha(s: &str) -> bool {
    s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The review endpoint `method path` names, if it is one; `None` leaves it to the rest of the
/// fake.
pub(super) fn route(
    s: &mut Shared,
    req: &Incoming,
    method: &str,
    path: &str,
    query: &str,
    full: &str,
) -> Option<Response> {
    let segs: Vec<&str> = path.split('/').skip(1).collect();
    let github = segs.first() == Some(&"repos");
    let mut bad = Vec::new();
    let reply = match (method, segs.as_slice()) {
        ("GET", ["repos", _, _, "issues", n, "comments"]) if is_request(s, path, n) => {
            github_comments(s, path, n, query, &mut bad)
        }
        ("PATCH", ["repos", _, _, "issues", "comments", id])
        | ("PUT", ["api", "v4", "projects", _, "merge_requests", _, "notes", id]) => {
            edit_comment(s, req, path, id, &mut bad)
        }
        ("GET", ["repos", _, _, "commits", sha, "check-runs"]) => {
            find_check_runs(s, path, sha, query, &mut bad)
        }
        ("POST", ["repos", _, _, "check-runs"]) => check_run(s, req, path, None, &mut bad),
        ("PATCH", ["repos", _, _, "check-runs", id]) => check_run(s, req, path, Some(id), &mut bad),
        ("GET", ["api", "v4", "projects", _, "merge_requests", n, "notes"]) => {
            gitlab_notes(s, path, n, query, &mut bad)
        }
        ("POST", ["api", "v4", "projects", _, "statuses", sha]) => {
            status(s, req, path, sha, &mut bad)
        }
        _ => return None,
    };
    auth(req, github, &mut bad);
    for v in bad {
        s.ledger.violations.push(format!("{method} {full}: {v}"));
    }
    Some(reply)
}

/// The forge's auth and, for GitHub, its media type and API version.
pub(super) fn auth(req: &Incoming, github: bool, bad: &mut Vec<String>) {
    let h = |n: &str| req.headers.get(n).cloned().unwrap_or_default();
    if github {
        if h("authorization") != format!("Bearer {GITHUB_TOKEN}") {
            bad.push("GitHub wants Authorization: Bearer <token>".into());
        }
        if h("accept") != "application/vnd.github+json" {
            bad.push("GitHub wants Accept: application/vnd.github+json".into());
        }
        if h("x-github-api-version") != "2022-11-28" {
            bad.push("GitHub wants X-GitHub-Api-Version: 2022-11-28".into());
        }
    } else if h("private-token") != GITLAB_TOKEN {
        bad.push("GitLab wants PRIVATE-TOKEN".into());
    }
}

fn is_request(s: &Shared, path: &str, n: &str) -> bool {
    let repo = repo_of(path);
    n.parse::<u64>().is_ok_and(|n| {
        s.requests
            .iter()
            .any(|r| r["number"] == json!(n) && r["repo"] == json!(repo))
    })
}

fn not_found() -> Response {
    json_reply(StatusCode::NOT_FOUND, &json!({"message": "Not Found"}), &[])
}

/// The comments (notes) of request `n` of the path's repository, oldest first.
fn comments_of(s: &Shared, path: &str, n: u64) -> Vec<Value> {
    let repo = repo_of(path);
    s.comments
        .iter()
        .filter(|c| c["repo"] == json!(repo) && c["number"] == json!(n))
        .cloned()
        .collect()
}

fn github_comments(
    s: &Shared,
    path: &str,
    n: &str,
    query: &str,
    bad: &mut Vec<String>,
) -> Response {
    let q = query_pairs(query, &["per_page", "page"], &mut |v| bad.push(v));
    if q.get("per_page") != Some(&"100") {
        bad.push("comments are read 100 per page".into());
    }
    let n: u64 = n.parse().unwrap_or(0);
    let list: Vec<Value> = comments_of(s, path, n)
        .iter()
        .map(|c| {
            json!({"id": c["id"], "body": c["body"], "user": {"login": c["author"]},
                   "html_url": c["html_url"]})
        })
        .collect();
    json_reply(StatusCode::OK, &Value::Array(list), &[])
}

fn gitlab_notes(s: &Shared, path: &str, n: &str, query: &str, bad: &mut Vec<String>) -> Response {
    let Some(n) = n.parse::<u64>().ok().filter(|_| is_request(s, path, n)) else {
        bad.push("no such merge request".into());
        return not_found();
    };
    let q = query_pairs(query, &["sort", "per_page", "page"], &mut |v| bad.push(v));
    if q.get("sort") != Some(&"asc") || q.get("per_page") != Some(&"100") {
        bad.push("notes are read oldest first, 100 per page".into());
    }
    let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(0);
    if page == 0 {
        bad.push("GitLab notes are paged with page=N".into());
    }
    let all: Vec<Value> = comments_of(s, path, n)
        .iter()
        .map(|c| {
            json!({"id": c["id"], "body": c["body"], "system": c["system"].as_bool().unwrap_or(false),
                   "author": {"username": c["author"]}})
        })
        .collect();
    let start = page.saturating_sub(1) * 100;
    let items: Vec<Value> = all.iter().skip(start).take(100).cloned().collect();
    let next = if all.len() > start + 100 {
        vec![("x-next-page", (page + 1).to_string())]
    } else {
        Vec::new()
    };
    json_reply(StatusCode::OK, &Value::Array(items), &next)
}

/// `PATCH …/issues/comments/{id}` (GitHub), `PUT …/notes/{id}` (GitLab): `{"body"}` only, a
/// comment of that repository that is not a system note.
fn edit_comment(
    s: &mut Shared,
    req: &Incoming,
    path: &str,
    id: &str,
    bad: &mut Vec<String>,
) -> Response {
    let body = req.body.clone().unwrap_or(Value::Null);
    let text = body["body"].as_str().map(str::to_string);
    if text.is_none() || body.as_object().is_none_or(|o| o.len() != 1) {
        bad.push("a comment edit is {\"body\": <text>} and nothing else".into());
    }
    if path.starts_with("/repos/")
        && text
            .as_ref()
            .is_some_and(|t| t.chars().count() > GITHUB_BODY_MAX)
    {
        bad.push(format!(
            "GitHub refuses comments over {GITHUB_BODY_MAX} characters"
        ));
    }
    let repo = repo_of(path);
    let id: u64 = id.parse().unwrap_or(0);
    let Some(c) = s
        .comments
        .iter_mut()
        .find(|c| c["id"] == json!(id) && c["repo"] == json!(repo))
    else {
        bad.push(format!("no comment {id} in {repo}"));
        return not_found();
    };
    if c["system"].as_bool() == Some(true) {
        bad.push("a system note cannot be edited".into());
    }
    c["body"] = json!(text.unwrap_or_default());
    c["updates"] = json!(c["updates"].as_u64().unwrap_or(0) + 1);
    json_reply(
        StatusCode::OK,
        &json!({"id": id, "body": c["body"], "html_url": c["html_url"]}),
        &[],
    )
}

fn find_check_runs(
    s: &Shared,
    path: &str,
    sha: &str,
    query: &str,
    bad: &mut Vec<String>,
) -> Response {
    if !is_sha(sha) {
        bad.push(format!("{sha:?} is not a full commit id"));
    }
    let q = query_pairs(
        query,
        &["check_name", "filter", "status", "per_page", "page"],
        &mut |v| {
            bad.push(v);
        },
    );
    if q.get("filter")
        .is_some_and(|f| !["latest", "all"].contains(f))
    {
        bad.push("filter is latest or all".into());
    }
    let repo = repo_of(path);
    let runs: Vec<Value> = s
        .check_runs
        .iter()
        .filter(|r| {
            r["repo"] == json!(repo)
                && r["head_sha"] == json!(sha)
                && q.get("check_name")
                    .is_none_or(|n| r["name"] == json!(n.replace("%20", " ")))
        })
        .cloned()
        .collect();
    json_reply(
        StatusCode::OK,
        &json!({"total_count": runs.len(), "check_runs": runs}),
        &[],
    )
}

/// Checks a check run's body against what GitHub accepts; `create` requires name and head_sha.
fn check_run_body(b: &Value, create: bool, bad: &mut Vec<String>) {
    const KEYS: [&str; 9] = [
        "name",
        "head_sha",
        "status",
        "conclusion",
        "details_url",
        "output",
        "started_at",
        "completed_at",
        "external_id",
    ];
    let Some(o) = b.as_object() else {
        bad.push("a check run is a JSON object".into());
        return;
    };
    for k in o.keys().filter(|k| !KEYS.contains(&k.as_str())) {
        bad.push(format!("a check run has no {k}"));
    }
    if create && b["name"].as_str().is_none_or(str::is_empty) {
        bad.push("a check run needs a name".into());
    }
    if create && !b["head_sha"].as_str().is_some_and(is_sha) {
        bad.push("a check run needs head_sha, a full commit id".into());
    }
    let status = b["status"].as_str();
    if status.is_some_and(|st| !["queued", "in_progress", "completed"].contains(&st)) {
        bad.push(format!(
            "status {status:?} is not queued, in_progress or completed"
        ));
    }
    match b["conclusion"].as_str() {
        Some(c) if !CONCLUSIONS.contains(&c) => {
            bad.push(format!("conclusion {c:?} is not GitHub's"));
        }
        None if status == Some("completed") => {
            bad.push("a completed check run needs its conclusion".into());
        }
        _ => {}
    }
    if let Some(out) = b.get("output") {
        let ok = out["title"].is_string() && out["summary"].is_string();
        if !ok {
            bad.push("output needs a title and a summary".into());
        }
        if out["summary"]
            .as_str()
            .is_some_and(|t| t.chars().count() > GITHUB_BODY_MAX)
        {
            bad.push(format!("a summary is at most {GITHUB_BODY_MAX} characters"));
        }
    }
}

fn check_run(
    s: &mut Shared,
    req: &Incoming,
    path: &str,
    id: Option<&str>,
    bad: &mut Vec<String>,
) -> Response {
    let b = req.body.clone().unwrap_or(Value::Null);
    check_run_body(&b, id.is_none(), bad);
    let repo = repo_of(path);
    let origin = s.origin.clone();
    let run = match id {
        None => {
            s.next_id += 1;
            let mut run = b.clone();
            run["id"] = json!(s.next_id);
            run["repo"] = json!(repo);
            run["updates"] = json!(0);
            run["html_url"] = json!(format!("{origin}/{repo}/runs/{}", s.next_id));
            s.check_runs.push(run.clone());
            run
        }
        Some(id) => {
            let id: u64 = id.parse().unwrap_or(0);
            let Some(run) = s
                .check_runs
                .iter_mut()
                .find(|r| r["id"] == json!(id) && r["repo"] == json!(repo))
            else {
                bad.push(format!("no check run {id} in {repo}"));
                return not_found();
            };
            if b.get("head_sha").is_some_and(|h| *h != run["head_sha"]) {
                bad.push("a check run's head_sha cannot change".into());
            }
            for (k, v) in b.as_object().into_iter().flatten() {
                run[k] = v.clone();
            }
            run["updates"] = json!(run["updates"].as_u64().unwrap_or(0) + 1);
            run.clone()
        }
    };
    let code = if id.is_none() {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    json_reply(code, &run, &[])
}

fn status(
    s: &mut Shared,
    req: &Incoming,
    path: &str,
    sha: &str,
    bad: &mut Vec<String>,
) -> Response {
    const KEYS: [&str; 8] = [
        "state",
        "ref",
        "name",
        "context",
        "target_url",
        "description",
        "coverage",
        "pipeline_id",
    ];
    if !is_sha(sha) {
        bad.push(format!("{sha:?} is not a full commit id"));
    }
    let b = req.body.clone().unwrap_or(Value::Null);
    for k in b.as_object().into_iter().flatten().map(|(k, _)| k) {
        if !KEYS.contains(&k.as_str()) {
            bad.push(format!("a commit status has no {k}"));
        }
    }
    if !b["state"].as_str().is_some_and(|st| STATES.contains(&st)) {
        bad.push(format!("state {} is not GitLab's", b["state"]));
    }
    if b["description"]
        .as_str()
        .is_some_and(|d| d.chars().count() > GITLAB_DESCRIPTION_MAX)
    {
        bad.push(format!(
            "a description is at most {GITLAB_DESCRIPTION_MAX} characters"
        ));
    }
    let mut st = b.clone();
    st["repo"] = json!(repo_of(path));
    st["sha"] = json!(sha);
    s.statuses.push(st.clone());
    json_reply(StatusCode::CREATED, &st, &[])
}

#[cfg(test)]
mod tests {
    use axum::body::Bytes;
    use axum::http::HeaderMap;

    use super::*;
    use crate::fake_server::Ledger;

    fn shared() -> Shared {
        Shared {
            behaviour: super::super::Behaviour::Normal,
            ledger: Ledger::default(),
            origin: "http://fake".into(),
            requests: vec![json!({"repo": "o/r", "number": 7})],
            comments: Vec::new(),
            check_runs: Vec::new(),
            statuses: Vec::new(),
            next_id: 0,
        }
    }

    fn incoming(github: bool, body: &Value) -> Incoming {
        let mut h = HeaderMap::new();
        if github {
            h.insert(
                "authorization",
                format!("Bearer {GITHUB_TOKEN}").parse().unwrap(),
            );
            h.insert("accept", "application/vnd.github+json".parse().unwrap());
            h.insert("x-github-api-version", "2022-11-28".parse().unwrap());
        } else {
            h.insert("private-token", GITLAB_TOKEN.parse().unwrap());
        }
        Incoming::new(&h, &Bytes::from(body.to_string()))
    }

    /// The violations `method path` with `body` records.
    fn violations(
        s: &mut Shared,
        method: &str,
        path: &str,
        query: &str,
        body: &Value,
    ) -> Vec<String> {
        let req = incoming(path.starts_with("/repos/"), body);
        s.ledger.violations.clear();
        assert!(
            route(s, &req, method, path, query, path).is_some(),
            "{path} is a review endpoint"
        );
        s.ledger.violations.clone()
    }

    #[test]
    fn the_review_endpoints_refuse_what_github_and_gitlab_refuse() {
        let mut s = shared();
        let sha = "a".repeat(40);
        let good = json!({"name": "loki", "head_sha": sha, "status": "completed",
            "conclusion": "failure", "output": {"title": "t", "summary": "s"}});
        assert_eq!(
            violations(&mut s, "POST", "/repos/o/r/check-runs", "", &good),
            Vec::<String>::new()
        );
        for (bad, why) in [
            (
                json!({"name": "loki", "head_sha": sha, "status": "completed"}),
                "needs its conclusion",
            ),
            (
                json!({"name": "loki", "head_sha": sha, "conclusion": "failed"}),
                "is not GitHub's",
            ),
            (
                json!({"name": "loki", "head_sha": "HEAD", "conclusion": "success"}),
                "full commit id",
            ),
            (
                json!({"name": "loki", "head_sha": sha, "conclusion": "success", "summary": "s"}),
                "has no summary",
            ),
            (
                json!({"name": "loki", "head_sha": sha, "conclusion": "success",
                "output": {"title": "t", "summary": "x".repeat(GITHUB_BODY_MAX + 1)}}),
                "at most",
            ),
        ] {
            let v = violations(&mut s, "POST", "/repos/o/r/check-runs", "", &bad);
            assert!(v.iter().any(|x| x.contains(why)), "{why}: {v:?}");
        }
        let v = violations(&mut s, "PATCH", "/repos/o/r/check-runs/99", "", &good);
        assert!(v.iter().any(|x| x.contains("no check run 99")), "{v:?}");
        let v = violations(
            &mut s,
            "GET",
            "/repos/o/r/issues/7/comments",
            "per_page=30",
            &Value::Null,
        );
        assert!(v.iter().any(|x| x.contains("100 per page")), "{v:?}");
        let v = violations(
            &mut s,
            "PATCH",
            "/repos/o/r/issues/comments/5",
            "",
            &json!({"body": "x", "title": "y"}),
        );
        assert!(
            v.iter().any(|x| x.contains("nothing else"))
                && v.iter().any(|x| x.contains("no comment 5")),
            "{v:?}"
        );
        let status = "/api/v4/projects/o%2Fr/statuses/".to_string() + &sha;
        let v = violations(
            &mut s,
            "POST",
            &status,
            "",
            &json!({"state": "neutral", "name": "loki",
            "description": "d".repeat(GITLAB_DESCRIPTION_MAX + 1)}),
        );
        assert!(
            v.iter().any(|x| x.contains("not GitLab's")) && v.iter().any(|x| x.contains("at most")),
            "{v:?}"
        );
        let v = violations(
            &mut s,
            "GET",
            "/api/v4/projects/o%2Fr/merge_requests/7/notes",
            "per_page=100",
            &Value::Null,
        );
        assert!(
            v.iter().any(|x| x.contains("oldest first")) && v.iter().any(|x| x.contains("page=N")),
            "{v:?}"
        );
        // Another forge's auth is refused.
        let req = incoming(false, &good);
        s.ledger.violations.clear();
        route(&mut s, &req, "POST", "/repos/o/r/check-runs", "", "x");
        assert!(s.ledger.violations.iter().any(|x| x.contains("Bearer")));
        assert!(route(&mut s, &req, "GET", "/repos/o/r/issues/12", "", "x").is_none());
    }
}
