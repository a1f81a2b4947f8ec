//! The neutral conversation model every provider maps to its own wire format.
//!
//! It follows the shape the agent loop needs, not any one API: a conversation is
//! system blocks, alternating user/assistant [`Message`]s whose content is text,
//! tool calls ([`ToolUse`]) and tool answers ([`ToolResult`]), plus the tool
//! definitions the model may call. Types are serde-serializable so a session can
//! be saved and resumed; that encoding is ours, not a wire format.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user side: the human's intent and the tool results the agent sends back.
    User,
    /// The model.
    Assistant,
}

/// One turn of the conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Author of the turn.
    pub role: Role,
    /// Content blocks in order.
    pub content: Vec<ContentBlock>,
}

impl Message {
    /// A user message holding one text block.
    ///
    /// ```
    /// use ar_agent::llm::{Message, Role};
    /// let m = Message::user_text("map the checkout flow");
    /// assert_eq!(m.role, Role::User);
    /// assert_eq!(m.text(), "map the checkout flow");
    /// ```
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![ContentBlock::Text(text.into())],
        }
    }

    /// A user message answering tool calls.
    pub fn tool_results(results: impl IntoIterator<Item = ToolResult>) -> Self {
        Self {
            role: Role::User,
            content: results.into_iter().map(ContentBlock::ToolResult).collect(),
        }
    }

    /// An assistant message holding one text block.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: vec![ContentBlock::Text(text.into())],
        }
    }

    /// All text blocks concatenated (tool blocks are skipped).
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::Text(t) => Some(t.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The tool calls in this message, in order.
    pub fn tool_uses(&self) -> impl Iterator<Item = &ToolUse> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolUse(t) => Some(t),
            _ => None,
        })
    }
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text(String),
    /// The model asks to run a tool (assistant messages only).
    ToolUse(ToolUse),
    /// The answer to a tool call (user messages only).
    ToolResult(ToolResult),
}

/// A tool call made by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUse {
    /// The provider's call id; the [`ToolResult`] must quote it.
    pub id: String,
    /// The tool's name as given in its [`ToolDefinition`].
    pub name: String,
    /// The arguments, parsed or not.
    pub input: ToolInput,
}

/// A tool call's arguments.
///
/// Models sometimes emit arguments that are not valid JSON (or not an object).
/// That is not a transport failure: the loop answers the call with an error
/// [`ToolResult`] so the model can try again, which is why the raw text is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolInput {
    /// A JSON object.
    Parsed(Value),
    /// Text that did not parse as a JSON object.
    Invalid {
        /// The arguments exactly as the model sent them.
        raw: String,
        /// Why they were rejected (parser message).
        error: String,
    },
}

impl ToolInput {
    /// Parses accumulated argument text. Empty text means "no arguments" (`{}`),
    /// which is what both APIs send for a tool without parameters.
    ///
    /// ```
    /// use ar_agent::llm::ToolInput;
    /// assert!(matches!(ToolInput::parse(r#"{"ref":"e4"}"#), ToolInput::Parsed(_)));
    /// assert!(matches!(ToolInput::parse(r#"{"ref":"e4""#), ToolInput::Invalid { .. }));
    /// assert!(matches!(ToolInput::parse("[1]"), ToolInput::Invalid { .. }));
    /// ```
    pub fn parse(raw: &str) -> Self {
        if raw.trim().is_empty() {
            return Self::Parsed(Value::Object(serde_json::Map::new()));
        }
        match serde_json::from_str::<Value>(raw) {
            Ok(v @ Value::Object(_)) => Self::Parsed(v),
            Ok(other) => Self::Invalid {
                raw: raw.to_owned(),
                error: format!("arguments must be a JSON object, got {}", json_kind(&other)),
            },
            Err(e) => Self::Invalid {
                raw: raw.to_owned(),
                error: e.to_string(),
            },
        }
    }

    /// The parsed object, if valid.
    pub fn as_value(&self) -> Option<&Value> {
        match self {
            Self::Parsed(v) => Some(v),
            Self::Invalid { .. } => None,
        }
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The answer to one tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The [`ToolUse::id`] this answers.
    pub tool_use_id: String,
    /// What the tool returned (or the error text).
    pub content: String,
    /// True when the tool failed; the model should re-plan.
    pub is_error: bool,
}

impl ToolResult {
    /// A successful result.
    pub fn ok(tool_use_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: content.into(),
            is_error: false,
        }
    }

    /// A failed result the model should react to.
    pub fn error(tool_use_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: content.into(),
            is_error: true,
        }
    }
}

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// Unique name (`browser_click`).
    pub name: String,
    /// What the tool does and when to use it; models read this.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub input_schema: Value,
}

/// One block of the system prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SystemBlock {
    /// The text.
    pub text: String,
}

/// Everything one model call needs.
///
/// ```
/// use ar_agent::llm::{Message, Request};
/// let req = Request::new(vec![Message::user_text("hi")]).with_system("You map web APIs.");
/// assert_eq!(req.system.len(), 1);
/// assert_eq!(req.max_tokens, 4096);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// System prompt blocks; keep them stable across turns so they stay cached.
    pub system: Vec<SystemBlock>,
    /// The conversation so far; the last message is normally from the user.
    pub messages: Vec<Message>,
    /// Tools offered; keep the list stable across turns so it stays cached.
    pub tools: Vec<ToolDefinition>,
    /// Upper bound on generated tokens.
    pub max_tokens: u32,
    /// Sampling temperature; `None` uses the provider's default.
    pub temperature: Option<f32>,
    /// Mark the end of the conversation as a prompt-cache breakpoint (Anthropic),
    /// so the next turn reads the whole history from cache. Worth it for the
    /// agent loop; pointless for one-shot calls such as enrichment.
    pub cache_conversation: bool,
}

impl Request {
    /// A request with no system prompt, no tools, `max_tokens` 4096 and
    /// conversation caching on.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            system: Vec::new(),
            messages,
            tools: Vec::new(),
            max_tokens: 4096,
            temperature: None,
            cache_conversation: true,
        }
    }

    /// Appends a system block.
    #[must_use]
    pub fn with_system(mut self, text: impl Into<String>) -> Self {
        self.system.push(SystemBlock { text: text.into() });
        self
    }

    /// Sets the tools.
    #[must_use]
    pub fn with_tools(mut self, tools: Vec<ToolDefinition>) -> Self {
        self.tools = tools;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn empty_arguments_mean_no_arguments() {
        assert_eq!(ToolInput::parse("  "), ToolInput::Parsed(json!({})));
    }

    #[test]
    fn invalid_arguments_keep_raw_text_and_reason() {
        let ToolInput::Invalid { raw, error } = ToolInput::parse("{\"a\": tru") else {
            panic!("should be invalid");
        };
        assert_eq!(raw, "{\"a\": tru");
        assert!(!error.is_empty());
        let ToolInput::Invalid { error, .. } = ToolInput::parse("\"x\"") else {
            panic!("a string is not an object");
        };
        assert!(error.contains("a string"), "{error}");
    }

    #[test]
    fn message_helpers() {
        let m = Message {
            role: Role::Assistant,
            content: vec![
                ContentBlock::Text("a".into()),
                ContentBlock::ToolUse(ToolUse {
                    id: "t1".into(),
                    name: "x".into(),
                    input: ToolInput::parse("{}"),
                }),
                ContentBlock::Text("b".into()),
            ],
        };
        assert_eq!(m.text(), "ab");
        assert_eq!(m.tool_uses().count(), 1);
    }
}
