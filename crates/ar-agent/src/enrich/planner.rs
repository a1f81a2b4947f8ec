//! Which endpoints need a naming call now.
//!
//! The rule is "exactly one call per distinct endpoint": the planner
//! remembers every endpoint it handed out by [`EndpointId`], so more flows
//! of the same endpoint, a rekey (template widened) or a merge into an
//! endpoint already named never produce another call; the name follows the
//! key instead. A key already in the cache (a resumed session) costs
//! nothing. Failed calls are retried, at most [`MAX_ATTEMPTS`] times, when
//! the caller asks for retries.

use std::collections::HashMap;

use ar_openapi::Redactor;
use ar_store::store::{EndpointId, EndpointStore};

use super::{EnrichmentCache, preview};

/// Calls per endpoint before its deterministic name is final.
pub const MAX_ATTEMPTS: u32 = 3;

/// One naming call to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The endpoint.
    pub id: EndpointId,
    /// Its stable key now.
    pub key: String,
    /// The redacted preview to send.
    pub preview: String,
}

#[derive(Debug, Clone)]
enum State {
    InFlight { key: String, attempts: u32 },
    Named { key: String },
    Failed { key: String, attempts: u32 },
}

/// Decides which endpoints to name (see the module docs).
///
/// ```
/// use ar_agent::enrich::{EnrichmentCache, Planner};
/// use ar_openapi::Redactor;
/// use ar_store::scope::Scope;
/// use ar_store::store::{EndpointStore, StoreConfig};
/// use ar_store::{Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
/// let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
/// for (i, id) in [1, 2, 3].iter().enumerate() {
///     let req = Request::new("GET", format!("https://api.shop.test/users/{id}"), HttpVersion::Http11);
///     let flow = Flow::new(FlowId(i as u64), Timestamp::from_unix_micros(0), Client::Human, req)
///         .with_response(Response::new(200, HttpVersion::Http11));
///     store.ingest(&flow);
/// }
/// let mut planner = Planner::new(Redactor::new());
/// let mut cache = EnrichmentCache::default();
/// assert_eq!(planner.wanted(&store, &mut cache, false).len(), 1);
/// assert!(planner.wanted(&store, &mut cache, false).is_empty()); // in flight: never twice
/// ```
#[derive(Debug)]
pub struct Planner {
    redactor: Redactor,
    states: HashMap<EndpointId, State>,
}

impl Planner {
    /// A planner that redacts previews with `redactor`.
    #[must_use]
    pub fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            states: HashMap::new(),
        }
    }

    /// The calls to make now. Names follow rekeys and merges in `cache`;
    /// with `retry_failed`, failed endpoints are offered again.
    pub fn wanted(
        &mut self,
        store: &EndpointStore,
        cache: &mut EnrichmentCache,
        retry_failed: bool,
    ) -> Vec<Job> {
        let mut jobs = Vec::new();
        for endpoint in store.endpoints() {
            let id = endpoint.id();
            let key = endpoint.key().to_string();
            // Endpoints merged into this one: their state folds into it.
            for gone in endpoint.merged_from() {
                if let Some(State::Named { key: old }) = self.states.remove(gone) {
                    cache.rekey(&old, &key);
                    self.states
                        .entry(id)
                        .or_insert(State::Named { key: key.clone() });
                }
            }
            match self.states.get_mut(&id) {
                Some(State::Named { key: old } | State::InFlight { key: old, .. }) => {
                    if *old != key {
                        cache.rekey(old, &key);
                        old.clone_from(&key);
                    }
                }
                Some(State::Failed { key: old, attempts }) => {
                    old.clone_from(&key);
                    if retry_failed && *attempts < MAX_ATTEMPTS && cache.get(&key).is_none() {
                        jobs.push(Job {
                            id,
                            key: key.clone(),
                            preview: preview(endpoint, &self.redactor),
                        });
                    }
                }
                None => {
                    if cache.get(&key).is_some() {
                        self.states.insert(id, State::Named { key });
                    } else {
                        jobs.push(Job {
                            id,
                            key: key.clone(),
                            preview: preview(endpoint, &self.redactor),
                        });
                    }
                }
            }
        }
        for job in &jobs {
            let attempts = match self.states.get(&job.id) {
                Some(State::Failed { attempts, .. }) => *attempts,
                _ => 0,
            };
            self.states.insert(
                job.id,
                State::InFlight {
                    key: job.key.clone(),
                    attempts,
                },
            );
        }
        jobs
    }

    /// Records a call's outcome: the name goes into `cache` under the
    /// endpoint's current key; a failure is remembered for a later retry.
    pub fn finished(
        &mut self,
        job: &Job,
        name: Option<ar_openapi::Annotation>,
        cache: &mut EnrichmentCache,
    ) {
        let (key, attempts) = match self.states.get(&job.id) {
            Some(State::InFlight { key, attempts }) => (key.clone(), *attempts),
            _ => (job.key.clone(), 0),
        };
        match name {
            Some(annotation) => {
                cache.insert(key.clone(), annotation);
                self.states.insert(job.id, State::Named { key });
            }
            None => {
                cache.mark_failed(key.clone());
                self.states.insert(
                    job.id,
                    State::Failed {
                        key,
                        attempts: attempts + 1,
                    },
                );
            }
        }
    }

    /// Endpoints named or being named (never offered again).
    #[must_use]
    pub fn handled(&self) -> usize {
        self.states
            .values()
            .filter(|s| !matches!(s, State::Failed { .. }))
            .count()
    }
}
