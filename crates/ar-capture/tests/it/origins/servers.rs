//! The origins: nginx, Caddy and Apache httpd from Debian's packages, each
//! started once per test in the foreground with its own config, logs and
//! files in a temp dir, and the Python backend they reverse-proxy to for
//! what none of them answers alone (a chunked body, server-sent events, an
//! upload's hash, a WebSocket echo).
//!
//! Every server answers the same routes for `shop.test` (`cases.rs` says what
//! each case expects): `/hello`, `/host` (the `Host` with port the server
//! saw), `/cookie`, `/big-header` (the `X-Big` header it saw),
//! `/static/doc.json` (a compressible file, last modified in 2020),
//! `/no-content` (204), `/moved` (301) and `/found` (302) to `/hello`, and
//! `/backend/...` through to the backend; nginx also `/links`, JSON with an
//! absolute link to its own `/hello`.

use std::io::BufRead as _;
use std::net::{Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use crate::support::{TestCa, json_doc};

/// Which server, and whether it offers HTTP/2 (by ALPN, beside HTTP/1.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Nginx {
        http2: bool,
    },
    /// nginx without TLS: HTTP/1.1 in the clear.
    NginxPlain,
    Caddy,
    Apache {
        http2: bool,
    },
}

impl Kind {
    /// Its name in the printed matrix.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Nginx { http2: true } => "nginx h2",
            Self::Nginx { http2: false } => "nginx h1",
            Self::NginxPlain => "nginx http",
            Self::Caddy => "caddy",
            Self::Apache { http2: true } => "apache h2",
            Self::Apache { http2: false } => "apache h1",
        }
    }
}

/// When `/static/doc.json` was last modified: a request with a later
/// `If-Modified-Since` gets a 304 from every server.
const DOC_MODIFIED_UNIX: u64 = 1_577_836_800; // 2020-01-01
/// An `If-Modified-Since` after [`DOC_MODIFIED_UNIX`] and before now.
pub(crate) const AFTER_DOC_MODIFIED: &str = "Fri, 01 Jan 2021 00:00:00 GMT";

/// A server for `shop.test` on a loopback port.
pub(crate) struct Server {
    pub(crate) kind: Kind,
    child: Child,
    pub(crate) port: u16,
    dir: tempfile::TempDir,
}

/// `name` on PATH, or in Debian's sbin.
pub(crate) fn binary(name: &str) -> PathBuf {
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

/// Waits up to 15 s for a server to listen on `port`; else fails with `what` it logged.
pub(crate) fn wait_listening(port: u16, what: impl Fn() -> String) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while std::net::TcpStream::connect((Ipv4Addr::LOCALHOST, port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "nothing listens on {port}: {}",
            what()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The Python the CI installs the clients' and the backend's packages into
/// (`.ci/run`: `.ci/.venv`), else `python3` on PATH.
pub(crate) fn python() -> PathBuf {
    let venv = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/.venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

impl Server {
    /// Starts `kind`; without a `backend`, `/backend/...` answers 502.
    pub(crate) fn start(ca: &TestCa, kind: Kind, backend: Option<&Backend>) -> Self {
        Self::start_with(ca, kind, backend, "")
    }

    /// [`Server::start`], with `nginx_http` added to nginx's `http` block
    /// (`keepalive_requests 3;`); other servers ignore it.
    pub(crate) fn start_with(
        ca: &TestCa,
        kind: Kind,
        backend: Option<&Backend>,
        nginx_http: &str,
    ) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let (chain, key) = ca.server_pem(&["shop.test"]);
        std::fs::write(dir.path().join("cert.pem"), chain).unwrap();
        std::fs::write(dir.path().join("key.pem"), key).unwrap();
        write_site(&dir.path().join("www"));
        let port = free_port();
        let mut command = match kind {
            Kind::Nginx { http2 } => {
                let listen = if http2 { "ssl http2" } else { "ssl" };
                nginx(dir.path(), port, listen, backend, nginx_http)
            }
            Kind::NginxPlain => nginx(dir.path(), port, "", backend, nginx_http),
            Kind::Caddy => caddy(dir.path(), port, backend),
            Kind::Apache { http2 } => apache(dir.path(), port, http2, backend),
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
        wait_listening(self.port, || format!("{:?}: {}", self.kind, self.log()));
    }

    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    pub(crate) fn url(&self, path: &str) -> String {
        let scheme = if self.kind == Kind::NginxPlain {
            "http"
        } else {
            "https"
        };
        format!("{scheme}://shop.test:{}{path}", self.port)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The files every server serves as they are: `static/doc.json`, and for
/// Apache the plain and SSI (`<!--#echo -->`) files its routes map to.
fn write_site(www: &Path) {
    std::fs::create_dir_all(www.join("static")).unwrap();
    let doc = www.join("static/doc.json");
    std::fs::write(&doc, json_doc()).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&doc)
        .unwrap()
        .set_modified(SystemTime::UNIX_EPOCH + Duration::from_secs(DOC_MODIFIED_UNIX))
        .unwrap();
    let echo = |var: &str| format!("<!--#echo encoding=\"none\" var=\"{var}\" -->");
    for (name, text) in [
        ("hello.txt", "hello".to_owned()),
        ("host.shtml", echo("HTTP_HOST")),
        ("cookie.shtml", echo("HTTP_COOKIE")),
        ("big.shtml", echo("HTTP_X_BIG")),
    ] {
        std::fs::write(www.join(name), text).unwrap();
    }
}

/// nginx listening with `listen` (`ssl http2`, `ssl`, or empty for the clear).
fn nginx(dir: &Path, port: u16, listen: &str, backend: Option<&Backend>, extra: &str) -> Command {
    let d = dir.display();
    let (http, ws) = Backend::ports(backend);
    // `if_modified_since before`: nginx answers 304 only to an exact date by
    // default. 32k header buffers: a 16 KiB header fits (the default is 8k).
    let conf = format!(
        "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log info;\n\
         events {{ worker_connections 64; }}\n\
         http {{\n  access_log {d}/access.log;\n  client_body_temp_path {d}/body;\n  \
         proxy_temp_path {d}/proxy;\n  fastcgi_temp_path {d}/fastcgi;\n  uwsgi_temp_path {d}/uwsgi;\n  \
         scgi_temp_path {d}/scgi;\n  client_max_body_size 2m;\n  default_type text/plain;\n  \
         types {{ application/json json; }}\n  \
         gzip on;\n  gzip_types application/json;\n  if_modified_since before;\n  \
         large_client_header_buffers 4 32k;\n  {extra}\n  \
         server {{\n    listen 127.0.0.1:{port} {listen};\n    server_name shop.test;\n    \
         ssl_certificate {d}/cert.pem;\n    ssl_certificate_key {d}/key.pem;\n    \
         location = /hello {{ return 200 \"hello\"; }}\n    \
         location = /host {{ return 200 \"$http_host\"; }}\n    \
         location = /cookie {{ return 200 \"$http_cookie\"; }}\n    \
         location = /big-header {{ return 200 \"$http_x_big\"; }}\n    \
         location = /no-content {{ return 204; }}\n    \
         location = /moved {{ return 301 /hello; }}\n    \
         location = /found {{ return 302 /hello; }}\n    \
         location = /links {{ default_type application/json; \
         return 200 '{{\"next\": \"$scheme://$http_host/hello\", \"elsewhere\": \"https://elsewhere.test/hello\"}}'; }}\n    \
         location /static/ {{ root {d}/www; }}\n    \
         location /backend/ {{ proxy_pass http://127.0.0.1:{http}; proxy_http_version 1.1; \
         proxy_buffering off; }}\n    \
         location = /backend/ws {{ proxy_pass http://127.0.0.1:{ws}; proxy_http_version 1.1; \
         proxy_set_header Upgrade $http_upgrade; proxy_set_header Connection upgrade; }}\n  \
         }}\n}}\n"
    );
    std::fs::write(dir.join("nginx.conf"), conf).unwrap();
    let mut c = Command::new(binary("nginx"));
    c.arg("-p")
        .arg(dir)
        .arg("-c")
        .arg(dir.join("nginx.conf"))
        .arg("-e")
        .arg(dir.join("error.log"));
    c
}

fn caddy(dir: &Path, port: u16, backend: Option<&Backend>) -> Command {
    let d = dir.display();
    let (http, ws) = Backend::ports(backend);
    // `protocols h1 h2`: no HTTP/3 listener, so no `Alt-Svc` either.
    let conf = format!(
        "{{\n  admin off\n  auto_https off\n  storage file_system {d}/storage\n  \
         servers {{\n    protocols h1 h2\n  }}\n  \
         log {{\n    output file {d}/error.log\n  }}\n}}\n\
         https://shop.test:{port} {{\n  bind 127.0.0.1\n  tls {d}/cert.pem {d}/key.pem\n  \
         encode zstd gzip\n  \
         respond /hello \"hello\" 200\n  \
         respond /host \"{{http.request.hostport}}\" 200\n  \
         respond /cookie \"{{http.request.header.Cookie}}\" 200\n  \
         respond /big-header \"{{http.request.header.X-Big}}\" 200\n  \
         respond /no-content 204\n  \
         redir /moved /hello 301\n  \
         redir /found /hello 302\n  \
         reverse_proxy /backend/ws 127.0.0.1:{ws}\n  \
         reverse_proxy /backend/* 127.0.0.1:{http} {{\n    flush_interval -1\n  }}\n  \
         root * {d}/www\n  \
         file_server /static/*\n}}\n"
    );
    std::fs::write(dir.join("Caddyfile"), conf).unwrap();
    let mut c = Command::new(binary("caddy"));
    c.args(["run", "--adapter", "caddyfile", "--config"])
        .arg(dir.join("Caddyfile"))
        .env("HOME", dir)
        .env("XDG_DATA_HOME", dir)
        .env("XDG_CONFIG_HOME", dir);
    c
}

/// Apache with mod_ssl and mod_http2, one process (`-X`: nothing outlives a
/// kill). Echoes are SSI files; 204 is a mod_rewrite status.
fn apache(dir: &Path, port: u16, http2: bool, backend: Option<&Backend>) -> Command {
    let d = dir.display();
    let (http, ws) = Backend::ports(backend);
    let protocols = if http2 { "h2 http/1.1" } else { "http/1.1" };
    let modules = [
        "mpm_event",
        "authz_core",
        "mime",
        "ssl",
        "http2",
        "include",
        "alias",
        "rewrite",
        "filter",
        "deflate",
        "brotli",
        "proxy",
        "proxy_http",
        "proxy_wstunnel",
    ];
    let load: String = modules
        .iter()
        .map(|m| format!("LoadModule {m}_module /usr/lib/apache2/modules/mod_{m}.so\n"))
        .collect();
    // Apache refuses to serve as root, so as root it switches to nobody (and
    // ignores `User` otherwise): its files must be readable by all.
    let conf = format!(
        "{load}ServerRoot {d}\nPidFile {d}/httpd.pid\nDefaultRuntimeDir {d}\nMutex file:{d}\n\
         ErrorLog {d}/error.log\nLogLevel warn\nUser nobody\nGroup nogroup\n\
         ThreadsPerChild 16\nMaxRequestWorkers 16\n\
         Listen 127.0.0.1:{port}\nServerName shop.test\nDocumentRoot {d}/www\n\
         TypesConfig /dev/null\nAddType application/json .json\nAddType text/plain .txt .shtml\n\
         LimitRequestFieldSize 32768\nProtocols {protocols}\n\
         SSLEngine on\nSSLCertificateFile {d}/cert.pem\nSSLCertificateKeyFile {d}/key.pem\n\
         SSLSessionCache none\n\
         <Directory {d}/www>\n  Options +IncludesNOEXEC\n  AddOutputFilter INCLUDES .shtml\n  \
         Require all granted\n</Directory>\n\
         AddOutputFilterByType BROTLI_COMPRESS;DEFLATE application/json\n\
         RewriteEngine on\n\
         RewriteRule ^/hello$ /hello.txt [L]\n\
         RewriteRule ^/host$ /host.shtml [L]\n\
         RewriteRule ^/cookie$ /cookie.shtml [L]\n\
         RewriteRule ^/big-header$ /big.shtml [L]\n\
         RewriteRule ^/no-content$ - [R=204]\n\
         Redirect 301 /moved /hello\n\
         Redirect 302 /found /hello\n\
         ProxyPass /backend/ws ws://127.0.0.1:{ws}/backend/ws\n\
         ProxyPass /backend/ http://127.0.0.1:{http}/backend/\n"
    );
    std::fs::write(dir.join("httpd.conf"), conf).unwrap();
    let readable = Command::new("chmod")
        .args(["-R", "a+rX"])
        .arg(dir)
        .status()
        .unwrap();
    assert!(readable.success());
    let mut c = Command::new(binary("apache2"));
    c.arg("-X").arg("-f").arg(dir.join("httpd.conf"));
    c
}

/// The Python backend (`backend.py`) the servers reverse-proxy
/// `/backend/...` to: HTTP on one port, a WebSocket echo on another.
pub(crate) struct Backend {
    child: Child,
    pub(crate) http_port: u16,
    pub(crate) ws_port: u16,
}

impl Backend {
    pub(crate) fn start() -> Self {
        let mut child = Command::new(python())
            .args(["-c", include_str!("backend.py")])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python runs");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let ports: Vec<u16> = line
            .strip_prefix("ready ")
            .unwrap_or_else(|| {
                panic!(
                    "the backend did not start (websockets is in .ci/requirements.txt): {line:?}"
                )
            })
            .split_whitespace()
            .map(|p| p.parse().unwrap())
            .collect();
        Self {
            child,
            http_port: ports[0],
            ws_port: ports[1],
        }
    }
}

impl Backend {
    /// Its HTTP and WebSocket ports; without one, a port nothing listens on.
    fn ports(backend: Option<&Self>) -> (u16, u16) {
        backend.map_or((1, 1), |b| (b.http_port, b.ws_port))
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
