//! Posting a verdict: one comment updated in place, and a check run (GitHub) or commit status
//! (GitLab) on the request's head.
//!
//! # GitHub (REST, `Authorization: Bearer`, `Accept: application/vnd.github+json`)
//! - `GET /repos/{o}/{r}/issues/{n}/comments?per_page=100` (every page, by `Link`): the first
//!   comment whose body starts with the marker is `PATCH /repos/{o}/{r}/issues/comments/{id}`
//!   `{"body"}`; none, `POST /repos/{o}/{r}/issues/{n}/comments` `{"body"}`.
//! - `GET /repos/{o}/{r}/commits/{sha}/check-runs?check_name={name}&filter=latest`: the run of
//!   that name on the head is `PATCH /repos/{o}/{r}/check-runs/{id}`, else
//!   `POST /repos/{o}/{r}/check-runs`, with `{name, head_sha, status: "completed", conclusion,
//!   details_url?, output: {title, summary}}`.
//!
//! # GitLab (REST v4, `PRIVATE-TOKEN`)
//! - `GET /projects/{id}/merge_requests/{iid}/notes?sort=asc&per_page=100&page=N` (by
//!   `X-Next-Page`; system notes skipped): the marked note is
//!   `PUT …/notes/{note_id}` `{"body"}`, else `POST …/notes` `{"body"}`.
//! - `POST /projects/{id}/statuses/{sha}` `{state, name, description, target_url?}`
//!   (`description` cut to 255 characters, GitLab's limit).
//!
//! The token is required ([`IntakeError::Missing`] names it) and sent to the configured API
//! only; redirects are not followed ([`crate::fetch::Api`]).

use std::time::Instant;

use reqwest::Method;
use serde_json::{Value, json};

use super::comment::Rendered;
use super::context::Request;
use super::gate::Conclusion;
use crate::IntakeError;
use crate::fetch::{Api, Endpoints, MAX_PAGES, PAGE, Page, encode_path, github_pages};
use crate::pr::Forge;

/// What [`post`] did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Posted {
    /// The comment's (note's) web address, when the forge gave one.
    pub comment_url: Option<String>,
    /// True when the comment was created, false when an earlier one was updated.
    pub comment_created: bool,
    /// The check run's (GitHub) web address.
    pub check_url: Option<String>,
}

/// Posts `rendered` on `req` as check `name` concluding `conclusion`, with the marker of `name`
/// (see the module doc), by `deadline`.
pub fn post(
    req: &Request,
    rendered: &Rendered,
    conclusion: Conclusion,
    name: &str,
    endpoints: &Endpoints,
    deadline: Instant,
) -> Result<Posted, IntakeError> {
    let reference = req.reference();
    let rt = crate::fetch::runtime(&reference)?;
    let api = Api::named(&reference, deadline)?;
    let marker = super::comment::marker(name);
    let out = Out {
        req,
        rendered,
        conclusion,
        name,
        marker: &marker,
    };
    rt.block_on(async {
        match &req.forge {
            Forge::Github { owner, repo } => {
                let token = endpoints.github_token.clone().ok_or(IntakeError::Missing {
                    var: "GITHUB_TOKEN",
                    what: "posting the verdict on a pull request",
                })?;
                let gh = Github {
                    api: &api,
                    base: endpoints.github_api_url.trim_end_matches('/').to_string(),
                    repo: format!("{owner}/{repo}"),
                    token,
                };
                gh.post(&out).await
            }
            Forge::Gitlab { project } => {
                let token = endpoints.gitlab_token.clone().ok_or(IntakeError::Missing {
                    var: "GITLAB_TOKEN",
                    what: "posting the verdict on a merge request (a project access token with the api scope)",
                })?;
                let gl = Gitlab {
                    api: &api,
                    project: format!(
                        "{}/api/v4/projects/{}",
                        endpoints.gitlab_url.trim_end_matches('/'),
                        encode_path(project)
                    ),
                    token,
                };
                gl.post(&out).await
            }
        }
    })
}

/// What is posted.
struct Out<'a> {
    req: &'a Request,
    rendered: &'a Rendered,
    conclusion: Conclusion,
    name: &'a str,
    marker: &'a str,
}

struct Github<'a> {
    api: &'a Api,
    base: String,
    /// `owner/repo`.
    repo: String,
    token: String,
}

impl Github<'_> {
    fn call(
        &self,
        method: Method,
        url: &str,
        body: Option<Value>,
    ) -> impl Fn() -> reqwest::RequestBuilder + use<> {
        let (client, token, url) = (self.api.client.clone(), self.token.clone(), url.to_string());
        move || {
            let r = client
                .request(method.clone(), &url)
                .bearer_auth(&token)
                .header("accept", "application/vnd.github+json")
                .header("x-github-api-version", "2022-11-28");
            match &body {
                Some(b) => r.json(b),
                None => r,
            }
        }
    }

    async fn send(
        &self,
        method: Method,
        url: String,
        body: Option<Value>,
    ) -> Result<Value, IntakeError> {
        let make = self.call(method, &url, body);
        Ok(self.api.send(&url, "GITHUB_TOKEN", make).await?.json)
    }

    async fn post(&self, out: &Out<'_>) -> Result<Posted, IntakeError> {
        let (base, repo, n) = (&self.base, &self.repo, out.req.number);
        let list = format!("{base}/repos/{repo}/issues/{n}/comments?per_page={PAGE}");
        let comments = github_pages(
            self.api,
            base,
            list,
            Some(&self.token),
            "a list of comments",
        )
        .await?;
        let mine = comments.iter().map(|(_, c)| c).find(|c| {
            c["body"]
                .as_str()
                .is_some_and(|b| b.starts_with(out.marker))
        });
        let body = json!({"body": out.rendered.body});
        let (comment, created) = match mine.and_then(|c| c["id"].as_u64()) {
            Some(id) => {
                let url = format!("{base}/repos/{repo}/issues/comments/{id}");
                (self.send(Method::PATCH, url, Some(body)).await?, false)
            }
            None => {
                let url = format!("{base}/repos/{repo}/issues/{n}/comments");
                (self.send(Method::POST, url, Some(body)).await?, true)
            }
        };
        let check = self.check_run(out).await?;
        Ok(Posted {
            comment_url: comment["html_url"].as_str().map(str::to_string),
            comment_created: created,
            check_url: check["html_url"].as_str().map(str::to_string),
        })
    }

    async fn check_run(&self, out: &Out<'_>) -> Result<Value, IntakeError> {
        let (base, repo, sha) = (&self.base, &self.repo, &out.req.head_sha);
        let find = format!(
            "{base}/repos/{repo}/commits/{sha}/check-runs?check_name={}&filter=latest",
            encode_path(out.name)
        );
        let found = self.send(Method::GET, find.clone(), None).await?;
        let runs = found["check_runs"].as_array().ok_or_else(|| {
            self.api
                .bad(&find, "a list of check runs", "no check_runs array")
        })?;
        let mut body = json!({
            "name": out.name,
            "head_sha": sha,
            "status": "completed",
            "conclusion": out.conclusion.github(),
            "output": {"title": out.rendered.title, "summary": out.rendered.summary},
        });
        if let Some(u) = &out.req.job_url {
            body["details_url"] = json!(u);
        }
        match runs.iter().find_map(|r| r["id"].as_u64()) {
            Some(id) => {
                let url = format!("{base}/repos/{repo}/check-runs/{id}");
                self.send(Method::PATCH, url, Some(body)).await
            }
            None => {
                let url = format!("{base}/repos/{repo}/check-runs");
                self.send(Method::POST, url, Some(body)).await
            }
        }
    }
}

struct Gitlab<'a> {
    api: &'a Api,
    /// `<api>/projects/<encoded project>`.
    project: String,
    token: String,
}

/// GitLab's limit on a commit status's description.
const STATUS_DESCRIPTION: usize = 255;

impl Gitlab<'_> {
    async fn send(
        &self,
        method: Method,
        url: String,
        body: Option<Value>,
    ) -> Result<Page, IntakeError> {
        let (client, token, u) = (self.api.client.clone(), self.token.clone(), url.clone());
        let make = move || {
            let r = client
                .request(method.clone(), &u)
                .header("private-token", &token);
            match &body {
                Some(b) => r.json(b),
                None => r,
            }
        };
        self.api.send(&url, "GITLAB_TOKEN", make).await
    }

    async fn post(&self, out: &Out<'_>) -> Result<Posted, IntakeError> {
        let notes = format!("{}/merge_requests/{}/notes", self.project, out.req.number);
        let mut mine = None;
        let mut page_no = 1;
        while mine.is_none() {
            let url = format!("{notes}?sort=asc&per_page={PAGE}&page={page_no}");
            let page = self.send(Method::GET, url.clone(), None).await?;
            let items = page
                .json
                .as_array()
                .ok_or_else(|| self.api.bad(&url, "a list of notes", "not an array"))?;
            mine = items
                .iter()
                .filter(|n| !n["system"].as_bool().unwrap_or(false))
                .find(|n| {
                    n["body"]
                        .as_str()
                        .is_some_and(|b| b.starts_with(out.marker))
                })
                .and_then(|n| n["id"].as_u64());
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
        let body = json!({"body": out.rendered.body});
        let (note, created) = match mine {
            Some(id) => (
                self.send(Method::PUT, format!("{notes}/{id}"), Some(body))
                    .await?
                    .json,
                false,
            ),
            None => (self.send(Method::POST, notes, Some(body)).await?.json, true),
        };
        let description: String = out
            .rendered
            .title
            .chars()
            .take(STATUS_DESCRIPTION)
            .collect();
        let mut status = json!({
            "state": out.conclusion.gitlab(),
            "name": out.name,
            "description": description,
        });
        if let Some(u) = &out.req.job_url {
            status["target_url"] = json!(u);
        }
        let url = format!("{}/statuses/{}", self.project, out.req.head_sha);
        self.send(Method::POST, url, Some(status)).await?;
        let note_url = match (&out.req.url, note["id"].as_u64()) {
            (Some(u), Some(id)) => Some(format!("{u}#note_{id}")),
            _ => None,
        };
        Ok(Posted {
            comment_url: note_url,
            comment_created: created,
            check_url: None,
        })
    }
}
