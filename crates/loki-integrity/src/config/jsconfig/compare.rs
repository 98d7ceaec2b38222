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
    let index = |es: &[Entry]| -> BTreeMap<String, Entry> {
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
    };
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
        let line = he.map(|e| e.line);
        let mut push = |what: String| {
            out.push(Hit {
                line,
                detail: format!("{file} `{k}` {what}"),
            });
        };
        let strs = |e: Option<&Entry>| {
            e.map(|e| e.strings.iter().cloned().collect::<BTreeSet<_>>())
                .unwrap_or_default()
        };
        let (bs, hs) = (strs(be), strs(he));
        let lost: Vec<&String> = bs.difference(&hs).collect();
        let added: Vec<&String> = hs.difference(&bs).collect();
        let show = |v: &[&String]| {
            v.iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match kind {
            Kind::Select => match (be, he) {
                (None, Some(h)) => push(format!(
                    "set to {}, replacing the runner's default test selection",
                    h.text
                )),
                (Some(b), Some(h)) if b.text != h.text => {
                    if !lost.is_empty() {
                        push(format!("no longer includes {}", show(&lost)));
                    } else if bs.is_empty() && hs.is_empty() {
                        push(format!("changed from {} to {}", b.text, h.text));
                    }
                }
                _ => {}
            },
            Kind::Keep => {
                if be.is_some() && he.is_none() {
                    push("removed".into());
                } else if !lost.is_empty() && he.is_some() {
                    push(format!("no longer includes {}", show(&lost)));
                }
            }
            Kind::Changed => {
                let Some(h) = he else { continue };
                if be.is_some_and(|b| b.text == h.text) {
                    continue;
                }
                let is_builtin_env = matches!(key.as_str(), "testEnvironment" | "environment")
                    && hs
                        .iter()
                        .all(|s| BUILTIN_ENVIRONMENTS.contains(&s.as_str()));
                let off = key == "bail"
                    && matches!(h.text.as_str(), "0" | "false" | "undefined" | "null");
                let lower_retry = key == "retry"
                    && h.text.parse::<u64>().unwrap_or(0)
                        <= be.and_then(|b| b.text.parse::<u64>().ok()).unwrap_or(0);
                if is_builtin_env || off || lower_retry {
                    continue;
                }
                let was = be.map_or_else(|| "unset".to_owned(), |b| b.text.clone());
                push(format!("changed to {} (was {was})", h.text));
            }
            Kind::Ignore => {
                if !added.is_empty() {
                    push(format!("now ignores {}", show(&added)));
                }
            }
            Kind::On(why) => {
                let on = |e: Option<&Entry>| e.is_some_and(|e| e.text == "true");
                if on(he) && !on(be) {
                    push(format!("turned on: {why}"));
                }
            }
            Kind::Loads(what) => {
                let new: Vec<&String> = added
                    .iter()
                    .copied()
                    .filter(|s| match key.as_str() {
                        "reporters" | "reporter" => !BUILTIN_REPORTERS.contains(&s.as_str()),
                        "transform" => local(s),
                        _ => true,
                    })
                    .collect();
                if !new.is_empty() {
                    push(format!("adds {}: {what}", show(&new)));
                }
            }
            Kind::Mapping => {
                // Children (`alias.@`, `define.__DEV__`) are compared one by one; a mapping
                // written as a variable or an array is compared by its strings.
                let prefix = format!("{k}.");
                let kids = |m: &BTreeMap<String, Entry>| -> BTreeMap<String, String> {
                    m.iter()
                        .filter(|(p, _)| p.starts_with(&prefix) && !p[prefix.len()..].contains('.'))
                        .map(|(p, e)| (p[prefix.len()..].to_owned(), e.text.clone()))
                        .collect()
                };
                let (bk, hk) = (kids(&b), kids(&h));
                let changed: Vec<String> = hk
                    .iter()
                    .filter(|(c, v)| bk.get(*c) != Some(*v))
                    .map(|(c, v)| format!("`{c}` → {v}"))
                    .collect();
                if !changed.is_empty() {
                    push(format!(
                        "maps {}: it can swap the module under test or its constants",
                        changed.join(", ")
                    ));
                } else if hk.is_empty() && !added.is_empty() {
                    push(format!(
                        "adds {}: it can swap the module under test or its constants",
                        show(&added)
                    ));
                } else if hk.is_empty()
                    && let Some(h) = he
                    && be.is_none_or(|b| b.text != h.text)
                    && !matches!(h.text.trim(), "" | "{}" | "[]")
                {
                    // An array of `{ find: /regex/, replacement: path }`, or names only:
                    // no string to show, the mapping itself changed.
                    push(format!(
                        "set to `{}`: it can swap the module under test or its constants",
                        loki_syntax::ast::quote(&h.text)
                    ));
                }
            }
        }
    }
    out
}
