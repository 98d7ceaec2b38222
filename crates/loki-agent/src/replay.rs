//! The `replay:<run-id>` provider: plays the assistant turns recorded in a run's
//! `transcript.jsonl` (its `exchange` records, in order), so a run can be reproduced without a
//! model. The replayed model is reported as `replay:<model>`, which has no price: nothing is
//! spent again, so the cost of a replay is "not measured", while the recorded usage is kept.
//! Running past the recorded turns is an error naming the transcript.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde_json::Value;

use crate::error::AgentError;
use crate::message::{Request, Response};
use crate::provider::{BoxFuture, Provider};

/// Plays a recorded transcript.
#[derive(Debug)]
pub struct Replay {
    path: PathBuf,
    turns: Vec<Response>,
    next: Mutex<usize>,
}

impl Replay {
    /// Reads the transcript at `path`.
    pub fn load(path: &Path) -> Result<Replay, AgentError> {
        let err = |message: String| AgentError::Replay {
            path: path.to_path_buf(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
        let mut turns = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let v: Value = serde_json::from_str(line)
                .map_err(|e| err(format!("line {} is not JSON: {e}", i + 1)))?;
            if v["type"] != "exchange" {
                continue;
            }
            let mut r: Response = serde_json::from_value(v["response"].clone()).map_err(|e| {
                err(format!(
                    "line {}: the recorded response is invalid: {e}",
                    i + 1
                ))
            })?;
            r.model = format!("replay:{}", r.model);
            turns.push(r);
        }
        if turns.is_empty() {
            return Err(err("it records no model exchanges".into()));
        }
        Ok(Replay {
            path: path.to_path_buf(),
            turns,
            next: Mutex::new(0),
        })
    }

    /// Number of recorded turns.
    #[must_use]
    pub fn len(&self) -> usize {
        self.turns.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }
}

impl Provider for Replay {
    fn council_unavailable(&self) -> Option<String> {
        Some("a replay plays only the recorded turns".into())
    }

    fn name(&self) -> &'static str {
        "replay"
    }

    /// Each turn is priced by the model it names; a dollar cap is checked against those.
    fn measures_cost(&self, _prices: &crate::PriceTable) -> bool {
        true
    }

    fn model(&self) -> &str {
        "replay"
    }

    fn complete<'a>(&'a self, _req: &'a Request) -> BoxFuture<'a, Result<Response, AgentError>> {
        let mut next = self.next.lock().unwrap_or_else(PoisonError::into_inner);
        let r = match self.turns.get(*next) {
            Some(t) => {
                *next += 1;
                Ok(t.clone())
            }
            None => Err(AgentError::Replay {
                path: self.path.clone(),
                message: format!(
                    "the run asked for turn {} but only {} were recorded",
                    *next + 1,
                    self.turns.len()
                ),
            }),
        };
        Box::pin(async move { r })
    }
}
