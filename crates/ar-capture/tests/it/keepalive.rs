//! Upstream keep-alive: connections to an origin are reused by later
//! requests, from the same client connection or another, and a connection
//! the origin closed is never used again.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use ar_flow::Flow;
use bytes::Bytes;
use http::StatusCode;
use http_body_util::BodyExt as _;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

use crate::support::*;

/// A plain HTTP/1.1 origin answering `ok` to every request, counting the
/// connections it accepted; with `close_after_each`, it closes each
/// connection right after its first response (without saying so).
async fn counting_origin(close_after_each: bool) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&accepted);
    tokio::spawn(async move {
        while let Ok((mut tcp, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buf = [0u8; 4096];
                loop {
                    let Ok(n) = tcp.read(&mut buf).await else {
                        return;
                    };
                    if n == 0 {
                        return;
                    }
                    head.extend_from_slice(&buf[..n]);
                    while let Some(end) = head.windows(4).position(|w| w == b"\r\n\r\n") {
                        head.drain(..end + 4);
                        let response = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                        if tcp.write_all(response).await.is_err() || close_after_each {
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, accepted)
}

/// Sends `count` GETs for `http://keep.test:PORT/n?i=..` on one new client connection.
async fn get_on_one_connection(proxy: SocketAddr, port: u16, from: usize, count: usize) {
    let tcp = TcpStream::connect(proxy).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, http_body_util::Empty<Bytes>>(TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    for i in from..from + count {
        let request = http::Request::get(format!("http://keep.test:{port}/n?i={i}"))
            .header("host", format!("keep.test:{port}"))
            .body(http_body_util::Empty::new())
            .unwrap();
        let response = sender.send_request(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "request {i}");
        let body = response.into_body().collect().await.unwrap().to_bytes();
        assert_eq!(body, "ok", "request {i}");
        // Time for the proxy's connection to notice an origin that hung up.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn one_origin_connection_serves_every_sequential_request_of_every_client() {
    let (origin, accepted) = counting_origin(false).await;
    let port = origin.port();
    let mut h = Harness::start(|b| b.resolve("keep.test", port, origin.ip())).await;
    get_on_one_connection(h.addr(), port, 0, 3).await;
    get_on_one_connection(h.addr(), port, 3, 3).await;
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        1,
        "six sequential requests from two client connections share one origin connection"
    );
    let first = h.flow_for("/n?i=0").await;
    assert!(
        first.timings.connect.is_some(),
        "the first flow paid for connecting"
    );
    for i in 1..6 {
        let flow = h.flow_for(&format!("/n?i={i}")).await;
        assert!(flow.error.is_none(), "{:?}", flow.error);
        assert_eq!(flow.timings.connect, None, "flow {i} reused the connection");
        assert_eq!(
            flow.server_addr.as_deref(),
            Some(origin.to_string().as_str())
        );
    }
}

#[tokio::test]
async fn a_connection_the_origin_closed_is_not_reused() {
    let (origin, accepted) = counting_origin(true).await;
    let port = origin.port();
    let mut h = Harness::start(|b| b.resolve("keep.test", port, origin.ip())).await;
    get_on_one_connection(h.addr(), port, 0, 4).await;
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        4,
        "a new connection per request"
    );
    for (i, flow) in clean_flows(&mut h, "/n?i=", 0..4).await.iter().enumerate() {
        assert!(flow.timings.connect.is_some(), "flow {i} connected anew");
    }
}

/// An HTTP/2 TLS origin answering `ok`, counting the connections whose TLS
/// handshake it finished. Every connection after the first waits `stall`
/// before its handshake (a busy origin), so that requests which dialed
/// their own connections are still waiting when the first one is up.
async fn stalling_h2_origin(
    config: Arc<rustls::ServerConfig>,
    stall: Duration,
) -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let served = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&served);
    tokio::spawn(async move {
        let mut accepted = 0;
        while let Ok((tcp, _)) = listener.accept().await {
            accepted += 1;
            let wait = if accepted == 1 { Duration::ZERO } else { stall };
            let config = Arc::clone(&config);
            let counter = Arc::clone(&counter);
            tokio::spawn(async move {
                tokio::time::sleep(wait).await;
                let Ok(tls) = tokio_rustls::TlsAcceptor::from(config).accept(tcp).await else {
                    return;
                };
                counter.fetch_add(1, Ordering::SeqCst);
                let service = hyper::service::service_fn(|_req| async {
                    Ok::<_, std::convert::Infallible>(http::Response::new(
                        http_body_util::Full::new(Bytes::from_static(b"ok")),
                    ))
                });
                let _ =
                    hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
            });
        }
    });
    (addr, served)
}

#[tokio::test]
async fn a_burst_to_a_new_http2_origin_shares_one_connection() {
    let test_ca = TestCa::new();
    let config = test_ca.server_config(&["burst.test"], &[b"h2"]);
    let stall = Duration::from_secs(3);
    let (origin, served) = stalling_h2_origin(config, stall).await;
    let port = origin.port();
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("burst.test", port, origin.ip())
    })
    .await;
    let client = TunnelClient::open(h.addr(), &h.ca, "burst.test", port, true).await;
    let TunnelClient::H2(sender) = client else {
        panic!("the proxy offers h2 to clients");
    };
    // Six requests at once on the client's HTTP/2 connection: the proxy
    // knows nothing about the origin yet, so each of them dials.
    let started = tokio::time::Instant::now();
    let burst = (0..6).map(|i| {
        let mut sender = sender.clone();
        async move {
            let response = sender
                .send_request(get(&format!("https://burst.test:{port}/b?i={i}")))
                .await
                .unwrap();
            assert_eq!(response.status(), StatusCode::OK, "request {i}");
            assert_eq!(body_bytes(response).await, "ok", "request {i}");
        }
    });
    futures_util::future::join_all(burst).await;
    assert!(
        started.elapsed() < stall,
        "no request waited for a connection of its own"
    );
    assert_eq!(
        served.load(Ordering::SeqCst),
        1,
        "the whole burst went over the first HTTP/2 connection"
    );
    for (i, flow) in clean_flows(&mut h, "/b?i=", 0..6).await.iter().enumerate() {
        let status = flow.response.as_ref().map(|r| r.status);
        assert_eq!(status, Some(200), "flow {i}");
    }
}

/// The flows of `{prefix}{i}` for each `i` in `range`, in that order, each
/// checked to have ended without an error.
async fn clean_flows(h: &mut Harness, prefix: &str, range: std::ops::Range<usize>) -> Vec<Flow> {
    let suffixes: Vec<String> = range.map(|i| format!("{prefix}{i}")).collect();
    let flows = h.flows_for(&suffixes).await;
    for (suffix, flow) in suffixes.iter().zip(&flows) {
        assert!(flow.error.is_none(), "{suffix}: {:?}", flow.error);
    }
    flows
}
