//! The HTTP server: hyper on 127.0.0.1, every request through the guard
//! (loopback `Host`, token) before it reaches a route. No CORS headers are
//! ever sent, so another origin's script can neither read an answer nor
//! send the token it does not know; the page's own headers keep the token
//! out of `Referer` and forbid framing and foreign scripts.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::BodyExt as _;
use http_body_util::combinators::BoxBody;
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::backend::Backend;
use crate::guard::{self, Token};
use crate::live::Live;
use crate::routes;

/// A response body: whole, or a live stream.
pub(crate) type Body = BoxBody<Bytes, Infallible>;

/// The page's Content-Security-Policy: its own script and style only,
/// images from captured bodies (data URLs), requests to itself.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Where a refused request is reported (besides `tracing`).
pub type RefusalLog = Arc<dyn Fn(&str) + Send + Sync>;

/// Settings of the web view.
#[derive(Clone, Default)]
pub struct WebConfig {
    port: u16,
    on_refusal: Option<RefusalLog>,
}

impl std::fmt::Debug for WebConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebConfig")
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

impl WebConfig {
    /// The web view on 127.0.0.1:`port` (0: any free port).
    pub fn port(port: u16) -> Self {
        Self {
            port,
            on_refusal: None,
        }
    }

    /// Also tells `log` of every refused request, in one line that holds
    /// no token (the session prints it where the user looks).
    #[must_use]
    pub fn on_refusal(mut self, log: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.on_refusal = Some(Arc::new(log));
        self
    }
}

/// Why the web view could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The port could not be bound.
    #[error("cannot listen on 127.0.0.1:{port}")]
    Bind {
        /// The port asked for.
        port: u16,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The operating system gave no random bytes for the token.
    #[error("cannot draw a random token")]
    Random(#[source] getrandom::Error),
}

/// What every connection shares.
pub(crate) struct Shared {
    pub(crate) token: Token,
    pub(crate) live: Live,
    pub(crate) backend: Arc<dyn Backend>,
    on_refusal: Option<RefusalLog>,
}

/// The running web view; dropping it stops accepting and ends open streams.
#[derive(Debug)]
pub struct WebUi {
    url: String,
    stop: watch::Sender<bool>,
}

impl WebUi {
    /// Binds 127.0.0.1 and serves `live` and `backend` until dropped.
    pub async fn start(
        config: WebConfig,
        live: Live,
        backend: Arc<dyn Backend>,
    ) -> Result<Self, Error> {
        let listener = TcpListener::bind(("127.0.0.1", config.port))
            .await
            .map_err(|source| Error::Bind {
                port: config.port,
                source,
            })?;
        let addr = listener.local_addr().map_err(|source| Error::Bind {
            port: config.port,
            source,
        })?;
        let token = Token::random().map_err(Error::Random)?;
        let url = format!("http://{addr}/?token={}", token.expose());
        let shared = Arc::new(Shared {
            token,
            live,
            backend,
            on_refusal: config.on_refusal,
        });
        let (stop, stopped) = watch::channel(false);
        tokio::spawn(accept(listener, shared, stopped));
        Ok(Self { url, stop })
    }

    /// The page's URL, token included: what `ar` prints and `/ui` repeats.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for WebUi {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

async fn accept(listener: TcpListener, shared: Arc<Shared>, mut stopped: watch::Receiver<bool>) {
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    tracing::debug!("web view: accept failed: {error}");
                    continue;
                }
            },
            _ = stopped.changed() => return,
        };
        let shared = Arc::clone(&shared);
        let mut stopped = stopped.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let shared = Arc::clone(&shared);
                async move { Ok::<_, Infallible>(handle(&shared, request, peer).await) }
            });
            let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            let connection = builder.serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                result = connection => {
                    if let Err(error) = result {
                        tracing::debug!("web view: connection ended: {error}");
                    }
                }
                _ = stopped.changed() => {}
            }
        });
    }
}

async fn handle(shared: &Shared, request: Request<Incoming>, peer: SocketAddr) -> Response<Body> {
    let host = request
        .headers()
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned)
        // HTTP/2 carries the host in the URI's authority.
        .or_else(|| request.uri().authority().map(ToString::to_string));
    let query = request.uri().query().unwrap_or_default().to_owned();
    if let Err(refusal) = guard::check(&shared.token, host.as_deref(), &query) {
        // The path only: the query may hold a (wrong) token.
        let line = format!(
            "web view: refused {} {} from {peer} (403): {refusal}",
            request.method(),
            request.uri().path()
        );
        tracing::warn!("{line}");
        if let Some(log) = &shared.on_refusal {
            log(&line);
        }
        return text(StatusCode::FORBIDDEN, "forbidden\n");
    }
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let mut response = match method {
        Method::GET => routes::get(shared, &path, &query).await,
        Method::POST => {
            let limited =
                http_body_util::Limited::new(request.into_body(), crate::replay::MAX_BODY);
            match limited.collect().await {
                Ok(body) => routes::post(shared, &path, &query, &body.to_bytes()).await,
                Err(_) => text(StatusCode::PAYLOAD_TOO_LARGE, "at most 1 MiB\n"),
            }
        }
        _ => text(StatusCode::METHOD_NOT_ALLOWED, "GET or POST\n"),
    };
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

/// A whole response of `content_type`.
pub(crate) fn whole(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Body> {
    let mut response = Response::new(http_body_util::Full::new(body.into()).boxed());
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

/// A plain-text response.
pub(crate) fn text(status: StatusCode, body: &'static str) -> Response<Body> {
    whole(status, "text/plain; charset=utf-8", body)
}

/// A JSON response.
pub(crate) fn json(value: &impl serde::Serialize) -> Response<Body> {
    match serde_json::to_vec(value) {
        Ok(bytes) => whole(StatusCode::OK, "application/json", bytes),
        Err(_) => text(
            StatusCode::INTERNAL_SERVER_ERROR,
            "cannot encode the answer\n",
        ),
    }
}
