//! The HTTP client under both providers: hyper 1 with hyper-rustls's pooled
//! connector, which speaks plain TCP (loopback servers, local
//! vLLM/llama.cpp/Ollama) or TLS via rustls with the ring provider and the web
//! PKI roots (plus extra roots, so tests can trust their own CA). HTTP/1.1
//! only: calls are seconds apart and keep-alive covers the handshake cost.

use std::error::Error as StdError;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;

use super::error::LlmError;

/// Timeouts and trust settings for the client.
#[derive(Debug, Clone)]
pub(crate) struct HttpSettings {
    pub(crate) connect_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) extra_root_certs_der: Vec<Vec<u8>>,
}

/// Why reading a response body stopped early.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// The connection failed or closed mid-body.
    Broken(String),
    /// No bytes for longer than the idle timeout.
    Idle(Duration),
}

/// A pooled HTTP(S) client.
#[derive(Clone)]
pub(crate) struct HttpClient {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    idle_timeout: Duration,
}

impl std::fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpClient")
            .field("idle_timeout", &self.idle_timeout)
            .finish()
    }
}

impl HttpClient {
    pub(crate) fn new(settings: &HttpSettings) -> Result<Self, LlmError> {
        let mut roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        for der in &settings.extra_root_certs_der {
            roots
                .add(der.clone().into())
                .map_err(|e| LlmError::Connect {
                    url: "(extra root certificate)".to_owned(),
                    reason: e.to_string(),
                })?;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| LlmError::Connect {
                url: String::new(),
                reason: e.to_string(),
            })?
            .with_root_certificates(roots)
            .with_no_client_auth();
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(settings.connect_timeout));
        let connector = HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(60))
            .build(connector);
        Ok(Self {
            client,
            idle_timeout: settings.idle_timeout,
        })
    }

    /// Sends a POST and waits (at most the idle timeout) for the response head.
    pub(crate) async fn post(
        &self,
        url: &Uri,
        headers: &HeaderMap,
        body: Bytes,
    ) -> Result<http::Response<Incoming>, LlmError> {
        let mut req = http::Request::post(url.clone())
            .body(Full::new(body))
            .map_err(|e| LlmError::InvalidBaseUrl {
                url: url.to_string(),
                reason: e.to_string(),
            })?;
        *req.headers_mut() = headers.clone();
        match tokio::time::timeout(self.idle_timeout, self.client.request(req)).await {
            Ok(Ok(resp)) => Ok(resp),
            Ok(Err(e)) => Err(LlmError::Connect {
                url: url.to_string(),
                reason: error_chain(&e),
            }),
            Err(_) => Err(LlmError::Timeout {
                url: url.to_string(),
                after: self.idle_timeout,
            }),
        }
    }

    /// The next chunk of data, `None` at the end.
    pub(crate) async fn next_chunk(&self, body: &mut Incoming) -> Result<Option<Bytes>, BodyError> {
        loop {
            match tokio::time::timeout(self.idle_timeout, body.frame()).await {
                Err(_) => return Err(BodyError::Idle(self.idle_timeout)),
                Ok(None) => return Ok(None),
                Ok(Some(Err(e))) => return Err(BodyError::Broken(error_chain(&e))),
                Ok(Some(Ok(frame))) => {
                    if let Ok(data) = frame.into_data() {
                        return Ok(Some(data));
                    }
                }
            }
        }
    }

    /// Reads a whole (error) body, keeping at most `cap` bytes.
    pub(crate) async fn read_capped(&self, mut body: Incoming, cap: usize) -> Vec<u8> {
        let mut out = Vec::new();
        while let Ok(Some(chunk)) = self.next_chunk(&mut body).await {
            let room = cap.saturating_sub(out.len());
            out.extend_from_slice(&chunk[..chunk.len().min(room)]);
            if room == 0 {
                break;
            }
        }
        out
    }
}

/// `error: cause: cause` in one line; hyper's top-level messages alone
/// ("client error (Connect)") do not say what happened.
pub(crate) fn error_chain(e: &(dyn StdError + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}
