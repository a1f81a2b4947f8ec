//! The capture driver: which thread does the capture work of `ar proxy` and
//! of a session (archive, store, documents; a [`Work`]), at what CPU
//! priority, and how work from elsewhere (the web view's questions and
//! corrections, the agent's tools, the REPL's commands; [`Job`]s) gets its
//! turn between two slices of flows.
//!
//! Relaying comes first. With [`Pace::low_priority`] the capture work runs
//! on a thread at the lowest CPU priority (`nice` 19), so that on a busy
//! machine it takes the cores the relay, the client and the server leave
//! idle instead of preempting them. Between two slices of
//! [`Pace::slice`] flows it still offers its core to whoever waits
//! (`sched_yield`): without that it loses what the low priority gains. On
//! two saturated cores this relays 2–8% more requests per second than the
//! same work at normal priority (benches/notes/proxy.md, "the capture work at nice
//! 19").
//!
//! A thread that low falls behind when other work never leaves a core idle
//! (CPU hogs in other processes), and an unprivileged process cannot raise
//! its priority again. So the thread that receives the batches from the
//! proxy stays at normal priority and, whenever more than `HELP_AFTER`
//! flows wait, does the work itself, without yielding: a yield would put
//! it behind every hog. The low thread holds the work for one slice at a
//! time, so the helper (and a job) waits at most that long for it, and
//! whoever holds the work takes the next flows from the queue while
//! holding it, so flows are archived in the order they came.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard};

use std::time::Duration;

use ar_store::Flow;
use tokio::sync::{mpsc, oneshot};

/// Batches (one per proxy delivery tick, 20 ms) buffered between the proxy and
/// the capture work before the proxy starts dropping (and counting) them rather
/// than slowing traffic down: about 10 s of traffic.
pub const BATCH_QUEUE: usize = 512;

/// Flows waiting for the low thread beyond which the receiving thread does
/// the work itself: about half a second of traffic at 16k requests/s.
const HELP_AFTER: usize = 8 * 1024;

/// The `nice` value of the low thread: the lowest priority there is.
const LOW_PRIORITY: i32 = 19;

/// What is done with the flows: `ar proxy`'s capture, a session's.
pub trait Work: Send {
    /// Does the capture work of `flows`, oldest first.
    fn take(&mut self, flows: &[Flow]) -> anyhow::Result<()>;

    /// No flow waits (for now): write out what is buffered, and the
    /// documents if they are due.
    fn caught_up(&mut self) -> anyhow::Result<()>;
}

/// Work on the [`Work`] from elsewhere, run between two slices of flows on
/// the receiving thread, at normal priority.
pub type Job<W> = Box<dyn FnOnce(&mut W) + Send>;

/// How the work is paced.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    /// Flows taken at a time: the low thread offers its core between two
    /// slices, and the helper or a job can take over there.
    pub slice: usize,
    /// With no flow coming, [`Work::caught_up`] is still called this often,
    /// so that the last changes reach the documents when traffic stops.
    pub idle: Duration,
    /// Whether the work runs at the lowest CPU priority. For a proxy that
    /// any number of clients load (`ar proxy`): relaying comes first. Not
    /// for a browser's traffic (a session), which is light and whose spec
    /// the user watches grow.
    pub low_priority: bool,
}

/// The work and the flows waiting for it, shared by the two threads.
struct Shared<W> {
    /// Flows received and not yet taken, oldest first.
    queue: Mutex<Queue>,
    /// Signalled when flows are queued and when the work ends.
    queued: Condvar,
    work: Mutex<Slicing<W>>,
    pace: Pace,
}

/// The work, and the slice of flows it is given (kept to reuse its memory).
struct Slicing<W> {
    work: W,
    slice: Vec<Flow>,
}

#[derive(Default)]
struct Queue {
    flows: VecDeque<Flow>,
    ending: bool,
}

/// A capture thread panicked (a poisoned lock, a failed join).
fn panicked<T>(_: T) -> anyhow::Error {
    anyhow::anyhow!("the capture thread panicked")
}

impl<W: Work> Shared<W> {
    fn new(work: W, pace: Pace) -> Self {
        Self {
            queue: Mutex::new(Queue::default()),
            queued: Condvar::new(),
            work: Mutex::new(Slicing {
                work,
                slice: Vec::with_capacity(pace.slice),
            }),
            pace,
        }
    }

    fn queue(&self) -> anyhow::Result<MutexGuard<'_, Queue>> {
        self.queue.lock().map_err(panicked)
    }

    fn work(&self) -> anyhow::Result<MutexGuard<'_, Slicing<W>>> {
        self.work.lock().map_err(panicked)
    }

    /// Queues the flows of `batches` for the low thread; returns how many wait now.
    fn enqueue(&self, batches: impl Iterator<Item = Vec<Flow>>) -> anyhow::Result<usize> {
        let mut queue = self.queue()?;
        for batch in batches {
            queue.flows.extend(batch);
        }
        self.queued.notify_one();
        Ok(queue.flows.len())
    }

    /// Tells the low thread to stop taking flows.
    fn end(&self) -> anyhow::Result<()> {
        self.queue()?.ending = true;
        self.queued.notify_one();
        Ok(())
    }

    /// Takes the next slice of flows (while holding `work`) and does its
    /// capture work; writes everything out once the queue is empty. With
    /// nothing queued it only rewrites the documents when they are due.
    /// Returns whether flows remain.
    fn work_slice(&self, slicing: &mut Slicing<W>) -> anyhow::Result<bool> {
        let remaining = {
            let mut queue = self.queue()?;
            let n = queue.flows.len().min(self.pace.slice);
            slicing.slice.extend(queue.flows.drain(..n));
            queue.flows.len()
        };
        slicing.work.take(&slicing.slice)?;
        slicing.slice.clear();
        if remaining == 0 {
            slicing.work.caught_up()?;
        }
        Ok(remaining > 0)
    }

    /// Does the capture work of every flow queued, at the caller's
    /// priority, without yielding: the low thread is behind, so this is
    /// what the proxy waits on.
    fn work_all(&self) -> anyhow::Result<()> {
        let mut work = self.work()?;
        while self.work_slice(&mut work)? {}
        Ok(())
    }

    /// The low thread: a slice at a time while flows wait, offering the core
    /// between slices, and at least once per rewrite interval, so that the
    /// last changes reach the documents when traffic stops.
    fn work_at_low_priority(&self) -> anyhow::Result<()> {
        if self.pace.low_priority {
            lower_priority();
        }
        loop {
            {
                let queue = self.queue()?;
                let (queue, _) = self
                    .queued
                    .wait_timeout_while(queue, self.pace.idle, |q| q.flows.is_empty() && !q.ending)
                    .map_err(panicked)?;
                if queue.ending {
                    return Ok(());
                }
            }
            while self.work_slice(&mut *self.work()?)? {
                std::thread::yield_now();
            }
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

/// What the capture driver is fed.
pub struct Inputs<W> {
    /// The flows, a delivery tick at a time.
    pub batches: mpsc::Receiver<Vec<Flow>>,
    /// Work from elsewhere.
    pub jobs: mpsc::UnboundedReceiver<Job<W>>,
    /// Fires when the proxy has stopped (or the work should end).
    pub stop: oneshot::Receiver<()>,
}

/// Does the capture work of every flow until `stop` fires (or the proxy is
/// gone) and returns the work with all of it done. Call it on a thread
/// of normal priority: it receives the batches, hands them to a worker
/// thread (of low priority, if `pace` says so), helps when that one falls
/// behind, runs the jobs, and does what is left at the end.
pub fn serve<W: Work>(
    work: W,
    mut inputs: Inputs<W>,
    pace: Pace,
    runtime: &tokio::runtime::Handle,
) -> anyhow::Result<W> {
    let shared = Shared::new(work, pace);
    std::thread::scope(|scope| -> anyhow::Result<()> {
        let low = std::thread::Builder::new()
            .name("ar-capture-work".into())
            .spawn_scoped(scope, || shared.work_at_low_priority())?;
        let received = receive(&shared, &mut inputs, runtime, &low);
        shared.end()?;
        let low_result = low.join().map_err(panicked)?;
        received?;
        low_result?;
        // What the low thread left, and what came at the end.
        shared.work_all()
    })?;
    Ok(shared.work.into_inner().map_err(panicked)?.work)
}

/// What the receiving thread woke up for.
enum Woken<W> {
    /// Told to stop (or whoever could tell is gone).
    Stop,
    /// A batch of flows.
    Batch(Vec<Flow>),
    /// Work from elsewhere.
    Job(Job<W>),
    /// Nothing within an interval.
    Idle,
}

/// Receives batches until told to stop (or the low thread ends: it only
/// does on an error, which ends the capture), queues them, and works
/// through the queue itself when the low thread falls behind. Jobs run
/// here, at normal priority, as soon as the capture is between two slices,
/// also once no more batches can come (the proxy is gone) and until `stop`.
fn receive<W: Work>(
    shared: &Shared<W>,
    inputs: &mut Inputs<W>,
    runtime: &tokio::runtime::Handle,
    low: &std::thread::ScopedJoinHandle<'_, anyhow::Result<()>>,
) -> anyhow::Result<()> {
    let (mut batches_open, mut jobs_open) = (true, true);
    loop {
        let woken = runtime.block_on(async {
            tokio::select! {
                _ = &mut inputs.stop => Woken::Stop,
                batch = inputs.batches.recv(), if batches_open => match batch {
                    Some(batch) => Woken::Batch(batch),
                    None => {
                        batches_open = false;
                        Woken::Idle
                    }
                },
                job = inputs.jobs.recv(), if jobs_open => match job {
                    Some(job) => Woken::Job(job),
                    None => {
                        jobs_open = false;
                        Woken::Idle
                    }
                },
                // Notices a failed low thread while traffic is idle.
                () = tokio::time::sleep(shared.pace.idle) => Woken::Idle,
            }
        });
        let (stopping, first) = match woken {
            Woken::Stop => (true, None),
            Woken::Batch(batch) => (false, Some(batch)),
            Woken::Job(job) => {
                job(&mut shared.work()?.work);
                (false, None)
            }
            Woken::Idle => (false, None),
        };
        // With whatever else has queued by now.
        let rest = std::iter::from_fn(|| inputs.batches.try_recv().ok());
        let waiting = shared.enqueue(first.into_iter().chain(rest))?;
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

    /// Work that archives each flow, its lines written once caught up.
    struct Archiving(ArchiveDir);

    impl Work for Archiving {
        fn take(&mut self, flows: &[Flow]) -> anyhow::Result<()> {
            flows.iter().try_for_each(|flow| self.0.append(flow))
        }

        fn caught_up(&mut self) -> anyhow::Result<()> {
            self.0.flush()
        }
    }

    const PACE: Pace = Pace {
        slice: 8,
        idle: Duration::from_secs(1),
        low_priority: true,
    };

    fn capture(dir: &std::path::Path) -> Archiving {
        Archiving(ArchiveDir::open(dir).unwrap())
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

    /// Asserts that the archive holds flows `0..total`, each once, in order.
    fn assert_archived_in_order(dir: &std::path::Path, total: u64) {
        let ids = archived_ids(dir);
        let first_wrong = ids.iter().zip(0..).position(|(&id, want)| id != want);
        assert_eq!(
            (ids.len() as u64, first_wrong),
            (total, None),
            "flows archived, and where the order first breaks"
        );
    }

    #[test]
    fn every_flow_is_archived_once_in_order_while_both_threads_work() {
        let dir = tempfile::tempdir().unwrap();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let (batches, receiver) = mpsc::channel(1024);
        let (stop, stopped) = oneshot::channel();
        let (_jobs, jobs_rx) = mpsc::unbounded_channel();
        let handle = runtime.handle().clone();
        let capture = capture(dir.path());
        let inputs = Inputs {
            batches: receiver,
            jobs: jobs_rx,
            stop: stopped,
        };
        let serving = std::thread::spawn(move || serve(capture, inputs, PACE, &handle));
        // Bursts past HELP_AFTER, so the receiving thread helps too.
        let total = 50 * 500;
        assert!(total > 2 * HELP_AFTER as u64);
        for start in (0..total).step_by(500) {
            batches.try_send(batch(start..start + 500)).unwrap();
            if start % 5000 == 0 {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        }
        stop.send(()).unwrap();
        serving.join().unwrap().unwrap();
        assert_archived_in_order(dir.path(), total);
    }

    #[test]
    fn the_receiving_thread_does_the_work_the_low_thread_has_not_done() {
        let dir = tempfile::tempdir().unwrap();
        let shared = Shared::new(capture(dir.path()), PACE);
        // No low thread runs: as when CPU hogs keep it from every core.
        let total = (HELP_AFTER as u64 / 100 + 1) * 100;
        let waiting = shared
            .enqueue(
                (0..total)
                    .step_by(100)
                    .map(|start| batch(start..start + 100)),
            )
            .unwrap();
        assert!(waiting > HELP_AFTER);
        shared.work_all().unwrap();
        assert_archived_in_order(dir.path(), total);
        assert!(shared.queue().unwrap().flows.is_empty());
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
