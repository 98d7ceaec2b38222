//! CI weakened (rule 6): workflows are parsed, their test steps found, and base and head compared
//! by what they run, not by phrases.
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
//! Every base test run that could fail is compared with its head partner ([`super::runs`]): a step
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

use std::collections::{BTreeMap, BTreeSet};

use serde_yaml_ng::{Mapping, Value};

use super::lex::normalize;
use super::runs::{self, Ctx, Gate, Hit, Side, Src};
use super::shell::Opts;
use super::testcmd::{Cat, Mode};
use super::yamlpos::{Seg, YamlPos};
use super::{Finding, FindingKind, MAX_SCAN_BYTES};

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
pub(crate) fn is_gitlab_include(path: &str, base: Option<&[u8]>, head: Option<&[u8]>) -> bool {
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
pub(crate) fn ci_weakenings(path: &str, base: Option<&[u8]>, head: Option<&[u8]>) -> Vec<Finding> {
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

// ---------------------------------------------------------------------------------------------
// Helpers over YAML values

fn key(s: &str) -> Seg {
    Seg::Key(s.to_owned())
}

fn str_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn env_of(v: Option<&Value>, into: &mut BTreeMap<String, String>) {
    let Some(m) = v.and_then(Value::as_mapping) else {
        return;
    };
    for (k, v) in m {
        let Some(k) = k.as_str() else { continue };
        // GitLab allows `VAR: {value: x, description: y}`.
        let v = v.get("value").unwrap_or(v);
        if let Some(s) = str_of(Some(v)) {
            into.insert(k.to_owned(), s);
        }
    }
}

/// The line of the script that starts at `path`, and whether its lines follow one another in the
/// file (a `|` block scalar) or all map to its key line.
fn script_start(pos: &YamlPos, path: &[Seg]) -> (Option<u32>, bool) {
    let Some(line) = pos.line(path) else {
        return (None, false);
    };
    let raw = pos.raw(line).unwrap_or("");
    let value = raw
        .split_once(": ")
        .map_or(raw.trim_start().trim_start_matches("- "), |(_, v)| v);
    let value = value.trim();
    let block = value.starts_with('|') || value.starts_with('>');
    if block || value.is_empty() || raw.trim_end().ends_with(':') {
        (Some(line + 1), value.starts_with('|'))
    } else {
        (Some(line), false)
    }
}

fn render(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        Value::Sequence(s) => format!("[{}]", s.iter().map(render).collect::<Vec<_>>().join(", ")),
        Value::Mapping(m) => format!(
            "{{{}}}",
            m.iter()
                .map(|(k, v)| format!("{}: {}", render(k), render(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Tagged(t) => render(&t.value),
    }
}

// ---------------------------------------------------------------------------------------------
// GitHub expressions

#[derive(Debug, Clone, PartialEq)]
enum Ev {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Unknown,
}

impl Ev {
    fn truthy(&self) -> Option<bool> {
        match self {
            Ev::Null => Some(false),
            Ev::Bool(b) => Some(*b),
            Ev::Num(n) => Some(*n != 0.0 && !n.is_nan()),
            Ev::Str(s) => Some(!s.is_empty()),
            Ev::Unknown => None,
        }
    }

    fn num(&self) -> f64 {
        match self {
            Ev::Null => 0.0,
            Ev::Bool(b) => f64::from(u8::from(*b)),
            Ev::Num(n) => *n,
            Ev::Str(s) if s.trim().is_empty() => 0.0,
            Ev::Str(s) => s.trim().parse().unwrap_or(f64::NAN),
            Ev::Unknown => f64::NAN,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
enum ETok {
    LParen,
    RParen,
    Not,
    And,
    Or,
    Cmp(&'static str),
    Comma,
    Str(String),
    Num(f64),
    Ident(String),
}

fn expr_tokens(s: &str) -> Option<Vec<ETok>> {
    let cs: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        let next = cs.get(i + 1).copied();
        match c {
            ' ' | '\t' | '\n' => i += 1,
            '(' => {
                out.push(ETok::LParen);
                i += 1;
            }
            ')' => {
                out.push(ETok::RParen);
                i += 1;
            }
            ',' => {
                out.push(ETok::Comma);
                i += 1;
            }
            '&' if next == Some('&') => {
                out.push(ETok::And);
                i += 2;
            }
            '|' if next == Some('|') => {
                out.push(ETok::Or);
                i += 2;
            }
            '=' if next == Some('=') => {
                out.push(ETok::Cmp("=="));
                i += 2;
            }
            '!' if next == Some('=') => {
                out.push(ETok::Cmp("!="));
                i += 2;
            }
            '!' => {
                out.push(ETok::Not);
                i += 1;
            }
            '<' | '>' => {
                let eq = next == Some('=');
                out.push(ETok::Cmp(match (c, eq) {
                    ('<', true) => "<=",
                    ('<', false) => "<",
                    (_, true) => ">=",
                    _ => ">",
                }));
                i += if eq { 2 } else { 1 };
            }
            '\'' | '"' => {
                let mut t = String::new();
                i += 1;
                loop {
                    match cs.get(i) {
                        None => return None,
                        Some(&q) if q == c && cs.get(i + 1) == Some(&c) => {
                            t.push(c);
                            i += 2;
                        }
                        Some(&q) if q == c => {
                            i += 1;
                            break;
                        }
                        Some(&q) => {
                            t.push(q);
                            i += 1;
                        }
                    }
                }
                out.push(ETok::Str(t));
            }
            c if c.is_ascii_digit() || (c == '-' && next.is_some_and(|n| n.is_ascii_digit())) => {
                let start = i;
                i += 1;
                while cs
                    .get(i)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.')
                {
                    i += 1;
                }
                let t: String = cs[start..i].iter().collect();
                out.push(ETok::Num(t.parse().unwrap_or(f64::NAN)));
            }
            c if c.is_alphanumeric() || c == '_' || c == '$' => {
                let start = i;
                let mut depth = 0usize;
                while let Some(&c) = cs.get(i) {
                    if c == '[' {
                        depth += 1;
                    } else if c == ']' {
                        depth = depth.saturating_sub(1);
                    } else if depth == 0
                        && !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '*' | '$'))
                    {
                        break;
                    }
                    i += 1;
                }
                out.push(ETok::Ident(cs[start..i].iter().collect()));
            }
            _ => return None,
        }
    }
    Some(out)
}

struct Expr<'a> {
    toks: Vec<ETok>,
    i: usize,
    event: Option<&'a str>,
    depth: usize,
}

impl Expr<'_> {
    fn peek(&self) -> Option<&ETok> {
        self.toks.get(self.i)
    }

    fn or(&mut self) -> Ev {
        let mut l = self.and();
        while self.peek() == Some(&ETok::Or) {
            self.i += 1;
            let r = self.and();
            l = match (l.truthy(), r.truthy()) {
                (Some(true), _) => l,
                (Some(false), _) | (None, Some(true)) => r,
                (None, _) => Ev::Unknown,
            };
        }
        l
    }

    fn and(&mut self) -> Ev {
        let mut l = self.cmp();
        while self.peek() == Some(&ETok::And) {
            self.i += 1;
            let r = self.cmp();
            l = match (l.truthy(), r.truthy()) {
                (Some(false), _) => l,
                (Some(true), _) => r,
                (None, Some(false)) => Ev::Bool(false),
                (None, _) => Ev::Unknown,
            };
        }
        l
    }

    fn cmp(&mut self) -> Ev {
        let l = self.unary();
        let Some(ETok::Cmp(op)) = self.peek().cloned() else {
            return l;
        };
        self.i += 1;
        let r = self.unary();
        if l == Ev::Unknown || r == Ev::Unknown {
            return Ev::Unknown;
        }
        let eq = match (&l, &r) {
            (Ev::Str(a), Ev::Str(b)) => a.eq_ignore_ascii_case(b),
            (Ev::Null, Ev::Null) => true,
            (Ev::Bool(a), Ev::Bool(b)) => a == b,
            _ => l.num() == r.num(),
        };
        Ev::Bool(match op {
            "==" => eq,
            "!=" => !eq,
            "<" => l.num() < r.num(),
            "<=" => l.num() <= r.num(),
            ">" => l.num() > r.num(),
            _ => l.num() >= r.num(),
        })
    }

    fn unary(&mut self) -> Ev {
        if self.peek() == Some(&ETok::Not) {
            self.i += 1;
            return match self.unary().truthy() {
                Some(b) => Ev::Bool(!b),
                None => Ev::Unknown,
            };
        }
        self.primary()
    }

    fn primary(&mut self) -> Ev {
        let Some(t) = self.peek().cloned() else {
            return Ev::Unknown;
        };
        self.i += 1;
        match t {
            ETok::LParen => {
                if self.depth > 32 {
                    return Ev::Unknown;
                }
                self.depth += 1;
                let v = self.or();
                self.depth -= 1;
                if self.peek() == Some(&ETok::RParen) {
                    self.i += 1;
                }
                v
            }
            ETok::Str(s) => Ev::Str(s),
            ETok::Num(n) => Ev::Num(n),
            ETok::Ident(id) => {
                if self.peek() == Some(&ETok::LParen) {
                    // A function call: skip its arguments.
                    let mut depth = 0usize;
                    while let Some(t) = self.peek() {
                        match t {
                            ETok::LParen => depth += 1,
                            ETok::RParen => {
                                depth = depth.saturating_sub(1);
                                if depth == 0 {
                                    self.i += 1;
                                    break;
                                }
                            }
                            _ => {}
                        }
                        self.i += 1;
                    }
                    return match id.to_ascii_lowercase().as_str() {
                        "success" | "always" => Ev::Bool(true),
                        "failure" | "cancelled" => Ev::Bool(false),
                        _ => Ev::Unknown,
                    };
                }
                match id.as_str() {
                    "true" => Ev::Bool(true),
                    "false" => Ev::Bool(false),
                    "null" => Ev::Null,
                    "github.event_name" => {
                        self.event.map_or(Ev::Unknown, |e| Ev::Str(e.to_owned()))
                    }
                    _ => Ev::Unknown,
                }
            }
            _ => Ev::Unknown,
        }
    }
}

fn eval_expr(s: &str, event: Option<&str>) -> Ev {
    let s = s.replace("${{", " ").replace("}}", " ");
    if s.trim().is_empty() {
        return Ev::Str(String::new());
    }
    let Some(toks) = expr_tokens(&s) else {
        return Ev::Unknown;
    };
    let mut e = Expr {
        toks,
        i: 0,
        event,
        depth: 0,
    };
    let v = e.or();
    if e.i < e.toks.len() { Ev::Unknown } else { v }
}

fn eval_value(v: &Value, event: Option<&str>) -> Ev {
    match v {
        Value::Bool(b) => Ev::Bool(*b),
        Value::Number(n) => Ev::Num(n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => eval_expr(s, event),
        Value::Null => Ev::Bool(true),
        _ => Ev::Unknown,
    }
}

/// Whether a GitHub `if:` is false for every event considered.
fn never_true(v: &Value, events: &[Option<String>]) -> bool {
    events
        .iter()
        .all(|e| eval_value(v, e.as_deref()).truthy() == Some(false))
}

fn always_true(v: &Value) -> bool {
    eval_value(v, None).truthy() == Some(true) && !v.is_null()
}

fn show_if(v: &Value) -> String {
    let s = render(v);
    if s.chars().count() > 60 {
        s.chars().take(57).collect::<String>() + "..."
    } else {
        s
    }
}

// ---------------------------------------------------------------------------------------------
// GitHub Actions

fn events_of(on: Option<&Value>) -> BTreeMap<String, Value> {
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
fn considered(events: &BTreeMap<String, Value>) -> Vec<Option<String>> {
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
            let words = super::shell::split_words(s);
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

fn github(doc: &Value, pos: &YamlPos, composite: bool) -> Read {
    let mut r = Read::default();
    let mut wf_env = BTreeMap::new();
    env_of(doc.get("env"), &mut wf_env);
    let events = events_of(doc.get("on"));
    let judged = considered(&events);
    r.events = (!composite).then(|| events.clone());
    let wf_shell = str_of(
        doc.get("defaults")
            .and_then(|d| d.get("run"))
            .and_then(|r| r.get("shell")),
    );
    let wf_dir = str_of(
        doc.get("defaults")
            .and_then(|d| d.get("run"))
            .and_then(|r| r.get("working-directory")),
    );
    r.side.jobs_line = pos.line(&[key("jobs")]);
    let jobs: Vec<(String, &Value)> = if composite {
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
    };
    for (id, job) in jobs {
        let base_path: Vec<Seg> = if composite {
            vec![key("runs")]
        } else {
            vec![key("jobs"), key(&id)]
        };
        let at = |extra: &[&str]| {
            let mut p = base_path.clone();
            p.extend(extra.iter().map(|k| key(k)));
            p
        };
        let name = str_of(job.get("name"))
            .filter(|n| !n.contains("${{"))
            .unwrap_or_else(|| id.clone());
        let label = if composite {
            "the composite action".to_owned()
        } else {
            format!("job `{name}`")
        };
        r.side
            .jobs
            .insert(id.clone(), (label.clone(), pos.line(&base_path)));
        let mut gates = Vec::new();
        if let Some(cond) = job.get("if")
            && never_true(cond, &judged)
        {
            gates.push(Gate {
                cat: Cat::NeverRuns,
                why: format!(
                    "`if: {}` is never true on push or pull request",
                    show_if(cond)
                ),
                label: label.clone(),
                line: pos.line(&at(&["if"])),
            });
        }
        if let Some(c) = job.get("continue-on-error").filter(|c| always_true(c)) {
            gates.push(Gate {
                cat: Cat::CannotFail,
                why: format!("`continue-on-error: {}`", show_if(c)),
                label: label.clone(),
                line: pos.line(&at(&["continue-on-error"])),
            });
        }
        if let Some(m) = job.get("strategy").and_then(|s| s.get("matrix")) {
            r.matrices.insert(id.clone(), m.clone());
        }
        let mut env = wf_env.clone();
        env_of(job.get("env"), &mut env);
        let job_run = job.get("defaults").and_then(|d| d.get("run"));
        let job_shell = str_of(job_run.and_then(|r| r.get("shell"))).or_else(|| wf_shell.clone());
        let job_dir =
            str_of(job_run.and_then(|r| r.get("working-directory"))).or_else(|| wf_dir.clone());
        let windows = str_of(job.get("runs-on")).is_some_and(|r| r.contains("windows"));
        let Some(steps) = job.get("steps").and_then(Value::as_sequence) else {
            continue;
        };
        for (k, step) in steps.iter().enumerate() {
            let step_path = {
                let mut p = at(&["steps"]);
                p.push(Seg::Index(k));
                p
            };
            let step_at = |extra: &str| {
                let mut p = step_path.clone();
                p.push(key(extra));
                p
            };
            // Unnamed steps are shown as GitHub shows them: `Run` and the command's first line.
            let step_name = str_of(step.get("name"))
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
                .unwrap_or_else(|| format!("#{}", k + 1));
            let place = if composite {
                format!("composite action step `{step_name}`")
            } else {
                format!("job `{name}`, step `{step_name}`")
            };
            let step_label = if composite {
                format!("composite action step `{step_name}`")
            } else {
                format!("step `{step_name}` of job `{name}`")
            };
            let mut step_gates = gates.clone();
            if let Some(cond) = step.get("if")
                && never_true(cond, &judged)
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
            let mut step_env = env.clone();
            env_of(step.get("env"), &mut step_env);
            let shell = str_of(step.get("shell")).or_else(|| job_shell.clone());
            let cwd = str_of(step.get("working-directory"))
                .or_else(|| job_dir.clone())
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
                continue;
            };
            let Some(opts) = gh_opts(shell.as_deref(), windows) else {
                continue;
            };
            let ctx = Ctx {
                job: id.clone(),
                place,
                gates: step_gates,
                env: step_env,
                cwd: super::config::join("", &cwd),
                opts,
                cannot_fail: None,
            };
            runs::script_runs(&src, &ctx, None, &mut r.side);
        }
    }
    r
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

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Sequence(s)) => s.iter().filter_map(|x| str_of(Some(x))).collect(),
        Some(v) => str_of(Some(v)).into_iter().collect(),
        None => Vec::new(),
    }
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

fn trigger_changes(
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

// ---------------------------------------------------------------------------------------------
// Matrices

fn seq_items(v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Sequence(s) => Some(s.clone()),
        Value::String(s) if s.contains("${{") => None,
        Value::Mapping(_) => None,
        v => Some(vec![v.clone()]),
    }
}

fn github_matrix(b: &Value, h: &Value) -> Vec<(String, String)> {
    let (Some(bm), Some(hm)) = (b.as_mapping(), h.as_mapping()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, bv) in bm {
        let Some(name) = k.as_str() else { continue };
        if matches!(name, "include" | "exclude") {
            continue;
        }
        let Some(bl) = seq_items(bv) else { continue };
        match hm.get(k) {
            None if bl.len() > 1 => out.push((
                name.to_owned(),
                format!(
                    "`{name}` lost all its values ({})",
                    bl.iter().map(render).collect::<Vec<_>>().join(", ")
                ),
            )),
            None => {}
            Some(hv) => {
                let Some(hl) = seq_items(hv) else { continue };
                let lost: Vec<String> = bl.iter().filter(|x| !hl.contains(x)).map(render).collect();
                if !lost.is_empty() {
                    out.push((
                        name.to_owned(),
                        format!(
                            "`{name}` lost {}",
                            lost.iter()
                                .map(|x| format!("`{x}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
            }
        }
    }
    let list = |m: &Mapping, k: &str| {
        m.get(k)
            .and_then(Value::as_sequence)
            .cloned()
            .unwrap_or_default()
    };
    for x in list(hm, "exclude") {
        if !list(bm, "exclude").contains(&x) {
            out.push((
                "exclude".into(),
                format!("adds the exclusion `{}`", render(&x)),
            ));
        }
    }
    // An `include` entry is dropped when no head entry still names the values it selects by:
    // its scalar keys (`toolchain: beta`). Keys that only carry extra settings (`env:` maps)
    // may be reshaped (`env: {DO_FUZZ: 1}` → `fuzz: 1`) without running less.
    let selectors = |e: &Value| -> Vec<(Value, Value)> {
        e.as_mapping()
            .map(|m| {
                m.iter()
                    .filter(|(_, v)| !v.is_mapping() && !v.is_sequence())
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    let head_includes = list(hm, "include");
    for x in list(bm, "include") {
        if head_includes.contains(&x) {
            continue;
        }
        let wanted = selectors(&x);
        let kept = !wanted.is_empty()
            && head_includes.iter().any(|h| {
                let have = selectors(h);
                let shared: Vec<&(Value, Value)> = wanted
                    .iter()
                    .filter(|(k, _)| have.iter().any(|(hk, _)| hk == k))
                    .collect();
                !shared.is_empty() && shared.iter().all(|kv| have.contains(kv))
            });
        if !kept {
            out.push((
                "include".into(),
                format!("drops the entry `{}`", render(&x)),
            ));
        }
    }
    out
}

/// GitLab `parallel: matrix` as the set of variable combinations it runs.
fn gitlab_combos(v: &Value) -> Option<BTreeSet<String>> {
    let entries = v.as_sequence()?;
    let mut out = BTreeSet::new();
    for e in entries {
        let m = e.as_mapping()?;
        let mut combos: Vec<Vec<(String, String)>> = vec![Vec::new()];
        for (k, v) in m {
            let name = render(k);
            let values: Vec<String> = seq_items(v)?.iter().map(render).collect();
            let mut next = Vec::new();
            for c in &combos {
                for val in &values {
                    let mut c = c.clone();
                    c.push((name.clone(), val.clone()));
                    next.push(c);
                    if next.len() > 4096 {
                        return None;
                    }
                }
            }
            combos = next;
        }
        for mut c in combos {
            c.sort();
            out.insert(format!(
                "{{{}}}",
                c.iter()
                    .map(|(k, v)| format!("{k}: {v}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    Some(out)
}

fn matrix_hits(b: &Read, h: &Read, pos: &YamlPos, format: Format) -> Vec<Hit> {
    let mut out = Vec::new();
    let tested: BTreeSet<&String> = b.side.runs.iter().map(|r| &r.job).collect();
    for (job, bm) in &b.matrices {
        if !tested.contains(job) {
            continue;
        }
        let Some(hm) = h.matrices.get(job) else {
            continue;
        };
        let label = h
            .side
            .jobs
            .get(job)
            .map_or_else(|| format!("job `{job}`"), |(l, _)| l.clone());
        match format {
            Format::GitHub => {
                for (k, what) in github_matrix(bm, hm) {
                    out.push(Hit {
                        line: pos.line(&[
                            key("jobs"),
                            key(job),
                            key("strategy"),
                            key("matrix"),
                            key(&k),
                        ]),
                        detail: format!("the matrix of {label} shrank: {what}"),
                    });
                }
            }
            _ => {
                let (Some(bc), Some(hc)) = (gitlab_combos(bm), gitlab_combos(hm)) else {
                    continue;
                };
                let lost: Vec<&String> = bc.difference(&hc).collect();
                if !lost.is_empty() {
                    out.push(Hit {
                        line: pos.line(&[key(job), key("parallel"), key("matrix")]),
                        detail: format!(
                            "the matrix of {label} shrank: it no longer runs {}",
                            lost.iter()
                                .map(|x| format!("`{x}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    });
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// GitLab CI

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

fn flat_scripts(v: Option<&Value>) -> Vec<(usize, String)> {
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

fn gitlab(doc: &Value, pos: &YamlPos, fragment: bool) -> Read {
    let mut r = Read::default();
    let Some(all) = doc.as_mapping() else {
        return r;
    };
    let mut global_env = BTreeMap::new();
    env_of(all.get("variables"), &mut global_env);
    let default = all.get("default");
    let default_before = default
        .and_then(|d| d.get("before_script"))
        .or_else(|| all.get("before_script"));
    let default_after = default
        .and_then(|d| d.get("after_script"))
        .or_else(|| all.get("after_script"));
    let mut pipeline_gates = Vec::new();
    if let Some(rules) = all
        .get("workflow")
        .and_then(|w| w.get("rules"))
        .and_then(Value::as_sequence)
        && let RuleOutcome::Never(why) = gl_rules(rules)
    {
        pipeline_gates.push(Gate {
            cat: Cat::NeverRuns,
            why: format!("`workflow: rules`: {why}"),
            label: "the pipeline".into(),
            line: pos.line(&[key("workflow"), key("rules")]),
        });
    }
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
        let jpath = [key(id)];
        let at = |k: &str| [key(id), key(k)];
        r.side
            .jobs
            .insert(id.to_owned(), (label.clone(), pos.line(&jpath)));
        let mut gates = pipeline_gates.clone();
        if let Some(why) = str_of(job.get("when")).and_then(|w| gl_when(&w)) {
            gates.push(Gate {
                cat: Cat::NeverRuns,
                why,
                label: label.clone(),
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
                    label: label.clone(),
                    line: pos.line(&at("rules")),
                }),
                RuleOutcome::Runs {
                    allow_failure: true,
                } => allow_failure = true,
                RuleOutcome::Runs { .. } => {}
            }
        }
        if let Some(why) = gl_only_except(&job) {
            let line = pos
                .line(&at("only"))
                .filter(|_| job.get("only").is_some())
                .or_else(|| pos.line(&at("except")));
            gates.push(Gate {
                cat: Cat::NeverRuns,
                why,
                label: label.clone(),
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
                label: label.clone(),
                line: pos
                    .line(&at("allow_failure"))
                    .or_else(|| pos.line(&at("rules"))),
            });
        }
        if let Some(m) = job.get("parallel").and_then(|p| p.get("matrix")) {
            r.matrices.insert(id.to_owned(), m.clone());
        }
        let mut env = global_env.clone();
        env_of(job.get("variables"), &mut env);
        let inherit_default = job
            .get("inherit")
            .and_then(|i| i.get("default"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        let mut src = Src::default();
        let before = job.get("before_script").or(if inherit_default {
            default_before
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
            place: label.clone(),
            gates: gates.clone(),
            env: env.clone(),
            cwd: String::new(),
            opts: Opts {
                errexit: true,
                pipefail: true,
            },
            cannot_fail: None,
        };
        runs::script_runs(&src, &ctx, None, &mut r.side);
        let after = job
            .get("after_script")
            .or(if inherit_default { default_after } else { None });
        let mut after_src = Src::default();
        for (i, text) in flat_scripts(after) {
            let (first, literal) =
                script_start(pos, &[key(id), key("after_script"), Seg::Index(i)]);
            after_src.push(&text, first, literal);
        }
        let after_ctx = Ctx {
            place: format!("{label}, after_script"),
            cannot_fail: Some(
                "it runs in `after_script`, whose failures never fail the job".into(),
            ),
            ..ctx
        };
        runs::script_runs(&after_src, &after_ctx, None, &mut r.side);
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Other YAML CI (CircleCI, Azure Pipelines, Bitbucket)

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

fn other_yaml(doc: &Value, pos: &YamlPos) -> Read {
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
            let mut gates = gates.to_vec();
            let label = format!("`{job}`");
            for k in UNFAILING_KEYS {
                if let Some(x) = m.get(*k).filter(|x| always_true(x)) {
                    let mut p = path.clone();
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
                        let mut p = path.clone();
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
            for (k, x) in m {
                let Some(name) = k.as_str() else { continue };
                path.push(key(name));
                let scripts = SCRIPT_KEYS.contains(&name) || AFTER_KEYS.contains(&name);
                if scripts && (x.is_string() || x.is_sequence()) {
                    let mut src = Src::default();
                    match x {
                        Value::String(s) => {
                            let (first, literal) = script_start(pos, path);
                            src.push(s, first, literal);
                        }
                        _ => {
                            for (i, text) in flat_scripts(Some(x)) {
                                let mut p = path.clone();
                                p.push(Seg::Index(i));
                                let (first, literal) = script_start(pos, &p);
                                src.push(&text, first, literal);
                            }
                        }
                    }
                    let ctx = Ctx {
                        job: job.clone(),
                        place: format!("`{job}`"),
                        gates: gates.clone(),
                        env: BTreeMap::new(),
                        cwd: String::new(),
                        opts: Opts {
                            errexit: true,
                            pipefail: false,
                        },
                        cannot_fail: AFTER_KEYS.contains(&name).then(|| {
                            format!("it runs in `{name}`, whose failures never fail the step")
                        }),
                    };
                    if !job.is_empty() {
                        side.jobs.insert(
                            job.clone(),
                            (format!("`{job}`"), pos.line(&path[..path.len().min(2)])),
                        );
                    }
                    runs::script_runs(&src, &ctx, None, side);
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

// ---------------------------------------------------------------------------------------------
// Jenkinsfile

/// The `sh`/`bat` call being read.
struct ShCall {
    depth: usize,
    parens: bool,
    args: String,
    script: Option<(String, u32)>,
}

/// `sh`/`bat` strings of a Jenkinsfile with their stage, gates and line.
fn jenkins(text: &str) -> Side {
    let cs: Vec<char> = text.chars().collect();
    let mut side = Side::default();
    let mut line = 1u32;
    let mut i = 0;
    // Blocks we are in (`catchError(...) {`, `stage('x') {`), with their call arguments.
    let mut blocks: Vec<(String, String)> = Vec::new();
    // Open calls (name, arguments so far) and the last one closed, for `name(args) {`.
    let mut calls: Vec<(String, String)> = Vec::new();
    let mut closed: Option<(String, String)> = None;
    let mut last_ident = String::new();
    let mut stage = String::new();
    let mut pending_stage: Option<String> = None;
    let mut sh: Option<ShCall> = None;
    let finish = |side: &mut Side, call: ShCall, stage: &str, blocks: &[(String, String)]| {
        if let Some((script, at)) = call.script {
            push_jenkins(side, &script, at, stage, blocks, &call.args);
        }
    };
    while let Some(&c) = cs.get(i) {
        let next = cs.get(i + 1).copied();
        if c == '\n' {
            // A call without parentheses (`sh script: 'x', returnStatus: true`) ends with its line.
            if sh.as_ref().is_some_and(|s| !s.parens && s.script.is_some())
                && let Some(call) = sh.take()
            {
                finish(&mut side, call, &stage, &blocks);
            }
            line += 1;
            i += 1;
            continue;
        }
        if c == '/' && next == Some('/') {
            while cs.get(i).is_some_and(|c| *c != '\n') {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            i += 2;
            while i < cs.len() && !(cs[i] == '*' && cs.get(i + 1) == Some(&'/')) {
                if cs[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            i += 2;
            continue;
        }
        if c == '\'' || c == '"' {
            let triple = cs.get(i + 1) == Some(&c) && cs.get(i + 2) == Some(&c);
            let start_line = line;
            let mut s = String::new();
            i += if triple { 3 } else { 1 };
            while let Some(&d) = cs.get(i) {
                if d == '\\' {
                    if let Some(&n) = cs.get(i + 1) {
                        s.push(n);
                    }
                    i += 2;
                    continue;
                }
                if triple && d == c && cs.get(i + 1) == Some(&c) && cs.get(i + 2) == Some(&c) {
                    i += 3;
                    break;
                }
                if !triple && (d == c || d == '\n') {
                    i += usize::from(d == c);
                    break;
                }
                if d == '\n' {
                    line += 1;
                }
                s.push(d);
                i += 1;
            }
            if last_ident == "stage" {
                pending_stage = Some(s.clone());
            }
            closed = None;
            if let Some((_, args)) = calls.last_mut() {
                args.push_str(&format!("'{s}'"));
            }
            if let Some(call) = sh.as_mut() {
                let key = call
                    .args
                    .rsplit([',', '('])
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_owned();
                let named = key.strip_suffix(':').map(str::trim);
                if call.script.is_none() && matches!(named, None | Some("script")) {
                    call.script = Some((s.clone(), start_line));
                }
                call.args.push_str(&format!("'{s}'"));
                if !call.parens
                    && named.is_none()
                    && call.args.trim_start().starts_with('\'')
                    && let Some(call) = sh.take()
                {
                    finish(&mut side, call, &stage, &blocks);
                }
            }
            continue;
        }
        if c.is_alphanumeric() || c == '_' {
            let start = i;
            while cs.get(i).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
                i += 1;
            }
            last_ident = cs[start..i].iter().collect();
            closed = None;
            if let Some((_, args)) = calls.last_mut() {
                args.push(' ');
                args.push_str(&last_ident);
            }
            if let Some(call) = sh.as_mut() {
                call.args.push(' ');
                call.args.push_str(&last_ident);
            } else if matches!(last_ident.as_str(), "sh" | "bat" | "powershell" | "pwsh") {
                sh = Some(ShCall {
                    depth: calls.len(),
                    parens: false,
                    args: String::new(),
                    script: None,
                });
            }
            continue;
        }
        match c {
            '(' => {
                if let Some(call) = sh
                    .as_mut()
                    .filter(|s| !s.parens && s.args.trim().is_empty() && s.depth == calls.len())
                {
                    call.parens = true;
                } else if let Some(call) = sh.as_mut() {
                    call.args.push(c);
                }
                calls.push((last_ident.clone(), String::new()));
            }
            ')' => {
                closed = calls.pop();
                if let Some((_, args)) = calls.last_mut() {
                    args.push(c);
                }
                if sh
                    .as_ref()
                    .is_some_and(|s| s.parens && s.depth == calls.len())
                {
                    if let Some(call) = sh.take() {
                        finish(&mut side, call, &stage, &blocks);
                    }
                } else if let Some(call) = sh.as_mut() {
                    call.args.push(c);
                }
            }
            '{' => {
                let (name, args) = closed
                    .take()
                    .unwrap_or_else(|| (last_ident.clone(), String::new()));
                if let Some(s) = pending_stage.take() {
                    stage = s;
                }
                blocks.push((name, args));
                sh = None;
            }
            '}' => {
                blocks.pop();
                sh = None;
            }
            _ => {
                if let Some((_, args)) = calls.last_mut() {
                    args.push(c);
                }
                if let Some(call) = sh.as_mut() {
                    call.args.push(c);
                }
            }
        }
        i += 1;
    }
    if let Some(call) = sh.take() {
        finish(&mut side, call, &stage, &blocks);
    }
    side
}

fn push_jenkins(
    side: &mut Side,
    script: &str,
    line: u32,
    stage: &str,
    blocks: &[(String, String)],
    args: &str,
) {
    let job = if stage.is_empty() {
        "pipeline".to_owned()
    } else {
        stage.to_owned()
    };
    let label = format!("stage `{job}`");
    let mut gates = Vec::new();
    let compact: String = args.split_whitespace().collect();
    if compact.contains("returnStatus:true") {
        gates.push(Gate {
            cat: Cat::CannotFail,
            why: "`returnStatus: true` (the exit status is returned, not checked)".into(),
            label: label.clone(),
            line: Some(line),
        });
    }
    for (name, args) in blocks {
        let a: String = args.split_whitespace().collect();
        if name == "warnError" || (name == "catchError" && a.contains("buildResult:'SUCCESS'")) {
            gates.push(Gate {
                cat: Cat::CannotFail,
                why: format!("it runs inside `{name}`, which keeps the build green"),
                label: label.clone(),
                line: Some(line),
            });
        }
    }
    side.jobs.insert(job.clone(), (label.clone(), Some(line)));
    let ctx = Ctx {
        job,
        place: label,
        gates,
        env: BTreeMap::new(),
        cwd: String::new(),
        opts: Opts {
            errexit: true,
            pipefail: false,
        },
        cannot_fail: None,
    };
    let mut src = Src::default();
    src.push(script, Some(line), true);
    runs::script_runs(&src, &ctx, None, side);
}

#[cfg(test)]
mod tests;
