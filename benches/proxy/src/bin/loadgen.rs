//! A small keep-alive load client that can go through an HTTP proxy.
//!
//! Each of N connections sends requests one after another for S seconds
//! (HTTP/1.1 keep-alive) and records every request's latency. For `https`
//! URLs through a proxy it opens a CONNECT tunnel first, then TLS trusting
//! `--ca` (the proxy's CA, or the origin's when direct).
//!
//! Usage: loadgen URL [--proxy HOST:PORT] [--ca FILE] [-c N] [-s SECONDS]
//! Prints one line: `requests=.. errors=.. secs=.. rps=.. p50_us=.. p99_us=.. mb_per_s=..`

use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Empty};
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

struct Opts {
    url: hyper::Uri,
    proxy: Option<String>,
    ca: Option<String>,
    connections: usize,
    seconds: f64,
}

fn opts() -> Opts {
    let mut args = std::env::args().skip(1);
    let mut o = Opts { url: "http://127.0.0.1/".parse().unwrap(), proxy: None, ca: None, connections: 1, seconds: 3.0 };
    while let Some(a) = args.next() {
        match a.as_str() {
            "--proxy" => o.proxy = args.next(),
            "--ca" => o.ca = args.next(),
            "-c" => o.connections = args.next().unwrap().parse().unwrap(),
            "-s" => o.seconds = args.next().unwrap().parse().unwrap(),
            url => o.url = url.parse().unwrap(),
        }
    }
    o
}

fn tls(ca: &str) -> tokio_rustls::TlsConnector {
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
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
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

type Sender = hyper::client::conn::http1::SendRequest<Empty<Bytes>>;

async fn open(o: &Opts, tls: Option<&tokio_rustls::TlsConnector>) -> (Sender, bool) {
    let host = o.url.host().unwrap().to_string();
    let https = o.url.scheme_str() == Some("https");
    let port = o.url.port_u16().unwrap_or(if https { 443 } else { 80 });
    let target = format!("{host}:{port}");
    let mut tcp = TcpStream::connect(o.proxy.as_deref().unwrap_or(&target)).await.unwrap();
    tcp.set_nodelay(true).unwrap();
    if https && o.proxy.is_some() {
        tcp.write_all(format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n").as_bytes()).await.unwrap();
        let mut head = Vec::new();
        let mut b = [0u8; 1];
        while !head.ends_with(b"\r\n\r\n") {
            assert_eq!(tcp.read(&mut b).await.unwrap(), 1, "proxy closed during CONNECT");
            head.push(b[0]);
        }
        assert!(head.starts_with(b"HTTP/1.1 200") || head.starts_with(b"HTTP/1.0 200"), "{}", String::from_utf8_lossy(&head));
    }
    if https {
        let name = rustls_pki_types::ServerName::try_from(host).unwrap();
        let stream = tls.unwrap().connect(name, tcp).await.unwrap();
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.unwrap();
        tokio::spawn(conn);
        (sender, false)
    } else {
        let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp)).await.unwrap();
        tokio::spawn(conn);
        (sender, o.proxy.is_some()) // plain HTTP via a proxy uses absolute-form
    }
}

#[tokio::main]
async fn main() {
    let o = Arc::new(opts());
    let tls = o.ca.as_deref().map(tls).map(Arc::new);
    let deadline = Instant::now() + Duration::from_secs_f64(o.seconds);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..o.connections {
        let o = Arc::clone(&o);
        let tls = tls.clone();
        tasks.push(tokio::spawn(async move {
            let (mut sender, absolute) = open(&o, tls.as_deref()).await;
            let target = if absolute { o.url.to_string() } else { o.url.path_and_query().unwrap().to_string() };
            let authority = o.url.authority().unwrap().to_string();
            let (mut latencies, mut bytes, mut errors) = (Vec::new(), 0u64, 0u64);
            while Instant::now() < deadline {
                let req = Request::get(target.as_str()).header("host", authority.as_str()).body(Empty::new()).unwrap();
                let t0 = Instant::now();
                match sender.send_request(req).await {
                    Ok(resp) if resp.status().is_success() => match resp.into_body().collect().await {
                        Ok(body) => {
                            bytes += body.to_bytes().len() as u64;
                            latencies.push(t0.elapsed().as_micros() as u32);
                        }
                        Err(_) => errors += 1,
                    },
                    _ => {
                        errors += 1;
                        let reopened = open(&o, tls.as_deref()).await;
                        sender = reopened.0;
                    }
                }
            }
            (latencies, bytes, errors)
        }));
    }
    let (mut all, mut bytes, mut errors) = (Vec::new(), 0, 0);
    for task in tasks {
        let (l, b, e) = task.await.unwrap();
        all.extend(l);
        bytes += b;
        errors += e;
    }
    let secs = started.elapsed().as_secs_f64();
    all.sort_unstable();
    let pct = |p: f64| all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1))).copied().unwrap_or(0);
    println!(
        "requests={} errors={} secs={:.2} rps={:.0} p50_us={} p99_us={} mb_per_s={:.1}",
        all.len(),
        errors,
        secs,
        all.len() as f64 / secs,
        pct(0.50),
        pct(0.99),
        bytes as f64 / secs / 1e6
    );
}
