//! The error type of `loki-receipt`. Every variant names what failed and what to do about it.

use std::path::PathBuf;

/// Errors from building, sealing, signing and key handling.
///
/// Verification does not return these for problems with the evidence itself: a tampered, unsigned
/// or unverifiable receipt is a [`crate::VerifyReport`] verdict, not an error.
#[derive(Debug, thiserror::Error)]
pub enum ReceiptError {
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Core(#[from] loki_core::CoreError),
    #[error(transparent)]
    Events(#[from] loki_events::EventError),
    #[error("cannot encode {what} as canonical JSON: {reason}")]
    Encode { what: &'static str, reason: String },
    #[error(
        "the receipt facts are not valid: {reason}; this is a bug in the producer of the receipt"
    )]
    BadFacts { reason: String },
    #[error(
        "signing key {path} can be read by other users (mode {mode:04o}); run `chmod 600 {path}` and retry",
        path = .path.display()
    )]
    KeyTooOpen { path: PathBuf, mode: u32 },
    #[error(
        "signing key {path} is a symlink; loki only reads a key from a regular file it can check: replace the link with the file itself (mode 0600)",
        path = .path.display()
    )]
    KeySymlink { path: PathBuf },
    #[error(
        "signing key {path} is not a regular file; point LOKI_RECEIPT_SIGNING_KEY_FILE at a PEM key file",
        path = .path.display()
    )]
    KeyNotAFile { path: PathBuf },
    #[error(
        "{origin} is not an Ed25519 private key in PKCS#8 PEM (-----BEGIN PRIVATE KEY-----): {reason}; create one with `openssl genpkey -algorithm ed25519`"
    )]
    BadPrivateKey { origin: String, reason: String },
    #[error(
        "{origin} is not an Ed25519 public key in SPKI PEM (-----BEGIN PUBLIC KEY-----): {reason}; get one with `loki keys export`"
    )]
    BadPublicKey { origin: String, reason: String },
    #[error("no signing key at {path} to rotate; `loki keys show` creates one", path = .path.display())]
    NoKeyToRotate { path: PathBuf },
    #[error(
        "the signing key comes from {source_name}, not from {path}; unset {source_name} to rotate the key loki keeps",
        path = .path.display()
    )]
    RotateOverridden {
        source_name: &'static str,
        path: PathBuf,
    },
    #[error(
        "neither LOKI_HOME nor HOME is set, so there is no place for the signing key; set LOKI_HOME"
    )]
    NoHome,
    #[error("refusing to export the envelope: the receipt verdict is {verdict}{}", reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default())]
    ExportRefused {
        verdict: loki_protocol::outcome::VerifyVerdict,
        reason: Option<String>,
    },
}

impl ReceiptError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        ReceiptError::Io {
            action,
            path: path.into(),
            source,
        }
    }
}

impl loki_core::exit::Classify for ReceiptError {
    /// The user's input or setup (a key file, an environment variable) is usage; an export
    /// refused for its verdict carries that verdict; the rest is a failure of the machine or a bug.
    fn exit_class(&self) -> loki_core::exit::ExitClass {
        use loki_core::exit::ExitClass;
        match self {
            ReceiptError::KeyTooOpen { .. }
            | ReceiptError::KeySymlink { .. }
            | ReceiptError::KeyNotAFile { .. }
            | ReceiptError::BadPrivateKey { .. }
            | ReceiptError::BadPublicKey { .. }
            | ReceiptError::NoKeyToRotate { .. }
            | ReceiptError::RotateOverridden { .. }
            | ReceiptError::NoHome => ExitClass::Usage,
            ReceiptError::ExportRefused { verdict, .. } => ExitClass::Verdict(*verdict),
            ReceiptError::Core(e) => e.exit_class(),
            ReceiptError::Io { .. }
            | ReceiptError::Events(_)
            | ReceiptError::Encode { .. }
            | ReceiptError::BadFacts { .. } => ExitClass::Failure,
        }
    }
}
