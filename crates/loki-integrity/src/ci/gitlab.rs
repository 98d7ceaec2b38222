//! GitLab CI: jobs, `extends`, `rules`, `only`/`except`, `when` and `allow_failure`.

use std::collections::BTreeMap;

use serde_yaml_ng::{Mapping, Value};

use super::expr::{eval_expr, eval_value};
use super::yaml::{env_of, key, render, script_start, str_of, strings};
use super::{GITLAB_GLOBALS, Read};
use crate::ci::yamlpos::{Seg, YamlPos};
use crate::shell::Opts;
use crate::testcmd::Cat;
use crate::testcmd::runs::{self, Ctx, Gate, Side, Src};

fn deep_merge(into: &mut Value, from: &Value) {
    match (into, from) {
        (Value::Mapping(a), Value::Mapping(b)) => {
            for (k, v) in b {
                match a.get_mut(k) {
                    Some(existing) if existing.is_mapping() && v.is_mapping() => {
                        deep_merge(existing, v);
                    }
                    _ => {
                        a.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        (a, b) => *a = b.clone(),
    }
}

/// A job with its `extends` templates merged in (the job's own keys win), at most 10 deep.
fn resolve_extends(job: &Value, all: &Mapping, depth: usize) -> Value {
    let parents = strings(job.get("extends"));
    if parents.is_empty() || depth > 10 {
        return job.clone();
    }
    let mut merged = Value::Mapping(Mapping::new());
    for p in parents {
        if let Some(t) = all.get(p.as_str()) {
            deep_merge(&mut merged, &resolve_extends(t, all, depth + 1));
        }
    }
    let mut own = job.clone();
    if let Value::Mapping(m) = &mut own {
        m.remove("extends");
    }
    deep_merge(&mut merged, &own);
    merged
}

pub(super) fn flat_scripts(v: Option<&Value>) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    match v {
        Some(Value::String(s)) => out.push((0, s.clone())),
        Some(Value::Sequence(items)) => {
            for (i, x) in items.iter().enumerate() {
                match x {
                    Value::String(s) => out.push((i, s.clone())),
                    Value::Sequence(inner) => {
                        out.extend(
                            inner
                                .iter()
                                .filter_map(Value::as_str)
                                .map(|s| (i, s.to_owned())),
                        );
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

fn gl_when(when: &str) -> Option<String> {
    match when {
        "never" => Some("`when: never`".into()),
        "manual" => Some("`when: manual`, so it runs only when started by hand".into()),
        "on_failure" => Some("`when: on_failure`, so it runs only after a failure".into()),
        _ => None,
    }
}

enum RuleOutcome {
    /// The rules may add the job automatically.
    Runs { allow_failure: bool },
    /// They never do; why.
    Never(String),
}

/// The pipelines a change gets: a branch push and a merge request, with the predefined variables
/// whose values they fix.
const PIPELINES: &[&[(&str, &str)]] = &[
    &[
        ("CI_PIPELINE_SOURCE", "'push'"),
        ("CI_COMMIT_TAG", "null"),
        ("CI_MERGE_REQUEST_IID", "null"),
    ],
    &[
        ("CI_PIPELINE_SOURCE", "'merge_request_event'"),
        ("CI_COMMIT_TAG", "null"),
        ("CI_COMMIT_BRANCH", "null"),
    ],
];

/// A GitLab `if:` in one pipeline: the known variables substituted, the rest unknown.
fn gl_if(expr: &str, vars: &[(&str, &str)]) -> Option<bool> {
    let mut s = String::new();
    let cs: Vec<char> = expr.chars().collect();
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        if c == '$' {
            let start = i + 1;
            let mut j = start;
            while cs
                .get(j)
                .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
            {
                j += 1;
            }
            let name: String = cs[start..j].iter().collect();
            match vars.iter().find(|(n, _)| *n == name) {
                Some((_, v)) => s.push_str(v),
                None => {
                    s.push('$');
                    s.push_str(&name);
                }
            }
            i = j;
            continue;
        }
        s.push(c);
        i += 1;
    }
    eval_expr(&s, None).truthy()
}

fn gl_condition(r: &Value, vars: &[(&str, &str)]) -> Option<bool> {
    if r.get("changes").is_some() || r.get("exists").is_some() {
        return None;
    }
    match r.get("if") {
        None => Some(true),
        Some(Value::String(s)) => gl_if(s, vars),
        Some(v) => eval_value(v, None).truthy(),
    }
}

fn gl_rules_in(rules: &[Value], vars: &[(&str, &str)]) -> RuleOutcome {
    for r in rules {
        let when = str_of(r.get("when")).unwrap_or_else(|| "on_success".into());
        let allow_failure = r
            .get("allow_failure")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        match gl_condition(r, vars) {
            Some(true) => {
                return match gl_when(&when) {
                    Some(why) => {
                        RuleOutcome::Never(format!("the first rule that matches has {why}"))
                    }
                    None => RuleOutcome::Runs { allow_failure },
                };
            }
            None if gl_when(&when).is_none() => return RuleOutcome::Runs { allow_failure },
            _ => {}
        }
    }
    RuleOutcome::Never("no rule adds it to branch or merge request pipelines".into())
}

/// `rules` over the pipelines a change gets: never when no pipeline runs the job, unable to fail
/// when every pipeline that runs it allows it to fail.
fn gl_rules(rules: &[Value]) -> RuleOutcome {
    let outcomes: Vec<RuleOutcome> = PIPELINES.iter().map(|v| gl_rules_in(rules, v)).collect();
    let mut never = None;
    let mut any_runs = false;
    let mut all_allowed = true;
    for o in outcomes {
        match o {
            RuleOutcome::Never(why) => never = never.or(Some(why)),
            RuleOutcome::Runs { allow_failure } => {
                any_runs = true;
                all_allowed &= allow_failure;
            }
        }
    }
    if any_runs {
        RuleOutcome::Runs {
            allow_failure: all_allowed,
        }
    } else {
        RuleOutcome::Never(never.unwrap_or_default())
    }
}

/// Pipelines other than branch and merge-request ones.
const NOT_CHANGES: &[&str] = &[
    "tags",
    "schedules",
    "api",
    "web",
    "triggers",
    "pipelines",
    "chat",
    "external",
];

fn gl_refs(v: Option<&Value>) -> Option<Vec<String>> {
    match v? {
        Value::Mapping(m) => m.get("refs").map(|r| strings(Some(r))),
        v => Some(strings(Some(v))),
    }
}

/// Why `only`/`except` keep a job out of every branch and merge-request pipeline, if they do.
fn gl_only_except(job: &Value) -> Option<String> {
    if let Some(only) = gl_refs(job.get("only"))
        && only.iter().all(|r| NOT_CHANGES.contains(&r.as_str()))
    {
        return Some(format!(
            "`only: [{}]` leaves out branch and merge request pipelines",
            only.join(", ")
        ));
    }
    if let Some(except) = gl_refs(job.get("except")) {
        let broad = |r: &String| r == "branches" || r == "/.*/" || r == "/^.*$/";
        if except.iter().any(broad)
            || (except.iter().any(|r| r == "pushes")
                && except.iter().any(|r| r == "merge_requests"))
        {
            return Some(format!(
                "`except: [{}]` leaves out branch and merge request pipelines",
                except.join(", ")
            ));
        }
    }
    None
}

/// What the whole pipeline gives its jobs: the document's positions, its `variables`, the
/// default `before_script`/`after_script`, and the gates of `workflow: rules`.
struct Pipeline<'a> {
    pos: &'a YamlPos,
    env: BTreeMap<String, String>,
    before: Option<&'a Value>,
    after: Option<&'a Value>,
    gates: Vec<Gate>,
}

pub(super) fn gitlab(doc: &Value, pos: &YamlPos, fragment: bool) -> Read {
    let mut r = Read::default();
    let Some(all) = doc.as_mapping() else {
        return r;
    };
    let mut global_env = BTreeMap::new();
    env_of(all.get("variables"), &mut global_env);
    let default = all.get("default");
    let pipeline = Pipeline {
        pos,
        env: global_env,
        before: default
            .and_then(|d| d.get("before_script"))
            .or_else(|| all.get("before_script")),
        after: default
            .and_then(|d| d.get("after_script"))
            .or_else(|| all.get("after_script")),
        gates: pipeline_gates(all, pos),
    };
    for (k, job) in all {
        let Some(id) = k.as_str() else { continue };
        if GITLAB_GLOBALS.contains(&id) || (!fragment && id.starts_with('.')) || !job.is_mapping() {
            continue;
        }
        let job = resolve_extends(job, all, 0);
        if job.get("script").is_none() {
            continue;
        }
        let label = format!("job `{id}`");
        r.side
            .jobs
            .insert(id.to_owned(), (label.clone(), pos.line(&[key(id)])));
        let gates = job_gates(&pipeline, &job, id, &label);
        if let Some(m) = job.get("parallel").and_then(|p| p.get("matrix")) {
            r.matrices.insert(id.to_owned(), m.clone());
        }
        job_runs(&pipeline, &job, id, &label, gates, &mut r.side);
    }
    r
}

/// The gate of the whole pipeline: `workflow: rules` that never run it.
fn pipeline_gates(all: &Mapping, pos: &YamlPos) -> Vec<Gate> {
    let mut gates = Vec::new();
    if let Some(rules) = all
        .get("workflow")
        .and_then(|w| w.get("rules"))
        .and_then(Value::as_sequence)
        && let RuleOutcome::Never(why) = gl_rules(rules)
    {
        gates.push(Gate {
            cat: Cat::NeverRuns,
            why: format!("`workflow: rules`: {why}"),
            label: "the pipeline".into(),
            line: pos.line(&[key("workflow"), key("rules")]),
        });
    }
    gates
}

/// The gates of job `id` after the pipeline's: a `when`, `rules` or `only`/`except` that never
/// runs it, and an `allow_failure` (its own, or a rule's) that keeps it from failing.
fn job_gates(pipeline: &Pipeline<'_>, job: &Value, id: &str, label: &str) -> Vec<Gate> {
    let pos = pipeline.pos;
    let at = |k: &str| [key(id), key(k)];
    let mut gates = pipeline.gates.clone();
    if let Some(why) = str_of(job.get("when")).and_then(|w| gl_when(&w)) {
        gates.push(Gate {
            cat: Cat::NeverRuns,
            why,
            label: label.to_owned(),
            line: pos.line(&at("when")),
        });
    }
    let mut allow_failure = job.get("allow_failure").is_some_and(|a| {
        a.as_bool() == Some(true)
            || a.get("exit_codes")
                .is_some_and(|c| strings(Some(c)).iter().any(|c| c == "1" || c == "101"))
    });
    if let Some(rules) = job.get("rules").and_then(Value::as_sequence) {
        match gl_rules(rules) {
            RuleOutcome::Never(why) => gates.push(Gate {
                cat: Cat::NeverRuns,
                why: format!("`rules`: {why}"),
                label: label.to_owned(),
                line: pos.line(&at("rules")),
            }),
            RuleOutcome::Runs {
                allow_failure: true,
            } => allow_failure = true,
            RuleOutcome::Runs { .. } => {}
        }
    }
    if let Some(why) = gl_only_except(job) {
        let line = pos
            .line(&at("only"))
            .filter(|_| job.get("only").is_some())
            .or_else(|| pos.line(&at("except")));
        gates.push(Gate {
            cat: Cat::NeverRuns,
            why,
            label: label.to_owned(),
            line,
        });
    }
    if allow_failure {
        gates.push(Gate {
            cat: Cat::CannotFail,
            why: format!(
                "`allow_failure: {}`",
                job.get("allow_failure")
                    .map_or_else(|| "true".into(), render)
            ),
            label: label.to_owned(),
            line: pos
                .line(&at("allow_failure"))
                .or_else(|| pos.line(&at("rules"))),
        });
    }
    gates
}

/// The test runs of job `id` into `side`: its `before_script` and `script` (the defaults'
/// `before_script` unless it does not inherit them), then its `after_script`, whose failures
/// never fail the job.
fn job_runs(
    pipeline: &Pipeline<'_>,
    job: &Value,
    id: &str,
    label: &str,
    gates: Vec<Gate>,
    side: &mut Side,
) {
    let pos = pipeline.pos;
    let mut env = pipeline.env.clone();
    env_of(job.get("variables"), &mut env);
    let inherit_default = job
        .get("inherit")
        .and_then(|i| i.get("default"))
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let mut src = Src::default();
    let before = job.get("before_script").or(if inherit_default {
        pipeline.before
    } else {
        None
    });
    for part in ["before_script", "script"] {
        let v = if part == "before_script" {
            before
        } else {
            job.get("script")
        };
        for (i, text) in flat_scripts(v) {
            let (first, literal) = script_start(pos, &[key(id), key(part), Seg::Index(i)]);
            src.push(&text, first, literal);
        }
    }
    let ctx = Ctx {
        job: id.to_owned(),
        place: label.to_owned(),
        gates,
        env,
        cwd: String::new(),
        opts: Opts {
            errexit: true,
            pipefail: true,
        },
        cannot_fail: None,
    };
    runs::script_runs(&src, &ctx, None, side);
    let after = job.get("after_script").or(if inherit_default {
        pipeline.after
    } else {
        None
    });
    let mut after_src = Src::default();
    for (i, text) in flat_scripts(after) {
        let (first, literal) = script_start(pos, &[key(id), key("after_script"), Seg::Index(i)]);
        after_src.push(&text, first, literal);
    }
    let after_ctx = Ctx {
        place: format!("{label}, after_script"),
        cannot_fail: Some("it runs in `after_script`, whose failures never fail the job".into()),
        ..ctx
    };
    runs::script_runs(&after_src, &after_ctx, None, side);
}
