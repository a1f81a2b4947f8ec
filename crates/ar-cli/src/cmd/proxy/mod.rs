//! `ar proxy`: capture-only mode. Any client (curl, an app, a script, an
//! AI coding agent) uses it as its HTTP(S) proxy; every exchange is
//! appended to `OUT/flows.jsonl` (+ `bodies/`).
//!
//! Flows arrive from the proxy in batches (one per delivery tick). The
//! capture work ([`Capture`]) archives a slice of [`SLICE_FLOWS`] flows,
//! prints a line per flow, then documents the same flows: `openapi.yaml`,
//! `openapi.json` and `API.md` kept current (rewritten at most once a second
//! and on exit), a line per new endpoint. The archive lines go out in one
//! write once the flows received are done. The capture driver
//! ([`ar_session::pipeline::capture_threads`], which sessions use too) runs it at the
//! lowest CPU priority, with a thread of normal priority to catch up when it
//! falls behind.

mod view;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use ar_capture::{DEFAULT_BODY_CAP, Proxy};
use ar_store::{Client, Flow};
use tokio::sync::{mpsc, oneshot};

use crate::args::TemplateArgs;
use crate::cmd::ca;
use ar_session::archive_dir::ArchiveDir;
use ar_session::pipeline::capture_threads::{self, Pace, Work};
use ar_session::pipeline::live::{DEFAULT_INTERVAL, LiveDocs};
use ar_session::pipeline::redocument::corrections_first;
use ar_session::pipeline::{Pipeline, PipelineConfig, TEMPLATES_FILE, read_dir_templates};
use ar_session::web::{PipelineBackend, Replayer};
use ar_web::{Live, SessionView, WebConfig, WebUi};

/// Flows captured at a time (about 50 µs of work): the low-priority capture
/// thread offers its core to a relay worker between two slices, and the
/// helper can take over there.
const SLICE_FLOWS: usize = 8;

/// How `ar proxy`'s capture work is paced: a slice at a time at the lowest
/// priority, relaying first.
const PACE: Pace = Pace {
    slice: SLICE_FLOWS,
    idle: DEFAULT_INTERVAL,
    low_priority: true,
};

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
    /// Path templates for the live spec (pass them to `ar import` of the archive too).
    #[command(flatten)]
    templates: TemplateArgs,
    /// The live web view.
    #[command(flatten)]
    ui: crate::args::UiArgs,
}

/// What `ar proxy` does with each flow, a slice of flows at a time.
struct Capture {
    archive: ArchiveDir,
    docs: LiveDocs,
    /// Standard output: a line per flow and per new endpoint.
    out: Box<dyn Write + Send>,
    /// The live web view's feed, when it runs.
    live: Option<Live>,
    /// The web view's corrections, latest first (kept in [`TEMPLATES_FILE`]).
    corrections: Vec<String>,
    /// The templates given on the command line, after the corrections.
    given: Vec<String>,
}

impl Work for Capture {
    /// Archives and prints `flows`, then documents them. The archive lines
    /// go to a buffer ([`Work::caught_up`] writes it). An archive error
    /// stops the proxy: nothing is lost silently.
    fn take(&mut self, flows: &[Flow]) -> anyhow::Result<()> {
        for flow in flows {
            self.archive.append(flow)?;
            // A closed stdout (`ar proxy | head`) must not stop the capture.
            let _ = write_flow_line(&mut self.out, flow);
        }
        let out = &mut self.out;
        for flow in flows {
            let ingest = self.docs.ingest(flow, |new| {
                let _ = writeln!(out, "{new}");
            })?;
            if let Some(live) = &self.live {
                ar_session::web::record(live, flow, ingest);
            }
        }
        Ok(())
    }

    /// Writes out what is buffered (the archive lines in one write, the
    /// printed lines) and rewrites the documents if they are due.
    fn caught_up(&mut self) -> anyhow::Result<()> {
        self.archive.flush()?;
        // Capture goes on when the spec cannot be written (a full disk, say): the next due write retries.
        match self.docs.write_if_due() {
            Ok(written) => {
                if let Some(live) = &self.live {
                    let summary = self.docs.summary();
                    live.set_counters(vec![
                        ("flows".to_owned(), summary.flows),
                        ("in scope".to_owned(), summary.in_scope),
                        ("endpoints".to_owned(), summary.endpoints),
                    ]);
                    if written {
                        live.spec_written();
                    }
                }
            }
            Err(error) => eprintln!("ar: warning: cannot update the spec: {error:#}"),
        }
        let _ = self.out.flush();
        Ok(())
    }
}

impl Capture {
    /// On exit: the archive forced to disk, the documents written one last
    /// time, and a summary of both, with the flows the proxy had to drop.
    fn finish(self, spec: &std::path::Path, dropped: u64) -> anyhow::Result<()> {
        let Self {
            mut archive,
            docs,
            mut out,
            ..
        } = self;
        archive.sync()?;
        let _ = writeln!(
            out,
            "archived {} flows to {}",
            archive.written(),
            archive.path().display()
        );
        let summary = docs.finish()?.summary();
        let _ = writeln!(
            out,
            "documented {} endpoints from {} in-scope flows in {}",
            summary.endpoints,
            summary.in_scope,
            spec.display()
        );
        if dropped > 0 {
            let _ = writeln!(
                out,
                "warning: {dropped} flows were dropped because the archive could not keep up"
            );
        }
        let _ = out.flush();
        Ok(())
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
    // Per-flow lines are written in batches (see `Capture::run`), not one syscall each.
    let mut out = std::io::BufWriter::new(std::io::stdout());
    let ca = Arc::new(ca::load(args.ca_dir)?);
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let archive = ArchiveDir::open(&args.out)?;
    let (tx, batches) = mpsc::channel::<Vec<Flow>>(capture_threads::BATCH_QUEUE);
    let given = args.templates.read()?;
    // Corrections made in the web view of an earlier `ar proxy` here.
    let corrections = read_dir_templates(&args.out)?;
    let spec_pipeline = Pipeline::new(
        PipelineConfig::default()
            .with_scope_hosts(&args.scope)
            .with_templates(&corrections_first(&corrections, &given))?,
    )?;
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
    writeln!(out, "  archive  {} (+ bodies/)", archive.path().display())?;
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
    if !corrections.is_empty() {
        writeln!(
            out,
            "  templates {} corrections from {}",
            corrections.len(),
            args.out.join(TEMPLATES_FILE).display()
        )?;
    }
    let spec_path = args.out.join("openapi.yaml");
    writeln!(
        out,
        "  spec     {} + API.md (kept current; a line per new endpoint)",
        spec_path.display()
    )?;
    let (jobs, jobs_rx) = view::Jobs::channel();
    // Kept until the end: dropping it stops the web view.
    let ui = match args.ui.port() {
        Some(port) => {
            let live = Live::new(SessionView::new(format!("ar proxy on http://{addr}")));
            live.set_driver("human");
            let config = WebConfig::port(port).on_refusal(|line| eprintln!("ar: warning: {line}"));
            let backend = PipelineBackend::new(
                jobs.runner(),
                jobs.templater(),
                Replayer::new(addr, ca.cert_der().clone())?,
                args.out.clone(),
            );
            let ui = WebUi::start(config, live.clone(), backend)
                .await
                .context("cannot start the live web view (--no-ui goes without it)")?;
            writeln!(out, "  ui       {}", ui.url())?;
            Some((ui, live))
        }
        None => None,
    };
    writeln!(out, "Ctrl-C to stop.")?;
    out.flush()?;
    let capture = Capture {
        archive,
        docs: LiveDocs::new(spec_pipeline, args.out.clone(), DEFAULT_INTERVAL),
        out: Box::new(out),
        live: ui.as_ref().map(|(_, live)| live.clone()),
        corrections,
        given,
    };
    // Without a web view nothing sends jobs: the capture thread sees the channel closed.
    drop(jobs);
    let (stop_capture, stop) = oneshot::channel();
    let (done, mut captured) = oneshot::channel();
    let runtime = tokio::runtime::Handle::current();
    std::thread::Builder::new()
        .name("ar-capture".into())
        .spawn(move || {
            let inputs = capture_threads::Inputs {
                batches,
                jobs: jobs_rx,
                stop,
            };
            let _ = done.send(capture_threads::serve(capture, inputs, PACE, &runtime));
        })
        .context("cannot start the capture thread")?;

    let handle = proxy.spawn();
    // A capture error (say, the archive's disk is full) stops the proxy too: nothing is lost silently.
    let ended_early = tokio::select! {
        () = shutdown_signal() => None,
        result = &mut captured => Some(result),
    };
    let stats = handle.shutdown().await;
    // Flows that finished while shutting down are archived (and documented) too.
    let _ = stop_capture.send(());
    let result = match ended_early {
        Some(result) => result,
        None => captured.await,
    };
    let capture = result.map_err(|_| anyhow::anyhow!("the capture thread panicked"))??;
    capture.finish(&spec_path, stats.dropped_archive)?;
    drop(ui);
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
