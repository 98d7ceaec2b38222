//! Slack request signatures (<https://api.slack.com/authentication/verifying-requests-from-slack>).
//!
//! `X-Slack-Signature` is `v0=` followed by the lower-case hex HMAC-SHA256, keyed with the app's
//! signing secret, of `v0:{X-Slack-Request-Timestamp}:{raw body}`. A request is accepted only
//! when the timestamp is an integer within [`WINDOW_S`] of now (either way: a replayed request
//! is refused once the window has passed) and the signature matches, compared in constant time
//! so the comparison's duration says nothing about how much of a forgery was right.
//!
//! HMAC (RFC 2104) is written out over `sha2` here rather than taken from another crate: it is
//! a dozen lines, and the RFC 4231 test vector below holds it to the standard.

use sha2::{Digest as _, Sha256};

/// How far a request's timestamp may be from now, in seconds.
pub const WINDOW_S: i64 = 5 * 60;

/// SHA-256's block size, which HMAC pads the key to.
const BLOCK: usize = 64;

/// Why a request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("the request has no X-Slack-Request-Timestamp or X-Slack-Signature header")]
    Missing,
    #[error("X-Slack-Request-Timestamp is not a number of seconds")]
    BadTimestamp,
    #[error(
        "X-Slack-Request-Timestamp is {0} s from now, outside the 5-minute window (a replay, or a skewed clock)"
    )]
    Stale(i64),
    #[error("X-Slack-Signature does not match the body signed with the signing secret")]
    Mismatch,
}

/// HMAC-SHA256 of `message` under `key`.
#[must_use]
pub fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(message)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

/// The `X-Slack-Signature` value of `body` sent at `timestamp`.
#[must_use]
pub fn sign(secret: &str, timestamp: &str, body: &[u8]) -> String {
    let mut base = format!("v0:{timestamp}:").into_bytes();
    base.extend_from_slice(body);
    format!("v0={}", hex::encode(hmac_sha256(secret.as_bytes(), &base)))
}

/// Checks a request's timestamp against `now` (Unix seconds) and its signature.
pub fn verify(
    secret: &str,
    timestamp: Option<&str>,
    signature: Option<&str>,
    body: &[u8],
    now: i64,
) -> Result<(), SignatureError> {
    let (Some(timestamp), Some(signature)) = (timestamp, signature) else {
        return Err(SignatureError::Missing);
    };
    let ts: i64 = timestamp
        .trim()
        .parse()
        .map_err(|_| SignatureError::BadTimestamp)?;
    let skew = now.saturating_sub(ts);
    if skew.saturating_abs() > WINDOW_S {
        return Err(SignatureError::Stale(skew));
    }
    if constant_time_eq(
        sign(secret, timestamp, body).as_bytes(),
        signature.as_bytes(),
    ) {
        Ok(())
    } else {
        Err(SignatureError::Mismatch)
    }
}

/// Equal bytes, in a time that depends on the lengths only.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231_case_2_and_a_long_key() {
        assert_eq!(
            hex::encode(hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // RFC 4231 case 6: a 131-byte key is hashed first.
        assert_eq!(
            hex::encode(hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn slack_documentation_example_verifies() {
        // The example of Slack's "Verifying requests" page.
        let body = b"token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c";
        let secret = "8f742231b10e8888abcd99yyyzzz85a5";
        let sig = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
        assert_eq!(sign(secret, "1531420618", body), sig);
        assert_eq!(
            verify(
                secret,
                Some("1531420618"),
                Some(sig),
                body,
                1_531_420_618 + 299
            ),
            Ok(())
        );
        assert_eq!(
            verify(
                secret,
                Some("1531420618"),
                Some(sig),
                body,
                1_531_420_618 + 301
            ),
            Err(SignatureError::Stale(301))
        );
        let forged = sig.replace("v0=a", "v0=b");
        assert_eq!(
            verify(
                secret,
                Some("1531420618"),
                Some(&forged),
                body,
                1_531_420_618
            ),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify(secret, None, Some(sig), body, 0),
            Err(SignatureError::Missing)
        );
        assert_eq!(
            verify(secret, Some("soon"), Some(sig), body, 0),
            Err(SignatureError::BadTimestamp)
        );
    }
}
