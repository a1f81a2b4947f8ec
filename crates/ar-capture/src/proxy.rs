//! The proxy: its options (a builder), the listener, and the handle a
//! caller keeps to read counters, switch who is driving, and stop it.

use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ar_flow::{Client, FlowId};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinSet;

use crate::builder::ProxyBuilder;
use crate::ca::CertificateAuthority;
use crate::lock::{Lock, Refusals};
use crate::pool::Pool;
use crate::record::BodyLimits;
use crate::reverse::ReverseRoutes;
use crate::server;
use crate::sink::{ProxyStats, Sinks};
use crate::socks5::Socks5;
use crate::upstream::Dialer;

/// The capture proxy: an HTTP proxy (absolute-form requests and CONNECT)
/// that intercepts TLS with leaves from a [`CertificateAuthority`] and
/// emits every exchange as an [`ar_flow::Flow`].
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
    pub(crate) listener: TcpListener,
    pub(crate) shared: Arc<Shared>,
}

impl Proxy {
    /// Starts configuring a proxy that intercepts TLS with leaves from `ca`.
    pub fn builder(ca: Arc<CertificateAuthority>) -> ProxyBuilder {
        ProxyBuilder::new(ca)
    }

    /// The address clients point at (`http://ADDR` as HTTP and HTTPS proxy;
    /// `socks5h://ADDR` too with [`ProxyBuilder::socks5`]).
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
        let delivery = self.shared.sinks.deliver_forever();
        tokio::pin!(delivery);
        loop {
            tokio::select! {
                () = &mut shutdown => break,
                () = &mut delivery => {}
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
                () = &mut delivery => {}
                _ = connections.join_next() => {}
            }
        }
        connections.shutdown().await;
        self.shared.sinks.deliver();
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

    /// Switches the lock on destructive requests (see
    /// [`ProxyBuilder::destructive_lock`]) for requests that start from now on.
    pub fn set_destructive_lock(&self, on: bool) {
        self.shared.lock.set(on);
    }

    /// The requests the lock on destructive requests refused since the last
    /// call (all counted, the first 32 named), and forgets them.
    pub fn take_refusals(&self) -> Refusals {
        self.shared.lock.take()
    }

    /// Stops accepting, lets open exchanges finish briefly, waits for the
    /// listener task, and returns the final counters (flows that ended during
    /// the shutdown included; every one of them was handed to the sinks).
    pub async fn shutdown(mut self) -> ProxyStats {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let _ = (&mut self.task).await;
        self.stats()
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
    pub(crate) pool: Pool,
    pub(crate) opts: Options,
    pub(crate) sinks: Sinks,
    pub(crate) next_id: AtomicU64,
    pub(crate) client: AtomicU8,
    pub(crate) lock: Lock,
    pub(crate) tls_configs: Mutex<HashMap<String, Arc<rustls::ServerConfig>>>,
    pub(crate) local_addr: SocketAddr,
    /// Where origin-form requests on the listener go, in reverse mode.
    pub(crate) reverse: Option<ReverseRoutes>,
    /// SOCKS5 on the listener, beside HTTP proxy requests.
    pub(crate) socks5: Option<Socks5>,
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
            4 => Client::Replay,
            _ => Client::Unknown,
        }
    }
}

pub(crate) fn client_code(client: Client) -> u8 {
    match client {
        Client::Agent => 0,
        Client::Explorer => 1,
        Client::Human => 2,
        Client::Unknown => 3,
        Client::Replay => 4,
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
