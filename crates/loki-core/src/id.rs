//! Run ids: `run_YYYYMMDD_HHMMSS_xxxx`.
//!
//! The time part is UTC so that lexicographic order is chronological across machines; the four
//! random hex digits keep two runs started in the same second apart. Parsing is strict: an id is
//! also a directory name, so anything else (a path, `..`, upper-case hex) is refused.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use rand_core::{OsRng, RngCore};

use crate::CoreError;

/// A run id, valid by construction.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct RunId(String);

impl RunId {
    /// A new id for a run starting now.
    #[must_use]
    pub fn new() -> Self {
        Self::at(Utc::now(), OsRng.next_u32())
    }

    /// The id for a run starting at `t` with the given random suffix (only the low 16 bits count).
    #[must_use]
    pub fn at(t: DateTime<Utc>, random: u32) -> Self {
        RunId(format!(
            "run_{}_{:04x}",
            t.format("%Y%m%d_%H%M%S"),
            random & 0xffff
        ))
    }

    /// The id as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for RunId {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for RunId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for RunId {
    type Err = CoreError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if is_valid(s) {
            Ok(RunId(s.to_string()))
        } else {
            Err(CoreError::BadRunId { id: s.to_string() })
        }
    }
}

impl<'de> serde::Deserialize<'de> for RunId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

fn is_valid(s: &str) -> bool {
    let b = s.as_bytes();
    // "run_" 8 digits "_" 6 digits "_" 4 lowercase hex = 24 bytes.
    if b.len() != 24 || !s.starts_with("run_") || b[12] != b'_' || b[19] != b'_' {
        return false;
    }
    let digits = b[4..12].iter().chain(&b[13..19]).all(u8::is_ascii_digit);
    let hex = b[20..]
        .iter()
        .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c));
    digits && hex && chrono::NaiveDateTime::parse_from_str(&s[4..19], "%Y%m%d_%H%M%S").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn formats_utc_time_and_four_hex_digits() {
        let t = DateTime::parse_from_rfc3339("2026-11-29T15:17:36Z")
            .unwrap()
            .with_timezone(&Utc);
        assert_eq!(RunId::at(t, 0x1_beef).as_str(), "run_20261129_151736_beef");
    }

    #[test]
    fn refuses_paths_and_near_misses() {
        for bad in [
            "",
            "run_20261129_151736_BEEF",
            "run_20261129_151736_bee",
            "run_20261329_151736_beef",
            "../run_20261129_151736_be",
            "run_20261129-151736_beef",
            "run_2026112x_151736_beef",
        ] {
            assert!(bad.parse::<RunId>().is_err(), "{bad} accepted");
        }
    }

    proptest! {
        #[test]
        fn new_ids_parse_and_sort_by_time(a in 0i64..4_000_000_000, b in 0i64..4_000_000_000, r in any::<u32>()) {
            let ta = DateTime::from_timestamp(a, 0).unwrap();
            let tb = DateTime::from_timestamp(b, 0).unwrap();
            let ia = RunId::at(ta, r);
            let ib = RunId::at(tb, r);
            prop_assert_eq!(ia.as_str().parse::<RunId>().unwrap(), ia.clone());
            prop_assert_eq!(ia.cmp(&ib), ta.cmp(&tb));
        }
    }
}
