//! Chat-completions stream → [`StreamEvent`]s and a [`Response`].
//!
//! Each `data:` chunk carries `choices[0].delta` with `content` and/or
//! `tool_calls` fragments, a `finish_reason` near the end, then (with
//! `include_usage`) a chunk with `usage` and no choices, then `[DONE]`.
//! Tool calls are assembled by `index`; a fragment whose `id` differs from
//! the id already seen at that index starts a new call (some servers number
//! every call 0). Arguments are parsed only when the stream finishes, since
//! fragments of several calls may interleave.

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::llm::assemble::Assembler;
use crate::llm::config::ProviderKind;
use crate::llm::error::LlmError;
use crate::llm::event::TrackingSink;
use crate::llm::message::Message;
use crate::llm::response::{Response, StopReason, Usage};
use crate::llm::sse::SseEvent;
use crate::llm::transport::Decoder;

/// Decoder state for one attempt.
#[derive(Default)]
pub(crate) struct OpenAiDecoder {
    blocks: Assembler,
    /// Tool-call index → our block index (the latest call at that index).
    calls: HashMap<u64, usize>,
    finish: Option<String>,
    usage: Usage,
    model: String,
}

fn protocol(detail: &str, data: &str) -> LlmError {
    LlmError::Protocol {
        provider: ProviderKind::OpenAi,
        detail: detail.to_owned(),
        data: data.chars().take(200).collect(),
    }
}

impl OpenAiDecoder {
    fn tool_delta(&mut self, position: usize, tc: &Value, sink: &mut TrackingSink<'_>) {
        let index = tc["index"].as_u64().unwrap_or(position as u64);
        let id = tc["id"].as_str().unwrap_or_default();
        let name = tc["function"]["name"].as_str().unwrap_or_default();
        let ours = match self.calls.get(&index) {
            Some(&ours)
                if id.is_empty() || self.blocks.tool_id(ours).is_none_or(|seen| seen == id) =>
            {
                ours
            }
            _ => {
                let ours = self.blocks.open_tool(id, name, sink);
                self.calls.insert(index, ours);
                ours
            }
        };
        self.blocks.tool_identity(ours, id, name);
        let args = match &tc["function"]["arguments"] {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            // Some servers send the arguments as an object rather than a string.
            other => other.to_string(),
        };
        self.blocks.tool_json(ours, &args, sink);
    }
}

impl Decoder for OpenAiDecoder {
    fn on_event(&mut self, ev: SseEvent, sink: &mut TrackingSink<'_>) -> Result<bool, LlmError> {
        let data = ev.data.trim();
        if data == "[DONE]" {
            return Ok(true);
        }
        let json: Value =
            serde_json::from_str(data).map_err(|_| protocol("chunk is not JSON", data))?;
        if let Some(err) = json.get("error").filter(|e| !e.is_null()) {
            let text = |k: &str| err[k].as_str().unwrap_or_default().to_owned();
            let kind = [text("type"), text("code")]
                .into_iter()
                .find(|s| !s.is_empty());
            return Err(LlmError::StreamError {
                provider: ProviderKind::OpenAi,
                kind: kind.unwrap_or_else(|| "error".to_owned()),
                message: text("message"),
            });
        }
        if let Some(model) = json["model"].as_str().filter(|m| !m.is_empty()) {
            model.clone_into(&mut self.model);
        }
        if let Some(choice) = json["choices"].as_array().and_then(|c| c.first()) {
            let delta = &choice["delta"];
            if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
                let index = self.blocks.current_text();
                self.blocks.text(index, text, sink);
            }
            if let Some(calls) = delta["tool_calls"].as_array() {
                for (position, tc) in calls.iter().enumerate() {
                    self.tool_delta(position, tc, sink);
                }
            }
            if let Some(reason) = choice["finish_reason"].as_str() {
                self.finish = Some(reason.to_owned());
            }
        }
        let usage = &json["usage"];
        if usage.is_object() {
            let field = |v: &Value| v.as_u64().unwrap_or(0);
            let prompt = field(&usage["prompt_tokens"]);
            let cached = field(&usage["prompt_tokens_details"]["cached_tokens"]).min(prompt);
            self.usage = Usage {
                input: prompt - cached,
                cache_read: cached,
                cache_write: 0,
                output: field(&usage["completion_tokens"]),
            };
        }
        Ok(false)
    }

    fn can_finish_at_eof(&self) -> bool {
        self.finish.is_some()
    }

    fn finish(&mut self, sink: &mut TrackingSink<'_>) -> Response {
        self.blocks.close_all(sink);
        let reason = match self.finish.as_deref() {
            // Some servers say "stop" even when they made tool calls.
            _ if self.blocks.has_tools() => StopReason::ToolUse,
            Some("stop") | None => StopReason::EndTurn,
            Some("length") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::Refusal,
            Some("tool_calls" | "function_call") => StopReason::ToolUse,
            Some(other) => StopReason::Other(other.to_owned()),
        };
        self.blocks.respond(reason, self.usage, &self.model, sink)
    }

    fn partial(&self) -> Message {
        self.blocks.message()
    }

    fn json_as_events(&self, body: &[u8]) -> Result<Vec<SseEvent>, LlmError> {
        let completion: Value = serde_json::from_slice(body)
            .map_err(|_| protocol("response is not JSON", &String::from_utf8_lossy(body)))?;
        let choice = &completion["choices"][0];
        let mut delta = choice["message"].clone();
        if let Some(calls) = delta["tool_calls"].as_array_mut() {
            for (i, call) in calls.iter_mut().enumerate() {
                call["index"] = json!(i);
            }
        }
        let chunk = json!({
            "model": completion["model"],
            "choices": [{ "index": 0, "delta": delta, "finish_reason": choice["finish_reason"] }],
            "usage": completion["usage"],
        });
        let ev = |data: String| SseEvent {
            event: String::new(),
            data,
        };
        Ok(vec![ev(chunk.to_string()), ev("[DONE]".to_owned())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::event::StreamEvent;
    use crate::llm::message::ToolInput;

    /// Feeds `chunks` (JSON values or `[DONE]`) and returns the response and events.
    fn decode(chunks: &[Value]) -> (Response, Vec<StreamEvent>) {
        let mut events = Vec::new();
        let mut collect = |e: StreamEvent| events.push(e);
        let mut sink = TrackingSink::new(&mut collect);
        let mut d = OpenAiDecoder::default();
        for c in chunks {
            let data = c.as_str().map_or_else(|| c.to_string(), str::to_owned);
            if d.on_event(
                SseEvent {
                    event: String::new(),
                    data,
                },
                &mut sink,
            )
            .unwrap()
            {
                break;
            }
        }
        let r = d.finish(&mut sink);
        (r, events)
    }

    fn tc(index: u64, id: Option<&str>, name: Option<&str>, args: Value) -> Value {
        let mut call = json!({ "index": index, "function": { "arguments": args } });
        if let Some(id) = id {
            call["id"] = id.into();
        }
        if let Some(name) = name {
            call["function"]["name"] = name.into();
        }
        json!({ "choices": [{ "index": 0, "delta": { "tool_calls": [call] } }] })
    }

    #[test]
    fn same_index_with_a_new_id_is_a_new_call() {
        // Some servers number every call 0 and tell them apart by id.
        let (r, _) = decode(&[
            tc(0, Some("a"), Some("x"), json!("{\"n\":")),
            tc(0, None, None, json!("1}")),
            tc(0, Some("b"), Some("y"), json!("{}")),
            json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "tool_calls" }] }),
            json!("[DONE]"),
        ]);
        let calls: Vec<_> = r
            .message
            .tool_uses()
            .map(|t| (t.id.as_str(), &t.input))
            .collect();
        assert_eq!(
            calls,
            [
                ("a", &ToolInput::Parsed(json!({"n": 1}))),
                ("b", &ToolInput::Parsed(json!({})))
            ]
        );
    }

    #[test]
    fn arguments_sent_as_an_object_and_finish_stop_with_tools() {
        let (r, _) = decode(&[
            tc(0, Some("c1"), Some("browser_click"), json!({"ref": "e1"})),
            json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "stop" }] }),
        ]);
        assert_eq!(r.stop_reason, StopReason::ToolUse);
        let call = r.message.tool_uses().next().unwrap();
        assert_eq!(call.input, ToolInput::Parsed(json!({"ref": "e1"})));
    }

    #[test]
    fn an_error_chunk_is_a_stream_error() {
        let mut collect = |_e: StreamEvent| {};
        let mut sink = TrackingSink::new(&mut collect);
        let mut d = OpenAiDecoder::default();
        let data = json!({"error": {"message": "overloaded", "type": "server_error"}}).to_string();
        let err = d
            .on_event(
                SseEvent {
                    event: String::new(),
                    data,
                },
                &mut sink,
            )
            .unwrap_err();
        assert!(matches!(err, LlmError::StreamError { kind, .. } if kind == "server_error"));
    }

    #[test]
    fn length_and_missing_usage() {
        let (r, events) = decode(&[
            json!({ "choices": [{ "index": 0, "delta": { "content": "abc" } }] }),
            json!({ "choices": [{ "index": 0, "delta": {}, "finish_reason": "length" }] }),
            json!("[DONE]"),
        ]);
        assert_eq!(r.stop_reason, StopReason::MaxTokens);
        assert_eq!(r.usage, Usage::default());
        assert!(events.contains(&StreamEvent::TextDelta {
            index: 0,
            text: "abc".into()
        }));
    }
}
