//! Ed25519 signing keys: where they live, how they are created, read, rotated and trusted.
//!
//! # Files
//!
//! ```text
//! $LOKI_HOME/keys/                         0700
//!   receipt-ed25519.pem                    0600  PKCS#8 v1 PEM ("-----BEGIN PRIVATE KEY-----")
//!   receipt-ed25519.pub.pem                      SPKI PEM public half (what verification reads)
//!   receipt-ed25519.json                         {"created": <RFC 3339>, "keyid": <64 hex>}
//!   retired/<keyid>.pub.pem                      SPKI PEM public keys of rotated-out keys
//! ```
//!
//! The first key is created without ever replacing one (linked into place, not renamed): of two
//! processes creating it at once, the second loads the first's key, so no receipt is signed by a
//! key that is then overwritten. Signing rewrites the public half when it is missing or stale.
//!
//! The private key is written as PKCS#8 **v1** (48 bytes of DER, no embedded public key) because
//! OpenSSL before 3.5 cannot read the v2 form that ed25519-dalek writes by default; v1 is also what
//! `openssl genpkey -algorithm ed25519` writes, so either tool reads the other's keys.
//!
//! # Choosing the signing key (first that is set wins)
//!
//! 1. `LOKI_RECEIPT_SIGNING_KEY`: the PEM text itself.
//! 2. `LOKI_RECEIPT_SIGNING_KEY_FILE`: a path to a PEM file.
//! 3. `$LOKI_HOME/keys/receipt-ed25519.pem`, created on first use.
//!
//! # Refusals
//!
//! A key file that is a symlink, not a regular file, or readable or writable by group or others
//! is refused, with the `chmod 600` that fixes it: a signing key others can read is no longer
//! evidence of anything. The file is opened after the checks and its inode compared with the one
//! checked, so swapping the file in between is caught.
//!
//! # Trust
//!
//! A receipt is trusted when signed by the current key (its public half, read from
//! `receipt-ed25519.pub.pem` so that verifying never needs the private key: a key file others can
//! read is refused for signing, yet the receipts it signed still verify), a retired key
//! (`LOKI_RECEIPT_RETIRED_PUBKEYS`, comma-separated SPKI PEM files, plus `keys/retired/*.pub.pem`),
//! or — with `--pubkey FILE` — only that key. The keyid is the lowercase hex SHA-256 of the public
//! key's SPKI DER (44 bytes), stable across PEM formatting.
//!
//! The environment is passed in as a [`KeyEnv`] so that callers and tests decide what it holds;
//! this module never reads the process environment except in [`KeyEnv::from_process`].

use std::fmt;
use std::fs::{self, File};
use std::io::Read;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::spki::der::zeroize::Zeroizing;
use ed25519_dalek::pkcs8::{DecodePrivateKey, DecodePublicKey, EncodePrivateKey, EncodePublicKey};
use ed25519_dalek::{Signer as _, SigningKey, VerifyingKey};
use loki_core::fs::{PRIVATE_FILE_MODE, ensure_private_dir, write_atomic, write_atomic_mode};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ReceiptError;

/// The signing key's file name under `$LOKI_HOME/keys`.
pub const KEY_FILE: &str = "receipt-ed25519.pem";
/// The sidecar that records when the key was created.
pub const KEY_META_FILE: &str = "receipt-ed25519.json";
/// Where rotated-out public keys are kept, under `$LOKI_HOME/keys`.
pub const RETIRED_DIR: &str = "retired";
/// Suffix of a retired public key file.
pub const RETIRED_SUFFIX: &str = ".pub.pem";
/// Environment variable holding a PEM private key.
pub const ENV_SIGNING_KEY: &str = loki_core::env::RECEIPT_SIGNING_KEY.name;
/// Environment variable naming a PEM private key file.
pub const ENV_SIGNING_KEY_FILE: &str = loki_core::env::RECEIPT_SIGNING_KEY_FILE.name;
/// Environment variable listing retired public key files, comma-separated.
pub const ENV_RETIRED_PUBKEYS: &str = loki_core::env::RECEIPT_RETIRED_PUBKEYS.name;
/// Permission bits that must be clear on a private key file: any access by group or others.
const GROUP_OTHER_BITS: u32 = 0o077;

/// The key-related environment, captured once so nothing below reads the process environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeyEnv {
    /// `LOKI_RECEIPT_SIGNING_KEY`.
    pub signing_key: Option<String>,
    /// `LOKI_RECEIPT_SIGNING_KEY_FILE`.
    pub signing_key_file: Option<PathBuf>,
    /// `LOKI_RECEIPT_RETIRED_PUBKEYS`.
    pub retired_pubkeys: Option<String>,
}

impl KeyEnv {
    /// Reads the three variables through `get`; empty values count as unset.
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> KeyEnv {
        let get = |name| get(name).filter(|v: &String| !v.trim().is_empty());
        KeyEnv {
            signing_key: get(ENV_SIGNING_KEY),
            signing_key_file: get(ENV_SIGNING_KEY_FILE).map(PathBuf::from),
            retired_pubkeys: get(ENV_RETIRED_PUBKEYS),
        }
    }

    /// Reads the three variables from the process environment.
    #[must_use]
    pub fn from_process() -> KeyEnv {
        use loki_core::env::{
            RECEIPT_RETIRED_PUBKEYS, RECEIPT_SIGNING_KEY, RECEIPT_SIGNING_KEY_FILE,
        };
        KeyEnv::from_lookup(|name| {
            [
                RECEIPT_SIGNING_KEY,
                RECEIPT_SIGNING_KEY_FILE,
                RECEIPT_RETIRED_PUBKEYS,
            ]
            .into_iter()
            .find(|v| v.name == name)
            .and_then(|v| v.get())
        })
    }

    /// The retired public key files named in `LOKI_RECEIPT_RETIRED_PUBKEYS`.
    #[must_use]
    pub fn retired_files(&self) -> Vec<PathBuf> {
        self.retired_pubkeys
            .as_deref()
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .collect()
    }
}

/// Where the signing key came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// `$LOKI_HOME/keys/receipt-ed25519.pem`.
    Home,
    /// `LOKI_RECEIPT_SIGNING_KEY`.
    EnvPem,
    /// `LOKI_RECEIPT_SIGNING_KEY_FILE`.
    EnvFile,
}

impl KeySource {
    /// As printed by `loki keys show`.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            KeySource::Home => "loki key store",
            KeySource::EnvPem => ENV_SIGNING_KEY,
            KeySource::EnvFile => ENV_SIGNING_KEY_FILE,
        }
    }
}

/// What `loki keys show` prints about a key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyInfo {
    pub keyid: String,
    /// The private key file (absent for a key given as PEM text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// When loki created the key (absent for keys it did not create).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    pub source: KeySource,
}

/// The sidecar `receipt-ed25519.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct KeyMeta {
    created: String,
    keyid: String,
}

/// The key receipts are signed with.
pub struct Signer {
    key: SigningKey,
    info: KeyInfo,
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the secret.
        f.debug_struct("Signer")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl Signer {
    /// The signing key chosen by the rules in the module doc, creating the home key if none exists.
    pub fn load_or_create(home: &Path, env: &KeyEnv) -> Result<Signer, ReceiptError> {
        let signer = match Signer::load(Some(home), env)? {
            Some(signer) => signer,
            None => create_home_key(home)?,
        };
        if signer.info.source == KeySource::Home {
            // Verification reads this instead of the private key; keep it in step (an older
            // home has none, a rotation interrupted before writing it has a stale one).
            let pem = signer.export_public_pem()?;
            let path = home_pubkey_path(home);
            if fs::read_to_string(&path).ok().as_deref() != Some(pem.as_str()) {
                write_atomic(&path, pem.as_bytes())?;
            }
        }
        Ok(signer)
    }

    /// Like [`Signer::load_or_create`], but `Ok(None)` when no key exists yet. Never creates one.
    pub fn load(home: Option<&Path>, env: &KeyEnv) -> Result<Option<Signer>, ReceiptError> {
        if let Some(pem) = &env.signing_key {
            let key = parse_private_pem(pem, ENV_SIGNING_KEY)?;
            return Ok(Some(Signer::new(key, None, None, KeySource::EnvPem)));
        }
        if let Some(path) = &env.signing_key_file {
            let pem = read_private_file(path)?;
            let key = parse_private_pem(&pem, &path.display().to_string())?;
            return Ok(Some(Signer::new(
                key,
                Some(path.clone()),
                None,
                KeySource::EnvFile,
            )));
        }
        let Some(home) = home else { return Ok(None) };
        let path = home_key_path(home);
        match fs::symlink_metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(ReceiptError::io("inspect", &path, e)),
            Ok(_) => {}
        }
        let pem = read_private_file(&path)?;
        let key = parse_private_pem(&pem, &path.display().to_string())?;
        let created = read_created(home, &keyid_of(&key.verifying_key()));
        Ok(Some(Signer::new(key, Some(path), created, KeySource::Home)))
    }

    fn new(
        key: SigningKey,
        path: Option<PathBuf>,
        created: Option<String>,
        source: KeySource,
    ) -> Signer {
        let keyid = keyid_of(&key.verifying_key());
        Signer {
            key,
            info: KeyInfo {
                keyid,
                path,
                created,
                source,
            },
        }
    }

    /// keyid, path, created, source.
    #[must_use]
    pub fn info(&self) -> &KeyInfo {
        &self.info
    }

    /// The keyid: hex SHA-256 of the SPKI DER of the public key.
    #[must_use]
    pub fn keyid(&self) -> &str {
        &self.info.keyid
    }

    /// The public half.
    #[must_use]
    pub fn verifying_key(&self) -> VerifyingKey {
        self.key.verifying_key()
    }

    /// An Ed25519 signature (64 bytes) over `message`. Deterministic (RFC 8032).
    #[must_use]
    pub fn sign(&self, message: &[u8]) -> [u8; 64] {
        self.key.sign(message).to_bytes()
    }

    /// The public key as SPKI PEM (`-----BEGIN PUBLIC KEY-----`), for `loki keys export`.
    pub fn export_public_pem(&self) -> Result<String, ReceiptError> {
        public_key_pem(&self.verifying_key())
    }
}

/// `$LOKI_HOME/keys`.
#[must_use]
pub fn keys_dir(home: &Path) -> PathBuf {
    home.join("keys")
}

/// `$LOKI_HOME/keys/receipt-ed25519.pem`.
#[must_use]
pub fn home_key_path(home: &Path) -> PathBuf {
    loki_core::layout::default_signing_key_path(home)
}

/// The keyid of a public key: lowercase hex SHA-256 of its SPKI DER.
#[must_use]
pub fn keyid_of(key: &VerifyingKey) -> String {
    // The SPKI of an Ed25519 key is a fixed 12-byte prefix and the 32 key bytes (RFC 8410); built
    // by hand so that computing a keyid cannot fail.
    const SPKI_PREFIX: [u8; 12] = [
        0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
    ];
    let mut h = Sha256::new();
    h.update(SPKI_PREFIX);
    h.update(key.as_bytes());
    hex::encode(h.finalize())
}

/// A public key as SPKI PEM with LF line endings.
pub fn public_key_pem(key: &VerifyingKey) -> Result<String, ReceiptError> {
    key.to_public_key_pem(LineEnding::LF)
        .map_err(|e| ReceiptError::Encode {
            what: "the public key",
            reason: e.to_string(),
        })
}

/// Parses an SPKI PEM public key; `origin` names it in the error.
pub fn parse_public_pem(text: &str, origin: &str) -> Result<VerifyingKey, ReceiptError> {
    VerifyingKey::from_public_key_pem(text.trim()).map_err(|e| ReceiptError::BadPublicKey {
        origin: origin.to_string(),
        reason: e.to_string(),
    })
}

/// Reads and parses an SPKI PEM public key file.
pub fn read_public_file(path: &Path) -> Result<VerifyingKey, ReceiptError> {
    let text =
        fs::read_to_string(path).map_err(|e| ReceiptError::io("read public key", path, e))?;
    parse_public_pem(&text, &path.display().to_string())
}

/// A private key as PKCS#8 v1 PEM, the form OpenSSL 3.0 reads (see the module doc). The text is
/// wiped from memory when dropped.
pub fn private_key_pem_v1(key: &SigningKey) -> Result<Zeroizing<String>, ReceiptError> {
    let bytes = ed25519_dalek::pkcs8::KeypairBytes {
        secret_key: key.to_bytes(),
        public_key: None,
    };
    bytes
        .to_pkcs8_pem(LineEnding::LF)
        .map_err(|e| ReceiptError::Encode {
            what: "the private key",
            reason: e.to_string(),
        })
}

fn parse_private_pem(text: &str, origin: &str) -> Result<SigningKey, ReceiptError> {
    SigningKey::from_pkcs8_pem(text.trim()).map_err(|e| ReceiptError::BadPrivateKey {
        origin: origin.to_string(),
        reason: e.to_string(),
    })
}

/// Reads a private key file after the symlink, type and permission checks of the module doc.
fn read_private_file(path: &Path) -> Result<String, ReceiptError> {
    let meta =
        fs::symlink_metadata(path).map_err(|e| ReceiptError::io("inspect signing key", path, e))?;
    if meta.file_type().is_symlink() {
        return Err(ReceiptError::KeySymlink {
            path: path.to_path_buf(),
        });
    }
    if !meta.is_file() {
        return Err(ReceiptError::KeyNotAFile {
            path: path.to_path_buf(),
        });
    }
    let mode = meta.permissions().mode() & 0o7777;
    if mode & GROUP_OTHER_BITS != 0 {
        return Err(ReceiptError::KeyTooOpen {
            path: path.to_path_buf(),
            mode,
        });
    }
    let mut file = File::open(path).map_err(|e| ReceiptError::io("open signing key", path, e))?;
    let opened = file
        .metadata()
        .map_err(|e| ReceiptError::io("inspect signing key", path, e))?;
    if opened.dev() != meta.dev() || opened.ino() != meta.ino() {
        // Replaced between the check and the open: check again from the top rather than trust it.
        return Err(ReceiptError::KeySymlink {
            path: path.to_path_buf(),
        });
    }
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| ReceiptError::io("read signing key", path, e))?;
    Ok(text)
}

fn read_created(home: &Path, keyid: &str) -> Option<String> {
    let text = fs::read_to_string(keys_dir(home).join(KEY_META_FILE)).ok()?;
    let meta: KeyMeta = serde_json::from_str(&text).ok()?;
    // A sidecar left from another key (the .pem was replaced by hand) says nothing about this one.
    (meta.keyid == keyid).then_some(meta.created)
}

/// Makes the keys directory private, refusing one that is a symlink.
fn prepare_keys_dir(home: &Path) -> Result<PathBuf, ReceiptError> {
    let dir = keys_dir(home);
    if let Ok(meta) = fs::symlink_metadata(&dir)
        && meta.file_type().is_symlink()
    {
        return Err(ReceiptError::KeySymlink { path: dir });
    }
    ensure_private_dir(&dir)?;
    Ok(dir)
}

/// Creates the first home key. Two processes doing this at once both end up with the one that
/// was linked into place first: the loser loads it instead of replacing it, so no receipt is
/// ever signed by a key that is then overwritten.
fn create_home_key(home: &Path) -> Result<Signer, ReceiptError> {
    let dir = prepare_keys_dir(home)?;
    let key = SigningKey::generate(&mut rand_core::OsRng);
    let pem = private_key_pem_v1(&key)?;
    let path = home_key_path(home);
    if !loki_core::fs::create_atomic_mode(&path, pem.as_bytes(), PRIVATE_FILE_MODE)? {
        return Signer::load(Some(home), &KeyEnv::default())?
            .ok_or_else(|| ReceiptError::io("read", &path, std::io::ErrorKind::NotFound.into()));
    }
    finish_new_home_key(&dir, key, path)
}

/// Writes a fresh key (and its sidecar) to the home key path, replacing any key there.
fn write_new_home_key(home: &Path) -> Result<Signer, ReceiptError> {
    let dir = prepare_keys_dir(home)?;
    let key = SigningKey::generate(&mut rand_core::OsRng);
    let pem = private_key_pem_v1(&key)?;
    let path = home_key_path(home);
    write_atomic_mode(&path, pem.as_bytes(), PRIVATE_FILE_MODE)?;
    finish_new_home_key(&dir, key, path)
}

/// The metadata and public-key sidecars of a key just written to `path`.
fn finish_new_home_key(dir: &Path, key: SigningKey, path: PathBuf) -> Result<Signer, ReceiptError> {
    write_atomic(
        &dir.join(HOME_PUBKEY_FILE),
        public_key_pem(&key.verifying_key())?.as_bytes(),
    )?;
    let keyid = keyid_of(&key.verifying_key());
    let created = loki_core::time::now_rfc3339();
    let meta = KeyMeta {
        created: created.clone(),
        keyid,
    };
    loki_core::fs::write_json_atomic(&dir.join(KEY_META_FILE), &meta)?;
    Ok(Signer::new(key, Some(path), Some(created), KeySource::Home))
}

/// The result of `loki keys rotate`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rotation {
    pub old: KeyInfo,
    pub new: KeyInfo,
    /// Where the old public key was kept, so receipts it signed still verify.
    pub retired_pubkey: PathBuf,
}

/// Replaces the home signing key with a new one, keeping the old public key as retired.
///
/// Refuses when the environment overrides the signing key (rotating the home key would not change
/// which key signs) and when there is no home key yet.
pub fn rotate(home: &Path, env: &KeyEnv) -> Result<Rotation, ReceiptError> {
    let path = home_key_path(home);
    if env.signing_key.is_some() {
        return Err(ReceiptError::RotateOverridden {
            source_name: ENV_SIGNING_KEY,
            path,
        });
    }
    if env.signing_key_file.is_some() {
        return Err(ReceiptError::RotateOverridden {
            source_name: ENV_SIGNING_KEY_FILE,
            path,
        });
    }
    let Some(old) = Signer::load(Some(home), &KeyEnv::default())? else {
        return Err(ReceiptError::NoKeyToRotate { path });
    };
    let retired_dir = prepare_keys_dir(home)?.join(RETIRED_DIR);
    ensure_private_dir(&retired_dir)?;
    let retired_pubkey = retired_dir.join(format!("{}{RETIRED_SUFFIX}", old.keyid()));
    // The retired public key is written before the private key is replaced: a crash in between
    // leaves the old key current and also listed as retired, which verifies the same receipts.
    write_atomic(&retired_pubkey, old.export_public_pem()?.as_bytes())?;
    let new = write_new_home_key(home)?;
    Ok(Rotation {
        old: old.info,
        new: new.info,
        retired_pubkey,
    })
}

/// How a trusted key relates to this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SignerRole {
    /// The current signing key.
    Current,
    /// A rotated-out key.
    Retired,
    /// The key given with `--pubkey`.
    Pubkey,
}

impl SignerRole {
    /// As printed: `current key`, `retired key`, `--pubkey`.
    #[must_use]
    pub fn describe(self) -> &'static str {
        match self {
            SignerRole::Current => "current key",
            SignerRole::Retired => "retired key",
            SignerRole::Pubkey => "--pubkey",
        }
    }
}

/// One public key a receipt may be signed with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedKey {
    pub keyid: String,
    pub key: VerifyingKey,
    pub role: SignerRole,
    /// Where it came from, for messages.
    pub origin: String,
}

impl TrustedKey {
    /// Wraps a public key, computing its keyid.
    #[must_use]
    pub fn new(key: VerifyingKey, role: SignerRole, origin: impl Into<String>) -> TrustedKey {
        TrustedKey {
            keyid: keyid_of(&key),
            key,
            role,
            origin: origin.into(),
        }
    }
}

/// File name of the home key's public half, beside it (what verification reads).
pub const HOME_PUBKEY_FILE: &str = "receipt-ed25519.pub.pem";

/// `$LOKI_HOME/keys/receipt-ed25519.pub.pem`.
#[must_use]
pub fn home_pubkey_path(home: &Path) -> PathBuf {
    keys_dir(home).join(HOME_PUBKEY_FILE)
}

/// The keys a verification accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedKeys {
    keys: Vec<TrustedKey>,
}

impl TrustedKeys {
    /// The current key (if one exists; never created here) and every retired key.
    pub fn local(home: Option<&Path>, env: &KeyEnv) -> Result<TrustedKeys, ReceiptError> {
        let mut keys = Vec::new();
        // The home key's public half, so verifying never needs the private key: a private key
        // others can read is refused for signing, but the receipts it signed still verify.
        let home_key_in_use = env.signing_key.is_none() && env.signing_key_file.is_none();
        let sidecar = home
            .filter(|_| home_key_in_use)
            .map(home_pubkey_path)
            .filter(|p| p.is_file());
        if let Some(path) = &sidecar {
            keys.push(TrustedKey::new(
                read_public_file(path)?,
                SignerRole::Current,
                path.display().to_string(),
            ));
        }
        match Signer::load(home, env) {
            Ok(Some(signer)) => {
                let origin = signer
                    .info
                    .path
                    .as_ref()
                    .map_or_else(|| ENV_SIGNING_KEY.to_string(), |p| p.display().to_string());
                let key = signer.verifying_key();
                if !keys.iter().any(|k| k.key == key) {
                    keys.push(TrustedKey::new(key, SignerRole::Current, origin));
                }
            }
            Ok(None) => {}
            // The sidecar already names the current key; the private key's problem is the
            // signer's to report.
            Err(_) if sidecar.is_some() => {}
            Err(e) => return Err(e),
        }
        for path in env.retired_files() {
            keys.push(TrustedKey::new(
                read_public_file(&path)?,
                SignerRole::Retired,
                path.display().to_string(),
            ));
        }
        if let Some(home) = home {
            for path in retired_dir_files(home)? {
                keys.push(TrustedKey::new(
                    read_public_file(&path)?,
                    SignerRole::Retired,
                    path.display().to_string(),
                ));
            }
        }
        Ok(TrustedKeys { keys })
    }

    /// Only the key in `path` (`--pubkey FILE`).
    pub fn from_pubkey_file(path: &Path) -> Result<TrustedKeys, ReceiptError> {
        let key = read_public_file(path)?;
        Ok(TrustedKeys {
            keys: vec![TrustedKey::new(
                key,
                SignerRole::Pubkey,
                path.display().to_string(),
            )],
        })
    }

    /// Exactly these keys.
    #[must_use]
    pub fn from_keys(keys: Vec<TrustedKey>) -> TrustedKeys {
        TrustedKeys { keys }
    }

    /// Every trusted key.
    #[must_use]
    pub fn all(&self) -> &[TrustedKey] {
        &self.keys
    }

    /// True when no key is trusted.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

fn retired_dir_files(home: &Path) -> Result<Vec<PathBuf>, ReceiptError> {
    let dir = keys_dir(home).join(RETIRED_DIR);
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ReceiptError::io("list", &dir, e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| ReceiptError::io("list", &dir, e))?;
        let path = entry.path();
        if path.to_string_lossy().ends_with(RETIRED_SUFFIX) {
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keyid_is_sha256_of_the_spki_der() {
        let key = SigningKey::from_bytes(&[7u8; 32]).verifying_key();
        let der = key.to_public_key_der().unwrap();
        assert_eq!(der.as_bytes().len(), 44);
        assert_eq!(keyid_of(&key), hex::encode(Sha256::digest(der.as_bytes())));
    }

    #[test]
    fn private_pem_is_pkcs8_v1_and_round_trips() {
        let key = SigningKey::from_bytes(&[9u8; 32]);
        let pem = private_key_pem_v1(&key).unwrap();
        // 48-byte DER starts MC4CAQAw (SEQUENCE, INTEGER 0): v1, as `openssl genpkey` writes.
        assert!(pem.contains("MC4CAQAw"), "{}", pem.as_str());
        let back = parse_private_pem(&pem, "test").unwrap();
        assert_eq!(back.to_bytes(), key.to_bytes());
    }

    #[test]
    fn env_lookup_treats_empty_as_unset() {
        let env = KeyEnv::from_lookup(|name| match name {
            ENV_SIGNING_KEY => Some(String::new()),
            ENV_RETIRED_PUBKEYS => Some(" a.pem, ,b.pem ".to_string()),
            _ => None,
        });
        assert_eq!(env.signing_key, None);
        assert_eq!(
            env.retired_files(),
            vec![PathBuf::from("a.pem"), PathBuf::from("b.pem")]
        );
    }
}
