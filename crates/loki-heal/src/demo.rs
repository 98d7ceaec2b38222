//! The offline playground: a bundled crashing program and its built-in fallback patch.
//!
//! `loki fix --demo` writes the example into a fresh directory, records its crash with
//! [`crate::record::observe`], and heals it. With a model configured the model writes the patch;
//! without one, [`fallback_for`] supplies it — but only for a file whose bytes are exactly the
//! bundled example's (checked by SHA-256), so the fallback can never be applied to user code.
//! `loki fix --demo --browser` does the same with a web page ([`write_web`]) checked in headless
//! Chromium ([`crate::web`]).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::HealError;
use crate::proposal::Proposal;

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

/// The bundled example chosen for this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Demo {
    pub dir: PathBuf,
    pub file: &'static str,
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

/// Writes the example into `dir` (made a repository of its own with an empty `.git/`).
pub fn write(dir: &Path, has: &dyn Fn(&str) -> bool) -> Result<Option<Demo>, HealError> {
    let Some((interp, file, source)) = choose(has) else {
        return Ok(None);
    };
    std::fs::create_dir_all(dir.join(".git")).map_err(|e| HealError::io("create", dir, e))?;
    loki_core::fs::write_atomic(&dir.join(file), source.as_bytes())?;
    Ok(Some(Demo {
        dir: dir.to_path_buf(),
        file,
        command: vec![interp.to_string(), file.to_string()],
    }))
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
    fn python_is_preferred_then_node() {
        assert_eq!(choose(&|_| true).unwrap().0, "python3");
        assert_eq!(choose(&|p| p == "node").unwrap().0, "node");
        assert_eq!(choose(&|_| false), None);
    }
}
