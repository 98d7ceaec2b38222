//! Comparing entries: which keys select, exclude, change outcomes or load code, and what a
//! change of each means.

use std::collections::{BTreeMap, BTreeSet};

use super::Entry;
use crate::testcmd::runs::Hit;

/// Parents under which keys are not about which tests run or how they pass.
const IGNORED_PARENTS: &[&str] = &[
    "coverage",
    "typecheck",
    "server",
    "build",
    "optimizeDeps",
    "css",
    "plugins",
    "deps",
    "benchmark",
    "browser",
    "preview",
    "worker",
    "ssr",
    "esbuild",
    "json",
    "environments",
    "experimental",
    "poolOptions",
    "sequence",
    "chaiConfig",
    "diff",
    "expect",
    "fakeTimers",
    "snapshotFormat",
    "globals",
    "env",
    "testEnvironmentOptions",
    "reporterOptions",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Replacing the default or losing entries narrows.
    Select,
    /// Losing entries narrows (adding widens, and unset means none).
    Keep,
    /// Setting or changing it narrows.
    Changed,
    /// Gaining entries hides tests.
    Ignore,
    /// Turning it on weakens: why.
    On(&'static str),
    /// Gaining entries loads code: what it is.
    Loads(&'static str),
    /// Gaining or changing entries swaps modules or values.
    Mapping,
}

fn kind_of(key: &str) -> Option<Kind> {
    Some(match key {
        "testMatch" | "testRegex" | "roots" | "include" => Kind::Select,
        "includeSource" | "projects" | "workspace" => Kind::Keep,
        "dir"
        | "root"
        | "rootDir"
        | "testNamePattern"
        | "shard"
        | "bail"
        | "retry"
        | "testFailureExitCode"
        | "testResultsProcessor"
        | "testRunner"
        | "runner"
        | "testSequencer"
        | "snapshotResolver"
        | "resolver"
        | "filter"
        | "testEnvironment"
        | "environment" => Kind::Changed,
        "exclude" | "testPathIgnorePatterns" | "modulePathIgnorePatterns" => Kind::Ignore,
        "passWithNoTests" => Kind::On("a run that finds no tests passes"),
        "allowOnly" => {
            Kind::On("a test marked `.only` no longer fails the run, so it can silence the rest")
        }
        "dangerouslyIgnoreUnhandledErrors" => Kind::On("unhandled errors no longer fail the run"),
        "update" | "updateSnapshot" => {
            Kind::On("snapshots are rewritten to what the code produces")
        }
        "setupFiles" | "setupFilesAfterEnv" | "setupFilesAfterEach" | "globalSetup" => {
            Kind::Loads("a setup file that runs before the tests")
        }
        "snapshotSerializers" => {
            Kind::Loads("a snapshot serializer, which decides what snapshots compare")
        }
        "reporters" | "reporter" => Kind::Loads("a custom reporter, which can rewrite the results"),
        "transform" => Kind::Loads("a local transform, which rewrites the code before it runs"),
        "moduleNameMapper" | "alias" | "define" | "moduleDirectories" | "modulePaths" => {
            Kind::Mapping
        }
        _ => return None,
    })
}

const BUILTIN_REPORTERS: &[&str] = &[
    "default",
    "verbose",
    "dot",
    "json",
    "junit",
    "github-actions",
    "summary",
    "basic",
    "tap",
    "tap-flat",
    "hanging-process",
    "html",
    "blob",
    "jest-junit",
    "hanging",
    "tree",
];
const BUILTIN_ENVIRONMENTS: &[&str] = &[
    "node",
    "jsdom",
    "happy-dom",
    "edge-runtime",
    "jest-environment-node",
    "jest-environment-jsdom",
    "jest-environment-jsdom-global",
];

fn in_test_context(path: &[String]) -> bool {
    let parents = &path[..path.len().saturating_sub(1)];
    if parents
        .iter()
        .any(|p| IGNORED_PARENTS.contains(&p.as_str()))
    {
        return false;
    }
    let key = path.last().map_or("", String::as_str);
    match key {
        // `alias` belongs to `resolve` (vite) or `test`; `define` to the top level.
        "alias" => parents
            .last()
            .is_none_or(|p| p == "resolve" || p == "test" || p == "[]"),
        "define" => parents.iter().all(|p| p == "[]" || p == "test"),
        // `include`/`exclude`/`root`/`dir` mean test selection only under `test` (vitest) or a
        // project entry; at the top of a vite config `root` is the app root.
        "include" | "exclude" | "dir" | "root" => {
            parents.last().is_some_and(|p| p == "test" || p == "[]")
        }
        _ => true,
    }
}

fn local(s: &str) -> bool {
    s.starts_with('.') || s.starts_with('/') || s.starts_with("<rootDir>")
}

/// What changed between two configs' entries, as findings. `file` names the file in details.
pub fn changes(file: &str, base: &[Entry], head: &[Entry]) -> Vec<Hit> {
    let (b, h) = (index(base), index(head));
    let mut out = Vec::new();
    let keys: BTreeSet<&String> = b.keys().chain(h.keys()).collect();
    for k in keys {
        let (be, he) = (b.get(k), h.get(k));
        let Some(any) = he.or(be) else { continue };
        let Some(key) = any.path.last() else { continue };
        let Some(kind) = kind_of(key) else { continue };
        if !in_test_context(&any.path) {
            continue;
        }
        let pair = Pair::new(key, be, he);
        let what = match kind {
            Kind::Select => pair.select(),
            Kind::Keep => pair.keep(),
            Kind::Changed => pair.changed(),
            Kind::Ignore => pair.ignores(),
            Kind::On(why) => pair.turned_on(why),
            Kind::Loads(what) => pair.loads(what),
            Kind::Mapping => pair.mapping(k, &b, &h),
        };
        if let Some(what) = what {
            out.push(Hit {
                line: he.map(|e| e.line),
                detail: format!("{file} `{k}` {what}"),
            });
        }
    }
    out
}

/// A config's entries by dotted path.
fn index(es: &[Entry]) -> BTreeMap<String, Entry> {
    let mut m: BTreeMap<String, Entry> = BTreeMap::new();
    for e in es {
        let k = e.path.join(".");
        match m.get_mut(&k) {
            // `projects[].include` from several projects: pooled.
            Some(x) => {
                x.strings.extend(e.strings.iter().cloned());
                x.text = format!("{} {}", x.text, e.text);
            }
            None => {
                m.insert(k, e.clone());
            }
        }
    }
    m
}

/// One key's entry in the base and in the head, with the strings each holds. Each method judges
/// the key as one [`Kind`] and says what the change means, if it is a finding.
struct Pair<'a> {
    key: &'a str,
    base: Option<&'a Entry>,
    head: Option<&'a Entry>,
    base_strings: BTreeSet<String>,
    head_strings: BTreeSet<String>,
}

impl<'a> Pair<'a> {
    fn new(key: &'a str, base: Option<&'a Entry>, head: Option<&'a Entry>) -> Self {
        let strings = |e: Option<&Entry>| {
            e.map(|e| e.strings.iter().cloned().collect::<BTreeSet<_>>())
                .unwrap_or_default()
        };
        Pair {
            key,
            base,
            head,
            base_strings: strings(base),
            head_strings: strings(head),
        }
    }

    /// Strings the base had and the head does not.
    fn lost(&self) -> Vec<&String> {
        self.base_strings.difference(&self.head_strings).collect()
    }

    /// Strings the head has and the base did not.
    fn added(&self) -> Vec<&String> {
        self.head_strings.difference(&self.base_strings).collect()
    }

    /// [`Kind::Select`]: setting it replaces the default; losing entries narrows.
    fn select(&self) -> Option<String> {
        match (self.base, self.head) {
            (None, Some(h)) => Some(format!(
                "set to {}, replacing the runner's default test selection",
                h.text
            )),
            (Some(b), Some(h)) if b.text != h.text => {
                let lost = self.lost();
                if !lost.is_empty() {
                    Some(format!("no longer includes {}", show(&lost)))
                } else if self.base_strings.is_empty() && self.head_strings.is_empty() {
                    Some(format!("changed from {} to {}", b.text, h.text))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// [`Kind::Keep`]: removing it or losing entries narrows.
    fn keep(&self) -> Option<String> {
        let lost = self.lost();
        if self.base.is_some() && self.head.is_none() {
            Some("removed".into())
        } else if !lost.is_empty() && self.head.is_some() {
            Some(format!("no longer includes {}", show(&lost)))
        } else {
            None
        }
    }

    /// [`Kind::Changed`]: any new value narrows, except a built-in environment, `bail` turned
    /// off and fewer retries (none of these can hide a failure).
    fn changed(&self) -> Option<String> {
        let h = self.head?;
        if self.base.is_some_and(|b| b.text == h.text) {
            return None;
        }
        let is_builtin_env = matches!(self.key, "testEnvironment" | "environment")
            && self
                .head_strings
                .iter()
                .all(|s| BUILTIN_ENVIRONMENTS.contains(&s.as_str()));
        let off =
            self.key == "bail" && matches!(h.text.as_str(), "0" | "false" | "undefined" | "null");
        let lower_retry = self.key == "retry"
            && h.text.parse::<u64>().unwrap_or(0)
                <= self
                    .base
                    .and_then(|b| b.text.parse::<u64>().ok())
                    .unwrap_or(0);
        if is_builtin_env || off || lower_retry {
            return None;
        }
        let was = self
            .base
            .map_or_else(|| "unset".to_owned(), |b| b.text.clone());
        Some(format!("changed to {} (was {was})", h.text))
    }

    /// [`Kind::Ignore`]: new entries hide tests.
    fn ignores(&self) -> Option<String> {
        let added = self.added();
        (!added.is_empty()).then(|| format!("now ignores {}", show(&added)))
    }

    /// [`Kind::On`]: turning it on weakens the run for `why`.
    fn turned_on(&self, why: &str) -> Option<String> {
        let on = |e: Option<&Entry>| e.is_some_and(|e| e.text == "true");
        (on(self.head) && !on(self.base)).then(|| format!("turned on: {why}"))
    }

    /// [`Kind::Loads`]: a new entry loads `what`, unless it is a built-in reporter or a transform
    /// from a package (only local code is the change's own).
    fn loads(&self, what: &str) -> Option<String> {
        let new: Vec<&String> = self
            .added()
            .into_iter()
            .filter(|s| match self.key {
                "reporters" | "reporter" => !BUILTIN_REPORTERS.contains(&s.as_str()),
                "transform" => local(s),
                _ => true,
            })
            .collect();
        (!new.is_empty()).then(|| format!("adds {}: {what}", show(&new)))
    }

    /// [`Kind::Mapping`] at dotted path `k`, with both configs' entries `b` and `h`.
    fn mapping(
        &self,
        k: &str,
        b: &BTreeMap<String, Entry>,
        h: &BTreeMap<String, Entry>,
    ) -> Option<String> {
        // Children (`alias.@`, `define.__DEV__`) are compared one by one; a mapping
        // written as a variable or an array is compared by its strings.
        let prefix = format!("{k}.");
        let kids = |m: &BTreeMap<String, Entry>| -> BTreeMap<String, String> {
            m.iter()
                .filter(|(p, _)| p.starts_with(&prefix) && !p[prefix.len()..].contains('.'))
                .map(|(p, e)| (p[prefix.len()..].to_owned(), e.text.clone()))
                .collect()
        };
        let (bk, hk) = (kids(b), kids(h));
        let changed: Vec<String> = hk
            .iter()
            .filter(|(c, v)| bk.get(*c) != Some(*v))
            .map(|(c, v)| format!("`{c}` → {v}"))
            .collect();
        let added = self.added();
        if !changed.is_empty() {
            Some(format!(
                "maps {}: it can swap the module under test or its constants",
                changed.join(", ")
            ))
        } else if hk.is_empty() && !added.is_empty() {
            Some(format!(
                "adds {}: it can swap the module under test or its constants",
                show(&added)
            ))
        } else if hk.is_empty()
            && let Some(h) = self.head
            && self.base.is_none_or(|b| b.text != h.text)
            && !matches!(h.text.trim(), "" | "{}" | "[]")
        {
            // An array of `{ find: /regex/, replacement: path }`, or names only:
            // no string to show, the mapping itself changed.
            Some(format!(
                "set to `{}`: it can swap the module under test or its constants",
                loki_syntax::ast::quote(&h.text)
            ))
        } else {
            None
        }
    }
}

/// Strings quoted and joined for a detail.
fn show(v: &[&String]) -> String {
    v.iter()
        .map(|s| format!("'{s}'"))
        .collect::<Vec<_>>()
        .join(", ")
}
