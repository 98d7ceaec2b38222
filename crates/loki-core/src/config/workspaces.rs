//! Workspaces: groups of repositories built with one task (`loki workspace`), declared in the
//! repository's `loki.toml`:
//!
//! ```toml
//! [workspaces.shop]
//! repos = ["../api", { path = "../web", setup = "npm ci", after = "npm run build" }]
//! integration = "./run-e2e.sh"
//! ```
//!
//! - `repos` (required, non-empty): each a path, or a table with `path` (required), `setup` (a
//!   shell command run in the repository before its build run) and `after` (a shell command run in
//!   its integration checkout before the integration command). A relative path is relative to the
//!   directory of `loki.toml`. Two repositories may not share a name (the last path segment):
//!   the name is the directory of its checkout in the integration step.
//! - `integration` (optional): a shell command run in a scratch directory that holds a checkout of
//!   every repository at its run's head, each under its name.
//!
//! Refusals: anything else (an unknown key, an empty `repos`, a repository without a path) is an
//! error naming the workspace and the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::CoreError;

/// The top-level key of the section.
pub const SECTION: &str = "workspaces";

/// One repository of a workspace.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct WorkspaceRepo {
    /// The last segment of its path: its directory in the integration checkout.
    pub name: String,
    /// Resolved against the directory of `loki.toml`.
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setup: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// A workspace, as declared.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Workspace {
    pub name: String,
    pub repos: Vec<WorkspaceRepo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integration: Option<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawRepo {
    Path(String),
    Full(FullRepo),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FullRepo {
    path: String,
    setup: Option<String>,
    after: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWorkspace {
    repos: Vec<RawRepo>,
    integration: Option<String>,
}

/// The workspaces of `<root>/loki.toml`, by name (none when the file or section is absent).
pub fn load(root: &Path) -> Result<BTreeMap<String, Workspace>, CoreError> {
    let file = root.join("loki.toml");
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(CoreError::io("read", &file, e)),
    };
    parse(root, &file, &text)
}

/// [`load`] on the text of `file`, whose paths are relative to `root`.
pub fn parse(
    root: &Path,
    file: &Path,
    text: &str,
) -> Result<BTreeMap<String, Workspace>, CoreError> {
    let bad = |message: String| CoreError::Config {
        source_name: file.display().to_string(),
        line: None,
        message,
    };
    let mut table: toml::Table =
        toml::from_str(text).map_err(|e| bad(format!("not valid TOML: {}", e.message())))?;
    let Some(section) = table.remove(SECTION) else {
        return Ok(BTreeMap::new());
    };
    let raw: BTreeMap<String, RawWorkspace> = section
        .try_into()
        .map_err(|e: toml::de::Error| bad(format!("[{SECTION}]: {}", e.message())))?;
    let mut out = BTreeMap::new();
    for (name, w) in raw {
        if w.repos.is_empty() {
            return Err(bad(format!(
                "[{SECTION}.{name}]: repos is empty; list the repositories it builds"
            )));
        }
        let mut repos: Vec<WorkspaceRepo> = Vec::new();
        for r in w.repos {
            let (path, setup, after) = match r {
                RawRepo::Path(p) => (p, None, None),
                RawRepo::Full(f) => (f.path, f.setup, f.after),
            };
            let full = root.join(path.trim());
            // The last named directory: `.` is the root's own name, `../api` is `api`.
            let mut names: Vec<String> = Vec::new();
            for c in full.components() {
                match c {
                    std::path::Component::Normal(n) => names.push(n.to_string_lossy().into_owned()),
                    std::path::Component::ParentDir => {
                        names.pop();
                    }
                    _ => {}
                }
            }
            let repo_name = names.pop().unwrap_or_default();
            if repo_name.is_empty() {
                return Err(bad(format!(
                    "[{SECTION}.{name}]: {path:?} names no repository directory"
                )));
            }
            if repos.iter().any(|x| x.name == repo_name) {
                return Err(bad(format!(
                    "[{SECTION}.{name}]: two repositories are named {repo_name:?}; their checkouts would collide"
                )));
            }
            repos.push(WorkspaceRepo {
                name: repo_name,
                path: full,
                setup,
                after,
            });
        }
        out.insert(
            name.clone(),
            Workspace {
                name,
                repos,
                integration: w.integration,
            },
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workspace_has_repos_as_paths_or_tables_and_an_integration() {
        let root = Path::new("/r");
        let ws = parse(
            root,
            Path::new("/r/loki.toml"),
            "[run]\ncap_s = 5\n[workspaces.shop]\nrepos = [\"../api\", { path = \"../web\", setup = \"make\" }]\nintegration = \"./e2e.sh\"\n",
        )
        .unwrap();
        let shop = &ws["shop"];
        assert_eq!(shop.repos[0].name, "api");
        assert_eq!(shop.repos[0].path, Path::new("/r/../api"));
        let here = parse(
            root,
            Path::new("/r/loki.toml"),
            "[workspaces.a]\nrepos = [\".\"]\n",
        )
        .unwrap();
        assert_eq!(here["a"].repos[0].name, "r");
        assert_eq!(shop.repos[1].setup.as_deref(), Some("make"));
        assert_eq!(shop.integration.as_deref(), Some("./e2e.sh"));
    }

    #[test]
    fn bad_workspaces_are_refused_by_name() {
        let f = Path::new("/r/loki.toml");
        for (text, says) in [
            ("[workspaces.a]\nrepos = []\n", "repos is empty"),
            (
                "[workspaces.a]\nrepos = [\"x\"]\nintegrate = \"y\"\n",
                "unknown field",
            ),
            (
                "[workspaces.a]\nrepos = [\"../x\", \"y/x\"]\n",
                "two repositories",
            ),
            (
                "[workspaces.a]\nrepos = [{ setup = \"y\" }]\n",
                "workspaces",
            ),
        ] {
            let e = parse(Path::new("/r"), f, text).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
