//! [`Live`]: what the page shows that changes while `ar` runs. The capture
//! side pushes each flow ([`Live::record`]), the session's state
//! ([`Live::set_driver`], [`Live::set_counters`]) and "the documents were rewritten"
//! ([`Live::spec_written`]); the server reads rows, recent flows and the
//! session from here and streams every change to subscribed pages.
//!
//! Rows are appended under one lock, and a subscriber counts the rows that
//! match its filter under the same lock, so the count it starts from and the
//! events it receives after never overlap or leave a gap.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use ar_openapi::Redactor;
use ar_store::Flow;
use serde::Serialize;
use tokio::sync::broadcast;

use crate::row::{Filter, FlowRow, Placement};

/// Bytes of recent flows (bodies included) kept for the detail view; older
/// flows are read back through [`crate::Backend::archived_flow`].
const RECENT_BYTES: usize = 64 * 1024 * 1024;

/// Events a slow page may fall behind by before it is told to start over.
const EVENT_BACKLOG: usize = 4096;

/// The session as the page's Session panel shows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[non_exhaustive]
pub struct SessionView {
    /// What is being captured (the target URL, or `ar proxy`'s address).
    pub target: String,
    /// Who drives now (`explorer`, `agent`, `human`), or empty when nobody does.
    pub driver: String,
    /// Named counters, in display order (`flows`, `in scope`, `endpoints`, ...).
    pub counters: Vec<(String, u64)>,
    /// The latest progress lines, oldest first.
    pub progress: Vec<String>,
}

impl SessionView {
    /// A view of a session capturing `target`.
    pub fn new(target: impl Into<String>) -> Self {
        Self {
            target: target.into(),
            ..Self::default()
        }
    }
}

/// Progress lines the Session panel keeps.
const PROGRESS_LINES: usize = 50;

/// A change, as sent to subscribed pages.
#[derive(Debug, Clone)]
pub(crate) enum Change {
    /// A new flow.
    Flow(Arc<FlowRow>),
    /// The session changed.
    Session,
    /// The documents were rewritten.
    Spec,
    /// Rows changed in place: pages start over.
    Rows,
}

struct State {
    rows: Vec<Arc<FlowRow>>,
    recent: VecDeque<Arc<Flow>>,
    recent_bytes: usize,
    session: SessionView,
}

/// The shared, cheaply cloned handle on what the page shows live.
#[derive(Clone)]
pub struct Live {
    state: Arc<Mutex<State>>,
    changes: broadcast::Sender<Change>,
    redactor: Arc<Redactor>,
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live")
            .field("rows", &self.lock().rows.len())
            .finish_non_exhaustive()
    }
}

impl Default for Live {
    fn default() -> Self {
        Self::new(SessionView::default())
    }
}

impl Live {
    /// An empty feed for a session described by `session`.
    pub fn new(session: SessionView) -> Self {
        let (changes, _) = broadcast::channel(EVENT_BACKLOG);
        Self {
            state: Arc::new(Mutex::new(State {
                rows: Vec::new(),
                recent: VecDeque::new(),
                recent_bytes: 0,
                session,
            })),
            changes,
            redactor: Arc::new(Redactor::new()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The redactor every row and detail goes through.
    pub(crate) fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Adds a flow the pipeline just placed.
    pub fn record(&self, flow: &Flow, placement: &Placement) {
        let row = Arc::new(FlowRow::new(
            flow,
            placement,
            flow.client.into(),
            &self.redactor,
        ));
        let size = flow_bytes(flow);
        let mut state = self.lock();
        state.rows.push(Arc::clone(&row));
        state.recent.push_back(Arc::new(flow.clone()));
        state.recent_bytes += size;
        while state.recent_bytes > RECENT_BYTES && state.recent.len() > 1 {
            if let Some(old) = state.recent.pop_front() {
                state.recent_bytes -= flow_bytes(&old);
            }
        }
        // No page listening is not an error.
        let _ = self.changes.send(Change::Flow(row));
    }

    /// Places the rows again after the owner documented its archive anew
    /// (a correction, a scope change): `placement(id)` is where flow `id`
    /// is now, `None` to leave its row as it is. Open pages start over.
    pub fn replace_placements(&self, mut placement: impl FnMut(u64) -> Option<Placement>) {
        let mut state = self.lock();
        for row in &mut state.rows {
            if let Some(placement) = placement(row.id) {
                *row = Arc::new((**row).clone().placed(&placement));
            }
        }
        drop(state);
        let _ = self.changes.send(Change::Rows);
    }

    /// Says who drives now (`explorer`, `agent`, `human`).
    pub fn set_driver(&self, driver: &str) {
        let mut state = self.lock();
        if state.session.driver != driver {
            driver.clone_into(&mut state.session.driver);
            let _ = self.changes.send(Change::Session);
        }
    }

    /// Replaces the session's counters, in display order.
    pub fn set_counters(&self, counters: Vec<(String, u64)>) {
        let mut state = self.lock();
        if state.session.counters != counters {
            state.session.counters = counters;
            let _ = self.changes.send(Change::Session);
        }
    }

    /// Adds a progress line (redacted) to the Session panel.
    pub fn progress(&self, line: &str) {
        let line = self.redactor.text(line).into_owned();
        let mut state = self.lock();
        state.session.progress.push(line);
        let excess = state.session.progress.len().saturating_sub(PROGRESS_LINES);
        state.session.progress.drain(..excess);
        let _ = self.changes.send(Change::Session);
    }

    /// Tells open pages that `openapi.yaml`, `openapi.json` and `API.md` changed.
    pub fn spec_written(&self) {
        let _ = self.changes.send(Change::Spec);
    }

    /// The session as shown now.
    pub(crate) fn session(&self) -> SessionView {
        self.lock().session.clone()
    }

    /// Flows recorded so far.
    pub fn len(&self) -> usize {
        self.lock().rows.len()
    }

    /// Whether nothing was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The rows matching `filter` from the `offset`-th match, at most `limit`,
    /// and how many match in all.
    pub(crate) fn rows(
        &self,
        filter: &Filter,
        offset: usize,
        limit: usize,
    ) -> (usize, Vec<Arc<FlowRow>>) {
        let state = self.lock();
        let mut total = 0;
        let mut page = Vec::with_capacity(limit.min(1024));
        for row in state.rows.iter().filter(|r| filter.matches(r)) {
            if total >= offset && page.len() < limit {
                page.push(Arc::clone(row));
            }
            total += 1;
        }
        (total, page)
    }

    /// The row of flow `id`, if recorded.
    pub(crate) fn row(&self, id: u64) -> Option<Arc<FlowRow>> {
        let state = self.lock();
        // Ids grow with arrival, so a binary search finds most; a resumed
        // archive written by several runs may not be sorted, hence the scan.
        match state.rows.binary_search_by_key(&id, |r| r.id) {
            Ok(at) => Some(Arc::clone(&state.rows[at])),
            Err(_) => state.rows.iter().find(|r| r.id == id).cloned(),
        }
    }

    /// The flow `id` when it is among the recent ones.
    pub(crate) fn recent_flow(&self, id: u64) -> Option<Arc<Flow>> {
        let state = self.lock();
        state.recent.iter().rev().find(|f| f.id.0 == id).cloned()
    }

    /// Starts listening: how many rows match `filter` now, and the changes
    /// that come after them.
    pub(crate) fn subscribe(&self, filter: &Filter) -> (usize, broadcast::Receiver<Change>) {
        let state = self.lock();
        let total = state.rows.iter().filter(|r| filter.matches(r)).count();
        let receiver = self.changes.subscribe();
        drop(state);
        (total, receiver)
    }
}

/// Roughly what a flow holds in memory.
fn flow_bytes(flow: &Flow) -> usize {
    let response = flow
        .response
        .as_ref()
        .map_or(0, |r| r.body.bytes.len() + r.headers.len() * 64);
    512 + flow.request.url.len()
        + flow.request.body.bytes.len()
        + flow.request.headers.len() * 64
        + response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::get;

    #[test]
    fn a_subscriber_starts_from_the_rows_before_it_and_hears_each_one_after() {
        let live = Live::default();
        live.record(&get(1, "/api/a"), &Placement::default());
        let filter = Filter::from_query("q=api");
        let (before, mut changes) = live.subscribe(&filter);
        assert_eq!(before, 1);
        live.record(&get(2, "/api/b"), &Placement::default());
        let Ok(Change::Flow(row)) = changes.try_recv() else {
            panic!("no flow event")
        };
        assert_eq!(row.id, 2);
        let (total, page) = live.rows(&filter, 1, 10);
        assert_eq!((total, page.len(), page[0].id), (2, 1, 2));
        assert_eq!(live.row(1).map(|r| r.id), Some(1));
        assert!(live.recent_flow(2).is_some());
    }

    #[test]
    fn rows_placed_again_say_where_their_flows_are_now_and_pages_start_over() {
        use ar_store::scope::{InReason, ScopeDecision};
        let live = Live::default();
        let joined = Placement::new(
            ScopeDecision::In(InReason::TargetSite),
            Some("GET shop.test/api/users/41".into()),
        );
        live.record(&get(1, "/api/users/41"), &joined);
        live.record(&get(2, "/api/users/42"), &joined);
        let (_, mut changes) = live.subscribe(&Filter::default());
        let now = Placement::new(
            ScopeDecision::In(InReason::TargetSite),
            Some("GET shop.test/api/users/{userId}".into()),
        );
        live.replace_placements(|id| (id == 1).then(|| now.clone()));
        assert!(matches!(changes.try_recv(), Ok(Change::Rows)));
        let row = live.row(1).unwrap();
        assert_eq!(
            row.endpoint.as_deref(),
            Some("GET shop.test/api/users/{userId}")
        );
        // The text filter searches the endpoint the flow is in now.
        let (total, _) = live.rows(&Filter::from_query("q=%7BuserId%7D"), 0, 10);
        assert_eq!(total, 1);
        assert_eq!(live.row(2).unwrap().endpoint, joined.endpoint);
    }
}
