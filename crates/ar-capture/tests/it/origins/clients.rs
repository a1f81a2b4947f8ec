//! The clients: curl (HTTP/1.1 and HTTP/2), Python's urllib, requests and
//! httpx (HTTP/1.1 and HTTP/2), Python websockets, Node's fetch (undici)
//! and Chromium. Each makes a batch of requests (every case, every server)
//! in one run, through the proxy or directly, so that a slow start (Python's
//! imports, a browser) is paid once per run rather than once per cell.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ar_flow::HttpVersion;
use tokio::io::AsyncReadExt as _;

use super::cases::{Case, ClientTraits, Outcome, Request, upload_body};
use super::servers::python;
use crate::chromium::{DevTools, chromium};

/// A client of the matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ClientKind {
    Curl { http2: bool },
    PythonUrllib,
    PythonRequests,
    PythonHttpx { http2: bool },
    PythonWebsockets,
    NodeFetch,
    Chromium,
}

pub(crate) const CLIENTS: [ClientKind; 9] = [
    ClientKind::Curl { http2: false },
    ClientKind::Curl { http2: true },
    ClientKind::PythonUrllib,
    ClientKind::PythonRequests,
    ClientKind::PythonHttpx { http2: false },
    ClientKind::PythonHttpx { http2: true },
    ClientKind::PythonWebsockets,
    ClientKind::NodeFetch,
    ClientKind::Chromium,
];

/// The clients that also run against reverse proxies, in the clear: those
/// an app's base URL setting is typically handed to.
pub(crate) const REVERSE_CLIENTS: [ClientKind; 6] = [
    ClientKind::Curl { http2: false },
    ClientKind::Curl { http2: true },
    ClientKind::PythonRequests,
    ClientKind::PythonHttpx { http2: false },
    ClientKind::NodeFetch,
    ClientKind::Chromium,
];

/// Where a client's requests go: through the proxy or straight to the
/// servers (with `shop.test` mapped to loopback), trusting `ca_pem` (the
/// proxy's CA or the origins'), whose key hashes to `spki`.
pub(crate) struct Route {
    pub(crate) proxy: Option<String>,
    pub(crate) ca_pem: PathBuf,
    pub(crate) spki: String,
}

/// What one run of a client saw, by request id.
pub(crate) type Outcomes = Vec<(String, Result<Outcome, String>)>;

impl ClientKind {
    /// Its name in the printed matrix.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Curl { http2: false } => "curl h1",
            Self::Curl { http2: true } => "curl h2",
            Self::PythonUrllib => "urllib",
            Self::PythonRequests => "requests",
            Self::PythonHttpx { http2: false } => "httpx h1",
            Self::PythonHttpx { http2: true } => "httpx h2",
            Self::PythonWebsockets => "websockets",
            Self::NodeFetch => "node fetch",
            Self::Chromium => "chromium",
        }
    }

    /// Its tag in request URLs (`?via=`) and its name for `client.py`.
    pub(crate) fn slug(self) -> &'static str {
        match self {
            Self::Curl { http2: false } => "curl-h1",
            Self::Curl { http2: true } => "curl-h2",
            Self::PythonUrllib => "urllib",
            Self::PythonRequests => "requests",
            Self::PythonHttpx { http2: false } => "httpx-h1",
            Self::PythonHttpx { http2: true } => "httpx-h2",
            Self::PythonWebsockets => "websockets",
            Self::NodeFetch => "node-fetch",
            Self::Chromium => "chromium",
        }
    }

    pub(crate) fn traits(self) -> ClientTraits {
        ClientTraits {
            sets_accept_encoding: self != Self::Chromium,
            sees_redirects: self != Self::Chromium,
            closes_websockets: self != Self::PythonWebsockets,
            version: match self {
                Self::Curl { http2: true } | Self::PythonHttpx { http2: true } | Self::Chromium => {
                    HttpVersion::Http2
                }
                _ => HttpVersion::Http11,
            },
        }
    }

    /// Whether the client does `case`: only the websockets library, Node
    /// and Chromium speak WebSocket, and the websockets library nothing else.
    pub(crate) fn does(self, case: Case) -> bool {
        match self {
            Self::PythonWebsockets => case == Case::WebSocket,
            Self::NodeFetch | Self::Chromium => true,
            _ => case != Case::WebSocket,
        }
    }

    /// Makes every request in `requests` by `route`. A client that cannot
    /// run at all fails each of them with the reason.
    pub(crate) async fn run(self, route: &Route, requests: &[&Request]) -> Outcomes {
        let work = tempfile::tempdir().unwrap();
        let run = async {
            match self {
                Self::Curl { http2 } => Ok(curl_each(http2, route, requests, work.path()).await),
                Self::NodeFetch => node(route, requests, work.path()).await,
                Self::Chromium => in_chromium(route, requests).await,
                _ => python_client(self.slug(), route, requests, work.path()).await,
            }
        };
        let outcome = tokio::time::timeout(Duration::from_secs(120), run)
            .await
            .unwrap_or_else(|_| Err("no answer within 120 s".into()));
        match outcome {
            Ok(outcomes) => outcomes,
            Err(why) => requests
                .iter()
                .map(|r| (r.id.clone(), Err(why.clone())))
                .collect(),
        }
    }
}

/// The lines a script printed, or why it failed.
fn script_outcomes(output: &std::process::Output) -> Result<Outcomes, String> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(format!(
            "exit {}: {}{}",
            output.status,
            stdout,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(stdout.lines().map(Outcome::parse).collect())
}

fn write_cases(requests: &[&Request], dir: &Path) -> PathBuf {
    let path = dir.join("cases.json");
    std::fs::write(&path, Request::json(requests)).unwrap();
    path
}

async fn python_client(
    kind: &str,
    route: &Route,
    requests: &[&Request],
    dir: &Path,
) -> Result<Outcomes, String> {
    let output = tokio::process::Command::new(python())
        .args(["-c", include_str!("client.py"), kind])
        .arg(route.proxy.as_deref().unwrap_or("direct"))
        .arg(&route.ca_pem)
        .arg(write_cases(requests, dir))
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| format!("python runs: {e}"))?;
    script_outcomes(&output)
}

/// undici as `.ci/run` installs it (`npm ci` in `.ci/node`).
fn undici() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.ci/node/node_modules/undici")
}

async fn node(route: &Route, requests: &[&Request], dir: &Path) -> Result<Outcomes, String> {
    if !undici().exists() {
        return Err("undici is not installed: `npm ci` in .ci/node (what .ci/run does)".into());
    }
    let script = dir.join("client.js");
    let source = [
        include_str!("fetch_cases.js"),
        include_str!("node_client.js"),
    ]
    .join("\n");
    std::fs::write(&script, source).unwrap();
    let output = tokio::process::Command::new("node")
        .arg(&script)
        .arg(route.proxy.as_deref().unwrap_or("direct"))
        .arg(&route.ca_pem)
        .arg(write_cases(requests, dir))
        .env("AR_UNDICI", undici())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| format!("node runs: {e}"))?;
    script_outcomes(&output)
}

/// One Chromium for the run; each server's requests run in a page of that
/// server (or of its reverse proxy, as their URLs say), so that they are
/// same-origin.
async fn in_chromium(route: &Route, requests: &[&Request]) -> Result<Outcomes, String> {
    let browser = chromium().ok_or("chromium is not installed")?;
    let args = match &route.proxy {
        Some(proxy) => vec![format!("--proxy-server={proxy}")],
        // Nothing but the origins (and loopback, where reverse proxies
        // listen) resolves, so nothing else is reached.
        None => vec![
            "--host-resolver-rules=MAP shop.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"
                .into(),
        ],
    };
    let mut devtools = DevTools::launch(browser, &route.spki, &args).await?;
    let mut outcomes = Vec::new();
    let mut ports: Vec<u16> = requests.iter().map(|r| r.port).collect();
    ports.sort_unstable();
    ports.dedup();
    for port in ports {
        let batch: Vec<&Request> = requests
            .iter()
            .copied()
            .filter(|r| r.port == port)
            .collect();
        let script = format!(
            "{}\nrunCases({}, {{ fetch: (url, init) => fetch(url, init), init: {{}}, \
             webSocket: (url) => new WebSocket(url) }}).then((lines) => lines.join('|'))",
            include_str!("fetch_cases.js"),
            Request::json(&batch)
        );
        let page = format!("{}/hello?via=chromium-page", origin_of(&batch));
        match devtools.evaluate_at(&page, &script).await {
            Ok(lines) => outcomes.extend(lines.split('|').map(Outcome::parse)),
            Err(why) => outcomes.extend(batch.iter().map(|r| (r.id.clone(), Err(why.clone())))),
        }
    }
    Ok(outcomes)
}

/// `scheme://host:port` of the batch's pages: its first HTTP(S) URL's.
fn origin_of(batch: &[&Request]) -> String {
    let url = (batch.iter())
        .map(|r| r.url.as_str())
        .find(|url| url.starts_with("http"))
        .unwrap_or_default();
    let authority_end = url.find("://").map_or(0, |i| i + 3);
    let end = url[authority_end..]
        .find('/')
        .map_or(url.len(), |i| authority_end + i);
    url[..end].to_owned()
}

/// curl, one process per request (curl starts fast); the body read as it
/// arrives, to time it.
async fn curl_each(http2: bool, route: &Route, requests: &[&Request], dir: &Path) -> Outcomes {
    let upload = dir.join("upload.bin");
    std::fs::write(&upload, upload_body()).unwrap();
    let mut outcomes = Vec::new();
    for request in requests {
        let outcome = curl_one(http2, route, request, dir, &upload).await;
        outcomes.push((request.id.clone(), outcome));
    }
    outcomes
}

async fn curl_one(
    http2: bool,
    route: &Route,
    request: &Request,
    dir: &Path,
    upload: &Path,
) -> Result<Outcome, String> {
    let head_file = dir.join(format!("{}.head", request.id));
    let mut command = tokio::process::Command::new("curl");
    command
        .args(["-sS", "--max-time", "20", "-N"])
        .arg(if http2 { "--http2" } else { "--http1.1" })
        .arg("--cacert")
        .arg(&route.ca_pem)
        .arg("-D")
        .arg(&head_file);
    match &route.proxy {
        Some(proxy) => command.args(["--proxy", proxy]),
        None => command
            .arg("--resolve")
            .arg(format!("shop.test:{}:127.0.0.1", request.port)),
    };
    for (name, value) in &request.headers {
        command.arg("-H").arg(format!("{name}: {value}"));
    }
    match request.method {
        // With `--head` curl writes the head as its output, too.
        "HEAD" => command.args(["--head", "-o", "/dev/null"]),
        "POST" => command
            .arg("--data-binary")
            .arg(format!("@{}", upload.display())),
        _ => &mut command,
    };
    let start = Instant::now();
    let mut child = command
        .arg(&request.url)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("curl runs: {e}"))?;
    let mut stdout = child.stdout.take().unwrap();
    let (mut body, mut first_ms, mut buf) = (Vec::new(), -1.0, vec![0u8; 64 * 1024]);
    loop {
        let n = stdout.read(&mut buf).await.map_err(|e| e.to_string())?;
        if n == 0 {
            break;
        }
        if first_ms < 0.0 {
            first_ms = start.elapsed().as_secs_f64() * 1000.0;
        }
        body.extend_from_slice(&buf[..n]);
    }
    let end_ms = start.elapsed().as_secs_f64() * 1000.0;
    let output = child.wait_with_output().await.map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    let head = std::fs::read_to_string(&head_file).map_err(|e| e.to_string())?;
    // The last head: after a `100 Continue`, the answer's.
    let last = head
        .split("\r\n\r\n")
        .filter(|block| !block.trim().is_empty())
        .last()
        .unwrap_or_default();
    let mut lines = last.lines();
    let status_line = lines.next().unwrap_or_default();
    let mut words = status_line.split_whitespace();
    let version = words.next().unwrap_or_default().to_owned();
    let status = words.next().and_then(|s| s.parse().ok()).unwrap_or(999);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Ok(Outcome {
        status,
        version,
        first_ms,
        end_ms,
        headers,
        body,
    })
}
