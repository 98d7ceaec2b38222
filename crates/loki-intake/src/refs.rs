//! Issue references as a user types them, parsed into an [`IssueRef`] (pure).
//!
//! Accepted forms:
//! - GitHub: `owner/repo#N`, `github:owner/repo#N`, `https://github.com/owner/repo/issues/N`
//!   (also `/pull/N`, whose issue is the pull request's conversation);
//! - GitLab: `group/subgroup/project#N` (three or more path segments), `gitlab:group/project#N`,
//!   `https://<gitlab host>/group/project/-/issues/N` and `…/-/merge_requests/N`, where the host
//!   is `gitlab.com` or the host of `GITLAB_URL`;
//! - Jira: `jira:PROJ-123`, `https://<site>.atlassian.net/browse/PROJ-123`, or a browse URL on
//!   the origin of `JIRA_BASE_URL` (self-hosted);
//! - Linear: `linear:ENG-42`, `https://linear.app/<team>/issue/ENG-42[/slug]`.
//!
//! Anything else that does not look like a reference (spaces, no `#`, no scheme) is not one: the
//! text is a task ([`parse`] returns `Ok(None)`). Something that looks like a reference but is
//! malformed (`owner/repo#x`, a URL of an unknown host) is an error naming it, so a typo is never
//! silently built as a task.

use crate::IntakeError;

/// Which tracker an issue lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Github,
    Gitlab,
    Jira,
    Linear,
}

impl Source {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Github => "github",
            Source::Gitlab => "gitlab",
            Source::Jira => "jira",
            Source::Linear => "linear",
        }
    }
}

/// One issue, by tracker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IssueRef {
    Github {
        owner: String,
        repo: String,
        number: u64,
    },
    Gitlab {
        project: String,
        iid: u64,
        merge_request: bool,
    },
    Jira {
        key: String,
    },
    Linear {
        id: String,
    },
}

impl IssueRef {
    #[must_use]
    pub fn source(&self) -> Source {
        match self {
            IssueRef::Github { .. } => Source::Github,
            IssueRef::Gitlab { .. } => Source::Gitlab,
            IssueRef::Jira { .. } => Source::Jira,
            IssueRef::Linear { .. } => Source::Linear,
        }
    }

    /// The canonical form recorded in the receipt (`github:owner/repo#12`).
    #[must_use]
    pub fn canonical(&self) -> String {
        match self {
            IssueRef::Github {
                owner,
                repo,
                number,
            } => format!("github:{owner}/{repo}#{number}"),
            IssueRef::Gitlab {
                project,
                iid,
                merge_request,
            } => format!(
                "gitlab:{project}{}{iid}",
                if *merge_request { "!" } else { "#" }
            ),
            IssueRef::Jira { key } => format!("jira:{key}"),
            IssueRef::Linear { id } => format!("linear:{id}"),
        }
    }
}

/// Hosts a user configured: the GitLab and Jira instances (their URLs, from the environment).
#[derive(Debug, Clone, Default)]
pub struct Hosts {
    pub gitlab_url: Option<String>,
    pub jira_base_url: Option<String>,
}

impl Hosts {
    /// `GITLAB_URL` and `JIRA_BASE_URL` of this process.
    #[must_use]
    pub fn from_env() -> Hosts {
        Hosts {
            gitlab_url: loki_core::env::GITLAB_URL.get(),
            jira_base_url: loki_core::env::JIRA_BASE_URL.get(),
        }
    }
}

fn bad(input: &str, why: &str) -> IntakeError {
    IntakeError::BadRef {
        input: input.to_string(),
        why: why.to_string(),
    }
}

fn segment_ok(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn number(input: &str, n: &str) -> Result<u64, IntakeError> {
    n.parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| bad(input, "the issue number must be a positive integer"))
}

fn key_ok(key: &str) -> bool {
    let Some((proj, n)) = key.rsplit_once('-') else {
        return false;
    };
    !proj.is_empty()
        && proj.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && proj.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
}

fn host_of(url: &str) -> Option<&str> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"))?;
    Some(rest.split('/').next().unwrap_or(rest))
}

/// `owner/repo#N`-shaped text: `(path segments, number)`.
fn path_and_number<'a>(input: &str, s: &'a str) -> Result<(Vec<&'a str>, u64), IntakeError> {
    let (path, n) = s
        .rsplit_once('#')
        .or_else(|| s.rsplit_once('!'))
        .ok_or_else(|| bad(input, "expected <path>#<number>"))?;
    let segs: Vec<&str> = path.split('/').collect();
    if segs.len() < 2 || !segs.iter().all(|p| segment_ok(p)) {
        return Err(bad(
            input,
            "expected owner/repo (GitHub) or group/project (GitLab)",
        ));
    }
    Ok((segs, number(input, n)?))
}

/// Parses `input`: `Ok(None)` when it is a task, not a reference.
pub fn parse(input: &str, hosts: &Hosts) -> Result<Option<IssueRef>, IntakeError> {
    let s = input.trim();
    if s.is_empty() || s.contains(char::is_whitespace) {
        return Ok(None);
    }
    if let Some(rest) = s.strip_prefix("github:") {
        let (segs, number) = path_and_number(input, rest)?;
        if segs.len() != 2 {
            return Err(bad(input, "a GitHub repository is owner/repo"));
        }
        return Ok(Some(IssueRef::Github {
            owner: segs[0].to_string(),
            repo: segs[1].to_string(),
            number,
        }));
    }
    if let Some(rest) = s.strip_prefix("gitlab:") {
        let (segs, iid) = path_and_number(input, rest)?;
        return Ok(Some(IssueRef::Gitlab {
            project: segs.join("/"),
            iid,
            merge_request: rest.contains('!') && !rest.contains('#'),
        }));
    }
    if let Some(key) = s.strip_prefix("jira:") {
        return if key_ok(key) {
            Ok(Some(IssueRef::Jira {
                key: key.to_string(),
            }))
        } else {
            Err(bad(input, "a Jira key is PROJECT-123"))
        };
    }
    if let Some(id) = s.strip_prefix("linear:") {
        return if key_ok(id) {
            Ok(Some(IssueRef::Linear { id: id.to_string() }))
        } else {
            Err(bad(input, "a Linear id is TEAM-42"))
        };
    }
    if s.starts_with("https://") || s.starts_with("http://") {
        return parse_url(input, s, hosts).map(Some);
    }
    if s.contains('#') && s.contains('/') && !s.starts_with('#') {
        let (segs, n) = path_and_number(input, s)?;
        return Ok(Some(if segs.len() == 2 {
            IssueRef::Github {
                owner: segs[0].to_string(),
                repo: segs[1].to_string(),
                number: n,
            }
        } else {
            IssueRef::Gitlab {
                project: segs.join("/"),
                iid: n,
                merge_request: false,
            }
        }));
    }
    Ok(None)
}

fn parse_url(input: &str, url: &str, hosts: &Hosts) -> Result<IssueRef, IntakeError> {
    let host = host_of(url).ok_or_else(|| bad(input, "not a URL"))?;
    let path = url
        .split_once("://")
        .and_then(|(_, r)| r.split_once('/'))
        .map_or("", |(_, p)| p);
    let path = path
        .split(['?', '#'])
        .next()
        .unwrap_or(path)
        .trim_end_matches('/');
    let segs: Vec<&str> = path.split('/').collect();
    let same_host = |configured: &Option<String>| {
        configured
            .as_deref()
            .and_then(host_of)
            .is_some_and(|h| h.eq_ignore_ascii_case(host))
    };
    if host.eq_ignore_ascii_case("github.com") {
        if let [owner, repo, kind, n] = segs.as_slice()
            && matches!(*kind, "issues" | "pull")
            && segment_ok(owner)
            && segment_ok(repo)
        {
            return Ok(IssueRef::Github {
                owner: (*owner).to_string(),
                repo: (*repo).to_string(),
                number: number(input, n)?,
            });
        }
        return Err(bad(
            input,
            "a GitHub issue URL is https://github.com/owner/repo/issues/N",
        ));
    }
    let gitlab_host = host.eq_ignore_ascii_case("gitlab.com") || same_host(&hosts.gitlab_url);
    let jira_host =
        host.to_ascii_lowercase().ends_with(".atlassian.net") || same_host(&hosts.jira_base_url);
    // One host may serve both (a company's GitLab and Jira behind one name): the path decides.
    let jira_shaped = segs.contains(&"browse");
    if gitlab_host && !(jira_host && jira_shaped) {
        let dash = segs.iter().position(|s| *s == "-");
        if let Some(d) = dash
            && d >= 2
            && segs.len() == d + 3
            && matches!(segs[d + 1], "issues" | "merge_requests")
            && segs[..d].iter().all(|s| segment_ok(s))
        {
            return Ok(IssueRef::Gitlab {
                project: segs[..d].join("/"),
                iid: number(input, segs[d + 2])?,
                merge_request: segs[d + 1] == "merge_requests",
            });
        }
        return Err(bad(
            input,
            "a GitLab issue URL is https://<host>/group/project/-/issues/N",
        ));
    }
    if jira_host {
        if let Some(i) = segs.iter().position(|s| *s == "browse")
            && let Some(key) = segs.get(i + 1)
            && key_ok(key)
        {
            return Ok(IssueRef::Jira {
                key: (*key).to_string(),
            });
        }
        return Err(bad(
            input,
            "a Jira issue URL is https://<site>/browse/PROJ-123",
        ));
    }
    if host.eq_ignore_ascii_case("linear.app") {
        if let [_team, "issue", id, ..] = segs.as_slice()
            && key_ok(id)
        {
            return Ok(IssueRef::Linear {
                id: (*id).to_string(),
            });
        }
        return Err(bad(
            input,
            "a Linear issue URL is https://linear.app/<team>/issue/TEAM-42",
        ));
    }
    Err(bad(
        input,
        "the host is not GitHub, GitLab (gitlab.com or GITLAB_URL), Jira (*.atlassian.net or JIRA_BASE_URL) or Linear",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Result<Option<IssueRef>, IntakeError> {
        let both = s.contains("both.example.org");
        parse(
            s,
            &Hosts {
                gitlab_url: Some(
                    if both {
                        "https://both.example.org"
                    } else {
                        "https://git.example.org"
                    }
                    .into(),
                ),
                jira_base_url: Some(
                    if both {
                        "https://both.example.org"
                    } else {
                        "https://jira.example.org/"
                    }
                    .into(),
                ),
            },
        )
    }

    #[test]
    fn every_form_parses_to_its_tracker() {
        let cases = [
            ("octo/widgets#12", "github:octo/widgets#12"),
            ("github:octo/widgets#12", "github:octo/widgets#12"),
            (
                "https://github.com/octo/widgets/issues/12",
                "github:octo/widgets#12",
            ),
            (
                "https://github.com/octo/widgets/pull/7/",
                "github:octo/widgets#7",
            ),
            ("grp/sub/proj#3", "gitlab:grp/sub/proj#3"),
            ("gitlab:grp/proj#3", "gitlab:grp/proj#3"),
            (
                "https://gitlab.com/grp/proj/-/issues/3",
                "gitlab:grp/proj#3",
            ),
            (
                "https://git.example.org/a/b/c/-/merge_requests/9",
                "gitlab:a/b/c!9",
            ),
            ("jira:PROJ-123", "jira:PROJ-123"),
            (
                "https://acme.atlassian.net/browse/PROJ-123",
                "jira:PROJ-123",
            ),
            (
                "https://jira.example.org/browse/OPS-7?focus=1",
                "jira:OPS-7",
            ),
            ("https://both.example.org/browse/OPS-8", "jira:OPS-8"),
            ("https://both.example.org/a/b/-/issues/8", "gitlab:a/b#8"),
            ("linear:ENG-42", "linear:ENG-42"),
            (
                "https://linear.app/acme/issue/ENG-42/fix-the-thing",
                "linear:ENG-42",
            ),
        ];
        for (input, want) in cases {
            let got = p(input)
                .unwrap()
                .unwrap_or_else(|| panic!("{input}: not a ref"));
            assert_eq!(got.canonical(), want, "{input}");
        }
    }

    #[test]
    fn tasks_are_not_refs_and_malformed_refs_are_errors_naming_the_input() {
        for task in ["fix the parser", "refactor", "add #3 support", "x"] {
            assert_eq!(p(task).unwrap(), None, "{task}");
        }
        for bad in [
            "octo/widgets#x",
            "octo/widgets#0",
            "../etc#1",
            "jira:lowercase",
            "linear:42",
            "https://evil.example.com/octo/widgets/issues/1",
            "https://github.com/octo/widgets/commits/1",
            "github:a/b/c#1",
        ] {
            let e = p(bad).unwrap_err().to_string();
            assert!(e.contains(bad), "{bad}: {e}");
        }
    }
}
