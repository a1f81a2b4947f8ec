//! Dialing origins: name overrides, TCP with a deadline (or a tunnel through
//! the upstream proxy, [`crate::upstream_proxy`]), TLS verified against the
//! web PKI plus extra roots, and errors sorted into the [`ErrorKind`]s a
//! flow records.
//!
//! [`crate::pool::Pool`] keeps the connections opened here alive and reuses
//! them across client connections. A CONNECT tunnel dials its origin
//! *before* answering `200` (a dead host is then a clear 502) and parks that
//! socket here; the first request for that origin takes it instead of
//! dialing again.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ar_flow::ErrorKind;
use http::{HeaderValue, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use rustls::ClientConfig;
use rustls_pki_types::ServerName;
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;

use crate::upstream_proxy::UpstreamProxy;

/// A failed attempt to reach an origin, already classified for the flow.
#[derive(Debug, Clone)]
pub(crate) struct UpstreamError {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
    /// What the client is answered: 502, or the upstream proxy's 407.
    pub(crate) status: StatusCode,
}

impl UpstreamError {
    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            status: StatusCode::BAD_GATEWAY,
        }
    }

    /// The same error, answered with `status` instead of 502.
    pub(crate) fn with_status(mut self, status: StatusCode) -> Self {
        self.status = status;
        self
    }
}

impl std::fmt::Display for UpstreamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for UpstreamError {}

/// Facts about the upstream connection, attached to each response.
#[derive(Debug, Clone)]
pub(crate) struct UpstreamInfo {
    pub(crate) addr: SocketAddr,
    /// `addr` as text, formatted once per connection rather than per flow.
    pub(crate) addr_text: Arc<str>,
    connect_ms: f64,
    tls_ms: Option<f64>,
    /// Set once the setup timings were given to a flow: only the first
    /// exchange on a connection paid for connecting.
    reported: Arc<std::sync::atomic::AtomicBool>,
    /// How requests are written on the connection.
    pub(crate) form: RequestForm,
}

/// How requests are written on an upstream connection.
#[derive(Debug, Clone)]
pub(crate) enum RequestForm {
    /// To the origin itself: `/path?query` (or HTTP/2's pseudo-headers).
    Origin,
    /// To an upstream proxy, `http://host/path?query`, with its
    /// `Proxy-Authorization` if it has credentials.
    Absolute(Option<HeaderValue>),
}

impl UpstreamInfo {
    /// Whether `self` and `other` describe one connection.
    pub(crate) fn same_connection(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.reported, &other.reported)
    }

    pub(crate) fn new(addr: SocketAddr, connect_ms: f64, tls_ms: Option<f64>) -> Self {
        Self {
            addr,
            addr_text: addr.to_string().into(),
            connect_ms,
            tls_ms,
            reported: Arc::default(),
            form: RequestForm::Origin,
        }
    }

    /// `(connect, ssl)` in milliseconds for the first flow on this connection, else `None`.
    pub(crate) fn setup_timings(&self) -> Option<(f64, Option<f64>)> {
        let first = !self
            .reported
            .swap(true, std::sync::atomic::Ordering::Relaxed);
        first.then_some((self.connect_ms, self.tls_ms))
    }
}

/// A socket dialed for a CONNECT, waiting for its first request.
struct Parked {
    at: Instant,
    stream: TcpStream,
    addr: SocketAddr,
    connect_ms: f64,
}

/// Parked sockets older than this are not reused (the origin may have timed them out).
const PARKED_MAX_AGE: Duration = Duration::from_secs(20);

/// How many names pinned to the addresses clients chose are kept.
const PINNED_LIMIT: usize = 1024;

pub(crate) struct Dialer {
    pub(crate) resolve: HashMap<(String, u16), SocketAddr>,
    /// Dial only `resolve`d hosts and loopback addresses; never look up a name.
    pub(crate) offline: bool,
    pub(crate) connect_timeout: Duration,
    pub(crate) own_addr: SocketAddr,
    tls_any: TlsConnector,
    tls_h1: TlsConnector,
    parked: Mutex<HashMap<(String, u16), Vec<Parked>>>,
    /// Where clients reached names they resolved themselves ([`Dialer::pin`]).
    pinned: Mutex<HashMap<(String, u16), SocketAddr>>,
    /// What origins are reached through, but for those dialed directly.
    pub(crate) upstream_proxy: Option<UpstreamProxy>,
}

impl Dialer {
    pub(crate) fn new(
        resolve: HashMap<(String, u16), SocketAddr>,
        offline: bool,
        connect_timeout: Duration,
        own_addr: SocketAddr,
        roots: rustls::RootCertStore,
        upstream_proxy: Option<UpstreamProxy>,
    ) -> Self {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = |alpn: &[&[u8]]| {
            let mut config = ClientConfig::builder_with_provider(Arc::clone(&provider))
                .with_safe_default_protocol_versions()
                .map(|b| {
                    b.with_root_certificates(roots.clone())
                        .with_no_client_auth()
                })
                .unwrap_or_else(|_| {
                    // ring supports the default versions; this branch is unreachable in practice.
                    ClientConfig::builder()
                        .with_root_certificates(roots.clone())
                        .with_no_client_auth()
                });
            config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
            TlsConnector::from(Arc::new(config))
        };
        Self {
            resolve,
            offline,
            connect_timeout,
            own_addr,
            tls_any: config(&[b"h2", b"http/1.1"]),
            tls_h1: config(&[b"http/1.1"]),
            parked: Mutex::new(HashMap::new()),
            pinned: Mutex::new(HashMap::new()),
            upstream_proxy,
        }
    }

    /// Whether `addr` is this proxy's own listener (a request there would loop).
    pub(crate) fn is_own_addr(&self, addr: SocketAddr) -> bool {
        addr.port() == self.own_addr.port()
            && (addr.ip() == self.own_addr.ip()
                || (addr.ip().is_loopback() && self.own_addr.ip().is_loopback())
                || addr.ip().is_unspecified())
    }

    /// A connection to `host:port`: through the upstream proxy's tunnel
    /// when there is one for that host, else direct.
    pub(crate) async fn tcp(
        &self,
        host: &str,
        port: u16,
    ) -> Result<(TcpStream, SocketAddr, f64), UpstreamError> {
        let Some(proxy) = self.proxy_for(host, port) else {
            return self.direct(host, port).await;
        };
        let started = Instant::now();
        let target = target_of(host, port);
        let (proxy_host, proxy_port) = proxy.host_port();
        let (tcp, addr, _) = (self.direct(proxy_host, proxy_port).await)
            .map_err(|error| proxy.failed(&target, error))?;
        let tunnel = proxy.tunnel(tcp, &target, self.connect_timeout).await?;
        Ok((tunnel, addr, crate::record::millis(started.elapsed())))
    }

    /// The upstream proxy `host:port` is reached through: none for
    /// loopback, `--resolve`d hosts, hosts left alone, or when offline
    /// (which dials only those).
    fn proxy_for(&self, host: &str, port: u16) -> Option<&UpstreamProxy> {
        let proxy = self.upstream_proxy.as_ref().filter(|_| !self.offline)?;
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let mapped = self
            .resolve
            .contains_key(&(bare.to_ascii_lowercase(), port));
        (!mapped && proxy.takes(bare)).then_some(proxy)
    }

    /// Resolves `host:port` (overrides first) and connects, with the deadline.
    async fn direct(
        &self,
        host: &str,
        port: u16,
    ) -> Result<(TcpStream, SocketAddr, f64), UpstreamError> {
        let started = Instant::now();
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let key = (bare.to_ascii_lowercase(), port);
        let addrs: Vec<SocketAddr> = if let Some(addr) = self.resolve.get(&key) {
            vec![*addr]
        } else if let Some(addr) = self.pinned(&key) {
            vec![addr]
        } else if let Ok(ip) = bare.parse::<std::net::IpAddr>()
            && (ip.is_loopback() || !self.offline)
        {
            vec![SocketAddr::new(ip, port)]
        } else if self.offline {
            return Err(UpstreamError::new(
                ErrorKind::Refused,
                format!(
                    "{host}:{port} is not mapped with --resolve, and this proxy runs offline \
                     (it dials only mapped hosts and loopback addresses)"
                ),
            ));
        } else {
            let lookup =
                tokio::time::timeout(self.connect_timeout, tokio::net::lookup_host((bare, port)));
            match lookup.await {
                Err(_) => {
                    return Err(UpstreamError::new(
                        ErrorKind::Timeout,
                        format!("DNS lookup of {bare} timed out"),
                    ));
                }
                Ok(Err(e)) => {
                    return Err(UpstreamError::new(
                        ErrorKind::Dns,
                        format!("DNS lookup of {bare} failed: {e}"),
                    ));
                }
                Ok(Ok(addrs)) => addrs.collect(),
            }
        };
        if addrs.is_empty() {
            return Err(UpstreamError::new(
                ErrorKind::Dns,
                format!("DNS lookup of {bare} returned no address"),
            ));
        }
        if let Some(addr) = addrs.iter().find(|a| self.is_own_addr(**a)) {
            return Err(UpstreamError::new(
                ErrorKind::Refused,
                format!("{host}:{port} is this proxy ({addr}); refusing a request that would loop"),
            ));
        }
        let mut last = None;
        for addr in addrs {
            match tokio::time::timeout(self.connect_timeout, TcpStream::connect(addr)).await {
                Ok(Ok(stream)) => {
                    let _ = stream.set_nodelay(true);
                    return Ok((stream, addr, crate::record::millis(started.elapsed())));
                }
                Ok(Err(e)) => {
                    last = Some(UpstreamError::new(
                        ErrorKind::Connect,
                        format!("connecting to {host}:{port} ({addr}) failed: {e}"),
                    ))
                }
                Err(_) => {
                    last = Some(UpstreamError::new(
                        ErrorKind::Timeout,
                        format!(
                            "connecting to {host}:{port} ({addr}) timed out after {:?}",
                            self.connect_timeout
                        ),
                    ))
                }
            }
        }
        Err(last.unwrap_or_else(|| {
            UpstreamError::new(ErrorKind::Connect, format!("no address for {host}:{port}"))
        }))
    }

    /// Remembers that a client reached `name:port` at `addr`, dialed as
    /// `dialed` (an address it resolved `name` to itself), so that the
    /// proxy's own connections to `name` go there too; `--resolve` still
    /// comes first. Not when `dialed` went through the upstream proxy, which
    /// resolves names itself. Connections to `name` verify its certificate,
    /// so an address that is not `name`'s serves no request for it.
    pub(crate) fn pin(&self, name: &str, port: u16, dialed: &str, addr: SocketAddr) {
        if self.proxy_for(dialed, port).is_some() {
            return;
        }
        let mut pinned = self
            .pinned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if pinned.len() >= PINNED_LIMIT {
            pinned.clear();
        }
        pinned.insert((name.to_ascii_lowercase(), port), addr);
    }

    fn pinned(&self, key: &(String, u16)) -> Option<SocketAddr> {
        let pinned = self
            .pinned
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        pinned.get(key).copied()
    }

    /// Keeps a socket dialed for a CONNECT so the first request to that origin uses it.
    pub(crate) fn park(
        &self,
        host: &str,
        port: u16,
        stream: TcpStream,
        addr: SocketAddr,
        connect_ms: f64,
    ) {
        let mut parked = self
            .parked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let slot = parked.entry((host.to_ascii_lowercase(), port)).or_default();
        slot.retain(|p| p.at.elapsed() < PARKED_MAX_AGE);
        if slot.len() < 64 {
            slot.push(Parked {
                at: Instant::now(),
                stream,
                addr,
                connect_ms,
            });
        }
    }

    fn unpark(&self, host: &str, port: u16) -> Option<(TcpStream, SocketAddr, f64)> {
        let mut parked = self
            .parked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (host.to_ascii_lowercase(), port);
        let slot = parked.get_mut(&key)?;
        let found = loop {
            let p = slot.pop()?;
            if p.at.elapsed() < PARKED_MAX_AGE {
                break Some((p.stream, p.addr, p.connect_ms));
            }
        };
        if slot.is_empty() {
            parked.remove(&key);
        }
        found
    }

    /// Opens a connection for `uri` (`http` or `https`), TLS included.
    pub(crate) async fn open(
        &self,
        uri: &Uri,
        h1_only: bool,
    ) -> Result<UpstreamConn, UpstreamError> {
        let https = uri.scheme_str() == Some("https");
        let host = uri
            .host()
            .ok_or_else(|| UpstreamError::new(ErrorKind::Protocol, format!("no host in {uri}")))?;
        let port = uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        let mut form = RequestForm::Origin;
        let (tcp, addr, connect_ms) = match (self.unpark(host, port), self.proxy_for(host, port)) {
            (Some(parked), _) => parked,
            // Plain HTTP goes to the upstream proxy itself, in absolute form;
            // a WebSocket (`h1_only`) through a tunnel, since proxies relay an
            // upgrade only inside one.
            (None, Some(proxy)) if !https && !h1_only => {
                let (proxy_host, proxy_port) = proxy.host_port();
                let dialed = (self.direct(proxy_host, proxy_port).await)
                    .map_err(|error| proxy.failed(&target_of(host, port), error))?;
                form = RequestForm::Absolute(proxy.authorization().cloned());
                dialed
            }
            (None, _) => self.tcp(host, port).await?,
        };
        if !https {
            let mut info = UpstreamInfo::new(addr, connect_ms, None);
            info.form = form;
            return Ok(UpstreamConn {
                io: TokioIo::new(MaybeTls::Plain(tcp)),
                h2: false,
                info,
            });
        }
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let name = ServerName::try_from(bare.to_string()).map_err(|_| {
            UpstreamError::new(
                ErrorKind::Tls,
                format!("{bare} is not a valid TLS server name"),
            )
        })?;
        let tls_started = Instant::now();
        let connector = if h1_only { &self.tls_h1 } else { &self.tls_any };
        let handshake = tokio::time::timeout(self.connect_timeout, connector.connect(name, tcp));
        let tls = match handshake.await {
            Err(_) => {
                return Err(UpstreamError::new(
                    ErrorKind::Timeout,
                    format!("TLS handshake with {host}:{port} timed out"),
                ));
            }
            Ok(Err(e)) => return Err(classify_tls(host, port, &e)),
            Ok(Ok(tls)) => tls,
        };
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
        let info = UpstreamInfo::new(
            addr,
            connect_ms,
            Some(crate::record::millis(tls_started.elapsed())),
        );
        Ok(UpstreamConn {
            io: TokioIo::new(MaybeTls::Tls(Box::new(tls))),
            h2,
            info,
        })
    }
}

/// `host:port` as CONNECT names it (IPv6 bracketed).
pub(crate) fn target_of(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

fn classify_tls(host: &str, port: u16, error: &io::Error) -> UpstreamError {
    let kind = match error.kind() {
        io::ErrorKind::ConnectionReset
        | io::ErrorKind::UnexpectedEof
        | io::ErrorKind::BrokenPipe => ErrorKind::Reset,
        _ => ErrorKind::Tls,
    };
    UpstreamError::new(
        kind,
        format!("TLS handshake with {host}:{port} failed: {error}"),
    )
}

pub(crate) use crate::upstream_io::{MaybeTls, UpstreamConn};

/// Sorts a hyper error from an upstream exchange into a flow error with a readable reason.
pub(crate) fn classify_hyper(error: &hyper::Error, target: &str) -> UpstreamError {
    let io_kind = std::error::Error::source(error)
        .and_then(|s| s.downcast_ref::<io::Error>())
        .map(io::Error::kind);
    if error.is_incomplete_message()
        || matches!(
            io_kind,
            Some(
                io::ErrorKind::ConnectionReset
                    | io::ErrorKind::BrokenPipe
                    | io::ErrorKind::UnexpectedEof
            )
        )
    {
        UpstreamError::new(
            ErrorKind::Reset,
            format!("{target} closed or reset the connection before responding ({error})"),
        )
    } else if error.is_timeout() {
        UpstreamError::new(ErrorKind::Timeout, format!("{target} timed out: {error}"))
    } else if error.is_parse() {
        UpstreamError::new(
            ErrorKind::Protocol,
            format!("{target} sent malformed HTTP: {error}"),
        )
    } else {
        // hyper's own text is its category ("http2 error"); the cause is below.
        let mut message = format!("request to {target} failed: {error}");
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        UpstreamError::new(ErrorKind::Other, message)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dialer(offline: bool) -> Dialer {
        let mut resolve = HashMap::new();
        resolve.insert(
            ("mapped.test".to_string(), 443),
            "127.0.0.1:8443".parse().unwrap(),
        );
        let proxy: UpstreamProxy = "http://proxy.corp:3128".parse().unwrap();
        Dialer::new(
            resolve,
            offline,
            Duration::from_secs(1),
            "127.0.0.1:9".parse().unwrap(),
            rustls::RootCertStore::empty(),
            Some(proxy.direct_to(["intranet.test"])),
        )
    }

    #[test]
    fn the_upstream_proxy_takes_what_is_neither_mapped_loopback_nor_left_alone() {
        let online = dialer(false);
        let via = |host, port| online.proxy_for(host, port).is_some();
        assert!(via("api.example.com", 443));
        assert!(via("mapped.test", 80), "mapped for another port only");
        assert!(!via("mapped.test", 443));
        assert!(!via("[::1]", 443));
        assert!(!via("localhost", 8080));
        assert!(!via("app.intranet.test", 443));
        // Offline dials only mapped hosts and loopback: never the upstream.
        assert!(dialer(true).proxy_for("api.example.com", 443).is_none());
    }

    #[test]
    fn a_name_goes_where_a_client_reached_it_unless_the_upstream_proxy_did() {
        let online = dialer(false);
        let key = ("shop.test".to_string(), 443);
        online.pin(
            "shop.test",
            443,
            "192.0.2.7",
            "192.0.2.7:443".parse().unwrap(),
        );
        assert_eq!(
            online.pinned(&key),
            None,
            "the upstream proxy dialed 192.0.2.7"
        );
        let loopback = "127.0.0.1:8443".parse().unwrap();
        online.pin("Shop.Test", 443, "127.0.0.1", loopback);
        assert_eq!(online.pinned(&key), Some(loopback));
    }

    #[test]
    fn connect_targets_bracket_ipv6() {
        assert_eq!(target_of("api.example.com", 443), "api.example.com:443");
        assert_eq!(target_of("::1", 80), "[::1]:80");
        assert_eq!(target_of("[::1]", 80), "[::1]:80");
    }
}
