//! The capture proxy alone (`ar proxy`): any client (curl, an app, a
//! script, an AI coding agent) uses it as its HTTP(S) proxy (or SOCKS5 one), or, in reverse
//! mode, as the origin it sends plain requests to; every exchange
//! is appended to `OUT/flows.jsonl` (+ `bodies/`), and `openapi.yaml`,
//! `openapi.json` and `API.md` are kept current beside it.
//!
//! Flows arrive from the proxy in batches (one per delivery tick). The
//! capture work (`Capture`) archives a slice of `SLICE_FLOWS` flows,
//! tells the [`CaptureLog`] about each, then documents the same flows
//! (rewritten at most once a second and on exit), telling the log about
//! each new endpoint. The archive lines go out in one write once the flows
//! received are done. The capture driver ([`crate::pipeline::capture_threads`],
//! which sessions use too) runs it at the lowest CPU priority, with a thread
//! of normal priority to catch up when it falls behind.
//!
//! [`ProxyCapture::start`] binds the proxy (and the web view) without
//! serving yet, so the caller can say where everything is before the first
//! flow; [`ProxyCapture::run`] serves until the future it is given resolves.

mod view;

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use ar_capture::{CertificateAuthority, Proxy, ReverseRoutes, Socks5, UpstreamProxy};
use ar_store::{Client, Flow};
use ar_web::{Live, SessionView, WebConfig, WebUi};
use tokio::sync::{mpsc, oneshot};

use crate::archive_dir::ArchiveDir;
use crate::pipeline::capture_threads::{self, Job, Pace, Work};
use crate::pipeline::live::{DEFAULT_INTERVAL, LiveDocs};
use crate::pipeline::redocument::corrections_first;
use crate::pipeline::{NewEndpoint, Pipeline, PipelineConfig, Summary, read_dir_templates};
use crate::web::{PipelineBackend, Replayer};

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

/// What the capture proxy is asked to do, checked by the caller (`ar
/// proxy`'s flags).
#[derive(Debug, Clone)]
pub struct ProxyConfig {
    /// Port on 127.0.0.1 to listen on (0 picks a free one).
    pub port: u16,
    /// Where the archive and the documents go (created if missing).
    pub out_dir: PathBuf,
    /// Hosts the spec is about; the archive keeps every host.
    pub scope: Vec<String>,
    /// Extra PEM roots to trust for upstream TLS.
    pub upstream_ca: Vec<PathBuf>,
    /// `HOST:PORT:ADDR` entries for upstream connections.
    pub resolve: Vec<String>,
    /// Dial only `resolve`d hosts and loopback.
    pub offline: bool,
    /// Hosts whose TLS is relayed untouched.
    pub passthrough: Vec<String>,
    /// Bytes of each body kept in the capture.
    pub body_cap: usize,
    /// User path templates (checked); the web view's corrections kept in
    /// `out_dir` go before them.
    pub templates: Vec<String>,
    /// The live web view's port (0 = any), or `None` for no web view.
    pub ui_port: Option<u16>,
    /// The published spec the traffic is held against (`--against`), read and checked.
    pub against: Option<ar_diff::Baseline>,
    /// Reverse mode (`--reverse`): where plain requests on the listener go.
    pub reverse: Option<ReverseRoutes>,
    /// The HTTP proxy origins are reached through (`--upstream-proxy`).
    pub upstream_proxy: Option<UpstreamProxy>,
    /// SOCKS5 on the proxy's port too (`--socks5`, `--socks5-auth`).
    pub socks5: Option<Socks5>,
}

/// Told about each flow and each new endpoint, on the capture thread, in
/// the order they are captured (`ar proxy` prints a line for each).
pub trait CaptureLog: Send {
    /// A flow, just archived.
    fn flow(&mut self, flow: &Flow);
    /// An endpoint the flows documented so far did not have.
    fn new_endpoint(&mut self, endpoint: &NewEndpoint);
    /// The flows received so far are done: write out what is buffered.
    fn flush(&mut self);
}

/// What a capture left behind, once it stopped.
#[derive(Debug, Clone)]
pub struct Captured {
    /// Flows archived.
    pub archived: u64,
    /// The archive file.
    pub archive: PathBuf,
    /// The documents' counts, as last written.
    pub summary: Summary,
    /// With `--against`: the drift's counts in a line (DRIFT.md has the findings).
    pub drift: Option<String>,
    /// Flows the proxy dropped because the archive could not keep up.
    pub dropped: u64,
}

/// The capture proxy, bound and ready to serve.
pub struct ProxyCapture {
    proxy: Proxy,
    capture: Capture,
    batches: mpsc::Receiver<Vec<Flow>>,
    jobs: mpsc::UnboundedReceiver<Job<Capture>>,
    /// Kept until the end: dropping it stops the web view.
    ui: Option<WebUi>,
    corrections: usize,
}

impl ProxyCapture {
    /// Opens the archive in `config.out_dir`, binds the proxy with `ca` and
    /// starts the web view (when asked); nothing is served before
    /// [`ProxyCapture::run`].
    pub async fn start(
        config: ProxyConfig,
        ca: Arc<CertificateAuthority>,
        log: Box<dyn CaptureLog>,
    ) -> anyhow::Result<Self> {
        std::fs::create_dir_all(&config.out_dir)
            .with_context(|| format!("cannot create {}", config.out_dir.display()))?;
        let archive = ArchiveDir::open(&config.out_dir)?;
        let (tx, batches) = mpsc::channel::<Vec<Flow>>(capture_threads::BATCH_QUEUE);
        // Corrections made in the web view of an earlier `ar proxy` here.
        let corrections = read_dir_templates(&config.out_dir)?;
        let mut pipeline_config = PipelineConfig::default()
            .with_scope_hosts(&config.scope)
            .with_templates(&corrections_first(&corrections, &config.templates))?;
        pipeline_config.against = config.against;
        let pipeline = Pipeline::new(pipeline_config)?;
        let mut builder = Proxy::builder(Arc::clone(&ca))
            .port(config.port)
            .batch_sink(tx)
            .body_cap(config.body_cap)
            .offline(config.offline)
            .client(Client::Human);
        for path in &config.upstream_ca {
            builder = builder.upstream_roots_pem(path)?;
        }
        for entry in &config.resolve {
            builder = builder.resolve_entry(entry)?;
        }
        for host in &config.passthrough {
            builder = builder.passthrough(host);
        }
        if let Some(routes) = config.reverse {
            builder = builder.reverse(routes);
        }
        if let Some(upstream) = config.upstream_proxy {
            builder = builder.upstream_proxy(upstream);
        }
        if let Some(who) = config.socks5 {
            builder = builder.socks5(who);
        }
        let proxy = builder.bind().await?;
        let addr = proxy.local_addr();
        let (jobs, jobs_rx) = view::Jobs::channel();
        let ui = match config.ui_port {
            Some(port) => {
                let live = Live::new(SessionView::new(format!("ar proxy on http://{addr}")));
                live.set_driver("human");
                let web = WebConfig::port(port).on_refusal(|line| eprintln!("ar: warning: {line}"));
                let backend = PipelineBackend::new(
                    jobs.runner(),
                    jobs.templater(),
                    Replayer::new(addr, ca.cert_der().clone())?,
                    config.out_dir.clone(),
                );
                let ui = WebUi::start(web, live.clone(), backend)
                    .await
                    .context("cannot start the live web view (--no-ui goes without it)")?;
                Some((ui, live))
            }
            None => None,
        };
        // Without a web view nothing sends jobs: the capture thread sees the channel closed.
        drop(jobs);
        let count = corrections.len();
        let capture = Capture {
            archive,
            docs: LiveDocs::new(pipeline, config.out_dir, DEFAULT_INTERVAL),
            log,
            live: ui.as_ref().map(|(_, live)| live.clone()),
            corrections,
            given: config.templates,
        };
        Ok(Self {
            proxy,
            capture,
            batches,
            jobs: jobs_rx,
            ui: ui.map(|(ui, _)| ui),
            corrections: count,
        })
    }

    /// Where the proxy listens.
    pub fn addr(&self) -> SocketAddr {
        self.proxy.local_addr()
    }

    /// The archive file (`flows.jsonl`).
    pub fn archive_path(&self) -> &Path {
        self.capture.archive.path()
    }

    /// `openapi.yaml` (`openapi.json` and `API.md` are beside it).
    pub fn spec_path(&self) -> PathBuf {
        self.capture.docs.out_dir().join("openapi.yaml")
    }

    /// How many corrections from an earlier run's web view apply.
    pub fn corrections(&self) -> usize {
        self.corrections
    }

    /// The web view's address (with its token), when it runs.
    pub fn ui_url(&self) -> Option<String> {
        self.ui.as_ref().map(|ui| ui.url().to_string())
    }

    /// Serves until `stop` resolves, or until the capture fails (say, the
    /// archive's disk is full: nothing is lost silently); flows that
    /// finish while the proxy shuts down are archived and documented too.
    pub async fn run(self, stop: impl Future<Output = ()>) -> anyhow::Result<Captured> {
        let Self {
            proxy,
            capture,
            batches,
            jobs,
            ui,
            ..
        } = self;
        let (stop_capture, stop_rx) = oneshot::channel();
        let (done, mut captured) = oneshot::channel();
        let runtime = tokio::runtime::Handle::current();
        std::thread::Builder::new()
            .name("ar-capture".into())
            .spawn(move || {
                let inputs = capture_threads::Inputs {
                    batches,
                    jobs,
                    stop: stop_rx,
                };
                let _ = done.send(capture_threads::serve(capture, inputs, PACE, &runtime));
            })
            .context("cannot start the capture thread")?;
        let handle = proxy.spawn();
        let ended_early = tokio::select! {
            () = stop => None,
            result = &mut captured => Some(result),
        };
        let stats = handle.shutdown().await;
        let _ = stop_capture.send(());
        let result = match ended_early {
            Some(result) => result,
            None => captured.await,
        };
        let capture = result.map_err(|_| anyhow::anyhow!("the capture thread panicked"))??;
        let captured = capture.finish(stats.dropped_archive);
        drop(ui);
        captured
    }
}

/// What `ar proxy` does with each flow, a slice of flows at a time.
struct Capture {
    archive: ArchiveDir,
    docs: LiveDocs,
    log: Box<dyn CaptureLog>,
    /// The live web view's feed, when it runs.
    live: Option<Live>,
    /// The web view's corrections, latest first (kept in the output directory).
    corrections: Vec<String>,
    /// The templates given by the caller, after the corrections.
    given: Vec<String>,
}

impl Work for Capture {
    /// Archives and logs `flows`, then documents them. The archive lines
    /// go to a buffer ([`Work::caught_up`] writes it). An archive error
    /// stops the proxy: nothing is lost silently.
    fn take(&mut self, flows: &[Flow]) -> anyhow::Result<()> {
        for flow in flows {
            self.archive.append(flow)?;
            self.log.flow(flow);
        }
        let log = &mut self.log;
        for flow in flows {
            let ingest = self.docs.ingest(flow, |new| log.new_endpoint(new))?;
            if let Some(live) = &self.live {
                crate::web::record(live, flow, ingest);
            }
        }
        Ok(())
    }

    /// Writes out what is buffered (the archive lines in one write, the
    /// log's lines) and rewrites the documents if they are due.
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
        self.log.flush();
        Ok(())
    }
}

impl Capture {
    /// On exit: the archive forced to disk and the documents written one
    /// last time.
    fn finish(self, dropped: u64) -> anyhow::Result<Captured> {
        let Self {
            mut archive,
            docs,
            mut log,
            ..
        } = self;
        archive.sync()?;
        log.flush();
        let pipeline = docs.finish()?;
        Ok(Captured {
            archived: archive.written(),
            archive: archive.path().to_path_buf(),
            summary: pipeline.summary(),
            drift: pipeline.drift_report().map(|report| report.headline()),
            dropped,
        })
    }
}
