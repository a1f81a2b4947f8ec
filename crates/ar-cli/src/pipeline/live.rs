//! Live documentation: a dedicated thread owns a [`Pipeline`], takes
//! batches of flows without ever making the sender wait, and keeps
//! `openapi.yaml`, `openapi.json` and `API.md` current: rewritten atomically
//! at most once per interval and at the end.
//!
//! Why a thread and not a task: ingesting a flow into the endpoint store is
//! the most expensive thing `ar proxy` does per request after relaying it.
//! On a tokio worker it would delay the proxy's own tasks queued behind it;
//! on its own thread the OS shares the cores, and when it falls behind its
//! bounded backlog turns batches away (counted, see [`LiveDocs::dropped`])
//! instead of slowing traffic or the archive.

use std::path::PathBuf;
use std::sync::mpsc::{self, RecvTimeoutError, SyncSender, TrySendError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use ar_store::Flow;

use super::write::Debounce;
use super::{NewEndpoint, Pipeline};

/// The default: at most one rewrite per second during capture.
pub(crate) const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);

/// Batches waiting for the spec thread before new ones are turned away.
/// At the proxy's delivery tick (20 ms) this is about a second of traffic.
pub(crate) const DEFAULT_BACKLOG: usize = 64;

/// A running live-documentation thread.
#[derive(Debug)]
pub(crate) struct LiveDocs {
    tx: SyncSender<Vec<Flow>>,
    thread: JoinHandle<anyhow::Result<Pipeline>>,
    dropped: u64,
}

impl LiveDocs {
    /// Starts the thread. `on_new` is called (on that thread) for each new
    /// endpoint (print a line, queue an LLM enrichment, ...); `on_error` for
    /// a failed write (the thread keeps going: capture must never stop
    /// because a disk write failed).
    pub(crate) fn spawn(
        mut pipeline: Pipeline,
        out_dir: PathBuf,
        backlog: usize,
        interval: Duration,
        mut on_new: impl FnMut(&NewEndpoint) + Send + 'static,
        mut on_error: impl FnMut(&anyhow::Error) + Send + 'static,
    ) -> anyhow::Result<Self> {
        let (tx, rx) = mpsc::sync_channel::<Vec<Flow>>(backlog.max(1));
        let thread = std::thread::Builder::new()
            .name("ar-spec".into())
            .spawn(move || {
                let mut debounce = Debounce::new(interval);
                let mut write = |pipeline: &mut Pipeline, debounce: &mut Debounce| {
                    let result = pipeline
                        .documents()
                        .and_then(|docs| docs.write_to(&out_dir));
                    // Record the attempt either way, so a failing disk is retried once per interval, not in a spin.
                    debounce.written(Instant::now());
                    if let Err(error) = result {
                        on_error(&error);
                    }
                };
                loop {
                    // Checked before receiving: under steady traffic there is
                    // always a message waiting, and the rewrite must still happen.
                    if debounce.due(Instant::now()) {
                        write(&mut pipeline, &mut debounce);
                    }
                    let message = match debounce.wait(Instant::now()) {
                        Some(wait) => rx.recv_timeout(wait),
                        None => rx.recv().map_err(|_| RecvTimeoutError::Disconnected),
                    };
                    match message {
                        Ok(flows) => {
                            for flow in &flows {
                                let ingest = pipeline.ingest(flow)?;
                                if ingest.in_scope {
                                    debounce.mark_dirty();
                                }
                                for new in &ingest.new_endpoints {
                                    on_new(new);
                                }
                            }
                        }
                        Err(RecvTimeoutError::Timeout) => {}
                        Err(RecvTimeoutError::Disconnected) => break,
                    }
                }
                pipeline.documents()?.write_to(&out_dir)?;
                Ok(pipeline)
            })
            .context("cannot start the documentation thread")?;
        Ok(Self {
            tx,
            thread,
            dropped: 0,
        })
    }

    /// Hands a batch of flows to the spec thread without waiting. When its
    /// backlog is full (or it stopped on an error) the batch is not
    /// documented, [`LiveDocs::dropped`] counts it, and `false` comes back.
    pub(crate) fn offer(&mut self, flows: Vec<Flow>) -> bool {
        if flows.is_empty() {
            return true;
        }
        match self.tx.try_send(flows) {
            Ok(()) => true,
            Err(TrySendError::Full(flows) | TrySendError::Disconnected(flows)) => {
                self.dropped += flows.len() as u64;
                false
            }
        }
    }

    /// Flows turned away because the spec thread could not keep up.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Stops: ingests what is queued, writes the documents one last time, and
    /// returns the pipeline (for a summary). Blocks until the thread is done.
    pub(crate) fn finish(self) -> anyhow::Result<Pipeline> {
        drop(self.tx);
        self.thread
            .join()
            .map_err(|_| anyhow::anyhow!("the documentation thread panicked"))?
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::PipelineConfig;
    use ar_store::{Body, Client, FlowId, HttpVersion, Request, Response, Timestamp};
    use std::sync::{Arc, Mutex};

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
    fn wait_for(dir: &std::path::Path, file: &str, needle: &str) -> String {
        for _ in 0..200 {
            let text = std::fs::read_to_string(dir.join(file)).unwrap_or_default();
            if text.contains(needle) {
                return text;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("{file} never contained {needle}");
    }

    #[test]
    fn documents_follow_the_traffic_debounced_and_at_the_end() {
        let dir = tempfile::tempdir().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let lines = Arc::clone(&seen);
        // A long interval: after the first write, only `finish` writes.
        let mut live = LiveDocs::spawn(
            Pipeline::new(PipelineConfig::default()).unwrap(),
            dir.path().to_path_buf(),
            16,
            Duration::from_secs(3600),
            move |new| lines.lock().unwrap().push(new.to_string()),
            |error| panic!("write failed: {error:#}"),
        )
        .unwrap();
        assert!(live.offer(vec![flow(1, "https://api.shop.test/items")]));
        wait_for(dir.path(), "openapi.yaml", "/items:");
        assert!(live.offer(vec![flow(2, "https://api.shop.test/cart")]));
        std::thread::sleep(Duration::from_millis(200));
        let spec = std::fs::read_to_string(dir.path().join("openapi.yaml")).unwrap();
        assert!(
            !spec.contains("/cart:"),
            "rewritten before the interval passed"
        );
        assert!(live.offer(vec![flow(3, "https://api.shop.test/orders")]));
        assert_eq!(live.dropped(), 0);
        let pipeline = live.finish().unwrap();
        assert_eq!(pipeline.summary().endpoints, 3);
        let spec = std::fs::read_to_string(dir.path().join("openapi.yaml")).unwrap();
        assert!(
            spec.contains("/cart:") && spec.contains("/orders:"),
            "{spec}"
        );
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

    #[test]
    fn a_full_backlog_turns_batches_away_and_counts_their_flows() {
        let dir = tempfile::tempdir().unwrap();
        // The thread is held inside `on_new` until released, so its backlog (1) fills.
        let (entered_tx, entered_rx) = std::sync::mpsc::channel::<()>();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let mut live = LiveDocs::spawn(
            Pipeline::new(PipelineConfig::default()).unwrap(),
            dir.path().to_path_buf(),
            1,
            Duration::from_secs(3600),
            move |_| {
                let _ = entered_tx.send(());
                let _ = release_rx.recv();
            },
            |error| panic!("write failed: {error:#}"),
        )
        .unwrap();
        assert!(live.offer(vec![flow(1, "https://api.shop.test/a")]));
        entered_rx.recv().unwrap();
        let two = || {
            vec![
                flow(2, "https://api.shop.test/a"),
                flow(3, "https://api.shop.test/a"),
            ]
        };
        assert!(live.offer(two()), "one batch fits in the backlog");
        assert!(!live.offer(two()), "the second does not");
        assert_eq!(live.dropped(), 2);
        drop(release_tx);
        let pipeline = live.finish().unwrap();
        assert_eq!(
            pipeline.summary().flows,
            3,
            "the held and the queued batches"
        );
    }
}
