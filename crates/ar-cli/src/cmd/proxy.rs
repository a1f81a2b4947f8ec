//! `ar proxy`: capture-only mode. Any client (curl, an app, a script, an
//! AI coding agent) uses it as its HTTP(S) proxy; every exchange is
//! appended to `OUT/flows.jsonl` (+ `bodies/`).
//!
//! Every flow goes through one place, [`Ingest`], which archives it. A
//! second, best-effort copy of each flow feeds the spec pipeline
//! ([`LiveDocs`]): `openapi.yaml`, `openapi.json` and `API.md` kept current
//! (rewritten at most once a second and on exit), a line per new endpoint.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use ar_capture::{DEFAULT_BODY_CAP, Proxy};
use ar_store::{Client, Flow};
use tokio::sync::mpsc;

use crate::archive_dir::ArchiveDir;
use crate::cmd::ca;
use crate::pipeline::live::{DEFAULT_INTERVAL, LiveDocs};
use crate::pipeline::{Pipeline, PipelineConfig};

/// Flows buffered between the proxy and the archive before the proxy starts
/// dropping (and counting) them rather than slowing traffic down.
const FLOW_QUEUE: usize = 16 * 1024;

/// How often captured flows are taken from the proxy's queue and archived.
const INGEST_TICK: std::time::Duration = std::time::Duration::from_millis(5);

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
    /// Bytes of each body kept in the capture (clients always get every byte).
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_BODY_CAP)]
    body_cap: usize,
}

/// What `ar proxy` does with each captured flow.
pub(crate) trait Ingest {
    /// Takes one finished flow. An error stops the proxy (nothing is lost silently).
    fn ingest(&mut self, flow: Flow, out: &mut dyn Write) -> anyhow::Result<()>;
    /// Called after each batch of flows: write out what was buffered, so a
    /// burst costs one write and the files are never more than a tick behind.
    fn idle(&mut self, out: &mut dyn Write) -> anyhow::Result<()>;
    /// Called once on exit, after the last flow: flush everything.
    fn finish(&mut self, out: &mut dyn Write) -> anyhow::Result<()>;
}

/// Archive-only ingest: every flow appended to `flows.jsonl`, one line printed per flow.
pub(crate) struct ArchiveIngest {
    archive: ArchiveDir,
}

impl Ingest for ArchiveIngest {
    fn ingest(&mut self, flow: Flow, out: &mut dyn Write) -> anyhow::Result<()> {
        self.archive.append(&flow)?;
        // A closed stdout (`ar proxy | head`) must not stop the capture.
        let _ = writeln!(out, "{}", flow_line(&flow));
        Ok(())
    }

    fn idle(&mut self, out: &mut dyn Write) -> anyhow::Result<()> {
        self.archive.flush()?;
        let _ = out.flush();
        Ok(())
    }

    fn finish(&mut self, out: &mut dyn Write) -> anyhow::Result<()> {
        self.archive.sync()?;
        let _ = out.flush();
        let _ = writeln!(
            out,
            "archived {} flows to {}",
            self.archive.written(),
            self.archive.path().display()
        );
        Ok(())
    }
}

/// One line per flow: status, method, URL without its query (queries can hold tokens), time.
fn flow_line(flow: &Flow) -> String {
    let url = flow
        .request
        .url
        .split(['?', '#'])
        .next()
        .unwrap_or_default();
    let status = match (&flow.error, flow.status()) {
        (Some(error), _) => format!("ERR {:?}", error.kind).to_lowercase(),
        (None, Some(status)) => status.to_string(),
        (None, None) => "---".into(),
    };
    let ms = flow
        .duration_ms()
        .map(|d| format!(" ({d:.0} ms)"))
        .unwrap_or_default();
    format!("{status:>4} {} {url}{ms}", flow.request.method)
}

pub(crate) fn run(args: Args, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // Per-flow lines are written in batches (see `Ingest::idle`), not one syscall each.
    let mut out = std::io::BufWriter::new(out);
    runtime.block_on(serve(args, &mut out))
}

async fn serve(args: Args, out: &mut dyn Write) -> anyhow::Result<ExitCode> {
    let ca = Arc::new(ca::load(args.ca_dir)?);
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut ingest = ArchiveIngest {
        archive: ArchiveDir::open(&args.out)?,
    };
    let (tx, mut flows) = mpsc::channel(FLOW_QUEUE);
    // The spec is built from a second, best-effort channel: documenting never slows traffic.
    let (live_tx, live_flows) = mpsc::channel(FLOW_QUEUE);
    let spec_pipeline = Pipeline::new(PipelineConfig::default().with_scope_hosts(&args.scope))?;
    let mut builder = Proxy::builder(Arc::clone(&ca))
        .port(args.port)
        .archive_sink(tx)
        .live_sink(live_tx)
        .body_cap(args.body_cap)
        .offline(args.offline)
        .client(Client::Human);
    for path in &args.upstream_ca {
        builder = builder.upstream_roots_pem(path)?;
    }
    for entry in &args.resolve {
        builder = builder.resolve_entry(entry)?;
    }
    for host in &args.passthrough {
        builder = builder.passthrough(host);
    }
    let proxy = builder.bind().await?;
    let addr = proxy.local_addr();
    let cert = ca
        .cert_path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let spki = ca.spki_sha256_base64();
    writeln!(out, "ar proxy listening on http://{addr}")?;
    writeln!(
        out,
        "  archive  {} (+ bodies/)",
        ingest.archive.path().display()
    )?;
    if !args.scope.is_empty() {
        writeln!(
            out,
            "  scope    {} (the archive keeps every host)",
            args.scope.join(", ")
        )?;
    }
    writeln!(out, "  CA       {cert}  (SPKI sha256 {spki})")?;
    writeln!(out, "Point a client at it:")?;
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
    writeln!(
        out,
        "  spec     {} + API.md (kept current; a line per new endpoint)",
        args.out.join("openapi.yaml").display()
    )?;
    writeln!(out, "Ctrl-C to stop.")?;
    out.flush()?;
    let (new_tx, mut new_endpoints) = mpsc::unbounded_channel();
    let spec = LiveDocs::spawn(
        spec_pipeline,
        args.out.clone(),
        live_flows,
        DEFAULT_INTERVAL,
        move |new| {
            let _ = new_tx.send(new.to_string());
        },
        |error| eprintln!("ar: warning: cannot update the spec: {error:#}"),
    );

    let handle = proxy.spawn();
    let stop = shutdown_signal();
    tokio::pin!(stop);
    // Drain on a short tick instead of waking on every flow: a wake-up per
    // flow costs the proxy a thread switch per request under load.
    let mut tick = tokio::time::interval(INGEST_TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = &mut stop => break,
            _ = tick.tick() => {
                let mut any = false;
                while let Ok(flow) = flows.try_recv() {
                    ingest.ingest(flow, out)?;
                    any = true;
                }
                if any {
                    ingest.idle(out)?;
                }
                while let Ok(line) = new_endpoints.try_recv() {
                    let _ = writeln!(out, "{line}");
                    let _ = out.flush();
                }
            }
        }
    }
    let stats = handle.stats();
    handle.shutdown().await;
    // Flows that finished while shutting down are archived too.
    while let Ok(flow) = flows.try_recv() {
        ingest.ingest(flow, out)?;
    }
    ingest.finish(out)?;
    let spec = spec.finish().await?;
    while let Ok(line) = new_endpoints.try_recv() {
        let _ = writeln!(out, "{line}");
    }
    let summary = spec.summary();
    let _ = writeln!(
        out,
        "documented {} endpoints from {} in-scope flows in {}",
        summary.endpoints,
        summary.in_scope,
        args.out.join("openapi.yaml").display()
    );
    if stats.dropped_live > 0 {
        let _ = writeln!(
            out,
            "warning: {} flows were archived but not documented because the spec builder could not keep up",
            stats.dropped_live
        );
    }
    if stats.dropped_archive > 0 {
        let _ = writeln!(
            out,
            "warning: {} flows were dropped because the archive could not keep up",
            stats.dropped_archive
        );
    }
    Ok(ExitCode::SUCCESS)
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
    use ar_store::{ErrorKind, FlowId, HttpVersion, Request, Response, Timestamp};

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
        assert!(line.contains(" 200 GET https://shop.test/api"), "{line}");
        assert!(!line.contains("secret"));
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
