//! The Anthropic Messages API: `POST {base}/v1/messages`, `x-api-key`,
//! `anthropic-version: 2023-06-01`, `stream: true`.

mod decode;
mod request;

use http::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::api_error::classify_error;
use super::config::ProviderKind;
use super::error::LlmError;
use super::message::Request;
use super::transport::Wire;

/// The API version header value this client speaks.
const API_VERSION: &str = "2023-06-01";

/// The Messages API wire format.
#[derive(Debug, Clone, Copy)]
pub(crate) struct AnthropicWire;

impl Wire for AnthropicWire {
    type Decoder = decode::AnthropicDecoder;

    fn kind(&self) -> ProviderKind {
        ProviderKind::Anthropic
    }

    fn body(&self, model: &str, request: &Request) -> Value {
        request::body(model, request)
    }

    fn headers(&self, key: Option<HeaderValue>) -> HeaderMap {
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.insert(HeaderName::from_static("x-api-key"), key);
        }
        headers.insert("anthropic-version", HeaderValue::from_static(API_VERSION));
        headers.insert(
            http::header::ACCEPT,
            HeaderValue::from_static("text/event-stream"),
        );
        headers
    }

    fn decoder(&self) -> Self::Decoder {
        decode::AnthropicDecoder::default()
    }

    fn error(&self, status: u16, body: &[u8]) -> LlmError {
        classify_error(ProviderKind::Anthropic, status, body)
    }
}
