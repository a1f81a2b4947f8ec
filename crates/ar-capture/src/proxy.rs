//! The proxy: its options (a builder), the listener, and the handle a
//! caller keeps to read counters, switch who is driving, and stop it.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::Path;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ar_store::{Client, Flow, FlowId};
use hyper_util::rt::{TokioExecutor, TokioTimer};
use rustls_pki_types::CertificateDer;
use tokio::net::TcpListener;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use crate::ca::{CertificateAuthority, pem_certs};
use crate::record::BodyLimits;
use crate::sink::{Counters, ProxyStats, Sinks};
use crate::upstream::{Connector, Dialer};
use crate::{CaptureError, server};

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
    passthrough: Vec<String>,
    limits: BodyLimits,
    ws_frame_cap: usize,
    ws_max_frames: usize,
    connect_timeout: Duration,
    response_timeout: Duration,
    peek_timeout: Duration,
    archive: Option<mpsc::Sender<Flow>>,
    live: Option<mpsc::Sender<Flow>>,
    client: Client,
    first_flow_id: u64,
}

impl ProxyBuilder {
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

    /// Who is driving when the proxy starts (default [`Client::Human`]); see [`ProxyHandle::set_client`].
    pub fn client(mut self, client: Client) -> Self {
        self.client = client;
        self
    }

    /// The id of the first flow (default 1); use the next free id when resuming an archive.
    pub fn first_flow_id(mut self, id: u64) -> Self {
        self.first_flow_id = id;
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
            self.connect_timeout,
            local_addr,
            roots,
        ));
        let http = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .pool_max_idle_per_host(1024)
            .pool_timer(TokioTimer::new())
            .timer(TokioTimer::new())
            .build(Connector {
                dialer: Arc::clone(&dialer),
            });
        let shared = Arc::new(Shared {
            ca: self.ca,
            dialer,
            http,
            opts: Options {
                limits: self.limits,
                ws_frame_cap: self.ws_frame_cap,
                ws_max_frames: self.ws_max_frames,
                response_timeout: self.response_timeout,
                peek_timeout: self.peek_timeout,
                handshake_timeout: self.connect_timeout,
                passthrough: self.passthrough,
            },
            sinks: Sinks {
                archive: self.archive,
                live: self.live,
                counters: Counters::default(),
            },
            next_id: AtomicU64::new(self.first_flow_id),
            client: AtomicU8::new(client_code(self.client)),
            tls_configs: Mutex::new(HashMap::new()),
            local_addr,
        });
        Ok(Proxy { listener, shared })
    }
}

/// The capture proxy: an HTTP proxy (absolute-form requests and CONNECT)
/// that intercepts TLS with leaves from a [`CertificateAuthority`] and
/// emits every exchange as an [`ar_store::Flow`].
///
/// ```no_run
/// # async fn demo() -> Result<(), ar_capture::CaptureError> {
/// use std::sync::Arc;
/// let ca = Arc::new(ar_capture::CertificateAuthority::load_or_create(
///     &ar_capture::CertificateAuthority::default_dir()?,
/// )?);
/// let (tx, mut flows) = tokio::sync::mpsc::channel(4096);
/// let proxy = ar_capture::Proxy::builder(ca).archive_sink(tx).bind().await?;
/// println!("HTTPS_PROXY=http://{}", proxy.local_addr());
/// let handle = proxy.spawn();
/// while let Some(flow) = flows.recv().await {
///     println!("{} {} -> {:?}", flow.request.method, flow.request.url, flow.status());
/// }
/// handle.shutdown().await;
/// # Ok(()) }
/// ```
pub struct Proxy {
    listener: TcpListener,
    shared: Arc<Shared>,
}

impl Proxy {
    /// Starts configuring a proxy that intercepts TLS with leaves from `ca`.
    pub fn builder(ca: Arc<CertificateAuthority>) -> ProxyBuilder {
        ProxyBuilder {
            ca,
            listen: SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0),
            extra_roots: Vec::new(),
            resolve: HashMap::new(),
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
            client: Client::Human,
            first_flow_id: 1,
        }
    }

    /// The address clients point at (`http://ADDR` as HTTP and HTTPS proxy).
    pub fn local_addr(&self) -> SocketAddr {
        self.shared.local_addr
    }

    /// Serves in a background task; the handle stops it.
    pub fn spawn(self) -> ProxyHandle {
        let (stop, stopped) = oneshot::channel::<()>();
        let shared = Arc::clone(&self.shared);
        let task = tokio::spawn(self.run_until(async move {
            let _ = stopped.await;
        }));
        ProxyHandle {
            shared,
            stop: Some(stop),
            task,
        }
    }

    /// Serves until `shutdown` completes, then stops accepting, gives open
    /// exchanges a moment to finish, and closes the rest (their flows are
    /// recorded as aborted).
    pub async fn run_until(self, shutdown: impl Future<Output = ()>) {
        let mut connections = JoinSet::new();
        tokio::pin!(shutdown);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                accepted = self.listener.accept() => match accepted {
                    Ok((tcp, _peer)) => {
                        let _ = tcp.set_nodelay(true);
                        self.shared.sinks.counters.connections.fetch_add(1, Ordering::Relaxed);
                        connections.spawn(server::serve_client(Arc::clone(&self.shared), tcp));
                    }
                    Err(error) => {
                        // Out of file descriptors and the like: back off instead of spinning.
                        tracing::warn!(%error, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                },
                Some(_) = connections.join_next(), if !connections.is_empty() => {}
            }
        }
        drop(self.listener);
        let grace = tokio::time::sleep(Duration::from_millis(500));
        tokio::pin!(grace);
        while !connections.is_empty() {
            tokio::select! {
                () = &mut grace => break,
                _ = connections.join_next() => {}
            }
        }
        connections.shutdown().await;
    }
}

/// A running proxy (from [`Proxy::spawn`]).
pub struct ProxyHandle {
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl ProxyHandle {
    /// The address clients point at.
    pub fn local_addr(&self) -> SocketAddr {
        self.shared.local_addr
    }

    /// Counters: connections, flows, and flows the sinks had no room for.
    pub fn stats(&self) -> ProxyStats {
        self.shared.sinks.counters.snapshot()
    }

    /// Tags flows that start from now on with `client` (e.g. `Human` after `/take`).
    pub fn set_client(&self, client: Client) {
        self.shared
            .client
            .store(client_code(client), Ordering::Relaxed);
    }

    /// Stops accepting, lets open exchanges finish briefly, and waits for the listener task.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = (&mut self.task).await;
    }
}

pub(crate) struct Options {
    pub(crate) limits: BodyLimits,
    pub(crate) ws_frame_cap: usize,
    pub(crate) ws_max_frames: usize,
    pub(crate) response_timeout: Duration,
    pub(crate) peek_timeout: Duration,
    pub(crate) handshake_timeout: Duration,
    pub(crate) passthrough: Vec<String>,
}

impl Options {
    pub(crate) fn is_passthrough(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.passthrough.iter().any(|p| match p.strip_prefix("*.") {
            Some(suffix) => host.ends_with(&format!(".{suffix}")) || host == suffix,
            None => *p == host,
        })
    }
}

/// Request bodies sent upstream.
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;
pub(crate) type ProxyBody = http_body_util::combinators::UnsyncBoxBody<bytes::Bytes, BoxError>;

/// State shared by every connection of one proxy.
pub(crate) struct Shared {
    pub(crate) ca: Arc<CertificateAuthority>,
    pub(crate) dialer: Arc<Dialer>,
    pub(crate) http: hyper_util::client::legacy::Client<Connector, ProxyBody>,
    pub(crate) opts: Options,
    pub(crate) sinks: Sinks,
    next_id: AtomicU64,
    client: AtomicU8,
    pub(crate) tls_configs: Mutex<HashMap<String, Arc<rustls::ServerConfig>>>,
    pub(crate) local_addr: SocketAddr,
}

impl Shared {
    pub(crate) fn next_id(&self) -> FlowId {
        FlowId(self.next_id.fetch_add(1, Ordering::Relaxed))
    }

    pub(crate) fn client(&self) -> Client {
        match self.client.load(Ordering::Relaxed) {
            0 => Client::Agent,
            1 => Client::Explorer,
            2 => Client::Human,
            _ => Client::Unknown,
        }
    }
}

fn client_code(client: Client) -> u8 {
    match client {
        Client::Agent => 0,
        Client::Explorer => 1,
        Client::Human => 2,
        Client::Unknown => 3,
    }
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("local_addr", &self.shared.local_addr)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for ProxyHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProxyHandle")
            .field("local_addr", &self.shared.local_addr)
            .finish_non_exhaustive()
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

    #[test]
    fn passthrough_matches_exact_and_wildcard_hosts() {
        let opts = Options {
            limits: BodyLimits {
                cap: 1,
                max_ratio: 1,
            },
            ws_frame_cap: 1,
            ws_max_frames: 1,
            response_timeout: Duration::ZERO,
            peek_timeout: Duration::ZERO,
            handshake_timeout: Duration::ZERO,
            passthrough: vec!["pinned.test".into(), "*.bank.test".into()],
        };
        assert!(opts.is_passthrough("PINNED.test"));
        assert!(opts.is_passthrough("api.bank.test"));
        assert!(opts.is_passthrough("bank.test"));
        assert!(!opts.is_passthrough("notbank.test"));
        assert!(!opts.is_passthrough("shop.test"));
    }
}
