//! CONNECT: dial the origin first (a dead host gets a clear 502, not a
//! hung tunnel), answer 200, then look at the client's first bytes:
//! TLS → intercept with a leaf for the SNI name (or the CONNECT host);
//! plain HTTP → serve it; anything else, or a passthrough host → relay
//! the bytes and record the tunnel.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use ar_flow::{Body, ErrorKind, Flow, HttpVersion};
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt as _, Empty};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use rustls::server::{Acceptor, ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::LazyConfigAcceptor;

use crate::forward::Started;
use crate::proxy::{ProxyBody, Shared};
use crate::record;
use crate::relay::{CappedCopy, Rewind, relay};
use crate::server::{Target, serve_origin, text_response};
use crate::upstream::UpstreamError;

/// How many TLS server configurations (one per host name) are kept.
const TLS_CONFIG_CACHE_LIMIT: usize = 1024;

pub(crate) async fn handle(shared: Arc<Shared>, req: Request<Incoming>) -> Response<ProxyBody> {
    let Some(authority) = req.uri().authority().cloned() else {
        return text_response(
            StatusCode::BAD_REQUEST,
            "ar proxy: CONNECT needs HOST:PORT\n",
        );
    };
    let host = authority
        .host()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_string();
    let port = authority.port_u16().unwrap_or(443);
    let started = Started::new(&shared, &req, format!("https://{authority}/"));
    let dialed = match Dialed::dial(&shared, host, port).await {
        Ok(dialed) => dialed,
        Err(error) => return started.fail_upstream(&shared, Body::empty(), error),
    };
    let on_upgrade = hyper::upgrade::on(req);
    tokio::spawn(async move {
        match on_upgrade.await {
            Ok(upgraded) => tunnel(shared, TokioIo::new(upgraded), dialed, started).await,
            Err(error) => tracing::debug!(%error, "CONNECT upgrade failed"),
        }
    });
    Response::new(Empty::new().map_err(|never| match never {}).boxed_unsync())
}

/// The origin connection made for a tunnel (CONNECT, or SOCKS5's) before
/// answering the client.
pub(crate) struct Dialed {
    host: String,
    port: u16,
    tcp: TcpStream,
    addr: SocketAddr,
    connect_ms: f64,
}

impl Dialed {
    /// Dials `host:port` (as the client named it, no brackets).
    pub(crate) async fn dial(
        shared: &Shared,
        host: String,
        port: u16,
    ) -> Result<Self, UpstreamError> {
        let (tcp, addr, connect_ms) = shared.dialer.tcp(&host, port).await?;
        Ok(Self {
            host,
            port,
            tcp,
            addr,
            connect_ms,
        })
    }

    /// This side's address of the connection.
    pub(crate) fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.tcp.local_addr()
    }
}

/// Serves a tunnel once the client was told it is open: intercepts TLS,
/// serves plain HTTP, relays and records anything else.
pub(crate) async fn tunnel<C>(shared: Arc<Shared>, mut client: C, dialed: Dialed, started: Started)
where
    C: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    if shared.opts.is_passthrough(&dialed.host) {
        return record_tunnel(&shared, client, dialed, started).await;
    }
    let mut first = vec![0u8; 2048];
    let n = match tokio::time::timeout(shared.opts.peek_timeout, client.read(&mut first)).await {
        Ok(Ok(0) | Err(_)) => return, // the client closed the tunnel without a word
        Ok(Ok(n)) => n,
        Err(_) => 0, // a server-speaks-first protocol: relay it
    };
    first.truncate(n);
    let kind = classify(&first);
    let io = Rewind::new(Bytes::from(first), client);
    match kind {
        Peeked::Tls => intercept_tls(shared, io, dialed, started).await,
        Peeked::Http => {
            let target = Target::origin_of("http", &dialed.host, dialed.port);
            shared.dialer.park(
                &dialed.host,
                dialed.port,
                dialed.tcp,
                dialed.addr,
                dialed.connect_ms,
            );
            serve_origin(shared, io, target, false).await;
        }
        Peeked::Other => record_tunnel(&shared, io, dialed, started).await,
    }
}

#[derive(Debug, PartialEq, Eq)]
enum Peeked {
    Tls,
    Http,
    Other,
}

/// A TLS handshake record starts `16 03`; HTTP/1 starts with a method token and a space.
fn classify(first: &[u8]) -> Peeked {
    match first {
        [0x16, 0x03, ..] | [0x16] => Peeked::Tls,
        _ => {
            let method_len = first.iter().take_while(|b| b.is_ascii_uppercase()).count();
            if method_len > 0 && first.get(method_len) == Some(&b' ') {
                Peeked::Http
            } else {
                Peeked::Other
            }
        }
    }
}

async fn intercept_tls<C>(shared: Arc<Shared>, io: C, dialed: Dialed, started: Started)
where
    C: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let deadline = shared.opts.handshake_timeout;
    let start = match tokio::time::timeout(
        deadline,
        LazyConfigAcceptor::new(Acceptor::default(), io),
    )
    .await
    {
        Ok(Ok(start)) => start,
        Ok(Err(error)) => {
            let message = format!(
                "the client's TLS hello for {} was not valid: {error}",
                dialed.host
            );
            started.fail(&shared, Body::empty(), ErrorKind::Tls, message);
            return;
        }
        Err(_) => {
            let message = format!(
                "the client's TLS hello for {} did not arrive in {deadline:?}",
                dialed.host
            );
            started.fail(&shared, Body::empty(), ErrorKind::Timeout, message);
            return;
        }
    };
    let name = start
        .client_hello()
        .server_name()
        .map_or_else(|| dialed.host.clone(), str::to_string);
    let config = match server_config(&shared, &name) {
        Ok(config) => config,
        Err(message) => {
            started.fail(&shared, Body::empty(), ErrorKind::Tls, message);
            return;
        }
    };
    let tls = match tokio::time::timeout(deadline, start.into_stream(config)).await {
        Ok(Ok(tls)) => tls,
        Ok(Err(error)) => {
            let message = format!(
                "the client rejected the proxy's certificate for {name} ({error}); does it trust the ar CA? (see `ar ca`)"
            );
            started.fail(&shared, Body::empty(), ErrorKind::Tls, message);
            return;
        }
        Err(_) => {
            let message = format!(
                "the TLS handshake with the client for {name} did not finish in {deadline:?}"
            );
            started.fail(&shared, Body::empty(), ErrorKind::Timeout, message);
            return;
        }
    };
    let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
    // A client that resolved the name itself (`curl --socks5`, a CONNECT
    // to an address) names the origin in its hello: the tunnel is to that
    // name, whose certificate the origin shows, at the address it chose.
    let origin = if dialed.host.parse::<IpAddr>().is_ok() && name != dialed.host {
        (shared.dialer).pin(&name, dialed.port, &dialed.host, dialed.addr);
        name
    } else {
        dialed.host
    };
    shared.dialer.park(
        &origin,
        dialed.port,
        dialed.tcp,
        dialed.addr,
        dialed.connect_ms,
    );
    let target = Target::origin_of("https", &origin, dialed.port);
    serve_origin(shared, tls, target, h2).await;
}

/// The TLS server configuration presenting `name`'s leaf (cached per name).
pub(crate) fn server_config(
    shared: &Shared,
    name: &str,
) -> Result<Arc<rustls::ServerConfig>, String> {
    let key = name.to_ascii_lowercase();
    let mut cache = shared
        .tls_configs
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(config) = cache.get(&key) {
        return Ok(Arc::clone(config));
    }
    let leaf = shared.ca.leaf(&key).map_err(|e| e.to_string())?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS configuration for {name}: {e}"))?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(FixedLeaf(leaf)));
    config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
    let config = Arc::new(config);
    if cache.len() >= TLS_CONFIG_CACHE_LIMIT {
        cache.clear();
    }
    cache.insert(key, Arc::clone(&config));
    Ok(config)
}

#[derive(Debug)]
struct FixedLeaf(Arc<CertifiedKey>);

impl ResolvesServerCert for FixedLeaf {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.0))
    }
}

/// Relays a tunnel byte for byte and records it as one flow: the request
/// body is what the client sent, the response body what the origin sent.
async fn record_tunnel<C>(shared: &Shared, client: C, dialed: Dialed, started: Started)
where
    C: AsyncRead + AsyncWrite + Unpin,
{
    let cap = shared.opts.limits.cap;
    let (mut up, mut down) = (CappedCopy::new(cap), CappedCopy::new(cap));
    let end = relay(client, dialed.tcp, &mut up, &mut down).await;
    let mut request = started.request;
    request.url = format!(
        "tcp://{}:{}",
        if dialed.host.contains(':') {
            format!("[{}]", dialed.host)
        } else {
            dialed.host.clone()
        },
        dialed.port
    );
    request.body = raw_body(up);
    let mut response = ar_flow::Response::new(200, HttpVersion::Http11);
    response.reason = "Connection established".into();
    response.body = raw_body(down);
    let mut flow =
        Flow::new(started.id, started.at, started.client, request).with_response(response);
    flow.server_addr = Some(dialed.addr.to_string());
    flow.ended = Some(record::now());
    if let Some(error) = end.client_error {
        flow = flow.with_error(
            ErrorKind::ClientAborted,
            format!("the client side of the tunnel failed: {error}"),
        );
    } else if let Some(error) = end.server_error {
        flow = flow.with_error(
            ErrorKind::Reset,
            format!("the origin side of the tunnel failed: {error}"),
        );
    }
    shared.sinks.emit(flow);
}

fn raw_body(copy: CappedCopy) -> Body {
    Body {
        truncated: (copy.bytes.len() as u64) < copy.total,
        size: copy.total,
        wire_size: Some(copy.total),
        bytes: copy.bytes,
        ..Body::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bytes_are_classified() {
        assert_eq!(classify(&[0x16, 0x03, 0x01, 0x02]), Peeked::Tls);
        assert_eq!(classify(b"GET / HTTP/1.1\r\n"), Peeked::Http);
        assert_eq!(classify(b"OPTIONS * HTTP/1.1\r\n"), Peeked::Http);
        assert_eq!(classify(b"SSH-2.0-OpenSSH_9.6\r\n"), Peeked::Other);
        assert_eq!(classify(b""), Peeked::Other);
        assert_eq!(classify(b"\x00\x01binary"), Peeked::Other);
    }
}
