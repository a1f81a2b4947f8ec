//! A small keep-alive load client that can go through an HTTP proxy.
//!
//! Each of N connections sends requests one after another for S seconds
//! (keep-alive) and records every request's latency. For `https` URLs through
//! a proxy it opens a CONNECT tunnel first, then TLS trusting `--ca` (the
//! proxy's CA, or the origin's when direct). Inside TLS it speaks HTTP/1.1
//! (ALPN `http/1.1`), or HTTP/2 with `--h2` (ALPN `h2` only, one request at a
//! time per connection, as HTTP/1.1 does, so the two compare request for request).
//!
//! A failed request, a non-2xx answer or a connection that cannot be opened
//! counts as an error, and the connection is opened again. A request the
//! connection dropped before the server took it (hyper: canceled; an HTTP/2
//! GOAWAY racing with it) is sent again on a new connection and counted under
//! `retried`. A server's `Connection: close` or GOAWAY ends a connection
//! without an error.
//!
//! Usage: loadgen URL [--proxy HOST:PORT] [--ca FILE] [--h2] [-c N] [-s SECONDS]
//! Prints one line: `requests=.. errors=.. retried=.. secs=.. rps=.. p50_us=.. p99_us=.. mb_per_s=.. protocol=..`,
//! and with errors ` why=` and their kinds with counts (`status-400:12,connect:1`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Empty};
use hyper::Request;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

struct Opts {
    url: hyper::Uri,
    proxy: Option<String>,
    ca: Option<String>,
    h2: bool,
    connections: usize,
    seconds: f64,
}

fn opts() -> Opts {
    let mut args = std::env::args().skip(1);
    let mut o = Opts { url: "http://127.0.0.1/".parse().unwrap(), proxy: None, ca: None, h2: false, connections: 1, seconds: 3.0 };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--proxy" => o.proxy = args.next(),
            "--ca" => o.ca = args.next(),
            "--h2" => o.h2 = true,
            "-c" => o.connections = args.next().unwrap().parse().unwrap(),
            "-s" => o.seconds = args.next().unwrap().parse().unwrap(),
            url => o.url = url.parse().unwrap(),
        }
    }
    o
}

fn tls(ca: &str, h2: bool) -> tokio_rustls::TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    let pem = std::fs::read_to_string(ca).unwrap();
    for block in pem.split("-----BEGIN CERTIFICATE-----").skip(1) {
        let b64: String = block.split("-----END").next().unwrap().chars().filter(|c| !c.is_whitespace()).collect();
        roots.add(rustls_pki_types::CertificateDer::from(base64_decode(&b64))).unwrap();
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![if h2 { b"h2".to_vec() } else { b"http/1.1".to_vec() }];
    tokio_rustls::TlsConnector::from(Arc::new(config))
}

fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes().filter(|&c| c != b'=') {
        let v = ALPHABET.iter().position(|&a| a == c).unwrap() as u32;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    out
}

enum Sender {
    H1(hyper::client::conn::http1::SendRequest<Empty<Bytes>>),
    H2(hyper::client::conn::http2::SendRequest<Empty<Bytes>>),
}

impl Sender {
    /// Waits until the connection can take a request; an error means the server closed it (an
    /// HTTP/1.1 `Connection: close`, an HTTP/2 GOAWAY): a new connection is due, not an error.
    async fn ready(&mut self) -> hyper::Result<()> {
        match self {
            Sender::H1(s) => s.ready().await,
            Sender::H2(s) => s.ready().await,
        }
    }

    async fn send(&mut self, req: Request<Empty<Bytes>>) -> hyper::Result<hyper::Response<hyper::body::Incoming>> {
        match self {
            Sender::H1(s) => s.send_request(req).await,
            Sender::H2(s) => s.send_request(req).await,
        }
    }
}

/// One connection, ready for requests: its sender and the request-target to use.
struct Conn {
    sender: Sender,
    /// absolute-form (plain HTTP through a proxy, and every HTTP/2 request: `:scheme` and `:authority`)
    absolute: bool,
    h2: bool,
}

/// A failure's kind, for the error counts; the first failure's detail goes to stderr.
fn fail(kind: &'static str, detail: impl std::fmt::Display) -> &'static str {
    static SHOWN: std::sync::Once = std::sync::Once::new();
    SHOWN.call_once(|| eprintln!("loadgen: first {kind} failure: {detail}"));
    kind
}

async fn open(o: &Opts, tls: Option<&tokio_rustls::TlsConnector>) -> Result<Conn, &'static str> {
    let host = o.url.host().unwrap().to_string();
    let https = o.url.scheme_str() == Some("https");
    let port = o.url.port_u16().unwrap_or(if https { 443 } else { 80 });
    let target = format!("{host}:{port}");
    let mut tcp = TcpStream::connect(o.proxy.as_deref().unwrap_or(&target)).await.map_err(|e| fail("connect", e))?;
    tcp.set_nodelay(true).unwrap();
    if https && o.proxy.is_some() {
        tcp.write_all(format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n").as_bytes()).await.map_err(|e| fail("connect", e))?;
        let mut head = Vec::new();
        let mut b = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            match tcp.read(&mut b).await {
                Ok(1) => head.push(b[0]),
                other => return Err(fail("tunnel", format!("proxy closed during CONNECT: {other:?}"))),
            }
        }
        if !(head.starts_with(b"HTTP/1.1 200") || head.starts_with(b"HTTP/1.0 200")) {
            return Err(fail("tunnel", String::from_utf8_lossy(&head)));
        }
    }
    if !https {
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp)).await.map_err(|e| fail("handshake", e))?;
        tokio::spawn(conn);
        // plain HTTP via a proxy uses absolute-form
        return Ok(Conn { sender: Sender::H1(sender), absolute: o.proxy.is_some(), h2: false });
    }
    let name = rustls_pki_types::ServerName::try_from(host).unwrap();
    let stream = tls.expect("https needs --ca").connect(name, tcp).await.map_err(|e| fail("tls", e))?;
    let alpn = stream.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
    if o.h2 {
        if alpn.as_deref() != Some(b"h2") {
            return Err(fail("alpn", format!("asked for h2, the server chose {:?}", alpn.map(|a| String::from_utf8_lossy(&a).into_owned()))));
        }
        let (sender, conn) = hyper::client::conn::http2::handshake(TokioExecutor::new(), TokioIo::new(stream)).await.map_err(|e| fail("handshake", e))?;
        tokio::spawn(conn);
        Ok(Conn { sender: Sender::H2(sender), absolute: true, h2: true })
    } else {
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(|e| fail("handshake", e))?;
        tokio::spawn(conn);
        Ok(Conn { sender: Sender::H1(sender), absolute: false, h2: false })
    }
}

/// Opens a connection, counting each failure and trying again (after a pause) until the deadline.
async fn open_counted(o: &Opts, tls: Option<&tokio_rustls::TlsConnector>, deadline: Instant, errors: &mut BTreeMap<String, u64>) -> Option<Conn> {
    while Instant::now() < deadline {
        match open(o, tls).await {
            Ok(conn) => return Some(conn),
            Err(kind) => {
                *errors.entry(kind.to_string()).or_default() += 1;
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
    None
}

#[tokio::main]
async fn main() {
    let o = Arc::new(opts());
    let tls = o.ca.as_deref().map(|ca| tls(ca, o.h2)).map(Arc::new);
    let deadline = Instant::now() + Duration::from_secs_f64(o.seconds);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..o.connections {
        let o = Arc::clone(&o);
        let tls = tls.clone();
        tasks.push(tokio::spawn(async move {
            let (mut latencies, mut bytes, mut errors, mut retried) = (Vec::new(), 0u64, BTreeMap::<String, u64>::new(), 0u64);
            let authority = o.url.authority().unwrap().to_string();
            let mut conn = open_counted(&o, tls.as_deref(), deadline, &mut errors).await;
            while let Some(c) = conn.as_mut() {
                if Instant::now() >= deadline {
                    break;
                }
                let target = if c.absolute { o.url.to_string() } else { o.url.path_and_query().unwrap().to_string() };
                let mut req = Request::get(target.as_str());
                if c.h2 {
                    req = req.version(hyper::Version::HTTP_2); // :authority from the URI, no Host header (as browsers send it)
                } else {
                    req = req.header("host", authority.as_str());
                }
                if c.sender.ready().await.is_err() {
                    conn = open_counted(&o, tls.as_deref(), deadline, &mut errors).await;
                    continue;
                }
                let t0 = Instant::now();
                let failed = match c.sender.send(req.body(Empty::new()).unwrap()).await {
                    Ok(resp) if resp.status().is_success() => {
                        let closing = resp.headers().get("connection").is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"close"));
                        match resp.into_body().collect().await {
                            Ok(body) => {
                                bytes += body.to_bytes().len() as u64;
                                latencies.push(t0.elapsed().as_micros() as u32);
                                if closing {
                                    // the server's last answer on this connection (nginx: keepalive_requests)
                                    conn = open_counted(&o, tls.as_deref(), deadline, &mut errors).await;
                                }
                                None
                            }
                            Err(e) => Some(fail("body", e).to_string()),
                        }
                    }
                    Ok(resp) => Some(format!("status-{}", resp.status().as_u16())),
                    // The connection closed before the server took the request: an HTTP/2 GOAWAY
                    // (nginx, keepalive_requests) raced with it. Sent again on a new connection,
                    // as clients do (RFC 9113 6.8), and counted apart.
                    Err(e) if e.is_canceled() => {
                        retried += 1;
                        conn = open_counted(&o, tls.as_deref(), deadline, &mut errors).await;
                        continue;
                    }
                    Err(e) => Some(fail("request", e).to_string()),
                };
                if let Some(kind) = failed {
                    *errors.entry(kind).or_default() += 1;
                    conn = open_counted(&o, tls.as_deref(), deadline, &mut errors).await;
                }
            }
            (latencies, bytes, errors, retried)
        }));
    }
    let (mut all, mut bytes, mut errors, mut retried) = (Vec::new(), 0, BTreeMap::<String, u64>::new(), 0);
    for task in tasks {
        let (l, b, e, r) = task.await.unwrap();
        retried += r;
        all.extend(l);
        bytes += b;
        for (kind, n) in e {
            *errors.entry(kind).or_default() += n;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    all.sort_unstable();
    let pct = |p: f64| all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1))).copied().unwrap_or(0);
    let why: Vec<String> = errors.iter().map(|(kind, n)| format!("{kind}:{n}")).collect();
    println!(
        "requests={} errors={} retried={} secs={:.2} rps={:.0} p50_us={} p99_us={} mb_per_s={:.1} protocol={}{}",
        all.len(),
        errors.values().sum::<u64>(),
        retried,
        secs,
        all.len() as f64 / secs,
        pct(0.50),
        pct(0.99),
        bytes as f64 / secs / 1e6,
        if o.url.scheme_str() != Some("https") { "http/1.1" } else if o.h2 { "h2-in-tls" } else { "http/1.1-in-tls" },
        if why.is_empty() { String::new() } else { format!(" why={}", why.join(",")) }
    );
}
