//! Token counts, the vocabulary shared by the model providers (loki-agent) and the CLI agents
//! that report them.

use serde::{Deserialize, Serialize};

/// Token counts of one call. `input_tokens` excludes cached tokens (Anthropic's convention; the
/// OpenAI provider subtracts `cached_tokens`), so the four buckets never overlap and cost is a
/// plain sum over them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
}

impl Usage {
    /// Adds another call's counts.
    pub fn add(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_tokens += other.cache_read_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
    }

    /// All tokens of every bucket (what a token limit counts).
    #[must_use]
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens
    }
}
