//! A backlog: the open issues of one GitHub repository or GitLab project, listed through the
//! tracker's API, for `loki backlog` to build one by one.
//!
//! # Project ([`Project::parse`])
//! `owner/repo` (GitHub), `group/subgroup/project` (GitLab: three or more segments), or either
//! with the `github:` / `gitlab:` prefix; the same rules as an issue reference without `#N`.
//!
//! # Listing ([`list`])
//! GitHub: `GET /repos/{owner}/{repo}/issues?state=open&per_page=100[&labels=X]`, following the
//! `Link: rel="next"` pages on the same API; pull requests (items with `pull_request`) are left
//! out, since GitHub lists them as issues. GitLab: `GET /api/v4/projects/{id}/issues?state=opened
//! &per_page=100[&labels=X]&page=N`, following `X-Next-Page`. At most [`MAX_PAGES`] pages; rate
//! limits are waited out until the deadline as for a single issue. The result is sorted by number.

use std::time::Instant;

use serde::Serialize;

use crate::fetch::{Api, Endpoints, MAX_PAGES, PAGE, encode_path, github_pages, text};
use crate::{IntakeError, IssueRef};

/// A repository or project whose issues are listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Project {
    Github { owner: String, repo: String },
    Gitlab { project: String },
}

impl Project {
    /// Parses `owner/repo`, `group/sub/project`, `github:o/r` or `gitlab:g/p`.
    pub fn parse(input: &str, hosts: &crate::Hosts) -> Result<Project, IntakeError> {
        let bad = |why: &str| IntakeError::BadRef {
            input: input.to_string(),
            why: why.to_string(),
        };
        let t = input.trim();
        if t.is_empty() || t.contains('#') || t.contains(char::is_whitespace) {
            return Err(bad(
                "name a repository (owner/repo) or a GitLab project (group/project), without #N",
            ));
        }
        // The issue reference rules decide which forge a path belongs to.
        match crate::parse(&format!("{t}#1"), hosts)? {
            Some(r) => Project::of(&r).ok_or_else(|| bad("only GitHub and GitLab have backlogs")),
            None => Err(bad(
                "name a repository (owner/repo) or a GitLab project (group/project)",
            )),
        }
    }

    /// The project an issue reference belongs to.
    #[must_use]
    pub fn of(r: &IssueRef) -> Option<Project> {
        match r {
            IssueRef::Github { owner, repo, .. } => Some(Project::Github {
                owner: owner.clone(),
                repo: repo.clone(),
            }),
            IssueRef::Gitlab { project, .. } => Some(Project::Gitlab {
                project: project.clone(),
            }),
            IssueRef::Jira { .. } | IssueRef::Linear { .. } => None,
        }
    }

    /// The reference of issue `n` of this project.
    #[must_use]
    pub fn issue(&self, n: u64) -> IssueRef {
        match self {
            Project::Github { owner, repo } => IssueRef::Github {
                owner: owner.clone(),
                repo: repo.clone(),
                number: n,
            },
            Project::Gitlab { project } => IssueRef::Gitlab {
                project: project.clone(),
                iid: n,
                merge_request: false,
            },
        }
    }

    /// `github:owner/repo`, `gitlab:group/project`.
    #[must_use]
    pub fn canonical(&self) -> String {
        match self {
            Project::Github { owner, repo } => format!("github:{owner}/{repo}"),
            Project::Gitlab { project } => format!("gitlab:{project}"),
        }
    }
}

/// One open issue of a backlog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Listed {
    pub number: u64,
    pub title: String,
}

/// The open issues of `p` (with `label`, when given), by number; see the module doc.
pub fn list(
    p: &Project,
    label: Option<&str>,
    e: &Endpoints,
    deadline: Instant,
) -> Result<Vec<Listed>, IntakeError> {
    let rt = crate::fetch::runtime(&p.canonical())?;
    let api = Api::named(&p.canonical(), deadline)?;
    let mut out = rt.block_on(async {
        match p {
            Project::Github { owner, repo } => github(&api, e, owner, repo, label).await,
            Project::Gitlab { project } => gitlab(&api, e, project, label).await,
        }
    })?;
    out.sort_by_key(|l| l.number);
    out.dedup_by_key(|l| l.number);
    Ok(out)
}

/// `labels=<label>`, percent-encoded, or nothing.
fn label_query(label: Option<&str>) -> String {
    label.map_or_else(String::new, |l| format!("&labels={}", encode_path(l)))
}

async fn github(
    api: &Api,
    e: &Endpoints,
    owner: &str,
    repo: &str,
    label: Option<&str>,
) -> Result<Vec<Listed>, IntakeError> {
    let base = e.github_api_url.trim_end_matches('/');
    let first = format!(
        "{base}/repos/{owner}/{repo}/issues?state=open&per_page={PAGE}{}",
        label_query(label)
    );
    let items = github_pages(
        api,
        base,
        first,
        e.github_token.as_deref(),
        "a list of issues",
    )
    .await?;
    let mut out = Vec::new();
    for (url, i) in &items {
        // GitHub lists pull requests among the issues.
        if i.get("pull_request").is_some() {
            continue;
        }
        let number = i["number"]
            .as_u64()
            .ok_or_else(|| api.bad(url, "issues with a number", "one has none"))?;
        out.push(Listed {
            number,
            title: text(&i["title"]),
        });
    }
    Ok(out)
}

async fn gitlab(
    api: &Api,
    e: &Endpoints,
    project: &str,
    label: Option<&str>,
) -> Result<Vec<Listed>, IntakeError> {
    let base = format!(
        "{}/api/v4/projects/{}/issues?state=opened&per_page={PAGE}{}",
        e.gitlab_url.trim_end_matches('/'),
        encode_path(project),
        label_query(label)
    );
    let mut out = Vec::new();
    let mut page_no = 1;
    loop {
        let url = format!("{base}&page={page_no}");
        let (token, client, u) = (e.gitlab_token.clone(), api.client.clone(), url.clone());
        let page = api
            .send(&url, "GITLAB_TOKEN", move || {
                let mut r = client.get(&u);
                if let Some(t) = &token {
                    r = r.header("private-token", t);
                }
                r
            })
            .await?;
        let items = page
            .json
            .as_array()
            .ok_or_else(|| api.bad(&url, "a list of issues", "not an array"))?;
        for i in items {
            let number = i["iid"]
                .as_u64()
                .ok_or_else(|| api.bad(&url, "issues with an iid", "one has none"))?;
            out.push(Listed {
                number,
                title: text(&i["title"]),
            });
        }
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
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_parse_like_issue_references_without_the_number() {
        let h = crate::Hosts::default();
        assert_eq!(
            Project::parse("octo/widgets", &h).ok(),
            Some(Project::Github {
                owner: "octo".into(),
                repo: "widgets".into()
            })
        );
        assert_eq!(
            Project::parse("grp/sub/proj", &h).ok(),
            Some(Project::Gitlab {
                project: "grp/sub/proj".into()
            })
        );
        for bad in ["octo/widgets#3", "", "octo", "fix the bug", "jira:PROJ"] {
            assert!(Project::parse(bad, &h).is_err(), "{bad}");
        }
    }
}
