//! Folding a run's events into its state: per-stage status, totals and the terminal event.

use std::collections::BTreeMap;

use loki_protocol::Stage;

use crate::event::{Event, EventType};

/// The last known state of one stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StageState {
    Started,
    Completed,
    Failed,
    Skipped,
}

/// One stage as folded from its events.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct StageFold {
    pub name: Stage,
    pub state: StageState,
    pub started_ts: Option<String>,
    pub ended_ts: Option<String>,
}

/// A run's state as its events tell it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct Fold {
    pub run: Option<String>,
    pub events: u64,
    /// Stages in the order they first appeared.
    pub stages: Vec<StageFold>,
    /// Count of events per type.
    pub by_type: BTreeMap<String, u64>,
    /// Sum of `data.usd` over `cost` events; `None` when any cost event has no price (not
    /// measured is not $0).
    pub cost_usd: Option<f64>,
    pub cost_events: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The `run.completed` / `run.interrupted` event, if the run ended.
    pub terminal: Option<Event>,
}

/// Folds events (in log order) into a [`Fold`].
#[must_use]
pub fn fold(events: &[Event]) -> Fold {
    let mut f = Fold::default();
    let mut priced = true;
    let mut usd = 0.0;
    for e in events {
        f.run.get_or_insert_with(|| e.run.clone());
        f.events += 1;
        *f.by_type.entry(e.kind.clone()).or_default() += 1;
        let kind = EventType::parse(&e.kind);
        if let (Some(k), Some(stage)) = (kind, e.stage) {
            let state = match k {
                EventType::StageStarted => StageState::Started,
                EventType::StageCompleted => StageState::Completed,
                EventType::StageFailed => StageState::Failed,
                EventType::StageSkipped => StageState::Skipped,
                _ => continue,
            };
            let idx = match f.stages.iter().position(|s| s.name == stage) {
                Some(i) => i,
                None => {
                    f.stages.push(StageFold {
                        name: stage,
                        state,
                        started_ts: None,
                        ended_ts: None,
                    });
                    f.stages.len() - 1
                }
            };
            let s = &mut f.stages[idx];
            s.state = state;
            if state == StageState::Started {
                s.started_ts = Some(e.ts.clone());
            } else {
                s.ended_ts = Some(e.ts.clone());
            }
        }
        if kind == Some(EventType::Cost) {
            f.cost_events += 1;
            match e.data.get("usd").and_then(serde_json::Value::as_f64) {
                Some(x) => usd += x,
                None => priced = false,
            }
            let tokens = |k: &str| {
                e.data
                    .get(k)
                    .and_then(serde_json::Value::as_u64)
                    .unwrap_or(0)
            };
            f.input_tokens += tokens("input_tokens");
            f.output_tokens += tokens("output_tokens");
        }
        if kind.is_some_and(EventType::is_terminal) {
            f.terminal = Some(e.clone());
        }
    }
    f.cost_usd = (f.cost_events > 0 && priced).then_some(usd);
    f
}
