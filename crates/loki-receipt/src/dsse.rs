//! DSSE envelopes over in-toto Statement v1, by hand.
//!
//! # Envelope (`receipt.dsse.json`)
//!
//! ```text
//! {"payload": base64(body), "payloadType": "application/vnd.in-toto+json",
//!  "signatures": [{"keyid": <hex sha256 of SPKI DER>, "sig": base64(Ed25519(PAE(type, body)))}]}
//! ```
//!
//! `PAE(type, body) = "DSSEv1" SP len(type) SP type SP len(body) SP body`, lengths in ASCII
//! decimal bytes (DSSE v1.0; the pre-1.0 little-endian framing is a different, wrong format). The
//! signature covers the raw body bytes and the type, so a signature made for another payload type
//! cannot be replayed here.
//!
//! We write standard padded base64. Readers accept standard or URL-safe, padded or not (the DSSE
//! protocol requires it) and ignore fields they do not know. `keyid` is only a hint for choosing
//! keys; the decision rests on the signature.
//!
//! # Statement (the body)
//!
//! ```text
//! {"_type": "https://in-toto.io/Statement/v1",
//!  "subject": [{"name": "git:<head>", "digest": {"gitCommit": <head>, "gitTree": <tree>}},
//!              {"name": "receipt.json", "digest": {"sha256": <receipt_sha256>}},
//!              {"name": "receipt.md", "digest": {"sha256": <sha256 of receipt.md's bytes>}}],
//!  "predicateType": "https://loki.dev/receipt/v1",
//!  "predicate": <the receipt>}
//! ```
//!
//! The receipt subject's digest is `receipt_sha256` (the hash of the receipt's canonical form),
//! not of the file's bytes, so reformatting `receipt.json` does not break it. The `receipt.md`
//! subject binds the exact bytes people read (and `loki pr` publishes): it cannot be a field of
//! the receipt, because `receipt.md` shows `receipt_sha256`. Statements signed before this subject
//! existed lack it; `loki verify` then says `receipt.md` is not bound instead of failing. The body is the
//! statement's RFC 8785 canonical form, so sealing the same receipt twice gives the same bytes.

use std::collections::BTreeMap;

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use ed25519_dalek::Signature;
use serde::{Deserialize, Serialize};

use crate::ReceiptError;
use crate::keys::{Signer, SignerRole, TrustedKeys};
use crate::schema::{Receipt, canonical_bytes, sha256_hex};

/// The payload type of every loki envelope.
pub const PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";
/// `_type` of an in-toto Statement v1.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// `predicateType` of a loki receipt.
pub const PREDICATE_TYPE: &str = "https://loki.dev/receipt/v1";
/// The receipt subject's name.
pub const RECEIPT_SUBJECT: &str = "receipt.json";
/// The human receipt's subject name (its digest is the sha256 of the file's exact bytes).
pub const MARKDOWN_SUBJECT: &str = "receipt.md";
/// Prefix of the head commit subject's name.
pub const GIT_SUBJECT_PREFIX: &str = "git:";

/// The pre-authentication encoding that is signed.
#[must_use]
pub fn pae(payload_type: &str, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload_type.len() + body.len() + 32);
    out.extend_from_slice(b"DSSEv1 ");
    out.extend_from_slice(payload_type.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload_type.as_bytes());
    out.push(b' ');
    out.extend_from_slice(body.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(body);
    out
}

/// Decodes base64 in any of the four forms DSSE readers must accept.
#[must_use]
pub fn decode_base64(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    [&STANDARD, &URL_SAFE, &STANDARD_NO_PAD, &URL_SAFE_NO_PAD]
        .into_iter()
        .find_map(|engine| engine.decode(text).ok())
}

/// A DSSE envelope. Unknown fields are ignored on reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Envelope {
    pub payload: String,
    #[serde(rename = "payloadType")]
    pub payload_type: String,
    pub signatures: Vec<EnvelopeSignature>,
}

/// One signature of an envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnvelopeSignature {
    /// Unset and empty mean the same: no hint.
    #[serde(default)]
    pub keyid: String,
    pub sig: String,
}

impl Envelope {
    /// Signs `body` as `payload_type` with `signer`.
    #[must_use]
    pub fn sign(payload_type: &str, body: &[u8], signer: &Signer) -> Envelope {
        let sig = signer.sign(&pae(payload_type, body));
        Envelope {
            payload: STANDARD.encode(body),
            payload_type: payload_type.to_string(),
            signatures: vec![EnvelopeSignature {
                keyid: signer.keyid().to_string(),
                sig: STANDARD.encode(sig),
            }],
        }
    }

    /// The decoded payload, or `None` when it is not base64.
    #[must_use]
    pub fn payload_bytes(&self) -> Option<Vec<u8>> {
        decode_base64(&self.payload)
    }

    /// The envelope as written to `receipt.dsse.json`: pretty JSON and a final newline.
    pub fn to_file_bytes(&self) -> Result<Vec<u8>, ReceiptError> {
        let mut bytes = serde_json::to_vec_pretty(self).map_err(|e| ReceiptError::Encode {
            what: "the DSSE envelope",
            reason: e.to_string(),
        })?;
        bytes.push(b'\n');
        Ok(bytes)
    }
}

/// An in-toto Statement v1. Unknown fields are ignored on reading.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Statement {
    #[serde(rename = "_type")]
    pub statement_type: String,
    pub subject: Vec<Subject>,
    #[serde(rename = "predicateType")]
    pub predicate_type: String,
    #[serde(default)]
    pub predicate: serde_json::Value,
}

/// A ResourceDescriptor reduced to what loki uses: a name and a digest set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Subject {
    #[serde(default)]
    pub name: String,
    pub digest: BTreeMap<String, String>,
}

impl Statement {
    /// The statement for a sealed receipt (its `receipt_sha256` must be filled).
    pub fn for_receipt(receipt: &Receipt) -> Result<Statement, ReceiptError> {
        let git = Subject {
            name: format!("{GIT_SUBJECT_PREFIX}{}", receipt.repo.head_sha),
            digest: BTreeMap::from([
                ("gitCommit".to_string(), receipt.repo.head_sha.clone()),
                ("gitTree".to_string(), receipt.repo.tree.clone()),
            ]),
        };
        let this = Subject {
            name: RECEIPT_SUBJECT.to_string(),
            digest: BTreeMap::from([("sha256".to_string(), receipt.receipt_sha256.clone())]),
        };
        Ok(Statement {
            statement_type: STATEMENT_TYPE.to_string(),
            subject: vec![git, this],
            predicate_type: PREDICATE_TYPE.to_string(),
            predicate: receipt.to_value()?,
        })
    }

    /// The same statement, also binding `receipt.md` (its exact bytes) by sha256.
    #[must_use]
    pub fn with_markdown(mut self, markdown: &[u8]) -> Statement {
        self.subject.push(Subject {
            name: MARKDOWN_SUBJECT.to_string(),
            digest: BTreeMap::from([("sha256".to_string(), sha256_hex(markdown))]),
        });
        self
    }

    /// The sha256 the statement binds `receipt.md` to, or `None` when it does not bind it (a
    /// statement signed before the binding existed).
    #[must_use]
    pub fn markdown_sha256(&self) -> Option<&str> {
        self.subject
            .iter()
            .find(|s| s.name == MARKDOWN_SUBJECT)
            .and_then(|s| s.digest.get("sha256"))
            .map(String::as_str)
    }

    /// The canonical body bytes.
    pub fn to_body(&self) -> Result<Vec<u8>, ReceiptError> {
        let value = serde_json::to_value(self).map_err(|e| ReceiptError::Encode {
            what: "the in-toto statement",
            reason: e.to_string(),
        })?;
        canonical_bytes(&value)
    }

    /// True when some subject has digest `algorithm` equal to `value` (DigestSet matching: any
    /// accepted algorithm that matches is a match).
    #[must_use]
    pub fn has_digest(&self, algorithm: &str, value: &str) -> bool {
        self.subject.iter().any(|s| {
            s.digest
                .get(algorithm)
                .is_some_and(|v| v.eq_ignore_ascii_case(value))
        })
    }
}

/// The signed envelope of a sealed receipt, without a `receipt.md` subject (as loki signed before
/// it bound the human receipt; [`envelope_with_markdown`] is what sealing uses).
pub fn envelope_for(receipt: &Receipt, signer: &Signer) -> Result<Envelope, ReceiptError> {
    let body = Statement::for_receipt(receipt)?.to_body()?;
    Ok(Envelope::sign(PAYLOAD_TYPE, &body, signer))
}

/// The signed envelope of a sealed receipt and of its `receipt.md` (`markdown`, exact bytes).
pub fn envelope_with_markdown(
    receipt: &Receipt,
    markdown: &[u8],
    signer: &Signer,
) -> Result<Envelope, ReceiptError> {
    let body = Statement::for_receipt(receipt)?
        .with_markdown(markdown)
        .to_body()?;
    Ok(Envelope::sign(PAYLOAD_TYPE, &body, signer))
}

/// What the signatures of an envelope say, given the trusted keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureCheck {
    /// A trusted key made a valid signature.
    Valid { keyid: String, role: SignerRole },
    /// A signature names a trusted key but does not verify with it: the envelope was changed.
    Invalid { keyid: String, reason: String },
    /// No signature names a trusted key (or one without a keyid matched none).
    UnknownKey { keyids: Vec<String> },
    /// The envelope has no signatures.
    NoSignatures,
}

/// Checks every signature over `PAE(payload_type, body)` with the trusted keys, choosing keys by
/// keyid (all keys when a signature has none). One invalid signature by a known key outweighs a
/// valid one: an envelope that carries a broken signature of ours was changed.
#[must_use]
pub fn check_signatures(envelope: &Envelope, body: &[u8], keys: &TrustedKeys) -> SignatureCheck {
    let message = pae(&envelope.payload_type, body);
    let mut valid = None;
    let mut unknown = Vec::new();
    for s in &envelope.signatures {
        let candidates: Vec<_> = keys
            .all()
            .iter()
            .filter(|k| s.keyid.is_empty() || k.keyid.eq_ignore_ascii_case(&s.keyid))
            .collect();
        let sig = decode_base64(&s.sig).and_then(|b| Signature::from_slice(&b).ok());
        let hit = sig.and_then(|sig| {
            candidates
                .iter()
                .find(|k| k.key.verify_strict(&message, &sig).is_ok())
        });
        match (hit, candidates.is_empty() || s.keyid.is_empty()) {
            (Some(k), _) => valid = valid.or(Some((k.keyid.clone(), k.role))),
            (None, true) => unknown.push(s.keyid.clone()),
            (None, false) => {
                let reason = if sig.is_none() {
                    "the signature is not 64 bytes of base64".to_string()
                } else {
                    "the signature does not match the payload".to_string()
                };
                return SignatureCheck::Invalid {
                    keyid: s.keyid.clone(),
                    reason,
                };
            }
        }
    }
    match valid {
        Some((keyid, role)) => SignatureCheck::Valid { keyid, role },
        None if envelope.signatures.is_empty() => SignatureCheck::NoSignatures,
        None => SignatureCheck::UnknownKey { keyids: unknown },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{Signer as _, SigningKey};

    const HELLO_TYPE: &str = "http://example.com/HelloWorld";

    #[test]
    fn pae_matches_the_spec_vector() {
        assert_eq!(
            pae(HELLO_TYPE, b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world".to_vec()
        );
        assert_eq!(
            hex::encode(pae(HELLO_TYPE, b"hello world")),
            "44535345763120323920687474703a2f2f6578616d706c652e636f6d2f48656c6c6f576f726c642031312068656c6c6f20776f726c64"
        );
    }

    #[test]
    fn pae_counts_bytes_not_characters() {
        assert_eq!(pae("t", "é".as_bytes()), b"DSSEv1 1 t 2 \xc3\xa9".to_vec());
    }

    #[test]
    fn ed25519_known_answer_vector() {
        let seed: [u8; 32] = std::array::from_fn(|i| u8::try_from(i).unwrap());
        let key = SigningKey::from_bytes(&seed);
        assert_eq!(
            hex::encode(key.verifying_key().as_bytes()),
            "03a107bff3ce10be1d70dd18e74bc09967e4d6309ba50d5f1ddc8664125531b8"
        );
        let sig = key.sign(&pae(HELLO_TYPE, b"hello world"));
        assert_eq!(
            STANDARD.encode(sig.to_bytes()),
            "FDBuhhGZHrQaLnHA+xYDozNBKtORTT3EFhGJXczChh8PCqB471sDESzy2zguMGQOk8D+Ij2hb/eoUkqxc/qgCg=="
        );
        let env: Envelope = serde_json::from_str(r#"{"payload":"aGVsbG8gd29ybGQ=","payloadType":"http://example.com/HelloWorld","signatures":[{"keyid":"","sig":"FDBuhhGZHrQaLnHA+xYDozNBKtORTT3EFhGJXczChh8PCqB471sDESzy2zguMGQOk8D+Ij2hb/eoUkqxc/qgCg=="}],"extra":1}"#).unwrap();
        let trusted = TrustedKeys::from_keys(vec![crate::keys::TrustedKey::new(
            key.verifying_key(),
            SignerRole::Pubkey,
            "kat",
        )]);
        let body = env.payload_bytes().unwrap();
        assert_eq!(body, b"hello world");
        assert!(matches!(
            check_signatures(&env, &body, &trusted),
            SignatureCheck::Valid { .. }
        ));
    }

    #[test]
    fn base64_in_all_four_forms() {
        let bytes = [0xfbu8, 0xff, 0x01, 0x02];
        for engine in [&STANDARD, &URL_SAFE, &STANDARD_NO_PAD, &URL_SAFE_NO_PAD] {
            assert_eq!(decode_base64(&engine.encode(bytes)).unwrap(), bytes);
        }
        assert_eq!(decode_base64("not base64!"), None);
    }
}
