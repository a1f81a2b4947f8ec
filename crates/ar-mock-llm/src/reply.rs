//! What the mock answers: a scripted [`Reply`], built with small constructors.

use serde_json::Value;

/// One content block of a scripted assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Block {
    Text(String),
    Tool {
        id: String,
        name: String,
        arguments: String,
    },
}

/// Token counts the mock reports. `input` excludes cached tokens, as in the
/// Anthropic API; for OpenAI the mock reports
/// `prompt_tokens = input + cache_read + cache_write` and
/// `cached_tokens = cache_read`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MockUsage {
    /// Uncached prompt tokens.
    pub input: u64,
    /// Prompt tokens read from cache.
    pub cache_read: u64,
    /// Prompt tokens written to cache.
    pub cache_write: u64,
    /// Generated tokens.
    pub output: u64,
}

/// How a stream misbehaves.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fault {
    /// Send this many events, then break the connection.
    Cut(usize),
    /// Send this many events, then go silent without closing.
    Stall(usize),
    /// Send this many events, then an error event `(type, message)`, then end.
    ErrorEvent(usize, String, String),
}

/// A scripted answer: an assistant turn or an HTTP error.
///
/// ```
/// use ar_mock_llm::Reply;
/// use serde_json::json;
/// let r = Reply::text("Looking at the cart.")
///     .tool_call("toolu_1", "browser_click", json!({"ref": "e4"}))
///     .usage(1200, 800, 0, 35);
/// let err = Reply::rate_limited(1);
/// # let _ = (r, err);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub(crate) kind: ReplyKind,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ReplyKind {
    Turn(Turn),
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        error_type: String,
        message: String,
        body: Option<String>,
    },
    Raw {
        status: u16,
        content_type: String,
        body: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Turn {
    pub(crate) blocks: Vec<Block>,
    pub(crate) usage: MockUsage,
    pub(crate) stop_reason: Option<String>,
    pub(crate) fault: Option<Fault>,
    pub(crate) force_json: bool,
    pub(crate) piece_chars: usize,
}

impl Reply {
    /// An assistant turn with no content yet (add blocks with the builders).
    pub fn turn() -> Self {
        Self {
            kind: ReplyKind::Turn(Turn {
                blocks: Vec::new(),
                usage: MockUsage {
                    input: 10,
                    cache_read: 0,
                    cache_write: 0,
                    output: 5,
                },
                stop_reason: None,
                fault: None,
                force_json: false,
                piece_chars: 4,
            }),
        }
    }

    /// An assistant turn saying `text`.
    pub fn text(text: impl Into<String>) -> Self {
        Self::turn().and_text(text)
    }

    /// An assistant turn making one tool call.
    pub fn tool(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self::turn().tool_call(id, name, arguments)
    }

    /// An HTTP error with the provider's error body shape.
    pub fn status(status: u16, error_type: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            kind: ReplyKind::Status {
                status,
                headers: Vec::new(),
                error_type: error_type.into(),
                message: message.into(),
                body: None,
            },
        }
    }

    /// Any response, verbatim (e.g. a proxy's HTML login page with status 200).
    pub fn raw(status: u16, content_type: impl Into<String>, body: impl Into<String>) -> Self {
        Self {
            kind: ReplyKind::Raw {
                status,
                content_type: content_type.into(),
                body: body.into(),
            },
        }
    }

    /// HTTP 429 with `retry-after: <seconds>`.
    pub fn rate_limited(retry_after_secs: u64) -> Self {
        Self::status(
            429,
            "rate_limit_error",
            "Number of requests has exceeded your rate limit",
        )
        .header("retry-after", retry_after_secs.to_string())
    }

    /// HTTP 529 `overloaded_error` (Anthropic's "try again later").
    pub fn overloaded() -> Self {
        Self::status(529, "overloaded_error", "Overloaded")
    }

    /// HTTP 500 `api_error`.
    pub fn server_error() -> Self {
        Self::status(500, "api_error", "Internal server error")
    }

    /// HTTP 401 `authentication_error`.
    pub fn unauthorized() -> Self {
        Self::status(401, "authentication_error", "invalid x-api-key")
    }

    /// Appends a text block.
    #[must_use]
    pub fn and_text(self, text: impl Into<String>) -> Self {
        self.with_turn(|t| t.blocks.push(Block::Text(text.into())))
    }

    /// Appends a tool call with JSON arguments.
    #[must_use]
    pub fn tool_call(
        self,
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: Value,
    ) -> Self {
        self.raw_tool_call(id, name, arguments.to_string())
    }

    /// Appends a tool call whose argument text is sent verbatim (e.g. invalid JSON).
    #[must_use]
    pub fn raw_tool_call(
        self,
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        let block = Block::Tool {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        };
        self.with_turn(|t| t.blocks.push(block))
    }

    /// Sets the reported usage.
    #[must_use]
    pub fn usage(self, input: u64, cache_read: u64, cache_write: u64, output: u64) -> Self {
        self.with_turn(|t| {
            t.usage = MockUsage {
                input,
                cache_read,
                cache_write,
                output,
            }
        })
    }

    /// Overrides the stop reason (`end_turn`/`tool_use`, or `stop`/`tool_calls`).
    #[must_use]
    pub fn stop_reason(self, reason: impl Into<String>) -> Self {
        self.with_turn(|t| t.stop_reason = Some(reason.into()))
    }

    /// Sends `events` stream events, then breaks the connection.
    #[must_use]
    pub fn cut_after(self, events: usize) -> Self {
        self.with_turn(|t| t.fault = Some(Fault::Cut(events)))
    }

    /// Sends `events` stream events, then goes silent with the connection open.
    #[must_use]
    pub fn stall_after(self, events: usize) -> Self {
        self.with_turn(|t| t.fault = Some(Fault::Stall(events)))
    }

    /// Sends `events` stream events, then an in-stream error event.
    #[must_use]
    pub fn error_event_after(
        self,
        events: usize,
        error_type: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        let fault = Fault::ErrorEvent(events, error_type.into(), message.into());
        self.with_turn(|t| t.fault = Some(fault))
    }

    /// Answers with one JSON document even if the client asked to stream.
    #[must_use]
    pub fn as_json(self) -> Self {
        self.with_turn(|t| t.force_json = true)
    }

    /// Characters per streamed text / argument fragment (default 4).
    #[must_use]
    pub fn piece_chars(self, chars: usize) -> Self {
        self.with_turn(|t| t.piece_chars = chars.max(1))
    }

    /// Adds a response header (error replies only).
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let ReplyKind::Status { headers, .. } = &mut self.kind {
            headers.push((name.into(), value.into()));
        }
        self
    }

    /// Replaces the error body verbatim (error replies only).
    #[must_use]
    pub fn raw_body(mut self, text: impl Into<String>) -> Self {
        if let ReplyKind::Status { body, .. } = &mut self.kind {
            *body = Some(text.into());
        }
        self
    }

    fn with_turn(mut self, f: impl FnOnce(&mut Turn)) -> Self {
        if let ReplyKind::Turn(t) = &mut self.kind {
            f(t);
        }
        self
    }
}
