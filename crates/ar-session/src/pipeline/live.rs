//! Live documentation for `ar proxy`: a [`Pipeline`] fed flow by flow that
//! keeps `openapi.yaml`, `openapi.json` and `API.md` current, rewritten
//! atomically at most once per interval and at the end.
//!
//! It holds no thread of its own: it is part of the capture work that `ar
//! proxy` does on its capture threads, right after the same batch is
//! archived, so no archived flow is left undocumented.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use ar_store::Flow;

use super::write::Debounce;
use super::{Ingest, NewEndpoint, Pipeline, Summary};

/// The default: at most one rewrite per second during capture.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// A pipeline whose documents follow the traffic.
#[derive(Debug)]
pub struct LiveDocs {
    pipeline: Pipeline,
    out_dir: PathBuf,
    debounce: Debounce,
}

impl LiveDocs {
    /// Documents into `out_dir`, rewriting at most once per `interval`.
    pub fn new(pipeline: Pipeline, out_dir: PathBuf, interval: Duration) -> Self {
        Self {
            pipeline,
            out_dir,
            debounce: Debounce::new(interval),
        }
    }

    /// Stores and documents one flow; `on_new` sees each endpoint it created.
    pub fn ingest(
        &mut self,
        flow: &Flow,
        mut on_new: impl FnMut(&NewEndpoint),
    ) -> anyhow::Result<Ingest> {
        let ingest = self.pipeline.ingest(flow)?;
        if ingest.in_scope {
            self.debounce.mark_dirty();
        }
        for new in &ingest.new_endpoints {
            on_new(new);
        }
        Ok(ingest)
    }

    /// Runs `f` on the pipeline (the web view's questions); when it returns
    /// true (it changed what the documents say), they are rewritten at the
    /// next due write.
    pub fn run(&mut self, f: impl FnOnce(&mut Pipeline) -> bool) {
        if f(&mut self.pipeline) {
            self.debounce.mark_dirty();
        }
    }

    /// The pipeline, to document the archive again (a correction).
    pub fn pipeline_mut(&mut self) -> &mut Pipeline {
        &mut self.pipeline
    }

    /// The directory the documents are written to.
    pub fn out_dir(&self) -> &std::path::Path {
        &self.out_dir
    }

    /// Rewrites the documents now (after a correction, which the user waits on).
    pub fn write_now(&mut self) -> anyhow::Result<()> {
        self.debounce.written(Instant::now());
        self.pipeline.documents()?.write_to(&self.out_dir)
    }

    /// Counts so far.
    pub fn summary(&self) -> Summary {
        self.pipeline.summary()
    }

    /// Rewrites the documents if they changed and the interval has passed.
    /// A failed write is retried an interval later, not at once: capture
    /// goes on while a disk is full, and the caller reports the error.
    /// True when the documents were rewritten.
    pub fn write_if_due(&mut self) -> anyhow::Result<bool> {
        let now = Instant::now();
        if !self.debounce.due(now) {
            return Ok(false);
        }
        self.debounce.written(now);
        self.pipeline
            .documents()
            .and_then(|docs| docs.write_to(&self.out_dir))?;
        Ok(true)
    }

    /// Writes the documents one last time and returns the pipeline (for a summary).
    pub fn finish(mut self) -> anyhow::Result<Pipeline> {
        self.write_now()?;
        Ok(self.pipeline)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::PipelineConfig;

    fn flow(id: u64, url: &str) -> Flow {
        ar_flow::testing::json_flow(id, "GET", url, 200, r#"{"ok":true}"#)
    }

    fn read(dir: &std::path::Path, file: &str) -> String {
        std::fs::read_to_string(dir.join(file)).unwrap_or_default()
    }

    #[test]
    fn documents_follow_the_traffic_debounced_and_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let mut seen = Vec::new();
        // A long interval: after the first write, only `finish` writes.
        let mut live = LiveDocs::new(
            Pipeline::new(PipelineConfig::default()).unwrap(),
            dir.path().to_path_buf(),
            Duration::from_secs(3600),
        );
        let mut feed = |live: &mut LiveDocs, id: u64, path: &str| {
            let url = format!("https://api.shop.test{path}");
            live.ingest(&flow(id, &url), |new| seen.push(new.to_string()))
                .unwrap();
        };
        live.write_if_due().unwrap();
        assert_eq!(read(dir.path(), "openapi.yaml"), "", "nothing to write yet");
        feed(&mut live, 1, "/items");
        live.write_if_due().unwrap();
        assert!(read(dir.path(), "openapi.yaml").contains("/items:"));
        feed(&mut live, 2, "/cart");
        live.write_if_due().unwrap();
        assert!(
            !read(dir.path(), "openapi.yaml").contains("/cart:"),
            "rewritten before the interval passed"
        );
        feed(&mut live, 3, "/orders");
        feed(&mut live, 4, "/orders");
        let pipeline = live.finish().unwrap();
        assert_eq!(pipeline.summary().endpoints, 3);
        assert_eq!(pipeline.summary().flows, 4);
        let spec = read(dir.path(), "openapi.yaml");
        assert!(
            spec.contains("/cart:") && spec.contains("/orders:"),
            "{spec}"
        );
        assert!(read(dir.path(), "API.md").contains("GET /orders"));
        assert!(read(dir.path(), "openapi.json").contains("\"/orders\""));
        assert_eq!(
            seen,
            [
                "+ GET api.shop.test/items  (200)",
                "+ GET api.shop.test/cart  (200)",
                "+ GET api.shop.test/orders  (200)"
            ]
        );
    }

    #[test]
    fn a_failed_write_is_reported_and_retried_an_interval_later() {
        let dir = tempfile::tempdir().unwrap();
        let blocked = dir.path().join("not-a-dir");
        std::fs::write(&blocked, "a file where the output directory should be").unwrap();
        let mut live = LiveDocs::new(
            Pipeline::new(PipelineConfig::default()).unwrap(),
            blocked.clone(),
            Duration::from_secs(3600),
        );
        live.ingest(&flow(1, "https://api.shop.test/items"), |_| {})
            .unwrap();
        let error = live.write_if_due().unwrap_err();
        assert!(format!("{error:#}").contains("not-a-dir"), "{error:#}");
        live.ingest(&flow(2, "https://api.shop.test/cart"), |_| {})
            .unwrap();
        live.write_if_due()
            .expect("no second attempt within the interval");
    }
}
