//! How a run ended, as its terminal event (`run.completed`, `run.interrupted`) and `run.json`
//! record it.
//!
//! A sealed run ends in its [`Outcome`] (`VERIFIED`, `FAILED`, …: a build, `loki fix`, a seal stop
//! or `loki seal check`, `loki deep`, `loki improve`). The runs that seal no receipt end in their
//! producer's own word, and these are all of them:
//!
//! | producer | words |
//! |---|---|
//! | `loki checks` | `PASS`, `FAIL` |
//! | `loki ask` | `ASKED`, `ERROR` |
//! | `loki run` (an observed command) | `CLEAN`, `CRASHED`, `TIMED_OUT`, `NOT_RUN` |
//! | a seal stop whose tree is its baseline | `NO CHANGE` (with a space, as it has always been written) |
//!
//! On the wire a [`RunEnd`] is exactly its word ([`RunEnd::as_str`]), so every log and `run.json`
//! written before it was a type reads back unchanged and every event hash stays what it was. No
//! producer ever wrote another word (the history of every `run.completed` writer says so), so a
//! word outside this list is refused ([`UnknownRunEnd`], naming the valid ones) rather than kept
//! as an opaque string.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;

/// How a run ended: a sealed run's outcome, or the word of a producer that seals no receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum RunEnd {
    /// A run that sealed a receipt: the receipt's verdict.
    Sealed(Outcome),
    /// `loki checks`: every check passed.
    Pass,
    /// `loki checks`: some check did not pass, or none ran.
    Fail,
    /// `loki ask`: the question was answered.
    Asked,
    /// `loki ask`: the session failed.
    Error,
    /// `loki run`: the observed command exited 0.
    Clean,
    /// `loki run`: the observed command crashed (an incident was recorded).
    Crashed,
    /// `loki run`: the observed command ran out of time.
    TimedOut,
    /// `loki run`: the command could not be started.
    NotRun,
    /// A seal stop whose tree is its baseline: nothing changed, nothing to prove.
    NoChange,
}

impl RunEnd {
    /// Every run end: the sealed outcomes in the order of the exit-code table, then the
    /// producers' words in the order of the module doc's table.
    pub const ALL: [RunEnd; 17] = [
        RunEnd::Sealed(Outcome::Verified),
        RunEnd::Sealed(Outcome::AlreadySatisfied),
        RunEnd::Sealed(Outcome::Failed),
        RunEnd::Sealed(Outcome::Partial),
        RunEnd::Sealed(Outcome::BudgetStop),
        RunEnd::Sealed(Outcome::Blocked),
        RunEnd::Sealed(Outcome::Stalled),
        RunEnd::Sealed(Outcome::Interrupted),
        RunEnd::Pass,
        RunEnd::Fail,
        RunEnd::Asked,
        RunEnd::Error,
        RunEnd::Clean,
        RunEnd::Crashed,
        RunEnd::TimedOut,
        RunEnd::NotRun,
        RunEnd::NoChange,
    ];

    /// The word as the event log and `run.json` carry it (`ALREADY_SATISFIED`, `NO CHANGE`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            RunEnd::Sealed(o) => o.as_str(),
            RunEnd::Pass => "PASS",
            RunEnd::Fail => "FAIL",
            RunEnd::Asked => "ASKED",
            RunEnd::Error => "ERROR",
            RunEnd::Clean => "CLEAN",
            RunEnd::Crashed => "CRASHED",
            RunEnd::TimedOut => "TIMED_OUT",
            RunEnd::NotRun => "NOT_RUN",
            RunEnd::NoChange => "NO CHANGE",
        }
    }

    /// The sealed outcome, for a run that sealed a receipt.
    #[must_use]
    pub fn sealed(self) -> Option<Outcome> {
        match self {
            RunEnd::Sealed(o) => Some(o),
            _ => None,
        }
    }
}

impl From<Outcome> for RunEnd {
    fn from(o: Outcome) -> Self {
        RunEnd::Sealed(o)
    }
}

impl From<RunEnd> for &'static str {
    fn from(e: RunEnd) -> Self {
        e.as_str()
    }
}

// `pad`, not `write_str`: `loki runs` aligns the outcome in a column.
impl fmt::Display for RunEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// A word no run ends in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownRunEnd(pub String);

impl fmt::Display for UnknownRunEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown run outcome `{}`: expected one of ", self.0)?;
        for (i, e) in RunEnd::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(e.as_str())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownRunEnd {}

impl TryFrom<String> for RunEnd {
    type Error = UnknownRunEnd;

    fn try_from(word: String) -> Result<Self, UnknownRunEnd> {
        word.parse()
    }
}

impl std::str::FromStr for RunEnd {
    type Err = UnknownRunEnd;

    fn from_str(word: &str) -> Result<Self, Self::Err> {
        RunEnd::ALL
            .into_iter()
            .find(|e| e.as_str() == word)
            .ok_or_else(|| UnknownRunEnd(word.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_round_trips_and_is_distinct() {
        let mut seen = std::collections::HashSet::new();
        for e in RunEnd::ALL {
            let json = serde_json::to_string(&e).unwrap();
            assert_eq!(json, format!("\"{}\"", e.as_str()));
            assert_eq!(serde_json::from_str::<RunEnd>(&json).unwrap(), e);
            assert_eq!(e.as_str().parse::<RunEnd>().unwrap(), e);
            assert!(seen.insert(e.as_str()), "{e} twice");
        }
        // Every sealed outcome is a run end, spelt as the receipt spells it.
        for o in Outcome::ALL {
            assert_eq!(RunEnd::from(o).as_str(), o.as_str());
            assert_eq!(RunEnd::from(o).sealed(), Some(o));
        }
        assert_eq!(RunEnd::NoChange.sealed(), None);
    }

    #[test]
    fn the_wire_words_are_the_ones_logs_carry() {
        let words: Vec<&str> = RunEnd::ALL.into_iter().map(RunEnd::as_str).collect();
        assert_eq!(
            words.join(","),
            "VERIFIED,ALREADY_SATISFIED,FAILED,PARTIAL,BUDGET_STOP,BLOCKED,STALLED,INTERRUPTED,\
             PASS,FAIL,ASKED,ERROR,CLEAN,CRASHED,TIMED_OUT,NOT_RUN,NO CHANGE"
        );
        assert_eq!(format!("[{:<9}]", RunEnd::Pass), "[PASS     ]");
    }

    #[test]
    fn an_unknown_word_is_refused_naming_the_valid_ones() {
        let err = serde_json::from_str::<RunEnd>("\"SUCCESS\"").unwrap_err();
        let text = err.to_string();
        assert!(text.contains("unknown run outcome `SUCCESS`"), "{text}");
        for e in RunEnd::ALL {
            assert!(text.contains(e.as_str()), "{text} does not name {e}");
        }
        // Case matters: the words are written one way only.
        assert!("verified".parse::<RunEnd>().is_err());
        assert!("NO_CHANGE".parse::<RunEnd>().is_err());
    }
}
