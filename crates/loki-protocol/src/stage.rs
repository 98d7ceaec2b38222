//! The stages of a build run, how a stage ended, and which cap stopped a run where.
//!
//! The build engine runs [`Stage`]s in order (intake, plan, contract, wall, gate, implement,
//! verify, fix, council, visual, commit, seal); each ends in one [`StageState`], recorded as the
//! `stage.completed`, `stage.skipped` or `stage.failed` event, whose envelope names the stage.
//! `loki deep` files the checks it runs under one more word, `deep` (a `check.result`'s
//! `stage`). A run that reaches one of its limits records `cap.hit` with the [`CapKind`] and
//! where it was ([`CapAt`]: a stage, or the agent session of a fix round, `fix-1`).
//!
//! On the wire each is the lowercase word ([`Stage::as_str`], [`StageState::as_str`],
//! [`CapKind::as_str`], [`CapAt`]'s `Display`), as the event log has always carried it: every
//! stage word any producer ever wrote is a [`Stage`], so older logs read back as they were, and a
//! word outside the list is refused with the list of valid ones. (The receipt's
//! `time.stages[].stage` is not this vocabulary: deep, heal and the seal time steps of their own
//! there, `suite`, `synthesize`, `judge`, and the signed bytes keep them as strings.)

use std::fmt;

use serde::{Deserialize, Serialize};

/// A stage of a build run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Intake,
    Plan,
    Contract,
    Wall,
    Gate,
    Implement,
    Verify,
    Fix,
    Council,
    Visual,
    Commit,
    Seal,
    /// Not a stage of a build: the deep verify of a finished one (`loki deep`), under which its
    /// checks are filed.
    Deep,
}

impl Stage {
    /// Every stage word, a build's in the order it runs them, then `deep`.
    pub const ALL: [Stage; 13] = [
        Stage::Intake,
        Stage::Plan,
        Stage::Contract,
        Stage::Wall,
        Stage::Gate,
        Stage::Implement,
        Stage::Verify,
        Stage::Fix,
        Stage::Council,
        Stage::Visual,
        Stage::Commit,
        Stage::Seal,
        Stage::Deep,
    ];

    /// The stage's name in the event log (`implement`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Stage::Intake => "intake",
            Stage::Plan => "plan",
            Stage::Contract => "contract",
            Stage::Wall => "wall",
            Stage::Gate => "gate",
            Stage::Implement => "implement",
            Stage::Verify => "verify",
            Stage::Fix => "fix",
            Stage::Council => "council",
            Stage::Visual => "visual",
            Stage::Commit => "commit",
            Stage::Seal => "seal",
            Stage::Deep => "deep",
        }
    }
}

/// A word that names no stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownStage(pub String);

impl fmt::Display for UnknownStage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown stage `{}`: expected one of ", self.0)?;
        write_words(f, Stage::ALL.into_iter().map(Stage::as_str))
    }
}

impl std::error::Error for UnknownStage {}

impl std::str::FromStr for Stage {
    type Err = UnknownStage;

    fn from_str(word: &str) -> Result<Self, Self::Err> {
        Stage::ALL
            .into_iter()
            .find(|s| s.as_str() == word)
            .ok_or_else(|| UnknownStage(word.to_string()))
    }
}

fn write_words<'a>(
    f: &mut fmt::Formatter<'_>,
    words: impl Iterator<Item = &'a str>,
) -> fmt::Result {
    for (i, w) in words.enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        f.write_str(w)?;
    }
    Ok(())
}

/// How a stage ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StageState {
    Completed,
    /// Nothing to do (the detail says why); not timed.
    Skipped,
    Failed,
}

impl StageState {
    /// The state's word (`completed`), as the `stage.*` event types end in it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            StageState::Completed => "completed",
            StageState::Skipped => "skipped",
            StageState::Failed => "failed",
        }
    }
}

/// The limit a run reached: its time cap, cost budget or token cap (`cap.hit`'s `cap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CapKind {
    Time,
    Cost,
    Tokens,
}

impl CapKind {
    /// The cap's word in `cap.hit` (`tokens`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            CapKind::Time => "time",
            CapKind::Cost => "cost",
            CapKind::Tokens => "tokens",
        }
    }
}

/// Where a run was when it reached a cap (`cap.hit`'s `stage`): the stage that checked the cap,
/// or the agent session that reported it, named by its label. A session's label is its stage's
/// word (`wall`, `implement`) except a fix round's, `fix-<round>` (`fix-1`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum CapAt {
    Stage(Stage),
    /// The agent session of fix round `n` (from 1).
    FixRound(u32),
}

impl From<Stage> for CapAt {
    fn from(s: Stage) -> Self {
        CapAt::Stage(s)
    }
}

impl From<CapAt> for String {
    fn from(at: CapAt) -> Self {
        at.to_string()
    }
}

/// A word that names no stage and no fix round's session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownCapAt(pub String);

impl fmt::Display for UnknownCapAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown cap stage `{}`: expected `fix-<round>` or one of ",
            self.0
        )?;
        write_words(f, Stage::ALL.into_iter().map(Stage::as_str))
    }
}

impl std::error::Error for UnknownCapAt {}

impl std::str::FromStr for CapAt {
    type Err = UnknownCapAt;

    fn from_str(word: &str) -> Result<Self, Self::Err> {
        if let Some(n) = word.strip_prefix("fix-") {
            // Only the spelling a run writes (`fix-1`, not `fix-01` or `fix-+1`), so the word
            // reads back to the same bytes.
            return n
                .parse::<u32>()
                .ok()
                .filter(|r| r.to_string() == n)
                .map(CapAt::FixRound)
                .ok_or_else(|| UnknownCapAt(word.to_string()));
        }
        word.parse::<Stage>()
            .map(CapAt::Stage)
            .map_err(|_| UnknownCapAt(word.to_string()))
    }
}

impl TryFrom<String> for CapAt {
    type Error = UnknownCapAt;

    fn try_from(word: String) -> Result<Self, UnknownCapAt> {
        word.parse()
    }
}

// `pad`, not `write_str`: the terminal lines align these words in columns (`{stage:<10}`).
impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Display for StageState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Display for CapAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CapAt::Stage(s) => s.fmt(f),
            CapAt::FixRound(n) => f.pad(&format!("fix-{n}")),
        }
    }
}

impl fmt::Display for CapKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_word_is_the_printed_word_and_pads_in_columns() {
        for s in [Stage::Intake, Stage::Implement, Stage::Seal] {
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.as_str())
            );
        }
        for s in [
            StageState::Completed,
            StageState::Skipped,
            StageState::Failed,
        ] {
            assert_eq!(
                serde_json::to_string(&s).unwrap(),
                format!("\"{}\"", s.as_str())
            );
        }
        for c in [CapKind::Time, CapKind::Cost, CapKind::Tokens] {
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.as_str())
            );
        }
        assert_eq!(
            format!("[{:<10}][{:<9}]", Stage::Gate, StageState::Skipped),
            "[gate      ][skipped  ]"
        );
    }

    #[test]
    fn every_stage_word_round_trips_and_an_unknown_one_is_refused() {
        for s in Stage::ALL {
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(serde_json::from_str::<Stage>(&json).unwrap(), s);
            assert_eq!(s.as_str().parse::<Stage>().unwrap(), s);
        }
        let err = "judge".parse::<Stage>().unwrap_err().to_string();
        assert!(
            err.starts_with("unknown stage `judge`: expected one of intake, plan,"),
            "{err}"
        );
        assert!(err.ends_with("commit, seal, deep"), "{err}");
        // serde's own refusal names the valid words too.
        let err = serde_json::from_str::<Stage>("\"judge\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`intake`") && err.contains("`deep`"), "{err}");
    }

    #[test]
    fn a_cap_is_hit_at_a_stage_or_a_fix_round_session() {
        for (at, word) in [
            (CapAt::Stage(Stage::Verify), "verify"),
            (CapAt::Stage(Stage::Wall), "wall"),
            (CapAt::FixRound(1), "fix-1"),
            (CapAt::FixRound(12), "fix-12"),
        ] {
            let json = serde_json::to_string(&at).unwrap();
            assert_eq!(json, format!("\"{word}\""));
            assert_eq!(serde_json::from_str::<CapAt>(&json).unwrap(), at);
        }
        for bad in ["fix-", "fix-01", "fix-+1", "fix-x", "Verify"] {
            let err = serde_json::from_str::<CapAt>(&format!("\"{bad}\"")).unwrap_err();
            assert!(
                err.to_string()
                    .contains("expected `fix-<round>` or one of intake"),
                "{err}"
            );
        }
        // `fix` alone is the fix stage; only `fix-<n>` is a session.
        assert_eq!("fix".parse::<CapAt>().unwrap(), CapAt::Stage(Stage::Fix));
        assert_eq!(format!("[{:<6}]", CapAt::FixRound(2)), "[fix-2 ]");
    }
}
