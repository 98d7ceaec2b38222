//! CI weakened (rule 6): workflows are parsed, their test steps found, and base and head compared
//! by what they run, not by phrases ([`ci_weakenings`]; [`is_gitlab_include`] says whether a YAML
//! file outside `.gitlab-ci.yml` holds GitLab jobs). Pure over bytes, never panics; files over
//! [`MAX_SCAN_BYTES`] are judged by path only.
//!
//! # Formats
//! - GitHub Actions (`.github/workflows/*.yml|yaml`, composite actions `.github/actions/**/action.yml`):
//!   jobs and steps; a step's `run` is parsed as the shell it runs in (`bash -e` by default,
//!   `-eo pipefail` for `shell: bash`, custom `shell:` strings read for `-e`/`pipefail`, `pwsh` and
//!   `cmd` judged by their last command); `actions-rs/cargo` with `command: test` is a test step.
//! - GitLab CI (`.gitlab-ci.yml`, and YAML files that hold GitLab jobs, such as the files it
//!   `include:`s locally): jobs (hidden `.templates` only through `extends`, which is resolved),
//!   `before_script` + `script` under `set -eo pipefail`; `after_script` cannot fail a job.
//! - CircleCI, Azure Pipelines, Bitbucket, Travis, AppVeyor, Drone, Woodpecker, Cirrus and
//!   Buildkite (YAML) and `Jenkinsfile`: a conservative reading: every
//!   `run`/`script`/`command`/`bash`/... string (Jenkins: `sh`/`bat` strings) is a script, grouped by
//!   its top-level job, with `continueOnError`/`allow_failure`-style switches and Jenkins
//!   `returnStatus: true`, `catchError(buildResult: 'SUCCESS')` and `warnError` as gates.
//!
//! # Findings (`ci_weakened`, `ci_deleted`)
//! Every base test run that could fail is compared with its head partner ([`crate::testcmd::runs`]): a step
//! or job removed, turned into an `echo` argument or commented out; disabled (`if:` constant false
//! for push and pull-request events, `if: failure()`, GitLab `when: never|manual|on_failure`,
//! `rules` that never add the job, `only`/`except` that leave out every branch and merge-request
//! pipeline, `workflow: rules` that never run); made unable to fail (`continue-on-error: true`,
//! `allow_failure: true` or with exit codes 1/101, `|| true`, `; exit 0`, pipes without `pipefail`,
//! `set +e`, ...); narrowed (arguments, environment, working directory). Per workflow: `on:` losing
//! push or pull-request events, `paths-ignore`/`paths`/`branches` filters that now skip source
//! changes or the main branches, and a shrunk matrix (values lost, `exclude` entries added,
//! `include` entries removed; GitLab `parallel: matrix` combinations lost). A head that no longer
//! parses while the base did is a finding; a deleted file is `ci_deleted` when it ran tests.
//! Formatting, comments, key order, added jobs or steps, new matrix entries, renamed steps with the
//! same command and action version bumps are not findings. Lines point into the head file.
//!
//! # Submodules
//! - `yaml`: helpers over YAML values (keys, strings, environments, script lines);
//! - `expr`: GitHub `if:` expressions, evaluated per event;
//! - `github`: GitHub Actions workflows and composite actions;
//! - `triggers`: a workflow's `on:` events and `paths`/`branches` filters;
//! - `matrix`: matrices shrunk (GitHub `strategy.matrix`, GitLab `parallel: matrix`);
//! - `gitlab`: GitLab CI (`extends`, `rules`, `only`/`except`, `when`);
//! - `other`: the conservative reading of other YAML CI formats;
//! - `jenkins`: `Jenkinsfile` `sh`/`bat` steps;
//! - `yamlpos`: the line of each YAML key, so findings point into the head file.

mod expr;
mod github;
mod gitlab;
mod jenkins;
mod matrix;
mod other;
mod triggers;
mod yaml;
mod yamlpos;

use std::collections::BTreeMap;

use serde_yaml_ng::{Mapping, Value};

use crate::ci::yamlpos::YamlPos;
use crate::testcmd::Mode;
use crate::testcmd::runs::{self, Hit, Side};
use github::github;
use gitlab::gitlab;
use jenkins::jenkins;
use loki_protocol::{Finding, FindingKind};
use loki_syntax::MAX_SCAN_BYTES;
use loki_syntax::lex::normalize;
use matrix::matrix_hits;
use other::other_yaml;
use triggers::trigger_changes;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    GitHub,
    Composite,
    GitLab,
    GitLabInclude,
    OtherYaml,
    Jenkins,
}

fn format_of(path: &str) -> Format {
    let name = path.rsplit('/').next().unwrap_or(path);
    if path.starts_with(".github/workflows/") {
        Format::GitHub
    } else if path.starts_with(".github/actions/") || path.contains("/.github/actions/") {
        Format::Composite
    } else if name == ".gitlab-ci.yml" || name == ".gitlab-ci.yaml" {
        Format::GitLab
    } else if name == "Jenkinsfile" {
        Format::Jenkins
    } else if path.ends_with(".gitlab-ci.yml") || path.starts_with(".gitlab/") {
        Format::GitLabInclude
    } else {
        Format::OtherYaml
    }
}

/// Keys at the top of a GitLab file that are not jobs.
const GITLAB_GLOBALS: &[&str] = &[
    "stages",
    "variables",
    "default",
    "include",
    "workflow",
    "image",
    "services",
    "before_script",
    "after_script",
    "cache",
    "types",
    "spec",
];

/// Whether a YAML file that is not named like CI holds GitLab jobs (a file `.gitlab-ci.yml`
/// includes): a top-level mapping with a `script`.
pub fn is_gitlab_include(path: &str, base: Option<&[u8]>, head: Option<&[u8]>) -> bool {
    let yaml = path.ends_with(".yml") || path.ends_with(".yaml");
    if !yaml || path.starts_with(".github/") || path.contains("/.github/") {
        return false;
    }
    [base, head].into_iter().flatten().any(|b| {
        b.len() <= MAX_SCAN_BYTES
            && parse_yaml(&normalize(b)).is_ok_and(|doc| {
                doc.as_mapping().is_some_and(|m| {
                    m.iter().any(|(k, v)| {
                        k.as_str().is_some_and(|k| !GITLAB_GLOBALS.contains(&k))
                            && v.get("script").is_some()
                    })
                })
            })
    })
}

/// Every YAML document of `text`, top-level mappings merged (GitLab's `spec:` header is a
/// document of its own), with `<<` merge keys applied.
fn parse_yaml(text: &str) -> Result<Value, serde_yaml_ng::Error> {
    use serde::Deserialize;
    let mut merged = Mapping::new();
    let mut other = None;
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        let mut v = Value::deserialize(doc)?;
        // A merge that fails (a `<<` onto a scalar) leaves the value as written.
        let _ = v.apply_merge();
        match v {
            Value::Mapping(m) => merged.extend(m),
            Value::Null => {}
            v => other = Some(v),
        }
    }
    Ok(match other {
        Some(v) if merged.is_empty() => v,
        _ => Value::Mapping(merged),
    })
}

fn yaml_error(e: &serde_yaml_ng::Error) -> (Option<u32>, String) {
    let line = e.location().and_then(|l| u32::try_from(l.line()).ok());
    let msg = e.to_string();
    let msg = msg.split(" at line ").next().unwrap_or(&msg).to_owned();
    (line, msg)
}

/// A read workflow: its runs plus what the workflow-level rules compare.
#[derive(Debug, Default)]
struct Read {
    side: Side,
    /// GitHub `on:` events with their filters.
    events: Option<BTreeMap<String, Value>>,
    /// Job id → matrix value (GitHub `strategy.matrix`, GitLab `parallel.matrix`).
    matrices: BTreeMap<String, Value>,
    pos: Option<YamlPos>,
}

fn read(format: Format, text: &str) -> Result<Read, (Option<u32>, String)> {
    if format == Format::Jenkins {
        return Ok(Read {
            side: jenkins(text),
            ..Read::default()
        });
    }
    let doc = parse_yaml(text).map_err(|e| yaml_error(&e))?;
    let pos = YamlPos::new(text);
    let mut r = match format {
        Format::GitHub => github(&doc, &pos, false),
        Format::Composite => github(&doc, &pos, true),
        Format::GitLab => gitlab(&doc, &pos, false),
        Format::GitLabInclude => gitlab(&doc, &pos, true),
        Format::OtherYaml | Format::Jenkins => {
            if looks_gitlab(&doc) {
                gitlab(&doc, &pos, true)
            } else {
                other_yaml(&doc, &pos)
            }
        }
    };
    r.pos = Some(pos);
    Ok(r)
}

fn looks_gitlab(doc: &Value) -> bool {
    doc.as_mapping().is_some_and(|m| {
        m.iter().any(|(k, v)| {
            k.as_str().is_some_and(|k| !GITLAB_GLOBALS.contains(&k)) && v.get("script").is_some()
        }) && !m.contains_key("jobs")
            && !m.contains_key("pipelines")
            && !m.contains_key("steps")
            && !m.contains_key("version")
    })
}

/// The ways the change from `base` to `head` of CI file `path` weakens its test runs.
pub fn ci_weakenings(path: &str, base: Option<&[u8]>, head: Option<&[u8]>) -> Vec<Finding> {
    let Some(base) = base.filter(|b| b.len() <= MAX_SCAN_BYTES) else {
        return Vec::new();
    };
    if Some(base) == head {
        return Vec::new();
    }
    let format = format_of(path);
    let Ok(b) = read(format, &normalize(base)) else {
        // A base that does not parse could not run: nothing to weaken.
        return Vec::new();
    };
    let ran = runs::effective_commands(&b.side);
    let Some(head) = head else {
        if ran.is_empty() {
            return Vec::new();
        }
        return vec![Finding::new(
            FindingKind::CiDeleted,
            path,
            format!(
                "CI configuration deleted; it ran {}",
                runs::list_commands(&ran)
            ),
        )];
    };
    if head.len() > MAX_SCAN_BYTES {
        return Vec::new();
    }
    let head_text = normalize(head);
    let h = match read(format, &head_text) {
        Ok(h) => h,
        Err((line, msg)) => {
            if ran.is_empty() {
                return Vec::new();
            }
            let f = Finding::new(
                FindingKind::CiWeakened,
                path,
                format!(
                    "no longer parses as YAML ({msg}), so CI cannot run {}",
                    runs::list_commands(&ran)
                ),
            );
            return vec![match line {
                Some(l) => f.at_line(l),
                None => f,
            }];
        }
    };
    let mut hits = runs::compare(&b.side, &h.side, Mode::Ci);
    if !ran.is_empty() {
        if let (Some(be), Some(he), Some(pos)) = (&b.events, &h.events, &h.pos) {
            hits.extend(trigger_changes(be, he, pos, &ran));
        }
        if let Some(pos) = &h.pos {
            hits.extend(matrix_hits(&b, &h, pos, format));
        }
    }
    hits.sort();
    hits.dedup();
    hits.into_iter()
        .map(|Hit { line, detail }| {
            let f = Finding::new(FindingKind::CiWeakened, path, detail);
            match line {
                Some(l) => f.at_line(l),
                None => f,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
