//! The capture task: the one owner of the pipeline (archive, store,
//! documenter, documents). Flows arrive from the proxy's channel; the
//! session asks questions through a request channel; counters are published
//! on a watch channel so the status line never waits for the task.
//!
//! Documents are rewritten by the pipeline's debounce (at most once a second,
//! only when something changed), checked on every flow and on a timer, so a
//! new endpoint is on disk within a second even when traffic stops.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use ar_store::Flow;
use ar_store::scope::ScopeConfig;
use ar_store::store::Query;
use tokio::sync::{mpsc, oneshot, watch};

use super::archive::{self, DirArchive, FLOWS_FILE};
use super::config::SessionConfig;
use super::core::Event;
use super::status::Counters;
use crate::pipeline::write::Debounce;
use crate::pipeline::{Pipeline, PipelineConfig};

/// How often the task checks whether documents are due.
const TICK: Duration = Duration::from_millis(200);

/// The file `capture.har` is written to on `/save` and at exit.
pub(crate) const HAR_FILE: &str = "capture.har";

enum Request {
    Endpoints(Option<String>, oneshot::Sender<Vec<String>>),
    Spec(oneshot::Sender<String>),
    Save(oneshot::Sender<anyhow::Result<String>>),
    Finish,
}

/// What was written at the end.
#[derive(Debug, Clone)]
pub(crate) struct Written {
    /// The final counters.
    pub(crate) counters: Counters,
    /// The files written, for the message.
    pub(crate) files: String,
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.files)
    }
}

/// The session's handle on the capture task.
pub(crate) struct Capture {
    requests: mpsc::UnboundedSender<Request>,
    counters: watch::Receiver<Counters>,
    next_flow_id: u64,
    task: tokio::task::JoinHandle<anyhow::Result<Written>>,
}

impl Capture {
    /// Opens the pipeline in the output directory (re-ingesting the archive
    /// when resuming) and starts the task.
    pub(crate) fn start(
        config: &SessionConfig,
        flows: mpsc::Receiver<Flow>,
        events: mpsc::UnboundedSender<Event>,
        out: &mut dyn Write,
    ) -> anyhow::Result<Self> {
        let dir = config.out_dir.clone();
        let archive_path = dir.join(FLOWS_FILE);
        if !config.resume && std::fs::metadata(&archive_path).is_ok_and(|m| m.len() > 0) {
            bail!(
                "{} already holds a session: carry it on with --resume {}",
                dir.display(),
                dir.display()
            );
        }
        let mut scope = ScopeConfig::for_target(config.target.as_str());
        scope.extra_hosts.clone_from(&config.scope);
        let mut pipeline = Pipeline::new(PipelineConfig {
            scope,
            ..PipelineConfig::default()
        })?;
        let mut books = Books::default();
        for warning in
            archive::read_flows(&dir, |flow| books.ingest(&mut pipeline, &flow).map(drop))?
        {
            writeln!(out, "  warning  {warning}")?;
        }
        let pipeline = pipeline.with_archive(Box::new(DirArchive::open(&dir)?));
        let counters = books.counters(&pipeline);
        if config.resume {
            writeln!(
                out,
                "  resumed  {} flows, {} endpoints from {}",
                counters.flows,
                counters.endpoints,
                dir.display()
            )?;
        }
        let next_flow_id = books.next_id.max(1);
        let (requests, requests_rx) = mpsc::unbounded_channel();
        let (counters_tx, counters_rx) = watch::channel(counters);
        let task = tokio::task::spawn_blocking(move || {
            let runtime = tokio::runtime::Handle::current();
            let task = Task {
                pipeline,
                books,
                dir,
                counters: counters_tx,
                events,
                debounce: Debounce::new(WRITE_EVERY),
            };
            runtime.block_on(task.serve(flows, requests_rx))
        });
        Ok(Self {
            requests,
            counters: counters_rx,
            next_flow_id,
            task,
        })
    }

    /// The id the proxy's first flow should get (after the archive's last).
    pub(crate) fn next_flow_id(&self) -> u64 {
        self.next_flow_id
    }

    /// The latest counters.
    pub(crate) fn counters(&self) -> Counters {
        *self.counters.borrow()
    }

    /// `/flows [q]`: one line per endpoint.
    pub(crate) async fn list_endpoints(
        &self,
        query: Option<&str>,
        out: &mut dyn Write,
    ) -> anyhow::Result<()> {
        let (tx, rx) = oneshot::channel();
        self.send(Request::Endpoints(query.map(str::to_owned), tx))?;
        let lines = rx.await.context("the capture task stopped")?;
        if lines.is_empty() {
            match query {
                Some(q) => writeln!(out, "no endpoint matches \"{q}\"")?,
                None => writeln!(out, "no endpoints yet: browse the site, or /explore")?,
            }
        }
        for line in lines {
            writeln!(out, "{line}")?;
        }
        Ok(())
    }

    /// `/spec`: where the spec is and what it holds.
    pub(crate) async fn describe_spec(&self, out: &mut dyn Write) -> anyhow::Result<()> {
        let (tx, rx) = oneshot::channel();
        self.send(Request::Spec(tx))?;
        writeln!(out, "{}", rx.await.context("the capture task stopped")?)?;
        Ok(())
    }

    /// `/save`: documents now, plus `capture.har`.
    pub(crate) async fn save(&self) -> anyhow::Result<String> {
        let (tx, rx) = oneshot::channel();
        self.send(Request::Save(tx))?;
        rx.await.context("the capture task stopped")?
    }

    /// Drains the flows still queued (the proxy must be stopped first),
    /// writes everything and ends the task.
    pub(crate) async fn finish(self) -> anyhow::Result<Written> {
        let _ = self.requests.send(Request::Finish);
        self.task.await.context("the capture task failed")?
    }

    fn send(&self, request: Request) -> anyhow::Result<()> {
        self.requests
            .send(request)
            .map_err(|_| anyhow::anyhow!("the capture task stopped"))
    }
}

/// Flows seen before the documents are rewritten again (at most once a second).
const WRITE_EVERY: Duration = Duration::from_secs(1);

/// Distinct hosts counted for the status line.
const MAX_HOSTS: usize = 100_000;

/// Counters the pipeline does not keep: hosts seen and the next flow id.
#[derive(Debug, Default)]
struct Books {
    hosts: BTreeSet<String>,
    next_id: u64,
}

impl Books {
    fn ingest(
        &mut self,
        pipeline: &mut Pipeline,
        flow: &Flow,
    ) -> anyhow::Result<crate::pipeline::Ingest> {
        // Bounded: a hostile page cannot grow this without end.
        if self.hosts.len() < MAX_HOSTS
            && let Some(host) = url::Url::parse(&flow.request.url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_owned))
        {
            self.hosts.insert(host);
        }
        self.next_id = self.next_id.max(flow.id.0 + 1);
        pipeline.ingest(flow)
    }

    fn counters(&self, pipeline: &Pipeline) -> Counters {
        let summary = pipeline.summary();
        Counters {
            flows: summary.flows,
            in_scope_flows: summary.in_scope,
            endpoints: summary.endpoints,
            hosts: self.hosts.len() as u64,
        }
    }
}

/// The task's state: the pipeline and what the session asks about it.
struct Task {
    pipeline: Pipeline,
    books: Books,
    dir: PathBuf,
    counters: watch::Sender<Counters>,
    events: mpsc::UnboundedSender<Event>,
    debounce: Debounce,
}

impl Task {
    async fn serve(
        mut self,
        mut flows: mpsc::Receiver<Flow>,
        mut requests: mpsc::UnboundedReceiver<Request>,
    ) -> anyhow::Result<Written> {
        let mut tick = tokio::time::interval(TICK);
        let mut flows_open = true;
        loop {
            tokio::select! {
                flow = flows.recv(), if flows_open => match flow {
                    Some(flow) => self.ingest(&flow)?,
                    None => flows_open = false,
                },
                request = requests.recv() => match request {
                    Some(Request::Endpoints(query, reply)) => {
                        let _ = reply.send(self.endpoint_lines(query.as_deref()));
                    }
                    Some(Request::Spec(reply)) => {
                        let _ = reply.send(self.spec_summary());
                    }
                    Some(Request::Save(reply)) => {
                        let _ = reply.send(self.save());
                    }
                    Some(Request::Finish) | None => break,
                },
                _ = tick.tick() => self.write_if_due(),
            }
        }
        // The proxy is stopped: take what it queued before it went.
        while let Ok(flow) = flows.try_recv() {
            self.ingest(&flow)?;
        }
        let files = self.save()?;
        Ok(Written {
            counters: self.books.counters(&self.pipeline),
            files,
        })
    }

    fn ingest(&mut self, flow: &Flow) -> anyhow::Result<()> {
        let report = self.books.ingest(&mut self.pipeline, flow)?;
        if report.in_scope {
            self.debounce.mark_dirty();
        }
        if let Some(new) = report.new_endpoint {
            let _ = self.events.send(Event::Message(new.to_string()));
        }
        self.counters
            .send_replace(self.books.counters(&self.pipeline));
        self.write_if_due();
        Ok(())
    }

    /// Rewrites the documents when something changed and a second has passed.
    fn write_if_due(&mut self) {
        let now = Instant::now();
        if self.debounce.due(now) {
            self.debounce.written(now);
            if let Err(error) = self.write_documents() {
                let _ = self
                    .events
                    .send(Event::Message(format!("error: {error:#}")));
            }
        }
    }

    fn write_documents(&mut self) -> anyhow::Result<()> {
        self.pipeline.documents()?.write_to(&self.dir)
    }

    /// Documents now, then `capture.har` from the archive.
    fn save(&mut self) -> anyhow::Result<String> {
        self.debounce.written(Instant::now());
        self.write_documents()?;
        let entries = archive::export_har(&self.dir, HAR_FILE)?;
        Ok(format!(
            "openapi.yaml, openapi.json, API.md, {HAR_FILE} ({entries} entries)"
        ))
    }

    fn endpoint_lines(&self, query: Option<&str>) -> Vec<String> {
        let query = query.map_or_else(Query::all, Query::text);
        self.pipeline
            .store()
            .search(&query)
            .into_iter()
            .map(|endpoint| {
                let statuses: Vec<String> =
                    endpoint.statuses().keys().map(u16::to_string).collect();
                format!(
                    "{:<60} {:>5} flows  {}",
                    endpoint.key().as_str(),
                    endpoint.flow_count(),
                    statuses.join(",")
                )
            })
            .collect()
    }

    fn spec_summary(&self) -> String {
        let counters = self.books.counters(&self.pipeline);
        let ledger = self.pipeline.ledger();
        let mut text = format!(
            "{}\n  {} endpoints from {} in-scope flows ({} flows captured, {} hosts)\n  also {} and {}",
            self.dir.join("openapi.yaml").display(),
            counters.endpoints,
            counters.in_scope_flows,
            counters.flows,
            counters.hosts,
            self.dir.join("API.md").display(),
            self.dir.join(FLOWS_FILE).display(),
        );
        if !ledger.other_hosts.is_empty() {
            let hosts: Vec<String> = ledger
                .other_hosts
                .iter()
                .map(|(h, n)| format!("{h} ({n})"))
                .collect();
            text.push_str(&format!("\n  left out of the spec: {}", hosts.join(", ")));
        }
        text
    }
}
