//! Sends a request edited in the web view through the session's own
//! capture proxy, as any proxied client would: `CONNECT` and TLS (trusting
//! ar's CA) for `https`, an absolute-form request for `http`. The proxy
//! captures the exchange; the [`ar_capture::REPLAY_HEADER`] header tells the
//! proxy it is a replay (it stamps the flow [`ar_store::Client::Replay`] and
//! neither records nor forwards the header).

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, bail};
use ar_store::{Body, HttpVersion, Request, Response};
use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper_util::rt::TokioIo;
use rustls_pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _};
use tokio::net::TcpStream;

/// The longest a replay may take, answer included.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Headers the client connection sets itself.
const HOP: [&str; 5] = [
    "host",
    "connection",
    "content-length",
    "transfer-encoding",
    "keep-alive",
];

/// Where the proxy listens and the CA it signs with.
#[derive(Clone)]
pub struct Replayer {
    proxy: SocketAddr,
    tls: tokio_rustls::TlsConnector,
}

impl Replayer {
    /// A replayer through the proxy at `proxy`, trusting ar's CA `ca_der`.
    pub fn new(proxy: SocketAddr, ca_der: CertificateDer<'static>) -> anyhow::Result<Self> {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca_der).context("ar's CA certificate")?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .context("TLS versions")?
            .with_root_certificates(roots)
            .with_no_client_auth();
        Ok(Self {
            proxy,
            tls: tokio_rustls::TlsConnector::from(Arc::new(config)),
        })
    }

    /// Sends `request` through the proxy; what came back.
    pub async fn send(&self, request: Request) -> anyhow::Result<Replayed> {
        tokio::time::timeout(TIMEOUT, self.exchange(request))
            .await
            .context("no answer within 30 s")?
    }

    async fn exchange(&self, request: Request) -> anyhow::Result<Replayed> {
        let url = url::Url::parse(&request.url)
            .with_context(|| format!("`{}` is not a URL", request.url))?;
        let host = url.host_str().context("the URL has no host")?.to_owned();
        let port = url.port_or_known_default().context("the URL has no port")?;
        let authority = match url.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.clone(),
        };
        let mut stream = TcpStream::connect(self.proxy)
            .await
            .context("cannot reach ar's proxy")?;
        match url.scheme() {
            "https" => {
                tunnel(&mut stream, &host, port).await?;
                let name = ServerName::try_from(host.clone()).context("the host is no TLS name")?;
                let tls = self
                    .tls
                    .connect(name, stream)
                    .await
                    .context("TLS through ar's proxy")?;
                let target = url[url::Position::BeforePath..].to_owned();
                exchange(tls, request, &target, &authority).await
            }
            "http" => exchange(stream, request.clone(), &request.url, &authority).await,
            other => bail!("cannot replay a {other}: URL"),
        }
    }
}

/// A replayed request and its answer.
pub struct Replayed {
    /// `GET https://...`, as sent.
    sent: String,
    /// The answer: status, headers, the body as it came (not decoded).
    pub response: Response,
}

impl std::fmt::Display for Replayed {
    /// `replayed GET https://...: 200 OK (123 bytes)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = http::StatusCode::from_u16(self.response.status)
            .map_or_else(|_| self.response.status.to_string(), |s| s.to_string());
        write!(
            f,
            "replayed {}: {status} ({} bytes)",
            self.sent,
            self.response.body.bytes.len()
        )
    }
}

/// `CONNECT host:port` on the proxy connection.
async fn tunnel(stream: &mut TcpStream, host: &str, port: u16) -> anyhow::Result<()> {
    let target = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    stream
        .write_all(format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n").as_bytes())
        .await?;
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).await? == 0 || head.len() > 16 * 1024 {
            bail!("ar's proxy closed the tunnel");
        }
        head.push(byte[0]);
    }
    let status = String::from_utf8_lossy(&head);
    if !status.starts_with("HTTP/1.1 200") && !status.starts_with("HTTP/1.0 200") {
        bail!(
            "ar's proxy refused the tunnel: {}",
            status.lines().next().unwrap_or_default()
        );
    }
    Ok(())
}

/// One HTTP/1.1 exchange on `io`, the request line aimed at `target`.
async fn exchange(
    io: impl AsyncRead + AsyncWrite + Unpin + Send + 'static,
    request: Request,
    target: &str,
    authority: &str,
) -> anyhow::Result<Replayed> {
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
        .await
        .context("HTTP through ar's proxy")?;
    tokio::spawn(connection);
    let mut builder = http::Request::builder()
        .method(request.method.as_str())
        .uri(target)
        .header(http::header::HOST, authority)
        .header(ar_capture::REPLAY_HEADER, "1");
    for header in request.headers.iter() {
        if !HOP.iter().any(|h| header.name.eq_ignore_ascii_case(h)) && !header.name.starts_with(':')
        {
            builder = builder.header(header.name.as_str(), header.value.as_str());
        }
    }
    let outgoing = builder
        .body(Full::new(Bytes::from(request.body.bytes)))
        .context("the edited request is not valid HTTP")?;
    let response = sender
        .send_request(outgoing)
        .await
        .context("the exchange failed")?;
    let mut answer = Response::new(response.status().as_u16(), HttpVersion::Http11);
    for (name, value) in response.headers() {
        answer
            .headers
            .push(name.as_str(), String::from_utf8_lossy(value.as_bytes()));
    }
    let bytes = response
        .into_body()
        .collect()
        .await
        .context("the answer's body")?
        .to_bytes();
    let content_type = answer.headers.get("content-type").map(str::to_owned);
    answer.body = Body::from_decoded(content_type, bytes.to_vec());
    Ok(Replayed {
        sent: format!("{} {}", request.method, request.url),
        response: answer,
    })
}
