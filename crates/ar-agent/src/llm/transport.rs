//! One model call over HTTP with the retry policy of [`super::retry`]; the
//! wire format (request body, stream decoding, error bodies) is plugged in.

use std::time::Instant;

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Uri};
use serde_json::Value;

use super::config::ProviderKind;
use super::error::LlmError;
use super::event::{EventSink, StreamEvent, TrackingSink};
use super::http::{BodyError, HttpClient};
use super::message::{Message, Request};
use super::response::Response;
use super::retry::{RetryPolicy, retry_after_from_headers, should_retry_header};
use super::sse::{SseEvent, SseParser};

/// Largest error body kept for the message.
const ERROR_BODY_CAP: usize = 64 * 1024;

/// Turns a provider's stream into events and a final [`Response`].
pub(crate) trait Decoder: Send {
    /// Handles one SSE event; `Ok(true)` when the response is complete.
    fn on_event(&mut self, event: SseEvent, sink: &mut TrackingSink<'_>) -> Result<bool, LlmError>;
    /// Whether the stream said enough to finish at end-of-body without its
    /// terminator (lenient servers omit `[DONE]`).
    fn can_finish_at_eof(&self) -> bool;
    /// The assembled response; emits the final `Stop`/`Usage` events.
    fn finish(&mut self, sink: &mut TrackingSink<'_>) -> Response;
    /// What is complete so far, for a [`LlmError::StreamCut`].
    fn partial(&self) -> Message;
    /// Rewrites a non-streaming JSON answer (a server that ignored
    /// `stream: true`) as the equivalent stream events.
    fn json_as_events(&self, body: &[u8]) -> Result<Vec<SseEvent>, LlmError>;
}

/// What differs between wire formats around the transport.
pub(crate) trait Wire: Send + Sync + std::fmt::Debug + 'static {
    /// The decoder type.
    type Decoder: Decoder;
    /// Which provider this is (for error messages).
    fn kind(&self) -> ProviderKind;
    /// The JSON request body.
    fn body(&self, model: &str, request: &Request) -> Value;
    /// What precedes the key in its header value (`Bearer `).
    fn auth_prefix(&self) -> &'static str {
        ""
    }
    /// Request headers; `key` (already marked sensitive) is `None` when empty.
    fn headers(&self, key: Option<HeaderValue>) -> HeaderMap;
    /// A fresh decoder for one attempt.
    fn decoder(&self) -> Self::Decoder;
    /// The error for a non-2xx response.
    fn error(&self, status: u16, body: &[u8]) -> LlmError;
}

/// A prepared request: endpoint, headers (the key among them, marked
/// sensitive) and body, reusable across attempts.
pub(crate) struct Prepared {
    pub(crate) url: Uri,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

/// Sends `prepared`, retrying per `policy`.
pub(crate) async fn call<W: Wire>(
    http: &HttpClient,
    policy: &RetryPolicy,
    wire: &W,
    prepared: &Prepared,
    sink: &mut dyn EventSink,
) -> Result<Response, LlmError> {
    let started = Instant::now();
    let mut attempt: u32 = 0;
    loop {
        attempt += 1;
        let (err, verdict, emitted_output) = {
            let mut tracking = TrackingSink::new(sink);
            match attempt_once(http, wire, prepared, &mut tracking).await {
                Ok(response) => return Ok(response),
                Err((err, verdict)) => (err, verdict, tracking.emitted_output()),
            }
        };
        // Output already shown is never repeated, whatever the failure.
        let retryable = !emitted_output
            && verdict.unwrap_or_else(|| err.is_retryable())
            && !matches!(
                err,
                LlmError::SpendLimit { .. } | LlmError::Unauthorized { .. }
            );
        if !retryable {
            return Err(err);
        }
        let delay = policy.delay(attempt, err.retry_after());
        let elapsed = started.elapsed();
        if attempt >= policy.max_attempts || elapsed + delay > policy.max_elapsed {
            if attempt == 1 {
                return Err(err);
            }
            return Err(LlmError::GaveUp {
                attempts: attempt,
                elapsed,
                last: Box::new(err),
            });
        }
        tracing::warn!(attempt, ?delay, reason = %err.short(), "LLM call failed; retrying");
        sink.event(StreamEvent::Retrying {
            attempt,
            delay,
            reason: err.short(),
        });
        tokio::time::sleep(delay).await;
    }
}

/// One attempt; the error comes with the server's `x-should-retry` verdict.
async fn attempt_once<W: Wire>(
    http: &HttpClient,
    wire: &W,
    prepared: &Prepared,
    sink: &mut TrackingSink<'_>,
) -> Result<Response, (LlmError, Option<bool>)> {
    let response = http
        .post(&prepared.url, &prepared.headers, prepared.body.clone())
        .await
        .map_err(|e| (e, None))?;
    let status = response.status();
    if !status.is_success() {
        let verdict = should_retry_header(response.headers());
        let wait = retry_after_from_headers(response.headers());
        let body = http.read_capped(response.into_body(), ERROR_BODY_CAP).await;
        let mut err = wire.error(status.as_u16(), &body);
        if let LlmError::Api { retry_after, .. } = &mut err {
            *retry_after = wait;
        }
        return Err((err, verdict));
    }
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("text/event-stream")
        .trim()
        .to_ascii_lowercase();
    let is_json = content_type.starts_with("application/json");
    let mut body = response.into_body();
    let mut decoder = wire.decoder();
    let provider = wire.kind();
    if !is_json && !content_type.starts_with("text/event-stream") {
        // A login page of a proxy, a misconfigured base URL serving HTML...
        let start = http.read_capped(body, 300).await;
        let detail = format!("expected an event stream, got {content_type}");
        let data = String::from_utf8_lossy(&start).into_owned();
        return Err((
            LlmError::Protocol {
                provider,
                detail,
                data,
            },
            None,
        ));
    }
    if is_json {
        let bytes = http.read_capped(body, 32 * 1024 * 1024).await;
        for event in decoder.json_as_events(&bytes).map_err(|e| (e, None))? {
            decoder.on_event(event, sink).map_err(|e| (e, None))?;
        }
        return Ok(decoder.finish(sink));
    }
    let mut parser = SseParser::default();
    let mut events = Vec::new();
    let mut received: u64 = 0;
    let cut = |reason: String, received: u64, sink: &TrackingSink<'_>, decoder: &W::Decoder| {
        LlmError::StreamCut {
            provider,
            reason,
            received_bytes: received,
            emitted_output: sink.emitted_output(),
            partial: Box::new(decoder.partial()),
        }
    };
    loop {
        match http.next_chunk(&mut body).await {
            Ok(Some(chunk)) => {
                received += chunk.len() as u64;
                parser.feed(&chunk, &mut events).map_err(|_| {
                    let detail = "an event larger than 8 MiB".to_owned();
                    (
                        LlmError::Protocol {
                            provider,
                            detail,
                            data: String::new(),
                        },
                        None,
                    )
                })?;
                for event in events.drain(..) {
                    if decoder.on_event(event, sink).map_err(|e| (e, None))? {
                        return Ok(decoder.finish(sink));
                    }
                }
            }
            Ok(None) if decoder.can_finish_at_eof() && !parser.has_partial() => {
                return Ok(decoder.finish(sink));
            }
            Ok(None) => {
                let reason = "end of body before the final event".to_owned();
                return Err((cut(reason, received, sink, &decoder), None));
            }
            Err(BodyError::Broken(reason)) => {
                return Err((cut(reason, received, sink, &decoder), None));
            }
            Err(BodyError::Idle(after)) => {
                let reason = format!("no data for {after:?}");
                return Err((cut(reason, received, sink, &decoder), None));
            }
        }
    }
}
