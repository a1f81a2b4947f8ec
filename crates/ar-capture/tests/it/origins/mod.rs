//! The interop matrix: servers from Debian's packages as origins (nginx and
//! Apache httpd, each with and without HTTP/2, and Caddy) and clients
//! nobody here wrote (curl, Python's urllib, requests, httpx and websockets,
//! Node's fetch, Chromium), through the proxy, case by case (compression,
//! streams, uploads, redirects, conditional requests, big headers,
//! WebSocket). This is software that refuses what the hyper test origin
//! lets pass (nginx answers a `Host` header beside `:authority` on HTTP/2
//! with 400, "client sent duplicate host header").
//!
//! Split by what changes independently: `servers.rs` starts the origins,
//! `clients.rs` drives the clients (each makes all its requests in one run,
//! directly and through the proxy), `cases.rs` says what each request is and
//! what must hold of it. `.ci/run` installs the servers, the Python packages
//! into `.ci/.venv` and undici into `.ci/node`.
//!
//! Some clients also run in front of each server through a reverse proxy
//! (`ar proxy --reverse`), talking plain HTTP to its own address as a client
//! that cannot use a proxy would (rows marked `reverse`): they must see what
//! they see going to the server directly, and the flow archived under the
//! server's name. (Redirects lead to the server's own name there, as the
//! server wrote them; `reverse.rs` has `--rewrite-urls`.)
//!
//! The matrix prints as a table (`-- --nocapture` shows it: `ok`, `FAIL`, or
//! `-` where the server or the client cannot do the case), and a failure
//! lists every failing cell with its reason. `AR_MATRIX_CLIENTS=curl-h2,chromium`
//! runs only those clients.

mod cases;
mod clients;
mod reverse;
mod servers;
mod socks5;
mod upstream;

use std::collections::HashMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ar_capture::{ProxyBuilder, ReverseRoutes};
use ar_flow::{Flow, HttpVersion};
use futures_util::StreamExt as _;

use crate::support::*;
use cases::{CASES, Case, ClientTraits, Outcome, Request};
use clients::{CLIENTS, ClientKind, Outcomes, REVERSE_CLIENTS, Route};
use servers::{Backend, Kind, Server};

const SERVERS: [Kind; 5] = [
    Kind::Nginx { http2: true },
    Kind::Nginx { http2: false },
    Kind::Apache { http2: true },
    Kind::Apache { http2: false },
    Kind::Caddy,
];

/// The proxy, offline, trusting the origin CA and sending `shop.test` to
/// each of `servers` by port.
async fn proxy_to(ca: &TestCa, servers: &[&Server]) -> Harness {
    let root = ca.cert.clone();
    let ports: Vec<u16> = servers.iter().map(|s| s.port).collect();
    Harness::start(move |b| {
        ports
            .iter()
            .fold(b.upstream_root(root).offline(true), |b, &port| {
                b.resolve("shop.test", port, Ipv4Addr::LOCALHOST.into())
            })
    })
    .await
}

/// A reverse proxy in front of `server` alone (offline, trusting the
/// origin CA), passing answers on as they come (no `--rewrite-urls`).
async fn reverse_proxy_to(ca: &TestCa, server: &Server) -> Harness {
    let root = ca.cert.clone();
    let port = server.port;
    let route = format!("https://shop.test:{port}").parse().unwrap();
    let routes = ReverseRoutes::new(vec![route]).unwrap();
    Harness::start(move |b: ProxyBuilder| {
        b.upstream_root(root)
            .offline(true)
            .resolve("shop.test", port, Ipv4Addr::LOCALHOST.into())
            .reverse(routes)
    })
    .await
}

/// Every flow the proxies archive, as they come.
fn collect_flows(harnesses: &mut [&mut Harness]) -> Arc<Mutex<Vec<Flow>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    for h in harnesses {
        let mut flows = std::mem::replace(&mut h.flows, tokio::sync::mpsc::channel(1).1);
        let into = Arc::clone(&seen);
        tokio::spawn(async move {
            while let Some(flow) = flows.recv().await {
                into.lock().unwrap().push(flow);
            }
        });
    }
    seen
}

/// Every client to every server, directly and through the proxy, for every
/// case both do: the client sees through the proxy what it sees without it,
/// and the archived flow is right. Prints the matrix; fails listing every
/// failing cell.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_client_reaches_every_server_through_the_proxy() {
    let ca = TestCa::new();
    let backend = Backend::start();
    let servers: Vec<Server> = SERVERS
        .iter()
        .map(|&kind| Server::start(&ca, kind, Some(&backend)))
        .collect();
    let mut h = proxy_to(&ca, &servers.iter().collect::<Vec<_>>()).await;
    let flows = collect_flows(&mut [&mut h]);
    let mut reverse = Vec::new();
    for server in &servers {
        reverse.push(reverse_proxy_to(&ca, server).await);
    }
    let reverse_flows = collect_flows(&mut reverse.iter_mut().collect::<Vec<_>>());
    let origin_ca = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(origin_ca.path(), ca.pem()).unwrap();
    let direct = Route {
        proxy: None,
        ca_pem: origin_ca.path().to_owned(),
        spki: ca.spki_sha256_base64.clone(),
    };
    let routes = Routes {
        proxied: Route {
            proxy: Some(format!("http://{}", h.addr())),
            ca_pem: h.ca_pem.clone(),
            spki: h.ca.spki_sha256_base64(),
        },
        direct,
        bases: (servers.iter().zip(&reverse))
            .map(|(server, r)| (server.port, r.addr()))
            .collect(),
    };
    let clients = chosen_clients();
    let requests = requests_of(&clients, &servers);
    let outcomes = run_clients(&clients, &requests, &routes).await;

    let mut table = Table::new();
    let mut failures = Vec::new();
    for server in &servers {
        for &client in &clients {
            for via in [Via::Proxy, Via::Reverse] {
                if via == Via::Reverse && !REVERSE_CLIENTS.contains(&client) {
                    continue;
                }
                let flows = if via == Via::Proxy {
                    &flows
                } else {
                    &reverse_flows
                };
                let mut row = Vec::new();
                for case in CASES {
                    // A browser follows a redirect, off the reverse proxy to
                    // the server's own name, where its page's fetch may not go.
                    let off = via == Via::Reverse
                        && matches!(case, Case::Moved | Case::Found)
                        && !client.traits().sees_redirects;
                    let request = (requests[&client].iter())
                        .find(|r| r.case == case && r.port == server.port);
                    let Some(request) = request.filter(|_| !off) else {
                        row.push("-");
                        continue;
                    };
                    let verdict = judge(client, via, request, &outcomes, &routes, flows).await;
                    row.push(if verdict.is_ok() { "ok" } else { "FAIL" });
                    if let Err(why) = verdict {
                        let (s, c, k) = (server.kind.name(), client.name(), case.name());
                        failures.push(format!("{s} × {c}{} × {k}: {why}", via.suffix()));
                    }
                }
                let name = format!("{} / {}{}", server.kind.name(), client.name(), via.suffix());
                table.row(name, row);
            }
        }
    }
    println!("{table}");
    if !failures.is_empty() {
        let logs: Vec<String> = servers
            .iter()
            .map(|s| format!("{} log (tail):\n{}", s.kind.name(), tail(&s.log(), 20)))
            .collect();
        panic!(
            "{table}\n{} failing cells:\n{}\n\n{}",
            failures.len(),
            failures.join("\n"),
            logs.join("\n")
        );
    }
}

/// How a client reaches the servers in one of its runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Via {
    Direct,
    /// The proxy as its HTTP(S) proxy.
    Proxy,
    /// Each server's reverse proxy, in place of the server.
    Reverse,
}

impl Via {
    /// What the matrix adds to the row's name.
    fn suffix(self) -> &'static str {
        if self == Self::Reverse {
            " reverse"
        } else {
            ""
        }
    }
}

/// Where the clients go: straight to the servers, through the proxy, and
/// to each server's reverse proxy (its address by the server's port).
struct Routes {
    direct: Route,
    proxied: Route,
    bases: HashMap<u16, SocketAddr>,
}

impl Routes {
    fn of(&self, via: Via) -> &Route {
        match via {
            Via::Proxy => &self.proxied,
            // No proxy setting: the reverse proxies' addresses are in the URLs.
            Via::Direct | Via::Reverse => &self.direct,
        }
    }

    /// `request` as a client of the server's reverse proxy makes it: its URL
    /// on the proxy's address, in the clear.
    fn reversed(&self, request: &Request) -> Request {
        let base = self.bases[&request.port];
        let (scheme, origin) = (request.url.split_once("://")).expect("an absolute URL");
        let rest = &origin[origin.find('/').unwrap_or(origin.len())..];
        let scheme = if scheme == "wss" { "ws" } else { "http" };
        Request {
            url: format!("{scheme}://{base}{rest}"),
            ..request.clone()
        }
    }
}

/// Each client's requests: every case it and the server both do, to every server.
fn requests_of(clients: &[ClientKind], servers: &[Server]) -> HashMap<ClientKind, Vec<Request>> {
    clients
        .iter()
        .map(|&client| {
            let requests = servers
                .iter()
                .flat_map(|server| {
                    CASES
                        .iter()
                        .filter(|case| case.served_by(server.kind) && client.does(**case))
                        .map(|case| case.request(server, client.slug(), &client.traits()))
                })
                .collect();
            (client, requests)
        })
        .collect()
}

/// Every client's run, direct, proxied and, for [`REVERSE_CLIENTS`], to the
/// reverse proxies: the slow ones (the browser) first, three at a time on
/// two cores.
async fn run_clients(
    clients: &[ClientKind],
    requests: &HashMap<ClientKind, Vec<Request>>,
    routes: &Routes,
) -> HashMap<(ClientKind, Via), Outcomes> {
    let runs = clients.iter().rev().flat_map(|&client| {
        let reverse = REVERSE_CLIENTS.contains(&client).then_some(Via::Reverse);
        [Some(Via::Proxy), Some(Via::Direct), reverse]
            .into_iter()
            .flatten()
            .map(move |via| (client, via))
    });
    futures_util::stream::iter(runs)
        .map(|(client, via)| {
            let requests: Vec<Request> = match via {
                Via::Reverse => requests[&client]
                    .iter()
                    .map(|r| routes.reversed(r))
                    .collect(),
                _ => requests[&client].clone(),
            };
            async move {
                let start = std::time::Instant::now();
                let requests: Vec<&Request> = requests.iter().collect();
                let outcomes = client.run(routes.of(via), &requests).await;
                eprintln!("{} {via:?}: {:?}", client.name(), start.elapsed());
                ((client, via), outcomes)
            }
        })
        .buffer_unordered(3)
        .collect()
        .await
}

/// One cell's verdict: the setup works, the client cannot tell the proxy
/// is there, and the archive holds the exchange.
async fn judge(
    client: ClientKind,
    via: Via,
    request: &Request,
    outcomes: &HashMap<(ClientKind, Via), Outcomes>,
    routes: &Routes,
    flows: &Mutex<Vec<Flow>>,
) -> Result<(), String> {
    let traits = client.traits();
    let mut direct = find(&outcomes[&(client, Via::Direct)], &request.id);
    let setup_failed = |direct: &Result<Outcome, String>| {
        direct.as_ref().map_or(true, |d| {
            request.case.check_direct(d, request.port, &traits).is_err()
        })
    };
    if setup_failed(&direct) {
        // The reference failed: the servers' flake, not the proxy's (Caddy
        // cut a backend's answer short in a few of 150 uploads under load).
        // It gets one more try.
        eprintln!("{} {}: direct once more", client.name(), request.id);
        let again = client.run(&routes.direct, &[request]).await;
        direct = find(&again, &request.id);
    }
    let direct = direct.map_err(|why| format!("direct: {why}"))?;
    request.case.check_direct(&direct, request.port, &traits)?;
    let proxied = find(&outcomes[&(client, via)], &request.id)
        .map_err(|why| format!("through the proxy: {why}"))?;
    // In the clear, to the reverse proxy, every client speaks HTTP/1.1.
    let traits = match via {
        Via::Reverse => ClientTraits {
            version: HttpVersion::Http11,
            ..traits
        },
        _ => traits,
    };
    // In the clear a client may offer other encodings than over HTTPS.
    let own_encodings = via == Via::Reverse
        && !(request.headers.iter()).any(|(name, _)| *name == "accept-encoding");
    Case::compare(&direct, &proxied, own_encodings)?;
    let protocol = match traits.version {
        HttpVersion::Http2 => "HTTP/2",
        _ => "HTTP/1.1",
    };
    if proxied.version != "?" && proxied.version != protocol {
        return Err(format!("the client spoke {} to the proxy", proxied.version));
    }
    let flow = flow_for(flows, request).await.ok_or("no flow archived")?;
    request.case.check_flow(&flow, request, &proxied, &traits)
}

/// The clients to run: all, or those `AR_MATRIX_CLIENTS` names by slug
/// (`curl-h2,chromium`), to iterate on a few.
fn chosen_clients() -> Vec<ClientKind> {
    let chosen = std::env::var("AR_MATRIX_CLIENTS").unwrap_or_default();
    CLIENTS
        .into_iter()
        .filter(|c| chosen.is_empty() || chosen.split(',').any(|s| s == c.slug()))
        .collect()
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

fn find(outcomes: &Outcomes, id: &str) -> Result<Outcome, String> {
    outcomes
        .iter()
        .find(|(i, _)| i == id)
        .map_or_else(|| Err("the client said nothing".into()), |(_, o)| o.clone())
}

/// The archived flow of `request`, waiting up to 10 s for it (a flow is
/// archived after its exchange ended).
async fn flow_for(flows: &Mutex<Vec<Flow>>, request: &Request) -> Option<Flow> {
    let tail = format!("shop.test:{}{}", request.port, request.target);
    for _ in 0..200 {
        let found = flows
            .lock()
            .unwrap()
            .iter()
            .find(|f| f.request.url.ends_with(&tail))
            .cloned();
        if found.is_some() {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    None
}

/// The printed matrix: a row per server and client, a column per case.
struct Table {
    rows: Vec<(String, Vec<&'static str>)>,
}

impl Table {
    fn new() -> Self {
        Self { rows: Vec::new() }
    }

    fn row(&mut self, name: String, cells: Vec<&'static str>) {
        self.rows.push((name, cells));
    }
}

impl std::fmt::Display for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let first = self.rows.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        write!(f, "{:first$}", "server / client")?;
        for case in CASES {
            write!(f, " | {:4}", case.name())?;
        }
        for (name, cells) in &self.rows {
            write!(f, "\n{name:first$}")?;
            for (cell, case) in cells.iter().zip(CASES) {
                write!(f, " | {cell:width$}", width = case.name().len().max(4))?;
            }
        }
        Ok(())
    }
}

#[tokio::test]
async fn cookies_an_http2_client_splits_reach_an_http1_origin_joined() {
    let ca = TestCa::new();
    let server = Server::start(&ca, Kind::Nginx { http2: false }, None);
    let mut h = proxy_to(&ca, &[&server]).await;
    // curl sends each `-H cookie:` as its own field over HTTP/2, as browsers
    // do (RFC 9113 §8.2.3); HTTP/1.1 allows one `Cookie` line.
    let proxy = format!("http://{}", h.addr());
    let (body, stderr, ok) = curl(&[
        "--http2",
        "--proxy",
        &proxy,
        "--cacert",
        h.ca_pem.to_str().unwrap(),
        "-H",
        "cookie: a=1",
        "-H",
        "cookie: b=2",
        &server.url("/cookie"),
    ])
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&body), "a=1; b=2");
    let flow = h.flow_for("/cookie").await;
    assert_eq!(flow.request.http_version, HttpVersion::Http2);
}

#[tokio::test]
async fn plain_http_reaches_nginx_in_the_clear() {
    let ca = TestCa::new();
    let server = Server::start(&ca, Kind::NginxPlain, None);
    let mut h = proxy_to(&ca, &[&server]).await;
    let proxy = format!("http://{}", h.addr());
    let get = ["--fail", "--proxy", &proxy, &server.url("/host")];
    let (body, stderr, ok) = curl(&get).await;
    assert!(ok, "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&body),
        format!("shop.test:{}", server.port)
    );
    let post = [
        "--fail",
        "--proxy",
        &proxy,
        "--data",
        r#"{"sku":"A-1"}"#,
        &server.url("/hello"),
    ];
    let (body, stderr, ok) = curl(&post).await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&body), "hello");
    let flow = h.flow_for("/hello").await;
    assert_eq!(flow.request.method, "POST");
    assert!(
        flow.request.url.starts_with("http://shop.test:"),
        "{}",
        flow.request.url
    );
    assert_eq!(flow.response.as_ref().map(|r| r.status), Some(200));
}

#[tokio::test]
async fn requests_an_http2_origin_went_away_before_processing_are_sent_again() {
    let ca = TestCa::new();
    // nginx ends an HTTP/2 connection after 5 requests with a GOAWAY
    // (NO_ERROR); requests the proxy had already sent on it beyond its last
    // stream were not processed, and must not come back as 502s.
    let kind = Kind::Nginx { http2: true };
    let server = Server::start_with(&ca, kind, None, "keepalive_requests 5;");
    let h = proxy_to(&ca, &[&server]).await;
    let proxy = format!("http://{}", h.addr());
    let urls: Vec<String> = (0..60)
        .map(|i| server.url(&format!("/hello?i={i}")))
        .collect();
    let mut args = vec![
        "--http1.1",
        "--silent",
        "--parallel",
        "--parallel-max",
        "8",
        "--proxy",
        &proxy,
        "--cacert",
        h.ca_pem.to_str().unwrap(),
    ];
    args.extend(urls.iter().map(String::as_str));
    let (body, stderr, ok) = curl(&args).await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&body), "hello".repeat(60));
}

#[tokio::test]
async fn a_body_from_an_http1_client_reaches_an_http2_origin() {
    let ca = TestCa::new();
    let server = Server::start(&ca, Kind::Nginx { http2: true }, None);
    let mut h = proxy_to(&ca, &[&server]).await;
    let proxy = format!("http://{}", h.addr());
    let (body, stderr, ok) = curl(&[
        "--http1.1",
        "--fail",
        "--proxy",
        &proxy,
        "--cacert",
        h.ca_pem.to_str().unwrap(),
        "-H",
        "content-type: application/json",
        "--data",
        r#"{"sku":"A-1"}"#,
        &server.url("/hello"),
    ])
    .await;
    assert!(ok, "{stderr}");
    assert_eq!(String::from_utf8_lossy(&body), "hello");
    let flow = h.flow_for("/hello").await;
    assert_eq!(flow.request.method, "POST");
    assert_eq!(flow.request.body.text(), Some(r#"{"sku":"A-1"}"#));
}
