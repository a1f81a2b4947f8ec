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
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite};
use tokio::net::TcpStream;

use crate::head_limit::{self, MAX_HTTP1_HEAD, Sample, Sampled};
use crate::proxy::{ProxyBody, Shared};
use crate::relay::Rewind;
use crate::{connect, forward, listener_tls, record, reverse, socks5};

/// The largest header block the proxy takes over HTTP/2, both ways: what
/// Chromium takes and sends (256 KiB). hyper's default (16 KiB) answered a
/// 16 KiB cookie with 431 where the origin (and the proxy over HTTP/1.1,
/// whose limit is [`MAX_HTTP1_HEAD`], hyper's read buffer) took it.
pub(crate) const MAX_HEADER_LIST_SIZE: u32 = 256 * 1024;

/// Where requests on a connection are going.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// The plain listener: requests carry absolute URLs (or are CONNECT).
    Absolute,
    /// TLS on the reverse listener ([`crate::listener_tls`]): every request
    /// is a reverse request.
    TlsListener,
    /// Inside a CONNECT tunnel: every request goes to this origin (shared by
    /// the connection's requests, so routing one costs no string work).
    Origin(Arc<Origin>),
}

/// The origin of a CONNECT tunnel.
#[derive(Debug)]
pub(crate) struct Origin {
    /// `http` or `https`.
    scheme: &'static str,
    /// `host[:port]` with the default port left out, IPv6 literals bracketed;
    /// `None` if that is not a valid authority (requests then get a 400).
    authority: Option<http::uri::Authority>,
}

impl Target {
    /// The tunnel to `host` (as given in CONNECT, no brackets) and `port`.
    pub(crate) fn origin_of(scheme: &'static str, host: &str, port: u16) -> Self {
        let host = if host.contains(':') {
            format!("[{host}]")
        } else {
            host.to_string()
        };
        let default = matches!((scheme, port), ("https", 443) | ("http", 80));
        let authority = if default {
            host
        } else {
            format!("{host}:{port}")
        };
        Self::Origin(Arc::new(Origin {
            scheme,
            authority: authority.parse().ok(),
        }))
    }

    /// The URL a refused request is recorded under when its own does not
    /// read as one: the tunnel's origin, or a name that resolves nowhere.
    pub(crate) fn fallback_url(&self) -> String {
        match self {
            Self::Origin(origin) => match &origin.authority {
                Some(authority) => format!("{}://{authority}/", origin.scheme),
                None => format!("{}://unknown.invalid/", origin.scheme),
            },
            Self::Absolute => "http://unknown.invalid/".to_string(),
            Self::TlsListener => "https://unknown.invalid/".to_string(),
        }
    }

    /// The `Host` a client of this origin sends: `host[:port]`, the default
    /// port left out (`None` for the plain listener or an invalid authority).
    pub(crate) fn host_header(&self) -> Option<http::HeaderValue> {
        let Self::Origin(origin) = self else {
            return None;
        };
        http::HeaderValue::from_str(origin.authority.as_ref()?.as_str()).ok()
    }

    /// `scheme://host[:port]` with the default port left out.
    #[cfg(test)]
    pub(crate) fn origin(&self) -> Option<String> {
        let Self::Origin(origin) = self else {
            return None;
        };
        Some(format!(
            "{}://{}",
            origin.scheme,
            origin.authority.as_ref()?
        ))
    }

    /// The absolute URI of a request with this `path_and_query` (for a tunnel),
    /// or `uri` itself (the plain listener's requests are absolute already).
    pub(crate) fn absolute(&self, uri: &http::Uri) -> Result<http::Uri, String> {
        let Self::Origin(origin) = self else {
            return Ok(uri.clone());
        };
        let authority = origin
            .authority
            .clone()
            .ok_or_else(|| "the tunnel's host is not a valid authority".to_string())?;
        let mut parts = http::uri::Parts::default();
        parts.scheme = Some(if origin.scheme == "https" {
            http::uri::Scheme::HTTPS
        } else {
            http::uri::Scheme::HTTP
        });
        parts.authority = Some(authority);
        parts.path_and_query = Some(
            uri.path_and_query()
                .cloned()
                .unwrap_or_else(|| http::uri::PathAndQuery::from_static("/")),
        );
        http::Uri::from_parts(parts).map_err(|e| format!("bad request target {uri}: {e}"))
    }
}

/// Serves one client connection on the listener: HTTP/1.1 proxy requests;
/// in reverse mode, HTTP/2 with prior knowledge (h2c, as gRPC clients
/// speak it) and TLS too; with SOCKS5 on, SOCKS5 clients.
pub(crate) async fn serve_client(shared: Arc<Shared>, mut tcp: TcpStream) {
    let spare = head_limit::Spare::of(&tcp);
    let (socks5, reverse) = (shared.socks5.is_some(), shared.reverse.is_some());
    let served = if socks5 || reverse {
        let Ok((first, opening)) = read_opening(&mut tcp, socks5, reverse).await else {
            return;
        };
        match opening {
            Opening::Socks5 => return socks5::serve(shared, first, tcp).await,
            Opening::Tls => {
                let Ok(local) = tcp.local_addr() else {
                    return;
                };
                let io = Rewind::new(first, tcp);
                return listener_tls::serve(shared, io, local.ip()).await;
            }
            Opening::H2 => {
                let io = Rewind::new(first, tcp);
                return serve_origin(shared, io, Target::Absolute, true).await;
            }
            Opening::Http1 => serve_http1(shared, Rewind::new(first, tcp), Target::Absolute).await,
        }
    } else {
        serve_http1(shared, tcp, Target::Absolute).await
    };
    if served == Served::RefusedHead
        && let Some(spare) = spare
    {
        spare.linger().await;
    }
}

/// What a client of HTTP/2 with prior knowledge sends first (RFC 9113 §3.4).
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/// What a connection on the listener speaks, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Opening {
    Http1,
    /// HTTP/2 with prior knowledge: it sent the whole preface.
    H2,
    /// Its first byte is SOCKS5's version, which starts no HTTP request.
    Socks5,
    /// Its first byte starts a TLS handshake record (reverse mode).
    Tls,
}

/// Reads a connection's first bytes until they tell what it speaks (SOCKS5
/// by its first byte when `socks5`; when `reverse`, TLS by its first byte
/// and h2 by its preface, at most its 24 bytes; else HTTP/1); returns
/// them, and which.
async fn read_opening(
    tcp: &mut (impl AsyncRead + Unpin),
    socks5: bool,
    reverse: bool,
) -> std::io::Result<(Bytes, Opening)> {
    let mut first = [0u8; H2_PREFACE.len()];
    let mut len = 0;
    let opening = loop {
        let n = tcp.read(&mut first[len..]).await?;
        len += n;
        if n == 0 {
            break Opening::Http1;
        }
        if socks5 && first[0] == socks5::VERSION {
            break Opening::Socks5;
        }
        if reverse && first[0] == listener_tls::HANDSHAKE {
            break Opening::Tls;
        }
        if !reverse || !H2_PREFACE.starts_with(&first[..len]) {
            break Opening::Http1;
        }
        if len == first.len() {
            break Opening::H2;
        }
    };
    Ok((Bytes::copy_from_slice(&first[..len]), opening))
}

/// How an HTTP/1 connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Served {
    /// Closed by either side, or broken.
    Ended,
    /// hyper refused a request head over [`MAX_HTTP1_HEAD`] with a 431.
    RefusedHead,
}

/// Serves HTTP inside a tunnel (`h2` when negotiated by ALPN, else HTTP/1.1).
pub(crate) async fn serve_origin<IO>(shared: Arc<Shared>, io: IO, target: Target, h2: bool)
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    if !h2 {
        serve_http1(shared, io, target).await;
        return;
    }
    let service = service_fn(move |req| {
        let shared = Arc::clone(&shared);
        let target = target.clone();
        async move { Ok::<_, Infallible>(dispatch(shared, req, target).await) }
    });
    if let Err(error) = h2_server()
        .serve_connection(TokioIo::new(io), service)
        .await
    {
        tracing::debug!(%error, "intercepted connection ended with an error");
    }
}

/// Serves HTTP/1.1 on a connection, the listener's or a tunnel's; a request
/// head over [`MAX_HTTP1_HEAD`] is answered 431 by hyper and recorded as a
/// refused flow ([`head_limit`]).
async fn serve_http1<IO>(shared: Arc<Shared>, io: IO, target: Target) -> Served
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let sample = Arc::new(Sample::default());
    let service = {
        let (shared, sample, target) = (Arc::clone(&shared), Arc::clone(&sample), target.clone());
        service_fn(move |req| {
            sample.saw_request();
            let shared = Arc::clone(&shared);
            let target = target.clone();
            async move { Ok::<_, Infallible>(dispatch(shared, req, target).await) }
        })
    };
    // No header-read timer: arming one per request costs more than a local
    // proxy gains from slowloris protection.
    let conn = hyper::server::conn::http1::Builder::new()
        .max_buf_size(MAX_HTTP1_HEAD)
        .serve_connection(TokioIo::new(Sampled::new(io, Arc::clone(&sample))), service)
        .with_upgrades();
    match conn.await {
        Err(error) if error.is_parse_too_large() => {
            head_limit::record_refused(&shared, &sample, &target);
            return Served::RefusedHead;
        }
        Err(error) => tracing::debug!(%error, "client connection ended with an error"),
        Ok(()) => {}
    }
    Served::Ended
}

/// The HTTP/2 server for intercepted connections.
fn h2_server() -> hyper::server::conn::http2::Builder<TokioExecutor> {
    let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
    builder
        .timer(TokioTimer::new())
        // RFC 8441: browsers open WebSockets on an h2 connection with an extended CONNECT.
        .enable_connect_protocol()
        .max_header_list_size(MAX_HEADER_LIST_SIZE);
    builder
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
    // Reverse mode: a plain request on the listener (origin form over
    // HTTP/1.1; any request over h2c, which only reverse mode serves there;
    // any over the listener's TLS) goes to its route's origin. Boxed: as
    // large as a request's own future.
    let tls = matches!(target, Target::TlsListener);
    if (tls
        || matches!(target, Target::Absolute)
            && (req.uri().authority().is_none() || req.version() == http::Version::HTTP_2))
        && let Some(routes) = &shared.reverse
    {
        let routes = routes.clone();
        return Box::pin(reverse::handle(shared, routes, req, tls)).await;
    }
    if req.method() == http::Method::CONNECT {
        if matches!(target, Target::Absolute) {
            // Boxed: once per tunnel, and as large as a request's own future.
            return Box::pin(connect::handle(shared, req)).await;
        }
        if record::is_h2_websocket(&req) {
            return forward::handle(shared, req, target).await;
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
             so requests arrive with absolute URLs or as CONNECT; or run \
             `ar proxy --reverse https://site` to send plain requests to one origin.\n",
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
        let t = |scheme, host: &str, port| Target::origin_of(scheme, host, port).origin().unwrap();
        assert_eq!(t("https", "shop.test", 443), "https://shop.test");
        assert_eq!(t("https", "shop.test", 8443), "https://shop.test:8443");
        assert_eq!(t("http", "::1", 80), "http://[::1]");
        assert_eq!(Target::Absolute.origin(), None);
    }

    #[tokio::test]
    async fn an_http2_client_may_send_a_header_as_big_as_browsers_do() {
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let service = service_fn(|req: Request<Incoming>| async move {
            let size = req.headers()["cookie"].len();
            Ok::<_, Infallible>(Response::new(Full::new(Bytes::from(size.to_string()))))
        });
        tokio::spawn(h2_server().serve_connection(TokioIo::new(server_io), service));
        let (mut sender, connection) =
            hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(client_io))
                .await
                .unwrap();
        tokio::spawn(connection);
        let cookie = "a".repeat(64 * 1024);
        let request = Request::get("https://shop.test/")
            .header("cookie", cookie)
            .body(http_body_util::Empty::<Bytes>::new())
            .unwrap();
        let response = sender.send_request(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(body, "65536");
    }

    #[tokio::test]
    async fn the_h2_preface_is_told_from_http1_however_it_arrives() {
        use tokio::io::AsyncWriteExt as _;
        let (mut client, mut server) = tokio::io::duplex(64);
        let pieces: [&[u8]; 2] = [&H2_PREFACE[..5], &H2_PREFACE[5..]];
        let writer = tokio::spawn(async move {
            for piece in pieces {
                client.write_all(piece).await.unwrap();
                tokio::task::yield_now().await;
            }
            client
        });
        let (first, opening) = read_opening(&mut server, true, true).await.unwrap();
        assert_eq!(opening, Opening::H2);
        assert_eq!(&first[..], H2_PREFACE);
        let mut client = writer.await.unwrap();
        client.write_all(b"GET / HTTP/1.1\r\n").await.unwrap();
        let (first, opening) = read_opening(&mut server, true, true).await.unwrap();
        assert_eq!(opening, Opening::Http1);
        assert_eq!(
            &first[..],
            b"GET / HTTP/1.1\r\n",
            "what was read is handed on"
        );
        drop(client);
        assert_eq!(
            read_opening(&mut server, true, true).await.unwrap(),
            (Bytes::new(), Opening::Http1)
        );
    }

    #[tokio::test]
    async fn a_socks5_greeting_is_told_by_its_first_byte_when_socks5_is_on() {
        use tokio::io::AsyncWriteExt as _;
        for (socks5, h2c, expected) in [
            (true, false, Opening::Socks5),
            (true, true, Opening::Socks5),
            (false, true, Opening::Http1),
        ] {
            let (mut client, mut server) = tokio::io::duplex(64);
            client.write_all(&[5, 1, 0]).await.unwrap();
            let (first, opening) = read_opening(&mut server, socks5, h2c).await.unwrap();
            assert_eq!((opening, &first[..]), (expected, &[5, 1, 0][..]));
        }
    }

    #[tokio::test]
    async fn a_tls_hello_is_told_by_its_first_byte_in_reverse_mode_only() {
        use tokio::io::AsyncWriteExt as _;
        let hello = [listener_tls::HANDSHAKE, 3, 1, 0, 0xc8];
        for (reverse, expected) in [(true, Opening::Tls), (false, Opening::Http1)] {
            let (mut client, mut server) = tokio::io::duplex(64);
            client.write_all(&hello).await.unwrap();
            let (first, opening) = read_opening(&mut server, true, reverse).await.unwrap();
            assert_eq!((opening, &first[..]), (expected, &hello[..]));
        }
    }

    #[test]
    fn tunnel_requests_become_absolute_urls() {
        let target = Target::origin_of("https", "shop.test", 8443);
        let uri: http::Uri = "/api/items?page=2".parse().unwrap();
        assert_eq!(
            target.absolute(&uri).unwrap().to_string(),
            "https://shop.test:8443/api/items?page=2"
        );
        // An h2 request carries scheme and authority; only its path counts in a tunnel.
        let h2: http::Uri = "https://elsewhere.test/x".parse().unwrap();
        assert_eq!(
            target.absolute(&h2).unwrap().to_string(),
            "https://shop.test:8443/x"
        );
        let absolute: http::Uri = "http://a.test/b".parse().unwrap();
        assert_eq!(Target::Absolute.absolute(&absolute).unwrap(), absolute);
    }
}
