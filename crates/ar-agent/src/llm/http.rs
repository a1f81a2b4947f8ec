//! The HTTP client under both providers: hyper 1 with a pooled connector that
//! speaks plain TCP (loopback servers, local vLLM/llama.cpp/Ollama) or TLS via
//! rustls with the ring provider and the web PKI roots (plus extra roots, so
//! tests can trust their own CA). HTTP/1.1 only: calls are seconds apart and
//! keep-alive covers the handshake cost.

use std::error::Error as StdError;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderMap, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::{Connected, Connection, HttpConnector};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls;
use tower_service::Service;

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
    client: Client<Connector, Full<Bytes>>,
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
        let mut tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| LlmError::Connect {
                url: String::new(),
                reason: e.to_string(),
            })?
            .with_root_certificates(roots)
            .with_no_client_auth();
        tls.alpn_protocols = vec![b"http/1.1".to_vec()];
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(settings.connect_timeout));
        let connector = Connector {
            http,
            tls: tokio_rustls::TlsConnector::from(Arc::new(tls)),
            handshake_timeout: settings.connect_timeout,
        };
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

type BoxError = Box<dyn StdError + Send + Sync>;

/// Dials TCP, then TLS for `https` URIs.
#[derive(Clone)]
struct Connector {
    http: HttpConnector,
    tls: tokio_rustls::TlsConnector,
    handshake_timeout: Duration,
}

impl Service<Uri> for Connector {
    type Response = TokioIo<Stream>;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.http.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        let mut http = self.http.clone();
        let tls = self.tls.clone();
        let handshake_timeout = self.handshake_timeout;
        Box::pin(async move {
            let https = uri.scheme_str() == Some("https");
            let host = uri
                .host()
                .ok_or("URL has no host")?
                .trim_matches(['[', ']'])
                .to_owned();
            let tcp = http.call(uri).await?.into_inner();
            if !https {
                return Ok(TokioIo::new(Stream::Plain(tcp)));
            }
            let name = rustls::pki_types::ServerName::try_from(host)?;
            let tls = tokio::time::timeout(handshake_timeout, tls.connect(name, tcp))
                .await
                .map_err(|_| "TLS handshake timed out")??;
            Ok(TokioIo::new(Stream::Tls(Box::new(tls))))
        })
    }
}

/// A plain or TLS connection.
enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl Connection for Stream {
    fn connected(&self) -> Connected {
        match self {
            Self::Plain(s) => s.connected(),
            Self::Tls(s) => s.get_ref().0.connected(),
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_flush(cx),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Self::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Self::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}
