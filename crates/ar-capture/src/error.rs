//! The one error type of `ar-capture`. Variants carry the input that failed
//! (a path, a host, an address) so a message says what to fix.

use std::net::SocketAddr;
use std::path::PathBuf;

/// Everything that can go wrong setting up capture: the CA, the listener,
/// extra trust roots. Failures of single exchanges are not errors of this
/// type: they become error [`Flow`](ar_flow::Flow)s and 502 responses.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CaptureError {
    /// Reading or writing a CA file failed.
    #[error("CA file {path}")]
    CaIo {
        /// The file or directory.
        path: PathBuf,
        /// The I/O failure.
        #[source]
        source: std::io::Error,
    },
    /// A CA file exists but does not hold a usable certificate or key.
    #[error("CA file {path} is not usable: {reason}")]
    CaInvalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// No directory was given and the user's data directory is unknown.
    #[error("no CA directory given and the user's data directory is unknown (set --ca-dir)")]
    NoDataDir,
    /// Minting a certificate failed.
    #[error("could not mint a certificate for {host}: {reason}")]
    Certificate {
        /// The host name (or `CA`).
        host: String,
        /// Why.
        reason: String,
    },
    /// An extra upstream root could not be read or parsed.
    #[error("upstream CA file {path} is not usable: {reason}")]
    UpstreamCa {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A `--resolve HOST:PORT:ADDR` entry is malformed.
    #[error(
        "bad --resolve entry {entry:?}: expected HOST:PORT:ADDR (e.g. shop.test:443:127.0.0.1)"
    )]
    Resolve {
        /// The entry as given.
        entry: String,
    },
    /// A reverse route (`--reverse [/PREFIX=]URL`) is malformed, or two
    /// routes share a prefix.
    #[error(
        "reverse route {value:?}: {reason}; expected [/PREFIX=]http(s)://HOST[:PORT] \
         (e.g. https://api.example.com or /api=https://api.example.com)"
    )]
    Reverse {
        /// The route as given (or the prefix two routes share).
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// An upstream proxy URL (`--upstream-proxy`) is malformed.
    #[error(
        "upstream proxy {value:?}: {reason}; expected http://[USER:PASSWORD@]HOST:PORT \
         (e.g. http://proxy.corp:3128)"
    )]
    UpstreamProxy {
        /// The URL as given, its credentials masked.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A SOCKS5 login (`--socks5-auth USER:PASSWORD`) is malformed.
    #[error("SOCKS5 login: {reason} (the value is not repeated here: it holds a password)")]
    Socks5Auth {
        /// What is wrong with it.
        reason: String,
    },
    /// The listening socket could not be bound.
    #[error("could not listen on {addr}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The I/O failure.
        #[source]
        source: std::io::Error,
    },
    /// Building a TLS configuration failed.
    #[error("TLS configuration: {0}")]
    Tls(String),
}
