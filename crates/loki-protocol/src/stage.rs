//! The stages of a build run, how a stage ended, and which cap stopped a run.
//!
//! The build engine runs [`Stage`]s in order (intake, plan, contract, wall, gate, implement,
//! verify, fix, council, visual, commit, seal); each ends in one [`StageState`], recorded as the
//! `stage.completed`, `stage.skipped` or `stage.failed` event. A run that reaches one of its
//! limits records `cap.hit` with the [`CapKind`]. On the wire each is the lowercase word
//! ([`Stage::as_str`], [`StageState::as_str`], [`CapKind::as_str`]), as the event log has always
//! carried it; the log's envelope keeps `stage` a string, since older logs and other producers
//! (`deep`) name stages of their own.

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
}

impl Stage {
    /// The stage's name in the event log (`implement`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
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
        }
    }
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
}
