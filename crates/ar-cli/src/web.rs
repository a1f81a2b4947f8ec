//! The wiring of the live web view (`ar-web`) into `ar <url>`: its flags,
//! and the [`ar_web::Backend`] the page reads through, answered by the
//! capture task that owns the pipeline and by the archive on disk.

use std::path::PathBuf;
use std::sync::Arc;

use ar_openapi::Redactor;
use ar_store::Flow;
use ar_web::{Backend, Documents, EndpointView};
use async_trait::async_trait;
use tokio::sync::oneshot;

use crate::pipeline::enrich::{PipelineFn, Runner};

/// `--ui-port` and `--no-ui`.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub(crate) struct UiArgs {
    /// The live web view's port on 127.0.0.1 [default: any free port].
    #[arg(long, value_name = "N", conflicts_with = "no_ui")]
    pub(crate) ui_port: Option<u16>,
    /// Do not serve the live web view.
    #[arg(long)]
    pub(crate) no_ui: bool,
}

impl UiArgs {
    /// The port to serve on, or `None` for no web view.
    pub(crate) fn port(self) -> Option<u16> {
        (!self.no_ui).then_some(self.ui_port.unwrap_or(0))
    }
}

/// The page's questions, answered on the capture task (endpoints, spec)
/// and from the archive (flows older than the ones kept in memory).
pub(crate) struct PipelineBackend {
    runner: Runner,
    dir: PathBuf,
    /// Always on, whatever the pipeline's own setting: secrets never reach the page unrevealed.
    redactor: Arc<Redactor>,
}

impl PipelineBackend {
    /// A backend asking the pipeline behind `runner`, with its archive in `dir`.
    pub(crate) fn new(runner: Runner, dir: PathBuf) -> Arc<Self> {
        Arc::new(Self {
            runner,
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
        let dir = self.dir.clone();
        tokio::task::spawn_blocking(move || {
            let mut found = None;
            // A scan: only flows no longer among the recent ones in memory come here.
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

    async fn endpoints(&self) -> Vec<EndpointView> {
        let redactor = Arc::clone(&self.redactor);
        self.ask(move |pipeline| EndpointView::all(pipeline.store(), &redactor))
            .await
            .unwrap_or_default()
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
}
