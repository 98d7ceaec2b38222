//! The offline playground: a bundled crashing program and its built-in fallback patch.
//!
//! `loki fix --demo` writes the example into a fresh directory ([`Demo::script`]), records its
//! crash with [`crate::record::observe`] ([`Demo::crash`]), and heals it. With a model configured the model writes the patch;
//! without one, [`fallback_for`] supplies it — but only for a file whose bytes are exactly the
//! bundled example's (checked by SHA-256), so the fallback can never be applied to user code.
//! `loki fix --demo --browser` does the same with a web page ([`write_web`]) checked in headless
//! Chromium ([`crate::web`]).

use std::path::{Path, PathBuf};

use loki_core::RunId;
use loki_core::layout::Repo;
use sha2::{Digest, Sha256};

use crate::proposal::Proposal;
use crate::web::PageSpec;
use crate::{HealError, Incident, ObserveOptions, Observed};

/// The Python example: the average of an empty list divides by zero.
pub const PYTHON_FILE: &str = "stats.py";
pub const PYTHON_SOURCE: &str = r#""""Order statistics for the loki healing demo."""


def average(values):
    return sum(values) / len(values)


def report(orders):
    totals = [o["total"] for o in orders if o["status"] == "paid"]
    print(f"paid orders: {len(totals)}, average total: {average(totals):.2f}")


if __name__ == "__main__":
    report([{"total": 12.5, "status": "refunded"}, {"total": 8.0, "status": "open"}])
"#;

/// The Node example (used when Python is not installed): the same bug.
pub const NODE_FILE: &str = "stats.js";
pub const NODE_SOURCE: &str = r#"// Order statistics for the loki healing demo.
function average(values) {
  if (values.length === 0) throw new RangeError("average of no values");
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function report(orders) {
  const totals = orders.filter((o) => o.status === "paid").map((o) => o.total);
  console.log(`paid orders: ${totals.length}, average total: ${average(totals).toFixed(2)}`);
}

report([{ total: 12.5, status: "refunded" }, { total: 8.0, status: "open" }]);
"#;

/// The web example (`loki fix --demo --browser`): a page served from [`WEB_DIR`] whose script
/// throws on load with the same bug.
pub const WEB_DIR: &str = "site";
pub const WEB_PAGE: &str = "site/index.html";
pub const WEB_FILE: &str = "site/stats.js";
pub const WEB_HTML: &str = r#"<!doctype html>
<meta charset="utf-8">
<title>Order statistics</title>
<h1>Order statistics</h1>
<p id="report">loading…</p>
<script src="stats.js"></script>
"#;
pub const WEB_SOURCE: &str = r#"// Order statistics for the loki healing demo (in the browser).
function average(values) {
  if (values.length === 0) throw new RangeError("average of no values");
  return values.reduce((a, b) => a + b, 0) / values.length;
}

function report(orders) {
  const totals = orders.filter((o) => o.status === "paid").map((o) => o.total);
  document.getElementById("report").textContent =
    `paid orders: ${totals.length}, average total: ${average(totals).toFixed(2)}`;
}

report([{ total: 12.5, status: "refunded" }, { total: 8.0, status: "open" }]);
"#;

/// Writes the web example into `dir` (a repository of its own with an empty `.git/`); the page
/// is served from `<dir>/site` at `/index.html`.
pub fn write_web(dir: &Path) -> Result<PathBuf, HealError> {
    std::fs::create_dir_all(dir.join(".git")).map_err(|e| HealError::io("create", dir, e))?;
    std::fs::create_dir_all(dir.join(WEB_DIR)).map_err(|e| HealError::io("create", dir, e))?;
    loki_core::fs::write_atomic(&dir.join(WEB_PAGE), WEB_HTML.as_bytes())?;
    loki_core::fs::write_atomic(&dir.join(WEB_FILE), WEB_SOURCE.as_bytes())?;
    Ok(dir.join(WEB_DIR))
}

/// The URL the web example is checked at (served from [`WEB_DIR`]).
pub const WEB_URL: &str = "/index.html";

/// The bundled example, written into a fresh temporary directory that is a repository of its
/// own, ready to be observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Demo {
    /// The directory as made (kept after the demo, for the user to look at).
    pub dir: PathBuf,
    pub repo: Repo,
    /// The file that crashes, relative to `dir`.
    pub file: &'static str,
    /// The command that runs it (the script's interpreter and file; empty for the web page,
    /// which loki's page check loads).
    pub command: Vec<String>,
}

/// Which interpreter the demo uses: Python when `has("python3")`, else Node when `has("node")`.
#[must_use]
pub fn choose(has: &dyn Fn(&str) -> bool) -> Option<(&'static str, &'static str, &'static str)> {
    if has("python3") {
        Some(("python3", PYTHON_FILE, PYTHON_SOURCE))
    } else if has("node") {
        Some(("node", NODE_FILE, NODE_SOURCE))
    } else {
        None
    }
}

/// A recorded crash of the demo.
#[derive(Debug)]
pub struct Crash {
    pub run_id: RunId,
    pub incident: Box<Incident>,
    pub run_dir: PathBuf,
}

impl Demo {
    /// The script example (`loki fix --demo`), for the interpreter [`choose`] finds with `has`.
    ///
    /// # Errors
    /// [`HealError::NoInterpreter`] without Python or Node; the directory cannot be written.
    pub fn script(has: &dyn Fn(&str) -> bool) -> Result<Demo, HealError> {
        let dir = std::env::temp_dir().join(format!("loki-demo-heal-{}", RunId::new()));
        let Some((interp, file, source)) = choose(has) else {
            return Err(HealError::NoInterpreter);
        };
        std::fs::create_dir_all(dir.join(".git")).map_err(|e| HealError::io("create", &dir, e))?;
        loki_core::fs::write_atomic(&dir.join(file), source.as_bytes())?;
        Ok(Demo {
            repo: Repo::discover(&dir)?,
            dir,
            file,
            command: vec![interp.to_string(), file.to_string()],
        })
    }

    /// The web example (`loki fix --demo --browser`, [`write_web`]).
    ///
    /// # Errors
    /// The directory cannot be written.
    pub fn page() -> Result<Demo, HealError> {
        let dir = std::env::temp_dir().join(format!("loki-demo-web-{}", RunId::new()));
        write_web(&dir)?;
        Ok(Demo {
            repo: Repo::discover(&dir)?,
            dir,
            file: WEB_FILE,
            command: Vec::new(),
        })
    }

    /// What observing the script example runs (seed 0, so its reproduction is fixed); `argv` is
    /// loki's command line.
    #[must_use]
    pub fn script_options(&self, argv: Vec<String>) -> ObserveOptions {
        ObserveOptions {
            command: self.command.clone(),
            cwd: self.repo.root.clone(),
            seed: Some(0),
            timeout: crate::record::DEFAULT_TIMEOUT,
            argv,
            clean_env: false,
            browser: None,
        }
    }

    /// What observing the web example runs: the page check of this loki (`exe`) on the served
    /// site ([`crate::web::page_options`]).
    ///
    /// # Errors
    /// No browser to check the page with.
    pub fn page_options(&self, exe: &Path, argv: Vec<String>) -> Result<ObserveOptions, HealError> {
        let site = self.dir.join(WEB_DIR);
        let page = PageSpec {
            cwd: &self.repo.root,
            url: WEB_URL,
            serve: Some(&site),
            steps: None,
            server: &[],
        };
        let timeout = crate::record::DEFAULT_TIMEOUT;
        crate::web::page_options(&page, exe, argv, Some(0), timeout, false)
    }

    /// Observes the example with `opts`; it must crash.
    ///
    /// # Errors
    /// The observation failed, or the example did not crash ([`HealError::DemoDidNotCrash`]).
    pub fn crash(&self, opts: &ObserveOptions) -> Result<Crash, HealError> {
        match crate::record::observe(&self.repo, opts)? {
            Observed::Crashed {
                run_id,
                incident,
                run_dir,
                ..
            } => Ok(Crash {
                run_id,
                incident,
                run_dir,
            }),
            _ => Err(HealError::DemoDidNotCrash {
                what: if opts.browser.is_some() {
                    "bundled web page"
                } else {
                    "bundled example"
                },
            }),
        }
    }

    /// The built-in patch of the example as it is on disk ([`fallback_for`]).
    ///
    /// # Errors
    /// The file cannot be read, or its bytes are no longer the bundled example's.
    pub fn fallback(&self) -> Result<Proposal, HealError> {
        let path = self.dir.join(self.file);
        let bytes = std::fs::read(&path).map_err(|e| HealError::io("read", &path, e))?;
        fallback_for(self.file, &bytes).ok_or(HealError::DemoChanged)
    }
}

fn sha(b: &[u8]) -> [u8; 32] {
    Sha256::digest(b).into()
}

/// The built-in patch, only for the bundled example's exact bytes at its exact path.
#[must_use]
pub fn fallback_for(rel: &str, bytes: &[u8]) -> Option<Proposal> {
    let explanation = "Return 0.0 for an empty list instead of dividing by its length.";
    let root_cause = "average() divides by len(values); with no paid orders the list is empty (division by zero).";
    if rel == PYTHON_FILE && sha(bytes) == sha(PYTHON_SOURCE.as_bytes()) {
        return Some(Proposal {
            file: PYTHON_FILE.into(),
            root_cause: root_cause.into(),
            explanation: explanation.into(),
            original_snippet: "    return sum(values) / len(values)\n".into(),
            replacement_snippet:
                "    if not values:\n        return 0.0\n    return sum(values) / len(values)\n"
                    .into(),
        });
    }
    if rel == WEB_FILE && sha(bytes) == sha(WEB_SOURCE.as_bytes()) {
        return Some(Proposal {
            file: WEB_FILE.into(),
            root_cause: "average() throws on an empty list; with no paid orders the list is empty, so the page's script dies on load."
                .into(),
            explanation: "Return 0 for an empty list instead of throwing.".into(),
            original_snippet:
                "  if (values.length === 0) throw new RangeError(\"average of no values\");\n"
                    .into(),
            replacement_snippet: "  if (values.length === 0) return 0;\n".into(),
        });
    }
    if rel == NODE_FILE && sha(bytes) == sha(NODE_SOURCE.as_bytes()) {
        return Some(Proposal {
            file: NODE_FILE.into(),
            root_cause: "average() throws on an empty list; with no paid orders the list is empty."
                .into(),
            explanation: "Return 0 for an empty list instead of throwing.".into(),
            original_snippet:
                "  if (values.length === 0) throw new RangeError(\"average of no values\");\n"
                    .into(),
            replacement_snippet: "  if (values.length === 0) return 0;\n".into(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fallback_is_only_for_the_bundled_bytes() {
        assert!(fallback_for(PYTHON_FILE, PYTHON_SOURCE.as_bytes()).is_some());
        assert!(fallback_for(NODE_FILE, NODE_SOURCE.as_bytes()).is_some());
        let edited = PYTHON_SOURCE.replace("demo", "app");
        assert!(fallback_for(PYTHON_FILE, edited.as_bytes()).is_none());
        assert!(fallback_for("src/stats.py", PYTHON_SOURCE.as_bytes()).is_none());
        assert!(fallback_for(NODE_FILE, PYTHON_SOURCE.as_bytes()).is_none());
        assert!(fallback_for(WEB_FILE, WEB_SOURCE.as_bytes()).is_some());
        assert!(fallback_for(WEB_FILE, NODE_SOURCE.as_bytes()).is_none());
    }

    #[test]
    fn the_fallback_patch_applies_to_the_bundled_source() {
        for (file, src) in [
            (PYTHON_FILE, PYTHON_SOURCE),
            (NODE_FILE, NODE_SOURCE),
            (WEB_FILE, WEB_SOURCE),
        ] {
            let p = fallback_for(file, src.as_bytes()).unwrap();
            let r = loki_patch::search_replace(src, &p.original_snippet, &p.replacement_snippet)
                .unwrap();
            assert_eq!(
                r.rung,
                loki_patch::Rung::Exact,
                "{file}: the snippet is copied exactly"
            );
            assert_ne!(r.text, src);
        }
    }

    #[test]
    fn a_demo_is_written_into_a_repository_of_its_own() {
        let d = Demo::script(&|p| p == "node").unwrap();
        assert_eq!(d.file, NODE_FILE);
        assert_eq!(d.command, ["node", NODE_FILE]);
        assert!(d.dir.join(".git").is_dir());
        let proposal = d.fallback().unwrap();
        assert_eq!(proposal.file, NODE_FILE);
        assert_eq!(d.script_options(Vec::new()).seed, Some(0));
        std::fs::remove_dir_all(&d.dir).unwrap();
        assert!(matches!(
            Demo::script(&|_| false),
            Err(HealError::NoInterpreter)
        ));
    }

    #[test]
    fn python_is_preferred_then_node() {
        assert_eq!(choose(&|_| true).unwrap().0, "python3");
        assert_eq!(choose(&|p| p == "node").unwrap().0, "node");
        assert_eq!(choose(&|_| false), None);
    }
}
