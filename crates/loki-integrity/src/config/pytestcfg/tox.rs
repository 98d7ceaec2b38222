//! tox.ini's own settings: each `[testenv*]` `commands` line judged as a test run (a `-` prefix
//! makes tox ignore its exit code), `ignore_outcome = true`, `envlist` losing environments and
//! `skip_missing_interpreters` turned on.

use std::collections::{BTreeMap, BTreeSet};

use super::{Val, quoted};
use crate::shell::Opts;
use crate::testcmd::runs::{self, Ctx, Gate, Hit, Side, Src};
use crate::testcmd::{Cat, Mode};
use loki_syntax::cfgparse::{self, IniSection};

/// tox.ini's test environments: their commands as test runs, and the settings that skip them.
pub(super) fn tox(base: &str, head: &str) -> Vec<Hit> {
    let (b, h) = (cfgparse::ini(base), cfgparse::ini(head));
    let mut out = runs::compare(&tox_side(&b), &tox_side(&h), Mode::Ci);
    for x in &mut out {
        x.detail = format!("tox.ini: {}", x.detail);
    }
    let section = |s: &[IniSection], name: &str| s.iter().find(|x| x.name == name).cloned();
    let (bt, ht) = (section(&b, "tox"), section(&h, "tox"));
    let envs = |s: &Option<IniSection>| -> (BTreeSet<String>, Option<u32>) {
        let e = s
            .as_ref()
            .and_then(|s| s.get("envlist").or_else(|| s.get("env_list")));
        let list = e
            .map(|e| {
                split_envs(&e.value)
                    .iter()
                    .flat_map(|x| braces(x))
                    .filter(|x| !x.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        (list, e.map(|e| e.line))
    };
    let ((be, _), (he, line)) = (envs(&bt), envs(&ht));
    let lost: Vec<&String> = be.difference(&he).collect();
    if !he.is_empty() && !lost.is_empty() {
        out.push(Hit {
            line,
            detail: format!("tox.ini `envlist` no longer runs {}", quoted(&lost)),
        });
    }
    let skip = |s: &Option<IniSection>| {
        s.as_ref()
            .and_then(|s| s.get("skip_missing_interpreters"))
            .map(|e| {
                (
                    Val::Text(e.value.clone()).truthy() || e.value.trim() == "config",
                    e.line,
                )
            })
    };
    if let (false, Some((true, line))) = (skip(&bt).is_some_and(|x| x.0), skip(&ht)) {
        out.push(Hit { line: Some(line), detail: "tox.ini `skip_missing_interpreters` turned on: an environment whose Python is missing passes without running".into() });
    }
    out
}

/// An `envlist` split at commas and newlines outside braces.
fn split_envs(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' | '\n' if depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out.into_iter().map(|x| x.trim().to_owned()).collect()
}

/// `py{39,310}-django{4,5}` expanded.
fn braces(s: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (s.find('{'), s.find('}')) else {
        return vec![s.to_owned()];
    };
    if close < open {
        return vec![s.to_owned()];
    }
    let (pre, alts, post) = (&s[..open], &s[open + 1..close], &s[close + 1..]);
    let mut out = Vec::new();
    for a in alts.split(',') {
        for rest in braces(post) {
            out.push(format!("{pre}{}{rest}", a.trim()));
            if out.len() > 256 {
                return out;
            }
        }
    }
    out
}

fn tox_side(sections: &[IniSection]) -> Side {
    let mut side = Side::default();
    for s in sections
        .iter()
        .filter(|s| s.name == "testenv" || s.name.starts_with("testenv:"))
    {
        let label = format!("`[{}]`", s.name);
        side.jobs
            .insert(s.name.clone(), (label.clone(), Some(s.line)));
        let mut gates = Vec::new();
        if let Some(e) = s
            .get("ignore_outcome")
            .filter(|e| Val::Text(e.value.clone()).truthy())
        {
            gates.push(Gate {
                cat: Cat::CannotFail,
                why: "`ignore_outcome = true`".into(),
                label: label.clone(),
                line: Some(e.line),
            });
        }
        let Some(cmds) = s.get("commands") else {
            continue;
        };
        for (k, l) in cmds.value.lines().enumerate() {
            let l = l.trim();
            // A command cannot start with an option: a leading `-` is tox's "ignore the exit code".
            let (ignored, l) = match l.strip_prefix('-') {
                Some(rest) => (true, rest.trim_start()),
                None => (false, l),
            };
            let line = cmds.line + u32::try_from(k).unwrap_or(0);
            let ctx = Ctx {
                job: s.name.clone(),
                place: label.clone(),
                gates: gates.clone(),
                env: BTreeMap::new(),
                cwd: String::new(),
                opts: Opts {
                    errexit: true,
                    pipefail: false,
                },
                cannot_fail: ignored
                    .then(|| "it is prefixed with `-`, so tox ignores its exit code".to_owned()),
            };
            runs::script_runs(&Src::one(l, Some(line)), &ctx, None, &mut side);
        }
    }
    side
}
