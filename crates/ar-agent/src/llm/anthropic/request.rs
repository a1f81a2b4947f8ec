//! Neutral [`Request`] → Messages API JSON.
//!
//! Prompt caching: a `cache_control: {type: ephemeral}` breakpoint goes on the
//! last tool definition (caches all tools), the last system block (caches
//! tools + system) and, when [`Request::cache_conversation`] is set, on the
//! last block of the last message (the next turn then reads the whole history
//! from cache). Three of the four breakpoints the API allows. Prompts below
//! the model's minimum cacheable size are simply not cached by the server.

use serde_json::{Map, Value, json};

use crate::llm::message::{ContentBlock, Message, Request, Role, ToolInput};

fn cache_control() -> Value {
    json!({ "type": "ephemeral" })
}

/// The request body.
pub(super) fn body(model: &str, req: &Request) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("max_tokens".into(), req.max_tokens.into());
    body.insert("stream".into(), true.into());
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    let mut system: Vec<Value> = req
        .system
        .iter()
        .filter(|b| !b.text.is_empty())
        .map(|b| json!({ "type": "text", "text": b.text }))
        .collect();
    if let Some(last) = system.last_mut() {
        last["cache_control"] = cache_control();
    }
    if !system.is_empty() {
        body.insert("system".into(), system.into());
    }
    let mut tools: Vec<Value> = req
        .tools
        .iter()
        .map(|t| {
            json!({ "name": t.name, "description": t.description, "input_schema": t.input_schema })
        })
        .collect();
    if let Some(last) = tools.last_mut() {
        last["cache_control"] = cache_control();
    }
    if !tools.is_empty() {
        body.insert("tools".into(), tools.into());
    }
    let mut messages: Vec<Value> = req.messages.iter().filter_map(message).collect();
    if req.cache_conversation
        && let Some(block) = messages
            .last_mut()
            .and_then(|m| m["content"].as_array_mut())
            .and_then(|c| c.last_mut())
    {
        block["cache_control"] = cache_control();
    }
    body.insert("messages".into(), messages.into());
    Value::Object(body)
}

/// One message; `None` when nothing sendable is left (the API rejects empty
/// text blocks and empty messages).
fn message(m: &Message) -> Option<Value> {
    let content: Vec<Value> = m
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) if t.is_empty() => None,
            ContentBlock::Text(t) => Some(json!({ "type": "text", "text": t })),
            ContentBlock::ToolUse(t) => {
                // The API requires an object; invalid arguments were already
                // answered with an error result, so `{}` keeps history valid.
                let input = match &t.input {
                    ToolInput::Parsed(v) => v.clone(),
                    ToolInput::Invalid { .. } => json!({}),
                };
                Some(json!({ "type": "tool_use", "id": t.id, "name": t.name, "input": input }))
            }
            ContentBlock::ToolResult(r) => Some(json!({
                "type": "tool_result",
                "tool_use_id": r.tool_use_id,
                "content": r.content,
                "is_error": r.is_error,
            })),
        })
        .collect();
    if content.is_empty() {
        return None;
    }
    let role = match m.role {
        Role::User => "user",
        Role::Assistant => "assistant",
    };
    Some(json!({ "role": role, "content": content }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::message::{ToolDefinition, ToolResult, ToolUse};

    #[test]
    fn maps_blocks_and_sets_cache_breakpoints() {
        let mut req = Request::new(vec![
            Message::user_text("go"),
            Message {
                role: Role::Assistant,
                content: vec![
                    ContentBlock::Text(String::new()),
                    ContentBlock::ToolUse(ToolUse {
                        id: "t1".into(),
                        name: "browser_click".into(),
                        input: ToolInput::parse("{oops"),
                    }),
                ],
            },
            Message::tool_results([ToolResult::error("t1", "bad arguments")]),
        ])
        .with_system("be brief");
        req.tools = vec![
            ToolDefinition {
                name: "a".into(),
                description: "A".into(),
                input_schema: json!({}),
            },
            ToolDefinition {
                name: "b".into(),
                description: "B".into(),
                input_schema: json!({}),
            },
        ];
        let b = body("m", &req);
        assert_eq!(b["stream"], true);
        assert_eq!(b["system"][0]["cache_control"]["type"], "ephemeral");
        assert!(b["tools"][0].get("cache_control").is_none());
        assert_eq!(b["tools"][1]["cache_control"]["type"], "ephemeral");
        let msgs = b["messages"].as_array().unwrap();
        assert_eq!(
            msgs[1]["content"].as_array().unwrap().len(),
            1,
            "empty text dropped"
        );
        assert_eq!(msgs[1]["content"][0]["input"], json!({}));
        assert_eq!(msgs[2]["content"][0]["is_error"], true);
        assert_eq!(msgs[2]["content"][0]["cache_control"]["type"], "ephemeral");
        req.cache_conversation = false;
        let b = body("m", &req);
        assert!(
            b["messages"][2]["content"][0]
                .get("cache_control")
                .is_none()
        );
    }
}
