//! Messages API stream → [`StreamEvent`]s and a [`Response`].
//!
//! Events: `message_start` (model, input usage), `content_block_start`
//! (`text` or `tool_use`), `content_block_delta` (`text_delta`,
//! `input_json_delta`; others such as thinking deltas are skipped),
//! `content_block_stop` (a tool call's arguments are parsed here),
//! `message_delta` (stop reason, cumulative usage), `message_stop`, `ping`,
//! `error`. Unknown events are ignored so new API features do not break us.

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
pub(crate) struct AnthropicDecoder {
    blocks: Assembler,
    /// API block index → our block index (skipped block types are absent).
    index_map: HashMap<u64, usize>,
    usage: Usage,
    stop_reason: Option<StopReason>,
    model: String,
}

fn protocol(detail: &str, data: &str) -> LlmError {
    LlmError::Protocol {
        provider: ProviderKind::Anthropic,
        detail: detail.to_owned(),
        data: data.chars().take(200).collect(),
    }
}

fn stop_reason(s: &str) -> StopReason {
    match s {
        "end_turn" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        "stop_sequence" => StopReason::StopSequence,
        "refusal" => StopReason::Refusal,
        other => StopReason::Other(other.to_owned()),
    }
}

/// Copies the usage fields present in `u` (message_delta's are cumulative and
/// may repeat or omit the input counts).
fn merge_usage(usage: &mut Usage, u: &Value) {
    let field = |k: &str| u.get(k).and_then(Value::as_u64);
    if let Some(v) = field("input_tokens") {
        usage.input = v;
    }
    if let Some(v) = field("cache_read_input_tokens") {
        usage.cache_read = v;
    }
    if let Some(v) = field("cache_creation_input_tokens") {
        usage.cache_write = v;
    }
    if let Some(v) = field("output_tokens") {
        usage.output = v;
    }
}

impl Decoder for AnthropicDecoder {
    fn on_event(&mut self, ev: SseEvent, sink: &mut TrackingSink<'_>) -> Result<bool, LlmError> {
        let json: Value = serde_json::from_str(&ev.data)
            .map_err(|_| protocol("event data is not JSON", &ev.data))?;
        let kind = if ev.event.is_empty() {
            json.get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        } else {
            ev.event
        };
        let index = json.get("index").and_then(Value::as_u64);
        match kind.as_str() {
            "message_start" => {
                let msg = &json["message"];
                msg["model"]
                    .as_str()
                    .unwrap_or_default()
                    .clone_into(&mut self.model);
                merge_usage(&mut self.usage, &msg["usage"]);
            }
            "content_block_start" => {
                let index = index.ok_or_else(|| protocol("block without index", &ev.data))?;
                let block = &json["content_block"];
                let ours = match block["type"].as_str() {
                    Some("text") => {
                        let ours = self.blocks.open_text();
                        self.blocks
                            .text(ours, block["text"].as_str().unwrap_or_default(), sink);
                        ours
                    }
                    Some("tool_use") => {
                        let id = block["id"].as_str().unwrap_or_default();
                        let name = block["name"].as_str().unwrap_or_default();
                        let ours = self.blocks.open_tool(id, name, sink);
                        // A non-empty start input only occurs when the
                        // arguments are not streamed (our JSON fallback).
                        if let Some(input) = block.get("input").filter(|i| *i != &json!({})) {
                            self.blocks.tool_json(ours, &input.to_string(), sink);
                        }
                        ours
                    }
                    _ => return Ok(false),
                };
                self.index_map.insert(index, ours);
            }
            "content_block_delta" => {
                let Some(&ours) = index.and_then(|i| self.index_map.get(&i)) else {
                    return Ok(false);
                };
                let delta = &json["delta"];
                match delta["type"].as_str() {
                    Some("text_delta") => {
                        self.blocks
                            .text(ours, delta["text"].as_str().unwrap_or_default(), sink);
                    }
                    Some("input_json_delta") => {
                        let part = delta["partial_json"].as_str().unwrap_or_default();
                        self.blocks.tool_json(ours, part, sink);
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(&ours) = index.and_then(|i| self.index_map.get(&i)) {
                    self.blocks.close_tool(ours, sink);
                }
            }
            "message_delta" => {
                if let Some(r) = json["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(stop_reason(r));
                }
                merge_usage(&mut self.usage, &json["usage"]);
            }
            "message_stop" => return Ok(true),
            "error" => {
                let err = &json["error"];
                return Err(LlmError::StreamError {
                    provider: ProviderKind::Anthropic,
                    kind: err["type"].as_str().unwrap_or("error").to_owned(),
                    message: err["message"].as_str().unwrap_or_default().to_owned(),
                });
            }
            _ => {}
        }
        Ok(false)
    }

    fn can_finish_at_eof(&self) -> bool {
        false
    }

    fn finish(&mut self, sink: &mut TrackingSink<'_>) -> Response {
        self.blocks.close_all(sink);
        let reason = self
            .stop_reason
            .clone()
            .unwrap_or(if self.blocks.has_tools() {
                StopReason::ToolUse
            } else {
                StopReason::EndTurn
            });
        self.blocks.respond(reason, self.usage, &self.model, sink)
    }

    fn partial(&self) -> Message {
        self.blocks.message()
    }

    fn json_as_events(&self, body: &[u8]) -> Result<Vec<SseEvent>, LlmError> {
        let msg: Value = serde_json::from_slice(body)
            .map_err(|_| protocol("response is not JSON", &String::from_utf8_lossy(body)))?;
        let ev = |event: &str, data: Value| SseEvent {
            event: event.to_owned(),
            data: data.to_string(),
        };
        let mut start = msg.clone();
        start["content"] = json!([]);
        let mut out = vec![ev(
            "message_start",
            json!({ "type": "message_start", "message": start }),
        )];
        let content = msg["content"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (i, block) in content.iter().enumerate() {
            out.push(ev(
                "content_block_start",
                json!({ "index": i, "content_block": block }),
            ));
            out.push(ev("content_block_stop", json!({ "index": i })));
        }
        out.push(ev(
            "message_delta",
            json!({ "delta": { "stop_reason": msg["stop_reason"] }, "usage": msg["usage"] }),
        ));
        out.push(ev("message_stop", json!({})));
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::event::StreamEvent;

    fn feed(
        d: &mut AnthropicDecoder,
        sink: &mut TrackingSink<'_>,
        event: &str,
        data: Value,
    ) -> bool {
        d.on_event(
            SseEvent {
                event: event.to_owned(),
                data: data.to_string(),
            },
            sink,
        )
        .unwrap()
    }

    #[test]
    fn skips_thinking_blocks_and_keeps_indices_dense() {
        let mut events = Vec::new();
        let mut collect = |e: StreamEvent| events.push(e);
        let mut sink = TrackingSink::new(&mut collect);
        let mut d = AnthropicDecoder::default();
        let r = {
            feed(
                &mut d,
                &mut sink,
                "message_start",
                json!({"message": {"model": "m",
            "usage": {"input_tokens": 5, "output_tokens": 1}}}),
            );
            feed(
                &mut d,
                &mut sink,
                "content_block_start",
                json!({"index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
            );
            feed(
                &mut d,
                &mut sink,
                "content_block_delta",
                json!({"index": 0, "delta": {"type": "thinking_delta", "thinking": "hmm"}}),
            );
            feed(&mut d, &mut sink, "content_block_stop", json!({"index": 0}));
            feed(
                &mut d,
                &mut sink,
                "content_block_start",
                json!({"index": 1, "content_block": {"type": "text", "text": ""}}),
            );
            feed(
                &mut d,
                &mut sink,
                "content_block_delta",
                json!({"index": 1, "delta": {"type": "text_delta", "text": "hi"}}),
            );
            feed(
                &mut d,
                &mut sink,
                "message_delta",
                json!({"delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 9}}),
            );
            assert!(feed(&mut d, &mut sink, "message_stop", json!({})));
            d.finish(&mut sink)
        };
        assert_eq!(r.message.text(), "hi");
        assert_eq!(r.stop_reason, StopReason::MaxTokens);
        assert_eq!(
            r.usage,
            Usage {
                input: 5,
                cache_read: 0,
                cache_write: 0,
                output: 9
            }
        );
        assert_eq!(
            events[0],
            StreamEvent::TextDelta {
                index: 0,
                text: "hi".into()
            }
        );
    }

    #[test]
    fn bad_event_json_is_a_protocol_error_quoting_the_data() {
        let mut collect = |_e: StreamEvent| {};
        let mut sink = TrackingSink::new(&mut collect);
        let mut d = AnthropicDecoder::default();
        let ev = SseEvent {
            event: "content_block_delta".into(),
            data: "{not json".into(),
        };
        let err = d.on_event(ev, &mut sink).unwrap_err();
        assert!(err.to_string().contains("{not json"), "{err}");
    }
}
