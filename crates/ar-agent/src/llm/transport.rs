//! One model call over HTTP with the retry policy of [`super::retry`]; the
//! wire format (request body, stream decoding, error bodies) is plugged in.

use std::time::{Duration, Instant};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Uri};
use serde_json::Value;

use super::config::{ProviderKind, Target};
use super::error::LlmError;
use super::event::{EventSink, StreamEvent, TrackingSink};
use super::http::{BodyError, HttpClient};
use super::message::{Message, Request, Response};
use super::retry::{RetryPolicy, retry_after_from_headers, should_retry_header};
use super::sse::{SseEvent, SseParser};
use super::{BoxFuture, Provider};

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

/// A [`Provider`] for any [`Wire`]: resolved target plus prebuilt headers.
#[derive(Debug)]
pub(crate) struct HttpProvider<W: Wire> {
    wire: W,
    target: Target,
    headers: HeaderMap,
}

impl<W: Wire> HttpProvider<W> {
    pub(crate) fn new(wire: W, target: Target) -> Result<Self, LlmError> {
        let key = if target.key.is_empty() {
            None
        } else {
            let text = format!("{}{}", wire.auth_prefix(), target.key.expose());
            let mut value = HeaderValue::from_str(&text).map_err(|_| LlmError::Unauthorized {
                provider: wire.kind(),
                status: 0,
                message: "the API key contains characters not allowed in an HTTP header".into(),
                env_var: wire.kind().key_env(),
            })?;
            value.set_sensitive(true);
            Some(value)
        };
        let mut headers = wire.headers(key);
        headers.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        Ok(Self {
            wire,
            target,
            headers,
        })
    }
}

impl<W: Wire> Provider for HttpProvider<W> {
    fn kind(&self) -> ProviderKind {
        self.wire.kind()
    }

    fn model(&self) -> &str {
        &self.target.model
    }

    fn stream<'a>(
        &'a self,
        request: &'a Request,
        events: &'a mut dyn EventSink,
    ) -> BoxFuture<'a, Result<Response, LlmError>> {
        Box::pin(async move {
            let body = self.wire.body(&self.target.model, request);
            let prepared = Prepared {
                url: self.target.url.clone(),
                headers: self.headers.clone(),
                body: Bytes::from(body.to_string()),
            };
            call(
                &self.target.http,
                &self.target.retry,
                &self.wire,
                &prepared,
                events,
            )
            .await
        })
    }
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
    let is_json = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.trim_start().starts_with("application/json"));
    let mut body = response.into_body();
    let mut decoder = wire.decoder();
    let provider = wire.kind();
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
        tracing::debug!(%reason, received, "LLM stream cut");
        LlmError::StreamCut {
            provider,
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

/// The error parts found in an API error body (both providers nest them
/// under `error`: `{type, message}` / `{message, type, code}`).
pub(crate) struct ErrorBody {
    pub(crate) kind: String,
    pub(crate) message: String,
}

impl ErrorBody {
    pub(crate) fn parse(body: &[u8]) -> Self {
        let json: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
        let err = json.get("error").unwrap_or(&json);
        let text = |k: &str| {
            err.get(k)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned()
        };
        let mut kind = text("type");
        let code = text("code");
        if kind.is_empty() || (kind == "error" && !code.is_empty()) {
            kind = code;
        } else if !code.is_empty() && code != kind {
            kind = format!("{kind}/{code}");
        }
        let mut message = text("message");
        if message.is_empty() {
            message = String::from_utf8_lossy(&body[..body.len().min(300)])
                .trim()
                .to_owned();
        }
        Self { kind, message }
    }

    /// Billing / spend-limit errors, which no retry can fix.
    pub(crate) fn is_billing(&self, status: u16) -> bool {
        let kind = self.kind.to_ascii_lowercase();
        let msg = self.message.to_ascii_lowercase();
        status == 402
            || kind.contains("billing")
            || kind.contains("insufficient_quota")
            || [
                "credit balance",
                "spend limit",
                "billing",
                "insufficient_quota",
                "payment required",
            ]
            .iter()
            .any(|needle| msg.contains(needle))
    }
}

/// Maps a non-2xx status and body to the error variant (shared by both wires).
pub(crate) fn classify_error(provider: ProviderKind, status: u16, body: &[u8]) -> LlmError {
    let env_var = provider.key_env();
    let parsed = ErrorBody::parse(body);
    if parsed.is_billing(status) {
        return LlmError::SpendLimit {
            provider,
            status,
            message: parsed.message,
        };
    }
    if matches!(status, 401 | 403) {
        return LlmError::Unauthorized {
            provider,
            status,
            message: parsed.message,
            env_var,
        };
    }
    LlmError::Api {
        provider,
        status,
        kind: parsed.kind,
        message: parsed.message,
        retry_after: None::<Duration>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_of_both_providers() {
        let a = ErrorBody::parse(
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(
            (a.kind.as_str(), a.message.as_str()),
            ("overloaded_error", "Overloaded")
        );
        let o = ErrorBody::parse(
            br#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        );
        assert!(o.is_billing(429));
        let plain = ErrorBody::parse(b"upstream connect error");
        assert_eq!(plain.message, "upstream connect error");
        assert!(!plain.is_billing(503));
    }

    #[test]
    fn classify() {
        let p = ProviderKind::Anthropic;
        let credit = br#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}"#;
        assert!(matches!(
            classify_error(p, 400, credit),
            LlmError::SpendLimit { .. }
        ));
        assert!(matches!(
            classify_error(p, 401, b"{}"),
            LlmError::Unauthorized { .. }
        ));
        assert!(matches!(
            classify_error(p, 529, b"{}"),
            LlmError::Api { status: 529, .. }
        ));
    }
}
