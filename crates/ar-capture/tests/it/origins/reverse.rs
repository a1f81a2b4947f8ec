//! Reverse mode in front of nginx: curl talks plain HTTP to the proxy, as a
//! client that cannot use a proxy would, and sees what it sees going to
//! nginx directly; the archive holds the origin's URLs.

use std::net::Ipv4Addr;

use ar_capture::{ProxyBuilder, ReverseRoutes};

use super::servers::{Kind, Server};
use crate::support::*;

/// The proxy, offline, trusting the origin CA, sending `shop.test` on each
/// of `ports` to loopback, and reverse-proxying `routes`.
async fn reverse_to(ca: &TestCa, ports: &[u16], routes: &[String], rewrite_urls: bool) -> Harness {
    let root = ca.cert.clone();
    let ports = ports.to_vec();
    let routes = routes.iter().map(|r| r.parse().unwrap()).collect();
    let routes = ReverseRoutes::new(routes)
        .unwrap()
        .rewrite_urls(rewrite_urls);
    Harness::start(move |b: ProxyBuilder| {
        ports
            .iter()
            .fold(b.upstream_root(root).offline(true), |b, &port| {
                b.resolve("shop.test", port, Ipv4Addr::LOCALHOST.into())
            })
            .reverse(routes)
    })
    .await
}

/// What curl gets for `path` from `server` straight, as a client of the origin.
async fn direct(ca_pem: &std::path::Path, server: &Server, path: &str) -> Vec<u8> {
    let resolve = format!("shop.test:{}:127.0.0.1", server.port);
    let args = [
        "--fail",
        "--compressed",
        "--resolve",
        &resolve,
        "--cacert",
        ca_pem.to_str().unwrap(),
        &server.url(path),
    ];
    let (body, stderr, ok) = curl(&args).await;
    assert!(ok, "direct {path}: {stderr}");
    body
}

#[tokio::test]
async fn plain_requests_reach_each_routed_origin_as_its_own_clients_do() {
    let ca = TestCa::new();
    let h2 = Server::start(&ca, Kind::Nginx { http2: true }, None);
    let clear = Server::start(&ca, Kind::NginxPlain, None);
    let routes = [
        format!("https://shop.test:{}", h2.port),
        format!("/static=http://shop.test:{}", clear.port),
    ];
    let mut h = reverse_to(&ca, &[h2.port, clear.port], &routes, false).await;
    let origin_ca = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(origin_ca.path(), ca.pem()).unwrap();
    let base = format!("http://{}", h.addr());

    // The HTTP/2 origin over TLS sees its own name, as from a direct client.
    let (body, stderr, ok) = curl(&["--fail", &format!("{base}/host")]).await;
    assert!(ok, "{stderr}");
    assert_eq!(body, direct(origin_ca.path(), &h2, "/host").await);
    assert_eq!(
        String::from_utf8_lossy(&body),
        format!("shop.test:{}", h2.port)
    );
    // The prefix routes to the origin in the clear; gzip comes through as sent.
    let doc = format!("{base}/static/doc.json");
    let (body, stderr, ok) = curl(&["--fail", "--compressed", &doc]).await;
    assert!(ok, "{stderr}");
    assert_eq!(
        body,
        direct(origin_ca.path(), &clear, "/static/doc.json").await
    );
    assert_eq!(body, json_doc());
    // A body goes up.
    let post = [
        "--fail",
        "--data",
        r#"{"sku":"A-1"}"#,
        &format!("{base}/hello"),
    ];
    let (body, stderr, ok) = curl(&post).await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&body), "hello");

    // Archived under the origins' own URLs, with the `Host` they got.
    let host = h.flow_for("/host").await;
    assert_eq!(
        host.request.url,
        format!("https://shop.test:{}/host", h2.port)
    );
    assert_eq!(
        host.request.headers.get("host"),
        Some(format!("shop.test:{}", h2.port).as_str())
    );
    assert_eq!(host.response.as_ref().map(|r| r.status), Some(200));
    let doc = h.flow_for("/static/doc.json").await;
    assert_eq!(
        doc.request.url,
        format!("http://shop.test:{}/static/doc.json", clear.port)
    );
    assert_eq!(doc.response.unwrap().body.bytes, json_doc());
    let hello = h.flow_for("/hello").await;
    assert_eq!(hello.request.method, "POST");
    assert_eq!(hello.request.body.text(), Some(r#"{"sku":"A-1"}"#));
}

#[tokio::test]
async fn a_client_of_http2_with_prior_knowledge_is_served_too() {
    let ca = TestCa::new();
    let server = Server::start(&ca, Kind::Nginx { http2: false }, None);
    let route = [format!("https://shop.test:{}", server.port)];
    let mut h = reverse_to(&ca, &[server.port], &route, false).await;
    let url = format!("http://{}/host", h.addr());
    let args = [
        "--fail",
        "--http2-prior-knowledge",
        "-w",
        " %{http_version}",
        &url,
    ];
    let (body, stderr, ok) = curl(&args).await;
    assert!(ok, "{stderr}");
    // The origin, on HTTP/1.1, got its own name as `Host`; curl spoke HTTP/2.
    assert_eq!(
        String::from_utf8_lossy(&body),
        format!("shop.test:{} 2", server.port)
    );
    let flow = h.flow_for("/host").await;
    assert_eq!(flow.request.url, server.url("/host"));
    assert_eq!(flow.request.http_version, ar_flow::HttpVersion::Http2);
    assert_eq!(flow.status(), Some(200));
}

#[tokio::test]
async fn rewritten_redirects_keep_the_client_on_the_proxy() {
    let ca = TestCa::new();
    let server = Server::start(&ca, Kind::Nginx { http2: false }, None);
    let origin = format!("https://shop.test:{}", server.port);
    let route = [origin.clone()];

    // Without --rewrite-urls the client is sent to the origin itself.
    let h = reverse_to(&ca, &[server.port], &route, false).await;
    let head = ["--head", &format!("http://{}/found", h.addr())];
    let (answer, stderr, ok) = curl(&head).await;
    assert!(ok, "{stderr}");
    let answer = String::from_utf8_lossy(&answer).to_lowercase();
    assert!(
        answer.contains(&format!("location: {origin}/hello")),
        "{answer}"
    );

    let mut h = reverse_to(&ca, &[server.port], &route, true).await;
    let base = format!("http://{}", h.addr());
    let (answer, stderr, ok) = curl(&["--head", &format!("{base}/found")]).await;
    assert!(ok, "{stderr}");
    let answer = String::from_utf8_lossy(&answer).to_lowercase();
    assert!(answer.starts_with("http/1.1 302"), "{answer}");
    assert!(
        answer.contains(&format!("location: {base}/hello")),
        "{answer}"
    );
    // curl follows it to the proxy, which has no CA to be trusted for.
    let (body, stderr, ok) = curl(&["--fail", "--location", &format!("{base}/moved")]).await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&body), "hello");
    // And so are links in a (gzipped) JSON body, the client gets it decoded.
    let (body, stderr, ok) = curl(&["--fail", "--compressed", &format!("{base}/links")]).await;
    assert!(ok, "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&body),
        format!(r#"{{"next": "{base}/hello", "elsewhere": "https://elsewhere.test/hello"}}"#)
    );
    // The archive keeps what the origin sent.
    let suffixes = ["/found", "/hello", "/links"].map(String::from);
    let [found, followed, links] = <[_; 3]>::try_from(h.flows_for(&suffixes).await).unwrap();
    let response = found.response.unwrap();
    assert_eq!(response.status, 302);
    assert_eq!(
        response.headers.get("location"),
        Some(format!("{origin}/hello").as_str())
    );
    assert_eq!(followed.request.url, format!("{origin}/hello"));
    let response = links.response.unwrap();
    assert_eq!(response.headers.get("content-encoding"), Some("gzip"));
    let next = format!("\"next\": \"{origin}/hello\"");
    assert!(
        (response.body.text()).is_some_and(|t| t.contains(&next)),
        "{:?}",
        response.body.text()
    );
}

#[tokio::test]
async fn an_origin_that_does_not_answer_is_a_502_naming_it() {
    let ca = TestCa::new();
    let closed = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let route = [format!("https://shop.test:{port}")];
    let mut h = reverse_to(&ca, &[port], &route, false).await;
    let url = format!("http://{}/v1/users", h.addr());
    let (body, stderr, ok) = curl(&["--include", &url]).await;
    assert!(ok, "{stderr}");
    let answer = String::from_utf8_lossy(&body);
    assert!(answer.starts_with("HTTP/1.1 502"), "{answer}");
    assert!(answer.contains(&format!("shop.test:{port}")), "{answer}");
    assert!(answer.contains("x-ar-proxy-error: connect"), "{answer}");
    let flow = h.flow_for("/v1/users").await;
    assert_eq!(
        flow.request.url,
        format!("https://shop.test:{port}/v1/users")
    );
    assert!(flow.error.is_some());
}
