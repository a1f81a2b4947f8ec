//! `ar-capture` is the HTTPS-intercepting proxy of `ar`: it sits between a
//! client (a browser, curl, an app) and the sites it talks to, relays every
//! exchange faithfully, and emits each one as an [`ar_flow::Flow`].
//!
//! - [`CertificateAuthority`] loads or creates the CA and mints per-host leaves.
//! - [`Proxy`] (configured with [`ProxyBuilder`]) serves HTTP proxy requests
//!   and CONNECT tunnels, intercepting TLS (HTTP/1.1 and HTTP/2), WebSocket,
//!   server-sent events and large downloads without buffering them.
//! - In reverse mode ([`ProxyBuilder::reverse`]) it also takes plain
//!   requests from clients that cannot use a proxy, and sends each to the
//!   origin its path routes to ([`ReverseRoutes`]).
//! - With [`ProxyBuilder::socks5`] it takes SOCKS5 clients on the same port
//!   and serves their tunnels as CONNECT tunnels.
//! - Behind an [`UpstreamProxy`] ([`ProxyBuilder::upstream_proxy`]) it
//!   reaches origins through that proxy.
//! - While its lock on destructive requests is on, the proxy refuses what
//!   reads as destructive (`DELETE`, `POST …/delete`) with a 403 and records
//!   it, never sending it ([`ProxyBuilder::destructive_lock`]).
//! - Flows go to bounded channels; the proxy never waits for them (see
//!   [`sink`] for the drop policy and [`ProxyStats`] for the counters).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), ar_capture::CaptureError> {
//! use std::sync::Arc;
//! use ar_capture::{CertificateAuthority, Proxy};
//!
//! let ca = Arc::new(CertificateAuthority::ephemeral()?);
//! let (flows_tx, _flows) = tokio::sync::mpsc::channel(1024);
//! let proxy = Proxy::builder(ca).archive_sink(flows_tx).bind().await?;
//! assert!(proxy.local_addr().ip().is_loopback());
//! let handle = proxy.spawn();
//! // curl --proxy http://{addr} --cacert ca.pem https://...
//! handle.shutdown().await;
//! # Ok(()) }
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
mod ca;
mod connect;
mod decode;
mod error;
mod files;
mod forward;
mod head_limit;
mod listener_tls;
mod lock;
mod pem;
mod pool;
mod proxy;
mod record;
mod relay;
mod reverse;
mod rewrite;
mod server;
pub mod sink;
mod socks5;
mod tap;
mod upstream;
mod upstream_io;
mod upstream_proxy;
mod websocket;

/// A request header that marks a request as a replay of a captured one
/// (sent by `ar`'s web view through the proxy): the flow is recorded as
/// [`ar_flow::Client::Replay`], and the header is neither recorded nor
/// forwarded, so the origin sees the request as edited, nothing more.
pub const REPLAY_HEADER: &str = "x-ar-replay";

pub use builder::{DEFAULT_BODY_CAP, ProxyBuilder};
pub use ca::{CA_CERT_FILE, CA_KEY_FILE, CertificateAuthority};
pub use error::CaptureError;
pub use lock::{Refusal, Refusals};
pub use proxy::{Proxy, ProxyHandle};
pub use reverse::{ReverseRoute, ReverseRoutes};
pub use sink::ProxyStats;
pub use socks5::{Socks5, Socks5Auth};
pub use upstream_proxy::UpstreamProxy;
