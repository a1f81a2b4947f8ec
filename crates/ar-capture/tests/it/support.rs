//! Shared test parts: a test CA for origins, real TLS origins (HTTP/1.1
//! and HTTP/2) on loopback, the proxy under test, and a Rust client that
//! goes through CONNECT.

use std::convert::Infallible;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ar_capture::{CertificateAuthority, Proxy, ProxyBuilder, ProxyHandle};
use ar_flow::Flow;
use base64::Engine as _;
use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rcgen::{
    BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, PublicKeyData as _, SanType,
};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use sha2::Digest as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, mpsc};

pub(crate) type TestBody = BoxBody<Bytes, std::io::Error>;

/// The JSON document the compression routes serve.
pub(crate) fn json_doc() -> Vec<u8> {
    let items: Vec<String> = (0..200)
        .map(|i| format!(r#"{{"id":{i},"name":"item {i}"}}"#))
        .collect();
    format!(r#"{{"items":[{}]}}"#, items.join(",")).into_bytes()
}

pub(crate) fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

pub(crate) fn brotli(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut enc = brotli::CompressorWriter::new(&mut out, 4096, 5, 22);
    enc.write_all(data).unwrap();
    drop(enc);
    out
}

/// 16 MiB of zeros as 16 concatenated gzip members of 1 MiB each: about 1000:1.
pub(crate) fn gzip_bomb() -> Vec<u8> {
    static BOMB: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BOMB.get_or_init(|| gzip(&vec![0u8; 1 << 20]).repeat(16))
        .clone()
}

/// A CA for the *origins* (not the proxy's CA): the proxy trusts it as an extra upstream root.
pub(crate) struct TestCa {
    issuer: Issuer<'static, KeyPair>,
    pub(crate) cert: CertificateDer<'static>,
    /// `cert` as PEM.
    pem: String,
    /// The SHA-256 of its public key, base64 (Chromium's
    /// `--ignore-certificate-errors-spki-list`).
    pub(crate) spki_sha256_base64: String,
}

impl TestCa {
    pub(crate) fn new() -> Self {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::default();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params
            .distinguished_name
            .push(rcgen::DnType::CommonName, "origin test CA");
        let cert = params.self_signed(&key).unwrap();
        let spki = sha2::Sha256::digest(key.subject_public_key_info());
        Self {
            issuer: Issuer::new(params, key),
            cert: cert.der().clone(),
            pem: cert.pem(),
            spki_sha256_base64: base64::engine::general_purpose::STANDARD.encode(spki),
        }
    }

    /// The CA certificate as PEM, for clients that read a CA file.
    pub(crate) fn pem(&self) -> &str {
        &self.pem
    }

    /// A leaf certificate for `names`, signed by this CA, and its key.
    fn leaf(&self, names: &[&str]) -> (rcgen::Certificate, KeyPair) {
        let key = KeyPair::generate().unwrap();
        let mut params = CertificateParams::default();
        params.subject_alt_names = names
            .iter()
            .map(|n| match n.parse() {
                Ok(ip) => SanType::IpAddress(ip),
                Err(_) => SanType::DnsName((*n).to_string().try_into().unwrap()),
            })
            .collect();
        let cert = params.signed_by(&key, &self.issuer).unwrap();
        (cert, key)
    }

    /// A leaf for `names` as PEM, for servers that read files (nginx): the
    /// chain (leaf, then this CA) and the private key.
    pub(crate) fn server_pem(&self, names: &[&str]) -> (String, String) {
        let (cert, key) = self.leaf(names);
        (format!("{}{}", cert.pem(), self.pem), key.serialize_pem())
    }

    /// A TLS server config for `names` with the given ALPN protocols.
    pub(crate) fn server_config(
        &self,
        names: &[&str],
        alpn: &[&[u8]],
    ) -> Arc<rustls::ServerConfig> {
        let (cert, key) = self.leaf(names);
        let der = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert.der().clone(), self.cert.clone()], der)
            .unwrap();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        Arc::new(config)
    }
}

/// State the origin's routes share with a test.
#[derive(Default)]
pub(crate) struct OriginState {
    /// `/sse` sends its first event, then waits for this before the rest.
    pub(crate) release_sse: Notify,
    /// Every request the origin received, as `METHOD /path`, in order.
    pub(crate) received: std::sync::Mutex<Vec<String>>,
}

impl OriginState {
    /// The requests received so far (`METHOD /path`).
    pub(crate) fn received(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }
}

/// A real HTTP origin on loopback: TLS (h2 and/or http/1.1 by ALPN) or plain.
pub(crate) struct Origin {
    pub(crate) addr: SocketAddr,
    pub(crate) state: Arc<OriginState>,
}

pub(crate) async fn origin(tls: Option<Arc<rustls::ServerConfig>>) -> Origin {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = Arc::new(OriginState::default());
    let shared = Arc::clone(&state);
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let state = Arc::clone(&shared);
            let tls = tls.clone();
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    let state = Arc::clone(&state);
                    async move { Ok::<_, Infallible>(route(req, state).await) }
                });
                let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
                match tls {
                    Some(config) => {
                        let Ok(stream) = tokio_rustls::TlsAcceptor::from(config).accept(tcp).await
                        else {
                            return;
                        };
                        let _ = builder
                            .serve_connection_with_upgrades(TokioIo::new(stream), service)
                            .await;
                    }
                    None => {
                        let _ = builder
                            .serve_connection_with_upgrades(TokioIo::new(tcp), service)
                            .await;
                    }
                }
            });
        }
    });
    Origin { addr, state }
}

fn full(bytes: impl Into<Bytes>) -> TestBody {
    Full::new(bytes.into())
        .map_err(|never| match never {})
        .boxed()
}

fn query_u64(req: &Request<Incoming>, key: &str) -> Option<u64> {
    req.uri()
        .query()?
        .split('&')
        .find_map(|kv| kv.strip_prefix(&format!("{key}="))?.parse().ok())
}

async fn route(req: Request<Incoming>, state: Arc<OriginState>) -> Response<TestBody> {
    let version = format!("{:?}", req.version());
    (state.received.lock().unwrap()).push(format!("{} {}", req.method(), req.uri().path()));
    match req.uri().path() {
        "/hello" => Response::builder()
            .header("content-type", "text/plain")
            .header("x-origin-version", version)
            .body(full("hello"))
            .unwrap(),
        "/echo" => {
            let content_type = req.headers().get("content-type").cloned();
            let body = req
                .into_body()
                .collect()
                .await
                .map(|c| c.to_bytes())
                .unwrap_or_default();
            let mut response = Response::new(full(body));
            if let Some(ct) = content_type {
                response.headers_mut().insert("content-type", ct);
            }
            response
        }
        "/headers" => {
            let names: Vec<&str> = req.headers().keys().map(|k| k.as_str()).collect();
            Response::new(full(names.join("\n")))
        }
        "/gzip" => Response::builder()
            .header("content-type", "application/json")
            .header("content-encoding", "gzip")
            .body(full(gzip(&json_doc())))
            .unwrap(),
        "/br" => Response::builder()
            .header("content-type", "application/json")
            .header("content-encoding", "br")
            .body(full(brotli(&json_doc())))
            .unwrap(),
        "/bomb" => Response::builder()
            .header("content-type", "application/json")
            .header("content-encoding", "gzip")
            .body(full(gzip_bomb()))
            .unwrap(),
        "/no-content" => Response::builder()
            .status(StatusCode::NO_CONTENT)
            .body(full(Bytes::new()))
            .unwrap(),
        "/sse" => {
            let (tx, rx) = mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(4);
            tokio::spawn(async move {
                let _ = tx
                    .send(Ok(Frame::data(Bytes::from_static(b"data: first\n\n"))))
                    .await;
                state.release_sse.notified().await;
                let _ = tx
                    .send(Ok(Frame::data(Bytes::from_static(b"data: second\n\n"))))
                    .await;
            });
            let stream = tokio_stream_from(rx);
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(BodyExt::boxed(StreamBody::new(stream)))
                .unwrap()
        }
        "/big" => {
            // Generated, never stored: one 64 KiB chunk handed out again and again.
            let total = query_u64(&req, "n").unwrap_or(1 << 20);
            let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
            let (tx, rx) = mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(8);
            tokio::spawn(async move {
                let mut left = total;
                while left > 0 {
                    let n = left.min(chunk.len() as u64) as usize;
                    if tx.send(Ok(Frame::data(chunk.slice(..n)))).await.is_err() {
                        return;
                    }
                    left -= n as u64;
                }
            });
            Response::builder()
                .header("content-type", "application/octet-stream")
                .header("content-length", total)
                .body(BodyExt::boxed(StreamBody::new(tokio_stream_from(rx))))
                .unwrap()
        }
        "/trickle" => {
            // Never ends: a chunk every few milliseconds, until the reader goes away.
            let (tx, rx) = mpsc::channel::<Result<Frame<Bytes>, std::io::Error>>(1);
            tokio::spawn(async move {
                loop {
                    if tx
                        .send(Ok(Frame::data(Bytes::from(vec![b'.'; 1024]))))
                        .await
                        .is_err()
                    {
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
            });
            Response::builder()
                .body(BodyExt::boxed(StreamBody::new(tokio_stream_from(rx))))
                .unwrap()
        }
        _ => Response::builder()
            .status(StatusCode::NOT_FOUND)
            .body(full("not found"))
            .unwrap(),
    }
}

use http_body_util::BodyExt;

/// An `mpsc::Receiver` as a `Stream` (without pulling in tokio-stream).
fn tokio_stream_from<T: Send + 'static>(
    rx: mpsc::Receiver<T>,
) -> impl futures_util::Stream<Item = T> + Send + 'static {
    futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|item| (item, rx))
    })
}

/// The proxy under test, its flows, and its CA on disk for curl.
pub(crate) struct Harness {
    pub(crate) handle: ProxyHandle,
    pub(crate) flows: mpsc::Receiver<Flow>,
    pub(crate) ca: Arc<CertificateAuthority>,
    pub(crate) ca_pem: PathBuf,
    pub(crate) _dir: tempfile::TempDir,
}

impl Harness {
    pub(crate) async fn start(configure: impl FnOnce(ProxyBuilder) -> ProxyBuilder) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let ca = Arc::new(CertificateAuthority::load_or_create(&dir.path().join("ca")).unwrap());
        let ca_pem = dir.path().join("ca").join(ar_capture::CA_CERT_FILE);
        let (tx, flows) = mpsc::channel(1024);
        let builder = configure(Proxy::builder(Arc::clone(&ca)).archive_sink(tx));
        let handle = builder.bind().await.unwrap().spawn();
        Self {
            handle,
            flows,
            ca,
            ca_pem,
            _dir: dir,
        }
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.handle.local_addr()
    }

    /// The next flow whose URL ends with `suffix` (others are skipped), within 20 s.
    pub(crate) async fn flow_for(&mut self, suffix: &str) -> Flow {
        let mut flows = self.flows_for(&[suffix.to_owned()]).await;
        flows.remove(0)
    }

    /// The flows whose URLs end with each of `suffixes`, in that order, whatever
    /// order they finished in (concurrent requests end in any order), within 20 s.
    pub(crate) async fn flows_for(&mut self, suffixes: &[String]) -> Vec<Flow> {
        let mut found: Vec<Option<Flow>> = vec![None; suffixes.len()];
        let wait = async {
            while found.iter().any(Option::is_none) {
                let flow = self
                    .flows
                    .recv()
                    .await
                    .expect("proxy stopped emitting flows");
                if let Some(i) = (0..suffixes.len())
                    .find(|&i| found[i].is_none() && flow.request.url.ends_with(&suffixes[i]))
                {
                    found[i] = Some(flow);
                }
            }
        };
        if tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .is_err()
        {
            let missing: Vec<_> = (suffixes.iter().zip(&found))
                .filter(|(_, flow)| flow.is_none())
                .map(|(suffix, _)| suffix)
                .collect();
            panic!("no flows for {missing:?}");
        }
        found.into_iter().flatten().collect()
    }
}

/// Opens a CONNECT tunnel through the proxy and returns the raw stream and the status line.
pub(crate) async fn connect_tunnel(proxy: SocketAddr, authority: &str) -> (TcpStream, String) {
    let mut tcp = TcpStream::connect(proxy).await.unwrap();
    tcp.write_all(format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if tcp.read(&mut byte).await.unwrap() == 0 {
            break;
        }
        head.push(byte[0]);
    }
    let text = String::from_utf8_lossy(&head).into_owned();
    (tcp, text)
}

/// Rest of a response after the head, read until the proxy closes or `limit` bytes arrive.
pub(crate) async fn read_rest(tcp: &mut TcpStream) -> String {
    let mut rest = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut rest)).await;
    String::from_utf8_lossy(&rest).into_owned()
}

/// A TLS client config trusting only `ca_der` (the proxy's CA).
pub(crate) fn client_tls(
    ca_der: &CertificateDer<'static>,
    alpn: &[&[u8]],
) -> Arc<rustls::ClientConfig> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(ca_der.clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Arc::new(config)
}

/// Sends HTTP requests through a CONNECT tunnel with hyper over tokio-rustls.
pub(crate) enum TunnelClient {
    H1(hyper::client::conn::http1::SendRequest<TestBody>),
    H2(hyper::client::conn::http2::SendRequest<TestBody>),
}

impl TunnelClient {
    /// CONNECT to `host:port`, TLS with SNI `host`, then HTTP/2 if the proxy agrees (`want_h2`).
    pub(crate) async fn open(
        proxy: SocketAddr,
        ca: &CertificateAuthority,
        host: &str,
        port: u16,
        want_h2: bool,
    ) -> Self {
        let (tcp, head) = connect_tunnel(proxy, &format!("{host}:{port}")).await;
        assert!(
            head.starts_with("HTTP/1.1 200"),
            "CONNECT answered {head:?}"
        );
        let alpn: &[&[u8]] = if want_h2 {
            &[b"h2", b"http/1.1"]
        } else {
            &[b"http/1.1"]
        };
        let connector = tokio_rustls::TlsConnector::from(client_tls(ca.cert_der(), alpn));
        let name = rustls_pki_types::ServerName::try_from(host.to_string()).unwrap();
        let tls = connector
            .connect(name, tcp)
            .await
            .expect("TLS through the proxy");
        let h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
        let io = TokioIo::new(tls);
        if h2 {
            let (sender, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), io)
                .await
                .unwrap();
            tokio::spawn(conn);
            Self::H2(sender)
        } else {
            let (sender, conn) = hyper::client::conn::http1::handshake(io).await.unwrap();
            tokio::spawn(conn);
            Self::H1(sender)
        }
    }

    pub(crate) async fn send(&mut self, req: Request<TestBody>) -> Response<Incoming> {
        match self {
            Self::H1(s) => s.send_request(req).await.unwrap(),
            Self::H2(s) => s.send_request(req).await.unwrap(),
        }
    }

    pub(crate) fn is_h2(&self) -> bool {
        matches!(self, Self::H2(_))
    }
}

pub(crate) fn get(uri: &str) -> Request<TestBody> {
    Request::get(uri)
        .header("host", host_of(uri))
        .body(full(Bytes::new()))
        .unwrap()
}

pub(crate) fn post(uri: &str, content_type: &str, body: &'static [u8]) -> Request<TestBody> {
    Request::post(uri)
        .header("host", host_of(uri))
        .header("content-type", content_type)
        .body(full(body))
        .unwrap()
}

fn host_of(uri: &str) -> String {
    uri.parse::<http::Uri>()
        .unwrap()
        .authority()
        .unwrap()
        .to_string()
}

pub(crate) async fn body_bytes(response: Response<Incoming>) -> Bytes {
    response.into_body().collect().await.unwrap().to_bytes()
}

/// Runs curl with the proxy and CA; returns (stdout bytes, stderr text, success).
pub(crate) async fn curl(args: &[&str]) -> (Vec<u8>, String, bool) {
    let output = tokio::process::Command::new("curl")
        .args(["-sS", "--max-time", "20"])
        .args(args)
        .output()
        .await
        .expect("curl is installed");
    (
        output.stdout,
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.success(),
    )
}

/// `s` as a JSON string literal, for the JSON the tests write by hand (cases
/// for the clients, DevTools commands).
pub(crate) fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => out.push_str(&format!("\\u{:04x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
