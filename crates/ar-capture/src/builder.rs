//! [`ProxyBuilder`]: every option of a [`Proxy`], and `bind`, which turns
//! them into a listening proxy.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ar_flow::{Client, Flow};
use rustls_pki_types::CertificateDer;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use crate::CaptureError;
use crate::ca::CertificateAuthority;
use crate::lock::Lock;
use crate::pem::pem_certs;
use crate::pool::Pool;
use crate::proxy::{Options, Proxy, Shared, client_code};
use crate::record::BodyLimits;
use crate::reverse::ReverseRoutes;
use crate::sink::Sinks;
use crate::socks5::Socks5;
use crate::upstream::Dialer;
use crate::upstream_proxy::UpstreamProxy;

/// Default cap on the captured copy of each body.
pub const DEFAULT_BODY_CAP: usize = 4 << 20;

/// Options for a [`Proxy`]; start with [`Proxy::builder`].
#[derive(Debug)]
#[must_use]
pub struct ProxyBuilder {
    ca: Arc<CertificateAuthority>,
    listen: SocketAddr,
    extra_roots: Vec<CertificateDer<'static>>,
    resolve: HashMap<(String, u16), SocketAddr>,
    offline: bool,
    passthrough: Vec<String>,
    limits: BodyLimits,
    ws_frame_cap: usize,
    ws_max_frames: usize,
    connect_timeout: Duration,
    response_timeout: Duration,
    peek_timeout: Duration,
    archive: Option<mpsc::Sender<Flow>>,
    live: Option<mpsc::Sender<Flow>>,
    batches: Option<mpsc::Sender<Vec<Flow>>>,
    client: Client,
    destructive_lock: bool,
    first_flow_id: u64,
    reverse: Option<ReverseRoutes>,
    upstream_proxy: Option<UpstreamProxy>,
    socks5: Option<Socks5>,
}

impl ProxyBuilder {
    pub(crate) fn new(ca: Arc<CertificateAuthority>) -> Self {
        Self {
            ca,
            listen: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            extra_roots: Vec::new(),
            resolve: HashMap::new(),
            offline: false,
            passthrough: Vec::new(),
            limits: BodyLimits {
                cap: DEFAULT_BODY_CAP,
                max_ratio: 100,
            },
            ws_frame_cap: 64 << 10,
            ws_max_frames: 1000,
            connect_timeout: Duration::from_secs(10),
            response_timeout: Duration::from_secs(120),
            peek_timeout: Duration::from_secs(2),
            archive: None,
            live: None,
            batches: None,
            client: Client::Human,
            destructive_lock: false,
            first_flow_id: 1,
            reverse: None,
            upstream_proxy: None,
            socks5: None,
        }
    }

    /// Listens on `127.0.0.1:port` (0, the default, picks a free port).
    pub fn port(mut self, port: u16) -> Self {
        self.listen.set_port(port);
        self
    }

    /// Listens on `addr` instead of loopback. Anyone who can reach it can use the proxy.
    pub fn listen(mut self, addr: SocketAddr) -> Self {
        self.listen = addr;
        self
    }

    /// Trusts `cert` for upstream TLS, in addition to the web PKI roots.
    pub fn upstream_root(mut self, cert: CertificateDer<'static>) -> Self {
        self.extra_roots.push(cert);
        self
    }

    /// Trusts every certificate in the PEM file at `path` for upstream TLS (`--upstream-ca`).
    pub fn upstream_roots_pem(mut self, path: &Path) -> Result<Self, CaptureError> {
        let text = std::fs::read_to_string(path).map_err(|e| CaptureError::UpstreamCa {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        let certs = pem_certs(&text);
        if certs.is_empty() {
            return Err(CaptureError::UpstreamCa {
                path: path.to_path_buf(),
                reason: "no CERTIFICATE block found".into(),
            });
        }
        self.extra_roots.extend(certs);
        Ok(self)
    }

    /// Sends connections for `host:port` to `addr` (curl's `--resolve`).
    /// Browsers hand host names to a proxy unresolved, so this is how
    /// made-up test hosts reach a local server.
    pub fn resolve(mut self, host: &str, port: u16, addr: IpAddr) -> Self {
        let host = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        self.resolve
            .insert((host, port), SocketAddr::new(addr, port));
        self
    }

    /// Dials only hosts mapped with [`resolve`](Self::resolve) and loopback
    /// addresses, and never looks a name up: everything else gets a 502 and an
    /// error flow. For demos and tests on a closed network, where a browser's
    /// background requests must not leave the machine.
    pub fn offline(mut self, offline: bool) -> Self {
        self.offline = offline;
        self
    }

    /// Parses a `HOST:PORT:ADDR` entry (`shop.test:443:127.0.0.1`, `[::1]` for IPv6).
    pub fn resolve_entry(self, entry: &str) -> Result<Self, CaptureError> {
        let bad = || CaptureError::Resolve {
            entry: entry.to_string(),
        };
        let (host, rest) = entry.split_once(':').ok_or_else(bad)?;
        let (port, addr) = rest.split_once(':').ok_or_else(bad)?;
        let port: u16 = port.parse().map_err(|_| bad())?;
        let addr: IpAddr = addr
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse()
            .map_err(|_| bad())?;
        if host.is_empty() {
            return Err(bad());
        }
        Ok(self.resolve(host, port, addr))
    }

    /// Relays TLS to `host` untouched (not intercepted), e.g. for apps that pin
    /// certificates. `*.example.com` matches every subdomain.
    pub fn passthrough(mut self, host: &str) -> Self {
        self.passthrough.push(host.trim().to_ascii_lowercase());
        self
    }

    /// Caps the captured copy of each body (default [`DEFAULT_BODY_CAP`]).
    /// Clients always get every byte; only the copy is capped.
    pub fn body_cap(mut self, bytes: usize) -> Self {
        self.limits.cap = bytes;
        self
    }

    /// Caps the recorded payload of each WebSocket frame (default 64 KiB) and
    /// the number of frames recorded per connection (default 1000).
    pub fn websocket_caps(mut self, payload_bytes: usize, frames: usize) -> Self {
        self.ws_frame_cap = payload_bytes;
        self.ws_max_frames = frames;
        self
    }

    /// Deadline for DNS + TCP connect + TLS handshake upstream (default 10 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.connect_timeout = timeout;
        self
    }

    /// Deadline for an origin's response head once the request is sent (default 120 s).
    pub fn response_timeout(mut self, timeout: Duration) -> Self {
        self.response_timeout = timeout;
        self
    }

    /// How long to wait for a client's first bytes in a CONNECT tunnel
    /// before relaying it as an opaque tunnel (default 2 s).
    pub fn peek_timeout(mut self, timeout: Duration) -> Self {
        self.peek_timeout = timeout;
        self
    }

    /// The lossless sink: every flow, while the channel has room (see [`crate::sink`] policy).
    pub fn archive_sink(mut self, sink: mpsc::Sender<Flow>) -> Self {
        self.archive = Some(sink);
        self
    }

    /// A best-effort sink (live documentation, UI): flows it has no room for are skipped and counted.
    pub fn live_sink(mut self, sink: mpsc::Sender<Flow>) -> Self {
        self.live = Some(sink);
        self
    }

    /// The lossless sink in batches: every [`crate::sink::DELIVERY_TICK`], the flows
    /// that finished since the last tick arrive as one `Vec`, in the order they
    /// ended. A consumer that archives a batch with one write (and hands the
    /// same `Vec` on, without copying a flow) costs far less per flow than one
    /// channel message per flow. A batch the channel has no room for is dropped
    /// and its flows are counted in [`crate::ProxyStats::dropped_archive`].
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ar_capture::CaptureError> {
    /// let ca = std::sync::Arc::new(ar_capture::CertificateAuthority::ephemeral()?);
    /// let (tx, mut batches) = tokio::sync::mpsc::channel(256);
    /// let proxy = ar_capture::Proxy::builder(ca).batch_sink(tx).bind().await?;
    /// let handle = proxy.spawn();
    /// // while let Some(flows) = batches.recv().await { archive(&flows); ... }
    /// handle.shutdown().await;
    /// assert!(batches.try_recv().is_err(), "no traffic, no batch");
    /// # Ok(()) }
    /// ```
    pub fn batch_sink(mut self, sink: mpsc::Sender<Vec<Flow>>) -> Self {
        self.batches = Some(sink);
        self
    }

    /// Who is driving when the proxy starts (default [`Client::Human`]); see [`crate::ProxyHandle::set_client`].
    pub fn client(mut self, client: Client) -> Self {
        self.client = client;
        self
    }

    /// Starts with the lock on destructive requests on (default off): a request
    /// that reads as destructive ([`ar_flow::destructive::path_is_destructive`]:
    /// `DELETE`, or a write whose path ends in `delete`, `clear`, `logout`, ...)
    /// is not sent; the client gets a 403 saying why, and the flow is recorded
    /// with an [`ErrorKind::Refused`](ar_flow::ErrorKind::Refused) error.
    /// Switch it at run time with [`crate::ProxyHandle::set_destructive_lock`];
    /// [`crate::ProxyHandle::take_refusals`] says what it refused.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ar_capture::CaptureError> {
    /// let ca = std::sync::Arc::new(ar_capture::CertificateAuthority::ephemeral()?);
    /// let proxy = ar_capture::Proxy::builder(ca).destructive_lock(true).bind().await?;
    /// let handle = proxy.spawn();
    /// // curl -X DELETE --proxy http://{addr} http://shop.test/api/carts/3  → 403, never sent
    /// handle.set_destructive_lock(false); // the human drives again
    /// assert_eq!(handle.take_refusals().count, 0);
    /// handle.shutdown().await;
    /// # Ok(()) }
    /// ```
    pub fn destructive_lock(mut self, on: bool) -> Self {
        self.destructive_lock = on;
        self
    }

    /// The id of the first flow (default 1); use the next free id when resuming an archive.
    pub fn first_flow_id(mut self, id: u64) -> Self {
        self.first_flow_id = id;
        self
    }

    /// Reverse mode: the listener also takes origin-form requests
    /// (`GET /v1/users`, from a client that cannot use a proxy; over
    /// HTTP/1.1, or HTTP/2 with prior knowledge) and sends
    /// each to the origin of the route its path takes, with that origin's
    /// `Host`, recorded as the same request through a tunnel to that origin
    /// would be (`https://api.example.com/v1/users`). Absolute-form requests
    /// and CONNECT are still served as a forward proxy.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ar_capture::CaptureError> {
    /// let ca = std::sync::Arc::new(ar_capture::CertificateAuthority::ephemeral()?);
    /// let routes = ar_capture::ReverseRoutes::new(vec!["https://api.example.com".parse()?])?;
    /// let proxy = ar_capture::Proxy::builder(ca).reverse(routes).bind().await?;
    /// // curl http://{addr}/v1/users  → https://api.example.com/v1/users
    /// proxy.spawn().shutdown().await;
    /// # Ok(()) }
    /// ```
    pub fn reverse(mut self, routes: ReverseRoutes) -> Self {
        self.reverse = Some(routes);
        self
    }

    /// Reaches origins through an upstream HTTP proxy: a CONNECT tunnel for
    /// HTTPS origins and WebSockets, absolute-form requests for plain HTTP.
    /// Loopback, `--resolve`d hosts and the proxy's
    /// [`direct_to`](UpstreamProxy::direct_to) hosts are dialed directly, and
    /// [`offline`](Self::offline) dials nothing else. A `407` from it reaches
    /// the client as a `407` naming it; its credentials reach neither the
    /// flows nor the messages.
    pub fn upstream_proxy(mut self, proxy: UpstreamProxy) -> Self {
        self.upstream_proxy = Some(proxy);
        self
    }

    /// SOCKS5 on the same port (RFC 1928), for `who`: a client's first byte
    /// tells SOCKS5 from an HTTP proxy request. A SOCKS5 `CONNECT` is served
    /// as an HTTP `CONNECT` is: TLS inside intercepted, plain HTTP parsed,
    /// each exchange recorded under the host the client asked for (or, when
    /// it asked for an address, the name its TLS hello gives). `BIND` and
    /// `UDP ASSOCIATE` are refused. A [`Socks5::Login`] guards SOCKS5 alone:
    /// HTTP proxy requests on the port ask for none.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), ar_capture::CaptureError> {
    /// use ar_capture::Socks5;
    /// let ca = std::sync::Arc::new(ar_capture::CertificateAuthority::ephemeral()?);
    /// let login = Socks5::Login("me:s3cret".parse()?);
    /// let proxy = ar_capture::Proxy::builder(ca).socks5(login).bind().await?;
    /// // curl --socks5-hostname {addr} --proxy-user me:s3cret --cacert ca.pem https://...
    /// proxy.spawn().shutdown().await;
    /// # Ok(()) }
    /// ```
    pub fn socks5(mut self, who: Socks5) -> Self {
        self.socks5 = Some(who);
        self
    }

    /// Binds the listener. The proxy serves once [`Proxy::spawn`] or [`Proxy::run_until`] runs.
    pub async fn bind(self) -> Result<Proxy, CaptureError> {
        let listener =
            TcpListener::bind(self.listen)
                .await
                .map_err(|source| CaptureError::Bind {
                    addr: self.listen,
                    source,
                })?;
        let local_addr = listener.local_addr().map_err(|source| CaptureError::Bind {
            addr: self.listen,
            source,
        })?;
        let mut roots = rustls::RootCertStore {
            roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
        };
        for cert in self.extra_roots {
            roots
                .add(cert)
                .map_err(|e| CaptureError::Tls(format!("extra upstream root rejected: {e}")))?;
        }
        let dialer = Arc::new(Dialer::new(
            self.resolve,
            self.offline,
            self.connect_timeout,
            local_addr,
            roots,
            self.upstream_proxy,
        ));
        let pool = Pool::new(Arc::clone(&dialer));
        let shared = Arc::new(Shared {
            ca: self.ca,
            dialer,
            pool,
            opts: Options {
                limits: self.limits,
                ws_frame_cap: self.ws_frame_cap,
                ws_max_frames: self.ws_max_frames,
                response_timeout: self.response_timeout,
                peek_timeout: self.peek_timeout,
                handshake_timeout: self.connect_timeout,
                passthrough: self.passthrough,
            },
            sinks: Sinks::new(self.archive, self.live).with_batches(self.batches),
            next_id: AtomicU64::new(self.first_flow_id),
            client: AtomicU8::new(client_code(self.client)),
            lock: Lock::new(self.destructive_lock),
            tls_configs: Mutex::new(HashMap::new()),
            local_addr,
            reverse: self.reverse,
            socks5: self.socks5,
        });
        Ok(Proxy { listener, shared })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolve_entries_parse_like_curl() {
        let ca = Arc::new(CertificateAuthority::ephemeral().unwrap());
        let b = Proxy::builder(Arc::clone(&ca))
            .resolve_entry("Shop.Test:443:127.0.0.1")
            .unwrap();
        assert_eq!(
            b.resolve.get(&("shop.test".into(), 443)),
            Some(&"127.0.0.1:443".parse().unwrap())
        );
        let b = Proxy::builder(Arc::clone(&ca))
            .resolve_entry("v6.test:8443:[::1]")
            .unwrap();
        assert_eq!(
            b.resolve.get(&("v6.test".into(), 8443)),
            Some(&"[::1]:8443".parse().unwrap())
        );
        for bad in [
            "shop.test",
            "shop.test:x:127.0.0.1",
            ":443:127.0.0.1",
            "a:443:not-an-ip",
        ] {
            assert!(
                Proxy::builder(Arc::clone(&ca)).resolve_entry(bad).is_err(),
                "{bad}"
            );
        }
    }
}
