//! What the server re-verifies of a shipped run (pure functions over stored data).
//!
//! # The chain, with redacted lines
//!
//! The shipper removes secrets from a line's `data` before sending it, which changes the line's
//! hash. It therefore sends every line with its **original** `prev` and `hash`, and lists the seqs
//! it changed in `redacted`. The server then checks:
//!
//! - `seq` runs 0, 1, 2, … with no gap (a gap is *incomplete*: the rest may still arrive);
//! - line 0's `prev` is 64 zeros and every other line's `prev` is the `hash` of the line before
//!   (linkage, which redaction does not touch);
//! - every line not marked redacted hashes (JCS, as in `loki-events`) to its `hash`.
//!
//! A redacted line's hash cannot be recomputed here: its linkage is checked, and the run view says
//! that the chain was checked on the shipping machine before redaction ([`ChainCheck::redacted`]).
//!
//! # The receipt
//!
//! The receipt arrives as its DSSE envelope. The server checks, cheapest first: the predicate is a
//! `loki.receipt/1` receipt of this run whose `receipt_sha256` is its own hash; the statement names
//! that hash; a signature by a key the server trusts (`loki serve trust`) verifies; the receipt's
//! `events.{count, head}` is the stored chain's line `count`. A broken signature by a trusted key or
//! a binding that disagrees is `tampered`; no trusted signature is `unattested`.
//!
//! # The state
//!
//! `conflict` (a line shipped twice with two hashes) outranks `tampered` (a broken chain or
//! receipt), which outranks `unattested` (no receipt, no trusted signature, the chain not yet
//! complete up to the receipt's binding); `intact` is a complete, valid chain bound by a receipt a
//! trusted key signed.

use loki_events::{Event, GENESIS, hash_event};
use loki_receipt::dsse::{Envelope, SignatureCheck, Statement, check_signatures};
use loki_receipt::schema::{HASH_FIELD, SCHEMA, receipt_sha256_of_value};
use loki_receipt::{Receipt, TrustedKeys};
use serde::Serialize;

/// A run's verification state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunState {
    Intact,
    Tampered,
    Unattested,
    Conflict,
}

impl RunState {
    /// The word stored and shown.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Intact => "intact",
            RunState::Tampered => "tampered",
            RunState::Unattested => "unattested",
            RunState::Conflict => "conflict",
        }
    }
}

/// What the chain check found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChainCheck {
    /// Lines from seq 0 with no gap.
    pub contiguous: u64,
    /// The first missing seq, when lines after a gap are stored.
    pub gap_at: Option<u64>,
    /// The first broken line and why (linkage or hash).
    pub broken: Option<(u64, String)>,
    /// Lines whose hash was not recomputed because the shipper redacted them.
    pub redacted: u64,
}

impl ChainCheck {
    /// True when no line is broken.
    #[must_use]
    pub fn valid(&self) -> bool {
        self.broken.is_none()
    }
}

/// Checks stored lines (in seq order); `redacted(seq)` says which were redacted by the shipper.
#[must_use]
pub fn check_chain(events: &[Event], redacted: impl Fn(u64) -> bool) -> ChainCheck {
    let mut out = ChainCheck {
        contiguous: 0,
        gap_at: None,
        broken: None,
        redacted: 0,
    };
    let mut prev_hash = GENESIS.to_string();
    for (i, e) in events.iter().enumerate() {
        let expected = i as u64;
        if e.seq != expected {
            out.gap_at = Some(expected);
            break;
        }
        out.contiguous += 1;
        if e.prev != prev_hash {
            out.broken = Some((
                e.seq,
                format!(
                    "prev {} is not the hash of line {} ({})",
                    short(&e.prev),
                    e.seq.saturating_sub(1),
                    short(&prev_hash)
                ),
            ));
            break;
        }
        if redacted(e.seq) {
            out.redacted += 1;
        } else {
            match hash_event(e) {
                Ok(h) if h == e.hash => {}
                Ok(h) => {
                    out.broken = Some((
                        e.seq,
                        format!(
                            "the line hashes to {}, it says {}: it was changed",
                            short(&h),
                            short(&e.hash)
                        ),
                    ));
                    break;
                }
                Err(reason) => {
                    out.broken = Some((e.seq, format!("cannot hash the line: {reason}")));
                    break;
                }
            }
        }
        prev_hash.clone_from(&e.hash);
    }
    out
}

/// What the receipt check found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReceiptCheck {
    /// The state the receipt alone allows (`intact` when everything held).
    pub state: RunState,
    /// One sentence: what held or what failed.
    pub detail: String,
    pub receipt_sha256: Option<String>,
    pub keyid: Option<String>,
    /// The receipt, when it parsed.
    #[serde(skip)]
    pub receipt: Option<Receipt>,
}

fn receipt_fail(state: RunState, detail: impl Into<String>) -> ReceiptCheck {
    ReceiptCheck {
        state,
        detail: detail.into(),
        receipt_sha256: None,
        keyid: None,
        receipt: None,
    }
}

/// Checks a receipt envelope for `run` against the trusted keys and the stored chain (`hash_at(n)`
/// is the hash of stored line `n`, when stored within the contiguous prefix).
#[must_use]
pub fn check_receipt(
    envelope: &serde_json::Value,
    run: &str,
    keys: &TrustedKeys,
    hash_at: impl Fn(u64) -> Option<String>,
) -> ReceiptCheck {
    let opened = match open_envelope(envelope) {
        Ok(o) => o,
        Err(failed) => return *failed,
    };
    let (receipt, computed) = (&opened.receipt, &opened.computed);
    let mut out = ReceiptCheck {
        state: RunState::Tampered,
        detail: String::new(),
        receipt_sha256: Some(computed.clone()),
        keyid: None,
        receipt: Some(receipt.clone()),
    };
    if opened.stored != *computed {
        out.detail = format!(
            "the receipt hashes to {}, it says {}: it was changed after sealing",
            short(computed),
            short(&opened.stored)
        );
        return out;
    }
    if receipt.run_id != run {
        out.detail = format!("the receipt is for run {}, not {run}", receipt.run_id);
        return out;
    }
    if !opened.statement.has_digest("sha256", computed) {
        out.detail = "the signed statement does not name this receipt's sha256".to_string();
        return out;
    }
    if !signed_by_trusted(&mut out, &opened, keys) {
        return out;
    }
    bind_events(&mut out, receipt, hash_at);
    out
}

/// A receipt read out of its DSSE envelope.
struct Opened {
    env: Envelope,
    /// The envelope's payload, the signed bytes.
    body: Vec<u8>,
    statement: Statement,
    receipt: Receipt,
    /// The hash the receipt says it has, and the one it has.
    stored: String,
    computed: String,
}

/// The envelope's receipt, or the failed check when it is not a DSSE envelope of an in-toto
/// statement whose predicate is a receipt of our schema.
fn open_envelope(envelope: &serde_json::Value) -> Result<Opened, Box<ReceiptCheck>> {
    let tampered = |detail: String| Box::new(receipt_fail(RunState::Tampered, detail));
    let env: Envelope = serde_json::from_value(envelope.clone())
        .map_err(|e| tampered(format!("the receipt is not a DSSE envelope: {e}")))?;
    let Some(body) = env.payload_bytes() else {
        return Err(tampered("the envelope's payload is not base64".to_string()));
    };
    let statement: Statement = serde_json::from_slice(&body).map_err(|e| {
        tampered(format!(
            "the envelope's payload is not an in-toto statement: {e}"
        ))
    })?;
    let value = &statement.predicate;
    if value.get("schema").and_then(serde_json::Value::as_str) != Some(SCHEMA) {
        return Err(tampered(format!("the predicate is not a {SCHEMA} receipt")));
    }
    let receipt: Receipt = serde_json::from_value(value.clone())
        .map_err(|e| tampered(format!("the predicate is not a valid receipt: {e}")))?;
    let stored = value
        .get(HASH_FIELD)
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string();
    let computed = receipt_sha256_of_value(value).map_err(|e| tampered(e.to_string()))?;
    Ok(Opened {
        env,
        body,
        statement,
        receipt,
        stored,
        computed,
    })
}

/// Whether the envelope is signed by a key the server trusts (its keyid then in `out`); when
/// not, `out` says why: an invalid signature is tampering, an unknown key or none unattested.
fn signed_by_trusted(out: &mut ReceiptCheck, opened: &Opened, keys: &TrustedKeys) -> bool {
    match check_signatures(&opened.env, &opened.body, keys) {
        SignatureCheck::Valid { keyid, .. } => {
            out.keyid = Some(keyid);
            true
        }
        SignatureCheck::Invalid { keyid, reason } => {
            out.detail = format!("the signature by trusted key {keyid} fails: {reason}");
            false
        }
        SignatureCheck::UnknownKey { keyids } => {
            out.state = RunState::Unattested;
            out.detail = if keys.is_empty() {
                "the server trusts no key yet: add the signer's public key with `loki serve trust PUBKEY`".to_string()
            } else {
                format!(
                    "signed by {}, a key the server does not trust (`loki serve trust PUBKEY`)",
                    keyids.join(", ")
                )
            };
            false
        }
        SignatureCheck::NoSignatures => {
            out.state = RunState::Unattested;
            out.detail = "the receipt is not signed".to_string();
            false
        }
    }
}

/// The state of a validly signed receipt from the events it binds: intact when the stored
/// chain has them with the same head, tampered when the head differs, unattested while fewer
/// have arrived.
fn bind_events(out: &mut ReceiptCheck, receipt: &Receipt, hash_at: impl Fn(u64) -> Option<String>) {
    let bound = &receipt.events;
    let head = match bound.count {
        0 => Some(GENESIS.to_string()),
        n => hash_at(n - 1),
    };
    match head {
        None => {
            out.state = RunState::Unattested;
            out.detail = format!(
                "signed, but the receipt binds {} events and fewer have arrived",
                bound.count
            );
        }
        Some(h) if h != bound.head => {
            out.detail = format!(
                "line {} hashes to {}, the signed receipt binds {}: the log was rewritten",
                bound.count,
                short(&h),
                short(&bound.head)
            );
        }
        Some(_) => {
            out.state = RunState::Intact;
            out.detail = format!(
                "signature by {} verified; it binds {} events, head {}",
                out.keyid.as_deref().unwrap_or("?"),
                bound.count,
                short(&bound.head)
            );
        }
    }
}

/// The run's state from its parts (see the module doc for the order).
#[must_use]
pub fn decide(conflict: bool, chain: &ChainCheck, receipt: Option<&ReceiptCheck>) -> RunState {
    if conflict {
        return RunState::Conflict;
    }
    if !chain.valid() {
        return RunState::Tampered;
    }
    match receipt {
        Some(r) => r.state,
        None => RunState::Unattested,
    }
}

fn short(h: &str) -> &str {
    h.get(..12).unwrap_or(h)
}
