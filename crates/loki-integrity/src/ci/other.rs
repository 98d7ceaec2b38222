//! Other YAML CI (CircleCI, Azure Pipelines, Bitbucket, Travis, ...): every script string,
//! grouped by its top-level job, with continue-on-error style switches as gates.

use std::collections::BTreeMap;

use serde_yaml_ng::Value;

use super::Read;
use super::expr::{always_true, eval_value};
use super::gitlab::flat_scripts;
use super::yaml::{key, render, script_start};
use crate::ci::yamlpos::{Seg, YamlPos};
use crate::shell::Opts;
use crate::testcmd::Cat;
use crate::testcmd::runs::{self, Ctx, Gate, Side, Src};

const SCRIPT_KEYS: &[&str] = &[
    "run",
    "script",
    "command",
    "bash",
    "sh",
    "pwsh",
    "powershell",
    "inline",
    "inlineScript",
    "commands",
    "cmd",
];
const AFTER_KEYS: &[&str] = &["after-script", "after_script"];
const UNFAILING_KEYS: &[&str] = &[
    "continueOnError",
    "continue-on-error",
    "continue_on_error",
    "allow_failure",
    "allow-failure",
    "allowFailure",
    "ignore_failure",
    "ignoreFailure",
];
const CONDITION_KEYS: &[&str] = &["condition", "if", "when"];

pub(super) fn other_yaml(doc: &Value, pos: &YamlPos) -> Read {
    let mut r = Read::default();
    walk_other(doc, &mut Vec::new(), &[], pos, &mut r.side, 0);
    r
}

fn walk_other(
    v: &Value,
    path: &mut Vec<Seg>,
    gates: &[Gate],
    pos: &YamlPos,
    side: &mut Side,
    depth: usize,
) {
    if depth > 64 {
        return;
    }
    let job = path
        .iter()
        .take(2)
        .map(|s| match s {
            Seg::Key(k) => k.clone(),
            Seg::Index(i) => i.to_string(),
        })
        .collect::<Vec<_>>()
        .join(".");
    match v {
        Value::Mapping(m) => {
            let gates = mapping_gates(m, path, gates, &job, pos);
            for (k, x) in m {
                let Some(name) = k.as_str() else { continue };
                path.push(key(name));
                let scripts = SCRIPT_KEYS.contains(&name) || AFTER_KEYS.contains(&name);
                if scripts && (x.is_string() || x.is_sequence()) {
                    script_runs(x, name, path, (&job, &gates), pos, side);
                } else {
                    walk_other(x, path, &gates, pos, side, depth + 1);
                }
                path.pop();
            }
        }
        Value::Sequence(s) => {
            for (i, x) in s.iter().enumerate() {
                path.push(Seg::Index(i));
                walk_other(x, path, gates, pos, side, depth + 1);
                path.pop();
            }
        }
        Value::Tagged(t) => walk_other(&t.value, path, gates, pos, side, depth + 1),
        _ => {}
    }
}

/// The gates of a mapping at `path` added to those it is in: a key that keeps it from failing
/// (`UNFAILING_KEYS` always true) or from running (`CONDITION_KEYS` never true).
fn mapping_gates(
    m: &serde_yaml_ng::Mapping,
    path: &[Seg],
    gates: &[Gate],
    job: &str,
    pos: &YamlPos,
) -> Vec<Gate> {
    let mut gates = gates.to_vec();
    let label = format!("`{job}`");
    for k in UNFAILING_KEYS {
        if let Some(x) = m.get(*k).filter(|x| always_true(x)) {
            let mut p = path.to_vec();
            p.push(key(k));
            gates.push(Gate {
                cat: Cat::CannotFail,
                why: format!("`{k}: {}`", render(x)),
                label: label.clone(),
                line: pos.line(&p),
            });
        }
    }
    for k in CONDITION_KEYS {
        if let Some(x) = m.get(*k) {
            let never = x.as_str() == Some("never")
                || eval_value(x, None).truthy() == Some(false) && !x.is_null();
            if never {
                let mut p = path.to_vec();
                p.push(key(k));
                gates.push(Gate {
                    cat: Cat::NeverRuns,
                    why: format!("`{k}: {}`", render(x)),
                    label: label.clone(),
                    line: pos.line(&p),
                });
            }
        }
    }
    gates
}

/// The test runs of the script (a string or a list) under key `name` at `path` into `side`, in
/// `job` with its gates; the job is recorded where it is (its first two segments).
fn script_runs(
    x: &Value,
    name: &str,
    path: &[Seg],
    (job, gates): (&str, &[Gate]),
    pos: &YamlPos,
    side: &mut Side,
) {
    let mut src = Src::default();
    match x {
        Value::String(s) => {
            let (first, literal) = script_start(pos, path);
            src.push(s, first, literal);
        }
        _ => {
            for (i, text) in flat_scripts(Some(x)) {
                let mut p = path.to_vec();
                p.push(Seg::Index(i));
                let (first, literal) = script_start(pos, &p);
                src.push(&text, first, literal);
            }
        }
    }
    let ctx = Ctx {
        job: job.to_owned(),
        place: format!("`{job}`"),
        gates: gates.to_vec(),
        env: BTreeMap::new(),
        cwd: String::new(),
        opts: Opts {
            errexit: true,
            pipefail: false,
        },
        cannot_fail: AFTER_KEYS
            .contains(&name)
            .then(|| format!("it runs in `{name}`, whose failures never fail the step")),
    };
    if !job.is_empty() {
        side.jobs.insert(
            job.to_owned(),
            (format!("`{job}`"), pos.line(&path[..path.len().min(2)])),
        );
    }
    runs::script_runs(&src, &ctx, None, side);
}
