//! Neutral [`Request`] → chat-completions JSON.
//!
//! System blocks join into one `system` message. A user message's tool
//! results become `role: tool` messages (placed first, as the API requires them
//! right after the assistant's `tool_calls`), its text a following `user`
//! message. The API has no error flag on tool messages, so failed results are
//! prefixed with `Error: `. Invalid arguments are sent back verbatim, as the
//! model wrote them. An empty tool list is omitted (some servers reject `[]`).

use serde_json::{Map, Value, json};

use crate::llm::message::{ContentBlock, Message, Request, Role, ToolInput};

/// The request body.
pub(super) fn body(model: &str, req: &Request) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("max_tokens".into(), req.max_tokens.into());
    body.insert("stream".into(), true.into());
    body.insert("stream_options".into(), json!({ "include_usage": true }));
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    let mut messages = Vec::new();
    let system: Vec<&str> = req
        .system
        .iter()
        .map(|b| b.text.as_str())
        .filter(|t| !t.is_empty())
        .collect();
    if !system.is_empty() {
        messages.push(json!({ "role": "system", "content": system.join("\n\n") }));
    }
    for m in &req.messages {
        push_message(m, &mut messages);
    }
    body.insert("messages".into(), messages.into());
    if !req.tools.is_empty() {
        let tools: Vec<Value> = req
            .tools
            .iter()
            .map(|t| {
                json!({ "type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema,
                }})
            })
            .collect();
        body.insert("tools".into(), tools.into());
    }
    Value::Object(body)
}

fn push_message(m: &Message, out: &mut Vec<Value>) {
    let text = m.text();
    match m.role {
        Role::User => {
            for block in &m.content {
                if let ContentBlock::ToolResult(r) = block {
                    let content = if r.is_error {
                        format!("Error: {}", r.content)
                    } else {
                        r.content.clone()
                    };
                    out.push(
                        json!({ "role": "tool", "tool_call_id": r.tool_use_id, "content": content }),
                    );
                }
            }
            if !text.is_empty() {
                out.push(json!({ "role": "user", "content": text }));
            }
        }
        Role::Assistant => {
            let calls: Vec<Value> = m
                .tool_uses()
                .map(|t| {
                    let arguments = match &t.input {
                        ToolInput::Parsed(v) => v.to_string(),
                        ToolInput::Invalid { raw, .. } => raw.clone(),
                    };
                    json!({ "id": t.id, "type": "function",
                            "function": { "name": t.name, "arguments": arguments } })
                })
                .collect();
            if text.is_empty() && calls.is_empty() {
                return;
            }
            let mut msg = json!({ "role": "assistant", "content": text });
            if text.is_empty() {
                msg["content"] = Value::Null;
            }
            if !calls.is_empty() {
                msg["tool_calls"] = calls.into();
            }
            out.push(msg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::message::{ToolDefinition, ToolResult, ToolUse};

    #[test]
    fn maps_tool_round_trip() {
        let mut req = Request::new(vec![
            Message::user_text("go"),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::ToolUse(ToolUse {
                    id: "call_1".into(),
                    name: "browser_click".into(),
                    input: ToolInput::parse("{oops"),
                })],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::ToolResult(ToolResult::error("call_1", "invalid JSON")),
                    ContentBlock::Text("also: hurry".into()),
                ],
            },
        ])
        .with_system("a")
        .with_system("b");
        req.tools = vec![ToolDefinition {
            name: "browser_click".into(),
            description: "Click".into(),
            input_schema: json!({"type": "object"}),
        }];
        let b = body("m", &req);
        assert_eq!(b["stream_options"]["include_usage"], true);
        let msgs = b["messages"].as_array().unwrap();
        assert_eq!(msgs[0], json!({"role": "system", "content": "a\n\nb"}));
        assert_eq!(msgs[2]["content"], Value::Null);
        assert_eq!(msgs[2]["tool_calls"][0]["function"]["arguments"], "{oops");
        assert_eq!(msgs[3]["role"], "tool");
        assert_eq!(msgs[3]["content"], "Error: invalid JSON");
        assert_eq!(msgs[4], json!({"role": "user", "content": "also: hurry"}));
        assert_eq!(b["tools"][0]["function"]["parameters"]["type"], "object");
        assert!(body("m", &Request::new(vec![])).get("tools").is_none());
    }
}
