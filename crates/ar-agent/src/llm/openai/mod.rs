//! OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp, Ollama):
//! `POST {base}/chat/completions`, `Authorization: Bearer`, `stream: true`
//! with `stream_options: {include_usage: true}`. The key may be empty for a
//! local server; then no `Authorization` header is sent.

mod decode;
mod request;

use http::{HeaderMap, HeaderValue};
use serde_json::Value;

use super::api_error::classify_error;
use super::config::ProviderKind;
use super::error::LlmError;
use super::message::Request;
use super::transport::Wire;

/// The chat-completions wire format.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OpenAiWire;

impl Wire for OpenAiWire {
    type Decoder = decode::OpenAiDecoder;

    fn kind(&self) -> ProviderKind {
        ProviderKind::OpenAi
    }

    fn body(&self, model: &str, request: &Request) -> Value {
        request::body(model, request)
    }

    fn auth_prefix(&self) -> &'static str {
        "Bearer "
    }

    fn headers(&self, key: Option<HeaderValue>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.insert(http::header::AUTHORIZATION, key);
        }
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        headers
    }

    fn decoder(&self) -> Self::Decoder {
        decode::OpenAiDecoder::default()
    }

    fn error(&self, status: u16, body: &[u8]) -> LlmError {
        classify_error(ProviderKind::OpenAi, status, body)
    }
}
