//! What the mock received.

use serde_json::Value;

use crate::WireFormat;

/// One request as received: method, path, headers in order, body.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// HTTP method.
    pub method: String,
    /// Path and query.
    pub path: String,
    /// Headers in arrival order (names lower-case).
    pub headers: Vec<(String, String)>,
    /// The raw body as text (lossy UTF-8).
    pub body: String,
}

impl RecordedRequest {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON (`Null` if it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// Which API the path belongs to, if any.
    pub fn format(&self) -> Option<WireFormat> {
        if self.path.ends_with("/v1/messages") {
            Some(WireFormat::Anthropic)
        } else if self.path.ends_with("/chat/completions") {
            Some(WireFormat::OpenAi)
        } else {
            None
        }
    }

    /// Whether the client asked for a stream.
    pub fn wants_stream(&self) -> bool {
        self.json()["stream"].as_bool().unwrap_or(false)
    }

    /// The text of the last user message (string or text blocks), to route
    /// replies by what was asked.
    pub fn last_user_text(&self) -> String {
        let json = self.json();
        let Some(messages) = json["messages"].as_array() else {
            return String::new();
        };
        let Some(last) = messages.iter().rev().find(|m| m["role"] == "user") else {
            return String::new();
        };
        match &last["content"] {
            Value::String(s) => s.clone(),
            Value::Array(blocks) => blocks
                .iter()
                .filter_map(|b| b["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }

    /// The whole request (headers and body) as one string, for "never
    /// appears anywhere" assertions.
    pub fn everything(&self) -> String {
        let mut s = format!("{} {}\n", self.method, self.path);
        for (n, v) in &self.headers {
            s.push_str(&format!("{n}: {v}\n"));
        }
        s.push('\n');
        s.push_str(&self.body);
        s
    }
}
