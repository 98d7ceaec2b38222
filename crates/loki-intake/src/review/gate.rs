//! The gate: which verdicts fail a pull request's check ([`FailOn`]), and what each verdict
//! concludes ([`Conclusion`]).
//!
//! `--fail-on` is a comma-separated list of verdicts in their serialised names: `findings`,
//! `declare`, `cannot_judge` (`cannot-judge` reads the same), or `none`. The default is
//! `findings`: a change that games its tests fails; a change that alters what a test expects
//! (DECLARE: intent a tree cannot show) and one the judge could not settle (CANNOT JUDGE) are
//! reported, neutral, for a reviewer to read. CLEAN always passes and cannot be listed.

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use loki_protocol::outcome::Verdict;

/// The verdicts that fail the check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailOn(BTreeSet<Verdict>);

/// The default `--fail-on`.
pub const DEFAULT_FAIL_ON: &str = "findings";

impl Default for FailOn {
    fn default() -> Self {
        FailOn(BTreeSet::from([Verdict::Findings]))
    }
}

/// A `--fail-on` list that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--fail-on {given:?}: {word:?} is not a verdict that can fail a check; use a comma-separated list of findings, declare, cannot_judge, or none"
)]
pub struct BadFailOn {
    pub given: String,
    pub word: String,
}

impl FromStr for FailOn {
    type Err = BadFailOn;

    fn from_str(s: &str) -> Result<FailOn, BadFailOn> {
        let mut set = BTreeSet::new();
        for word in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            let v = match word.to_ascii_lowercase().replace('-', "_").as_str() {
                "none" => continue,
                "findings" => Verdict::Findings,
                "declare" => Verdict::Declare,
                "cannot_judge" => Verdict::CannotJudge,
                _ => {
                    return Err(BadFailOn {
                        given: s.to_string(),
                        word: word.to_string(),
                    });
                }
            };
            set.insert(v);
        }
        Ok(FailOn(set))
    }
}

impl fmt::Display for FailOn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("none");
        }
        let keys: Vec<&str> = self.0.iter().map(|v| v.key()).collect();
        f.write_str(&keys.join(","))
    }
}

/// What a verdict concludes for the check: GitHub's check run conclusions; GitLab's commit
/// status has no neutral, so a neutral verdict is `skipped` there (grey, like GitHub's neutral)
/// with the verdict in its description: a verdict loki could not settle never shows as a green
/// `success`. (GitLab's status API takes `skipped` since 2024; an older instance refuses it with
/// 400, which `loki ci post` reports.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Conclusion {
    Success,
    Failure,
    Neutral,
}

impl Conclusion {
    /// GitHub's check run `conclusion`.
    #[must_use]
    pub fn github(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Failure => "failure",
            Conclusion::Neutral => "neutral",
        }
    }

    /// GitLab's commit status `state`.
    #[must_use]
    pub fn gitlab(self) -> &'static str {
        match self {
            Conclusion::Success => "success",
            Conclusion::Neutral => "skipped",
            Conclusion::Failure => "failed",
        }
    }

    /// Whether the check passes (success or neutral).
    #[must_use]
    pub fn passes(self) -> bool {
        self != Conclusion::Failure
    }
}

impl FailOn {
    /// Whether `v` fails the check.
    #[must_use]
    pub fn fails(&self, v: Verdict) -> bool {
        self.0.contains(&v)
    }

    /// The check's conclusion for `v`.
    #[must_use]
    pub fn conclusion(&self, v: Verdict) -> Conclusion {
        if v == Verdict::Clean {
            Conclusion::Success
        } else if self.fails(v) {
            Conclusion::Failure
        } else {
            Conclusion::Neutral
        }
    }

    /// The verdicts listed, in the serialised names.
    #[must_use]
    pub fn keys(&self) -> Vec<&'static str> {
        self.0.iter().map(|v| v.key()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fail_on_reads_lists_and_refuses_what_is_not_a_failing_verdict() {
        let d: FailOn = DEFAULT_FAIL_ON.parse().unwrap();
        assert_eq!(d, FailOn::default());
        assert_eq!(d.conclusion(Verdict::Findings), Conclusion::Failure);
        assert_eq!(d.conclusion(Verdict::Declare), Conclusion::Neutral);
        assert_eq!(d.conclusion(Verdict::CannotJudge), Conclusion::Neutral);
        assert_eq!(d.conclusion(Verdict::Clean), Conclusion::Success);
        let all: FailOn = " findings, declare ,cannot-judge".parse().unwrap();
        assert_eq!(all.to_string(), "declare,findings,cannot_judge");
        assert_eq!(all.conclusion(Verdict::CannotJudge), Conclusion::Failure);
        let none: FailOn = "none".parse().unwrap();
        assert_eq!(none.to_string(), "none");
        assert_eq!(none.conclusion(Verdict::Findings), Conclusion::Neutral);
        assert!(Conclusion::Neutral.passes() && !Conclusion::Failure.passes());
        assert_eq!(Conclusion::Neutral.gitlab(), "skipped");
        assert_eq!(Conclusion::Success.gitlab(), "success");
        let err = "findings,clean".parse::<FailOn>().unwrap_err();
        assert_eq!(err.word, "clean");
        assert!(err.to_string().contains("findings, declare, cannot_judge"));
    }
}
