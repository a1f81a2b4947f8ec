//! Builds the assistant message from streamed pieces and emits the matching
//! [`StreamEvent`]s; shared by both decoders so events and the final message
//! always agree.

use super::event::{StreamEvent, TrackingSink};
use super::message::{ContentBlock, Message, Role, ToolInput, ToolUse};
use super::response::{Response, StopReason, Usage};

enum Block {
    Text(String),
    Tool {
        id: String,
        name: String,
        json: String,
        done: Option<ToolUse>,
    },
}

/// Content blocks under construction; indices are positions in the final message.
#[derive(Default)]
pub(crate) struct Assembler {
    blocks: Vec<Block>,
}

impl Assembler {
    /// Opens a text block and returns its index.
    pub(crate) fn open_text(&mut self) -> usize {
        self.blocks.push(Block::Text(String::new()));
        self.blocks.len() - 1
    }

    /// Index of the last block if it is text, else opens one.
    pub(crate) fn current_text(&mut self) -> usize {
        match self.blocks.last() {
            Some(Block::Text(_)) => self.blocks.len() - 1,
            _ => self.open_text(),
        }
    }

    /// Appends text to block `index` (ignored if it is not a text block).
    pub(crate) fn text(&mut self, index: usize, text: &str, sink: &mut TrackingSink<'_>) {
        if text.is_empty() {
            return;
        }
        if let Some(Block::Text(t)) = self.blocks.get_mut(index) {
            t.push_str(text);
            sink.emit(StreamEvent::TextDelta {
                index,
                text: text.to_owned(),
            });
        }
    }

    /// Opens a tool call and returns its index.
    pub(crate) fn open_tool(&mut self, id: &str, name: &str, sink: &mut TrackingSink<'_>) -> usize {
        let index = self.blocks.len();
        self.blocks.push(Block::Tool {
            id: id.to_owned(),
            name: name.to_owned(),
            json: String::new(),
            done: None,
        });
        sink.emit(StreamEvent::ToolUseStart {
            index,
            id: id.to_owned(),
            name: name.to_owned(),
        });
        index
    }

    /// Fills in an id or name that arrived after the call opened.
    pub(crate) fn tool_identity(&mut self, index: usize, new_id: &str, new_name: &str) {
        if let Some(Block::Tool { id, name, .. }) = self.blocks.get_mut(index) {
            if id.is_empty() {
                new_id.clone_into(id);
            }
            if name.is_empty() {
                new_name.clone_into(name);
            }
        }
    }

    /// The call id of tool block `index`.
    pub(crate) fn tool_id(&self, index: usize) -> Option<&str> {
        match self.blocks.get(index) {
            Some(Block::Tool { id, .. }) => Some(id),
            _ => None,
        }
    }

    /// Appends argument text to tool block `index`.
    pub(crate) fn tool_json(&mut self, index: usize, part: &str, sink: &mut TrackingSink<'_>) {
        if part.is_empty() {
            return;
        }
        if let Some(Block::Tool {
            json, done: None, ..
        }) = self.blocks.get_mut(index)
        {
            json.push_str(part);
            sink.emit(StreamEvent::ToolUseInputDelta {
                index,
                partial_json: part.to_owned(),
            });
        }
    }

    /// Parses tool block `index`'s arguments and announces the finished call.
    pub(crate) fn close_tool(&mut self, index: usize, sink: &mut TrackingSink<'_>) {
        if let Some(Block::Tool {
            id,
            name,
            json,
            done: done @ None,
        }) = self.blocks.get_mut(index)
        {
            let tool_use = ToolUse {
                id: id.clone(),
                name: name.clone(),
                input: ToolInput::parse(json),
            };
            *done = Some(tool_use.clone());
            sink.emit(StreamEvent::ToolUseComplete { index, tool_use });
        }
    }

    /// Closes every open tool call, in order.
    pub(crate) fn close_all(&mut self, sink: &mut TrackingSink<'_>) {
        for index in 0..self.blocks.len() {
            self.close_tool(index, sink);
        }
    }

    /// True when any tool call was made.
    pub(crate) fn has_tools(&self) -> bool {
        self.blocks.iter().any(|b| matches!(b, Block::Tool { .. }))
    }

    /// Ends the turn: emits the stop reason and usage, in that order for both
    /// providers, and returns the finished response.
    pub(crate) fn respond(
        &self,
        reason: StopReason,
        usage: Usage,
        model: &str,
        sink: &mut TrackingSink<'_>,
    ) -> Response {
        sink.emit(StreamEvent::Stop {
            reason: reason.clone(),
        });
        sink.emit(StreamEvent::Usage(usage));
        Response {
            message: self.message(),
            stop_reason: reason,
            usage,
            model: model.to_owned(),
        }
    }

    /// The assistant message: text blocks and finished tool calls (unfinished
    /// ones are left out, so a partial message is still valid history).
    pub(crate) fn message(&self) -> Message {
        let content = self
            .blocks
            .iter()
            .filter_map(|b| match b {
                Block::Text(t) if t.is_empty() => None,
                Block::Text(t) => Some(ContentBlock::Text(t.clone())),
                Block::Tool { done, .. } => done.clone().map(ContentBlock::ToolUse),
            })
            .collect();
        Message {
            role: Role::Assistant,
            content,
        }
    }
}
