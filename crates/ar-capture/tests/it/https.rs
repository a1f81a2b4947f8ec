//! A Rust client (hyper + tokio-rustls through CONNECT) against real TLS
//! origins: HTTP/2 and HTTP/1.1, bodies, compression, streams, WebSocket,
//! and every way an exchange can fail.

use std::time::Duration;

use ar_flow::{Direction, ErrorKind, HttpVersion, WsOpcode};
use futures_util::{SinkExt as _, StreamExt as _};
use http::StatusCode;
use http_body_util::BodyExt as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpListener;

use crate::support::*;

const H2_AND_H1: &[&[u8]] = &[b"h2", b"http/1.1"];
const H1_ONLY: &[&[u8]] = &[b"http/1.1"];

async fn setup(alpn: &[&[u8]]) -> (Harness, Origin, u16) {
    let test_ca = TestCa::new();
    let origin = origin(Some(test_ca.server_config(&["shop.test"], alpn))).await;
    let port = origin.addr.port();
    let harness = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("shop.test", port, origin.addr.ip())
    })
    .await;
    (harness, origin, port)
}

#[tokio::test]
async fn http2_client_to_http2_origin_get_and_post_are_captured() {
    let (mut h, _origin, port) = setup(H2_AND_H1).await;
    let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, true).await;
    assert!(client.is_h2(), "the proxy offers h2 to clients");

    let response = client
        .send(get(&format!("https://shop.test:{port}/hello")))
        .await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()["x-origin-version"],
        "HTTP/2.0",
        "the origin was reached over h2"
    );
    assert_eq!(body_bytes(response).await, "hello");
    let flow = h.flow_for("/hello").await;
    assert_eq!(flow.request.method, "GET");
    assert_eq!(flow.request.url, format!("https://shop.test:{port}/hello"));
    assert_eq!(flow.request.http_version, HttpVersion::Http2);
    let response = flow.response.unwrap();
    assert_eq!(
        (response.status, response.http_version),
        (200, HttpVersion::Http2)
    );
    assert_eq!(response.body.text(), Some("hello"));
    assert_eq!(
        flow.server_addr.as_deref(),
        Some(format!("127.0.0.1:{port}").as_str())
    );
    assert!(flow.error.is_none());

    let response = client
        .send(post(
            &format!("https://shop.test:{port}/echo"),
            "application/json",
            br#"{"qty":2}"#,
        ))
        .await;
    assert_eq!(body_bytes(response).await, r#"{"qty":2}"#);
    let flow = h.flow_for("/echo").await;
    assert_eq!(flow.request.method, "POST");
    assert_eq!(flow.request.body.text(), Some(r#"{"qty":2}"#));
    assert_eq!(
        flow.request.body.media_type().as_deref(),
        Some("application/json")
    );
    assert_eq!(flow.response.unwrap().body.text(), Some(r#"{"qty":2}"#));
}

#[tokio::test]
async fn http2_to_the_client_whatever_the_origin_speaks() {
    let (mut h, _origin, port) = setup(H1_ONLY).await;
    let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, true).await;
    assert!(client.is_h2());
    let response = client
        .send(get(&format!("https://shop.test:{port}/hello")))
        .await;
    assert_eq!(response.headers()["x-origin-version"], "HTTP/1.1");
    assert_eq!(body_bytes(response).await, "hello");
    let flow = h.flow_for("/hello").await;
    assert_eq!(flow.response.unwrap().http_version, HttpVersion::Http11);

    // And an HTTP/1.1 client on the same proxy, keep-alive over one tunnel.
    let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, false).await;
    assert!(!client.is_h2());
    for _ in 0..3 {
        let response = client
            .send(get(&format!("https://shop.test:{port}/hello")))
            .await;
        assert_eq!(body_bytes(response).await, "hello");
        assert_eq!(
            h.flow_for("/hello").await.request.http_version,
            HttpVersion::Http11
        );
    }
}

#[tokio::test]
async fn compressed_bodies_are_decoded_in_the_capture_and_untouched_for_the_client() {
    let (mut h, _origin, port) = setup(H2_AND_H1).await;
    let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, true).await;
    for (path, encode, name) in [
        ("/gzip", gzip as fn(&[u8]) -> Vec<u8>, "gzip"),
        ("/br", brotli, "br"),
    ] {
        let response = client
            .send(get(&format!("https://shop.test:{port}{path}")))
            .await;
        assert_eq!(response.headers()["content-encoding"], name);
        let wire = body_bytes(response).await;
        assert_eq!(
            wire.as_ref(),
            encode(&json_doc()).as_slice(),
            "{name}: the client gets the encoded bytes as sent"
        );
        let body = h.flow_for(path).await.response.unwrap().body;
        assert_eq!(body.encoding.as_deref(), Some(name));
        assert_eq!(
            body.bytes,
            json_doc(),
            "{name}: the capture holds the decoded JSON"
        );
        assert_eq!(body.size, json_doc().len() as u64);
        assert_eq!(body.wire_size, Some(wire.len() as u64));
        assert!(!body.truncated);
    }
}

#[tokio::test]
async fn sse_events_reach_the_client_before_the_stream_ends() {
    let (mut h, origin, port) = setup(H2_AND_H1).await;
    let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, true).await;
    let response = client
        .send(get(&format!("https://shop.test:{port}/sse")))
        .await;
    let mut body = response.into_body();
    let first = tokio::time::timeout(Duration::from_secs(10), body.frame())
        .await
        .expect("the first event must arrive while the origin holds the stream open")
        .unwrap()
        .unwrap();
    assert_eq!(first.data_ref().unwrap().as_ref(), b"data: first\n\n");
    origin.state.release_sse.notify_one();
    let rest = body.collect().await.unwrap().to_bytes();
    assert_eq!(rest.as_ref(), b"data: second\n\n");
    let flow = h.flow_for("/sse").await;
    assert_eq!(
        flow.response.unwrap().body.text(),
        Some("data: first\n\ndata: second\n\n")
    );
}

#[tokio::test]
async fn head_and_no_content_responses_pass_through() {
    let (mut h, _origin, port) = setup(H1_ONLY).await;
    let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, false).await;
    let request = http::Request::head(format!("https://shop.test:{port}/gzip"))
        .header("host", format!("shop.test:{port}"))
        .body(
            http_body_util::Empty::new()
                .map_err(|never| match never {})
                .boxed(),
        )
        .unwrap();
    let response = client.send(request).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(body_bytes(response).await.is_empty());
    let flow = h.flow_for("/gzip").await;
    assert_eq!(flow.request.method, "HEAD");
    assert!(flow.error.is_none());
    let response = client
        .send(get(&format!("https://shop.test:{port}/no-content")))
        .await;
    assert_eq!(response.status(), StatusCode::NO_CONTENT);
    let flow = h.flow_for("/no-content").await;
    assert_eq!(flow.status(), Some(204));
    assert!(flow.error.is_none());
}

/// A WebSocket origin for `ws.test` over TLS that echoes what its one
/// client sends until it closes.
async fn websocket_echo_origin(test_ca: &TestCa) -> std::net::SocketAddr {
    let config = test_ca.server_config(&["ws.test"], H1_ONLY);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let tls = tokio_rustls::TlsAcceptor::from(config)
            .accept(tcp)
            .await
            .unwrap();
        let mut ws = tokio_tungstenite::accept_async(tls).await.unwrap();
        while let Some(Ok(message)) = ws.next().await {
            if message.is_close() {
                break;
            }
            ws.send(message).await.unwrap();
        }
    });
    addr
}

#[tokio::test]
async fn websocket_echo_is_relayed_and_frames_recorded() {
    let test_ca = TestCa::new();
    let addr = websocket_echo_origin(&test_ca).await;
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("ws.test", addr.port(), addr.ip())
    })
    .await;
    let (tcp, head) = connect_tunnel(h.addr(), &format!("ws.test:{}", addr.port())).await;
    assert!(head.starts_with("HTTP/1.1 200"));
    let connector = tokio_rustls::TlsConnector::from(client_tls(h.ca.cert_der(), H1_ONLY));
    let tls = connector
        .connect("ws.test".try_into().unwrap(), tcp)
        .await
        .unwrap();
    let url = format!("wss://ws.test:{}/chat", addr.port());
    let (mut ws, response) = tokio_tungstenite::client_async(url.as_str(), tls)
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SWITCHING_PROTOCOLS);
    use tokio_tungstenite::tungstenite::Message;
    ws.send(Message::text("hello ws")).await.unwrap();
    assert_eq!(ws.next().await.unwrap().unwrap(), Message::text("hello ws"));
    ws.send(Message::binary(vec![1u8, 2, 3])).await.unwrap();
    assert_eq!(
        ws.next().await.unwrap().unwrap(),
        Message::binary(vec![1u8, 2, 3])
    );
    ws.close(None).await.unwrap();
    while ws.next().await.is_some() {}
    drop(ws);

    let flow = h.flow_for("/chat").await;
    assert_eq!(flow.status(), Some(101));
    assert!(flow.request.headers.get("sec-websocket-key").is_some());
    let log = flow.websocket.expect("frames recorded");
    let text: Vec<(Direction, WsOpcode, &[u8])> = log
        .frames
        .iter()
        .filter(|f| f.opcode != WsOpcode::Close)
        .map(|f| (f.direction, f.opcode, f.payload.as_slice()))
        .collect();
    assert_eq!(
        text,
        [
            (Direction::ClientToServer, WsOpcode::Text, &b"hello ws"[..]),
            (Direction::ServerToClient, WsOpcode::Text, &b"hello ws"[..]),
            (Direction::ClientToServer, WsOpcode::Binary, &[1, 2, 3][..]),
            (Direction::ServerToClient, WsOpcode::Binary, &[1, 2, 3][..]),
        ]
    );
    assert!(
        log.frames
            .iter()
            .any(|f| f.opcode == WsOpcode::Close && f.direction == Direction::ClientToServer)
    );
}

#[tokio::test]
async fn a_websocket_to_the_reverse_proxy_reaches_its_origin_and_is_recorded_as_its() {
    use tokio_tungstenite::tungstenite::Message;
    let test_ca = TestCa::new();
    let addr = websocket_echo_origin(&test_ca).await;
    let origin = format!("https://ws.test:{}", addr.port());
    let routes = ar_capture::ReverseRoutes::new(vec![origin.parse().unwrap()]).unwrap();
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("ws.test", addr.port(), addr.ip())
            .reverse(routes)
    })
    .await;
    // A plain `ws://` client, as one that cannot use a proxy.
    let url = format!("ws://{}/chat", h.addr());
    let (mut ws, response) = tokio_tungstenite::connect_async(url.as_str())
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::SWITCHING_PROTOCOLS);
    ws.send(Message::text("hello ws")).await.unwrap();
    assert_eq!(ws.next().await.unwrap().unwrap(), Message::text("hello ws"));
    ws.close(None).await.unwrap();
    while ws.next().await.is_some() {}
    drop(ws);

    let flow = h.flow_for("/chat").await;
    assert_eq!(flow.request.url, format!("{origin}/chat"));
    assert_eq!(
        flow.request.headers.get("host"),
        Some(format!("ws.test:{}", addr.port()).as_str())
    );
    assert_eq!(flow.status(), Some(101));
    let frames = flow.websocket.expect("frames recorded").frames;
    assert!(
        frames
            .iter()
            .any(|f| f.direction == Direction::ServerToClient && f.payload == b"hello ws"),
        "{frames:?}"
    );
}

#[tokio::test]
async fn websocket_over_http2_extended_connect_reaches_an_http1_origin_and_is_recorded() {
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::Role;
    let test_ca = TestCa::new();
    // The origin speaks HTTP/1.1 WebSocket only, and checks the handshake it gets.
    let config = test_ca.server_config(&["ws.test"], H1_ONLY);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (tcp, _) = listener.accept().await.unwrap();
        let tls = tokio_rustls::TlsAcceptor::from(config)
            .accept(tcp)
            .await
            .unwrap();
        use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
        #[expect(
            clippy::result_large_err,
            reason = "the callback signature is tungstenite's"
        )]
        fn check(req: &Request, mut resp: Response) -> Result<Response, ErrorResponse> {
            assert_eq!(req.uri().path(), "/live");
            assert_eq!(req.headers()["sec-websocket-protocol"], "chat");
            resp.headers_mut()
                .insert("sec-websocket-protocol", "chat".parse().unwrap());
            Ok(resp)
        }
        let mut ws = tokio_tungstenite::accept_hdr_async(tls, check)
            .await
            .unwrap();
        while let Some(Ok(message)) = ws.next().await {
            if message.is_close() {
                break;
            }
            ws.send(message).await.unwrap();
        }
    });
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("ws.test", addr.port(), addr.ip())
    })
    .await;
    let TunnelClient::H2(mut sender) =
        TunnelClient::open(h.addr(), &h.ca, "ws.test", addr.port(), true).await
    else {
        panic!("the proxy did not offer h2 to the client");
    };
    // What a browser sends on an h2 connection (RFC 8441 §4-5): CONNECT with :protocol.
    let mut req = http::Request::builder()
        .method(http::Method::CONNECT)
        .version(http::Version::HTTP_2)
        .uri(format!("https://ws.test:{}/live", addr.port()))
        .header("sec-websocket-version", "13")
        .header("sec-websocket-protocol", "chat")
        .body(
            http_body_util::Empty::new()
                .map_err(|never| match never {})
                .boxed(),
        )
        .unwrap();
    req.extensions_mut()
        .insert(hyper::ext::Protocol::from_static("websocket"));
    let mut response = sender.send_request(req).await.unwrap();
    assert_eq!(
        response.status(),
        StatusCode::OK,
        "h2 WebSockets open with 200"
    );
    assert_eq!(response.headers()["sec-websocket-protocol"], "chat");
    assert!(response.headers().get("sec-websocket-accept").is_none());
    let upgraded = hyper::upgrade::on(&mut response).await.unwrap();
    let mut ws = tokio_tungstenite::WebSocketStream::from_raw_socket(
        hyper_util::rt::TokioIo::new(upgraded),
        Role::Client,
        None,
    )
    .await;
    ws.send(Message::text("over h2")).await.unwrap();
    assert_eq!(ws.next().await.unwrap().unwrap(), Message::text("over h2"));
    ws.close(None).await.unwrap();
    while ws.next().await.is_some() {}
    drop(ws);

    let flow = h.flow_for("/live").await;
    assert_eq!(flow.request.method, "CONNECT");
    assert_eq!(flow.request.http_version, HttpVersion::Http2);
    assert_eq!(flow.status(), Some(101), "the origin's answer is recorded");
    let log = flow.websocket.expect("frames recorded");
    let text: Vec<(Direction, &[u8])> = log
        .frames
        .iter()
        .filter(|f| f.opcode == WsOpcode::Text)
        .map(|f| (f.direction, f.payload.as_slice()))
        .collect();
    assert_eq!(
        text,
        [
            (Direction::ClientToServer, &b"over h2"[..]),
            (Direction::ServerToClient, &b"over h2"[..]),
        ]
    );
}

#[tokio::test]
async fn an_origin_with_an_untrusted_certificate_gets_a_502_with_the_reason() {
    let rogue = TestCa::new(); // not given to the proxy
    let origin = origin(Some(rogue.server_config(&["bad.test"], H2_AND_H1))).await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| b.resolve("bad.test", port, origin.addr.ip())).await;
    let mut client = TunnelClient::open(h.addr(), &h.ca, "bad.test", port, true).await;
    let response = client
        .send(get(&format!("https://bad.test:{port}/hello")))
        .await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert_eq!(response.headers()["x-ar-proxy-error"], "tls");
    let text = String::from_utf8(body_bytes(response).await.to_vec()).unwrap();
    assert!(
        text.contains("bad.test") && text.contains("certificate"),
        "{text}"
    );
    let flow = h.flow_for("/hello").await;
    let error = flow.error.unwrap();
    assert_eq!(error.kind, ErrorKind::Tls);
    assert!(
        error.message.contains("UnknownIssuer") || error.message.contains("unknown issuer"),
        "{}",
        error.message
    );
    assert!(flow.response.is_none());
}

#[tokio::test]
async fn an_origin_that_resets_gets_a_502_and_an_error_flow() {
    let test_ca = TestCa::new();
    let config = test_ca.server_config(&["reset.test"], H1_ONLY);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (tcp, _) = listener.accept().await.unwrap();
            let config = config.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = tokio_rustls::TlsAcceptor::from(config).accept(tcp).await else {
                    return;
                };
                let mut buf = [0u8; 1024];
                let _ = tls.read(&mut buf).await; // the request head, then a hard reset
                // SO_LINGER 0 turns the close into a TCP reset: exactly what this origin is for.
                #[allow(deprecated)]
                let _ = tls.get_ref().0.set_linger(Some(Duration::ZERO));
            });
        }
    });
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("reset.test", addr.port(), addr.ip())
    })
    .await;
    let mut client = TunnelClient::open(h.addr(), &h.ca, "reset.test", addr.port(), false).await;
    let response = client
        .send(get(&format!("https://reset.test:{}/boom", addr.port())))
        .await;
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    let text = String::from_utf8(body_bytes(response).await.to_vec()).unwrap();
    assert!(text.contains("reset.test"), "{text}");
    let error = h.flow_for("/boom").await.error.unwrap();
    assert_eq!(error.kind, ErrorKind::Reset, "{}", error.message);
}

#[tokio::test]
async fn connect_to_a_dead_port_is_a_clear_502_not_a_hung_tunnel() {
    let closed = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap(); // dropped: nobody listens
    let mut h = Harness::start(|b| b.resolve("dead.test", closed.port(), closed.ip())).await;
    let (mut tcp, head) = connect_tunnel(h.addr(), &format!("dead.test:{}", closed.port())).await;
    assert!(head.starts_with("HTTP/1.1 502"), "{head}");
    assert!(head.contains("x-ar-proxy-error: connect"), "{head}");
    let text = read_rest(&mut tcp).await;
    assert!(
        text.contains("dead.test") && text.contains("refused"),
        "{text}"
    );
    let flow = h.flow_for("/").await;
    assert_eq!(flow.request.method, "CONNECT");
    assert_eq!(flow.error.unwrap().kind, ErrorKind::Connect);
}

#[tokio::test]
async fn a_client_leaving_mid_body_is_recorded_as_aborted() {
    let (mut h, _origin, port) = setup(H1_ONLY).await;
    let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, false).await;
    let response = client
        .send(get(&format!("https://shop.test:{port}/trickle")))
        .await;
    let mut body = response.into_body();
    let mut got = 0;
    while got < 4096 {
        got += body
            .frame()
            .await
            .unwrap()
            .unwrap()
            .data_ref()
            .map_or(0, |d| d.len());
    }
    drop(body);
    drop(client);
    let flow = h.flow_for("/trickle").await;
    let error = flow.error.expect("an aborted exchange is an error flow");
    assert_eq!(error.kind, ErrorKind::ClientAborted, "{}", error.message);
    let body = flow.response.unwrap().body;
    assert!(body.truncated);
    assert!(body.size >= 4096);
}

#[tokio::test]
async fn a_client_rejecting_the_proxy_certificate_is_an_error_flow() {
    let (mut h, _origin, port) = setup(H1_ONLY).await;
    let (tcp, head) = connect_tunnel(h.addr(), &format!("shop.test:{port}")).await;
    assert!(head.starts_with("HTTP/1.1 200"));
    let stranger = TestCa::new(); // the client trusts some other CA, not ours
    let connector = tokio_rustls::TlsConnector::from(client_tls(&stranger.cert, H1_ONLY));
    let result = connector
        .connect("shop.test".try_into().unwrap(), tcp)
        .await;
    assert!(
        result.is_err(),
        "the client must refuse a certificate it does not trust"
    );
    let flow = h.flow_for("/").await;
    let error = flow.error.unwrap();
    assert_eq!(error.kind, ErrorKind::Tls);
    assert!(
        error.message.contains("ar ca"),
        "the message says how to fix it: {}",
        error.message
    );
}

#[tokio::test]
async fn ip_literals_get_an_ip_san() {
    let test_ca = TestCa::new();
    let origin = origin(Some(test_ca.server_config(&["127.0.0.1"], H2_AND_H1))).await;
    let mut h = Harness::start(|b| b.upstream_root(test_ca.cert.clone())).await;
    let (tcp, _) = connect_tunnel(h.addr(), &origin.addr.to_string()).await;
    let connector = tokio_rustls::TlsConnector::from(client_tls(h.ca.cert_der(), H1_ONLY));
    let name = rustls_pki_types::ServerName::IpAddress(origin.addr.ip().into());
    let tls = connector
        .connect(name, tcp)
        .await
        .expect("an IP SAN the client accepts");
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(tls))
            .await
            .unwrap();
    tokio::spawn(conn);
    let response = sender
        .send_request(get(&format!("https://{}/hello", origin.addr)))
        .await
        .unwrap();
    assert_eq!(body_bytes(response).await, "hello");
    assert_eq!(
        h.flow_for("/hello").await.request.url,
        format!("https://{}/hello", origin.addr)
    );
}

#[tokio::test]
async fn passthrough_hosts_are_relayed_without_interception() {
    let test_ca = TestCa::new();
    let origin = origin(Some(test_ca.server_config(&["pinned.test"], H1_ONLY))).await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| {
        b.passthrough("pinned.test")
            .resolve("pinned.test", port, origin.addr.ip())
    })
    .await;
    let (tcp, _) = connect_tunnel(h.addr(), &format!("pinned.test:{port}")).await;
    // The client sees the origin's own certificate: it trusts only the origin's CA.
    let connector = tokio_rustls::TlsConnector::from(client_tls(&test_ca.cert, H1_ONLY));
    let mut tls = connector
        .connect("pinned.test".try_into().unwrap(), tcp)
        .await
        .expect("origin certificate, not ours");
    tls.write_all(
        format!("GET /hello HTTP/1.1\r\nHost: pinned.test:{port}\r\nConnection: close\r\n\r\n")
            .as_bytes(),
    )
    .await
    .unwrap();
    let mut reply = String::new();
    tls.read_to_string(&mut reply).await.ok();
    assert!(reply.ends_with("hello"), "{reply}");
    drop(tls);
    let flow = h.flow_for(&format!("tcp://pinned.test:{port}")).await;
    assert_eq!(flow.request.method, "CONNECT");
    assert!(flow.request.body.size > 0 && flow.response.unwrap().body.size > 0);
}

#[tokio::test]
async fn a_decompression_bomb_is_relayed_untouched_and_its_capture_bounded_and_flagged() {
    let (mut h, _origin, port) = setup(H1_ONLY).await;
    let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, false).await;
    let response = client
        .send(get(&format!("https://shop.test:{port}/bomb")))
        .await;
    let wire = body_bytes(response).await;
    assert_eq!(
        wire.as_ref(),
        gzip_bomb().as_slice(),
        "the client gets the compressed bytes as sent"
    );
    let body = h.flow_for("/bomb").await.response.unwrap().body;
    assert!(body.truncated);
    assert!(
        body.bytes.len() < 4 << 20,
        "decoding stopped at the ratio bound, below the cap: {}",
        body.bytes.len()
    );
    assert!(body.bytes.iter().all(|&b| b == 0));
    let note = body.decode_error.expect("the bomb is flagged");
    assert!(note.contains("decompression bomb"), "{note}");
    assert_eq!(body.wire_size, Some(wire.len() as u64));
}
