//! The enrichment worker: names each new endpoint with one LLM call
//! ([`ar_agent::enrich`]) and feeds the names into the pipeline's spec.
//!
//! It runs beside the pipeline's owner and reaches the store only through
//! closures ([`PipelineFn`]) the owner runs, so ingest never waits for a
//! model. Names are saved to `enrichment.json` after every call (atomic
//! rewrite) and loaded back on `--resume`; a failed call leaves the
//! deterministic name in place and is retried every `RETRY_EVERY`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use ar_agent::enrich::{ENRICHMENT_FILE, Enricher, EnrichmentCache, Planner};
use ar_agent::llm::{Provider, Usage};
use ar_openapi::{Annotation, Redactor};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::Pipeline;
use crate::files::write_atomic;

/// A closure the pipeline's owner runs; `true` when it changed the documents.
pub type PipelineFn = Box<dyn FnOnce(&mut Pipeline) -> bool + Send>;

/// Sends a closure to the pipeline's owner; false when it is gone.
pub type Runner = Arc<dyn Fn(PipelineFn) -> bool + Send + Sync>;

/// How often new endpoints are looked for.
const POLL: Duration = Duration::from_millis(500);
/// The longest the worker may take to name the last endpoints at exit.
const STOP_GRACE: Duration = Duration::from_secs(10);
/// How often failed calls are tried again.
const RETRY_EVERY: Duration = Duration::from_secs(30);

struct Books {
    planner: Planner,
    cache: EnrichmentCache,
    /// What the pipeline has been given, to push only changes.
    pushed: BTreeMap<String, Annotation>,
    /// The pipeline's generation the planner's endpoint ids belong to.
    generation: u64,
}

/// Names pushed to the pipeline that differ from what it has.
fn changes(books: &mut Books) -> Vec<(String, Annotation)> {
    let mut out = Vec::new();
    for (key, annotation) in books.cache.enrichment() {
        if books.pushed.get(&key) != Some(&annotation) {
            books.pushed.insert(key.clone(), annotation.clone());
            out.push((key, annotation));
        }
    }
    out
}

/// The running worker.
pub struct EnrichWorker {
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<Usage>,
}

impl EnrichWorker {
    /// Loads `dir/enrichment.json` (if any) and starts naming endpoints.
    /// Progress and failures go to `say`.
    pub fn spawn(
        provider: Arc<dyn Provider>,
        dir: PathBuf,
        run: Runner,
        say: mpsc::UnboundedSender<String>,
    ) -> anyhow::Result<Self> {
        let cache = EnrichmentCache::load(&dir)?;
        let books = Arc::new(Mutex::new(Books {
            planner: Planner::new(Redactor::new()),
            cache,
            pushed: BTreeMap::new(),
            generation: 0,
        }));
        let cancel = CancellationToken::new();
        let stop = cancel.clone();
        let enricher = Enricher::new(provider);
        let task = tokio::spawn(async move {
            let mut usage = Usage::default();
            let mut last_retry = Instant::now();
            loop {
                // After `stop`: one last pass for endpoints seen so far, then out.
                let last = stop.is_cancelled();
                let retry = last_retry.elapsed() >= RETRY_EVERY;
                if retry {
                    last_retry = Instant::now();
                }
                let (tx, rx) = oneshot::channel();
                let shared = Arc::clone(&books);
                let sent = run(Box::new(move |pipeline: &mut Pipeline| {
                    let mut books = shared.lock().unwrap_or_else(PoisonError::into_inner);
                    let books = &mut *books;
                    // A scope change rebuilt the store: its ids are new.
                    if books.generation != pipeline.generation() {
                        books.generation = pipeline.generation();
                        books.planner.forget_ids();
                    }
                    let jobs = books
                        .planner
                        .wanted(pipeline.store(), &mut books.cache, retry);
                    let changed = changes(books);
                    for (key, annotation) in &changed {
                        pipeline.annotate(key.clone(), annotation.clone());
                    }
                    let _ = tx.send(jobs);
                    !changed.is_empty()
                }));
                let Ok(jobs) = (if sent {
                    rx.await.map_err(drop)
                } else {
                    Err(())
                }) else {
                    break;
                };
                for job in jobs {
                    let result = enricher.name(&job.key, &job.preview).await;
                    let name = match result {
                        Ok((annotation, used)) => {
                            usage.add(&used);
                            Some(annotation)
                        }
                        Err(error) => {
                            let _ = say.send(format!(
                                "  note: could not name {} ({error}); keeping its default name, will retry",
                                job.key
                            ));
                            None
                        }
                    };
                    let json = {
                        let mut guard = books.lock().unwrap_or_else(PoisonError::into_inner);
                        let b = &mut *guard;
                        b.planner.finished(&job, name, &mut b.cache);
                        b.cache.to_json()
                    };
                    if let Err(error) = write_atomic(&dir.join(ENRICHMENT_FILE), json.as_bytes()) {
                        let _ = say.send(format!("  error: {error:#}"));
                    }
                    let shared = Arc::clone(&books);
                    run(Box::new(move |pipeline: &mut Pipeline| {
                        let mut books = shared.lock().unwrap_or_else(PoisonError::into_inner);
                        let changed = changes(&mut books);
                        for (key, annotation) in &changed {
                            pipeline.annotate(key.clone(), annotation.clone());
                        }
                        !changed.is_empty()
                    }));
                }
                if last {
                    break;
                }
                tokio::select! {
                    () = stop.cancelled() => {}
                    () = tokio::time::sleep(POLL) => {}
                }
            }
            usage
        });
        Ok(Self { cancel, task })
    }

    /// Names what is still unnamed (for at most `STOP_GRACE`), stops, and
    /// returns the tokens used. Endpoints left unnamed keep their default
    /// names and are named on `--resume`.
    pub async fn stop(self) -> Usage {
        self.cancel.cancel();
        let abort = self.task.abort_handle();
        match tokio::time::timeout(STOP_GRACE, self.task).await {
            Ok(joined) => joined.unwrap_or_default(),
            Err(_) => {
                abort.abort();
                Usage::default()
            }
        }
    }
}
