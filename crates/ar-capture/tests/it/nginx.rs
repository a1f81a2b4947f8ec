//! nginx from Debian's packages as the origin: software nobody here wrote,
//! which refuses what the hyper test origin lets pass (a `Host` header beside
//! `:authority` on HTTP/2 is "client sent duplicate host header", 400).
//! `.ci/run` installs it.

use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ar_store::HttpVersion;

use crate::support::*;

/// An nginx serving TLS on a loopback port, with its files in a temp dir.
struct Nginx {
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

/// The nginx binary: on PATH, or where Debian puts it.
fn nginx_binary() -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join("nginx"))
        .find(|candidate| candidate.exists());
    on_path.unwrap_or_else(|| {
        panic!("nginx is not installed: `apt-get install nginx` (what .ci/run does)")
    })
}

impl Nginx {
    /// Starts nginx for `shop.test` on a free port: HTTP/2 and HTTP/1.1 by
    /// ALPN when `http2`, else HTTP/1.1 only. Routes: `/hello` answers
    /// `hello`, `/host` the `Host` nginx saw, `/cookie` the `Cookie` it saw
    /// (any method; request bodies up to 2 MB are read and dropped).
    fn start(ca: &TestCa, http2: bool) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (chain, key) = ca.server_pem(&["shop.test"]);
        std::fs::write(dir.path().join("cert.pem"), chain).unwrap();
        std::fs::write(dir.path().join("key.pem"), key).unwrap();
        let port = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let d = dir.path().display();
        let h2 = if http2 { " http2" } else { "" };
        let conf = format!(
            "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log info;\n\
             events {{ worker_connections 64; }}\n\
             http {{\n  access_log {d}/access.log;\n  client_body_temp_path {d}/body;\n  \
             proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  \
             scgi_temp_path {d}/scgi;\n  client_max_body_size 2m;\n  default_type text/plain;\n  \
             server {{\n    listen 127.0.0.1:{port} ssl{h2};\n    server_name shop.test;\n    \
             ssl_certificate {d}/cert.pem;\n    ssl_certificate_key {d}/key.pem;\n    \
             location = /hello {{ return 200 \"hello\"; }}\n    \
             location = /host {{ return 200 \"$http_host\"; }}\n    \
             location = /cookie {{ return 200 \"$http_cookie\"; }}\n  }}\n}}\n"
        );
        std::fs::write(dir.path().join("nginx.conf"), conf).unwrap();
        let child = Command::new(nginx_binary())
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(dir.path().join("nginx.conf"))
            .arg("-e")
            .arg(dir.path().join("error.log"))
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nginx starts");
        let nginx = Self { child, port, dir };
        nginx.wait_listening();
        nginx
    }

    fn wait_listening(&self) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "nginx did not listen on {}: {}",
                self.port,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The proxy, trusting the origin CA and sending `shop.test` to nginx.
async fn proxy_to(ca: &TestCa, nginx: &Nginx) -> Harness {
    let port = nginx.port;
    let root = ca.cert.clone();
    Harness::start(move |b| {
        b.upstream_root(root)
            .resolve("shop.test", port, Ipv4Addr::LOCALHOST.into())
    })
    .await
}

fn curl_through(h: &Harness, flags: &[&str], nginx: &Nginx, path: &str) -> Vec<String> {
    let mut args: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
    args.extend([
        "--proxy".into(),
        format!("http://{}", h.addr()),
        "--cacert".into(),
        path_str(&h.ca_pem),
        format!("https://shop.test:{}{path}", nginx.port),
    ]);
    args
}

fn path_str(p: &Path) -> String {
    p.to_str().unwrap().to_string()
}

#[tokio::test]
async fn every_client_protocol_reaches_an_nginx_http2_origin() {
    let ca = TestCa::new();
    let nginx = Nginx::start(&ca, true);
    let mut h = proxy_to(&ca, &nginx).await;
    let host = format!("shop.test:{}", nginx.port);
    for (flag, version) in [
        ("--http1.1", HttpVersion::Http11),
        ("--http2", HttpVersion::Http2),
    ] {
        let args = curl_through(&h, &[flag, "-w", " %{http_code}"], &nginx, "/hello");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (stdout, stderr, ok) = curl(&args).await;
        assert!(ok, "{flag}: {stderr}");
        assert_eq!(
            String::from_utf8_lossy(&stdout),
            "hello 200",
            "{flag}; nginx said: {}",
            nginx.log()
        );
        let flow = h.flow_for("/hello").await;
        assert_eq!(flow.request.http_version, version, "{flag}");
        let response = flow.response.as_ref().expect("a response");
        assert_eq!(response.status, 200);
        assert_eq!(response.body.text(), Some("hello"));

        // nginx sees the authority once, as the client wrote it.
        let args = curl_through(&h, &[flag], &nginx, "/host");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (stdout, stderr, ok) = curl(&args).await;
        assert!(ok, "{flag}: {stderr}");
        assert_eq!(String::from_utf8_lossy(&stdout), host, "{flag}");
        h.flow_for("/host").await;
    }
    // A body goes through as well (HTTP/1.1 client, HTTP/2 origin).
    let args = curl_through(
        &h,
        &[
            "--http1.1",
            "-H",
            "content-type: application/json",
            "--data",
            r#"{"sku":"A-1"}"#,
        ],
        &nginx,
        "/hello",
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (stdout, stderr, ok) = curl(&args).await;
    assert!(ok, "{stderr}");
    assert_eq!(stdout, b"hello");
    let flow = h.flow_for("/hello").await;
    assert_eq!(flow.request.method, "POST");
    assert_eq!(flow.request.body.text(), Some(r#"{"sku":"A-1"}"#));
}

#[tokio::test]
async fn cookies_an_http2_client_splits_reach_an_http1_origin_joined() {
    let ca = TestCa::new();
    let nginx = Nginx::start(&ca, false);
    let mut h = proxy_to(&ca, &nginx).await;
    // curl sends each `-H cookie:` as its own field over HTTP/2, as browsers
    // do (RFC 9113 §8.2.3); HTTP/1.1 allows one `Cookie` line.
    let args = curl_through(
        &h,
        &["--http2", "-H", "cookie: a=1", "-H", "cookie: b=2"],
        &nginx,
        "/cookie",
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (stdout, stderr, ok) = curl(&args).await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&stdout), "a=1; b=2");
    let flow = h.flow_for("/cookie").await;
    assert_eq!(flow.request.http_version, HttpVersion::Http2);
}
