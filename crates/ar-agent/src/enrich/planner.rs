//! Which endpoints need a naming call now.
//!
//! The rule is "exactly one call per distinct endpoint": the planner
//! remembers every endpoint it handed out by [`EndpointId`], so more flows
//! of the same endpoint, a rekey (template widened) or a merge into an
//! endpoint already named never produce another call; the name follows the
//! key instead. A key already in the cache (a resumed session) costs
//! nothing. Failed calls are retried, at most [`MAX_ATTEMPTS`] times, when
//! the caller asks for retries.
//!
//! When the caller swaps in a new store (a scope change rebuilds it from the
//! archive), ids are renumbered: [`Planner::forget_ids`] moves what is known
//! to the endpoints' keys, and the new store's endpoints pick it up by key,
//! so nothing is named twice and calls still in flight land where they belong.

use std::collections::{BTreeMap, HashMap};

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
    /// Which store `id` belongs to (see [`Planner::forget_ids`]).
    pub generation: u64,
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
    /// States of an older store's endpoints, by key, until the new store's
    /// endpoint with that key claims them.
    by_key: BTreeMap<String, State>,
    generation: u64,
}

impl Planner {
    /// A planner that redacts previews with `redactor`.
    #[must_use]
    pub fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            states: HashMap::new(),
            by_key: BTreeMap::new(),
            generation: 0,
        }
    }

    /// The store was replaced by one whose endpoint ids are new: from now on
    /// endpoints are matched to what the planner knows by stable key.
    pub fn forget_ids(&mut self) {
        self.generation += 1;
        for (_, state) in self.states.drain() {
            let key = match &state {
                State::InFlight { key, .. } | State::Named { key } | State::Failed { key, .. } => {
                    key.clone()
                }
            };
            self.by_key.insert(key, state);
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
            if !self.states.contains_key(&id)
                && let Some(state) = self.by_key.remove(&key)
            {
                self.states.insert(id, state);
            }
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
                            generation: self.generation,
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
                            generation: self.generation,
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
        // A job from before `forget_ids`: its endpoint is found by key.
        let id = if job.generation == self.generation {
            Some(job.id)
        } else {
            self.states
                .iter()
                .find(|(_, s)| matches!(s, State::InFlight { key, .. } if *key == job.key))
                .map(|(id, _)| *id)
        };
        let current = match id {
            Some(id) => self.states.get(&id),
            None => self.by_key.get(&job.key),
        };
        let (key, attempts) = match current {
            Some(State::InFlight { key, attempts }) => (key.clone(), *attempts),
            _ => (job.key.clone(), 0),
        };
        let state = match name {
            Some(annotation) => {
                cache.insert(key.clone(), annotation);
                State::Named { key }
            }
            None => {
                cache.mark_failed(key.clone());
                State::Failed {
                    key,
                    attempts: attempts + 1,
                }
            }
        };
        match id {
            Some(id) => {
                self.states.insert(id, state);
            }
            None => {
                self.by_key.insert(job.key.clone(), state);
            }
        }
    }

    /// Endpoints named or being named (never offered again).
    #[must_use]
    pub fn handled(&self) -> usize {
        self.states
            .values()
            .chain(self.by_key.values())
            .filter(|s| !matches!(s, State::Failed { .. }))
            .count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_openapi::Annotation;
    use ar_store::scope::{Scope, ScopeConfig};
    use ar_store::store::StoreConfig;
    use ar_store::{Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

    fn store(urls: &[&str], extra: &[&str]) -> EndpointStore {
        let mut config = ScopeConfig::for_target("https://shop.test/");
        config.extra_hosts = extra.iter().map(|h| (*h).to_string()).collect();
        let mut store = EndpointStore::new(Scope::new(config).unwrap(), StoreConfig::default());
        for (i, url) in urls.iter().enumerate() {
            let req = Request::new("GET", *url, HttpVersion::Http11);
            let flow = Flow::new(
                FlowId(i as u64),
                Timestamp::from_unix_micros(0),
                Client::Human,
                req,
            )
            .with_response(Response::new(200, HttpVersion::Http11));
            store.ingest(&flow);
        }
        store
    }

    fn named(id: &str) -> Annotation {
        Annotation {
            operation_id: Some(id.into()),
            ..Annotation::default()
        }
    }

    #[test]
    fn a_rebuilt_store_names_only_its_new_endpoints() {
        let urls = [
            "https://shop.test/api/cart",
            "https://shop.test/api/orders",
            "https://stock.other.test/api/levels",
        ];
        let mut planner = Planner::new(Redactor::new());
        let mut cache = EnrichmentCache::default();
        let before = store(&urls, &[]);
        let jobs = planner.wanted(&before, &mut cache, false);
        assert_eq!(jobs.len(), 2);
        // The cart is named; the orders call is still in flight at the rebuild.
        planner.finished(&jobs[0], Some(named("getCart")), &mut cache);

        let after = store(&urls, &["stock.other.test"]);
        planner.forget_ids();
        let again = planner.wanted(&after, &mut cache, false);
        let keys: Vec<&str> = again.iter().map(|j| j.key.as_str()).collect();
        assert_eq!(keys, ["GET stock.other.test/api/levels"]);

        // The old call lands on the new store's endpoint with that key.
        planner.finished(&jobs[1], Some(named("listOrders")), &mut cache);
        assert_eq!(
            cache.get(&jobs[1].key).unwrap().operation_id.as_deref(),
            Some("listOrders")
        );
        assert!(planner.wanted(&after, &mut cache, true).is_empty());
        assert_eq!(planner.handled(), 3);
    }
}
