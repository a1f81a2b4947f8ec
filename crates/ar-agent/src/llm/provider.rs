//! The one [`Provider`] implementation: a [`Wire`] format plus a resolved
//! [`Target`] (URL, model, key, HTTP client, retry policy).

use bytes::Bytes;
use http::{HeaderMap, HeaderValue};

use super::config::{ProviderKind, Target};
use super::error::LlmError;
use super::event::EventSink;
use super::message::Request;
use super::response::Response;
use super::transport::{Prepared, Wire, call};
use super::{BoxFuture, Provider};

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
