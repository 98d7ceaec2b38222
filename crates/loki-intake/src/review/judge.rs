//! `loki ci judge` apart from printing, and the report `post` and `comment` read back.
//!
//! [`prepare`] finds what is judged: the request in the CI's environment (when there is one),
//! the base (`--base REV`, else the fork point of the checkout and the request's target branch;
//! with neither, [`JudgeError::NoRequest`]), the declarations and the output directory. The
//! caller then says what an interruption leaves and calls [`Judging::judge`]: a sealed
//! `seal check` of the checkout against the base, rendered and written to the output directory
//! ([`super::out::write_out`]), with the exit code the gate gives (0 with `--no-fail`).
//!
//! [`post_report`] is `loki ci post` apart from printing: the job summary (GitHub Actions'
//! `GITHUB_STEP_SUMMARY`), the comment and the check (none for a request from a fork, whose
//! jobs hold a read-only token), then the step's outputs (`GITHUB_OUTPUT`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use loki_protocol::outcome::ExitCode;
use loki_receipt::schema::Declaration;
use loki_seal::CheckReport;
use loki_seal::report::Report;
use loki_seal::{SealError, SealOptions};
use serde_json::Value;

use super::{Ci, Conclusion, FailOn, OutError, Posted, Request, fork_point, gated, post, render};
use crate::IntakeError;

/// Why a request could not be judged, or a report not read back.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// Neither a request in the environment nor `--base`.
    #[error(
        "no pull or merge request here: run in a GitHub Actions pull_request job or a GitLab merge request pipeline (or say which with --ci), or name the revision with --base REV"
    )]
    NoRequest,
    /// The report just made does not parse as a report.
    #[error("the report does not read back as a report (a bug in loki)")]
    ReadBack(#[source] serde_json::Error),
    /// `--report FILE` cannot be read.
    #[error("cannot read the report {}: {error} (did `loki ci judge` run and fail before writing it? its log says why)", path.display())]
    Unreadable {
        path: PathBuf,
        error: std::io::Error,
    },
    /// `--report FILE` is not a `seal check --json` report.
    #[error("{} is not a `loki seal check --json` report: {error}", path.display())]
    NotAReport { path: PathBuf, error: String },
    #[error(transparent)]
    Intake(#[from] IntakeError),
    #[error(transparent)]
    Seal(#[from] SealError),
    #[error(transparent)]
    Out(#[from] OutError),
}

impl loki_core::exit::Classify for JudgeError {
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        use loki_core::exit::ExitClass;
        match self {
            JudgeError::NoRequest
            | JudgeError::Unreadable { .. }
            | JudgeError::NotAReport { .. } => ExitClass::Usage,
            JudgeError::ReadBack(_) => ExitClass::Failure,
            JudgeError::Intake(e) => e.exit_class(),
            JudgeError::Seal(e) => e.exit_class(),
            JudgeError::Out(e) => e.exit_class(),
        }
    }
}

/// What `judge` was asked, as the command line gives it.
#[derive(Debug, Clone, Copy)]
pub struct Ask<'a> {
    /// The repository's root.
    pub root: &'a Path,
    /// The directory relative paths are read from.
    pub cwd: &'a Path,
    /// The CI whose request is judged (`--ci`, else the detected one).
    pub ci: Option<Ci>,
    /// `--base REV`.
    pub base: Option<&'a str>,
    /// The remote the target branch is fetched from.
    pub remote: &'a str,
    /// `--declared FILE`.
    pub declared: Option<&'a Path>,
    /// `--out DIR` (default `.loki/ci` in the repository).
    pub out: Option<&'a Path>,
}

/// A request ready to be judged ([`prepare`]).
#[derive(Debug)]
pub struct Judging {
    pub request: Option<Request>,
    pub base: String,
    pub declared: Vec<Declaration>,
    pub out: PathBuf,
}

/// A judged request.
#[derive(Debug)]
pub struct Judged {
    pub report: CheckReport,
    /// The report as `seal check --json` prints it (and `report.json` holds it).
    pub json: Value,
    /// The gate's exit code (0 with `--no-fail`).
    pub code: ExitCode,
}

/// Finds what is judged (module doc).
pub fn prepare(ask: &Ask<'_>) -> Result<Judging, JudgeError> {
    let request = match ask.ci {
        Some(ci) => Some(Request::from_env(ci)?),
        None => None,
    };
    let base = match (ask.base, &request) {
        (Some(b), _) => b.to_string(),
        (None, Some(r)) => fork_point(ask.root, ask.remote, &r.target)?,
        (None, None) => return Err(JudgeError::NoRequest),
    };
    let declared = match ask.declared {
        Some(p) => loki_seal::declare::read_file(&ask.cwd.join(p))?,
        None => Vec::new(),
    };
    let out = ask
        .out
        .map_or_else(|| ask.root.join(".loki/ci"), |o| ask.cwd.join(o));
    Ok(Judging {
        request,
        base,
        declared,
        out,
    })
}

impl Judging {
    /// Judges the checkout at `root` (module doc) under the gate `fail_on` named `gate_name`;
    /// the signing key's public half is read from `home`.
    pub fn judge(
        &self,
        root: &Path,
        opts: &SealOptions,
        (fail_on, gate_name): (&FailOn, &str),
        home: Option<&Path>,
        no_fail: bool,
    ) -> Result<Judged, JudgeError> {
        let task = self.request.as_ref().map_or_else(
            || format!("loki seal check --base {}", self.base),
            Request::reference,
        );
        let report = loki_seal::check_sealed(root, &self.base, &self.declared, opts, &task)?;
        let json = report.to_json();
        let typed: Report = serde_json::from_value(json.clone()).map_err(JudgeError::ReadBack)?;
        let rendered = render(&typed, self.request.as_ref(), fail_on, gate_name);
        super::out::write_out(&self.out, &json, &rendered.body, &typed, home)?;
        let code = if no_fail {
            ExitCode::Success
        } else {
            gated(fail_on, report.verdict())
        };
        Ok(Judged { report, json, code })
    }

    /// The `--json` object of `loki ci judge`.
    #[must_use]
    pub fn summary_json(&self, judged: &Judged, fail_on: &FailOn) -> Value {
        let verdict = judged.report.verdict();
        serde_json::json!({
            "verdict": verdict,
            "conclusion": fail_on.conclusion(verdict),
            "fail_on": fail_on.keys(),
            "base": self.base,
            "request": self.request.as_ref().map(Request::reference),
            "receipt": judged.json.get("receipt"),
            "out": self.out,
        })
    }
}

/// The report `loki ci post` and `loki ci comment` read (`judge`'s `report.json`).
pub fn read_report(path: &Path) -> Result<Report, JudgeError> {
    let text = std::fs::read_to_string(path).map_err(|error| JudgeError::Unreadable {
        path: path.to_path_buf(),
        error,
    })?;
    Report::parse(&text).map_err(|e| JudgeError::NotAReport {
        path: path.to_path_buf(),
        error: e.to_string(),
    })
}

/// What `loki ci post` did: the check's conclusion, and the comment and check posted (`None`
/// for a request from a fork).
#[derive(Debug)]
pub struct PostedReport {
    pub conclusion: Conclusion,
    pub posted: Option<Posted>,
}

/// Posts `report` on `request` under the gate `fail_on` named `gate_name` (module doc), before
/// `deadline`; `on_fork` is told, once the job summary is written, that a request from a fork
/// gets no comment or check run.
pub fn post_report(
    report: &Report,
    request: &Request,
    (fail_on, gate_name): (&FailOn, &str),
    deadline: Instant,
    on_fork: impl FnOnce(&Request),
) -> Result<PostedReport, JudgeError> {
    let conclusion = fail_on.conclusion(report.verdict);
    let rendered = render(report, Some(request), fail_on, gate_name);
    if let Some(summary) = loki_core::env::GITHUB_STEP_SUMMARY.get_os() {
        super::out::append(Path::new(&summary), &format!("{}\n", rendered.summary))?;
    }
    let posted = if request.fork {
        on_fork(request);
        None
    } else {
        let endpoints = crate::Endpoints::from_env();
        Some(post(
            request, &rendered, conclusion, gate_name, &endpoints, deadline,
        )?)
    };
    if let Some(file) = loki_core::env::GITHUB_OUTPUT.get_os() {
        let lines = super::out::outputs(report, conclusion, posted.as_ref());
        super::out::append(Path::new(&file), &lines)?;
    }
    Ok(PostedReport { conclusion, posted })
}
