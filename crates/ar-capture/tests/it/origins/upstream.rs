//! The proxy behind squid (`--upstream-proxy`): squid alone knows where
//! `shop.test` is (its `hosts_file`), so an answer proves the way went
//! through it; CONNECT for HTTPS, absolute form for plain HTTP, with basic
//! credentials, in forward and reverse mode, and for SOCKS5 clients.

use std::process::{Child, Command, Stdio};

use ar_capture::{ProxyBuilder, ReverseRoutes, Socks5, UpstreamProxy};

use super::servers::{Kind, Server, binary, free_port, wait_listening};
use crate::support::*;

const USER: &str = "me";
const PASSWORD: &str = "s3cret";

/// squid on a loopback port, resolving `shop.test` to loopback, asking
/// every client for [`USER`]'s basic credentials.
struct Squid {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Squid {
    fn start() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("hosts"), "127.0.0.1 shop.test\n").unwrap();
        let hash = Command::new("openssl")
            .args(["passwd", "-apr1", PASSWORD])
            .output()
            .unwrap();
        assert!(hash.status.success(), "openssl passwd");
        let hash = String::from_utf8(hash.stdout).unwrap();
        std::fs::write(d.join("passwd"), format!("{USER}:{}", hash.trim())).unwrap();
        let port = free_port();
        let conf = format!(
            "http_port 127.0.0.1:{port}\npid_filename {p}/squid.pid\ncache_log {p}/cache.log\n\
             access_log none\ncache_store_log none\ncoredump_dir {p}\nhosts_file {p}/hosts\n\
             cache deny all\nshutdown_lifetime 0 seconds\n\
             auth_param basic program /usr/lib/squid/basic_ncsa_auth {p}/passwd\n\
             auth_param basic realm ar-test\nacl users proxy_auth REQUIRED\n\
             http_access allow users\nhttp_access deny all\n",
            p = d.display()
        );
        std::fs::write(d.join("squid.conf"), conf).unwrap();
        // Run as root, squid switches to its own user, which writes its logs here.
        let writable = Command::new("chmod").arg("-R").arg("a+rwX").arg(d).status();
        assert!(writable.unwrap().success());
        // A service name of its own: two squids at once share no IPC names.
        let child = Command::new(binary("squid"))
            .args(["-N", "-n", &format!("ar{port}")])
            .arg("-f")
            .arg(d.join("squid.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("squid starts (apt-get install squid: what .ci/run does)");
        let log = d.join("cache.log");
        wait_listening(port, || {
            format!(
                "squid: {}",
                std::fs::read_to_string(&log).unwrap_or_default()
            )
        });
        Self {
            child,
            port,
            _dir: dir,
        }
    }

    /// `http://[USER:PASSWORD@]127.0.0.1:PORT`.
    fn url(&self, credentials: Option<(&str, &str)>) -> String {
        match credentials {
            Some((user, password)) => format!("http://{user}:{password}@127.0.0.1:{}", self.port),
            None => format!("http://127.0.0.1:{}", self.port),
        }
    }
}

impl Drop for Squid {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The proxy trusting the origins' CA, reaching them through `upstream`,
/// reverse-proxying `routes` (none: forward mode only). `shop.test` is
/// mapped nowhere here: only the upstream knows it.
async fn behind(ca: &TestCa, upstream: &str, routes: &[String]) -> Harness {
    let root = ca.cert.clone();
    let upstream: UpstreamProxy = upstream.parse().unwrap();
    let routes = (!routes.is_empty())
        .then(|| ReverseRoutes::new(routes.iter().map(|r| r.parse().unwrap()).collect()).unwrap());
    Harness::start(move |b: ProxyBuilder| {
        let b = b.upstream_root(root).upstream_proxy(upstream);
        match routes {
            Some(routes) => b.reverse(routes),
            None => b,
        }
    })
    .await
}

#[tokio::test]
async fn forward_and_reverse_requests_reach_their_origins_through_squid() {
    let ca = TestCa::new();
    let squid = Squid::start();
    let tls = Server::start(&ca, Kind::Nginx { http2: true }, None);
    let clear = Server::start(&ca, Kind::NginxPlain, None);
    let routes = [
        format!("https://shop.test:{}", tls.port),
        format!("/static=http://shop.test:{}", clear.port),
    ];
    let mut h = behind(&ca, &squid.url(Some((USER, PASSWORD))), &routes).await;
    let proxy = format!("http://{}", h.addr());
    let ar_ca = h.ca_pem.to_str().unwrap().to_owned();

    // Forward mode: HTTPS through a CONNECT tunnel, plain HTTP in absolute form.
    let (body, stderr, ok) = curl(&[
        "--fail",
        "--proxy",
        &proxy,
        "--cacert",
        &ar_ca,
        &tls.url("/host"),
    ])
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&body),
        format!("shop.test:{}", tls.port)
    );
    let (body, stderr, ok) = curl(&["--fail", "--proxy", &proxy, &clear.url("/hello")]).await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&body), "hello");
    // Reverse mode, the same ways.
    let (body, stderr, ok) =
        curl(&["--fail", &format!("{proxy}/big-header"), "-H", "x-big: up"]).await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&body), "up");
    let (body, stderr, ok) = curl(&["--fail", &format!("{proxy}/static/doc.json")]).await;
    assert!(ok, "{stderr}");
    assert_eq!(body, json_doc());

    let flows = h
        .flows_for(&[
            tls.url("/host"),
            clear.url("/hello"),
            tls.url("/big-header"),
            clear.url("/static/doc.json"),
        ])
        .await;
    for flow in &flows {
        assert_eq!(flow.status(), Some(200), "{}", flow.request.url);
        // The credentials went to squid, never into a flow.
        let text = format!("{flow:?}");
        assert!(!text.contains(PASSWORD), "{text}");
        assert!(
            !text.to_ascii_lowercase().contains("proxy-authorization"),
            "{text}"
        );
    }
    // Squid answered the plain requests itself, and says so.
    let via = flows[1].response.as_ref().unwrap().headers.get("via");
    assert!(via.is_some_and(|v| v.contains("squid")), "{via:?}");
}

#[tokio::test]
async fn a_407_from_squid_reaches_the_client_naming_squid_and_loopback_stays_direct() {
    let ca = TestCa::new();
    let squid = Squid::start();
    let tls = Server::start(&ca, Kind::Nginx { http2: false }, None);
    let clear = Server::start(&ca, Kind::NginxPlain, None);
    let routes = [
        format!("https://shop.test:{}", tls.port),
        format!("/static=http://127.0.0.1:{}", clear.port),
    ];
    let squid_name = format!("127.0.0.1:{}", squid.port);
    for (credentials, why) in [
        (
            None,
            "give it credentials: --upstream-proxy http://USER:PASSWORD@",
        ),
        (Some((USER, "wrong")), "it refused the credentials of me"),
    ] {
        let mut h = behind(&ca, &squid.url(credentials), &routes).await;
        let proxy = format!("http://{}", h.addr());
        // A tunnel (reverse mode to the HTTPS origin) and absolute form (forward, plain HTTP).
        let (answer, stderr, ok) = curl(&["--include", &format!("{proxy}/hello")]).await;
        assert!(ok, "{stderr}");
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 407"), "{answer}");
        assert!(
            answer.contains(&format!("upstream proxy {squid_name}")),
            "{answer}"
        );
        assert!(answer.contains(why), "{answer}");
        assert!(!answer.contains("wrong"), "{answer}");
        let url = format!("http://shop.test:{}/hello", clear.port);
        let (answer, stderr, ok) = curl(&["--include", "--proxy", &proxy, &url]).await;
        assert!(ok, "{stderr}");
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 407"), "{answer}");
        assert!(answer.contains(why), "{answer}");
        // Loopback is reached directly, whatever squid thinks of us.
        let (body, stderr, ok) = curl(&["--fail", &format!("{proxy}/static/doc.json")]).await;
        assert!(ok, "{stderr}");
        assert_eq!(body, json_doc());

        let flows = h.flows_for(&[tls.url("/hello"), url.clone()]).await;
        for flow in flows {
            let error = flow
                .error
                .expect("the upstream's refusal is no answer of the API");
            assert!(error.message.contains(why), "{}", error.message);
            assert!(flow.response.is_none());
        }
    }
}

#[tokio::test]
async fn socks5_clients_reach_their_origins_through_squid() {
    let ca = TestCa::new();
    let squid = Squid::start();
    let tls = Server::start(&ca, Kind::Nginx { http2: true }, None);
    let clear = Server::start(&ca, Kind::NginxPlain, None);
    let root = ca.cert.clone();
    let upstream: UpstreamProxy = squid.url(Some((USER, PASSWORD))).parse().unwrap();
    let mut h = Harness::start(move |b: ProxyBuilder| {
        b.upstream_root(root)
            .upstream_proxy(upstream)
            .socks5(Socks5::Open)
    })
    .await;
    let socks = h.addr().to_string();
    let ar_ca = h.ca_pem.to_str().unwrap().to_owned();
    let (body, stderr, ok) = curl(&[
        "--fail",
        "--socks5-hostname",
        &socks,
        "--cacert",
        &ar_ca,
        &tls.url("/host"),
    ])
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&body),
        format!("shop.test:{}", tls.port)
    );
    let (body, stderr, ok) =
        curl(&["--fail", "--socks5-hostname", &socks, &clear.url("/hello")]).await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&body), "hello");
    let flows = h.flows_for(&[tls.url("/host"), clear.url("/hello")]).await;
    for flow in &flows {
        assert_eq!(flow.status(), Some(200), "{}", flow.request.url);
        assert!(!format!("{flow:?}").contains(PASSWORD));
    }
}
