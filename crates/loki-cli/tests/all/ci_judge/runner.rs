//! Just enough of a GitHub Actions runner and a GitLab runner to run `action.yml` and the GitLab
//! template as they are written: each `run:` step (each job's `script:`) goes to bash as the
//! runner hands it over, with the runner's variables, the step's `env:` after `${{ }}`
//! substitution, its working directory, `if:`, `GITHUB_OUTPUT`, `GITHUB_PATH` and the job
//! summary; `actions/upload-artifact` keeps the directory it names. Anything the YAML uses that
//! this runner does not know (another expression, another action) fails the test, so the YAML
//! cannot drift away from what is tested.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_yaml_ng::Value as Yaml;

/// What one run of the composite action did.
#[derive(Debug)]
pub struct Job {
    /// Each step's name and exit status (`None`: skipped).
    pub steps: Vec<(String, Option<i32>)>,
    /// The action's outputs, evaluated.
    pub outputs: BTreeMap<String, String>,
    /// Any step failed.
    pub failed: bool,
    /// Artifacts uploaded: name to the directory kept.
    pub artifacts: BTreeMap<String, PathBuf>,
    /// The job summary.
    pub summary: String,
    /// Every step's stdout and stderr, for failure messages.
    pub log: String,
}

impl Job {
    /// The exit status of the step named `name`.
    pub fn status(&self, name: &str) -> Option<i32> {
        let found = self.steps.iter().find(|(n, _)| n == name);
        assert!(found.is_some(), "no step {name}: {:?}", self.steps);
        found.unwrap().1
    }
}

/// A runner's machine: its environment and its temporary directory.
pub struct Runner {
    /// Variables every step gets (the sandbox's, the runner's `GITHUB_*`).
    pub env: BTreeMap<String, String>,
    pub temp: PathBuf,
    /// What `${{ github.token }}` is.
    pub token: String,
}

fn text(v: &Yaml) -> String {
    match v {
        Yaml::String(s) => s.clone(),
        Yaml::Bool(b) => b.to_string(),
        Yaml::Number(n) => n.to_string(),
        Yaml::Null => String::new(),
        other => unreachable!("the YAML has {other:?} where a scalar goes"),
    }
}

/// Replaces every `${{ expr }}` in `s` with what `lookup` says.
fn expand(s: &str, lookup: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("${{") {
        out.push_str(&rest[..i]);
        let end = rest[i..].find("}}").expect("an unclosed ${{") + i;
        out.push_str(&lookup(rest[i + 3..end].trim()));
        rest = &rest[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Runs `script` with bash the way both runners do (`bash --noprofile --norc -eo pipefail`).
fn bash(script: &str, dir: &Path, env: &BTreeMap<String, String>, log: &mut String) -> i32 {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), script).unwrap();
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(file.path())
        .current_dir(dir)
        .env_clear()
        .envs(env)
        .output()
        .unwrap();
    log.push_str(&String::from_utf8_lossy(&out.stdout));
    log.push_str(&String::from_utf8_lossy(&out.stderr));
    out.status.code().unwrap_or(-1)
}

/// `key=value` lines of a `GITHUB_OUTPUT` file (the heredoc form is not used by the action).
fn outputs_of(path: &Path) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    assert!(!text.contains("<<"), "multi-line outputs: {text}");
    text.lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

impl Runner {
    /// Runs the composite action `action.yml` with `with` as its inputs, in `workspace`.
    pub fn run_action(&self, action: &Path, with: &BTreeMap<&str, &str>, workspace: &Path) -> Job {
        let doc: Yaml = serde_yaml_ng::from_str(&std::fs::read_to_string(action).unwrap()).unwrap();
        assert_eq!(doc["runs"]["using"].as_str(), Some("composite"));
        let defaults: BTreeMap<String, String> = doc["inputs"]
            .as_mapping()
            .unwrap()
            .iter()
            .map(|(k, v)| (text(k), text(&v["default"])))
            .collect();
        for k in with.keys() {
            assert!(defaults.contains_key(*k), "the action has no input {k}");
        }
        let github = |expr: &str, steps: &BTreeMap<String, BTreeMap<String, String>>| -> String {
            if let Some(name) = expr.strip_prefix("inputs.") {
                let raw = with
                    .get(name)
                    .map_or_else(|| defaults[name].clone(), |v| (*v).to_string());
                return expand(&raw, &|e| match e {
                    "github.token" => self.token.clone(),
                    other => unreachable!(
                        "an input's default uses {other}, which this runner does not know"
                    ),
                });
            }
            if expr == "runner.temp" {
                return self.temp.display().to_string();
            }
            if let Some(rest) = expr.strip_prefix("steps.") {
                let (id, key) = rest.split_once(".outputs.").unwrap();
                return steps
                    .get(id)
                    .and_then(|o| o.get(key))
                    .cloned()
                    .unwrap_or_default();
            }
            unreachable!("this runner does not know ${{{{ {expr} }}}}");
        };
        let mut job = Job {
            steps: Vec::new(),
            outputs: BTreeMap::new(),
            failed: false,
            artifacts: BTreeMap::new(),
            summary: String::new(),
            log: String::new(),
        };
        let mut step_outputs: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        let mut path_dirs: Vec<String> = Vec::new();
        let summary = self.temp.join("step_summary.md");
        let added_path = self.temp.join("github_path");
        for (i, step) in doc["runs"]["steps"]
            .as_sequence()
            .unwrap()
            .iter()
            .enumerate()
        {
            let name = text(&step["name"]);
            let run_it = match step.get("if").map(text).as_deref() {
                None => !job.failed,
                Some("always()") => true,
                Some(other) => unreachable!("this runner does not know if: {other}"),
            };
            if !run_it {
                job.steps.push((name, None));
                continue;
            }
            let lookup = |e: &str| github(e, &step_outputs);
            if let Some(uses) = step.get("uses").map(text) {
                assert_eq!(
                    uses, "actions/upload-artifact@v4",
                    "this runner does not know {uses}"
                );
                let w = &step["with"];
                let dir = PathBuf::from(expand(&text(&w["path"]), &lookup));
                let kept = self.temp.join(format!("artifact-{i}"));
                if dir.is_dir() {
                    copy_dir(&dir, &kept);
                    job.artifacts
                        .insert(expand(&text(&w["name"]), &lookup), kept);
                }
                job.steps.push((name, Some(0)));
                continue;
            }
            assert_eq!(step["shell"].as_str(), Some("bash"), "{name}: shell");
            let script = text(&step["run"]);
            // Inputs reach a script through env only: text substituted into a script is code.
            assert!(!script.contains("${{"), "{name}: an expression inside run:");
            let output = self.temp.join(format!("output-{i}"));
            let mut env = self.env.clone();
            if !path_dirs.is_empty() {
                let path = format!("{}:{}", path_dirs.join(":"), env["PATH"]);
                env.insert("PATH".into(), path);
            }
            env.insert("GITHUB_OUTPUT".into(), output.display().to_string());
            env.insert("GITHUB_STEP_SUMMARY".into(), summary.display().to_string());
            env.insert("GITHUB_PATH".into(), added_path.display().to_string());
            env.insert("RUNNER_TEMP".into(), self.temp.display().to_string());
            for (k, v) in step
                .get("env")
                .and_then(Yaml::as_mapping)
                .into_iter()
                .flatten()
            {
                env.insert(text(k), expand(&text(v), &lookup));
            }
            let dir = step.get("working-directory").map_or_else(
                || workspace.to_path_buf(),
                |d| workspace.join(expand(&text(d), &lookup)),
            );
            let _ = writeln!(job.log, "--- step {name}");
            let code = bash(&script, &dir, &env, &mut job.log);
            path_dirs = std::fs::read_to_string(&added_path)
                .unwrap_or_default()
                .lines()
                .rev()
                .map(str::to_string)
                .collect();
            if let Some(id) = step.get("id").map(text) {
                step_outputs.insert(id, outputs_of(&output));
            }
            let tolerated = step.get("continue-on-error").and_then(Yaml::as_bool) == Some(true);
            if code != 0 && !tolerated {
                job.failed = true;
            }
            job.steps.push((name, Some(code)));
        }
        for (k, v) in doc["outputs"].as_mapping().unwrap() {
            let value = expand(&text(&v["value"]), &|e| github(e, &step_outputs));
            job.outputs.insert(text(k), value);
        }
        job.summary = std::fs::read_to_string(&summary).unwrap_or_default();
        job
    }
}

use std::fmt::Write as _;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// One GitLab job's run.
#[derive(Debug)]
pub struct GitlabJob {
    pub status: i32,
    pub log: String,
}

/// A GitLab runner for the template's merge request pipeline.
pub struct GitlabRunner {
    /// The runner's predefined `CI_*` variables and the sandbox's.
    pub env: BTreeMap<String, String>,
    /// Variables scoped to an environment: given only to jobs that name it.
    pub scoped: BTreeMap<String, BTreeMap<String, String>>,
    pub builds: PathBuf,
}

impl GitlabRunner {
    /// Runs the template's jobs in order: `checkout` is the project directory of a job that
    /// checks out; a job with `GIT_STRATEGY: none` gets an empty one. Artifacts of a job are
    /// copied into the jobs that need it. Returns each job by name.
    pub fn run_pipeline(&self, template: &Path, checkout: &Path) -> BTreeMap<String, GitlabJob> {
        let doc: Yaml =
            serde_yaml_ng::from_str(&std::fs::read_to_string(template).unwrap()).unwrap();
        let global: BTreeMap<String, String> = doc["variables"]
            .as_mapping()
            .into_iter()
            .flatten()
            .map(|(k, v)| (text(k), text(v)))
            .collect();
        let mut jobs = BTreeMap::new();
        let mut kept: BTreeMap<String, (PathBuf, Vec<String>)> = BTreeMap::new();
        for (name, job) in doc.as_mapping().unwrap() {
            let name = text(name);
            if name.starts_with('.') || name == "variables" {
                continue;
            }
            for rule in job["rules"].as_sequence().unwrap() {
                assert_eq!(
                    text(&rule["if"]),
                    "$CI_PIPELINE_SOURCE == \"merge_request_event\"",
                    "{name}: this runner knows one rule"
                );
            }
            let vars: BTreeMap<String, String> = job
                .get("variables")
                .and_then(Yaml::as_mapping)
                .into_iter()
                .flatten()
                .map(|(k, v)| (text(k), text(v)))
                .collect();
            let dir = if vars.get("GIT_STRATEGY").map(String::as_str) == Some("none") {
                let d = self
                    .builds
                    .join(format!("empty-{}", name.replace(':', "-")));
                std::fs::create_dir_all(&d).unwrap();
                d
            } else {
                checkout.to_path_buf()
            };
            for need in job
                .get("needs")
                .and_then(Yaml::as_sequence)
                .into_iter()
                .flatten()
            {
                let (from, paths) = &kept[&text(need)];
                for p in paths {
                    copy_dir(&from.join(p), &dir.join(p));
                }
            }
            let mut env = self.env.clone();
            env.extend(global.clone());
            env.extend(vars);
            env.insert("CI_PROJECT_DIR".into(), dir.display().to_string());
            env.insert("CI_BUILDS_DIR".into(), self.builds.display().to_string());
            if let Some(e) = job.get("environment") {
                env.extend(
                    self.scoped
                        .get(&text(&e["name"]))
                        .cloned()
                        .unwrap_or_default(),
                );
            }
            // GitLab flattens nested script lists (a YAML anchor of lines) and runs them in one shell.
            let mut lines = Vec::new();
            flatten(&job["script"], &mut lines);
            let mut log = String::new();
            let status = bash(&lines.join("\n"), &dir, &env, &mut log);
            if let Some(a) = job.get("artifacts") {
                let paths: Vec<String> = a["paths"]
                    .as_sequence()
                    .unwrap()
                    .iter()
                    .map(|p| text(p).trim_end_matches('/').to_string())
                    .collect();
                let store = self
                    .builds
                    .join(format!("artifacts-{}", name.replace(':', "-")));
                let _ = std::fs::remove_dir_all(&store);
                for p in &paths {
                    if dir.join(p).is_dir() {
                        copy_dir(&dir.join(p), &store.join(p));
                    }
                }
                kept.insert(name.clone(), (store, paths));
            }
            let failed = status != 0;
            jobs.insert(name, GitlabJob { status, log });
            if failed {
                break;
            }
        }
        jobs
    }
}

fn flatten(v: &Yaml, out: &mut Vec<String>) {
    match v {
        Yaml::Sequence(s) => s.iter().for_each(|x| flatten(x, out)),
        other => out.push(text(other)),
    }
}
