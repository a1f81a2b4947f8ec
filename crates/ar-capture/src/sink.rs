//! Where finished flows go, and what happens when nobody keeps up.
//!
//! Policy: traffic never waits for a consumer. The proxy hands each flow to
//! up to three bounded channels with `try_send`:
//!
//! - the **archive** sink (the lossless record) gets every flow while it has
//!   room; when it is full the flow is dropped and `dropped_archive` counts it
//!   (size the channel for bursts: the default in `ar proxy` holds thousands);
//! - the **live** sink (spec building, UI) is best effort: when it is full the
//!   proxy degrades to archive-only for that flow and `dropped_live` counts it;
//! - the **batch** sink is the archive sink in batches (one `Vec<Flow>` per
//!   tick, no per-flow message or copy); a batch it has no room for is
//!   dropped and its flows count in `dropped_archive`. A consumer that also
//!   documents passes the same `Vec` on (`ar proxy` archives and documents
//!   each batch in turn, on one thread).
//!
//! Both counters are visible in [`ProxyStats`], so a caller can report what
//! was lost instead of losing it silently.
//!
//! Delivery is batched: finished flows are queued in memory and moved to the
//! channels one [`DELIVERY_TICK`] after the first of them was queued, by the
//! proxy's accept loop (`Sinks::deliver_forever`). So a consumer parked in
//! `recv().await` is woken at most once per tick, not once per request, a
//! flow reaches its channel at most one tick after it ended, and an idle
//! proxy is not woken at all (a fixed interval would wake it 500 times a
//! second for nothing). The in-memory queue is bounded too
//! ([`PENDING_LIMIT`]); beyond it flows are dropped and counted as archive
//! drops.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ar_flow::Flow;
use tokio::sync::Notify;
use tokio::sync::mpsc::{Sender, error::TrySendError};

/// Counters of a running proxy, read with [`crate::ProxyHandle::stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ProxyStats {
    /// Client connections accepted.
    pub connections: u64,
    /// Flows completed (including error flows), whether or not a sink took them.
    pub flows: u64,
    /// Flows the archive sink had no room for.
    pub dropped_archive: u64,
    /// Flows the live sink had no room for (archive-only for those).
    pub dropped_live: u64,
}

#[derive(Default)]
pub(crate) struct Counters {
    pub(crate) connections: AtomicU64,
    flows: AtomicU64,
    dropped_archive: AtomicU64,
    dropped_live: AtomicU64,
}

impl Counters {
    pub(crate) fn snapshot(&self) -> ProxyStats {
        ProxyStats {
            connections: self.connections.load(Ordering::Relaxed),
            flows: self.flows.load(Ordering::Relaxed),
            dropped_archive: self.dropped_archive.load(Ordering::Relaxed),
            dropped_live: self.dropped_live.load(Ordering::Relaxed),
        }
    }
}

/// How often queued flows are moved to the sinks.
///
/// Each delivery wakes the consumers (in `ar proxy`, the archive and the spec
/// threads), and on a VM a wakeup costs far more than the work it brings when
/// a batch is small: with 2 ms, `ar proxy` spent 8–23% more CPU per request
/// than with 20 ms at a browser-like four connections (benches/notes/proxy.md, "a 20
/// ms delivery tick"). 50 ms gained nothing more. 20 ms is still far below
/// anything a person or an agent waits on.
pub const DELIVERY_TICK: Duration = Duration::from_millis(20);
/// Flows queued between two deliveries at most.
pub const PENDING_LIMIT: usize = 64 * 1024;

/// The two optional sinks, the delivery queue, and the counters.
pub(crate) struct Sinks {
    archive: Option<Sender<Flow>>,
    live: Option<Sender<Flow>>,
    batches: Option<Sender<Vec<Flow>>>,
    pending: Mutex<Vec<Flow>>,
    /// Signalled when a flow lands in an empty queue: a delivery is due.
    queued: Notify,
    pub(crate) counters: Counters,
}

impl Sinks {
    pub(crate) fn new(archive: Option<Sender<Flow>>, live: Option<Sender<Flow>>) -> Self {
        Self {
            archive,
            live,
            batches: None,
            pending: Mutex::new(Vec::new()),
            queued: Notify::new(),
            counters: Counters::default(),
        }
    }

    /// Adds the batch sink.
    pub(crate) fn with_batches(mut self, batches: Option<Sender<Vec<Flow>>>) -> Self {
        self.batches = batches;
        self
    }

    /// Queues a finished flow; never waits. Only the first flow of a batch
    /// signals the delivery loop; the rest ride along.
    pub(crate) fn emit(&self, flow: Flow) {
        self.counters.flows.fetch_add(1, Ordering::Relaxed);
        let mut pending = self
            .pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let first = pending.is_empty();
        if pending.len() >= PENDING_LIMIT {
            self.counters
                .dropped_archive
                .fetch_add(1, Ordering::Relaxed);
        } else {
            pending.push(flow);
        }
        drop(pending);
        if first {
            self.queued.notify_one();
        }
    }

    /// Delivers each batch one [`DELIVERY_TICK`] after its first flow was
    /// queued; sleeps without a timer while nothing is queued. Never returns:
    /// the accept loop polls it beside its other work.
    pub(crate) async fn deliver_forever(&self) {
        loop {
            self.queued.notified().await;
            tokio::time::sleep(DELIVERY_TICK).await;
            self.deliver();
        }
    }

    /// Moves queued flows to the sinks (from [`Sinks::deliver_forever`] and on shutdown).
    pub(crate) fn deliver(&self) {
        let mut batch = {
            let mut pending = self
                .pending
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if pending.is_empty() {
                return;
            }
            // The next batch is likely as big as this one: no regrowing under load.
            let capacity = pending.len();
            std::mem::replace(&mut *pending, Vec::with_capacity(capacity))
        };
        let per_flow = self.archive.is_some() || self.live.is_some();
        if let Some(batches) = &self.batches {
            let whole = if per_flow {
                batch.clone()
            } else {
                std::mem::take(&mut batch)
            };
            match batches.try_send(whole) {
                Ok(()) | Err(TrySendError::Closed(_)) => {}
                Err(TrySendError::Full(lost)) => {
                    let lost = lost.len() as u64;
                    let before = self
                        .counters
                        .dropped_archive
                        .fetch_add(lost, Ordering::Relaxed);
                    tracing::warn!(
                        flows = lost,
                        dropped = before + lost,
                        "batch sink is full; flows dropped"
                    );
                }
            }
        }
        for flow in batch {
            self.send(flow);
        }
    }

    /// Hands one flow to the channels without ever waiting.
    fn send(&self, flow: Flow) {
        if let Some(live) = &self.live {
            match live.try_send(flow.clone()) {
                Ok(()) | Err(TrySendError::Closed(_)) => {}
                Err(TrySendError::Full(_)) => {
                    self.counters.dropped_live.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        if let Some(archive) = &self.archive {
            match archive.try_send(flow) {
                Ok(()) | Err(TrySendError::Closed(_)) => {}
                Err(TrySendError::Full(flow)) => {
                    let dropped = self
                        .counters
                        .dropped_archive
                        .fetch_add(1, Ordering::Relaxed)
                        + 1;
                    if dropped.is_power_of_two() {
                        tracing::warn!(
                            flow = flow.id.0,
                            dropped,
                            "archive sink is full; flow dropped"
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_flow::{Client, FlowId, HttpVersion, Request, Timestamp};

    fn flow(id: u64) -> Flow {
        Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(0),
            Client::Human,
            Request::new("GET", "http://a.test/", HttpVersion::Http11),
        )
    }

    #[tokio::test]
    async fn a_full_live_sink_degrades_to_archive_only() {
        let (archive, mut archive_rx) = tokio::sync::mpsc::channel(10);
        let (live, mut live_rx) = tokio::sync::mpsc::channel(1);
        let sinks = Sinks::new(Some(archive), Some(live));
        for id in 1..=3 {
            sinks.emit(flow(id));
        }
        assert!(
            live_rx.try_recv().is_err(),
            "nothing is delivered before the tick"
        );
        sinks.deliver();
        let stats = sinks.counters.snapshot();
        assert_eq!(
            (stats.flows, stats.dropped_live, stats.dropped_archive),
            (3, 2, 0)
        );
        assert_eq!(live_rx.recv().await.unwrap().id, FlowId(1));
        for id in 1..=3 {
            assert_eq!(archive_rx.recv().await.unwrap().id, FlowId(id));
        }
    }

    #[tokio::test]
    async fn batches_arrive_whole_and_a_full_batch_sink_counts_every_flow() {
        let (batches, mut rx) = tokio::sync::mpsc::channel(1);
        let sinks = Sinks::new(None, None).with_batches(Some(batches));
        sinks.deliver();
        assert!(rx.try_recv().is_err(), "an empty tick sends nothing");
        sinks.emit(flow(1));
        sinks.emit(flow(2));
        sinks.deliver();
        sinks.emit(flow(3));
        sinks.emit(flow(4));
        sinks.emit(flow(5));
        sinks.deliver(); // the channel still holds the first batch
        let first: Vec<u64> = rx.recv().await.unwrap().iter().map(|f| f.id.0).collect();
        assert_eq!(first, [1, 2]);
        let stats = sinks.counters.snapshot();
        assert_eq!((stats.flows, stats.dropped_archive), (5, 3));
        sinks.emit(flow(6));
        sinks.deliver();
        assert_eq!(rx.recv().await.unwrap()[0].id, FlowId(6));
    }

    #[tokio::test(start_paused = true)]
    async fn a_flow_after_a_long_idle_arrives_one_tick_after_it_was_queued() {
        let (batches, mut rx) = tokio::sync::mpsc::channel(4);
        let sinks = std::sync::Arc::new(Sinks::new(None, None).with_batches(Some(batches)));
        let delivery = tokio::spawn({
            let sinks = std::sync::Arc::clone(&sinks);
            async move { sinks.deliver_forever().await }
        });
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert!(rx.try_recv().is_err(), "nothing queued, nothing delivered");
        sinks.emit(flow(1));
        sinks.emit(flow(2));
        let queued_at = tokio::time::Instant::now();
        let batch = rx.recv().await.expect("the batch arrives");
        assert_eq!(queued_at.elapsed(), DELIVERY_TICK);
        assert_eq!(batch.iter().map(|f| f.id.0).collect::<Vec<_>>(), [1, 2]);
        sinks.emit(flow(3));
        assert_eq!(rx.recv().await.expect("the next batch")[0].id, FlowId(3));
        delivery.abort();
    }

    #[tokio::test]
    async fn a_full_archive_counts_drops() {
        let (archive, _rx) = tokio::sync::mpsc::channel(1);
        let sinks = Sinks::new(Some(archive), None);
        sinks.emit(flow(1));
        sinks.emit(flow(2));
        sinks.deliver();
        assert_eq!(sinks.counters.snapshot().dropped_archive, 1);
    }
}
