//! `incident.json` (schema `loki.incident/1`): one recorded crash.
//!
//! ```json
//! {"schema": "loki.incident/1", "run_id": "run_…", "recorded_at": "2026-…Z",
//!  "command": ["python3", "app.py"], "cwd": "/abs/dir", "seed": 42, "timeout_s": 600,
//!  "exit": {"code": 1, "signal": null},            (a death by signal: {"code": 139, "signal": 11, "signal_name": "SIGSEGV"})
//!  "stdout_tail": "…", "stderr_tail": "…",
//!  "crash": {"lang": "python", "kind": "ZeroDivisionError", "message": "division by zero"},
//!  "frames": [{"function": "average", "file": "/abs/dir/app.py", "line": 4}],
//!  "urls": [],
//!  "signature": {"id": "<16 hex>", "text": "ZeroDivisionError at average (app.py)",
//!                "exit_code": 1, "needles": ["ZeroDivisionError", "average"]},
//!  "env": {"os": "linux", "arch": "x86_64", "kernel": "6.1.0", "tools": {"python3": "Python 3.11.7"}},
//!  "env_vars": {"HOME": "…", "LOKI_SEED": "42", "PATH": "…", "PYTHONHASHSEED": "42", …},
//!  "env_secrets": ["GITHUB_TOKEN", "OPENAI_API_KEY"],
//!  "repro": "repro.sh"}
//! ```
//!
//! A crash of a web page (`loki run --url`, [`crate::web`]) adds `browser`:
//! `{"url": "http://127.0.0.1:8000/", "version": "Chromium 120.0.6099.224 …",
//!   "serve": "/abs/site", "steps": [{"click": "#save"}]}` (`serve` and `steps` omitted when
//! unused); its `command` is loki's page check and `env.tools.browser` the browser's version.
//!
//! `env_vars` is the command's whole environment except the variables in `env_secrets`, which
//! are recorded by name only (see [`crate::record`]): no secret value is ever written here.
//! `env_clean` (omitted when false) says the command ran with `--clean-env`.
//!
//! Loading validates before trusting: every required field is checked for presence and JSON type
//! and a problem names the field (`field exit.code must be an integer, found "one"`); unknown
//! fields are refused; `schema` must match; `run_id` must be the directory's name; `command` must
//! not be empty; `cwd` must be absolute; and `signature.id` must be the hash of
//! `signature.text`, so a hand-edited signature is caught rather than silently reproduced.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::HealError;
use crate::frames::{Frame, Lang};
use crate::signature::{Signature, id_of};

/// The schema tag.
pub const INCIDENT_SCHEMA: &str = "loki.incident/1";
/// File name inside the run directory.
pub const INCIDENT_FILE: &str = "incident.json";

/// How the program ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExitInfo {
    /// The shell's view: the code, or 128 + n for signal n.
    pub code: i32,
    #[serde(default)]
    pub signal: Option<i32>,
    /// The signal's name (`SIGSEGV`) when a signal ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal_name: Option<String>,
}

/// What crashed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CrashInfo {
    pub lang: Lang,
    pub kind: String,
    pub message: String,
}

/// Where it crashed: OS and the tool versions that matter for this crash.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fingerprint {
    pub os: String,
    pub arch: String,
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(default)]
    pub tools: BTreeMap<String, String>,
}

/// The page of a browser incident.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BrowserInfo {
    /// The URL as given (a path when `serve` is set).
    pub url: String,
    /// `chromium --version`.
    pub version: String,
    /// The directory loki served the page from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serve: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<loki_browser::Step>,
}

/// One recorded crash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Incident {
    pub schema: String,
    pub run_id: String,
    pub recorded_at: String,
    pub command: Vec<String>,
    pub cwd: String,
    pub seed: u64,
    pub timeout_s: u64,
    pub exit: ExitInfo,
    pub stdout_tail: String,
    pub stderr_tail: String,
    pub crash: CrashInfo,
    pub frames: Vec<Frame>,
    #[serde(default)]
    pub urls: Vec<Frame>,
    pub signature: Signature,
    pub env: Fingerprint,
    /// The command's environment, values included, without the variables of `env_secrets`.
    pub env_vars: BTreeMap<String, String>,
    /// Variables the command had whose values are never recorded; the reproduction takes them
    /// from the environment it runs in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env_secrets: Vec<String>,
    /// The command ran with `--clean-env` (secret-looking variables removed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub env_clean: bool,
    /// Set for a crash of a web page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browser: Option<BrowserInfo>,
    pub repro: String,
}

/// JSON types a field may be required to have.
#[derive(Debug, Clone, Copy)]
enum Ty {
    Str,
    Int,
    UInt,
    Obj,
    Arr,
    StrArr,
}

/// Required fields, dotted paths, checked in this order.
const REQUIRED: &[(&str, Ty)] = &[
    ("schema", Ty::Str),
    ("run_id", Ty::Str),
    ("recorded_at", Ty::Str),
    ("command", Ty::StrArr),
    ("cwd", Ty::Str),
    ("seed", Ty::UInt),
    ("timeout_s", Ty::UInt),
    ("exit", Ty::Obj),
    ("exit.code", Ty::Int),
    ("stdout_tail", Ty::Str),
    ("stderr_tail", Ty::Str),
    ("crash", Ty::Obj),
    ("crash.lang", Ty::Str),
    ("crash.kind", Ty::Str),
    ("crash.message", Ty::Str),
    ("frames", Ty::Arr),
    ("signature", Ty::Obj),
    ("signature.id", Ty::Str),
    ("signature.text", Ty::Str),
    ("signature.exit_code", Ty::Int),
    ("signature.needles", Ty::StrArr),
    ("env", Ty::Obj),
    ("env_vars", Ty::Obj),
    ("repro", Ty::Str),
];

fn ty_ok(v: &Value, ty: Ty) -> bool {
    match ty {
        Ty::Str => v.is_string(),
        Ty::Int => v.as_i64().is_some_and(|n| i32::try_from(n).is_ok()),
        Ty::UInt => v.is_u64(),
        Ty::Obj => v.is_object(),
        Ty::Arr => v.is_array(),
        Ty::StrArr => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
    }
}

fn ty_name(ty: Ty) -> &'static str {
    match ty {
        Ty::Str => "a string",
        Ty::Int => "an integer",
        Ty::UInt => "a non-negative integer",
        Ty::Obj => "an object",
        Ty::Arr => "an array",
        Ty::StrArr => "an array of strings",
    }
}

fn clip(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// Why an `incident.json` cannot be used: the field at fault, what it must be and what it holds.
#[derive(Debug, thiserror::Error)]
pub enum IncidentError {
    #[error("is not valid JSON (line {}, column {}): {error}", error.line(), error.column())]
    NotJson { error: serde_json::Error },
    /// `found` is the value, clipped to 40 characters.
    #[error("is not a JSON object (found {found})")]
    NotObject { found: String },
    #[error("field {field} is missing")]
    Missing { field: &'static str },
    #[error("field {field} must be {expected}, found {found}")]
    WrongType {
        field: &'static str,
        expected: &'static str,
        found: String,
    },
    /// The fields do not deserialize (an unknown field, a value out of range).
    #[error("{error}")]
    Fields { error: serde_json::Error },
    #[error("field schema is {found:?}, expected {INCIDENT_SCHEMA:?}")]
    Schema { found: String },
    #[error("field run_id is {found:?} but the incident is in run directory {dir}")]
    RunId { found: String, dir: String },
    #[error("field command is empty")]
    NoCommand,
    #[error("field cwd must be an absolute path, found {found:?}")]
    RelativeCwd { found: String },
    #[error("field signature.id does not match signature.text (the signature was edited by hand)")]
    SignatureEdited,
    #[error("field signature.needles holds an empty or multi-line entry")]
    BadNeedle,
    #[error("field repro must be a file name in the run directory, found {found:?}")]
    BadRepro { found: String },
}

/// Checks the shape of an incident (pure): the first problem, naming the field.
pub fn validate_value(v: &Value) -> Result<(), IncidentError> {
    if !v.is_object() {
        return Err(IncidentError::NotObject { found: clip(v) });
    }
    for (path, ty) in REQUIRED {
        let mut cur = v;
        for part in path.split('.') {
            match cur.get(part) {
                Some(next) => cur = next,
                None => return Err(IncidentError::Missing { field: path }),
            }
        }
        if !ty_ok(cur, *ty) {
            return Err(IncidentError::WrongType {
                field: path,
                expected: ty_name(*ty),
                found: clip(cur),
            });
        }
    }
    Ok(())
}

/// Checks what the types cannot: schema, identity, and that the signature was not edited.
pub fn check_semantics(inc: &Incident, dir_name: Option<&str>) -> Result<(), IncidentError> {
    if inc.schema != INCIDENT_SCHEMA {
        return Err(IncidentError::Schema {
            found: inc.schema.clone(),
        });
    }
    if let Some(d) = dir_name
        && d != inc.run_id
    {
        return Err(IncidentError::RunId {
            found: inc.run_id.clone(),
            dir: d.to_string(),
        });
    }
    if inc.command.is_empty() || inc.command[0].is_empty() {
        return Err(IncidentError::NoCommand);
    }
    if !Path::new(&inc.cwd).is_absolute() {
        return Err(IncidentError::RelativeCwd {
            found: inc.cwd.clone(),
        });
    }
    if inc.signature.id != id_of(&inc.signature.text) {
        return Err(IncidentError::SignatureEdited);
    }
    if inc
        .signature
        .needles
        .iter()
        .any(|n| n.contains('\n') || n.is_empty())
    {
        return Err(IncidentError::BadNeedle);
    }
    if inc.repro.contains('/') || inc.repro.is_empty() {
        return Err(IncidentError::BadRepro {
            found: inc.repro.clone(),
        });
    }
    Ok(())
}

/// Parses and validates incident text (pure). `dir_name` is the run directory's name.
pub fn parse(text: &str, dir_name: Option<&str>) -> Result<Incident, IncidentError> {
    let v: Value = serde_json::from_str(text).map_err(|error| IncidentError::NotJson { error })?;
    validate_value(&v)?;
    let inc: Incident =
        serde_json::from_value(v).map_err(|error| IncidentError::Fields { error })?;
    check_semantics(&inc, dir_name)?;
    Ok(inc)
}

/// Reads `<run_dir>/incident.json` and its raw bytes (hashed into the heal receipt).
pub fn load(run_dir: &Path) -> Result<(Incident, Vec<u8>), HealError> {
    let path = run_dir.join(INCIDENT_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(HealError::NotAnIncident {
                run: run_dir
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                path,
            });
        }
        Err(e) => return Err(HealError::io("read", path, e)),
    };
    let text = String::from_utf8_lossy(&bytes);
    let dir_name = run_dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let inc = parse(&text, dir_name.as_deref()).map_err(|problem| HealError::BadIncident {
        path: path.clone(),
        problem: problem.to_string(),
    })?;
    Ok((inc, bytes))
}

/// Writes `<run_dir>/incident.json` atomically.
pub fn save(run_dir: &Path, inc: &Incident) -> Result<PathBuf, HealError> {
    let path = run_dir.join(INCIDENT_FILE);
    loki_core::fs::write_json_atomic(&path, inc)?;
    Ok(path)
}

/// The incident a `run` argument of `loki fix` or `loki replay` names: an id (checked to be a
/// run of `repo`), or the newest incident for `latest` or none.
pub fn named(
    repo: &loki_core::layout::Repo,
    arg: Option<&str>,
) -> Result<loki_core::RunId, HealError> {
    match arg {
        None | Some("latest") => crate::fix::latest_incident(repo),
        Some(id) => {
            let id: loki_core::RunId = id.parse()?;
            crate::fix::incident_dir(repo, &id)?;
            Ok(id)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn sample() -> Incident {
        let text = "ZeroDivisionError at average (app.py)".to_string();
        Incident {
            schema: INCIDENT_SCHEMA.into(),
            run_id: "run_20260101_000000_abcd".into(),
            recorded_at: "2026-01-01T00:00:00.000Z".into(),
            command: vec!["python3".into(), "app.py".into()],
            cwd: "/tmp/x".into(),
            seed: 7,
            timeout_s: 60,
            exit: ExitInfo {
                code: 1,
                signal: None,
                signal_name: None,
            },
            stdout_tail: String::new(),
            stderr_tail: "ZeroDivisionError: division by zero".into(),
            crash: CrashInfo {
                lang: Lang::Python,
                kind: "ZeroDivisionError".into(),
                message: "division by zero".into(),
            },
            frames: vec![],
            urls: vec![],
            signature: Signature {
                id: id_of(&text),
                text,
                exit_code: 1,
                needles: vec!["ZeroDivisionError".into()],
            },
            env: Fingerprint::default(),
            env_vars: BTreeMap::new(),
            env_secrets: Vec::new(),
            env_clean: false,
            browser: None,
            repro: "repro.sh".into(),
        }
    }

    fn edited(f: impl FnOnce(&mut Value)) -> Result<Incident, String> {
        let mut v = serde_json::to_value(sample()).unwrap();
        f(&mut v);
        parse(&v.to_string(), Some("run_20260101_000000_abcd")).map_err(|e| e.to_string())
    }

    #[test]
    fn a_valid_incident_round_trips() {
        assert_eq!(edited(|_| {}).unwrap(), sample());
    }

    #[test]
    fn problems_name_the_field() {
        let e = edited(|v| v["exit"]["code"] = "one".into()).unwrap_err();
        assert_eq!(e, "field exit.code must be an integer, found \"one\"");
        let e = edited(|v| {
            v.as_object_mut().unwrap().remove("signature");
        })
        .unwrap_err();
        assert_eq!(e, "field signature is missing");
        let e = edited(|v| v["signature"]["text"] = "something else".into()).unwrap_err();
        assert!(e.contains("field signature.id"), "{e}");
        let e = edited(|v| v["run_id"] = "run_20990101_000000_beef".into()).unwrap_err();
        assert!(e.contains("field run_id"), "{e}");
        let e = edited(|v| v["extra"] = 1.into()).unwrap_err();
        assert!(e.contains("unknown field `extra`"), "{e}");
        let e = parse("{not json", None).unwrap_err().to_string();
        assert!(e.starts_with("is not valid JSON (line 1"), "{e}");
        let e = edited(|v| v["repro"] = "../../bin/sh".into()).unwrap_err();
        assert!(e.contains("field repro"), "{e}");
    }
}
