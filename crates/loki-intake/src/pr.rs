//! Pull requests out: a GitHub pull request or a GitLab merge request whose body is the run's
//! evidence, opened or updated idempotently.
//!
//! # Only verified material
//! [`publish`] runs `loki verify` on the run first and publishes nothing unless the receipt is
//! intact; the body is built from `receipt.md`, whose exact bytes the signature binds.
//!
//! # Body ([`body`])
//! What the issue asked (title, link), what changed (the files), how it was tested (the
//! receipt's Markdown: verdict, checks with counts, integrity findings, the acceptance-criteria
//! table, NOT PROVEN — never empty by omission), the receipt's digest and the `loki verify`
//! command, and the DSSE envelope in a collapsed block so anyone can re-verify it offline.
//!
//! # Idempotence ([`open_or_update`])
//! The request for the run's branch is looked up first (GitHub: open pulls with `head` =
//! `owner:branch`; GitLab: opened merge requests with `source_branch`); found, its title and body
//! are updated; else one is created, as a draft unless the run was VERIFIED (GitHub's `draft`,
//! GitLab's `Draft:` title prefix). The forge token (`GITHUB_TOKEN`, `GITLAB_TOKEN`) is required
//! here and used only by this publish step.
//!
//! # The issue, again
//! A run from a GitHub or GitLab issue reads the issue once more before pushing: an issue gone
//! since the run started (404) is refused, with the run's outcome left as it was.
//!
//! # Forge
//! The forge of the remote's URL (github.com, gitlab.com, `GITLAB_URL`'s host), else the forge
//! of the run's GitHub or GitLab issue.
//!
//! # Comments ([`comment`])
//! A comment on an open request (`loki workspace run --pr`: the integration status and every
//! head): GitHub `POST /repos/{o}/{r}/issues/{n}/comments`, GitLab
//! `POST /api/v4/projects/{id}/merge_requests/{iid}/notes`, both `{"body": …}`.

use std::time::Instant;

use loki_protocol::outcome::VerifyVerdict;
use serde_json::{Value, json};

use crate::IntakeError;
use crate::fetch::{Api, Endpoints, encode_path};

/// Where the request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Forge {
    Github { owner: String, repo: String },
    Gitlab { project: String },
}

impl Forge {
    /// The forge of an issue reference (GitHub and GitLab issues; Jira and Linear have none).
    #[must_use]
    pub fn of_issue(r: &crate::IssueRef) -> Option<Forge> {
        match r {
            crate::IssueRef::Github { owner, repo, .. } => Some(Forge::Github {
                owner: owner.clone(),
                repo: repo.clone(),
            }),
            crate::IssueRef::Gitlab { project, .. } => Some(Forge::Gitlab {
                project: project.clone(),
            }),
            crate::IssueRef::Jira { .. } | crate::IssueRef::Linear { .. } => None,
        }
    }

    /// The forge of a remote URL (`git@github.com:o/r.git`, `https://github.com/o/r`, a GitLab
    /// host's `group/project`), if it is one loki knows.
    #[must_use]
    pub fn of_remote(url: &str, hosts: &crate::Hosts) -> Option<Forge> {
        let url = url.trim().trim_end_matches('/').trim_end_matches(".git");
        let (host, path) = if let Some(rest) = url.strip_prefix("git@") {
            rest.split_once(':')?
        } else {
            let rest = url.split_once("://")?.1;
            let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
            rest.split_once('/')?
        };
        let segs: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let gitlab_host = hosts.gitlab_url.as_deref().and_then(|u| {
            u.split_once("://")
                .map(|(_, r)| r.split('/').next().unwrap_or(r))
        });
        if host.eq_ignore_ascii_case("github.com") && segs.len() == 2 {
            return Some(Forge::Github {
                owner: segs[0].to_string(),
                repo: segs[1].to_string(),
            });
        }
        if (host.eq_ignore_ascii_case("gitlab.com")
            || gitlab_host.is_some_and(|g| g.eq_ignore_ascii_case(host)))
            && segs.len() >= 2
        {
            return Some(Forge::Gitlab {
                project: segs.join("/"),
            });
        }
        None
    }
}

/// A request to open or update.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrRequest {
    pub forge: Forge,
    /// The run's branch, pushed.
    pub head: String,
    /// The branch it should merge into.
    pub base: String,
    pub title: String,
    pub body: String,
    pub draft: bool,
}

/// What [`open_or_update`] did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PrResult {
    pub url: String,
    pub number: u64,
    pub created: bool,
}

/// The evidence body (see the module doc).
#[must_use]
pub fn body(
    receipt_md: &str,
    issue: Option<&crate::Issue>,
    changed: &[String],
    receipt_sha256: &str,
    run_id: &str,
    envelope: Option<&str>,
) -> String {
    let mut s = String::new();
    if let Some(i) = issue {
        s.push_str(&format!(
            "## What the issue asked\n\n[{}]({}): {}\n\n",
            i.reference,
            i.url,
            i.title.trim()
        ));
    }
    s.push_str("## What changed\n\n");
    if changed.is_empty() {
        s.push_str("_No file changed._\n");
    }
    for f in changed {
        s.push_str(&format!("- `{f}`\n"));
    }
    s.push_str("\n## How it was tested\n\n");
    // receipt.md opens with its own title; the PR's sections are level 2, so it goes one down.
    for line in receipt_md.lines() {
        if let Some(h) = line.strip_prefix("# ") {
            s.push_str(&format!("### {h}\n"));
        } else if let Some(h) = line.strip_prefix("## ") {
            s.push_str(&format!("#### {h}\n"));
        } else {
            s.push_str(line);
            s.push('\n');
        }
    }
    s.push_str(&format!(
        "\n## Check it yourself\n\nReceipt `sha256:{receipt_sha256}`. In a clone with the run's directory: `loki verify {run_id}` (or `loki verify receipt.dsse.json --pubkey <loki's public key>`).\n"
    ));
    if let Some(env) = envelope {
        s.push_str(&format!(
            "\n<details><summary>DSSE envelope (receipt.dsse.json)</summary>\n\n```json\n{}\n```\n\n</details>\n",
            env.trim()
        ));
    }
    s
}

/// What [`publish`] did, as `pr.json` records it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Published {
    #[serde(flatten)]
    pub result: PrResult,
    pub draft: bool,
    pub branch: String,
}

/// Publishes run `run` of `repo`: checks its receipt with `trust` (refused unless intact:
/// VERIFIED, or intact with an outcome that is not, published as a draft), pushes its branch to
/// `remote` and opens or updates the request into `base` (default: the checkout's branch), then
/// writes `pr.json` in the run's directory.
#[expect(
    clippy::too_many_arguments,
    reason = "one publish: the run, where it goes, whom to trust and the forge's settings"
)]
pub fn publish(
    repo: &loki_core::layout::Repo,
    run: &loki_core::RunId,
    remote: &str,
    base: Option<&str>,
    trust: &loki_receipt::VerifyOptions,
    e: &Endpoints,
    hosts: &crate::Hosts,
    deadline: Instant,
) -> Result<Published, IntakeError> {
    let bad = |why: String| refused(run, why);
    let store = loki_core::run::RunStore::new(repo.clone());
    let rec = store.load(run)?;
    let dir = store.dir(run);
    let receipt = verified_receipt(&dir, run, trust)?;
    let read = |name: &str| {
        std::fs::read_to_string(dir.join(name))
            .map_err(|err| bad(format!("cannot read its {name}: {err}")))
    };
    let issue: Option<crate::Issue> = std::fs::read_to_string(dir.join("issue.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok());
    let branch = rec.branch();
    let git = loki_git::Git::new(&repo.root);
    if git.rev_parse(&format!("refs/heads/{branch}")).is_err() {
        return Err(bad(format!(
            "it has no branch {branch} (a run that made no change, or was discarded): nothing to propose"
        )));
    }
    let forge = forge_for(
        &git,
        remote,
        issue.as_ref().map(|i| i.reference.as_str()),
        hosts,
    )
    .map_err(&bad)?;
    let base = match base {
        Some(b) => b.to_string(),
        None => git
            .current_branch()?
            .ok_or_else(|| bad("the checkout is on no branch: name the target branch".into()))?,
    };
    let changed: Vec<String> = git
        .changes(&receipt.repo.base_sha, &receipt.repo.head_sha)?
        .into_iter()
        .map(|c| c.path)
        .collect();
    let envelope = std::fs::read_to_string(dir.join("receipt.dsse.json")).ok();
    let text = body(
        &read("receipt.md")?,
        issue.as_ref(),
        &changed,
        &receipt.receipt_sha256,
        run.as_str(),
        envelope.as_deref(),
    );
    let title = title_of(issue.as_ref(), rec.task.as_deref());
    let draft = !matches!(
        receipt.verdict,
        loki_protocol::outcome::Outcome::Verified
            | loki_protocol::outcome::Outcome::AlreadySatisfied
    );
    // The token is checked before anything leaves the machine.
    token_for(&forge, e)?;
    if let Some(i) = &issue {
        issue_still_open(run, i, e, hosts, deadline)?;
    }
    git.push_branch(remote, &branch)?;
    let req = PrRequest {
        forge,
        head: branch.clone(),
        base,
        title,
        body: text,
        draft,
    };
    let result = open_or_update(&req, e, deadline)?;
    let published = Published {
        result,
        draft,
        branch,
    };
    loki_core::fs::write_json_atomic(&dir.join("pr.json"), &published)?;
    Ok(published)
}

/// The error of publishing `run` refused for `why`.
fn refused(run: &loki_core::RunId, why: String) -> IntakeError {
    IntakeError::Publish {
        run: run.to_string(),
        why,
    }
}

/// The receipt of the run in `dir`, once `loki verify` vouches for it with `trust`: what is
/// published is the receipt, its signature and the receipt.md the signature binds, so a run
/// that is not intact publishes nothing.
fn verified_receipt(
    dir: &std::path::Path,
    run: &loki_core::RunId,
    trust: &loki_receipt::VerifyOptions,
) -> Result<loki_receipt::Receipt, IntakeError> {
    let bad = |why: String| refused(run, why);
    let checked =
        loki_receipt::verify(&loki_receipt::VerifyInput::RunDir(dir.to_path_buf()), trust);
    if !matches!(
        checked.verdict,
        VerifyVerdict::Verified | VerifyVerdict::NotVerified
    ) {
        return Err(bad(format!(
            "its receipt does not verify ({}: {}); nothing was pushed or published (`loki verify {run}` shows every step)",
            checked.verdict.as_str(),
            checked.reason.as_deref().unwrap_or("no reason given")
        )));
    }
    let text = std::fs::read_to_string(dir.join("receipt.json"))
        .map_err(|err| bad(format!("cannot read its receipt.json: {err}")))?;
    serde_json::from_str(&text)
        .map_err(|err| bad(format!("its receipt.json is not a receipt: {err}")))
}

/// The request's title: the issue's title and reference, else the task's first line.
fn title_of(issue: Option<&crate::Issue>, task: Option<&str>) -> String {
    match issue {
        Some(i) => format!("{} ({})", i.title.trim(), i.reference),
        None => format!(
            "loki: {}",
            task.unwrap_or_default().lines().next().unwrap_or_default()
        ),
    }
}

/// The issue is read again: one deleted (or moved out of reach) since the run started gets no
/// request, and nothing is pushed for it.
fn issue_still_open(
    run: &loki_core::RunId,
    i: &crate::Issue,
    e: &Endpoints,
    hosts: &crate::Hosts,
    deadline: Instant,
) -> Result<(), IntakeError> {
    if let Ok(Some(r)) = crate::parse(&i.reference, hosts)
        && Forge::of_issue(&r).is_some()
    {
        match crate::fetch(&r, e, deadline) {
            Ok(_) => {}
            Err(err @ IntakeError::NotFound { .. }) => {
                return Err(refused(
                    run,
                    format!(
                        "its issue {} is gone since the run started ({err}); nothing was pushed or opened, and the run's outcome stands",
                        i.reference
                    ),
                ));
            }
            Err(other) => return Err(other),
        }
    }
    Ok(())
}

/// Where a run's request goes: the forge of its GitHub or GitLab issue (`issue_ref`), else the
/// forge of `remote`'s URL; `Err` says why neither names one.
fn forge_for(
    git: &loki_git::Git,
    remote: &str,
    issue_ref: Option<&str>,
    hosts: &crate::Hosts,
) -> Result<Forge, String> {
    let remote_url = git.remote_url(remote).map_err(|e| e.to_string())?;
    // The request belongs where the branch is pushed; the issue's forge only when the remote's
    // URL names none (a mirror, a local path).
    remote_url
        .as_deref()
        .and_then(|u| Forge::of_remote(u, hosts))
        .or_else(|| {
            issue_ref
                .and_then(|r| crate::parse(r, hosts).ok().flatten())
                .and_then(|r| Forge::of_issue(&r))
        })
        .ok_or_else(|| {
            format!(
                "cannot tell where to open the request: it has no GitHub or GitLab issue and the remote {remote:?} ({}) is not on github.com, gitlab.com or GITLAB_URL",
                remote_url.as_deref().unwrap_or("not set")
            )
        })
}

/// The forge's token, or the error naming the variable to set.
fn token_for<'a>(forge: &Forge, e: &'a Endpoints) -> Result<&'a str, IntakeError> {
    match forge {
        Forge::Github { .. } => e.github_token.as_deref().ok_or(IntakeError::Missing {
            var: "GITHUB_TOKEN",
            what: "opening a GitHub pull request",
        }),
        Forge::Gitlab { .. } => e.gitlab_token.as_deref().ok_or(IntakeError::Missing {
            var: "GITLAB_TOKEN",
            what: "opening a GitLab merge request",
        }),
    }
}

/// What `--pr` on a build checks before the run starts, so a run is not spent on a request that
/// cannot be opened: the forge (of the issue `issue_ref`, else of `remote`) and its token.
pub fn preflight(
    repo: &loki_core::layout::Repo,
    remote: &str,
    issue_ref: Option<&str>,
    e: &Endpoints,
    hosts: &crate::Hosts,
) -> Result<Forge, IntakeError> {
    let git = loki_git::Git::new(&repo.root);
    let forge = forge_for(&git, remote, issue_ref, hosts).map_err(|why| IntakeError::Publish {
        run: "(not started)".into(),
        why: format!("--pr: {why}"),
    })?;
    token_for(&forge, e)?;
    Ok(forge)
}

/// Forge of a published request, as [`publish`] chose it: `None` when it cannot be told again.
pub fn forge_of_run(
    repo: &loki_core::layout::Repo,
    remote: &str,
    issue_ref: Option<&str>,
    hosts: &crate::Hosts,
) -> Option<Forge> {
    forge_for(&loki_git::Git::new(&repo.root), remote, issue_ref, hosts).ok()
}

/// Posts `body` as a comment on request `number` of `forge`.
pub fn comment(
    forge: &Forge,
    number: u64,
    body: &str,
    e: &Endpoints,
    deadline: Instant,
) -> Result<(), IntakeError> {
    let token = token_for(forge, e)?.to_string();
    let (url, reference, github) = match forge {
        Forge::Github { owner, repo } => (
            format!(
                "{}/repos/{owner}/{repo}/issues/{number}/comments",
                e.github_api_url.trim_end_matches('/')
            ),
            format!("{owner}/{repo}#{number}"),
            true,
        ),
        Forge::Gitlab { project } => (
            format!(
                "{}/api/v4/projects/{}/merge_requests/{number}/notes",
                e.gitlab_url.trim_end_matches('/'),
                encode_path(project)
            ),
            format!("{project}!{number}"),
            false,
        ),
    };
    let rt = crate::fetch::runtime(&reference)?;
    let api = Api::named(&reference, deadline)?;
    let var = if github {
        "GITHUB_TOKEN"
    } else {
        "GITLAB_TOKEN"
    };
    let payload = json!({ "body": body });
    rt.block_on(api.send(&url, var, || {
        let r = api.client.post(&url).json(&payload);
        if github {
            r.bearer_auth(&token)
                .header("accept", "application/vnd.github+json")
                .header("x-github-api-version", "2022-11-28")
        } else {
            r.header("private-token", &token)
        }
    }))
    .map(drop)
}

/// Opens the request, or updates the one already open for `req.head`.
pub fn open_or_update(
    req: &PrRequest,
    e: &Endpoints,
    deadline: Instant,
) -> Result<PrResult, IntakeError> {
    let rt = crate::fetch::runtime(&req.head)?;
    rt.block_on(async {
        match &req.forge {
            Forge::Github { owner, repo } => github(req, e, owner, repo, deadline).await,
            Forge::Gitlab { project } => gitlab(req, e, project, deadline).await,
        }
    })
}

async fn github(
    req: &PrRequest,
    e: &Endpoints,
    owner: &str,
    repo: &str,
    deadline: Instant,
) -> Result<PrResult, IntakeError> {
    let token = e.github_token.clone().ok_or(IntakeError::Missing {
        var: "GITHUB_TOKEN",
        what: "opening a GitHub pull request",
    })?;
    let api = Api::named(&format!("{owner}/{repo} {}", req.head), deadline)?;
    let base = format!(
        "{}/repos/{owner}/{repo}/pulls",
        e.github_api_url.trim_end_matches('/')
    );
    let call = |method: reqwest::Method, url: String, body: Option<Value>| {
        let (client, token) = (api.client.clone(), token.clone());
        move || {
            let mut r = client
                .request(method.clone(), &url)
                .bearer_auth(&token)
                .header("accept", "application/vnd.github+json")
                .header("x-github-api-version", "2022-11-28");
            if let Some(b) = &body {
                r = r.json(b);
            }
            r
        }
    };
    let find = format!("{base}?state=open&head={owner}:{}", req.head);
    let open = api
        .send(
            &find,
            "GITHUB_TOKEN",
            call(reqwest::Method::GET, find.clone(), None),
        )
        .await?
        .json;
    let existing = open.as_array().and_then(|a| a.first()).cloned();
    let (pr, created) = match existing {
        Some(pr) => {
            let n = pr["number"].as_u64().unwrap_or_default();
            let url = format!("{base}/{n}");
            let patch = json!({"title": req.title, "body": req.body});
            let p = api
                .send(
                    &url,
                    "GITHUB_TOKEN",
                    call(reqwest::Method::PATCH, url.clone(), Some(patch)),
                )
                .await?
                .json;
            (p, false)
        }
        None => {
            let create = json!({"title": req.title, "head": req.head, "base": req.base,
                                "body": req.body, "draft": req.draft});
            let p = api
                .send(
                    &base,
                    "GITHUB_TOKEN",
                    call(reqwest::Method::POST, base.clone(), Some(create)),
                )
                .await?
                .json;
            (p, true)
        }
    };
    Ok(PrResult {
        url: pr["html_url"].as_str().unwrap_or_default().to_string(),
        number: pr["number"].as_u64().unwrap_or_default(),
        created,
    })
}

async fn gitlab(
    req: &PrRequest,
    e: &Endpoints,
    project: &str,
    deadline: Instant,
) -> Result<PrResult, IntakeError> {
    let token = e.gitlab_token.clone().ok_or(IntakeError::Missing {
        var: "GITLAB_TOKEN",
        what: "opening a GitLab merge request",
    })?;
    let api = Api::named(&format!("{project} {}", req.head), deadline)?;
    let base = format!(
        "{}/api/v4/projects/{}/merge_requests",
        e.gitlab_url.trim_end_matches('/'),
        encode_path(project)
    );
    let call = |method: reqwest::Method, url: String, body: Option<Value>| {
        let (client, token) = (api.client.clone(), token.clone());
        move || {
            let mut r = client
                .request(method.clone(), &url)
                .header("private-token", &token);
            if let Some(b) = &body {
                r = r.json(b);
            }
            r
        }
    };
    let title = if req.draft {
        format!("Draft: {}", req.title)
    } else {
        req.title.clone()
    };
    let find = format!("{base}?state=opened&source_branch={}", req.head);
    let open = api
        .send(
            &find,
            "GITLAB_TOKEN",
            call(reqwest::Method::GET, find.clone(), None),
        )
        .await?
        .json;
    let existing = open.as_array().and_then(|a| a.first()).cloned();
    let (mr, created) = match existing {
        Some(mr) => {
            let iid = mr["iid"].as_u64().unwrap_or_default();
            let url = format!("{base}/{iid}");
            let put = json!({"title": title, "description": req.body});
            let m = api
                .send(
                    &url,
                    "GITLAB_TOKEN",
                    call(reqwest::Method::PUT, url.clone(), Some(put)),
                )
                .await?
                .json;
            (m, false)
        }
        None => {
            let create = json!({"source_branch": req.head, "target_branch": req.base,
                                "title": title, "description": req.body});
            let m = api
                .send(
                    &base,
                    "GITLAB_TOKEN",
                    call(reqwest::Method::POST, base.clone(), Some(create)),
                )
                .await?
                .json;
            (m, true)
        }
    };
    Ok(PrResult {
        url: mr["web_url"].as_str().unwrap_or_default().to_string(),
        number: mr["iid"].as_u64().unwrap_or_default(),
        created,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_forge_of_a_remote() {
        let h = crate::Hosts {
            gitlab_url: Some("https://git.example.org".into()),
            jira_base_url: None,
        };
        let gh = Some(Forge::Github {
            owner: "o".into(),
            repo: "r".into(),
        });
        assert_eq!(Forge::of_remote("git@github.com:o/r.git", &h), gh);
        assert_eq!(Forge::of_remote("https://x:t@github.com/o/r", &h), gh);
        assert_eq!(
            Forge::of_remote("https://git.example.org/a/b/c.git", &h),
            Some(Forge::Gitlab {
                project: "a/b/c".into()
            })
        );
        assert_eq!(Forge::of_remote("/srv/git/repo.git", &h), None);
        assert_eq!(Forge::of_remote("https://evil.example.com/o/r", &h), None);
    }
}
