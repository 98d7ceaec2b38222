//! Workflow triggers: `on:` events, and `paths`/`paths-ignore`/`branches` filters that stop
//! seeing source changes or the main branches.

use std::collections::{BTreeMap, BTreeSet};

use serde_yaml_ng::Value;

use super::yaml::{key, strings};
use crate::ci::yamlpos::YamlPos;
use crate::testcmd::runs::{self, Hit};

pub(super) fn events_of(on: Option<&Value>) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    match on {
        Some(Value::String(s)) => {
            out.insert(s.clone(), Value::Null);
        }
        Some(Value::Sequence(s)) => {
            for e in s.iter().filter_map(Value::as_str) {
                out.insert(e.to_owned(), Value::Null);
            }
        }
        Some(Value::Mapping(m)) => {
            for (k, v) in m {
                if let Some(k) = k.as_str() {
                    out.insert(k.to_owned(), v.clone());
                }
            }
        }
        _ => {}
    }
    out
}

const PUSH_EVENTS: &[&str] = &["push"];
const PR_EVENTS: &[&str] = &["pull_request", "pull_request_target", "merge_group"];

/// The events an `if:` is judged for: the push and pull-request events the workflow runs on, or
/// all of its events when it has none of those.
pub(super) fn considered(events: &BTreeMap<String, Value>) -> Vec<Option<String>> {
    let main: Vec<Option<String>> = events
        .keys()
        .filter(|e| PUSH_EVENTS.contains(&e.as_str()) || PR_EVENTS.contains(&e.as_str()))
        .map(|e| Some(e.clone()))
        .collect();
    if !main.is_empty() {
        return main;
    }
    let all: Vec<Option<String>> = events.keys().map(|e| Some(e.clone())).collect();
    if all.is_empty() { vec![None] } else { all }
}

/// Sample repository paths: a filter that matches none of them no longer sees code changes.
const SOURCE_SAMPLES: &[&str] = &[
    "src/lib.rs",
    "src/main.rs",
    "crates/core/src/lib.rs",
    "lib/index.js",
    "src/index.ts",
    "app/main.py",
    "pkg/mod/mod.go",
    "main.go",
    "mypkg/__init__.py",
    "tests/test_core.py",
    "test/index.test.js",
    "internal/x/x.go",
    "index.js",
    "setup.py",
    "Cargo.toml",
    "package.json",
    "go.mod",
    "pyproject.toml",
];
const MAIN_BRANCHES: &[&str] = &["main", "master", "develop", "trunk"];

/// GitHub filter pattern matching: `*` within a segment, `**` across, `?` one character.
fn glob(p: &str, s: &str) -> bool {
    fn go(p: &[char], s: &[char], budget: &mut usize) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        match p.first() {
            None => s.is_empty(),
            Some('*') if p.get(1) == Some(&'*') => {
                let rest = &p[2..];
                let rest = rest.strip_prefix(&['/']).unwrap_or(rest);
                (0..=s.len()).any(|k| go(rest, &s[k..], budget) || go(&p[2..], &s[k..], budget))
            }
            Some('*') => (0..=s.len())
                .take_while(|&k| k == 0 || s[k - 1] != '/')
                .any(|k| go(&p[1..], &s[k..], budget)),
            Some('?') => !s.is_empty() && s[0] != '/' && go(&p[1..], &s[1..], budget),
            Some(c) => s.first() == Some(c) && go(&p[1..], &s[1..], budget),
        }
    }
    let (p, s): (Vec<char>, Vec<char>) = (p.chars().collect(), s.chars().collect());
    let mut budget = 20_000;
    go(&p, &s, &mut budget)
}

/// Whether a `paths`-style list (with `!` negations, last match wins) matches `path`.
fn filter_matches(patterns: &[String], path: &str) -> bool {
    let mut hit = false;
    for p in patterns {
        if let Some(neg) = p.strip_prefix('!') {
            if glob(neg, path) {
                hit = false;
            }
        } else if glob(p, path) {
            hit = true;
        }
    }
    hit
}

pub(super) fn trigger_changes(
    base: &BTreeMap<String, Value>,
    head: &BTreeMap<String, Value>,
    pos: &YamlPos,
    ran: &BTreeSet<String>,
) -> Vec<Hit> {
    let mut out = Vec::new();
    let on_line = pos.line(&[key("on")]);
    let names = |m: &BTreeMap<String, Value>| {
        m.keys()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for group in [PUSH_EVENTS, PR_EVENTS] {
        let had = group.iter().find(|e| base.contains_key(**e));
        let has = group.iter().any(|e| head.contains_key(*e));
        if let (Some(e), false) = (had, has) {
            let now = if head.is_empty() {
                "nothing".to_owned()
            } else {
                names(head)
            };
            out.push(Hit {
                line: on_line,
                detail: format!(
                    "the workflow no longer runs on `{e}` (it now runs on {now}), so {} no longer check changes",
                    runs::list_commands(ran)
                ),
            });
        }
    }
    for e in PUSH_EVENTS.iter().chain(PR_EVENTS) {
        let (Some(b), Some(h)) = (base.get(*e), head.get(*e)) else {
            continue;
        };
        let line = |k: &str| pos.line(&[key("on"), key(e), key(k)]).or(on_line);
        let (bi, hi) = (
            strings(b.get("paths-ignore")),
            strings(h.get("paths-ignore")),
        );
        if let Some(s) = SOURCE_SAMPLES
            .iter()
            .find(|s| filter_matches(&hi, s) && !filter_matches(&bi, s))
        {
            out.push(Hit {
                line: line("paths-ignore"),
                detail: format!("`paths-ignore` on `{e}` now skips source changes (it matches `{s}`), so the tests no longer run for them"),
            });
        }
        let (bp, hp) = (strings(b.get("paths")), strings(h.get("paths")));
        if h.get("paths").is_some() {
            let before = |s: &&str| b.get("paths").is_none() || filter_matches(&bp, s);
            let lost: Vec<&&str> = SOURCE_SAMPLES
                .iter()
                .filter(|s| before(s) && !filter_matches(&hp, s))
                .collect();
            if !lost.is_empty() && SOURCE_SAMPLES.iter().all(|s| !filter_matches(&hp, s)) {
                out.push(Hit {
                    line: line("paths"),
                    detail: format!("`paths` on `{e}` no longer includes source files (e.g. `{}`), so the tests no longer run for code changes", lost[0]),
                });
            }
        }
        let (bb, hb) = (strings(b.get("branches")), strings(h.get("branches")));
        if h.get("branches").is_some() {
            let runs_main = |list: &[String], present: bool| {
                !present || MAIN_BRANCHES.iter().any(|m| filter_matches(list, m))
            };
            if runs_main(&bb, b.get("branches").is_some()) && !runs_main(&hb, true) {
                out.push(Hit {
                    line: line("branches"),
                    detail: format!(
                        "`branches` on `{e}` no longer includes the main branch ({})",
                        hb.join(", ")
                    ),
                });
            }
        }
        let (bx, hx) = (
            strings(b.get("branches-ignore")),
            strings(h.get("branches-ignore")),
        );
        if let Some(m) = MAIN_BRANCHES
            .iter()
            .find(|m| filter_matches(&hx, m) && !filter_matches(&bx, m))
        {
            out.push(Hit {
                line: line("branches-ignore"),
                detail: format!("`branches-ignore` on `{e}` now ignores `{m}`"),
            });
        }
    }
    out
}
