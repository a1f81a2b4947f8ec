//! The benchmark origin: HTTP/1.1 on one port and HTTPS (HTTP/1.1 by ALPN, so
//! every proxy talks to it the same way) on another, with a certificate from a
//! throwaway CA written to `<dir>/origin-ca.pem` for the proxies to trust. The
//! certificate (for `localhost` and 127.0.0.1, chain included) and its key are
//! written to `<dir>/origin.pem` and `<dir>/origin.key`, for another origin
//! (nginx, `ORIGIN=nginx` in common.sh) the proxies then trust alike.
//!
//! Routes: `/small` (a 100-byte JSON document) and `/big?n=BYTES` (generated
//! bytes, never stored).
//!
//! Usage: origin HTTP_PORT HTTPS_PORT DIR

use std::convert::Infallible;
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full, StreamBody, combinators::BoxBody};
use hyper::body::Frame;
use hyper::{Request, Response, service::service_fn};
use hyper_util::rt::TokioIo;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair, SanType};
use rustls_pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::TcpListener;

type Body = BoxBody<Bytes, Infallible>;

const SMALL: &[u8] = br#"{"id":42,"name":"Widget","price":9.99,"tags":["a","b"],"stock":true,"updated":"2026-11-21T08:00:00Z"}"#;

fn route(req: Request<hyper::body::Incoming>) -> Response<Body> {
    if req.uri().path() == "/big" {
        let n: u64 = req.uri().query().and_then(|q| q.strip_prefix("n=")).and_then(|n| n.parse().ok()).unwrap_or(1 << 20);
        let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
        let stream = futures_lite_unfold(n, chunk);
        return Response::builder()
            .header("content-type", "application/octet-stream")
            .header("content-length", n)
            .body(StreamBody::new(stream).boxed())
            .unwrap();
    }
    Response::builder().header("content-type", "application/json").body(Full::new(Bytes::from_static(SMALL)).boxed()).unwrap()
}

/// A stream of `total` bytes made of one shared chunk.
fn futures_lite_unfold(total: u64, chunk: Bytes) -> impl futures_core::Stream<Item = Result<Frame<Bytes>, Infallible>> + Send {
    struct Gen {
        left: u64,
        chunk: Bytes,
    }
    impl futures_core::Stream for Gen {
        type Item = Result<Frame<Bytes>, Infallible>;
        fn poll_next(mut self: std::pin::Pin<&mut Self>, _cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<Self::Item>> {
            if self.left == 0 {
                return std::task::Poll::Ready(None);
            }
            let n = self.left.min(self.chunk.len() as u64) as usize;
            self.left -= n as u64;
            std::task::Poll::Ready(Some(Ok(Frame::data(self.chunk.slice(..n)))))
        }
    }
    Gen { left: total, chunk }
}

fn tls_config(dir: &std::path::Path) -> Arc<rustls::ServerConfig> {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::default();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(rcgen::DnType::CommonName, "bench origin CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    std::fs::write(dir.join("origin-ca.pem"), ca_cert.pem()).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::default();
    params.subject_alt_names = vec![
        SanType::DnsName("localhost".try_into().unwrap()),
        SanType::IpAddress("127.0.0.1".parse().unwrap()),
    ];
    let cert = params.signed_by(&key, &issuer).unwrap();
    std::fs::write(dir.join("origin.pem"), cert.pem() + &ca_cert.pem()).unwrap();
    std::fs::write(dir.join("origin.key"), key.serialize_pem()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![cert.der().clone(), ca_cert.der().clone()], PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())))
        .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

async fn serve<IO: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static>(io: IO) {
    let service = service_fn(|req| async move { Ok::<_, Infallible>(route(req)) });
    let _ = hyper::server::conn::http1::Builder::new().serve_connection(io, service).await;
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (http_port, https_port, dir) = (&args[1], &args[2], std::path::PathBuf::from(&args[3]));
    let acceptor = tokio_rustls::TlsAcceptor::from(tls_config(&dir));
    let http = TcpListener::bind(format!("127.0.0.1:{http_port}")).await.unwrap();
    let https = TcpListener::bind(format!("127.0.0.1:{https_port}")).await.unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = https.accept().await else { continue };
            let _ = tcp.set_nodelay(true);
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                if let Ok(tls) = acceptor.accept(tcp).await {
                    serve(TokioIo::new(tls)).await;
                }
            });
        }
    });
    loop {
        let Ok((tcp, _)) = http.accept().await else { continue };
        let _ = tcp.set_nodelay(true);
        tokio::spawn(serve(TokioIo::new(tcp)));
    }
}
