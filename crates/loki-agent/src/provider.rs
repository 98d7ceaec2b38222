//! The [`Provider`] trait: one model call in, one assistant turn out.

use std::future::Future;
use std::pin::Pin;

use crate::error::AgentError;
use crate::message::{Request, Response};

/// A boxed future, so that [`Provider`] stays object-safe (`Box<dyn Provider>`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A model the built-in loop can talk to (HTTP, scripted, replay). CLI agents are not providers:
/// they run a whole task themselves (`loki_clients::CliAgent`).
pub trait Provider: Send + Sync + std::fmt::Debug {
    /// The provider's name as the user chose it (`openai`, `anthropic`, `scripted`, `replay`).
    fn name(&self) -> &'static str;

    /// The model name used for prices and shown in transcripts.
    fn model(&self) -> &str;

    /// Called once at the start of each agent session, with the session's label. Scripted and
    /// replay providers use it to pick what to play; HTTP providers ignore it.
    fn begin_session(&self, label: Option<&str>) -> Result<(), AgentError> {
        let _ = label;
        Ok(())
    }

    /// Whether `prices` can price this provider's calls (so a dollar cap can hold): its model has
    /// a price. Providers whose turns name their own models (scripted, replay) say yes.
    fn measures_cost(&self, prices: &crate::PriceTable) -> bool {
        prices.price(self.model()).is_some()
    }

    /// Why this provider cannot answer the review council's sessions (`council:<role>`), or
    /// `None` when it can. A scripted provider answers them only from its script's `council`
    /// section; a replay plays only the recorded run.
    fn council_unavailable(&self) -> Option<String> {
        None
    }

    /// One call: the whole conversation so far in, the assistant's next turn out.
    fn complete<'a>(&'a self, req: &'a Request) -> BoxFuture<'a, Result<Response, AgentError>>;
}
