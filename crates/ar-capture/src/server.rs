//! The client side: the plain listener (absolute-form requests and
//! CONNECT), and the HTTP servers run inside intercepted tunnels.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use bytes::Bytes;
use http::{Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use crate::proxy::{ProxyBody, Shared};
use crate::{connect, forward};

/// Where requests on a connection are going.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// The plain listener: requests carry absolute URLs (or are CONNECT).
    Absolute,
    /// Inside a CONNECT tunnel: every request goes to this origin.
    Origin {
        /// `http` or `https`.
        scheme: &'static str,
        /// Host as given in CONNECT (no brackets for IPv6 literals).
        host: String,
        /// Port as given in CONNECT.
        port: u16,
    },
}

impl Target {
    /// `scheme://host[:port]` with the default port left out.
    pub(crate) fn origin(&self) -> Option<String> {
        let Self::Origin { scheme, host, port } = self else {
            return None;
        };
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.clone()
        };
        let default = matches!((*scheme, *port), ("https", 443) | ("http", 80));
        Some(if default {
            format!("{scheme}://{host}")
        } else {
            format!("{scheme}://{host}:{port}")
        })
    }
}

/// Serves one client connection on the listener: HTTP/1.1 proxy requests.
pub(crate) async fn serve_client(shared: Arc<Shared>, tcp: TcpStream) {
    let service = service_fn(move |req| {
        let shared = Arc::clone(&shared);
        async move { Ok::<_, Infallible>(dispatch(shared, req, Target::Absolute).await) }
    });
    // No header-read timer: arming one per request costs more than a local
    // proxy gains from slowloris protection.
    let conn = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(tcp), service)
        .with_upgrades();
    if let Err(error) = conn.await {
        tracing::debug!(%error, "client connection ended with an error");
    }
}

/// Serves HTTP inside a tunnel (`h2` when negotiated by ALPN, else HTTP/1.1).
pub(crate) async fn serve_origin<IO>(shared: Arc<Shared>, io: IO, target: Target, h2: bool)
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |req| {
        let shared = Arc::clone(&shared);
        let target = target.clone();
        async move { Ok::<_, Infallible>(dispatch(shared, req, target).await) }
    });
    let io = TokioIo::new(io);
    let result = if h2 {
        hyper::server::conn::http2::Builder::new(TokioExecutor::new())
            .timer(TokioTimer::new())
            .serve_connection(io, service)
            .await
    } else {
        hyper::server::conn::http1::Builder::new()
            .serve_connection(io, service)
            .with_upgrades()
            .await
    };
    if let Err(error) = result {
        tracing::debug!(%error, "intercepted connection ended with an error");
    }
}

/// Routes one request. Boxed: a tunnel's server calls back into this, and
/// the boxed future keeps that recursion `Send` and finitely sized.
fn dispatch(
    shared: Arc<Shared>,
    req: Request<Incoming>,
    target: Target,
) -> Pin<Box<dyn Future<Output = Response<ProxyBody>> + Send>> {
    Box::pin(route(shared, req, target))
}

async fn route(shared: Arc<Shared>, req: Request<Incoming>, target: Target) -> Response<ProxyBody> {
    if req.method() == http::Method::CONNECT {
        if matches!(target, Target::Absolute) {
            return connect::handle(shared, req).await;
        }
        return text_response(
            StatusCode::METHOD_NOT_ALLOWED,
            "ar proxy: CONNECT inside a tunnel is not supported\n",
        );
    }
    if matches!(target, Target::Absolute) && req.uri().authority().is_none() {
        return text_response(
            StatusCode::BAD_REQUEST,
            "This is ar's capture proxy. Point a client at it as an HTTP(S) proxy \
             (e.g. curl --proxy http://THIS_ADDRESS --cacert ca.pem https://site/), \
             so requests arrive with absolute URLs or as CONNECT.\n",
        );
    }
    forward::handle(shared, req, target).await
}

/// A small plain-text response made by the proxy itself.
pub(crate) fn text_response(status: StatusCode, text: &str) -> Response<ProxyBody> {
    let mut response = Response::new(
        Full::new(Bytes::from(text.to_string()))
            .map_err(|never| match never {})
            .boxed_unsync(),
    );
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origin_omits_default_ports_and_brackets_ipv6() {
        let t = |scheme, host: &str, port| {
            Target::Origin {
                scheme,
                host: host.into(),
                port,
            }
            .origin()
            .unwrap()
        };
        assert_eq!(t("https", "shop.test", 443), "https://shop.test");
        assert_eq!(t("https", "shop.test", 8443), "https://shop.test:8443");
        assert_eq!(t("http", "::1", 80), "http://[::1]");
        assert_eq!(Target::Absolute.origin(), None);
    }
}
