//! The trackers' APIs: one GET (or GraphQL POST) helper with rate-limit waits, and one function
//! per tracker that reads the issue and all its comments.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::refs::IssueRef;
use crate::{Comment, IntakeError, Issue, MAX_RESPONSE_BYTES};

/// Comments per page asked for (the trackers' maximum or close to it).
pub(crate) const PAGE: u32 = 100;
/// Pages of comments read at most (10,000 comments): a bound, not a limit anyone meets.
pub(crate) const MAX_PAGES: u32 = 100;
/// One request's time limit.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// A wait asked for without a time (a bare 429) is this long.
const DEFAULT_WAIT: Duration = Duration::from_secs(5);

/// Where the trackers are and the credentials for them (see the crate doc for the variables).
#[derive(Debug, Clone)]
pub struct Endpoints {
    pub github_api_url: String,
    pub github_token: Option<String>,
    pub gitlab_url: String,
    pub gitlab_token: Option<String>,
    pub jira_base_url: Option<String>,
    pub jira_email: Option<String>,
    pub jira_api_token: Option<String>,
    pub linear_api_url: String,
    pub linear_api_key: Option<String>,
}

impl Endpoints {
    /// The endpoints and credentials of this process's environment (the crate doc lists them).
    #[must_use]
    pub fn from_env() -> Endpoints {
        use loki_core::env;
        let d = Endpoints::default();
        Endpoints {
            // In a CI job the forge names its own API (GitHub Enterprise, a self-managed
            // GitLab); loki's own variables still win.
            github_api_url: env::GITHUB_API_URL
                .get()
                .or_else(|| env::ACTIONS_API_URL.get())
                .unwrap_or(d.github_api_url),
            github_token: env::GITHUB_TOKEN.get(),
            gitlab_url: env::GITLAB_URL
                .get()
                .or_else(|| {
                    env::CI_API_V4_URL.get().map(|u| {
                        u.trim_end_matches('/')
                            .trim_end_matches("/api/v4")
                            .to_string()
                    })
                })
                .unwrap_or(d.gitlab_url),
            gitlab_token: env::GITLAB_TOKEN.get(),
            jira_base_url: env::JIRA_BASE_URL.get(),
            jira_email: env::JIRA_EMAIL.get(),
            jira_api_token: env::JIRA_API_TOKEN.get(),
            linear_api_url: env::LINEAR_API_URL.get().unwrap_or(d.linear_api_url),
            linear_api_key: env::LINEAR_API_KEY.get(),
        }
    }
}

impl Default for Endpoints {
    fn default() -> Self {
        Endpoints {
            github_api_url: "https://api.github.com".into(),
            github_token: None,
            gitlab_url: "https://gitlab.com".into(),
            gitlab_token: None,
            jira_base_url: None,
            jira_email: None,
            jira_api_token: None,
            linear_api_url: "https://api.linear.app".into(),
            linear_api_key: None,
        }
    }
}

/// The single-threaded runtime a blocking call into the trackers runs on; `reference` names the
/// issue or request in the error.
pub(crate) fn runtime(reference: &str) -> Result<tokio::runtime::Runtime, IntakeError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| IntakeError::Unreachable {
            reference: reference.to_string(),
            url: String::new(),
            detail: format!("cannot start the async runtime: {err}"),
        })
}

/// Fetches `r` and its comments, waiting out rate limits until `deadline`.
pub fn fetch(r: &IssueRef, e: &Endpoints, deadline: Instant) -> Result<Issue, IntakeError> {
    let rt = crate::fetch::runtime(&r.canonical())?;
    let mut issue = rt.block_on(fetch_async(r, e, deadline))?;
    // Stored bounded: issue.json keeps at most MAX_TEXT_BYTES of the body and of each comment,
    // each cut with a note saying how much was dropped (the task made from it is capped again).
    issue.body = crate::cap(std::mem::take(&mut issue.body));
    for c in &mut issue.comments {
        c.body = crate::cap(std::mem::take(&mut c.body));
    }
    Ok(issue)
}

async fn fetch_async(r: &IssueRef, e: &Endpoints, deadline: Instant) -> Result<Issue, IntakeError> {
    let api = Api::new(r, deadline)?;
    match r {
        IssueRef::Github {
            owner,
            repo,
            number,
        } => github(&api, e, owner, repo, *number).await,
        IssueRef::Gitlab {
            project,
            iid,
            merge_request,
        } => gitlab(&api, e, project, *iid, *merge_request).await,
        IssueRef::Jira { key } => jira(&api, e, key).await,
        IssueRef::Linear { id } => linear(&api, e, id).await,
    }
}

pub(crate) struct Api {
    pub(crate) client: reqwest::Client,
    reference: String,
    deadline: Instant,
}

/// A response: its JSON and the headers pagination reads.
pub(crate) struct Page {
    pub(crate) json: Value,
    pub(crate) headers: reqwest::header::HeaderMap,
}

impl Api {
    fn new(r: &IssueRef, deadline: Instant) -> Result<Api, IntakeError> {
        Api::named(&r.canonical(), deadline)
    }

    /// An API client whose errors name `reference`.
    pub(crate) fn named(reference: &str, deadline: Instant) -> Result<Api, IntakeError> {
        let client = reqwest::Client::builder()
            .timeout(REQUEST_TIMEOUT)
            .user_agent(concat!("loki/", env!("CARGO_PKG_VERSION")))
            // A redirect could carry the token to another host.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|err| IntakeError::Unreachable {
                reference: reference.to_string(),
                url: String::new(),
                detail: err.to_string(),
            })?;
        Ok(Api {
            client,
            reference: reference.to_string(),
            deadline,
        })
    }

    /// Sends `req` (rebuilt by `make` on each retry) and reads JSON; `auth_var` is named on 401.
    pub(crate) async fn send(
        &self,
        url: &str,
        auth_var: &'static str,
        make: impl Fn() -> reqwest::RequestBuilder,
    ) -> Result<Page, IntakeError> {
        loop {
            let resp = make()
                .send()
                .await
                .map_err(|err| IntakeError::Unreachable {
                    reference: self.reference.clone(),
                    url: url.to_string(),
                    detail: err.to_string(),
                })?;
            let status = resp.status().as_u16();
            let headers = resp.headers().clone();
            if let Some(wait) = rate_limit_wait(status, &headers) {
                if Instant::now() + wait > self.deadline {
                    return Err(IntakeError::RateLimited {
                        reference: self.reference.clone(),
                        url: url.to_string(),
                        wait_s: wait.as_secs(),
                    });
                }
                tokio::time::sleep(wait).await;
                continue;
            }
            let bytes = read_capped(resp)
                .await
                .map_err(|detail| IntakeError::Unreachable {
                    reference: self.reference.clone(),
                    url: url.to_string(),
                    detail,
                })?;
            match status {
                200..=299 => {}
                401 | 403 => {
                    return Err(IntakeError::Auth {
                        reference: self.reference.clone(),
                        status,
                        url: url.to_string(),
                        var: auth_var,
                    });
                }
                404 => {
                    return Err(IntakeError::NotFound {
                        reference: self.reference.clone(),
                        url: url.to_string(),
                    });
                }
                _ => {
                    let detail: String =
                        String::from_utf8_lossy(&bytes).chars().take(300).collect();
                    return Err(IntakeError::Http {
                        reference: self.reference.clone(),
                        url: url.to_string(),
                        status,
                        detail,
                    });
                }
            }
            let json = serde_json::from_slice(&bytes).map_err(|err| IntakeError::BadResponse {
                reference: self.reference.clone(),
                url: url.to_string(),
                expected: "JSON",
                detail: err.to_string(),
            })?;
            return Ok(Page { json, headers });
        }
    }

    pub(crate) fn bad(&self, url: &str, expected: &'static str, detail: &str) -> IntakeError {
        IntakeError::BadResponse {
            reference: self.reference.clone(),
            url: url.to_string(),
            expected,
            detail: detail.to_string(),
        }
    }
}

async fn read_capped(mut resp: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    while let Some(chunk) = resp.chunk().await.map_err(|e| e.to_string())? {
        if out.len() + chunk.len() > MAX_RESPONSE_BYTES {
            return Err(format!(
                "the response is larger than {MAX_RESPONSE_BYTES} bytes"
            ));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// How long a rate-limited answer asks to wait: `Retry-After` (seconds), else until
/// `X-RateLimit-Reset` (epoch seconds); `None` when the answer is not a rate limit.
fn rate_limit_wait(status: u16, h: &reqwest::header::HeaderMap) -> Option<Duration> {
    let header = |n: &str| h.get(n).and_then(|v| v.to_str().ok()).map(str::trim);
    let limited = status == 429
        || (status == 403
            && (header("x-ratelimit-remaining") == Some("0") || header("retry-after").is_some()));
    if !limited {
        return None;
    }
    if let Some(s) = header("retry-after").and_then(|v| v.parse::<u64>().ok()) {
        return Some(Duration::from_secs(s));
    }
    if let Some(reset) = header("x-ratelimit-reset").and_then(|v| v.parse::<u64>().ok()) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        return Some(Duration::from_secs(reset.saturating_sub(now).max(1)));
    }
    Some(DEFAULT_WAIT)
}

pub(crate) fn text(v: &Value) -> String {
    v.as_str().unwrap_or_default().to_string()
}

/// The `rel="next"` URL of a `Link` header.
pub(crate) fn next_link(h: &reqwest::header::HeaderMap) -> Option<String> {
    let link = h.get("link")?.to_str().ok()?;
    link.split(',').find_map(|part| {
        let (url, rel) = part.split_once(';')?;
        rel.contains("rel=\"next\"").then(|| {
            url.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
    })
}

/// A GET of `url` on GitHub's REST API with its media type, version and the token when there is one.
pub(crate) fn github_get(
    api: &Api,
    token: Option<&str>,
    url: String,
) -> impl Fn() -> reqwest::RequestBuilder + use<> {
    let token = token.map(str::to_string);
    let client = api.client.clone();
    move || {
        let mut r = client
            .get(&url)
            .header("accept", "application/vnd.github+json")
            .header("x-github-api-version", "2022-11-28");
        if let Some(t) = &token {
            r = r.bearer_auth(t);
        }
        r
    }
}

/// Every item of a paged GitHub list from `first`, each with the page it came from, following
/// `Link: rel="next"` while it stays on the same API (`base`), at most [`MAX_PAGES`] pages;
/// `what` names the list in errors ("a list of comments").
pub(crate) async fn github_pages(
    api: &Api,
    base: &str,
    first: String,
    token: Option<&str>,
    what: &'static str,
) -> Result<Vec<(String, Value)>, IntakeError> {
    let mut out = Vec::new();
    let mut next = Some(first);
    let mut pages = 0;
    while let Some(url) = next.take() {
        pages += 1;
        if pages > MAX_PAGES {
            break;
        }
        // Pagination may only continue on the same API.
        if !url.starts_with(base) {
            return Err(api.bad(
                &url,
                "a next page on the same API",
                "the Link header points elsewhere",
            ));
        }
        let page = api
            .send(&url, "GITHUB_TOKEN", github_get(api, token, url.clone()))
            .await?;
        let items = page
            .json
            .as_array()
            .ok_or_else(|| api.bad(&url, what, "not an array"))?;
        out.extend(items.iter().map(|i| (url.clone(), i.clone())));
        next = next_link(&page.headers);
    }
    Ok(out)
}

async fn github(
    api: &Api,
    e: &Endpoints,
    owner: &str,
    repo: &str,
    number: u64,
) -> Result<Issue, IntakeError> {
    let base = e.github_api_url.trim_end_matches('/');
    let token = e.github_token.as_deref();
    let url = format!("{base}/repos/{owner}/{repo}/issues/{number}");
    let issue = api
        .send(&url, "GITHUB_TOKEN", github_get(api, token, url.clone()))
        .await?
        .json;
    if !issue.is_object() || issue["title"].as_str().is_none() {
        return Err(api.bad(&url, "a GitHub issue", "no title"));
    }
    let comments = github_pages(
        api,
        base,
        format!("{url}/comments?per_page={PAGE}"),
        token,
        "a list of comments",
    )
    .await?
    .iter()
    .map(|(_, c)| Comment {
        author: text(&c["user"]["login"]),
        body: text(&c["body"]),
    })
    .collect();
    Ok(Issue {
        source: "github".into(),
        reference: api.reference.clone(),
        title: text(&issue["title"]),
        body: text(&issue["body"]),
        labels: issue["labels"]
            .as_array()
            .map(|l| l.iter().map(|x| text(&x["name"])).collect())
            .unwrap_or_default(),
        url: text(&issue["html_url"]),
        author: text(&issue["user"]["login"]),
        comments,
    })
}

/// Percent-encodes a GitLab project path (`group/project` → `group%2Fproject`).
pub(crate) fn encode_path(p: &str) -> String {
    p.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

async fn gitlab(
    api: &Api,
    e: &Endpoints,
    project: &str,
    iid: u64,
    merge_request: bool,
) -> Result<Issue, IntakeError> {
    let base = format!("{}/api/v4", e.gitlab_url.trim_end_matches('/'));
    let get = |url: String| {
        let token = e.gitlab_token.clone();
        let client = api.client.clone();
        move || {
            let mut r = client.get(&url);
            if let Some(t) = &token {
                r = r.header("private-token", t);
            }
            r
        }
    };
    let kind = if merge_request {
        "merge_requests"
    } else {
        "issues"
    };
    let url = format!("{base}/projects/{}/{kind}/{iid}", encode_path(project));
    let issue = api.send(&url, "GITLAB_TOKEN", get(url.clone())).await?.json;
    if issue["title"].as_str().is_none() {
        return Err(api.bad(&url, "a GitLab issue", "no title"));
    }
    let mut comments = Vec::new();
    let mut page_no = 1;
    loop {
        let page_url = format!("{url}/notes?sort=asc&per_page={PAGE}&page={page_no}");
        let page = api
            .send(&page_url, "GITLAB_TOKEN", get(page_url.clone()))
            .await?;
        let items = page
            .json
            .as_array()
            .ok_or_else(|| api.bad(&page_url, "a list of notes", "not an array"))?;
        comments.extend(
            items
                .iter()
                // System notes ("changed the label") are GitLab's, not people's words.
                .filter(|n| !n["system"].as_bool().unwrap_or(false))
                .map(|n| Comment {
                    author: text(&n["author"]["username"]),
                    body: text(&n["body"]),
                }),
        );
        let next = page
            .headers
            .get("x-next-page")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u32>().ok());
        match next {
            Some(n) if n > page_no && n <= MAX_PAGES => page_no = n,
            _ => break,
        }
    }
    Ok(Issue {
        source: "gitlab".into(),
        reference: api.reference.clone(),
        title: text(&issue["title"]),
        body: text(&issue["description"]),
        labels: issue["labels"]
            .as_array()
            .map(|l| l.iter().map(text).collect())
            .unwrap_or_default(),
        url: text(&issue["web_url"]),
        author: text(&issue["author"]["username"]),
        comments,
    })
}

async fn jira(api: &Api, e: &Endpoints, key: &str) -> Result<Issue, IntakeError> {
    let missing = |var| IntakeError::Missing {
        var,
        what: "a Jira issue",
    };
    let base = e.jira_base_url.as_deref().ok_or(missing("JIRA_BASE_URL"))?;
    let email = e.jira_email.clone().ok_or(missing("JIRA_EMAIL"))?;
    let token = e.jira_api_token.clone().ok_or(missing("JIRA_API_TOKEN"))?;
    let base = base.trim_end_matches('/');
    let get = |url: String| {
        let (email, token) = (email.clone(), token.clone());
        let client = api.client.clone();
        move || {
            client
                .get(&url)
                .basic_auth(&email, Some(&token))
                .header("accept", "application/json")
        }
    };
    let url = format!("{base}/rest/api/3/issue/{key}?fields=summary,description,labels,reporter");
    let issue = api
        .send(&url, "JIRA_API_TOKEN", get(url.clone()))
        .await?
        .json;
    let fields = &issue["fields"];
    if fields["summary"].as_str().is_none() {
        return Err(api.bad(&url, "a Jira issue", "no fields.summary"));
    }
    let mut comments = Vec::new();
    let mut start = 0u64;
    for _ in 0..MAX_PAGES {
        let page_url =
            format!("{base}/rest/api/3/issue/{key}/comment?startAt={start}&maxResults={PAGE}");
        let page = api
            .send(&page_url, "JIRA_API_TOKEN", get(page_url.clone()))
            .await?
            .json;
        let items = page["comments"]
            .as_array()
            .ok_or_else(|| api.bad(&page_url, "a page of comments", "no comments array"))?;
        comments.extend(items.iter().map(|c| Comment {
            author: text(&c["author"]["displayName"]),
            body: crate::adf::to_text(&c["body"]),
        }));
        start += items.len() as u64;
        let total = page["total"].as_u64().unwrap_or(start);
        if items.is_empty() || start >= total {
            break;
        }
    }
    Ok(Issue {
        source: "jira".into(),
        reference: api.reference.clone(),
        title: text(&fields["summary"]),
        body: crate::adf::to_text(&fields["description"]),
        labels: fields["labels"]
            .as_array()
            .map(|l| l.iter().map(text).collect())
            .unwrap_or_default(),
        url: format!("{base}/browse/{key}"),
        author: text(&fields["reporter"]["displayName"]),
        comments,
    })
}

/// The GraphQL query for one issue and a page of its comments.
pub(crate) const LINEAR_QUERY: &str = "query Issue($id: String!, $after: String) { issue(id: $id) { identifier title description url creator { name } labels { nodes { name } } comments(first: 100, after: $after) { nodes { body user { name } } pageInfo { hasNextPage endCursor } } } }";

async fn linear(api: &Api, e: &Endpoints, id: &str) -> Result<Issue, IntakeError> {
    let key = e.linear_api_key.clone().ok_or(IntakeError::Missing {
        var: "LINEAR_API_KEY",
        what: "a Linear issue",
    })?;
    let url = format!("{}/graphql", e.linear_api_url.trim_end_matches('/'));
    let mut after: Option<String> = None;
    let mut comments = Vec::new();
    let mut first: Option<Value> = None;
    for _ in 0..MAX_PAGES {
        let body = json!({"query": LINEAR_QUERY, "variables": {"id": id, "after": after}});
        let (client, key, url2) = (api.client.clone(), key.clone(), url.clone());
        let page = api
            .send(&url, "LINEAR_API_KEY", move || {
                client
                    .post(&url2)
                    .header("authorization", key.clone())
                    .json(&body)
            })
            .await?
            .json;
        if let Some(errs) = page["errors"].as_array().filter(|e| !e.is_empty()) {
            let msg = text(&errs[0]["message"]);
            if msg.to_ascii_lowercase().contains("not found") || page["data"]["issue"].is_null() {
                return Err(IntakeError::NotFound {
                    reference: api.reference.clone(),
                    url: url.clone(),
                });
            }
            return Err(api.bad(&url, "an issue", &msg));
        }
        let issue = page["data"]["issue"].clone();
        if issue["title"].as_str().is_none() {
            return Err(IntakeError::NotFound {
                reference: api.reference.clone(),
                url: url.clone(),
            });
        }
        let c = &issue["comments"];
        comments.extend(
            c["nodes"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|n| Comment {
                    author: text(&n["user"]["name"]),
                    body: text(&n["body"]),
                }),
        );
        let more = c["pageInfo"]["hasNextPage"].as_bool().unwrap_or(false);
        after = c["pageInfo"]["endCursor"].as_str().map(str::to_string);
        if first.is_none() {
            first = Some(issue);
        }
        if !more || after.is_none() {
            break;
        }
    }
    let issue = first.unwrap_or_default();
    Ok(Issue {
        source: "linear".into(),
        reference: api.reference.clone(),
        title: text(&issue["title"]),
        body: text(&issue["description"]),
        labels: issue["labels"]["nodes"]
            .as_array()
            .map(|l| l.iter().map(|x| text(&x["name"])).collect())
            .unwrap_or_default(),
        url: text(&issue["url"]),
        author: text(&issue["creator"]["name"]),
        comments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_headers_and_rate_limits_are_read() {
        let mut h = reqwest::header::HeaderMap::new();
        h.insert(
            "link",
            "<https://api.x/a?page=2>; rel=\"next\", <https://api.x/a?page=5>; rel=\"last\""
                .parse()
                .unwrap(),
        );
        assert_eq!(next_link(&h).as_deref(), Some("https://api.x/a?page=2"));
        let mut h = reqwest::header::HeaderMap::new();
        assert_eq!(
            rate_limit_wait(403, &h),
            None,
            "a plain 403 is not a rate limit"
        );
        h.insert("retry-after", "7".parse().unwrap());
        assert_eq!(rate_limit_wait(429, &h), Some(Duration::from_secs(7)));
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("x-ratelimit-remaining", "0".parse().unwrap());
        assert_eq!(rate_limit_wait(403, &h), Some(DEFAULT_WAIT));
        assert_eq!(encode_path("grp/sub proj"), "grp%2Fsub%20proj");
    }
}
