//! What a judged request leaves behind and says, besides the comment.
//!
//! - [`write_out`]: `loki ci judge --out DIR` gets `report.json` (the `seal check --json`
//!   report, pretty, with a final newline), `comment.md`, the sealed receipt's files
//!   (`receipt.json`, `receipt.dsse.json`, `receipt.md`, `events.jsonl`) and `pubkey.pem`, the
//!   signing key's public half, so `loki verify receipt.dsse.json --pubkey pubkey.pem` checks it
//!   there. A report without a receipt writes the first two only.
//! - [`outputs`]: the lines `loki ci post` appends to GitHub Actions' `GITHUB_OUTPUT`
//!   (`verdict`, `conclusion`, `passed`, `receipt-sha256`, `comment-url`), and [`append`] the
//!   runner's append-only protocol for it and for the job summary.
//! - [`gated`]: the exit code of a verdict under a gate: 0 when the check passes, else the
//!   verdict's `seal check` code.
//!
//! What `judge` and `post` print is `loki_term::ci`'s.

use std::path::{Path, PathBuf};

use loki_protocol::outcome::{ExitCode, Verdict};
use loki_seal::report::Report;

use super::{Conclusion, FailOn, Posted};

/// Why the files of a judged request could not be written, naming the file.
#[derive(Debug, thiserror::Error)]
pub enum OutError {
    /// The signing key's home is unknown, so its public half cannot be written.
    #[error(
        "neither LOKI_HOME nor HOME is set; set LOKI_HOME to a directory for loki's keys and cache"
    )]
    NoHome,
    #[error("cannot create the output directory {}", path.display())]
    OutDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot open {} to append to it", path.display())]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot append to {}", path.display())]
    Append {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Receipt(#[from] loki_receipt::ReceiptError),
}

impl loki_core::exit::Classify for OutError {
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        match self {
            OutError::Core(e) => e.exit_class(),
            OutError::Receipt(e) => e.exit_class(),
            OutError::NoHome => loki_core::exit::ExitClass::Usage,
            _ => loki_core::exit::ExitClass::Failure,
        }
    }
}

/// The receipt's files copied into the output directory.
const RECEIPT_FILES: [&str; 4] = [
    "receipt.json",
    "receipt.dsse.json",
    "receipt.md",
    "events.jsonl",
];

/// Writes the report (`json`, as `report` reads it), the comment, the receipt's files and the
/// public key of the signing key kept in `home` into `out` (see the module doc).
pub fn write_out(
    out: &Path,
    json: &serde_json::Value,
    comment: &str,
    report: &Report,
    home: Option<&Path>,
) -> Result<(), OutError> {
    std::fs::create_dir_all(out).map_err(|source| OutError::OutDir {
        path: out.to_path_buf(),
        source,
    })?;
    let text = serde_json::to_string_pretty(json)?;
    loki_core::fs::write_atomic(&out.join("report.json"), format!("{text}\n").as_bytes())?;
    loki_core::fs::write_atomic(&out.join("comment.md"), comment.as_bytes())?;
    let Some(receipt) = &report.receipt else {
        return Ok(());
    };
    for name in RECEIPT_FILES {
        let from = receipt.dir.join(name);
        let bytes = std::fs::read(&from).map_err(|source| OutError::Read { path: from, source })?;
        loki_core::fs::write_atomic(&out.join(name), &bytes)?;
    }
    let home = home.ok_or(OutError::NoHome)?;
    let signer = loki_receipt::Signer::load_or_create(home, &loki_receipt::KeyEnv::from_process())?;
    loki_core::fs::write_atomic(
        &out.join("pubkey.pem"),
        signer.export_public_pem()?.as_bytes(),
    )?;
    Ok(())
}

/// Appends `text` to one of the runner's files (`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`): the
/// runner's protocol is appending, so this is not loki's state.
pub fn append(path: &Path, text: &str) -> Result<(), OutError> {
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(|source| OutError::Open {
            path: path.to_path_buf(),
            source,
        })?;
    f.write_all(text.as_bytes())
        .map_err(|source| OutError::Append {
            path: path.to_path_buf(),
            source,
        })
}

/// The step outputs of `loki ci post` (see the module doc).
#[must_use]
pub fn outputs(report: &Report, conclusion: Conclusion, posted: Option<&Posted>) -> String {
    let url = posted
        .and_then(|p| p.comment_url.clone())
        .unwrap_or_default();
    let sha = report
        .receipt
        .as_ref()
        .map(|r| r.receipt_sha256.clone())
        .unwrap_or_default();
    format!(
        "verdict={}\nconclusion={}\npassed={}\nreceipt-sha256={sha}\ncomment-url={url}\n",
        report.verdict.key(),
        conclusion.github(),
        conclusion.passes()
    )
}

/// The exit code of `verdict` under `gate`.
#[must_use]
pub fn gated(gate: &FailOn, verdict: Verdict) -> ExitCode {
    match gate.conclusion(verdict) {
        Conclusion::Failure => verdict.exit_code(),
        Conclusion::Success | Conclusion::Neutral => ExitCode::Success,
    }
}
