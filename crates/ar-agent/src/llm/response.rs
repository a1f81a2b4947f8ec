//! What a model call returns: the assembled message, why it stopped, and the
//! tokens it cost.

use serde::{Deserialize, Serialize};

use super::message::Message;

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its turn.
    EndTurn,
    /// The model wants tool results before continuing.
    ToolUse,
    /// `max_tokens` was reached; the message may be cut.
    MaxTokens,
    /// A stop sequence matched.
    StopSequence,
    /// The provider refused or filtered the content.
    Refusal,
    /// Any other reason, verbatim.
    Other(String),
}

/// Token accounting for one call.
///
/// `input` counts only uncached prompt tokens, so
/// `input + cache_read + cache_write` is the whole prompt for both providers
/// (OpenAI reports cached tokens inside `prompt_tokens`; we subtract them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens neither read from nor written to the cache.
    pub input: u64,
    /// Prompt tokens read from the cache (cheap).
    pub cache_read: u64,
    /// Prompt tokens written to the cache (Anthropic only).
    pub cache_write: u64,
    /// Generated tokens.
    pub output: u64,
}

impl Usage {
    /// The whole prompt size.
    pub fn prompt_total(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }

    /// Adds another call's usage (for per-turn and session totals).
    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.output += other.output;
    }
}

/// The assembled result of one model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    /// The assistant message, ready to append to the conversation.
    pub message: Message,
    /// Why generation stopped.
    pub stop_reason: StopReason,
    /// Tokens used.
    pub usage: Usage,
    /// The model that answered, as reported by the server.
    pub model: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_totals() {
        let mut u = Usage {
            input: 1,
            cache_read: 2,
            cache_write: 3,
            output: 4,
        };
        u.add(&Usage {
            input: 10,
            cache_read: 20,
            cache_write: 30,
            output: 40,
        });
        assert_eq!(
            u,
            Usage {
                input: 11,
                cache_read: 22,
                cache_write: 33,
                output: 44
            }
        );
        assert_eq!(u.prompt_total(), 66);
    }
}
