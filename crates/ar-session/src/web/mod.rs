//! The wiring of the live web view (`ar-web`) into `ar <url>` and `ar
//! proxy`: its flags, what each flow tells the feed, and the
//! [`ar_web::Backend`] the page reads through (the pipeline of the session's
//! capture task or of `ar proxy`'s capture thread).

use std::path::PathBuf;
use std::sync::Arc;

use ar_openapi::Redactor;
use ar_store::Flow;
use ar_web::correction::Correction;
use ar_web::{Backend, Documents, EndpointView, Joined, Live, Placement};
use async_trait::async_trait;
use tokio::sync::oneshot;

use crate::pipeline::Ingest;
use crate::pipeline::enrich::{PipelineFn, Runner};
use crate::session::Templater;

mod replay;

pub use replay::Replayer;

/// Tells the web view where the pipeline put `flow`.
pub fn record(live: &Live, flow: &Flow, ingest: Ingest) {
    live.record(flow, &placement(ingest));
}

/// Where the pipeline put a flow, as the web view shows it.
pub fn placement(ingest: Ingest) -> Placement {
    ingest.scope.map_or_else(Placement::default, |scope| {
        Placement::new(scope, ingest.endpoint)
    })
}

/// Flow `id` read back from the archive in `dir`: a scan, since only flows
/// no longer among the recent ones in memory come here.
async fn archived_flow(dir: PathBuf, id: u64) -> Option<Flow> {
    tokio::task::spawn_blocking(move || {
        let mut found = None;
        let _ = crate::archive_dir::read_flows(&dir, |flow| {
            if flow.id.0 == id {
                found = Some(flow);
            }
            Ok(())
        });
        found
    })
    .await
    .ok()
    .flatten()
}

/// The page's questions, answered on the pipeline's owner (endpoints,
/// spec, corrections), through `ar`'s proxy (replay) and from the archive (flows older than the ones kept in memory).
pub struct PipelineBackend {
    runner: Runner,
    templater: Templater,
    replayer: Replayer,
    dir: PathBuf,
    /// Always on, whatever the pipeline's own setting: secrets never reach the page unrevealed.
    redactor: Arc<Redactor>,
}

impl PipelineBackend {
    /// A backend asking the pipeline behind `runner`, with its archive in `dir`.
    pub fn new(
        runner: Runner,
        templater: Templater,
        replayer: Replayer,
        dir: PathBuf,
    ) -> Arc<Self> {
        Arc::new(Self {
            runner,
            templater,
            replayer,
            dir,
            redactor: Arc::new(Redactor::new()),
        })
    }

    /// Runs `f` on the pipeline and waits for its answer.
    async fn ask<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut crate::pipeline::Pipeline) -> T + Send + 'static,
    ) -> Option<T> {
        let (tx, rx) = oneshot::channel();
        let job: PipelineFn = Box::new(move |pipeline| {
            let _ = tx.send(f(pipeline));
            // Reading changes nothing: no rewrite of the documents.
            false
        });
        if !(self.runner)(job) {
            return None;
        }
        rx.await.ok()
    }
}

#[async_trait]
impl Backend for PipelineBackend {
    async fn archived_flow(&self, id: u64) -> Option<Flow> {
        archived_flow(self.dir.clone(), id).await
    }

    async fn endpoints(&self) -> Vec<EndpointView> {
        let redactor = Arc::clone(&self.redactor);
        self.ask(move |pipeline| EndpointView::all(pipeline.store(), &redactor))
            .await
            .unwrap_or_default()
    }

    async fn endpoints_now(&self, flows: Vec<Joined>) -> Option<Vec<Option<String>>> {
        self.ask(move |pipeline| ar_web::endpoints_now(pipeline.store(), &flows))
            .await
    }

    async fn explain(&self, key: &str) -> Option<String> {
        let key = key.to_owned();
        self.ask(move |pipeline| {
            let store = pipeline.store();
            let endpoint = store.resolve_key(&key)?;
            store.explain(endpoint.id()).map(|e| e.to_string())
        })
        .await
        .flatten()
    }

    async fn correct(&self, correction: Correction) -> Result<String, String> {
        let patterns = self
            .ask(move |pipeline| ar_web::correction::patterns(pipeline.store(), &correction))
            .await
            .ok_or("the capture stopped")??;
        let reply = (self.templater)(patterns).ok_or("the capture stopped")?;
        match reply.await {
            Ok(Ok(line)) => Ok(line),
            Ok(Err(error)) => Err(format!("{error:#}")),
            Err(_) => Err("the capture stopped".to_owned()),
        }
    }

    async fn replay(&self, request: ar_store::Request) -> Result<String, String> {
        self.replayer
            .send(request)
            .await
            .map(|replayed| replayed.to_string())
            .map_err(|error| format!("{error:#}"))
    }

    async fn documents(&self) -> Option<Documents> {
        self.ask(|pipeline| {
            pipeline
                .documents()
                .ok()
                .map(|d| Documents::new(d.yaml, d.json, d.markdown))
        })
        .await
        .flatten()
    }

    async fn drift(&self) -> Option<String> {
        self.ask(|pipeline| pipeline.drift_documents().map(|d| d.markdown))
            .await
            .flatten()
    }
}
