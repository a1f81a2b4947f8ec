//! `ar proxy`: capture-only mode. Any client (curl, an app, a script, an
//! AI coding agent) uses it as its HTTP(S) proxy; every exchange is
//! appended to `OUT/flows.jsonl` (+ `bodies/`).
//!
//! Flows arrive from the proxy in batches (one per delivery tick). Each
//! batch goes through one place, [`Ingest`], which archives it with one
//! write, then the same flows (moved, not copied) are offered to the spec
//! pipeline ([`LiveDocs`], its own thread): `openapi.yaml`, `openapi.json`
//! and `API.md` kept current (rewritten at most once a second and on exit),
//! a line per new endpoint. The spec side is best effort: a batch it has no
//! room for is archived but not documented, and counted.

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
use crate::pipeline::live::{DEFAULT_BACKLOG, DEFAULT_INTERVAL, LiveDocs};
use crate::pipeline::{Pipeline, PipelineConfig};

/// Batches (one per proxy delivery tick, 20 ms) buffered between the proxy and
/// the archive before the proxy starts dropping (and counting) them rather
/// than slowing traffic down: about 10 s of traffic.
const BATCH_QUEUE: usize = 512;

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
    fn ingest(&mut self, flow: &Flow, out: &mut dyn Write) -> anyhow::Result<()>;
    /// Called after each batch of flows: write out what was buffered, so a
    /// burst costs one write and no flow waits in a buffer once the batch is done.
    fn idle(&mut self, out: &mut dyn Write) -> anyhow::Result<()>;
    /// Called once on exit, after the last flow: flush everything.
    fn finish(&mut self, out: &mut dyn Write) -> anyhow::Result<()>;
}

/// Archive-only ingest: every flow appended to `flows.jsonl`, one line printed per flow.
pub(crate) struct ArchiveIngest {
    archive: ArchiveDir,
}

impl Ingest for ArchiveIngest {
    fn ingest(&mut self, flow: &Flow, out: &mut dyn Write) -> anyhow::Result<()> {
        self.archive.append(flow)?;
        // A closed stdout (`ar proxy | head`) must not stop the capture.
        let _ = write_flow_line(out, flow);
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

/// Archives one batch: every flow appended, then one write for all of them.
fn archive_batch(
    ingest: &mut dyn Ingest,
    flows: &[Flow],
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    for flow in flows {
        ingest.ingest(flow, out)?;
    }
    ingest.idle(out)
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
    let (tx, mut batches) = mpsc::channel::<Vec<Flow>>(BATCH_QUEUE);
    let spec_pipeline = Pipeline::new(PipelineConfig::default().with_scope_hosts(&args.scope))?;
    let mut builder = Proxy::builder(Arc::clone(&ca))
        .port(args.port)
        .batch_sink(tx)
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
    // Documenting runs on its own thread, fed the archived batches without waiting.
    let mut spec = LiveDocs::spawn(
        spec_pipeline,
        args.out.clone(),
        DEFAULT_BACKLOG,
        DEFAULT_INTERVAL,
        move |new| {
            let _ = new_tx.send(new.to_string());
        },
        |error| eprintln!("ar: warning: cannot update the spec: {error:#}"),
    )?;

    let handle = proxy.spawn();
    let stop = shutdown_signal();
    tokio::pin!(stop);
    // This loop runs on the thread that called `block_on`, not on a runtime
    // worker, so the archive's file writes never hold up the proxy's tasks.
    loop {
        tokio::select! {
            () = &mut stop => break,
            batch = batches.recv() => {
                let Some(mut flows) = batch else { break };
                // Whatever else is queued goes out in the same write.
                while let Ok(more) = batches.try_recv() {
                    flows.extend(more);
                }
                archive_batch(&mut ingest, &flows, out)?;
                spec.offer(flows);
            }
            Some(line) = new_endpoints.recv() => {
                let _ = writeln!(out, "{line}");
                while let Ok(line) = new_endpoints.try_recv() {
                    let _ = writeln!(out, "{line}");
                }
                let _ = out.flush();
            }
        }
    }
    let stats = handle.shutdown().await;
    // Flows that finished while shutting down are archived (and documented) too.
    while let Ok(flows) = batches.try_recv() {
        archive_batch(&mut ingest, &flows, out)?;
        spec.offer(flows);
    }
    ingest.finish(out)?;
    let dropped_live = stats.dropped_live + spec.dropped();
    // Blocking is fine here: this is the `block_on` thread and the proxy has stopped.
    let spec = spec.finish()?;
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
    if dropped_live > 0 {
        let _ = writeln!(
            out,
            "warning: {dropped_live} flows were archived but not documented because the spec builder could not keep up",
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
