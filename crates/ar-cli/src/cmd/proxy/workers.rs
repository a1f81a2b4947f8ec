//! Which thread does `ar proxy`'s capture work, and at what CPU priority.
//!
//! Relaying comes first. The capture work ([`Capture::run`]: archive, flow
//! lines, spec) runs on a thread at the lowest CPU priority (`nice` 19), so
//! that on a busy machine it takes the cores the relay, the client and the
//! server leave idle instead of preempting them. On two saturated cores that
//! relayed 2–8% more requests per second than the same work at normal
//! priority (BENCHMARKS.md, "the capture work at nice 19").
//!
//! A thread that low can fall behind without bound when other work never
//! leaves a core idle, and an unprivileged process cannot raise its priority
//! again. So the thread that receives the batches from the proxy stays at
//! normal priority and works through the queue itself whenever more than
//! [`HELP_AFTER`] batches wait. It first waits for the low thread to finish
//! the batch it holds, which CPU hogs in other processes can stretch to a
//! second or more; meanwhile batches queue in the proxy's channel, which
//! drops (and counts) them only when 512 wait, as it always did.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use ar_store::Flow;
use tokio::sync::{mpsc, oneshot};

use super::Capture;
use crate::pipeline::live::DEFAULT_INTERVAL;

/// Batches waiting for the low-priority thread beyond which the receiving
/// thread does the work itself: 25 delivery ticks, about half a second of
/// traffic (and a few MB of flows at most).
const HELP_AFTER: usize = 25;

/// The `nice` value of the low-priority thread: the lowest priority there is.
const LOW_PRIORITY: i32 = 19;

/// The capture state and the batches waiting for it, shared by the two threads.
struct Shared {
    /// Batches received and not yet taken, oldest first.
    queue: Mutex<Queue>,
    /// Signalled when a batch is queued and when the work ends.
    queued: Condvar,
    /// Whoever holds the capture takes the next batch from `queue` while
    /// holding it, so that batches are archived in the order they came.
    capture: Mutex<Capture>,
}

#[derive(Default)]
struct Queue {
    batches: VecDeque<Vec<Flow>>,
    ending: bool,
}

/// The capture thread has panicked while holding shared state.
fn panicked<T>(_: PoisonError<T>) -> anyhow::Error {
    anyhow::anyhow!("the capture thread panicked")
}

impl Shared {
    fn new(capture: Capture) -> Self {
        Self {
            queue: Mutex::new(Queue::default()),
            queued: Condvar::new(),
            capture: Mutex::new(capture),
        }
    }

    fn queue(&self) -> anyhow::Result<MutexGuard<'_, Queue>> {
        self.queue.lock().map_err(panicked)
    }

    /// Queues `batches` for the low-priority thread; returns how many wait now.
    fn enqueue(&self, batches: impl Iterator<Item = Vec<Flow>>) -> anyhow::Result<usize> {
        let mut queue = self.queue()?;
        queue.batches.extend(batches);
        self.queued.notify_one();
        Ok(queue.batches.len())
    }

    /// Tells the low-priority thread to stop taking batches.
    fn end(&self) -> anyhow::Result<()> {
        self.queue()?.ending = true;
        self.queued.notify_one();
        Ok(())
    }

    /// Takes one batch (or none, which still rewrites the documents when
    /// due) and does its capture work.
    fn work_one(&self) -> anyhow::Result<()> {
        let mut capture = self.capture.lock().map_err(panicked)?;
        let batch = self.queue()?.batches.pop_front();
        capture.run(batch.as_slice())
    }

    /// Does the capture work of every batch queued, at the caller's priority.
    fn work_all(&self) -> anyhow::Result<()> {
        let mut capture = self.capture.lock().map_err(panicked)?;
        let batches: Vec<_> = self.queue()?.batches.drain(..).collect();
        capture.run(&batches)
    }

    /// The low-priority thread: takes the batches one at a time as they
    /// come, and wakes at least once per rewrite interval, so that the last
    /// changes reach the documents when traffic stops.
    fn work_at_low_priority(&self) -> anyhow::Result<()> {
        lower_priority();
        loop {
            {
                let queue = self.queue()?;
                let (queue, _) = self
                    .queued
                    .wait_timeout_while(queue, DEFAULT_INTERVAL, |q| {
                        q.batches.is_empty() && !q.ending
                    })
                    .map_err(panicked)?;
                if queue.ending {
                    return Ok(());
                }
            }
            self.work_one()?;
        }
    }
}

/// Lowers the calling thread, and only it, to [`LOW_PRIORITY`]. On Linux
/// the `nice` value belongs to a thread (`setpriority` with no id applies
/// to the caller). Elsewhere it would lower the whole process, relay
/// included, so the work stays at normal priority there.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    if let Err(error) = rustix::process::setpriority_process(None, LOW_PRIORITY) {
        tracing::debug!(%error, "cannot lower the capture thread's priority");
    }
}

/// Runs the capture work of every batch until `stop` fires (or the proxy is
/// gone) and returns the capture with everything done. Call it on a thread
/// of normal priority: it receives the batches, hands them to a thread of
/// low priority, helps when that one falls behind, and does what is left
/// at the end.
pub(super) fn serve(
    capture: Capture,
    mut batches: mpsc::Receiver<Vec<Flow>>,
    mut stop: oneshot::Receiver<()>,
    runtime: &tokio::runtime::Handle,
) -> anyhow::Result<Capture> {
    let shared = Shared::new(capture);
    std::thread::scope(|scope| {
        let low = std::thread::Builder::new()
            .name("ar-capture-low".into())
            .spawn_scoped(scope, || shared.work_at_low_priority())?;
        let received = receive(&shared, &mut batches, &mut stop, runtime, &low);
        shared.end()?;
        let low_result = low
            .join()
            .map_err(|_| anyhow::anyhow!("the capture thread panicked"))?;
        received?;
        low_result?;
        // Whatever the low-priority thread left, and what came at the end.
        shared.work_all()
    })?;
    shared.capture.into_inner().map_err(panicked)
}

/// Receives batches until the proxy stops (or the low-priority thread
/// fails: its error ends the capture), queues them, and works through the
/// queue itself when the low-priority thread falls behind.
fn receive(
    shared: &Shared,
    batches: &mut mpsc::Receiver<Vec<Flow>>,
    stop: &mut oneshot::Receiver<()>,
    runtime: &tokio::runtime::Handle,
    low: &std::thread::ScopedJoinHandle<'_, anyhow::Result<()>>,
) -> anyhow::Result<()> {
    let mut received = Vec::new();
    loop {
        let stopping = runtime.block_on(async {
            tokio::select! {
                _ = &mut *stop => true,
                batch = batches.recv() => match batch {
                    Some(batch) => {
                        received.push(batch);
                        false
                    }
                    // The proxy is gone: nothing more will come.
                    None => true,
                },
                // Notices a failed low-priority thread while traffic is idle.
                () = tokio::time::sleep(DEFAULT_INTERVAL) => false,
            }
        });
        while let Ok(batch) = batches.try_recv() {
            received.push(batch);
        }
        let waiting = shared.enqueue(received.drain(..))?;
        if stopping || low.is_finished() {
            return Ok(());
        }
        if waiting > HELP_AFTER {
            shared.work_all()?;
        }
    }
}

#[cfg(test)]
mod tests {
    use ar_store::{Client, FlowId, HttpVersion, Request, Timestamp};

    use super::*;
    use crate::archive_dir::ArchiveDir;
    use crate::pipeline::live::LiveDocs;
    use crate::pipeline::{Pipeline, PipelineConfig};

    fn capture(dir: &std::path::Path) -> Capture {
        let pipeline = Pipeline::new(PipelineConfig::default()).unwrap();
        Capture {
            archive: ArchiveDir::open(dir).unwrap(),
            docs: LiveDocs::new(pipeline, dir.to_path_buf(), DEFAULT_INTERVAL),
            out: Box::new(std::io::sink()),
        }
    }

    fn batch(ids: std::ops::Range<u64>) -> Vec<Flow> {
        ids.map(|id| {
            let url = format!("http://shop.test/items/{id}");
            Flow::new(
                FlowId(id),
                Timestamp::from_unix_micros(0),
                Client::Human,
                Request::new("GET", &url, HttpVersion::Http11),
            )
        })
        .collect()
    }

    /// The flow ids in the archive, in the order of its lines.
    fn archived_ids(dir: &std::path::Path) -> Vec<u64> {
        std::fs::read_to_string(dir.join("flows.jsonl"))
            .unwrap()
            .lines()
            .map(|line| {
                let line: serde_json::Value = serde_json::from_str(line).unwrap();
                line["_ar"]["id"].as_u64().unwrap()
            })
            .collect()
    }

    #[test]
    fn every_flow_is_archived_once_in_order_while_both_threads_work() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let (batches, receiver) = mpsc::channel(1024);
        let (stop, stopped) = oneshot::channel();
        let handle = runtime.handle().clone();
        let capture = capture(dir.path());
        let serving = std::thread::spawn(move || serve(capture, receiver, stopped, &handle));
        // Bursts far above HELP_AFTER, so the receiving thread helps too.
        for burst in 0..40u64 {
            batches
                .try_send(batch(burst * 100..burst * 100 + 100))
                .unwrap();
            if burst % 10 == 9 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        stop.send(()).unwrap();
        let mut capture = serving.join().unwrap().unwrap();
        capture.archive.flush().unwrap();
        assert_eq!(archived_ids(dir.path()), (0..4000).collect::<Vec<_>>());
    }

    #[test]
    fn the_receiving_thread_does_the_work_the_low_thread_has_not_done() {
        let dir = tempfile::tempdir().unwrap();
        let shared = Shared::new(capture(dir.path()));
        // No low thread runs: as when other work keeps it from every core.
        let waiting = shared
            .enqueue((0..30).map(|b| batch(b * 2..b * 2 + 2)))
            .unwrap();
        assert!(waiting > HELP_AFTER);
        shared.work_all().unwrap();
        assert_eq!(archived_ids(dir.path()), (0..60).collect::<Vec<_>>());
        assert!(shared.queue().unwrap().batches.is_empty());
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn only_the_capture_thread_is_lowered() {
        let before = rustix::process::getpriority_process(None).unwrap();
        let lowered = std::thread::spawn(|| {
            lower_priority();
            rustix::process::getpriority_process(None).unwrap()
        })
        .join()
        .unwrap();
        assert_eq!(lowered, LOW_PRIORITY);
        assert_eq!(rustix::process::getpriority_process(None).unwrap(), before);
    }
}
