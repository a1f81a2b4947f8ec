//! curl, a real-world client, through the proxy with `--cacert` (our CA)
//! to TLS origins that speak HTTP/2 or only HTTP/1.1.

use ar_flow::{ErrorKind, HttpVersion};

use crate::support::*;

async fn tls_origin(alpn: &[&[u8]], host: &str) -> (TestCa, Origin) {
    let test_ca = TestCa::new();
    let origin = origin(Some(test_ca.server_config(&[host], alpn))).await;
    (test_ca, origin)
}

#[tokio::test]
async fn curl_over_http2_and_http1_gets_the_origin_response() {
    let (test_ca, origin) = tls_origin(&[b"h2", b"http/1.1"], "shop.test").await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("shop.test", port, origin.addr.ip())
    })
    .await;
    let proxy = format!("http://{}", h.addr());
    let ca = h.ca_pem.to_str().unwrap().to_string();
    for (flag, version) in [
        ("--http2", HttpVersion::Http2),
        ("--http1.1", HttpVersion::Http11),
    ] {
        let url = format!("https://shop.test:{port}/hello");
        let (stdout, stderr, ok) = curl(&[flag, "--proxy", &proxy, "--cacert", &ca, &url]).await;
        assert!(ok, "{flag}: {stderr}");
        assert_eq!(stdout, b"hello");
        let flow = h.flow_for("/hello").await;
        assert_eq!(flow.request.http_version, version, "{flag}");
        assert!(
            flow.request
                .headers
                .get("user-agent")
                .unwrap()
                .starts_with("curl/")
        );
    }
    let url = format!("https://shop.test:{port}/echo");
    let (stdout, stderr, ok) = curl(&[
        "--proxy",
        &proxy,
        "--cacert",
        &ca,
        "-H",
        "content-type: application/json",
        "--data",
        r#"{"sku":"A-1"}"#,
        &url,
    ])
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(stdout, br#"{"sku":"A-1"}"#);
    let flow = h.flow_for("/echo").await;
    assert_eq!(flow.request.method, "POST");
    assert_eq!(flow.request.body.text(), Some(r#"{"sku":"A-1"}"#));
}

#[tokio::test]
async fn curl_gets_compressed_bytes_exactly_as_sent() {
    let (test_ca, origin) = tls_origin(&[b"http/1.1"], "shop.test").await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("shop.test", port, origin.addr.ip())
    })
    .await;
    let url = format!("https://shop.test:{port}/gzip");
    let (stdout, stderr, ok) = curl(&[
        "--proxy",
        &format!("http://{}", h.addr()),
        "--cacert",
        h.ca_pem.to_str().unwrap(),
        &url,
    ])
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(
        stdout,
        gzip(&json_doc()),
        "no --compressed: curl saves the gzip bytes untouched"
    );
    assert_eq!(
        h.flow_for("/gzip").await.response.unwrap().body.bytes,
        json_doc()
    );
}

#[tokio::test]
async fn curl_sees_why_an_origin_failed() {
    let (_rogue, origin) = tls_origin(&[b"http/1.1"], "bad.test").await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| b.resolve("bad.test", port, origin.addr.ip())).await;
    let url = format!("https://bad.test:{port}/hello");
    let (stdout, _, ok) = curl(&[
        "--proxy",
        &format!("http://{}", h.addr()),
        "--cacert",
        h.ca_pem.to_str().unwrap(),
        "-i",
        &url,
    ])
    .await;
    assert!(ok);
    let text = String::from_utf8_lossy(&stdout);
    // `-i` shows the proxy's CONNECT answer first, then the origin's (here: our 502).
    assert!(
        text.contains("HTTP/2 502") || text.contains("HTTP/1.1 502"),
        "{text}"
    );
    assert!(text.contains("certificate"), "{text}");
    assert_eq!(
        h.flow_for("/hello").await.error.unwrap().kind,
        ErrorKind::Tls
    );
}

#[tokio::test]
async fn curl_expect_100_continue_upload_is_relayed() {
    let (test_ca, origin) = tls_origin(&[b"http/1.1"], "shop.test").await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("shop.test", port, origin.addr.ip())
    })
    .await;
    let body = "x".repeat(300_000);
    let file = h._dir.path().join("upload.txt");
    std::fs::write(&file, &body).unwrap();
    let url = format!("https://shop.test:{port}/echo");
    let data = format!("@{}", file.display());
    let (stdout, stderr, ok) = curl(&[
        "--http1.1",
        "--proxy",
        &format!("http://{}", h.addr()),
        "--cacert",
        h.ca_pem.to_str().unwrap(),
        "-H",
        "Expect: 100-continue",
        "-H",
        "content-type: text/plain",
        "--data-binary",
        &data,
        &url,
    ])
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(stdout.len(), body.len());
    let flow = h.flow_for("/echo").await;
    assert_eq!(flow.request.headers.get("expect"), Some("100-continue"));
    assert_eq!(flow.request.body.size, body.len() as u64);
    assert_eq!(flow.response.unwrap().body.size, body.len() as u64);
}
