//! Scripted turns → the real wire formats: Anthropic Messages SSE events or
//! message JSON, OpenAI chat-completion chunks or completion JSON, and each
//! provider's error body.

use serde_json::{Value, json};

use crate::WireFormat;
use crate::reply::{Block, Turn};

/// One server-sent event, ready to write.
pub(crate) fn sse(event: Option<&str>, data: &Value) -> String {
    match event {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    }
}

/// Splits text into pieces of at most `n` characters (never inside a char).
fn pieces(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars.chunks(n.max(1)).map(|c| c.iter().collect()).collect()
}

fn has_tools(turn: &Turn) -> bool {
    turn.blocks.iter().any(|b| matches!(b, Block::Tool { .. }))
}

/// The error body each API sends with an error status.
pub(crate) fn error_body(format: WireFormat, error_type: &str, message: &str) -> Value {
    match format {
        WireFormat::Anthropic => {
            json!({ "type": "error", "error": { "type": error_type, "message": message } })
        }
        WireFormat::OpenAi => {
            json!({ "error": { "message": message, "type": error_type, "param": null, "code": null } })
        }
    }
}

/// Anthropic stream events (without any fault applied).
pub(crate) fn anthropic_events(turn: &Turn, model: &str, n: u64) -> Vec<String> {
    let u = turn.usage;
    let mut out = vec![sse(
        Some("message_start"),
        &json!({ "type": "message_start", "message": {
            "id": format!("msg_mock_{n}"), "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": { "input_tokens": u.input, "cache_creation_input_tokens": u.cache_write,
                       "cache_read_input_tokens": u.cache_read, "output_tokens": 1 } } }),
    )];
    out.push(sse(Some("ping"), &json!({ "type": "ping" })));
    for (index, block) in turn.blocks.iter().enumerate() {
        let (start, delta_type, field, text) = match block {
            Block::Text(t) => (
                json!({ "type": "text", "text": "" }),
                "text_delta",
                "text",
                t,
            ),
            Block::Tool {
                id,
                name,
                arguments,
            } => (
                json!({ "type": "tool_use", "id": id, "name": name, "input": {} }),
                "input_json_delta",
                "partial_json",
                arguments,
            ),
        };
        out.push(sse(
            Some("content_block_start"),
            &json!({ "type": "content_block_start", "index": index, "content_block": start }),
        ));
        for piece in pieces(text, turn.piece_chars) {
            out.push(sse(
                Some("content_block_delta"),
                &json!({ "type": "content_block_delta", "index": index,
                         "delta": { "type": delta_type, field: piece } }),
            ));
        }
        out.push(sse(
            Some("content_block_stop"),
            &json!({ "type": "content_block_stop", "index": index }),
        ));
    }
    let stop = turn.stop_reason.clone().unwrap_or_else(|| {
        if has_tools(turn) {
            "tool_use"
        } else {
            "end_turn"
        }
        .to_owned()
    });
    out.push(sse(
        Some("message_delta"),
        &json!({ "type": "message_delta", "delta": { "stop_reason": stop, "stop_sequence": null },
                 "usage": { "output_tokens": u.output } }),
    ));
    out.push(sse(
        Some("message_stop"),
        &json!({ "type": "message_stop" }),
    ));
    out
}

/// Anthropic non-streaming message JSON.
pub(crate) fn anthropic_json(turn: &Turn, model: &str, n: u64) -> Value {
    let u = turn.usage;
    let content: Vec<Value> = turn
        .blocks
        .iter()
        .map(|b| match b {
            Block::Text(t) => json!({ "type": "text", "text": t }),
            Block::Tool {
                id,
                name,
                arguments,
            } => json!({
                "type": "tool_use", "id": id, "name": name,
                "input": serde_json::from_str::<Value>(arguments).unwrap_or_else(|_| json!({})),
            }),
        })
        .collect();
    let stop = turn.stop_reason.clone().unwrap_or_else(|| {
        if has_tools(turn) {
            "tool_use"
        } else {
            "end_turn"
        }
        .to_owned()
    });
    json!({ "id": format!("msg_mock_{n}"), "type": "message", "role": "assistant", "model": model,
            "content": content, "stop_reason": stop, "stop_sequence": null,
            "usage": { "input_tokens": u.input, "cache_creation_input_tokens": u.cache_write,
                       "cache_read_input_tokens": u.cache_read, "output_tokens": u.output } })
}

fn openai_usage(turn: &Turn) -> Value {
    let u = turn.usage;
    let prompt = u.input + u.cache_read + u.cache_write;
    json!({ "prompt_tokens": prompt, "completion_tokens": u.output,
            "total_tokens": prompt + u.output,
            "prompt_tokens_details": { "cached_tokens": u.cache_read } })
}

fn openai_finish(turn: &Turn) -> String {
    turn.stop_reason.clone().unwrap_or_else(|| {
        if has_tools(turn) {
            "tool_calls"
        } else {
            "stop"
        }
        .to_owned()
    })
}

/// OpenAI stream chunks. Argument fragments of several tool calls are
/// interleaved round-robin, so clients must assemble by index.
pub(crate) fn openai_events(turn: &Turn, model: &str, n: u64, include_usage: bool) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        sse(
            None,
            &json!({ "id": format!("chatcmpl-mock-{n}"), "object": "chat.completion.chunk",
            "created": 0, "model": model,
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }] }),
        )
    };
    let mut out = vec![chunk(
        json!({ "role": "assistant", "content": "" }),
        Value::Null,
    )];
    let mut calls = Vec::new();
    for block in &turn.blocks {
        match block {
            Block::Text(t) => {
                for piece in pieces(t, turn.piece_chars) {
                    out.push(chunk(json!({ "content": piece }), Value::Null));
                }
            }
            Block::Tool {
                id,
                name,
                arguments,
            } => {
                let index = calls.len();
                out.push(chunk(
                    json!({ "tool_calls": [{ "index": index, "id": id, "type": "function",
                                              "function": { "name": name, "arguments": "" } }] }),
                    Value::Null,
                ));
                calls.push(pieces(arguments, turn.piece_chars).into_iter());
            }
        }
    }
    loop {
        let mut any = false;
        for (index, call) in calls.iter_mut().enumerate() {
            if let Some(piece) = call.next() {
                any = true;
                out.push(chunk(
                    json!({ "tool_calls": [{ "index": index, "function": { "arguments": piece } }] }),
                    Value::Null,
                ));
            }
        }
        if !any {
            break;
        }
    }
    out.push(chunk(json!({}), json!(openai_finish(turn))));
    if include_usage {
        out.push(sse(
            None,
            &json!({ "id": format!("chatcmpl-mock-{n}"), "object": "chat.completion.chunk",
                     "created": 0, "model": model, "choices": [], "usage": openai_usage(turn) }),
        ));
    }
    out.push("data: [DONE]\n\n".to_owned());
    out
}

/// OpenAI non-streaming completion JSON.
pub(crate) fn openai_json(turn: &Turn, model: &str, n: u64) -> Value {
    let text: String = turn
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Text(t) => Some(t.as_str()),
            Block::Tool { .. } => None,
        })
        .collect();
    let calls: Vec<Value> = turn
        .blocks
        .iter()
        .filter_map(|b| match b {
            Block::Tool {
                id,
                name,
                arguments,
            } => Some(json!({ "id": id, "type": "function",
                "function": { "name": name, "arguments": arguments } })),
            Block::Text(_) => None,
        })
        .collect();
    let mut message = json!({ "role": "assistant", "content": text });
    if text.is_empty() {
        message["content"] = Value::Null;
    }
    if !calls.is_empty() {
        message["tool_calls"] = calls.into();
    }
    json!({ "id": format!("chatcmpl-mock-{n}"), "object": "chat.completion", "created": 0,
            "model": model,
            "choices": [{ "index": 0, "message": message, "finish_reason": openai_finish(turn) }],
            "usage": openai_usage(turn) })
}

/// The in-stream error event of each format.
pub(crate) fn error_event(format: WireFormat, error_type: &str, message: &str) -> String {
    match format {
        WireFormat::Anthropic => sse(Some("error"), &error_body(format, error_type, message)),
        WireFormat::OpenAi => sse(None, &error_body(format, error_type, message)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Reply;
    use crate::reply::ReplyKind;

    fn turn(r: Reply) -> Turn {
        match r.kind {
            ReplyKind::Turn(t) => t,
            ReplyKind::Status { .. } | ReplyKind::Raw { .. } => unreachable!("a turn"),
        }
    }

    #[test]
    fn pieces_respect_char_boundaries() {
        assert_eq!(pieces("héllo", 2), vec!["hé", "ll", "o"]);
        assert!(pieces("", 3).is_empty());
    }

    #[test]
    fn openai_interleaves_two_calls() {
        let t = turn(
            Reply::turn()
                .tool_call("a", "x", json!({"k": "aaaaaaaa"}))
                .tool_call("b", "y", json!({"k": "bbbbbbbb"})),
        );
        let events = openai_events(&t, "m", 1, true);
        let idx: Vec<u64> = events
            .iter()
            .filter_map(|e| e.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .filter_map(|v| v["choices"][0]["delta"]["tool_calls"][0]["index"].as_u64())
            .collect();
        assert!(idx.windows(2).any(|w| w[0] != w[1]) && idx.windows(3).any(|w| w[0] == w[2]));
    }

    #[test]
    fn anthropic_json_shapes() {
        let t = turn(
            Reply::text("hi")
                .tool_call("t", "n", json!({"a": 1}))
                .usage(1, 2, 3, 4),
        );
        let j = anthropic_json(&t, "m", 7);
        assert_eq!(j["content"][1]["input"], json!({"a": 1}));
        assert_eq!(j["stop_reason"], "tool_use");
        assert_eq!(j["usage"]["cache_read_input_tokens"], 2);
        let o = openai_json(&t, "m", 7);
        assert_eq!(o["usage"]["prompt_tokens"], 6);
        assert_eq!(
            o["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
            "{\"a\":1}"
        );
    }
}
