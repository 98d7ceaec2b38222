//! A loopback fake of the issue trackers loki reads (GitHub REST, GitLab REST v4, Jira REST v3,
//! Linear GraphQL), one server for all four, that checks every request: the auth header's form
//! for each tracker, the paths, the pagination parameters, the GraphQL query shape. Any other
//! request, or a request that breaks a rule, is a violation that [`FakeTrackers::assert_clean`]
//! turns into a test failure.
//!
//! One issue per tracker, with two pages of comments (GitHub: `Link`; GitLab: `X-Next-Page`;
//! Jira: `startAt`/`total`; Linear: `pageInfo`). [`Behaviour`] makes the next issue request
//! answer a rate limit, a 404 or garbage, or serves a huge body.
//!
//! Pull and merge requests opened through it (or added with [`FakeTrackers::add_request`]) take
//! comments; the review endpoints of `loki ci post` (comments listed and edited, check runs,
//! commit statuses) are in `review`.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::fake_llm::Recorded;
use crate::fake_server::{Incoming, Ledger, Loopback};

mod issues;
mod review;

/// The credentials the fake expects.
pub const GITHUB_TOKEN: &str = "ghp_fake_token";
pub const GITLAB_TOKEN: &str = "glpat-fake";
pub const JIRA_EMAIL: &str = "ana@example.org";
pub const JIRA_TOKEN: &str = "jira-fake-token";
pub const LINEAR_KEY: &str = "lin_api_fake";

/// What the next issue request gets instead of the issue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behaviour {
    Normal,
    /// One 429 with `Retry-After: 1`, then normal.
    RateLimitOnce,
    NotFound,
    Garbage,
    /// The issue's body is 1 MiB.
    HugeBody,
}

#[derive(Debug)]
struct Shared {
    behaviour: Behaviour,
    ledger: Ledger,
    origin: String,
    /// Pull requests (GitHub) and merge requests (GitLab) opened, as last written.
    requests: Vec<Value>,
    /// Comments posted on them: `{repo, number, body, id, author, html_url, updates, system?}`.
    comments: Vec<Value>,
    /// GitHub check runs: their last body, with `id`, `repo`, `updates`.
    check_runs: Vec<Value>,
    /// GitLab commit statuses, in the order set: the body with `repo` and `sha`.
    statuses: Vec<Value>,
    /// The last id given to a comment or check run.
    next_id: u64,
}

/// The fake; serves until dropped.
#[derive(Debug)]
pub struct FakeTrackers {
    shared: Arc<Mutex<Shared>>,
    server: Loopback,
}

impl FakeTrackers {
    /// Binds `127.0.0.1:0`; start it inside a tokio runtime.
    pub async fn start() -> FakeTrackers {
        let shared = Arc::new(Mutex::new(Shared {
            behaviour: Behaviour::Normal,
            ledger: Ledger::default(),
            origin: String::new(),
            requests: Vec::new(),
            comments: Vec::new(),
            check_runs: Vec::new(),
            statuses: Vec::new(),
            next_id: 1000,
        }));
        let app = Router::new().fallback(handle).with_state(shared.clone());
        let server = Loopback::serve(app).await;
        shared.lock().unwrap().origin = server.origin();
        FakeTrackers { shared, server }
    }

    /// `http://127.0.0.1:<port>`: the GitHub API, the GitLab and Jira sites and the Linear API.
    #[must_use]
    pub fn origin(&self) -> String {
        self.server.origin()
    }

    pub fn set(&self, b: Behaviour) {
        self.shared.lock().unwrap().behaviour = b;
    }

    #[must_use]
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.lock().unwrap().ledger.requests.clone()
    }

    /// The pull and merge requests opened so far, as last written.
    #[must_use]
    pub fn pull_requests(&self) -> Vec<Value> {
        self.shared.lock().unwrap().requests.clone()
    }

    /// The comments posted on pull and merge requests: `{repo, number, body, id, author,
    /// html_url, updates}` (`updates`: how many times it was edited).
    #[must_use]
    pub fn comments(&self) -> Vec<Value> {
        self.shared.lock().unwrap().comments.clone()
    }

    /// Adds an open request `number` to `repo` (`owner/repo`, or a GitLab `group/project`), as
    /// if someone had opened it: comments and notes can be posted on it.
    pub fn add_request(&self, repo: &str, number: u64) {
        let mut s = self.shared.lock().unwrap();
        let url = format!("{}/{repo}/pull/{number}", s.origin);
        s.requests
            .push(json!({"repo": repo, "number": number, "iid": number,
            "html_url": url, "web_url": url, "branch": "", "updates": 0}));
    }

    /// Adds a comment by `author` on request `number` of `repo` (`system`: a GitLab system
    /// note), as someone else would have written it; returns its id.
    pub fn add_comment(
        &self,
        repo: &str,
        number: u64,
        author: &str,
        body: &str,
        system: bool,
    ) -> u64 {
        let mut s = self.shared.lock().unwrap();
        new_comment(&mut s, repo, number, author, body, system)
    }

    /// GitHub check runs, as last written: the body with `id`, `repo`, `updates`.
    #[must_use]
    pub fn check_runs(&self) -> Vec<Value> {
        self.shared.lock().unwrap().check_runs.clone()
    }

    /// GitLab commit statuses in the order set: the body with `repo` and `sha`.
    #[must_use]
    pub fn statuses(&self) -> Vec<Value> {
        self.shared.lock().unwrap().statuses.clone()
    }

    /// Fails the test with every violation recorded.
    pub fn assert_clean(&self) {
        let v = self.shared.lock().unwrap().ledger.violations.clone();
        assert!(
            v.is_empty(),
            "the fake trackers saw violations:\n{}",
            v.join("\n")
        );
    }
}

fn json_reply(status: StatusCode, body: &Value, headers: &[(&'static str, String)]) -> Response {
    let mut r = (status, body.to_string()).into_response();
    r.headers_mut()
        .insert("content-type", "application/json".parse().unwrap());
    for (k, v) in headers {
        r.headers_mut().insert(*k, v.parse().unwrap());
    }
    r
}

fn body_text(b: Behaviour, normal: &str) -> String {
    if b == Behaviour::HugeBody {
        "x".repeat(1024 * 1024)
    } else {
        normal.to_string()
    }
}

async fn handle(
    State(shared): State<Arc<Mutex<Shared>>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let req = Incoming::new(&headers, &body);
    let path = uri.path().to_string();
    let query = uri.query().unwrap_or("").to_string();
    let mut s = shared.lock().unwrap();
    let full = if query.is_empty() {
        path.clone()
    } else {
        format!("{path}?{query}")
    };
    s.ledger.record(&req, &full);
    let origin = s.origin.clone();
    let is_issue = matches!(
        path.as_str(),
        "/repos/octo/widgets/issues/12"
            | "/api/v4/projects/grp%2Fsub%2Fproj/issues/3"
            | "/rest/api/3/issue/PROJ-7"
    ) || path == "/graphql";
    let behaviour = s.behaviour;
    if is_issue
        && !query.contains("after")
        && let Some(r) = misbehave(&mut s)
    {
        return r;
    }
    if let Some(r) = review::route(&mut s, &req, method.as_str(), &path, &query, &full) {
        return r;
    }
    let segs: Vec<&str> = path.split('/').collect();
    if method == Method::POST
        && ((segs.len() == 7 && segs[1] == "repos" && segs[4] == "issues" && segs[6] == "comments")
            || (path.contains("/merge_requests/") && path.ends_with("/notes")))
    {
        return comment(&mut s, &req, &path, &full);
    }
    if (segs.len() >= 5 && segs[1] == "repos" && segs[4] == "pulls")
        || path.contains("/merge_requests")
    {
        return pulls(&mut s, &req, method.as_str(), &path, &query, &full);
    }
    let mut violation = |v: String| s.ledger.violations.push(format!("{method} {full}: {v}"));
    let get = issues::Get {
        req: &req,
        path: &path,
        query: &query,
        origin: &origin,
        behaviour,
    };
    match (method.as_str(), path.as_str()) {
        ("GET", p) if p.starts_with("/repos/") => issues::github(&get, &mut violation),
        ("GET", p) if p.starts_with("/api/v4/") => issues::gitlab(&get, &mut violation),
        ("GET", p) if p.starts_with("/rest/api/3/") => issues::jira(&get, &mut violation),
        ("POST", "/graphql") => issues::linear(&get, &mut violation),
        _ => {
            violation("no such endpoint".into());
            json_reply(StatusCode::NOT_FOUND, &json!({}), &[])
        }
    }
}

/// The answer the main issue's endpoints give under a misbehaving [`Behaviour`] (a rate limit
/// is answered once, then the server behaves); `None`: answer normally.
fn misbehave(s: &mut Shared) -> Option<Response> {
    match s.behaviour {
        Behaviour::RateLimitOnce => {
            s.behaviour = Behaviour::Normal;
            Some(json_reply(
                StatusCode::TOO_MANY_REQUESTS,
                &json!({"message": "slow down"}),
                &[("retry-after", "1".into())],
            ))
        }
        Behaviour::NotFound => Some(json_reply(
            StatusCode::NOT_FOUND,
            &json!({"message": "Not Found"}),
            &[],
        )),
        Behaviour::Garbage => Some((StatusCode::OK, "<html>oops</html>").into_response()),
        Behaviour::Normal | Behaviour::HugeBody => None,
    }
}

/// The title and body of the backlog's issues 13 and 14 (12 is the main issue). Issue 14 asks
/// for nothing to change (`DO-NOT-FIX`), so a script can leave it unfixed: a failed run.
fn backlog_issue(n: &str) -> (&'static str, &'static str) {
    if n == "13" {
        ("add() subtracts, again", "add(2, 3) must return 5.")
    } else {
        (
            "leave add() alone",
            "DO-NOT-FIX: a run for this issue fails.",
        )
    }
}

/// The query's `key=value` pairs; a key not in `allowed` is a violation.
fn query_pairs<'a>(
    query: &'a str,
    allowed: &[&str],
    violation: &mut dyn FnMut(String),
) -> std::collections::BTreeMap<&'a str, &'a str> {
    let mut m = std::collections::BTreeMap::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        if !allowed.contains(&k) {
            violation(format!("unexpected query parameter {k}"));
        }
        m.insert(k, v);
    }
    m
}

/// `GET /repos/octo/widgets/issues`: open issues 12, 13 and a pull request (which a client must
/// leave out) on page 1, issue 14 on page 2; with `labels=loki` or no label, else none.
fn github_listing(origin: &str, query: &str, violation: &mut dyn FnMut(String)) -> Response {
    let q = query_pairs(query, &["state", "per_page", "labels", "page"], violation);
    if q.get("state") != Some(&"open") {
        violation("issues are listed with state=open".into());
    }
    if q.get("per_page") != Some(&"100") {
        violation("issues are listed 100 per page".into());
    }
    if q.get("labels").is_some_and(|l| *l != "loki") {
        return json_reply(StatusCode::OK, &json!([]), &[]);
    }
    let item =
        |n: u64, title: &str| json!({"number": n, "title": title, "labels": [{"name": "loki"}]});
    match q.get("page") {
        None => {
            let next = format!("<{origin}/repos/octo/widgets/issues?{query}&page=2>; rel=\"next\"");
            json_reply(
                StatusCode::OK,
                &json!([item(12, "add() subtracts"), item(13, backlog_issue("13").0),
                        {"number": 15, "title": "a pull request", "pull_request": {"url": "x"}}]),
                &[("link", next)],
            )
        }
        Some(&"2") => json_reply(
            StatusCode::OK,
            &json!([item(14, backlog_issue("14").0)]),
            &[],
        ),
        Some(other) => {
            violation(format!("no page {other}"));
            json_reply(StatusCode::OK, &json!([]), &[])
        }
    }
}

/// `GET /api/v4/projects/grp%2Fsub%2Fproj/issues`: issue 3 on page 1, none on page 2 (paged by
/// `X-Next-Page`); with `labels=loki` or no label, else none.
fn gitlab_listing(query: &str, violation: &mut dyn FnMut(String)) -> Response {
    let q = query_pairs(query, &["state", "per_page", "labels", "page"], violation);
    if q.get("state") != Some(&"opened") {
        violation("GitLab lists open issues with state=opened".into());
    }
    if q.get("per_page") != Some(&"100") {
        violation("issues are listed 100 per page".into());
    }
    if q.get("labels").is_some_and(|l| *l != "loki") {
        return json_reply(StatusCode::OK, &json!([]), &[]);
    }
    match q.get("page") {
        Some(&"1") => json_reply(
            StatusCode::OK,
            &json!([{"iid": 3, "title": "add() subtracts", "labels": ["loki"]}]),
            &[("x-next-page", "2".into())],
        ),
        Some(&"2") => json_reply(StatusCode::OK, &json!([]), &[]),
        _ => {
            violation("GitLab issues are paged with page=N".into());
            json_reply(StatusCode::OK, &json!([]), &[])
        }
    }
}

/// A comment on an open pull or merge request: the request must exist in that repository and
/// the body be `{"body": "<text>"}`.
fn comment(s: &mut Shared, req: &Incoming, path: &str, full: &str) -> Response {
    let github = path.starts_with("/repos/");
    let h = |n: &str| req.headers.get(n).cloned().unwrap_or_default();
    let mut bad = Vec::new();
    if github && h("authorization") != format!("Bearer {GITHUB_TOKEN}") {
        bad.push("GitHub wants Authorization: Bearer <token>".to_string());
    }
    if !github && h("private-token") != GITLAB_TOKEN {
        bad.push("GitLab wants PRIVATE-TOKEN".to_string());
    }
    let body = req.body.clone().unwrap_or(Value::Null);
    let text = body["body"].as_str();
    if text.is_none() || body.as_object().is_none_or(|o| o.len() != 1) {
        bad.push("a comment is {\"body\": <text>} and nothing else".into());
    }
    let repo = repo_of(path);
    let n: u64 = path
        .rsplit('/')
        .nth(1)
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    let exists = s
        .requests
        .iter()
        .any(|r| r["number"] == json!(n) && r["repo"] == json!(repo));
    if github && text.is_some_and(|t| t.chars().count() > 65_536) {
        bad.push("GitHub refuses comments over 65536 characters".into());
    }
    let reply = if exists {
        let id = new_comment(s, &repo, n, "loki", text.unwrap_or_default(), false);
        let url = s
            .comments
            .last()
            .map(|c| c["html_url"].clone())
            .unwrap_or_default();
        json_reply(
            StatusCode::CREATED,
            &json!({"id": id, "html_url": url}),
            &[],
        )
    } else {
        bad.push(format!("no request {n} in {repo}"));
        json_reply(StatusCode::NOT_FOUND, &json!({"message": "Not Found"}), &[])
    };
    for v in bad {
        s.ledger.violations.push(format!("POST {full}: {v}"));
    }
    reply
}

/// Stores a new comment and returns its id.
fn new_comment(
    s: &mut Shared,
    repo: &str,
    number: u64,
    author: &str,
    body: &str,
    system: bool,
) -> u64 {
    s.next_id += 1;
    let id = s.next_id;
    let html_url = format!("{}/{repo}/pull/{number}#issuecomment-{id}", s.origin);
    s.comments.push(
        json!({"repo": repo, "number": number, "body": body, "id": id,
        "author": author, "html_url": html_url, "updates": 0, "system": system}),
    );
    id
}

/// `owner/repo` of a GitHub path (`/repos/owner/repo/…`), the encoded project of a GitLab one.
fn repo_of(path: &str) -> String {
    let segs: Vec<&str> = path.split('/').collect();
    if path.starts_with("/repos/") && segs.len() >= 4 {
        format!("{}/{}", segs[2], segs[3])
    } else {
        segs.get(4).copied().unwrap_or_default().replace("%2F", "/")
    }
}

/// GitHub pulls and GitLab merge requests: list open ones for a branch, create, update.
fn pulls(
    s: &mut Shared,
    req: &Incoming,
    method: &str,
    path: &str,
    query: &str,
    full: &str,
) -> Response {
    let github = path.starts_with("/repos/");
    let h = |n: &str| req.headers.get(n).cloned().unwrap_or_default();
    let mut bad = Vec::new();
    if github && h("authorization") != format!("Bearer {GITHUB_TOKEN}") {
        bad.push("GitHub wants Authorization: Bearer <token>".to_string());
    }
    if !github && h("private-token") != GITLAB_TOKEN {
        bad.push("GitLab wants PRIVATE-TOKEN".to_string());
    }
    let origin = s.origin.clone();
    let repo = repo_of(path);
    let reply = match method {
        "GET" => {
            let owner_prefix = format!("head={}:", repo.split('/').next().unwrap_or_default());
            let branch = if github {
                query
                    .split('&')
                    .find_map(|p| p.strip_prefix(owner_prefix.as_str()))
            } else {
                query
                    .split('&')
                    .find_map(|p| p.strip_prefix("source_branch="))
            };
            let open: Vec<Value> = s
                .requests
                .iter()
                .filter(|r| {
                    Some(r["branch"].as_str().unwrap_or_default()) == branch
                        && r["repo"] == json!(repo)
                })
                .cloned()
                .collect();
            json_reply(StatusCode::OK, &Value::Array(open), &[])
        }
        "POST" => create_request(s, req, (github, &repo, &origin), &mut bad),
        "PATCH" | "PUT" => update_request(s, req, path, &repo),
        _ => {
            bad.push("no such endpoint".into());
            json_reply(StatusCode::NOT_FOUND, &json!({}), &[])
        }
    };
    for v in bad {
        s.ledger.violations.push(format!("{method} {full}: {v}"));
    }
    reply
}

/// `POST` a pull or merge request (`github`: GitHub's fields, else GitLab's) in `repo`: it is
/// numbered and kept; what it lacks goes to `bad`.
fn create_request(
    s: &mut Shared,
    req: &Incoming,
    (github, repo, origin): (bool, &str, &str),
    bad: &mut Vec<String>,
) -> Response {
    let b = req.body.clone().unwrap_or(Value::Null);
    let (branch, text) = if github {
        (b["head"].clone(), b["body"].clone())
    } else {
        (b["source_branch"].clone(), b["description"].clone())
    };
    for f in ["title"] {
        if !b[f].is_string() {
            bad.push(format!("no {f}"));
        }
    }
    if !text.is_string() || !branch.is_string() {
        bad.push("a request needs its branch and body".into());
    }
    if github && !b["draft"].is_boolean() {
        bad.push("draft must be a boolean".into());
    }
    let n = s.requests.len() as u64 + 1;
    let url = if github {
        format!("{origin}/{repo}/pull/{n}")
    } else {
        format!("{origin}/{repo}/-/merge_requests/{n}")
    };
    let mut pr = b.clone();
    pr["number"] = json!(n);
    pr["iid"] = json!(n);
    pr["html_url"] = json!(url);
    pr["web_url"] = json!(url);
    pr["branch"] = branch;
    pr["repo"] = json!(repo);
    pr["updates"] = json!(0);
    s.requests.push(pr.clone());
    json_reply(StatusCode::CREATED, &pr, &[])
}

/// `PATCH`/`PUT` request number (the path's last segment) of `repo`: its fields updated and
/// counted.
fn update_request(s: &mut Shared, req: &Incoming, path: &str, repo: &str) -> Response {
    let n: u64 = path
        .rsplit('/')
        .next()
        .and_then(|x| x.parse().ok())
        .unwrap_or(0);
    let b = req.body.clone().unwrap_or(Value::Null);
    match s
        .requests
        .iter_mut()
        .find(|r| r["number"] == json!(n) && r["repo"] == json!(repo))
    {
        Some(pr) => {
            for (k, v) in b.as_object().into_iter().flatten() {
                pr[k] = v.clone();
            }
            pr["updates"] = json!(pr["updates"].as_u64().unwrap_or(0) + 1);
            json_reply(StatusCode::OK, pr, &[])
        }
        None => json_reply(StatusCode::NOT_FOUND, &json!({}), &[]),
    }
}
