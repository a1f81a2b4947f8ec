//! Upstream keep-alive: connections to an origin are reused by later
//! requests, from the same client connection or another, and a connection
//! the origin closed is never used again.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

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
    for i in 0..4 {
        let flow = h.flow_for(&format!("/n?i={i}")).await;
        assert!(flow.error.is_none(), "flow {i}: {:?}", flow.error);
        assert!(flow.timings.connect.is_some(), "flow {i} connected anew");
    }
}
