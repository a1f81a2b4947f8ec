//! Servers from Debian's packages as origins (nginx, Caddy) and clients
//! nobody here wrote (curl over HTTP/1.1 and HTTP/2; Python's urllib,
//! requests, and httpx over HTTP/1.1 and HTTP/2):
//! software that refuses what the hyper test origin lets pass (nginx answers
//! a `Host` header beside `:authority` on HTTP/2 with 400, "client sent
//! duplicate host header"). `.ci/run` installs the servers, and requests and
//! httpx into `.ci/.venv`.

use std::net::{Ipv4Addr, TcpListener};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ar_store::HttpVersion;

use crate::support::*;

/// Which server, and whether it offers HTTP/2 (by ALPN, beside HTTP/1.1).
#[derive(Clone, Copy, Debug)]
enum Kind {
    Nginx { http2: bool },
    Caddy,
}

/// A server for `shop.test` on a loopback port, with its files in a temp
/// dir. Routes: `/hello` answers `hello`, `/host` the `Host` (with port) the
/// server saw, `/cookie` the `Cookie` it saw.
struct Server {
    kind: Kind,
    child: Child,
    port: u16,
    dir: tempfile::TempDir,
}

/// `name` on PATH, or in Debian's sbin.
fn binary(name: &str) -> PathBuf {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.exists());
    found.unwrap_or_else(|| {
        panic!("{name} is not installed: `apt-get install {name}` (what .ci/run does)")
    })
}

fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Server {
    fn start(ca: &TestCa, kind: Kind) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (chain, key) = ca.server_pem(&["shop.test"]);
        std::fs::write(dir.path().join("cert.pem"), chain).unwrap();
        std::fs::write(dir.path().join("key.pem"), key).unwrap();
        let port = free_port();
        let d = dir.path().display();
        let mut command = match kind {
            Kind::Nginx { http2 } => {
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
                let mut c = Command::new(binary("nginx"));
                c.arg("-p")
                    .arg(dir.path())
                    .arg("-c")
                    .arg(dir.path().join("nginx.conf"))
                    .arg("-e")
                    .arg(dir.path().join("error.log"));
                c
            }
            Kind::Caddy => {
                let conf = format!(
                    "{{\n  admin off\n  auto_https off\n  storage file_system {d}/storage\n  \
                     log {{\n    output file {d}/error.log\n  }}\n}}\n\
                     https://shop.test:{port} {{\n  bind 127.0.0.1\n  tls {d}/cert.pem {d}/key.pem\n  \
                     respond /hello \"hello\" 200\n  \
                     respond /host \"{{http.request.hostport}}\" 200\n  \
                     respond /cookie \"{{http.request.header.Cookie}}\" 200\n}}\n"
                );
                std::fs::write(dir.path().join("Caddyfile"), conf).unwrap();
                let mut c = Command::new(binary("caddy"));
                c.args(["run", "--adapter", "caddyfile", "--config"])
                    .arg(dir.path().join("Caddyfile"))
                    .env("HOME", dir.path())
                    .env("XDG_DATA_HOME", dir.path())
                    .env("XDG_CONFIG_HOME", dir.path());
                c
            }
        };
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{kind:?} starts: {e}"));
        let server = Self {
            kind,
            child,
            port,
            dir,
        };
        server.wait_listening();
        server
    }

    fn wait_listening(&self) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, self.port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "{:?} did not listen on {}: {}",
                self.kind,
                self.port,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    fn url(&self, path: &str) -> String {
        format!("https://shop.test:{}{path}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The proxy, trusting the origin CA and sending `shop.test` to `server`.
async fn proxy_to(ca: &TestCa, server: &Server) -> Harness {
    let port = server.port;
    let root = ca.cert.clone();
    Harness::start(move |b| {
        b.upstream_root(root)
            .resolve("shop.test", port, Ipv4Addr::LOCALHOST.into())
    })
    .await
}

/// A client of the matrix: how it fetches a URL through the proxy.
#[derive(Clone, Copy, Debug)]
enum ClientKind {
    Curl { http2: bool },
    PythonUrllib,
    PythonRequests,
    PythonHttpx { http2: bool },
}

/// Python scripts that GET `argv[3]` through the proxy `argv[1]`, trusting
/// the CA file `argv[2]`, and print the body.
const URLLIB: &str = "import ssl, sys, urllib.request
ctx = ssl.create_default_context(cafile=sys.argv[2])
opener = urllib.request.build_opener(
    urllib.request.ProxyHandler({'https': sys.argv[1]}),
    urllib.request.HTTPSHandler(context=ctx))
sys.stdout.write(opener.open(sys.argv[3], timeout=20).read().decode())
";
const REQUESTS: &str = "import sys, requests
r = requests.get(sys.argv[3], proxies={'https': sys.argv[1]}, verify=sys.argv[2], timeout=20)
r.raise_for_status()
sys.stdout.write(r.text)
";
const HTTPX: &str = "import sys, httpx
with httpx.Client(proxy=sys.argv[1], verify=sys.argv[2], http2=sys.argv[4] == 'h2', timeout=20) as c:
    r = c.get(sys.argv[3])
    r.raise_for_status()
    assert r.http_version == ('HTTP/2' if sys.argv[4] == 'h2' else 'HTTP/1.1'), r.http_version
    sys.stdout.write(r.text)
";

/// The Python the CI installs requests and httpx into (`.ci/run`:
/// `.ci/.venv`), else `python3` on PATH.
fn python() -> PathBuf {
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/.venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

impl ClientKind {
    /// What the proxy records as the client's protocol.
    fn version(self) -> HttpVersion {
        match self {
            Self::Curl { http2: true } | Self::PythonHttpx { http2: true } => HttpVersion::Http2,
            _ => HttpVersion::Http11,
        }
    }

    /// The body of a GET of `url` through `h`, or what went wrong.
    async fn get(self, h: &Harness, url: &str, extra: &[&str]) -> Result<String, String> {
        let proxy = format!("http://{}", h.addr());
        let ca = h.ca_pem.to_str().unwrap();
        let output = match self {
            Self::Curl { http2 } => {
                let flag = if http2 { "--http2" } else { "--http1.1" };
                let mut args = vec![flag, "--fail", "--proxy", &proxy, "--cacert", ca];
                args.extend(extra);
                args.push(url);
                let (stdout, stderr, ok) = curl(&args).await;
                return if ok {
                    Ok(String::from_utf8_lossy(&stdout).into_owned())
                } else {
                    Err(stderr)
                };
            }
            Self::PythonUrllib | Self::PythonRequests | Self::PythonHttpx { .. } => {
                let (script, protocol) = match self {
                    Self::PythonUrllib => (URLLIB, "h1"),
                    Self::PythonRequests => (REQUESTS, "h1"),
                    Self::PythonHttpx { http2: true } => (HTTPX, "h2"),
                    _ => (HTTPX, "h1"),
                };
                tokio::process::Command::new(python())
                    .args(["-c", script, &proxy, ca, url, protocol])
                    .output()
                    .await
                    .expect("python runs")
            }
        };
        if output.status.success() {
            Ok(String::from_utf8_lossy(&output.stdout).into_owned())
        } else {
            Err(String::from_utf8_lossy(&output.stderr).into_owned())
        }
    }
}

/// Every client through the proxy to every server: the answer as a direct
/// request would get it, the `Host` the server saw, and the archived flow.
/// Prints the matrix.
#[tokio::test]
async fn every_client_reaches_every_server_through_the_proxy() {
    let servers = [
        Kind::Nginx { http2: true },
        Kind::Nginx { http2: false },
        Kind::Caddy,
    ];
    let clients = [
        ClientKind::Curl { http2: false },
        ClientKind::Curl { http2: true },
        ClientKind::PythonUrllib,
        ClientKind::PythonRequests,
        ClientKind::PythonHttpx { http2: false },
        ClientKind::PythonHttpx { http2: true },
    ];
    let ca = TestCa::new();
    let mut failures = Vec::new();
    let mut table = String::from("server \\ client");
    for client in clients {
        table.push_str(&format!(" | {client:?}"));
    }
    for kind in servers {
        let server = Server::start(&ca, kind);
        let mut h = proxy_to(&ca, &server).await;
        table.push_str(&format!("\n{kind:?}"));
        for client in clients {
            let hello = client.get(&h, &server.url("/hello"), &[]).await;
            let host = client.get(&h, &server.url("/host"), &[]).await;
            let cell = match (&hello, &host) {
                (Ok(hello), Ok(host))
                    if hello == "hello" && *host == format!("shop.test:{}", server.port) =>
                {
                    let flow = h.flow_for("/hello").await;
                    let response = flow.response.as_ref().expect("a response");
                    let archived = flow.request.http_version == client.version()
                        && response.status == 200
                        && response.body.text() == Some("hello");
                    h.flow_for("/host").await;
                    if archived { "ok" } else { "archive differs" }
                }
                _ => "FAILED",
            };
            table.push_str(&format!(" | {cell}"));
            if cell != "ok" {
                failures.push(format!(
                    "{client:?} -> {kind:?}: /hello {hello:?}, /host {host:?}; server log: {}",
                    server.log()
                ));
            }
        }
    }
    println!("{table}");
    assert!(failures.is_empty(), "{table}\n{}", failures.join("\n"));
}

#[tokio::test]
async fn cookies_an_http2_client_splits_reach_an_http1_origin_joined() {
    let ca = TestCa::new();
    let server = Server::start(&ca, Kind::Nginx { http2: false });
    let mut h = proxy_to(&ca, &server).await;
    // curl sends each `-H cookie:` as its own field over HTTP/2, as browsers
    // do (RFC 9113 §8.2.3); HTTP/1.1 allows one `Cookie` line.
    let body = ClientKind::Curl { http2: true }
        .get(
            &h,
            &server.url("/cookie"),
            &["-H", "cookie: a=1", "-H", "cookie: b=2"],
        )
        .await;
    assert_eq!(body.as_deref(), Ok("a=1; b=2"));
    let flow = h.flow_for("/cookie").await;
    assert_eq!(flow.request.http_version, HttpVersion::Http2);
}

#[tokio::test]
async fn a_body_from_an_http1_client_reaches_an_http2_origin() {
    let ca = TestCa::new();
    let server = Server::start(&ca, Kind::Nginx { http2: true });
    let mut h = proxy_to(&ca, &server).await;
    let body = ClientKind::Curl { http2: false }
        .get(
            &h,
            &server.url("/hello"),
            &[
                "-H",
                "content-type: application/json",
                "--data",
                r#"{"sku":"A-1"}"#,
            ],
        )
        .await;
    assert_eq!(body.as_deref(), Ok("hello"));
    let flow = h.flow_for("/hello").await;
    assert_eq!(flow.request.method, "POST");
    assert_eq!(flow.request.body.text(), Some(r#"{"sku":"A-1"}"#));
}
