//! Live documentation: a tokio task that owns a [`Pipeline`], ingests flows
//! from a channel as they are captured, reports each new endpoint, and keeps
//! `openapi.yaml`, `openapi.json` and `API.md` current: rewritten atomically
//! at most once per interval, on demand ([`LiveDocs::flush`]) and at the end.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use ar_store::Flow;
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::write::Debounce;
use super::{NewEndpoint, Pipeline};

/// The default: at most one rewrite per second during capture.
pub(crate) const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// A running live-documentation task.
#[derive(Debug)]
pub(crate) struct LiveDocs {
    flush: Arc<Notify>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<anyhow::Result<Pipeline>>,
}

impl LiveDocs {
    /// Starts the task. `on_new` is called for each new endpoint (print a line,
    /// queue an LLM enrichment, ...); `on_error` for a failed write (the task
    /// keeps going: capture must never stop because a disk write failed).
    pub(crate) fn spawn(
        mut pipeline: Pipeline,
        out_dir: PathBuf,
        mut flows: mpsc::Receiver<Flow>,
        interval: Duration,
        mut on_new: impl FnMut(&NewEndpoint) + Send + 'static,
        mut on_error: impl FnMut(&anyhow::Error) + Send + 'static,
    ) -> Self {
        let flush = Arc::new(Notify::new());
        let (stop_tx, mut stop_rx) = oneshot::channel();
        let flush_wanted = Arc::clone(&flush);
        let task = tokio::spawn(async move {
            let mut debounce = Debounce::new(interval);
            let mut write = |pipeline: &mut Pipeline, debounce: &mut Debounce| {
                let result = pipeline
                    .documents()
                    .and_then(|docs| docs.write_to(&out_dir));
                // Record the attempt either way, so a failing disk is retried once per interval, not in a spin.
                debounce.written(Instant::now().into_std());
                if let Err(error) = result {
                    on_error(&error);
                }
            };
            loop {
                let wait = debounce.wait(Instant::now().into_std());
                tokio::select! {
                    biased;
                    _ = &mut stop_rx => break,
                    () = flush_wanted.notified() => write(&mut pipeline, &mut debounce),
                    () = tokio::time::sleep(wait.unwrap_or(Duration::from_secs(3600))), if wait.is_some() => {
                        write(&mut pipeline, &mut debounce);
                    }
                    flow = flows.recv() => match flow {
                        Some(flow) => {
                            let ingest = pipeline.ingest(&flow)?;
                            if ingest.in_scope {
                                debounce.mark_dirty();
                            }
                            if let Some(new) = &ingest.new_endpoint {
                                on_new(new);
                            }
                        }
                        None => break,
                    },
                }
            }
            // Whatever is still queued is part of the session.
            while let Ok(flow) = flows.try_recv() {
                let ingest = pipeline.ingest(&flow)?;
                if let Some(new) = &ingest.new_endpoint {
                    on_new(new);
                }
            }
            pipeline.documents()?.write_to(&out_dir)?;
            Ok(pipeline)
        });
        Self {
            flush,
            stop: Some(stop_tx),
            task,
        }
    }

    /// Asks for the documents to be written now (e.g. on `/save`).
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "for an on-demand save; `ar proxy` writes on its interval and at exit"
        )
    )]
    pub(crate) fn flush(&self) {
        self.flush.notify_one();
    }

    /// Stops: ingests what is queued, writes the documents one last time, and
    /// returns the pipeline (for a summary). Safe to call after the sender closed.
    pub(crate) async fn finish(mut self) -> anyhow::Result<Pipeline> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.task
            .await
            .map_err(|e| anyhow::anyhow!("the documentation task failed: {e}"))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::PipelineConfig;
    use ar_store::{Body, Client, FlowId, HttpVersion, Request, Response, Timestamp};
    use std::sync::Mutex;

    fn flow(id: u64, url: &str) -> Flow {
        let mut response = Response::new(200, HttpVersion::Http11);
        response.body =
            Body::from_decoded(Some("application/json".into()), br#"{"ok":true}"#.to_vec());
        Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(0),
            Client::Human,
            Request::new("GET", url, HttpVersion::Http11),
        )
        .with_response(response)
    }

    /// Polls until `file` in `dir` contains `needle` (or gives up after 10 s).
    async fn wait_for(dir: &std::path::Path, file: &str, needle: &str) -> String {
        for _ in 0..200 {
            let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
            if text.contains(needle) {
                return text;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{file} never contained {needle}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn documents_follow_the_traffic_debounced_on_demand_and_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let (tx, rx) = mpsc::channel(16);
        let seen = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&seen);
        // A long interval: after the first write, only `flush` and `finish` write.
        let live = LiveDocs::spawn(
            Pipeline::new(PipelineConfig::default()).unwrap(),
            dir.path().to_path_buf(),
            rx,
            Duration::from_secs(3600),
            move |new| lines.lock().unwrap().push(new.to_string()),
            |error| panic!("write failed: {error:#}"),
        );
        tx.send(flow(1, "https://api.shop.test/items"))
            .await
            .unwrap();
        wait_for(dir.path(), "openapi.yaml", "/items:").await;
        tx.send(flow(2, "https://api.shop.test/cart"))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let spec = std::fs::read_to_string(dir.path().join("openapi.yaml")).unwrap();
        assert!(
            !spec.contains("/cart:"),
            "rewritten before the interval passed"
        );
        live.flush();
        wait_for(dir.path(), "openapi.yaml", "/cart:").await;
        tx.send(flow(3, "https://api.shop.test/orders"))
            .await
            .unwrap();
        drop(tx);
        let pipeline = live.finish().await.unwrap();
        assert_eq!(pipeline.summary().endpoints, 3);
        assert!(
            std::fs::read_to_string(dir.path().join("API.md"))
                .unwrap()
                .contains("GET /orders")
        );
        assert!(
            std::fs::read_to_string(dir.path().join("openapi.json"))
                .unwrap()
                .contains("\"/orders\"")
        );
        assert_eq!(
            *seen.lock().unwrap(),
            [
                "+ GET api.shop.test/items  (200)",
                "+ GET api.shop.test/cart  (200)",
                "+ GET api.shop.test/orders  (200)"
            ]
        );
    }
}
