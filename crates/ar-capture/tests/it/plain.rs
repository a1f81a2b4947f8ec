//! Plain HTTP through the proxy (absolute-form requests): a 1 GB stream,
//! loops, and requests that are not proxy requests.

use ar_flow::ErrorKind;
use bytes::Bytes;
use http::StatusCode;
use http_body_util::BodyExt as _;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

use crate::support::*;

/// Peak resident memory of this test process so far, in bytes (Linux).
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace()
        .nth(1)?
        .parse::<u64>()
        .ok()
        .map(|kb| kb * 1024)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_gigabyte_download_streams_through_with_flat_memory() {
    const TOTAL: u64 = 1 << 30;
    let origin = origin(None).await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| b.resolve("big.test", port, origin.addr.ip())).await;
    let before = peak_rss();

    let tcp = TcpStream::connect(h.addr()).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);
    let request = http::Request::get(format!("http://big.test:{port}/big?n={TOTAL}"))
        .header("host", format!("big.test:{port}"))
        .body(http_body_util::Empty::<Bytes>::new())
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut body = response.into_body();
    let mut received = 0u64;
    while let Some(frame) = body.frame().await {
        received += frame.unwrap().data_ref().map_or(0, |d| d.len() as u64);
    }
    assert_eq!(received, TOTAL, "the client got every byte");

    let flow = h.flow_for("/big?n=1073741824").await;
    let captured = flow.response.unwrap().body;
    assert!(captured.truncated, "the captured copy is capped");
    assert_eq!(captured.bytes.len(), ar_capture::DEFAULT_BODY_CAP);
    assert_eq!(captured.size, TOTAL);
    assert!(flow.error.is_none());
    if let (Some(before), Some(after)) = (before, peak_rss()) {
        let grown = after.saturating_sub(before);
        assert!(
            grown < 256 << 20,
            "peak memory grew by {} MiB while relaying 1 GiB",
            grown >> 20
        );
    }
}

/// An HTTP/1.1 connection to the proxy, for absolute-form requests.
async fn connect(h: &Harness) -> SendRequest<http_body_util::Full<Bytes>> {
    let tcp = TcpStream::connect(h.addr()).await.unwrap();
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);
    sender
}

#[tokio::test]
async fn absolute_form_requests_are_forwarded_and_captured() {
    let origin = origin(None).await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| b.resolve("plain.test", port, origin.addr.ip())).await;
    let mut sender = connect(&h).await;
    for i in 0..2 {
        // Two requests on one keep-alive connection to the proxy.
        let request = http::Request::post(format!("http://plain.test:{port}/echo?i={i}"))
            .header("host", format!("plain.test:{port}"))
            .header("content-type", "text/plain")
            .body(http_body_util::Full::new(Bytes::from(format!("body {i}"))))
            .unwrap();
        let response = sender.send_request(request).await.unwrap();
        assert_eq!(
            response.into_body().collect().await.unwrap().to_bytes(),
            format!("body {i}")
        );
        let flow = h.flow_for(&format!("/echo?i={i}")).await;
        assert_eq!(
            flow.request.url,
            format!("http://plain.test:{port}/echo?i={i}")
        );
        assert_eq!(flow.request.body.text(), Some(format!("body {i}").as_str()));
    }
}

#[tokio::test]
async fn a_replay_is_marked_in_the_archive_and_its_mark_never_reaches_the_origin() {
    let origin = origin(None).await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| b.resolve("plain.test", port, origin.addr.ip())).await;
    let mut sender = connect(&h).await;
    let request = http::Request::get(format!("http://plain.test:{port}/headers"))
        .header("host", format!("plain.test:{port}"))
        .header("x-edited", "yes")
        .header(ar_capture::REPLAY_HEADER, "1")
        .body(http_body_util::Full::new(Bytes::new()))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let seen = response.into_body().collect().await.unwrap().to_bytes();
    let seen = String::from_utf8_lossy(&seen);
    assert!(seen.contains("x-edited"), "{seen}");
    assert!(!seen.contains(ar_capture::REPLAY_HEADER), "{seen}");
    let flow = h.flow_for("/headers").await;
    assert_eq!(flow.client, ar_flow::Client::Replay);
    assert!(flow.request.headers.get("x-edited").is_some());
    assert!(
        flow.request
            .headers
            .get(ar_capture::REPLAY_HEADER)
            .is_none()
    );
}

#[tokio::test]
async fn requests_to_the_proxy_itself_are_refused() {
    let mut h = Harness::start(|b| b).await;
    let addr = h.addr();
    let (mut tcp, head) = connect_tunnel(addr, &addr.to_string()).await;
    assert!(head.starts_with("HTTP/1.1 502"), "{head}");
    assert!(read_rest(&mut tcp).await.contains("loop"));
    assert_eq!(
        h.flow_for("/").await.error.unwrap().kind,
        ErrorKind::Refused
    );

    let (stdout, _, _) = curl(&[
        "--proxy",
        &format!("http://{addr}"),
        &format!("http://localhost:{}/x", addr.port()),
    ])
    .await;
    assert!(String::from_utf8_lossy(&stdout).contains("loop"));
    assert_eq!(
        h.flow_for("/x").await.error.unwrap().kind,
        ErrorKind::Refused
    );
}

#[tokio::test]
async fn an_origin_form_request_gets_a_hint_instead_of_a_loop() {
    let h = Harness::start(|b| b).await;
    let (stdout, _, ok) = curl(&[&format!("http://{}/", h.addr())]).await;
    assert!(ok);
    assert!(String::from_utf8_lossy(&stdout).contains("capture proxy"));
}

#[tokio::test]
async fn a_sink_nobody_reads_never_stalls_traffic() {
    let origin = origin(None).await;
    let port = origin.addr.port();
    let dir = tempfile::tempdir().unwrap();
    let ca =
        std::sync::Arc::new(ar_capture::CertificateAuthority::load_or_create(dir.path()).unwrap());
    let (archive, _never_read) = tokio::sync::mpsc::channel(2);
    let (live, _also_never_read) = tokio::sync::mpsc::channel(1);
    let handle = ar_capture::Proxy::builder(ca)
        .archive_sink(archive)
        .live_sink(live)
        .resolve("stall.test", port, origin.addr.ip())
        .bind()
        .await
        .unwrap()
        .spawn();
    let tcp = TcpStream::connect(handle.local_addr()).await.unwrap();
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
        .await
        .unwrap();
    tokio::spawn(conn);
    for _ in 0..20 {
        let request = http::Request::get(format!("http://stall.test:{port}/hello"))
            .header("host", format!("stall.test:{port}"))
            .body(http_body_util::Empty::<Bytes>::new())
            .unwrap();
        let response = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            sender.send_request(request),
        )
        .await
        .expect("a full sink must not block requests")
        .unwrap();
        assert_eq!(
            response.into_body().collect().await.unwrap().to_bytes(),
            "hello"
        );
    }
    // Flows reach the sinks on the proxy's delivery tick; wait for the last ones to be counted.
    let mut stats = handle.stats();
    for _ in 0..200 {
        if stats.flows == 20 && stats.dropped_archive + 2 == 20 && stats.dropped_live + 1 == 20 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        stats = handle.stats();
    }
    assert_eq!(stats.flows, 20);
    assert_eq!(
        stats.dropped_archive, 18,
        "two fit, the rest were dropped and counted"
    );
    assert_eq!(stats.dropped_live, 19);
    assert_eq!(stats.connections, 1);
    handle.shutdown().await;
}

#[tokio::test]
async fn offline_proxies_dial_only_mapped_hosts_and_loopback() {
    let origin = origin(None).await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| {
        b.resolve("mapped.test", port, origin.addr.ip())
            .offline(true)
    })
    .await;
    let addr = h.addr();

    // A browser's background request to the real internet: refused without a DNS lookup.
    let (mut tcp, head) = connect_tunnel(addr, "accounts.example.com:443").await;
    assert!(head.starts_with("HTTP/1.1 502"), "{head}");
    assert!(
        read_rest(&mut tcp)
            .await
            .contains("not mapped with --resolve")
    );
    let refused = h.flow_for("accounts.example.com:443/").await;
    assert_eq!(refused.error.unwrap().kind, ErrorKind::Refused);

    // Mapped hosts and loopback addresses still work.
    let (stdout, _, _) = curl(&[
        "--proxy",
        &format!("http://{addr}"),
        &format!("http://mapped.test:{port}/echo"),
    ])
    .await;
    assert!(!String::from_utf8_lossy(&stdout).contains("not mapped"));
    assert!(h.flow_for("/echo").await.error.is_none());
    let (stdout, _, _) = curl(&[
        "--proxy",
        &format!("http://{addr}"),
        &format!("http://127.0.0.1:{port}/echo"),
    ])
    .await;
    assert!(!String::from_utf8_lossy(&stdout).contains("not mapped"));
}
