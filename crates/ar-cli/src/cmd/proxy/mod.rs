//! `ar proxy`: capture-only mode. Any client (curl, an app, a script, an
//! AI coding agent) uses it as its HTTP(S) proxy (with `--socks5`, its SOCKS5
//! proxy too), or, with `--reverse`, as
//! the origin it sends plain HTTP to; every exchange is appended to
//! `OUT/flows.jsonl` (+ `bodies/`) and the spec is kept current.
//!
//! The capture itself is [`ar_session::proxy`]; this module turns the flags
//! into its config, says where everything is, prints a line per flow and
//! per new endpoint, stops on Ctrl-C or SIGTERM and prints what was kept.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use ar_capture::{DEFAULT_BODY_CAP, ReverseRoute, ReverseRoutes, Socks5, Socks5Auth};
use ar_session::pipeline::{NewEndpoint, TEMPLATES_FILE};
use ar_session::proxy::{CaptureLog, ProxyCapture, ProxyConfig};
use ar_session::session::upstream_line;
use ar_store::Flow;

use crate::args::{AgainstArgs, Masked, TemplateArgs, UpstreamProxyArgs};
use crate::cmd::ca;

/// Run the capture proxy alone and archive everything that goes through it.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Port on 127.0.0.1 to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Output directory: flows.jsonl and bodies/ (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Hosts the API spec is about (comma-separated); the archive keeps every host.
    #[arg(long, value_name = "HOST,...", value_delimiter = ',')]
    scope: Vec<String>,
    /// CA directory (default: <user data dir>/ar/ca; see `ar ca`).
    #[arg(long, value_name = "DIR")]
    ca_dir: Option<PathBuf>,
    /// Extra PEM root(s) to trust for upstream TLS, e.g. a test server's CA. Repeatable.
    #[arg(long, value_name = "FILE")]
    upstream_ca: Vec<PathBuf>,
    /// Send HOST:PORT to ADDR instead of resolving it (curl's --resolve). Repeatable.
    #[arg(long, value_name = "HOST:PORT:ADDR")]
    resolve: Vec<String>,
    /// Dial only hosts mapped with --resolve and loopback addresses; never look up a name.
    #[arg(long)]
    offline: bool,
    /// Hosts whose TLS is relayed untouched, not intercepted (comma-separated; `*.x.com` ok).
    #[arg(long, value_name = "HOST,...", value_delimiter = ',')]
    passthrough: Vec<String>,
    /// Reverse mode, for clients that cannot use a proxy: they send plain HTTP
    /// (HTTP/1.1 or h2c) to this port, and each request goes to the origin
    /// (`https://api.example.com[:PORT]`),
    /// its path unchanged; with /PREFIX= only the paths under PREFIX. Repeatable:
    /// the longest prefix wins. The listener stays an HTTP(S) proxy too.
    #[arg(long, value_name = "[/PREFIX=]URL")]
    reverse: Vec<ReverseRoute>,
    /// With --reverse: the origins' URLs in Location and Content-Location answers,
    /// and in JSON and HTML bodies up to 8 MiB, point back at this proxy, so
    /// redirects and links keep the client on it.
    #[arg(long, requires = "reverse")]
    rewrite_urls: bool,
    /// The HTTP proxy origins are reached through.
    #[command(flatten)]
    upstream: UpstreamProxyArgs,
    /// SOCKS5 on the same port too (curl --socks5-hostname, ALL_PROXY=socks5h://,
    /// Chromium's --proxy-server=socks5://): its tunnels are intercepted as
    /// CONNECT tunnels are. CONNECT only; BIND and UDP ASSOCIATE are refused.
    #[arg(long)]
    socks5: bool,
    /// SOCKS5 clients must log in with this user name and password (RFC 1929;
    /// implies --socks5; HTTP proxy requests on the port ask for none). Never
    /// printed or archived; give it in AR_SOCKS5_AUTH to keep it out of `ps`.
    #[arg(
        long,
        value_name = "USER:PASSWORD",
        env = "AR_SOCKS5_AUTH",
        hide_env_values = true,
        value_parser = Masked::<Socks5Auth>::new()
    )]
    socks5_auth: Option<Socks5Auth>,
    /// Bytes of each body kept in the capture (clients always get every byte).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_BODY_CAP)]
    body_cap: usize,
    /// Path templates for the live spec (pass them to `ar import` of the archive too).
    #[command(flatten)]
    templates: TemplateArgs,
    /// A published spec to hold the traffic against, as it arrives.
    #[command(flatten)]
    against: AgainstArgs,
    /// The live web view.
    #[command(flatten)]
    ui: crate::args::UiArgs,
}

/// `ar proxy`'s standard output: a line per flow and per new endpoint,
/// written in batches (one write when the capture has caught up), not one
/// syscall each. A closed stdout (`ar proxy | head`) must not stop the
/// capture, so write errors are ignored.
struct Lines(std::io::BufWriter<std::io::Stdout>);

impl CaptureLog for Lines {
    fn flow(&mut self, flow: &Flow) {
        let _ = write_flow_line(&mut self.0, flow);
    }

    fn new_endpoint(&mut self, endpoint: &NewEndpoint) {
        let _ = writeln!(self.0, "{endpoint}");
    }

    fn flush(&mut self) {
        let _ = self.0.flush();
    }
}

/// The line of [`write_flow_line`] without its newline.
#[cfg(test)]
fn flow_line(flow: &Flow) -> String {
    let mut line = Vec::new();
    let _ = write_flow_line(&mut line, flow);
    String::from_utf8_lossy(&line).trim_end().to_string()
}

/// Writes one line per flow into `out`: status, method, URL without its query
/// (queries can hold tokens), time. This runs for every flow, so the line is
/// laid out as bytes in one buffer, with no formatter.
fn write_flow_line(out: &mut dyn Write, flow: &Flow) -> std::io::Result<()> {
    let url = flow.request.url.as_bytes();
    let url = &url[..memchr::memchr2(b'?', b'#', url).unwrap_or(url.len())];
    let mut line = Vec::with_capacity(url.len() + 32);
    match (&flow.error, flow.status()) {
        (Some(error), _) => {
            line.extend_from_slice(format!("ERR {:?}", error.kind).to_lowercase().as_bytes());
        }
        // Statuses are 3 digits: right-aligned in 4 columns.
        (None, Some(status)) => {
            line.push(b' ');
            line.extend_from_slice(itoa::Buffer::new().format(status).as_bytes());
        }
        (None, None) => line.extend_from_slice(b" ---"),
    }
    line.push(b' ');
    line.extend_from_slice(flow.request.method.as_bytes());
    line.push(b' ');
    line.extend_from_slice(url);
    if let Some(ms) = flow.duration_ms() {
        line.extend_from_slice(b" (");
        // Whole milliseconds, rounded, like `{:.0}`; the float formatter costs more than the rest of the line.
        line.extend_from_slice(
            itoa::Buffer::new()
                .format(ms.max(0.0).round() as u64)
                .as_bytes(),
        );
        line.extend_from_slice(b" ms)");
    }
    line.push(b'\n');
    out.write_all(&line)
}

pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(serve(args))
}

async fn serve(args: Args) -> anyhow::Result<ExitCode> {
    let against = args.against.read()?;
    let ca = Arc::new(ca::load(args.ca_dir)?);
    let reverse = if args.reverse.is_empty() {
        None
    } else {
        Some(ReverseRoutes::new(args.reverse)?.rewrite_urls(args.rewrite_urls))
    };
    let config = ProxyConfig {
        port: args.port,
        out_dir: args.out.clone(),
        scope: args.scope.clone(),
        upstream_ca: args.upstream_ca,
        resolve: args.resolve,
        offline: args.offline,
        passthrough: args.passthrough,
        body_cap: args.body_cap,
        templates: args.templates.read()?,
        ui_port: args.ui.port(),
        against: against.clone(),
        reverse: reverse.clone(),
        upstream_proxy: args.upstream.proxy(),
        socks5: match args.socks5_auth {
            Some(auth) => Some(Socks5::Login(auth)),
            None => args.socks5.then_some(Socks5::Open),
        },
    };
    let config_socks5 = config.socks5.clone();
    let upstream = config.upstream_proxy.as_ref().map(upstream_line);
    let lines = Box::new(Lines(std::io::BufWriter::new(std::io::stdout())));
    let capture = ProxyCapture::start(config, Arc::clone(&ca), lines).await?;
    let mut out = std::io::stdout().lock();
    let addr = capture.addr();
    let cert = ca
        .cert_path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let spki = ca.spki_sha256_base64();
    writeln!(out, "ar proxy listening on http://{addr}")?;
    writeln!(
        out,
        "  archive  {} (+ bodies/)",
        capture.archive_path().display()
    )?;
    if !args.scope.is_empty() {
        writeln!(
            out,
            "  scope    {} (the archive keeps every host)",
            args.scope.join(", ")
        )?;
    }
    writeln!(out, "  CA       {cert}  (SPKI sha256 {spki})")?;
    if let Some(upstream) = &upstream {
        writeln!(out, "{upstream}")?;
    }
    match &reverse {
        Some(routes) => {
            write_reverse(&mut out, addr, routes, &cert)?;
            writeln!(out, "It is an HTTP(S) proxy too:")?;
        }
        None => writeln!(out, "Point a client at it:")?,
    }
    writeln!(
        out,
        "  curl --proxy http://{addr} --cacert {cert} https://example.com/"
    )?;
    writeln!(
        out,
        "  export HTTP_PROXY=http://{addr} HTTPS_PROXY=http://{addr} SSL_CERT_FILE={cert} NODE_EXTRA_CA_CERTS={cert}"
    )?;
    writeln!(
        out,
        "  chromium --proxy-server=http://{addr} --ignore-certificate-errors-spki-list={spki}"
    )?;
    if let Some(who) = &config_socks5 {
        write_socks5(&mut out, addr, &cert, &spki, who)?;
    }
    if capture.corrections() > 0 {
        writeln!(
            out,
            "  templates {} corrections from {}",
            capture.corrections(),
            args.out.join(TEMPLATES_FILE).display()
        )?;
    }
    let spec = capture.spec_path();
    writeln!(
        out,
        "  spec     {} + API.md (kept current; a line per new endpoint)",
        spec.display()
    )?;
    if let Some(url) = capture.ui_url() {
        writeln!(out, "  ui       {url}")?;
    }
    if let Some(against) = &against {
        writeln!(
            out,
            "  against  {} (drift kept current in {})",
            against.name(),
            args.out
                .join(ar_session::pipeline::drift::DRIFT_MD)
                .display()
        )?;
    }
    writeln!(out, "Ctrl-C to stop.")?;
    out.flush()?;
    // The capture thread prints a line per flow from here on.
    drop(out);
    let captured = capture.run(shutdown_signal()).await?;
    let mut out = std::io::stdout().lock();
    // A closed stdout must not turn a clean capture into an error.
    let _ = writeln!(
        out,
        "archived {} flows to {}",
        captured.archived,
        captured.archive.display()
    );
    let _ = writeln!(
        out,
        "documented {} endpoints from {} in-scope flows in {}",
        captured.summary.endpoints,
        captured.summary.in_scope,
        spec.display()
    );
    if let Some(drift) = &captured.drift {
        let _ = writeln!(
            out,
            "drift: {drift} in {}",
            args.out
                .join(ar_session::pipeline::drift::DRIFT_MD)
                .display()
        );
    }
    if captured.dropped > 0 {
        let _ = writeln!(
            out,
            "warning: {} flows were dropped because the archive could not keep up",
            captured.dropped
        );
    }
    let _ = out.flush();
    Ok(ExitCode::SUCCESS)
}

/// How to point a client at the reverse proxy: its base URL in place of
/// each origin's, and a curl line to try, over plain HTTP and over HTTPS
/// (trusting the CA at `cert`).
fn write_reverse(
    out: &mut dyn Write,
    addr: std::net::SocketAddr,
    routes: &ReverseRoutes,
    cert: &str,
) -> std::io::Result<()> {
    writeln!(
        out,
        "Point a client at it in place of the origin (plain HTTP, no CA to trust):"
    )?;
    let bases: Vec<(String, String)> = (routes.routes().iter())
        .map(|route| {
            let prefix = route.prefix().trim_end_matches('/');
            (
                format!("http://{addr}{prefix}"),
                format!("{}{prefix}", route.origin()),
            )
        })
        .collect();
    let width = bases.iter().map(|(base, _)| base.len()).max().unwrap_or(0);
    for (base, origin) in &bases {
        writeln!(out, "  base URL {base:<width$} for {origin}")?;
    }
    if routes.rewrites_urls() {
        writeln!(
            out,
            "  (the origins' URLs in redirects and JSON/HTML bodies are rewritten to http://{addr},"
        )?;
        writeln!(out, "  or https://{addr} for a client over HTTPS)")?;
    }
    let example = routes.routes().first().map_or("", |r| r.prefix());
    let example = example.trim_end_matches('/');
    writeln!(out, "  curl http://{addr}{example}/")?;
    writeln!(
        out,
        "Or over HTTPS on the same port (HTTP/2 or HTTP/1.1), trusting ar's CA (see `ar ca`):"
    )?;
    writeln!(
        out,
        "  base URL https://{addr} (or https://localhost:{}, the name the client asks for)",
        addr.port()
    )?;
    writeln!(out, "  curl --cacert {cert} https://{addr}{example}/")
}

/// How to point a SOCKS5 client at the proxy: names resolved by the proxy
/// (`socks5h`, so the flows carry them), and the login when one is asked.
fn write_socks5(
    out: &mut dyn Write,
    addr: std::net::SocketAddr,
    cert: &str,
    spki: &str,
    who: &Socks5,
) -> std::io::Result<()> {
    match who {
        Socks5::Login(auth) => {
            let user = auth.user();
            writeln!(
                out,
                "SOCKS5 on the same port, for clients that log in as {user}:"
            )?;
            writeln!(
                out,
                "  curl --socks5-hostname {addr} --proxy-user {user}:PASSWORD --cacert {cert} https://example.com/"
            )?;
            writeln!(out, "  export ALL_PROXY=socks5h://{user}:PASSWORD@{addr}")?;
            writeln!(out, "  (Chromium cannot log in to a SOCKS5 proxy)")
        }
        Socks5::Open => {
            writeln!(out, "SOCKS5 on the same port:")?;
            writeln!(
                out,
                "  curl --socks5-hostname {addr} --cacert {cert} https://example.com/"
            )?;
            writeln!(out, "  export ALL_PROXY=socks5h://{addr}")?;
            writeln!(
                out,
                "  chromium --proxy-server=socks5://{addr} --ignore-certificate-errors-spki-list={spki}"
            )
        }
    }
}

/// Resolves on Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::{Client, ErrorKind, FlowId, HttpVersion, Request, Response, Timestamp};

    #[test]
    fn the_reverse_banner_gives_a_base_url_per_origin() {
        let routes = ["https://web.test", "/api=https://api.test:8443"]
            .iter()
            .map(|r| r.parse().unwrap())
            .collect();
        let routes = ReverseRoutes::new(routes).unwrap().rewrite_urls(true);
        let mut out = Vec::new();
        let addr = "127.0.0.1:8080".parse().unwrap();
        write_reverse(&mut out, addr, &routes, "/ca/ca.pem").unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        assert_eq!(
            lines,
            [
                "Point a client at it in place of the origin (plain HTTP, no CA to trust):",
                "  base URL http://127.0.0.1:8080/api for https://api.test:8443/api",
                "  base URL http://127.0.0.1:8080     for https://web.test",
                "  (the origins' URLs in redirects and JSON/HTML bodies are rewritten to http://127.0.0.1:8080,",
                "  or https://127.0.0.1:8080 for a client over HTTPS)",
                "  curl http://127.0.0.1:8080/api/",
                "Or over HTTPS on the same port (HTTP/2 or HTTP/1.1), trusting ar's CA (see `ar ca`):",
                "  base URL https://127.0.0.1:8080 (or https://localhost:8080, the name the client asks for)",
                "  curl --cacert /ca/ca.pem https://127.0.0.1:8080/api/",
            ]
        );
    }

    #[test]
    fn the_socks5_banner_says_how_to_log_in_without_the_password() {
        let addr = "127.0.0.1:8080".parse().unwrap();
        let banner = |who| {
            let mut out = Vec::new();
            write_socks5(&mut out, addr, "/ca.pem", "SPKI", &who).unwrap();
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            banner(Socks5::Open),
            "SOCKS5 on the same port:\n\
             \x20 curl --socks5-hostname 127.0.0.1:8080 --cacert /ca.pem https://example.com/\n\
             \x20 export ALL_PROXY=socks5h://127.0.0.1:8080\n\
             \x20 chromium --proxy-server=socks5://127.0.0.1:8080 --ignore-certificate-errors-spki-list=SPKI\n"
        );
        let login = banner(Socks5::Login("me:hunter2".parse().unwrap()));
        assert!(login.contains("--proxy-user me:PASSWORD"), "{login}");
        assert!(
            login.contains("socks5h://me:PASSWORD@127.0.0.1:8080"),
            "{login}"
        );
        assert!(!login.contains("hunter2"), "{login}");
    }

    #[test]
    fn flow_lines_hide_queries_and_show_errors() {
        let request = Request::new(
            "GET",
            "https://shop.test/api?token=secret",
            HttpVersion::Http11,
        );
        let flow = Flow::new(
            FlowId(1),
            Timestamp::from_unix_micros(0),
            Client::Human,
            request.clone(),
        )
        .with_response(Response::new(200, HttpVersion::Http11));
        let line = flow_line(&flow);
        assert_eq!(line, " 200 GET https://shop.test/api");
        assert!(!line.contains("secret"));
        let mut timed = flow.clone();
        timed.ended = Some(Timestamp::from_unix_micros(12_600));
        assert_eq!(flow_line(&timed), " 200 GET https://shop.test/api (13 ms)");
        let failed = Flow::new(
            FlowId(2),
            Timestamp::from_unix_micros(0),
            Client::Human,
            request,
        )
        .with_error(ErrorKind::Tls, "bad cert");
        assert!(
            flow_line(&failed).starts_with("err tls"),
            "{}",
            flow_line(&failed)
        );
    }
}
