//! The model `loki fix --apply` asks for its one JSON patch: a provider that runs the model loop
//! (an API or the scripted one). A CLI agent edits files itself and cannot answer with a patch,
//! so it is refused; no provider at all is refused with how to configure one.

use loki_agent::{Backend, Provider};

use crate::HealError;

/// The loop provider of `backend`, or [`HealError::CliProvider`] naming `label` (the provider's
/// label) when it is a CLI agent.
pub fn loop_only(backend: Backend, label: String) -> Result<Box<dyn Provider>, HealError> {
    match backend {
        Backend::Loop(p) => Ok(p),
        Backend::Cli(_) => Err(HealError::CliProvider { provider: label }),
    }
}

/// The model of a heal, or [`HealError::NoModel`] saying how to configure one.
pub fn required(model: Option<Box<dyn Provider>>) -> Result<Box<dyn Provider>, HealError> {
    model.ok_or_else(|| HealError::NoModel {
        hint: "set ANTHROPIC_API_KEY or OPENAI_API_KEY, point openai.base_url at a local server, pass --model provider/model, or try `loki fix --demo`".into(),
    })
}
