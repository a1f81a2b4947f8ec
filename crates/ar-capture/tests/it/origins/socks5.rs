//! SOCKS5 on the proxy's port before nginx: curl (`--socks5-hostname`, and
//! `--socks5` with addresses it resolved itself) and Python's httpx see
//! what they see going to nginx directly, the flows name the host, and what
//! the proxy does not do is refused with the reply RFC 1928 gives it.

use std::net::Ipv4Addr;

use ar_capture::{ProxyBuilder, Socks5};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::servers::{Kind, Server, free_port, python};
use crate::support::*;

/// The proxy, offline, trusting the origin CA, with SOCKS5 set up by
/// `socks5`; `shop.test` on each of `ports` goes to loopback.
async fn socks_to(
    ca: &TestCa,
    ports: &[u16],
    socks5: impl FnOnce(ProxyBuilder) -> ProxyBuilder,
) -> Harness {
    let root = ca.cert.clone();
    let ports = ports.to_vec();
    Harness::start(move |b| {
        let b = ports
            .iter()
            .fold(b.upstream_root(root).offline(true), |b, &port| {
                b.resolve("shop.test", port, Ipv4Addr::LOCALHOST.into())
            });
        socks5(b)
    })
    .await
}

/// What curl gets at `url` with `args`; it must succeed.
async fn curl_ok(args: &[&str], url: &str) -> Vec<u8> {
    let mut all = vec!["--fail"];
    all.extend(args);
    all.push(url);
    let (body, stderr, ok) = curl(&all).await;
    assert!(ok, "curl {args:?} {url}: {stderr}");
    body
}

#[tokio::test]
async fn curl_through_socks5_gets_what_it_gets_directly_and_the_flows_name_the_host() {
    let ca = TestCa::new();
    let tls = Server::start(&ca, Kind::Nginx { http2: true }, None);
    let clear = Server::start(&ca, Kind::NginxPlain, None);
    let mut h = socks_to(&ca, &[tls.port, clear.port], |b| b.socks5(Socks5::Open)).await;
    let origin_ca = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(origin_ca.path(), ca.pem()).unwrap();
    let socks = h.addr().to_string();
    let ar_ca = h.ca_pem.to_str().unwrap().to_owned();
    let resolve = |port| format!("shop.test:{port}:127.0.0.1");
    let (tls_resolve, clear_resolve) = (resolve(tls.port), resolve(clear.port));
    let direct_tls = [
        "--resolve",
        &tls_resolve,
        "--cacert",
        origin_ca.path().to_str().unwrap(),
    ];
    let socks_tls = ["--socks5-hostname", &socks, "--cacert", &ar_ca];

    // TLS inside, intercepted: HTTP/2 to the proxy, the origin's own answers.
    for (path, extra) in [("/host", None), ("/static/doc.json", Some("--compressed"))] {
        let url = tls.url(path);
        let direct = curl_ok(&[&direct_tls[..], extra.as_slice()].concat(), &url).await;
        let through = curl_ok(&[&socks_tls[..], extra.as_slice()].concat(), &url).await;
        assert_eq!(through, direct, "{path}");
    }
    // Plain HTTP inside, parsed too: a body goes up.
    let url = clear.url("/hello");
    let post = ["--data", r#"{"sku":"A-1"}"#];
    let direct = curl_ok(&[&["--resolve", &clear_resolve][..], &post].concat(), &url).await;
    let through = curl_ok(&[&["--socks5-hostname", &socks][..], &post].concat(), &url).await;
    assert_eq!(
        (through.as_slice(), direct.as_slice()),
        (&b"hello"[..], &b"hello"[..])
    );
    // The same port is an HTTP proxy still.
    let proxy = format!("http://{socks}");
    let body = curl_ok(&["--proxy", &proxy, "--cacert", &ar_ca], &tls.url("/hello")).await;
    assert_eq!(body, b"hello");

    let flows = h
        .flows_for(&[
            tls.url("/host"),
            tls.url("/static/doc.json"),
            clear.url("/hello"),
        ])
        .await;
    for flow in &flows {
        assert_eq!(flow.status(), Some(200), "{}", flow.request.url);
    }
    assert_eq!(flows[0].request.http_version, ar_flow::HttpVersion::Http2);
    assert_eq!(flows[1].response.as_ref().unwrap().body.bytes, json_doc());
    assert_eq!(flows[2].request.method, "POST");
    assert_eq!(flows[2].request.body.text(), Some(r#"{"sku":"A-1"}"#));
}

#[tokio::test]
async fn a_client_that_resolved_the_host_itself_is_served_under_the_name_its_tls_gives() {
    let ca = TestCa::new();
    // nginx closes each connection after one request, so the proxy dials
    // `shop.test` again for the second: where the client reached it, since
    // this proxy maps the name nowhere and dials nothing but loopback.
    let server = Server::start_with(
        &ca,
        Kind::Nginx { http2: false },
        None,
        "keepalive_requests 1;",
    );
    let mut h = socks_to(&ca, &[], |b| b.socks5(Socks5::Open)).await;
    let resolve = format!("shop.test:{}:127.0.0.1", server.port);
    let args = [
        "--socks5",
        &h.addr().to_string(),
        "--resolve",
        &resolve,
        "--cacert",
        h.ca_pem.to_str().unwrap(),
        &server.url("/host"),
    ];
    let body = curl_ok(&args, &server.url("/hello")).await;
    assert_eq!(
        String::from_utf8_lossy(&body),
        format!("shop.test:{}hello", server.port)
    );
    let flows = h
        .flows_for(&[server.url("/host"), server.url("/hello")])
        .await;
    assert!(flows.iter().all(|flow| flow.status() == Some(200)));
}

#[tokio::test]
async fn httpx_through_socks5_gets_what_it_gets_directly() {
    let ca = TestCa::new();
    let server = Server::start(&ca, Kind::Nginx { http2: false }, None);
    let mut h = socks_to(&ca, &[server.port], |b| b.socks5(Socks5::Open)).await;
    let script = "import sys, httpx\n\
                  proxy, ca, url = sys.argv[1:4]\n\
                  with httpx.Client(proxy=proxy, verify=ca) as client:\n    \
                  sys.stdout.write(client.get(url).raise_for_status().text)";
    let url = server.url("/host");
    let output = tokio::process::Command::new(python())
        .args(["-c", script, &format!("socks5h://{}", h.addr())])
        .arg(&h.ca_pem)
        .arg(&url)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "httpx[socks] (.ci/run installs it): {stderr}"
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        format!("shop.test:{}", server.port)
    );
    let flow = h.flow_for(&url).await;
    assert_eq!(flow.status(), Some(200));
}

/// A SOCKS5 client on a raw socket: it greets offering `methods`, and
/// gets the method the proxy picked.
async fn greet(proxy: std::net::SocketAddr, methods: &[u8]) -> (TcpStream, u8) {
    let mut tcp = TcpStream::connect(proxy).await.unwrap();
    let count = u8::try_from(methods.len()).unwrap();
    tcp.write_all(&[&[5, count][..], methods].concat())
        .await
        .unwrap();
    let mut answer = [0u8; 2];
    tcp.read_exact(&mut answer).await.unwrap();
    assert_eq!(answer[0], 5);
    (tcp, answer[1])
}

/// Sends a request with `command` for `address` (ATYP and bytes) and port
/// 443; the reply code.
async fn ask(tcp: &mut TcpStream, command: u8, address: &[u8]) -> u8 {
    let request = [&[5, command, 0][..], address, &443u16.to_be_bytes()].concat();
    tcp.write_all(&request).await.unwrap();
    let mut head = [0u8; 4];
    tcp.read_exact(&mut head).await.unwrap();
    head[1]
}

#[tokio::test]
async fn what_the_proxy_does_not_do_is_refused_with_its_reply() {
    let mut h = Harness::start(|b| b.offline(true).socks5(Socks5::Open)).await;
    let proxy = h.addr();
    let loopback = [1, 127, 0, 0, 1];
    let nowhere = [&[3, 12][..], b"nowhere.test"].concat();
    for (command, address, reply, what) in [
        (3, &loopback[..], 7, "UDP ASSOCIATE: command not supported"),
        (2, &loopback, 7, "BIND: command not supported"),
        (1, &[9, 1, 2, 3, 4], 8, "address type not supported"),
        (1, &nowhere, 2, "offline, a host not mapped: not allowed"),
    ] {
        let (mut tcp, method) = greet(proxy, &[0]).await;
        assert_eq!(method, 0);
        assert_eq!(ask(&mut tcp, command, address).await, reply, "{what}");
        let mut rest = Vec::new();
        tcp.read_to_end(&mut rest).await.unwrap();
    }
    // Nothing listens there: connection refused, and the attempt is archived.
    let closed = free_port();
    let (mut tcp, _) = greet(proxy, &[0]).await;
    let request = [&[5, 1, 0][..], &loopback, &closed.to_be_bytes()].concat();
    tcp.write_all(&request).await.unwrap();
    let mut reply = [0u8; 10];
    tcp.read_exact(&mut reply).await.unwrap();
    assert_eq!(reply[1], 5, "connection refused");
    let flows = h
        .flows_for(&[
            "https://nowhere.test:443/".to_owned(),
            format!("https://127.0.0.1:{closed}/"),
        ])
        .await;
    let kinds: Vec<_> = (flows.iter())
        .map(|flow| {
            (
                flow.request.method.as_str(),
                flow.error.as_ref().map(|e| e.kind),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("CONNECT", Some(ar_flow::ErrorKind::Refused)),
            ("CONNECT", Some(ar_flow::ErrorKind::Connect))
        ]
    );
}

#[tokio::test]
async fn socks5_clients_must_log_in_when_the_proxy_asks() {
    let ca = TestCa::new();
    let server = Server::start(&ca, Kind::NginxPlain, None);
    let auth = "me:s3cret".parse().unwrap();
    let mut h = socks_to(&ca, &[server.port], |b| b.socks5(Socks5::Login(auth))).await;
    let proxy = h.addr();
    let url = server.url("/hello");
    // Without credentials, or with the wrong ones, curl is turned away.
    for login in [None, Some("me:wrong"), Some("you:s3cret")] {
        let mut args = vec!["--socks5-hostname".to_owned(), proxy.to_string()];
        if let Some(login) = login {
            args.extend(["--proxy-user".to_owned(), login.to_owned()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (body, _, ok) = curl(&[&args[..], &[url.as_str()]].concat()).await;
        assert!(!ok && body.is_empty(), "{login:?} got in");
    }
    // On the wire: no method acceptable without a login, status 1 for a wrong one.
    let (_, method) = greet(proxy, &[0]).await;
    assert_eq!(method, 0xff);
    let (mut tcp, method) = greet(proxy, &[0, 2]).await;
    assert_eq!(method, 2);
    tcp.write_all(&[1, 2, b'm', b'e', 5, b'w', b'r', b'o', b'n', b'g'])
        .await
        .unwrap();
    let mut status = [0u8; 2];
    tcp.read_exact(&mut status).await.unwrap();
    assert_eq!(status, [1, 1]);
    // The right login gets through.
    let login = format!("socks5h://me:s3cret@{proxy}");
    assert_eq!(curl_ok(&["--proxy", &login], &url).await, b"hello");
    let flow = h.flow_for(&url).await;
    assert_eq!(flow.status(), Some(200));
    assert!(!format!("{flow:?}").contains("s3cret"));
}
