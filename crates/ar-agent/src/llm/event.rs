//! Events streamed while a response is generated, and where they go.

use std::time::Duration;

use super::message::ToolUse;
use super::response::{StopReason, Usage};

/// Something that happened while the model was answering.
///
/// `index` is the position of the content block in the final
/// [`Response::message`](super::Response), so a UI can route deltas to the
/// right block when text and tool calls interleave.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// More text for block `index`.
    TextDelta {
        /// Content block index.
        index: usize,
        /// The new text.
        text: String,
    },
    /// The model started a tool call.
    ToolUseStart {
        /// Content block index.
        index: usize,
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// A fragment of a tool call's JSON arguments (not parseable on its own).
    ToolUseInputDelta {
        /// Content block index.
        index: usize,
        /// The fragment.
        partial_json: String,
    },
    /// A tool call is complete; its arguments are parsed (or marked invalid).
    ToolUseComplete {
        /// Content block index.
        index: usize,
        /// The finished call.
        tool_use: ToolUse,
    },
    /// Why the model stopped (arrives before the final usage).
    Stop {
        /// The reason.
        reason: StopReason,
    },
    /// Final token usage for the call.
    Usage(Usage),
    /// The request failed transiently and will be sent again after `delay`.
    /// Nothing from the failed attempt was shown, so the UI has nothing to undo.
    Retrying {
        /// The attempt that failed (1-based).
        attempt: u32,
        /// How long we wait before the next attempt.
        delay: Duration,
        /// What went wrong, for a status line ("HTTP 529 overloaded").
        reason: String,
    },
}

impl StreamEvent {
    /// True for events that show model output to the user. Once one has been
    /// delivered, a failed stream is not retried (the user would see it twice).
    pub fn is_output(&self) -> bool {
        matches!(
            self,
            Self::TextDelta { .. }
                | Self::ToolUseStart { .. }
                | Self::ToolUseInputDelta { .. }
                | Self::ToolUseComplete { .. }
        )
    }
}

/// Receives [`StreamEvent`]s as they arrive. Any `FnMut(StreamEvent) + Send`
/// closure is a sink; `()` discards events.
pub trait EventSink: Send {
    /// Handles one event; must not block for long (the stream waits).
    fn event(&mut self, event: StreamEvent);
}

impl<F: FnMut(StreamEvent) + Send> EventSink for F {
    fn event(&mut self, event: StreamEvent) {
        self(event);
    }
}

impl EventSink for () {
    fn event(&mut self, _event: StreamEvent) {}
}

/// Wraps a sink and remembers whether model output was delivered, which
/// decides whether a broken stream may be retried.
pub(crate) struct TrackingSink<'a> {
    inner: &'a mut dyn EventSink,
    emitted_output: bool,
}

impl<'a> TrackingSink<'a> {
    pub(crate) fn new(inner: &'a mut dyn EventSink) -> Self {
        Self {
            inner,
            emitted_output: false,
        }
    }

    pub(crate) fn emit(&mut self, event: StreamEvent) {
        self.emitted_output |= event.is_output();
        self.inner.event(event);
    }

    pub(crate) fn emitted_output(&self) -> bool {
        self.emitted_output
    }
}
