//! HTTPS on the reverse proxy's own port: a client that speaks TLS to the
//! listener (`https://127.0.0.1:N/`) gets a leaf minted by ar's CA for the
//! name it asked for (its SNI), or for the address it dialed when it sent
//! none (clients send no SNI for an IP literal), with ALPN `h2` and
//! `http/1.1`, as a CONNECT tunnel's client does ([`crate::connect`]).
//! Inside, every request is a reverse request ([`crate::reverse`]).

use std::net::IpAddr;
use std::sync::Arc;

use rustls::server::Acceptor;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::LazyConfigAcceptor;

use crate::connect::server_config;
use crate::proxy::Shared;
use crate::server::{Target, serve_origin};

/// A TLS handshake record's first byte (RFC 8446 §5.1, `handshake(22)`):
/// no HTTP/1 request, h2 preface or SOCKS5 greeting starts with it.
pub(crate) const HANDSHAKE: u8 = 0x16;

/// Serves one client connection that opened with a TLS handshake on the
/// reverse listener, reached at `local` (the address it dialed).
pub(crate) async fn serve<IO>(shared: Arc<Shared>, io: IO, local: IpAddr)
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let deadline = shared.opts.handshake_timeout;
    let accept = LazyConfigAcceptor::new(Acceptor::default(), io);
    let start = match tokio::time::timeout(deadline, accept).await {
        Ok(Ok(start)) => start,
        Ok(Err(error)) => {
            tracing::debug!(%error, "a client's TLS hello on the reverse listener was not valid");
            return;
        }
        Err(_) => return,
    };
    let name = start
        .client_hello()
        .server_name()
        .map_or_else(|| local.to_string(), str::to_string);
    let config = match server_config(&shared, &name) {
        Ok(config) => config,
        Err(error) => {
            tracing::warn!(%error, "no certificate for {name} on the reverse listener");
            return;
        }
    };
    let tls = match tokio::time::timeout(deadline, start.into_stream(config)).await {
        Ok(Ok(tls)) => tls,
        Ok(Err(error)) => {
            tracing::warn!(
                %error,
                "a client refused the reverse listener's certificate for {name}; \
                 does it trust the ar CA? (see `ar ca`)"
            );
            return;
        }
        Err(_) => return,
    };
    let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
    serve_origin(shared, tls, Target::TlsListener, h2).await;
}
