//! The session's capture: the one owner of the pipeline (archive, store,
//! documenter, documents), run by the capture driver that `ar proxy` uses
//! too ([`crate::pipeline::capture_threads`]). Flows arrive from the proxy in
//! batches; the session's questions and changes (`/flows`, `/scope`, the
//! agent's tools, the web view's corrections) are [`Job`]s run between two
//! slices of flows; counters are published on a watch channel so the status
//! line never waits for the capture.
//!
//! Documents are rewritten by the pipeline's debounce (at most once a second,
//! only when something changed), checked after every slice and every
//! [`TICK`] while idle, so a new endpoint is on disk within a second or so
//! even when traffic stops.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use ar_store::Flow;
use ar_store::scope::ScopeConfig;
use ar_store::store::Query;
use ar_web::Live;
use tokio::sync::{mpsc, oneshot, watch};

use super::config::SessionConfig;
use super::event::Event;
use super::manifest::Manifest;
use super::status::Counters;
use crate::archive_dir::{self, ArchiveDir, FLOWS_FILE};
use crate::pipeline::capture_threads::{self, Job, Pace, Work};
use crate::pipeline::enrich::{PipelineFn, Runner};
use crate::pipeline::redocument::{self, corrections_first};
use crate::pipeline::write::Debounce;
use crate::pipeline::{Pipeline, PipelineConfig};

/// How often the capture checks whether documents are due when no flow comes.
const TICK: Duration = Duration::from_millis(200);

/// How a session's capture is paced. A browser's traffic is light and the
/// user watches the spec grow, so the work keeps normal priority.
const PACE: Pace = Pace {
    slice: 8,
    idle: TICK,
    low_priority: false,
};

/// The file `capture.har` is written to on `/save` and at exit.
pub(super) const HAR_FILE: &str = "capture.har";

/// What was written at the end.
#[derive(Debug, Clone)]
pub(super) struct Written {
    /// The final counters.
    pub counters: Counters,
    /// The files written, for the message.
    pub files: String,
}

impl std::fmt::Display for Written {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.files)
    }
}

/// The hosts the session's scope adds to the target's site, and takes out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ScopeHosts {
    /// Extra in-scope hosts (`--scope`, `scope_add`, `/scope add`).
    pub extra: Vec<String>,
    /// Hosts taken out (`scope_remove` of a host that is not an extra one).
    pub out: Vec<String>,
}

/// Asks the capture task to change the scope: `(host, add)`; `None` when
/// the task is gone, else the confirmation to come.
pub(super) type Scoper = std::sync::Arc<
    dyn Fn(String, bool) -> Option<oneshot::Receiver<anyhow::Result<String>>> + Send + Sync,
>;

/// Asks the capture task to apply user templates (corrections from the
/// web view); `None` when the task is gone, else the confirmation to come.
pub type Templater = std::sync::Arc<
    dyn Fn(Vec<String>) -> Option<oneshot::Receiver<anyhow::Result<String>>> + Send + Sync,
>;

/// The session's handle on its capture.
pub(super) struct Capture {
    jobs: mpsc::UnboundedSender<Job<Task>>,
    /// Ends the capture ([`Capture::finish`]).
    stop: oneshot::Sender<()>,
    counters: watch::Receiver<Counters>,
    written: watch::Receiver<u64>,
    scope: watch::Receiver<ScopeHosts>,
    templates: watch::Receiver<Vec<String>>,
    next_flow_id: u64,
    task: tokio::task::JoinHandle<anyhow::Result<Task>>,
}

impl Capture {
    /// Opens the pipeline in the output directory (re-ingesting the archive
    /// when resuming) and starts the task.
    /// Each flow (the archive's too) and each rewrite of the documents is
    /// also told to `live`, the web view's feed, when there is one.
    pub(super) fn start(
        config: &SessionConfig,
        batches: mpsc::Receiver<Vec<Flow>>,
        events: mpsc::UnboundedSender<Event>,
        live: Option<Live>,
        out: &mut (dyn Write + Send),
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
        let mut hosts = ScopeHosts {
            extra: config.scope.clone(),
            out: if config.resume {
                Manifest::load(&dir)
                    .map(|m| m.out_of_scope)
                    .unwrap_or_default()
            } else {
                Vec::new()
            },
        };
        // Taken out in an earlier run, unless `--scope` names the host again.
        hosts.out.retain(|h| !hosts.extra.contains(h));
        let scope = scope_config(config.target.as_str(), &hosts);
        let mut pipeline = Pipeline::new(
            PipelineConfig {
                scope,
                against: config.against.clone(),
                ..PipelineConfig::default()
            }
            .with_templates(&config.templates)?,
        )?;
        let mut books = Books::default();
        for warning in archive_dir::read_flows(&dir, |flow| {
            let report = books.ingest(&mut pipeline, &flow)?;
            if let Some(live) = &live {
                crate::web::record(live, &flow, report);
            }
            Ok(())
        })? {
            writeln!(out, "  warning  {warning}")?;
        }
        let pipeline = pipeline.with_archive(Box::new(ArchiveDir::open(&dir)?));
        let counters = books.counters(&pipeline);
        if let Some(live) = &live {
            live.set_counters(counters.named());
        }
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
        let (jobs, jobs_rx) = mpsc::unbounded_channel();
        let (stop, stopped) = oneshot::channel();
        let (counters_tx, counters_rx) = watch::channel(counters);
        let (scope_tx, scope_rx) = watch::channel(hosts);
        let (written_tx, written_rx) = watch::channel(0);
        let (templates_tx, templates_rx) = watch::channel(config.templates.clone());
        let target = config.target.to_string();
        let task = tokio::task::spawn_blocking(move || {
            let runtime = tokio::runtime::Handle::current();
            let task = Task {
                pipeline,
                books,
                dir,
                target,
                scope: scope_tx,
                templates: templates_tx,
                counters: counters_tx,
                written: written_tx,
                events,
                live,
                debounce: Debounce::new(WRITE_EVERY),
            };
            let inputs = capture_threads::Inputs {
                batches,
                jobs: jobs_rx,
                stop: stopped,
            };
            capture_threads::serve(task, inputs, PACE, &runtime)
        });
        Ok(Self {
            jobs,
            stop,
            counters: counters_rx,
            written: written_rx,
            scope: scope_rx,
            templates: templates_rx,
            next_flow_id,
            task,
        })
    }

    /// The id the proxy's first flow should get (after the archive's last).
    pub(super) fn next_flow_id(&self) -> u64 {
        self.next_flow_id
    }

    /// The latest counters.
    pub(super) fn counters(&self) -> Counters {
        *self.counters.borrow()
    }

    /// The counters as a watch (for tasks that summarise what changed).
    pub(super) fn counters_watch(&self) -> watch::Receiver<Counters> {
        self.counters.clone()
    }

    /// How many times the documents were written: changes each time
    /// `openapi.yaml`, `openapi.json` and `API.md` are rewritten (`ar mcp`
    /// tells its clients that their resources changed).
    pub(super) fn written_watch(&self) -> watch::Receiver<u64> {
        self.written.clone()
    }

    /// A way for other tasks to run closures on the pipeline (the agent's
    /// tools, the enrichment worker, the web view's questions).
    pub(super) fn runner(&self) -> Runner {
        let jobs = self.jobs.clone();
        std::sync::Arc::new(move |f: PipelineFn| {
            jobs.send(Box::new(move |task: &mut Task| {
                if f(&mut task.pipeline) {
                    task.debounce.mark_dirty();
                }
            }))
            .is_ok()
        })
    }

    /// A way for other tasks (the agent's `scope_add`) to change the scope.
    pub(super) fn scoper(&self) -> Scoper {
        let jobs = self.jobs.clone();
        std::sync::Arc::new(move |host: String, add: bool| {
            let (tx, rx) = oneshot::channel();
            jobs.send(Box::new(move |task: &mut Task| {
                let _ = tx.send(task.change_scope(&host, add));
            }))
            .is_ok()
            .then_some(rx)
        })
    }

    /// A way for the web view to apply corrections (user templates).
    pub(super) fn templater(&self) -> Templater {
        let jobs = self.jobs.clone();
        std::sync::Arc::new(move |patterns: Vec<String>| {
            let (tx, rx) = oneshot::channel();
            jobs.send(Box::new(move |task: &mut Task| {
                let _ = tx.send(task.add_templates(patterns));
            }))
            .is_ok()
            .then_some(rx)
        })
    }

    /// Runs `f` on the capture between two slices of flows; its answer.
    async fn ask<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Task) -> T + Send + 'static,
    ) -> anyhow::Result<T> {
        let (tx, rx) = oneshot::channel();
        self.jobs
            .send(Box::new(move |task: &mut Task| {
                let _ = tx.send(f(task));
            }))
            .map_err(|_| anyhow::anyhow!("the capture stopped"))?;
        rx.await.context("the capture stopped")
    }

    /// The user templates now, corrections first (for `session.json`).
    pub(super) fn templates(&self) -> Vec<String> {
        self.templates.borrow().clone()
    }

    /// Adds or removes `host`: the archive is documented again under the new
    /// scope and the documents rewritten; returns a line for the user.
    pub(super) async fn change_scope(&self, host: &str, add: bool) -> anyhow::Result<String> {
        let host = host.to_owned();
        self.ask(move |task| task.change_scope(&host, add)).await?
    }

    /// The scope's hosts now (for `session.json`).
    pub(super) fn scope_hosts(&self) -> ScopeHosts {
        self.scope.borrow().clone()
    }

    /// `/flows [q]`: one line per endpoint.
    pub(super) async fn list_endpoints(
        &self,
        query: Option<&str>,
        out: &mut (dyn Write + Send),
    ) -> anyhow::Result<()> {
        let asked = query.map(str::to_owned);
        let lines = (self.ask(move |task| task.endpoint_lines(asked.as_deref()))).await?;
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
    pub(super) async fn describe_spec(&self, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
        writeln!(out, "{}", self.ask(|task| task.spec_summary()).await?)?;
        Ok(())
    }

    /// `/save`: documents now, plus `capture.har`.
    pub(super) async fn save(&self) -> anyhow::Result<String> {
        self.ask(Task::save).await?
    }

    /// Captures the flows still queued (the proxy must be stopped first),
    /// writes everything and ends the capture.
    pub(super) async fn finish(self) -> anyhow::Result<Written> {
        let _ = self.stop.send(());
        let mut task = self.task.await.context("the capture thread failed")??;
        let files = task.save()?;
        Ok(Written {
            counters: task.books.counters(&task.pipeline),
            files,
        })
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

/// The scope for `target` with `hosts` added and taken out.
fn scope_config(target: &str, hosts: &ScopeHosts) -> ScopeConfig {
    let mut scope = ScopeConfig::for_target(target);
    scope.extra_hosts.clone_from(&hosts.extra);
    scope.deny_hosts.clone_from(&hosts.out);
    scope
}

/// A host as typed (`API.Other.test`, `https://api.other.test/`), as the scope wants it.
fn normalise_host(text: &str) -> String {
    let text = text.trim();
    let host = url::Url::parse(text)
        .ok()
        .filter(|u| u.has_host())
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_else(|| text.to_owned());
    host.trim_end_matches('.').to_ascii_lowercase()
}

/// The capture's state: the pipeline and what the session asks about it.
pub(super) struct Task {
    pipeline: Pipeline,
    books: Books,
    dir: PathBuf,
    /// The session's target, the base of every scope.
    target: String,
    scope: watch::Sender<ScopeHosts>,
    /// The user templates, corrections first.
    templates: watch::Sender<Vec<String>>,
    counters: watch::Sender<Counters>,
    /// Bumped after every write of the documents.
    written: watch::Sender<u64>,
    events: mpsc::UnboundedSender<Event>,
    /// The web view's feed.
    live: Option<Live>,
    debounce: Debounce,
}

impl Work for Task {
    fn take(&mut self, flows: &[Flow]) -> anyhow::Result<()> {
        for flow in flows {
            self.ingest(flow)?;
        }
        self.publish_counters();
        self.write_if_due();
        Ok(())
    }

    fn caught_up(&mut self) -> anyhow::Result<()> {
        self.write_if_due();
        Ok(())
    }
}

impl Task {
    fn ingest(&mut self, flow: &Flow) -> anyhow::Result<()> {
        let report = self.books.ingest(&mut self.pipeline, flow)?;
        if report.in_scope {
            self.debounce.mark_dirty();
        }
        for new in &report.new_endpoints {
            let _ = self.events.send(Event::Message(new.to_string()));
        }
        if let Some(live) = &self.live {
            crate::web::record(live, flow, report);
        }
        Ok(())
    }

    /// Publishes the counters to the session and the web view.
    fn publish_counters(&self) {
        let counters = self.books.counters(&self.pipeline);
        self.counters.send_replace(counters);
        if let Some(live) = &self.live {
            live.set_counters(counters.named());
        }
    }

    /// Adds or removes `host`, then documents the whole archive again under
    /// the new scope (the store cannot change scope in place), rewrites the
    /// documents and records the scope in `session.json`.
    fn change_scope(&mut self, host: &str, add: bool) -> anyhow::Result<String> {
        let host = normalise_host(host);
        if host.is_empty() || host.contains(['/', ' ']) {
            bail!("`{host}` is not a host name (e.g. api.other.test or *.other.test)");
        }
        let old = self.scope.borrow().clone();
        let mut hosts = old.clone();
        if add {
            hosts.out.retain(|h| *h != host);
            if !hosts.extra.contains(&host) {
                hosts.extra.push(host.clone());
            }
        } else if hosts.extra.contains(&host) {
            hosts.extra.retain(|h| *h != host);
        } else if !hosts.out.contains(&host) {
            hosts.out.push(host.clone());
        }
        hosts.extra.sort();
        hosts.out.sort();
        let verb = if add { "in" } else { "out of" };
        if hosts == old {
            return Ok(format!("{host} was already {verb} scope: nothing changed"));
        }
        let before = self.books.counters(&self.pipeline);
        self.redocument(scope_config(&self.target, &hosts), None)?;
        self.scope.send_replace(hosts.clone());
        let after = self.books.counters(&self.pipeline);
        // `--resume` carries the new scope on.
        if let Ok(mut manifest) = Manifest::load(&self.dir) {
            manifest.scope = hosts.extra;
            manifest.out_of_scope = hosts.out;
            manifest.save(&self.dir, after, time::OffsetDateTime::now_utc())?;
        }
        Ok(format!(
            "{host} is {verb} scope now: re-documented {} flows, {} in scope (was {}), {} endpoints (was {})",
            after.flows,
            after.in_scope_flows,
            before.in_scope_flows,
            after.endpoints,
            before.endpoints
        ))
    }

    /// Documents the whole archive again under `scope` (and `overrides`,
    /// when the user templates change), tells the user of damaged archive
    /// lines, publishes the counters and rewrites the documents.
    fn redocument(
        &mut self,
        scope: ScopeConfig,
        overrides: Option<ar_store::template::Overrides>,
    ) -> anyhow::Result<()> {
        let warnings = redocument::from_archive(
            &mut self.pipeline,
            &self.dir,
            scope,
            overrides,
            self.live.as_ref(),
        )?;
        for warning in warnings {
            let _ = self
                .events
                .send(Event::Message(format!("  warning  {warning}")));
        }
        self.publish_counters();
        self.debounce.written(Instant::now());
        self.write_documents()
    }

    /// Puts `patterns` before the session's user templates (the latest
    /// correction wins), documents the whole archive again with them,
    /// rewrites the documents and keeps them in `session.json`, so
    /// `--resume` and `ar import` of the directory apply them too.
    fn add_templates(&mut self, patterns: Vec<String>) -> anyhow::Result<String> {
        let templates = corrections_first(&patterns, &self.templates.borrow());
        let overrides = ar_store::template::Overrides::parse(templates.iter().map(String::as_str))?;
        let before = self.books.counters(&self.pipeline);
        let scope = scope_config(&self.target, &self.scope.borrow());
        self.redocument(scope, Some(overrides))?;
        self.templates.send_replace(templates.clone());
        let after = self.books.counters(&self.pipeline);
        if let Ok(mut manifest) = Manifest::load(&self.dir) {
            manifest.settings.templates = templates;
            manifest.save(&self.dir, after, time::OffsetDateTime::now_utc())?;
        }
        Ok(redocument::correction_line(
            &patterns,
            after.flows,
            after.endpoints,
            before.endpoints,
        ))
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
        self.pipeline.documents()?.write_to(&self.dir)?;
        self.written.send_modify(|n| *n += 1);
        if let Some(live) = &self.live {
            live.spec_written();
        }
        Ok(())
    }

    /// Documents now, then `capture.har` from the archive.
    fn save(&mut self) -> anyhow::Result<String> {
        self.debounce.written(Instant::now());
        self.write_documents()?;
        let entries = archive_dir::export_har(&self.dir, HAR_FILE)?;
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
        if let Some(report) = self.pipeline.drift_report() {
            text.push_str(&format!(
                "\n  drift from {}: {} (see {})",
                report.spec_name(),
                report.headline(),
                self.dir.join(crate::pipeline::drift::DRIFT_MD).display()
            ));
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::{Body, Client, FlowId, HttpVersion, Request, Response, Timestamp};

    fn flow(id: u64, url: &str, content_type: &str, body: &str) -> Flow {
        let mut response = Response::new(200, HttpVersion::Http11);
        response.headers.push("content-type", content_type);
        response.body = Body::from_decoded(Some(content_type.into()), body.as_bytes().to_vec());
        let request = Request::new("GET", url, HttpVersion::Http11);
        Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(1_700_000_000_000_000),
            Client::Explorer,
            request,
        )
        .with_response(response)
    }

    fn config(dir: &std::path::Path) -> SessionConfig {
        let target = url::Url::parse("https://shop.test/").unwrap();
        SessionConfig::new(target, dir.to_path_buf())
    }

    async fn text(write: impl AsyncFnOnce(&mut Vec<u8>)) -> String {
        let mut out = Vec::new();
        write(&mut out).await;
        String::from_utf8(out).unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_scope_change_redocuments_the_archive_and_keeps_capturing() {
        let dir = tempfile::tempdir().unwrap();
        let (flows, flows_rx) = mpsc::channel(64);
        let (events, _events_rx) = mpsc::unbounded_channel();
        let capture =
            Capture::start(&config(dir.path()), flows_rx, events, None, &mut Vec::new()).unwrap();
        let json = "application/json";
        flows
            .send(vec![flow(1, "https://shop.test/api/cart", json, "{}")])
            .await
            .unwrap();
        flows
            .send(vec![flow(
                2,
                "https://stock.partner.test/levels/7",
                json,
                r#"{"n":7}"#,
            )])
            .await
            .unwrap();
        let spec = dir.path().join("openapi.yaml");
        // Both flows are in (flows and requests travel on separate channels).
        let mut counters = capture.counters_watch();
        counters.wait_for(|c| c.flows == 2).await.unwrap();
        let line = capture
            .change_scope("HTTPS://Stock.Partner.test/", true)
            .await
            .unwrap();
        assert!(
            line.starts_with("stock.partner.test is in scope now"),
            "{line}"
        );
        assert_eq!(capture.counters().endpoints, 2);
        let yaml = std::fs::read_to_string(&spec).unwrap();
        assert!(yaml.contains("/levels/{"), "{yaml}");
        assert_eq!(capture.scope_hosts().extra, ["stock.partner.test"]);

        // The archive writer carried over: new flows are still archived and documented.
        flows
            .send(vec![flow(3, "https://shop.test/api/orders", json, "[]")])
            .await
            .unwrap();
        let again = capture
            .change_scope("stock.partner.test", true)
            .await
            .unwrap();
        assert!(again.contains("nothing changed"), "{again}");
        // The target's own site can be taken out too.
        capture.change_scope("shop.test", false).await.unwrap();
        assert_eq!(capture.counters().endpoints, 1);
        assert_eq!(capture.scope_hosts().out, ["shop.test"]);
        assert!(capture.change_scope("not a host", true).await.is_err());
        let written = capture.finish().await.unwrap();
        assert_eq!(written.counters.flows, 3);
        let archive = std::fs::read_to_string(dir.path().join(FLOWS_FILE)).unwrap();
        assert_eq!(archive.lines().count(), 3);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn flows_become_a_spec_on_disk_within_a_second_and_answer_queries() {
        let dir = tempfile::tempdir().unwrap();
        let (flows, flows_rx) = mpsc::channel(64);
        let (events, mut events_rx) = mpsc::unbounded_channel();
        let capture =
            Capture::start(&config(dir.path()), flows_rx, events, None, &mut Vec::new()).unwrap();
        assert_eq!(capture.next_flow_id(), 1);

        flows
            .send(vec![flow(
                1,
                "https://shop.test/api/users/41",
                "application/json",
                r#"{"id":41}"#,
            )])
            .await
            .unwrap();
        flows
            .send(vec![flow(
                2,
                "https://shop.test/api/users/42",
                "application/json",
                r#"{"id":42}"#,
            )])
            .await
            .unwrap();
        flows
            .send(vec![flow(
                3,
                "https://metrics.test/pixel.gif",
                "image/gif",
                "GIF89a",
            )])
            .await
            .unwrap();
        let Some(Event::Message(line)) = events_rx.recv().await else {
            panic!("no new-endpoint event")
        };
        assert_eq!(line, "+ GET shop.test/api/users/{userId}  (200)");

        // No /save: the debounced writer puts the spec on disk by itself.
        let spec = dir.path().join("openapi.yaml");
        let start = std::time::Instant::now();
        // Written at the first flow, rewritten by the debounce once the second is in.
        while !std::fs::read_to_string(&spec)
            .unwrap_or_default()
            .contains("x-ar-flows: 2")
        {
            assert!(
                start.elapsed() < Duration::from_secs(3),
                "spec not rewritten within a second or so: {:?}",
                std::fs::read_to_string(&spec)
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }

        let listed =
            text(async |out| capture.list_endpoints(Some("users"), out).await.unwrap()).await;
        assert!(
            listed.contains("GET shop.test/api/users/{userId}") && listed.contains("2 flows"),
            "{listed}"
        );
        let none =
            text(async |out| capture.list_endpoints(Some("orders"), out).await.unwrap()).await;
        assert_eq!(none, "no endpoint matches \"orders\"\n");
        let about = text(async |out| capture.describe_spec(out).await.unwrap()).await;
        assert!(
            about.contains("1 endpoints from 2 in-scope flows (3 flows captured, 2 hosts)"),
            "{about}"
        );
        assert!(
            about.contains("left out of the spec: metrics.test (1)"),
            "{about}"
        );

        assert!(
            capture
                .save()
                .await
                .unwrap()
                .contains("capture.har (3 entries)")
        );
        drop(flows);
        let written = capture.finish().await.unwrap();
        assert_eq!(
            written.counters,
            Counters {
                flows: 3,
                in_scope_flows: 2,
                endpoints: 1,
                hosts: 2
            }
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn resuming_re_ingests_the_archive_and_numbers_new_flows_after_it() {
        let dir = tempfile::tempdir().unwrap();
        let (flows, flows_rx) = mpsc::channel(64);
        let (events, _events) = mpsc::unbounded_channel();
        let capture =
            Capture::start(&config(dir.path()), flows_rx, events, None, &mut Vec::new()).unwrap();
        flows
            .send(vec![flow(
                7,
                "https://shop.test/api/cart",
                "application/json",
                r#"{"items":[]}"#,
            )])
            .await
            .unwrap();
        drop(flows);
        capture.finish().await.unwrap();

        // The same directory again without --resume is refused.
        let (_flows, flows_rx) = mpsc::channel(1);
        let (events, _events) = mpsc::unbounded_channel();
        let refused = Capture::start(&config(dir.path()), flows_rx, events, None, &mut Vec::new())
            .err()
            .unwrap();
        assert!(refused.to_string().contains("--resume"), "{refused}");

        let mut resumed = config(dir.path());
        resumed.resume = true;
        let (flows, flows_rx) = mpsc::channel(64);
        let (events, _events) = mpsc::unbounded_channel();
        let mut said = Vec::new();
        let capture = Capture::start(&resumed, flows_rx, events, None, &mut said).unwrap();
        assert!(
            String::from_utf8(said)
                .unwrap()
                .contains("resumed  1 flows, 1 endpoints")
        );
        assert_eq!(capture.next_flow_id(), 8);
        assert_eq!(capture.counters().endpoints, 1);
        flows
            .send(vec![flow(
                8,
                "https://shop.test/api/categories",
                "application/json",
                "[]",
            )])
            .await
            .unwrap();
        drop(flows);
        let written = capture.finish().await.unwrap();
        assert_eq!(written.counters.endpoints, 2);
        let archived = std::fs::read_to_string(dir.path().join(FLOWS_FILE)).unwrap();
        assert_eq!(
            archived.lines().count(),
            2,
            "the resumed run appended to the archive"
        );
    }
}
