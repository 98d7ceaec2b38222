//! GitHub Actions: workflows and composite actions, their jobs, steps and shells.

use std::collections::BTreeMap;

use serde_yaml_ng::Value;

use super::Read;
use super::expr::{always_true, never_true, show_if};
use super::triggers::{considered, events_of};
use super::yaml::{env_of, key, script_start, str_of};
use crate::ci::yamlpos::{Seg, YamlPos};
use crate::shell::Opts;
use crate::testcmd::Cat;
use crate::testcmd::runs::{self, Ctx, Gate, Side, Src};

fn gh_opts(shell: Option<&str>, windows: bool) -> Option<Opts> {
    let s = shell.map(str::trim);
    Some(match s {
        None if windows => Opts {
            errexit: false,
            pipefail: true,
        },
        None | Some("sh") => Opts {
            errexit: true,
            pipefail: false,
        },
        Some("bash") => Opts {
            errexit: true,
            pipefail: true,
        },
        Some("python") => return None,
        Some(s) if s.starts_with("pwsh") || s.starts_with("powershell") || s.starts_with("cmd") => {
            Opts {
                errexit: false,
                pipefail: true,
            }
        }
        Some(s) => {
            let words = crate::shell::split_words(s);
            if words
                .first()
                .is_some_and(|w| w.starts_with("python") || w.starts_with("node"))
            {
                return None;
            }
            let mut o = Opts::default();
            for (k, w) in words.iter().enumerate() {
                if let Some(f) = w.strip_prefix('-').filter(|f| !f.starts_with('-')) {
                    o.errexit |= f.contains('e');
                    if f.ends_with('o') && words.get(k + 1).map(String::as_str) == Some("pipefail")
                    {
                        o.pipefail = true;
                    }
                }
            }
            o
        }
    })
}

/// What the whole workflow gives its jobs: the document's positions, the events judged, its
/// `env` and `defaults.run`.
struct Workflow<'a> {
    pos: &'a YamlPos,
    composite: bool,
    judged: Vec<Option<String>>,
    env: BTreeMap<String, String>,
    shell: Option<String>,
    dir: Option<String>,
}

/// One job as its steps see it: where it is, how it is shown, its gates and its defaults.
struct Job {
    id: String,
    name: String,
    base_path: Vec<Seg>,
    gates: Vec<Gate>,
    env: BTreeMap<String, String>,
    shell: Option<String>,
    dir: Option<String>,
    windows: bool,
}

impl Job {
    /// The YAML path of `extra` keys below the job.
    fn at(&self, extra: &[&str]) -> Vec<Seg> {
        let mut p = self.base_path.clone();
        p.extend(extra.iter().map(|k| key(k)));
        p
    }
}

pub(super) fn github(doc: &Value, pos: &YamlPos, composite: bool) -> Read {
    let mut r = Read::default();
    let mut wf_env = BTreeMap::new();
    env_of(doc.get("env"), &mut wf_env);
    let events = events_of(doc.get("on"));
    let run_defaults = doc.get("defaults").and_then(|d| d.get("run"));
    let wf = Workflow {
        pos,
        composite,
        judged: considered(&events),
        env: wf_env,
        shell: str_of(run_defaults.and_then(|r| r.get("shell"))),
        dir: str_of(run_defaults.and_then(|r| r.get("working-directory"))),
    };
    r.events = (!composite).then(|| events.clone());
    r.side.jobs_line = pos.line(&[key("jobs")]);
    let jobs = jobs_of(doc, composite);
    let never = never_running(&jobs, &wf.judged);
    for (id, job) in jobs {
        if let Some(m) = job.get("strategy").and_then(|s| s.get("matrix")) {
            r.matrices.insert(id.clone(), m.clone());
        }
        let read = read_job(&wf, id, job, &never);
        r.side.jobs.insert(
            read.id.clone(),
            (job_label(&wf, &read), pos.line(&read.base_path)),
        );
        let Some(steps) = job.get("steps").and_then(Value::as_sequence) else {
            continue;
        };
        for (k, step) in steps.iter().enumerate() {
            step_runs(&wf, &read, k, step, &mut r.side);
        }
    }
    r
}

/// The jobs by id: the workflow's `jobs`, or a composite action's `runs` as one job `action`.
fn jobs_of(doc: &Value, composite: bool) -> Vec<(String, &Value)> {
    if composite {
        doc.get("runs")
            .filter(|r| r.get("steps").is_some())
            .map(|r| vec![("action".to_owned(), r)])
            .unwrap_or_default()
    } else {
        doc.get("jobs")
            .and_then(Value::as_mapping)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((str_of(Some(k))?, v)))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Jobs that never run on push or pull request: by their own `if:` (→ an empty string), or
/// because a job they `needs` never runs (→ that job; a needed job that is skipped skips its
/// dependents, unless their `if:` asks to run anyway with `always()` or `!cancelled()`).
fn never_running(jobs: &[(String, &Value)], judged: &[Option<String>]) -> BTreeMap<String, String> {
    let needs_of = |job: &Value| -> Vec<String> {
        match job.get("needs") {
            Some(Value::Sequence(v)) => v.iter().filter_map(|x| str_of(Some(x))).collect(),
            Some(x) => str_of(Some(x)).into_iter().collect(),
            None => Vec::new(),
        }
    };
    let mut never: BTreeMap<String, String> = BTreeMap::new();
    loop {
        let mut grew = false;
        for (id, job) in jobs {
            if never.contains_key(id) {
                continue;
            }
            let runs_anyway = job
                .get("if")
                .and_then(|c| str_of(Some(c)))
                .is_some_and(|c| c.contains("always()") || c.contains("cancelled()"));
            let own = job.get("if").is_some_and(|c| never_true(c, judged));
            let via = needs_of(job).into_iter().find(|n| never.contains_key(n));
            if own {
                never.insert(id.clone(), String::new());
                grew = true;
            } else if let (Some(n), false) = (via, runs_anyway) {
                never.insert(id.clone(), n);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    never
}

/// How findings name the job: `job `name`` (the composite action has one, unnamed).
fn job_label(wf: &Workflow<'_>, job: &Job) -> String {
    if wf.composite {
        "the composite action".to_owned()
    } else {
        format!("job `{}`", job.name)
    }
}

/// The job `id`: its name, its gates (a never-true `if:`, a `needs` that never runs, an always
/// true `continue-on-error`), and the env, shell and directory its steps start from.
fn read_job(wf: &Workflow<'_>, id: String, job: &Value, never: &BTreeMap<String, String>) -> Job {
    let pos = wf.pos;
    let base_path: Vec<Seg> = if wf.composite {
        vec![key("runs")]
    } else {
        vec![key("jobs"), key(&id)]
    };
    let name = str_of(job.get("name"))
        .filter(|n| !n.contains("${{"))
        .unwrap_or_else(|| id.clone());
    let mut env = wf.env.clone();
    env_of(job.get("env"), &mut env);
    let job_run = job.get("defaults").and_then(|d| d.get("run"));
    let mut read = Job {
        shell: str_of(job_run.and_then(|r| r.get("shell"))).or_else(|| wf.shell.clone()),
        dir: str_of(job_run.and_then(|r| r.get("working-directory"))).or_else(|| wf.dir.clone()),
        windows: str_of(job.get("runs-on")).is_some_and(|r| r.contains("windows")),
        id,
        name,
        base_path,
        gates: Vec::new(),
        env,
    };
    let label = job_label(wf, &read);
    if let Some(cond) = job.get("if")
        && never_true(cond, &wf.judged)
    {
        read.gates.push(Gate {
            cat: Cat::NeverRuns,
            why: format!(
                "`if: {}` is never true on push or pull request",
                show_if(cond)
            ),
            label: label.clone(),
            line: pos.line(&read.at(&["if"])),
        });
    }
    if let Some(needed) = never.get(&read.id).filter(|n| !n.is_empty()) {
        read.gates.push(Gate {
            cat: Cat::NeverRuns,
            why: format!(
                "it `needs` job `{needed}`, which never runs on push or pull request, so it is skipped too"
            ),
            label: label.clone(),
            line: pos.line(&read.at(&["needs"])),
        });
    }
    if let Some(c) = job.get("continue-on-error").filter(|c| always_true(c)) {
        read.gates.push(Gate {
            cat: Cat::CannotFail,
            why: format!("`continue-on-error: {}`", show_if(c)),
            label,
            line: pos.line(&read.at(&["continue-on-error"])),
        });
    }
    read
}

/// The name of step `k` as GitHub shows it: its `name` or `id`, else `Run` and the command's
/// first line, else its number.
fn step_name(step: &Value, k: usize) -> String {
    str_of(step.get("name"))
        .or_else(|| str_of(step.get("id")))
        .filter(|n| !n.contains("${{"))
        .or_else(|| {
            let run = str_of(step.get("run"))?;
            let first = run
                .lines()
                .find(|l| !l.trim().is_empty())?
                .trim()
                .to_owned();
            Some(format!("Run {}", runs::short(&first)))
        })
        .unwrap_or_else(|| format!("#{}", k + 1))
}

/// The test runs of step `k` of `job` (its `run:` script, or the cargo command of
/// `actions-rs/cargo`) into `side`, with the job's gates and the step's own.
fn step_runs(wf: &Workflow<'_>, job: &Job, k: usize, step: &Value, side: &mut Side) {
    let pos = wf.pos;
    let step_path = {
        let mut p = job.at(&["steps"]);
        p.push(Seg::Index(k));
        p
    };
    let step_at = |extra: &str| {
        let mut p = step_path.clone();
        p.push(key(extra));
        p
    };
    let step_name = step_name(step, k);
    let name = &job.name;
    let place = if wf.composite {
        format!("composite action step `{step_name}`")
    } else {
        format!("job `{name}`, step `{step_name}`")
    };
    let step_label = if wf.composite {
        format!("composite action step `{step_name}`")
    } else {
        format!("step `{step_name}` of job `{name}`")
    };
    let mut step_gates = job.gates.clone();
    if let Some(cond) = step.get("if")
        && never_true(cond, &wf.judged)
    {
        step_gates.push(Gate {
            cat: Cat::NeverRuns,
            why: format!(
                "`if: {}` is never true on push or pull request",
                show_if(cond)
            ),
            label: step_label.clone(),
            line: pos.line(&step_at("if")),
        });
    }
    if let Some(c) = step.get("continue-on-error").filter(|c| always_true(c)) {
        step_gates.push(Gate {
            cat: Cat::CannotFail,
            why: format!("`continue-on-error: {}`", show_if(c)),
            label: step_label.clone(),
            line: pos.line(&step_at("continue-on-error")),
        });
    }
    let mut step_env = job.env.clone();
    env_of(step.get("env"), &mut step_env);
    let shell = str_of(step.get("shell")).or_else(|| job.shell.clone());
    let cwd = str_of(step.get("working-directory"))
        .or_else(|| job.dir.clone())
        .unwrap_or_default();
    // `run: ! cmd` is YAML's non-specific tag on a string: the string.
    let run = step.get("run").map(|r| match r {
        Value::Tagged(t) => &t.value,
        r => r,
    });
    let src = if let Some(run) = run.and_then(Value::as_str) {
        let (first, literal) = script_start(pos, &step_at("run"));
        let mut s = Src::default();
        s.push(run, first, literal);
        s
    } else if let Some(cmd) = actions_rs_cargo(step) {
        Src::one(&cmd, pos.line(&step_at("uses")))
    } else {
        return;
    };
    let Some(opts) = gh_opts(shell.as_deref(), job.windows) else {
        return;
    };
    let ctx = Ctx {
        job: job.id.clone(),
        place,
        gates: step_gates,
        env: step_env,
        cwd: crate::shell::join("", &cwd),
        opts,
        cannot_fail: None,
    };
    runs::script_runs(&src, &ctx, None, side);
}

/// `uses: actions-rs/cargo@v1` with `command: test`: the cargo command it runs.
fn actions_rs_cargo(step: &Value) -> Option<String> {
    let uses = step.get("uses")?.as_str()?;
    if !uses.starts_with("actions-rs/cargo@") {
        return None;
    }
    let with = step.get("with")?;
    let command = str_of(with.get("command"))?;
    let args = str_of(with.get("args")).unwrap_or_default();
    Some(format!("cargo {command} {args}"))
}
