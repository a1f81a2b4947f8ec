//! The endpoint store: flows in, endpoints out.
//!
//! [`EndpointStore::ingest`] takes one [`Flow`](crate::Flow) and reports what happened:
//! the scope decision, the endpoint it landed in (new or not), and any
//! endpoints that merged, split or changed key because the templates of its
//! host changed. Templates mostly widen, and endpoints merge; now and then a
//! template narrows (a fold that later traffic contradicts), and an endpoint
//! whose concrete paths no longer share one template splits along the new
//! templates, as [`EndpointStore::split`] splits on request. What a consumer
//! keeps per endpoint (ar-openapi's schema builders) the store holds as
//! [`EndpointEvidence`] and carries through those merges and splits itself.
//!
//! Memory is bounded whatever the traffic: samples per endpoint and their
//! body bytes, parameters per endpoint, literals per trie node, endpoints
//! (`max_endpoints`), out-of-scope hosts and remembered body values are all
//! capped; counters are plain integers.
//!
//! ```
//! use ar_store::store::{EndpointStore, StoreConfig};
//! use ar_store::scope::{Scope, ScopeConfig};
//! use ar_store::{Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
//!
//! let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
//! let mut store = EndpointStore::new(scope, StoreConfig::default());
//! let mut ingest = |id: u64, url: &str| {
//!     let request = Request::new("GET", url, HttpVersion::Http11);
//!     let flow = Flow::new(FlowId(id), Timestamp::from_unix_micros(0), Client::Human, request)
//!         .with_response(Response::new(200, HttpVersion::Http11));
//!     store.ingest(&flow)
//! };
//! let first = ingest(1, "https://api.shop.test/users/42?expand=orders");
//! let second = ingest(2, "https://api.shop.test/users/43");
//! assert!(first.endpoint.as_ref().unwrap().is_new);
//! let hit = second.endpoint.unwrap();
//! assert!(!hit.is_new);
//! assert_eq!(hit.key.as_str(), "GET api.shop.test/users/{userId}");
//! assert_eq!(ingest(3, "https://cdn.other.test/x").endpoint, None);
//! ```

mod analysis;
mod bodymemo;
mod endpoint;
mod evidence;
mod fieldpath;
mod fingerprint;
mod ingest;
mod params;
mod paramtable;
mod pathcounts;
mod retemplate;
mod samples;
mod scan;
mod search;
mod tapewalk;
mod valueindex;

use std::collections::{BTreeMap, VecDeque};

use serde::{Deserialize, Serialize};

use crate::scope::{HostCache, OutReason, Scope, ScopeDecision};
use crate::template::{Overrides, Templater, TemplaterConfig};

pub use analysis::BodySide;
pub(crate) use analysis::claims_json;
pub(crate) use ar_flow::media_type;
pub use endpoint::{Endpoint, EndpointId, ProvenanceLink, StableKey};
pub use evidence::{BodyTapes, EndpointEvidence, LeftOut, Observation, Seen};
pub use params::{ParamSet, ParamStats, ValueKind};
pub use samples::{Sample, SampleReason};
pub use search::Query;

use samples::SampleLimits;
use scan::{FlowTapes, ScanBuffers};
use valueindex::{FoundValues, ValueIndex};

/// Limits and knobs of the store. Defaults suit an interactive session.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct StoreConfig {
    /// The first flows of each endpoint kept as samples.
    pub first_samples: usize,
    /// Reservoir size per endpoint.
    pub reservoir_samples: usize,
    /// Structurally different samples per endpoint.
    pub diverse_samples: usize,
    /// Body bytes kept per sample body (the rest is cut and marked truncated).
    pub sample_body_cap: usize,
    /// Seed of the reservoir's PRNG (same seed + same flows = same samples).
    pub seed: u64,
    /// Endpoints kept; flows for new endpoints beyond it are counted, not stored.
    pub max_endpoints: usize,
    /// Query / header names tracked per endpoint.
    pub max_params_per_endpoint: usize,
    /// Bodies larger than this are not parsed for shapes and provenance.
    pub max_analysis_bytes: usize,
    /// Body values remembered for provenance.
    pub provenance_capacity: usize,
    /// Out-of-scope hosts counted individually (the rest count as `(other)`).
    pub max_out_of_scope_hosts: usize,
    /// Templater limits.
    pub templater: TemplaterConfig,
    /// User templates (`--template`): paths matching one are templated by
    /// it, whatever the learnt rules say.
    pub template_overrides: Overrides,
}

impl Default for StoreConfig {
    fn default() -> Self {
        Self {
            first_samples: 3,
            reservoir_samples: 4,
            diverse_samples: 3,
            sample_body_cap: 64 * 1024,
            seed: 0x5EED,
            max_endpoints: 5_000,
            max_params_per_endpoint: 64,
            max_analysis_bytes: 2 * 1024 * 1024,
            provenance_capacity: 4_096,
            max_out_of_scope_hosts: 1_000,
            templater: TemplaterConfig::default(),
            template_overrides: Overrides::default(),
        }
    }
}

impl StoreConfig {
    fn limits(&self) -> SampleLimits {
        SampleLimits {
            first: self.first_samples,
            reservoir: self.reservoir_samples,
            diverse: self.diverse_samples,
            body_cap: self.sample_body_cap,
        }
    }
}

/// The endpoint a flow landed in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointHit {
    /// The endpoint.
    pub id: EndpointId,
    /// Its stable key (after any widening this flow caused).
    pub key: StableKey,
    /// Whether this flow created the endpoint.
    pub is_new: bool,
}

/// Endpoint `from` was merged into `into` (templates widened); `from` no
/// longer exists. Fold any state kept for `from` into `into`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merge {
    /// The endpoint that disappeared.
    pub from: EndpointId,
    /// The surviving endpoint (always the older one).
    pub into: EndpointId,
    /// The key `from` had.
    pub from_key: StableKey,
    /// The survivor's key after the merge.
    pub into_key: StableKey,
}

/// An endpoint's key changed (its template widened or was split).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rekey {
    /// The endpoint.
    pub id: EndpointId,
    /// Its previous key (still resolvable with [`EndpointStore::resolve_key`]).
    pub old: StableKey,
    /// Its new key.
    pub new: StableKey,
}

/// What one [`EndpointStore::ingest`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Ingested {
    /// The scope verdict.
    pub scope: ScopeDecision,
    /// The endpoint, when in scope (and not beyond `max_endpoints`).
    pub endpoint: Option<EndpointHit>,
    /// Endpoints merged because templates widened, in order.
    pub merged: Vec<Merge>,
    /// Endpoints whose key changed, in order (merge survivors included).
    pub rekeyed: Vec<Rekey>,
    /// Endpoints split because a template narrowed: one outcome per endpoint
    /// that lost paths, in endpoint order. Their `merged` and `rekeyed` are
    /// empty (those are in the fields above); apply them after `merged`, by
    /// rebuilding every endpoint they list from its samples.
    ///
    /// Empty unless the view of the flow's host changed and some endpoint's
    /// concrete paths stopped sharing one template, e.g. eight plural words
    /// folded into `/v1/{name}/settings` that stay literal once `/v1/users/42`
    /// shows `users` is a collection with its own ids.
    pub splits: Vec<SplitOutcome>,
}

/// What [`EndpointStore::split`] did, or what a narrowed template did to one
/// endpoint during [`EndpointStore::ingest`] (see [`Ingested::splits`]).
///
/// Flow counts follow the per-path counts and samples follow their paths;
/// other statistics (statuses, parameters, links) stay where they were, and
/// the moved paths' samples are counted again where they land.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct SplitOutcome {
    /// Endpoints created by the split (each from some of the old one's paths).
    pub created: Vec<EndpointId>,
    /// Endpoints that lost paths to others (or, when one merged away in the
    /// same change, the endpoint it merged into): rebuild their derived
    /// state from samples.
    pub shrunk: Vec<EndpointId>,
    /// Endpoints that existed and received paths (a split-off group whose
    /// template one already had): rebuild them too.
    pub grown: Vec<EndpointId>,
    /// Endpoints whose key changed.
    pub rekeyed: Vec<Rekey>,
    /// Merges caused by the new templates (rare: a split path joining an existing endpoint).
    pub merged: Vec<Merge>,
}

/// Flows kept out of the store, per host and reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutOfScope {
    /// The host (`(other)` once the host cap is reached).
    pub host: String,
    /// Why.
    pub reason: OutReason,
    /// How many flows.
    pub count: u64,
}

/// Store-wide counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreStats {
    /// Flows offered to `ingest`.
    pub flows: u64,
    /// Flows in scope.
    pub in_scope: u64,
    /// Flows out of scope.
    pub out_of_scope: u64,
    /// Endpoints now.
    pub endpoints: u64,
    /// Endpoints ever merged away.
    pub merges: u64,
    /// In-scope flows not stored because `max_endpoints` was reached.
    pub over_endpoint_cap: u64,
}

/// Identity of an endpoint: method, host, and the template shape or GraphQL operation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Identity {
    pub(crate) method: String,
    pub(crate) host: String,
    pub(crate) route: Route,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Route {
    Path(String),
    GraphQl(String),
}

/// An [`Identity`] seen through borrowed parts, so `ingest` can look an
/// endpoint up without building three owned strings per flow: `Identity`
/// borrows as `dyn IdentityKey`, and both hash and compare by [`parts`](IdentityKey::parts).
pub(crate) trait IdentityKey {
    fn parts(&self) -> (&str, &str, RouteRef<'_>);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum RouteRef<'a> {
    Path(&'a str),
    GraphQl(&'a str),
}

/// The borrowed form of an [`Identity`].
pub(crate) struct IdentityRef<'a> {
    pub(crate) method: &'a str,
    pub(crate) host: &'a str,
    pub(crate) route: RouteRef<'a>,
}

impl IdentityKey for Identity {
    fn parts(&self) -> (&str, &str, RouteRef<'_>) {
        let route = match &self.route {
            Route::Path(p) => RouteRef::Path(p),
            Route::GraphQl(n) => RouteRef::GraphQl(n),
        };
        (&self.method, &self.host, route)
    }
}

impl IdentityKey for IdentityRef<'_> {
    fn parts(&self) -> (&str, &str, RouteRef<'_>) {
        (self.method, self.host, self.route)
    }
}

impl std::hash::Hash for dyn IdentityKey + '_ {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.parts().hash(state);
    }
}

impl PartialEq for dyn IdentityKey + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for dyn IdentityKey + '_ {}

impl std::hash::Hash for Identity {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.parts().hash(state);
    }
}

impl<'a> std::borrow::Borrow<dyn IdentityKey + 'a> for Identity {
    fn borrow(&self) -> &(dyn IdentityKey + 'a) {
        self
    }
}

/// Groups flows into endpoints. Pure and single-threaded: `&mut self` to
/// ingest, `&self` to read; the caller decides about threads.
#[derive(Debug)]
pub struct EndpointStore {
    config: StoreConfig,
    scope: Scope,
    templater: Templater,
    /// Hashed by id: every flow looks its endpoint up; readers that want an
    /// order sort (by key, see [`EndpointStore::endpoints`]).
    endpoints: HashMap<EndpointId, Endpoint>,
    identities: HashMap<Identity, EndpointId>,
    by_host: BTreeMap<String, Vec<EndpointId>>,
    keys: HashMap<String, EndpointId>,
    aliases: HashMap<String, EndpointId>,
    alias_order: VecDeque<String>,
    values: ValueIndex,
    scan_buffers: ScanBuffers,
    /// The bodies of the flow being ingested, read once for the store and its evidence.
    body_tapes: FlowTapes,
    /// Small bodies seen again, with what their scan found.
    body_memo: bodymemo::BodyMemo,
    /// The host half of scope decisions, per host.
    scope_cache: HostCache,
    /// Emptied lists for the new values of a flow's response and request bodies.
    found_buffers: Option<(FoundValues, FoundValues)>,
    /// Reused buffer for the shape key of each flow's path.
    shape_buffer: String,
    out: BTreeMap<(String, OutReason), u64>,
    out_hosts: usize,
    next_id: u32,
    stats: StoreStats,
    /// What the owner keeps per endpoint, if anything ([`EndpointEvidence`]).
    evidence: Option<Box<dyn EndpointEvidence>>,
}

const MAX_ALIASES: usize = 10_000;

/// Internal hash maps use foldhash with a fixed seed: several times cheaper
/// than SipHash on short keys, and deterministic (no iteration order of these
/// maps reaches any output anyway).
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

impl EndpointStore {
    /// An empty store filtering with `scope`.
    pub fn new(scope: Scope, config: StoreConfig) -> Self {
        Self {
            templater: Templater::new(config.templater.clone())
                .with_overrides(config.template_overrides.clone()),
            values: ValueIndex::new(config.provenance_capacity),
            scan_buffers: ScanBuffers::default(),
            body_tapes: FlowTapes::default(),
            body_memo: bodymemo::BodyMemo::default(),
            scope_cache: HostCache::default(),
            found_buffers: None,
            shape_buffer: String::new(),
            config,
            scope,
            endpoints: HashMap::default(),
            identities: HashMap::default(),
            by_host: BTreeMap::new(),
            keys: HashMap::default(),
            aliases: HashMap::default(),
            alias_order: VecDeque::new(),
            out: BTreeMap::new(),
            out_hosts: 0,
            next_id: 1,
            stats: StoreStats::default(),
            evidence: None,
        }
    }

    /// The scope in use.
    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The templater (for explanations of paths not yet stored).
    pub fn templater(&self) -> &Templater {
        &self.templater
    }

    /// One endpoint by id.
    pub fn endpoint(&self, id: EndpointId) -> Option<&Endpoint> {
        self.endpoints.get(&id)
    }

    /// One endpoint by its current key, or by a key it had before widening or a merge.
    pub fn resolve_key(&self, key: &str) -> Option<&Endpoint> {
        let id = self.keys.get(key).or_else(|| self.aliases.get(key))?;
        self.endpoints.get(id)
    }

    /// All endpoints, sorted by key.
    pub fn endpoints(&self) -> Vec<&Endpoint> {
        let mut all: Vec<&Endpoint> = self.endpoints.values().collect();
        all.sort_by(|a, b| a.key.cmp(&b.key));
        all
    }

    /// Store-wide counters.
    pub fn stats(&self) -> StoreStats {
        StoreStats {
            endpoints: self.endpoints.len() as u64,
            ..self.stats
        }
    }

    /// Out-of-scope flow counts per host and reason, sorted by host.
    pub fn out_of_scope(&self) -> Vec<OutOfScope> {
        self.out
            .iter()
            .map(|((host, reason), count)| OutOfScope {
                host: host.clone(),
                reason: *reason,
                count: *count,
            })
            .collect()
    }

    /// Every templating decision behind an endpoint's template, with fresh evidence.
    pub fn explain(&self, id: EndpointId) -> Option<crate::template::Explanation> {
        let ep = self.endpoints.get(&id)?;
        Some(self.templater.explain(&ep.host, &ep.representative))
    }

    /// An estimate of the heap bytes the store holds (for memory reporting).
    pub fn approx_heap_bytes(&self) -> usize {
        self.endpoints
            .values()
            .map(Endpoint::heap_bytes)
            .sum::<usize>()
            + self.templater.approx_heap_bytes()
            + self.values.heap_bytes()
            + self.body_memo.heap_bytes()
            + self.scope_cache.heap_bytes()
            + self
                .identities
                .keys()
                .map(|i| {
                    i.host.len()
                        + i.method.len()
                        + 96
                        + match &i.route {
                            Route::Path(p) | Route::GraphQl(p) => p.len(),
                        }
                })
                .sum::<usize>()
            + self
                .keys
                .keys()
                .chain(self.aliases.keys())
                .map(|k| k.len() + 64)
                .sum::<usize>()
            + self.out.keys().map(|(h, _)| h.len() + 64).sum::<usize>()
    }
}
