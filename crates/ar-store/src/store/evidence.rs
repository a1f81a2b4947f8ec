//! The evidence the store keeps per endpoint for its owner, and how the
//! store carries it through merges and splits ([`EndpointEvidence`]).

use std::any::Any;
use std::fmt;

use ar_flow::graphql::Call;
use ar_flow::url::UrlParts;
use ar_schema::Tape;

use super::{EndpointId, EndpointStore, Ingested, SplitOutcome};
use crate::Flow;
use crate::FlowId;
use crate::scope::{OutReason, ScopeDecision};
use crate::store::Endpoint;
use crate::template::graphql_calls;

/// What a consumer keeps per endpoint (ar-openapi's schema builders and
/// parameter statistics), held by the store and carried along by it.
///
/// Endpoints merge when templates widen and split when one narrows; state
/// kept beside the store would have to replay every such decision to stay in
/// step. Held here, it is told at the moment the store decides: a flow placed
/// in an endpoint is observed under that endpoint as it is then, two merging
/// endpoints merge their evidence, and an endpoint that split is rebuilt from
/// the samples the store kept (mixed evidence cannot be divided).
///
/// The store holds it as a trait object, so the many readers of endpoints
/// (the agent's tools, the web view, MCP) take one `EndpointStore` type and
/// need not know what evidence is kept; its owner reads it back by type with
/// [`EndpointStore::evidence`].
///
/// ```
/// use ar_store::store::{Endpoint, EndpointId, EndpointStore, EndpointEvidence, LeftOut, Observation, StoreConfig};
/// use ar_store::scope::{Scope, ScopeConfig};
/// use ar_store::{Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
/// use std::collections::BTreeMap;
///
/// /// Flows per endpoint, and flows in none.
/// #[derive(Debug, Default)]
/// struct Tally { flows: BTreeMap<EndpointId, u64>, left_out: u64 }
///
/// impl EndpointEvidence for Tally {
///     fn observe(&mut self, _: &Flow, endpoint: &Endpoint, _: Observation<'_>) {
///         *self.flows.entry(endpoint.id()).or_default() += 1;
///     }
///     fn merge(&mut self, from: EndpointId, into: EndpointId) {
///         let moved = self.flows.remove(&from).unwrap_or(0);
///         *self.flows.entry(into).or_default() += moved;
///     }
///     fn forget(&mut self, endpoint: EndpointId) { self.flows.remove(&endpoint); }
///     fn resampled(&mut self, endpoint: &Endpoint, unsampled: u64) {
///         *self.flows.entry(endpoint.id()).or_default() += unsampled;
///     }
///     fn left_out(&mut self, _: &Flow, _: LeftOut) { self.left_out += 1; }
/// }
///
/// let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
/// let mut store = EndpointStore::new(scope, StoreConfig::default()).with_evidence(Tally::default());
/// for (n, url) in ["https://shop.test/users/42", "https://shop.test/users/43", "https://cdn.test/x"].iter().enumerate() {
///     let request = Request::new("GET", *url, HttpVersion::Http11);
///     let flow = Flow::new(FlowId(n as u64), Timestamp::from_unix_micros(0), Client::Human, request)
///         .with_response(Response::new(204, HttpVersion::Http11));
///     store.ingest(&flow);
/// }
/// let tally = store.evidence::<Tally>().unwrap();
/// let users = store.resolve_key("GET shop.test/users/{userId}").unwrap();
/// assert_eq!(tally.flows[&users.id()], 2);
/// assert_eq!(tally.left_out, 1);
/// ```
pub trait EndpointEvidence: Any + fmt::Debug + Send {
    /// Learns from `flow`, which the store placed in `endpoint` (as the
    /// endpoint is now: its template, key and provenance links).
    fn observe(&mut self, flow: &Flow, endpoint: &Endpoint, observation: Observation<'_>);
    /// Endpoint `from` merged into `into` and no longer exists.
    fn merge(&mut self, from: EndpointId, into: EndpointId);
    /// Drops what was kept for `endpoint`: it is about to be rebuilt from
    /// its samples (each then [`Seen::Resampled`]), or it is gone.
    fn forget(&mut self, endpoint: EndpointId);
    /// `endpoint` was rebuilt from its samples; `unsampled` of its flows
    /// were not among them (their evidence is gone, their count is not).
    /// Called for every rebuilt endpoint, with or without samples.
    fn resampled(&mut self, endpoint: &Endpoint, unsampled: u64);
    /// `flow` is in no endpoint, and why.
    fn left_out(&mut self, flow: &Flow, why: LeftOut);
}

/// What the store tells an [`EndpointEvidence`] of a flow besides the flow.
#[derive(Debug, Clone, Copy)]
pub struct Observation<'a> {
    /// Just ingested, or a kept sample seen again.
    pub seen: Seen,
    /// The GraphQL operations the flow's request sends, as the store
    /// recognised them when it keyed the endpoint
    /// ([`ar_flow::graphql::calls`]): empty when it is not GraphQL.
    pub graphql: &'a [Call],
    /// The flow's bodies as the store read them, to be walked rather than
    /// read again (one read of a body serves the store's fingerprint and,
    /// say, schema inference: [`ar_schema::SchemaBuilder::add_tape`]).
    pub tapes: BodyTapes<'a>,
}

/// A flow's JSON bodies read onto [`Tape`]s ([`Observation::tapes`]); each
/// is there only when the store read that body: a JSON document within the
/// store's analysis limit
/// ([`StoreConfig::max_analysis_bytes`](super::StoreConfig::max_analysis_bytes))
/// and not one it answered from memory. Otherwise the evidence reads the
/// body itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct BodyTapes<'a> {
    /// The request body's tape.
    pub request: Option<&'a Tape>,
    /// The response body's tape.
    pub response: Option<&'a Tape>,
}

/// How an [`EndpointEvidence`] comes to see a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The flow was just ingested.
    Fresh,
    /// A kept sample, seen again while its endpoint is rebuilt after a split:
    /// it was counted when it was fresh.
    Resampled,
}

/// Why an ingested flow is in no endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeftOut {
    /// The scope kept it out.
    Scope(OutReason),
    /// In scope, but the store's endpoint limit was reached.
    OverCapacity,
}

/// The flow being ingested while the splits it caused are followed: the
/// rebuilt endpoints leave it out of their samples, for it is observed on
/// its own afterwards.
#[derive(Debug, Clone, Copy)]
struct Ingesting {
    flow: FlowId,
    /// The endpoint the store put it in.
    endpoint: Option<EndpointId>,
}

impl EndpointStore {
    /// The store keeps `evidence` per endpoint from now on (set it before the
    /// first flow: flows already ingested are not shown to it).
    pub fn with_evidence(mut self, evidence: impl EndpointEvidence) -> Self {
        self.evidence = Some(Box::new(evidence));
        self
    }

    /// The evidence kept, when it is an `E`.
    pub fn evidence<E: EndpointEvidence>(&self) -> Option<&E> {
        let kept: &dyn Any = self.evidence.as_deref()?;
        kept.downcast_ref()
    }

    /// The evidence kept, when it is an `E`, to change what is not per
    /// endpoint (notes about the input, say).
    pub fn evidence_mut<E: EndpointEvidence>(&mut self) -> Option<&mut E> {
        let kept: &mut dyn Any = self.evidence.as_deref_mut()?;
        kept.downcast_mut()
    }

    /// Shows the evidence what one ingest did: merges, then the splits
    /// (their endpoints rebuilt from samples), then the flow itself.
    pub(super) fn carry_evidence(&mut self, flow: &Flow, ingested: &Ingested, graphql: &[Call]) {
        let Some(mut evidence) = self.evidence.take() else {
            return;
        };
        for merge in &ingested.merged {
            evidence.merge(merge.from, merge.into);
        }
        let ingesting = Ingesting {
            flow: flow.id,
            endpoint: ingested.endpoint.as_ref().map(|hit| hit.id),
        };
        for split in &ingested.splits {
            self.follow_split(&mut *evidence, split, Some(ingesting));
        }
        match (ingested.scope, &ingested.endpoint) {
            (ScopeDecision::Out(reason), _) => evidence.left_out(flow, LeftOut::Scope(reason)),
            (ScopeDecision::In(_), Some(hit)) => match self.endpoints.get(&hit.id) {
                Some(endpoint) => {
                    let observation = Observation {
                        seen: Seen::Fresh,
                        graphql,
                        tapes: self.body_tapes.of(flow),
                    };
                    evidence.observe(flow, endpoint, observation);
                }
                None => evidence.left_out(flow, LeftOut::OverCapacity),
            },
            (ScopeDecision::In(_), None) => evidence.left_out(flow, LeftOut::OverCapacity),
        }
        self.evidence = Some(evidence);
    }

    /// Shows the evidence what [`EndpointStore::split`] did.
    pub(super) fn carry_split(&mut self, outcome: &SplitOutcome) {
        if let Some(mut evidence) = self.evidence.take() {
            self.follow_split(&mut *evidence, outcome, None);
            self.evidence = Some(evidence);
        }
    }

    fn follow_split(
        &self,
        evidence: &mut dyn EndpointEvidence,
        outcome: &SplitOutcome,
        ingesting: Option<Ingesting>,
    ) {
        for merge in &outcome.merged {
            evidence.merge(merge.from, merge.into);
        }
        for endpoint in (outcome.created.iter())
            .chain(&outcome.shrunk)
            .chain(&outcome.grown)
        {
            self.resample(evidence, *endpoint, ingesting);
        }
    }

    /// Rebuilds one endpoint's evidence from the samples the store kept,
    /// leaving out the flow being ingested, which is observed on its own. The
    /// endpoint's flows beyond its samples are still its flows.
    fn resample(
        &self,
        evidence: &mut dyn EndpointEvidence,
        id: EndpointId,
        ingesting: Option<Ingesting>,
    ) {
        evidence.forget(id);
        let Some(endpoint) = self.endpoints.get(&id) else {
            return;
        };
        let skipped = ingesting.map(|i| i.flow);
        let mut sampled = 0;
        let mut skipped_sampled = false;
        for sample in endpoint.samples() {
            sampled += 1;
            if Some(sample.flow.id) == skipped {
                skipped_sampled = true;
            } else {
                let url = UrlParts::split(&sample.flow.request.url);
                let graphql = graphql_calls(&sample.flow, &url);
                let observation = Observation {
                    seen: Seen::Resampled,
                    graphql: &graphql,
                    tapes: BodyTapes::default(),
                };
                evidence.observe(&sample.flow, endpoint, observation);
            }
        }
        // The flow being ingested is in the store's count and is observed next.
        let ingesting_here = ingesting.is_some_and(|i| i.endpoint == Some(id)) && !skipped_sampled;
        let unsampled = (endpoint.flow_count()).saturating_sub(sampled + u64::from(ingesting_here));
        evidence.resampled(endpoint, unsampled);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use proptest::prelude::*;

    use super::*;
    use crate::scope::{Scope, ScopeConfig};
    use crate::store::StoreConfig;
    use crate::{Client, HttpVersion, Request, Response, Timestamp};

    /// What a consumer would keep: per endpoint, the flows seen (fresh and
    /// resampled) and the flows counted without evidence.
    #[derive(Debug, Default)]
    struct Tally {
        seen: BTreeMap<EndpointId, Vec<FlowId>>,
        unsampled: BTreeMap<EndpointId, u64>,
        fresh: u64,
        left_out: u64,
    }

    impl EndpointEvidence for Tally {
        fn observe(&mut self, flow: &Flow, endpoint: &Endpoint, observation: Observation<'_>) {
            if observation.seen == Seen::Fresh {
                self.fresh += 1;
            }
            self.seen.entry(endpoint.id()).or_default().push(flow.id);
        }
        fn merge(&mut self, from: EndpointId, into: EndpointId) {
            let moved = self.seen.remove(&from).unwrap_or_default();
            self.seen.entry(into).or_default().extend(moved);
            let unsampled = self.unsampled.remove(&from).unwrap_or(0);
            *self.unsampled.entry(into).or_default() += unsampled;
        }
        fn forget(&mut self, endpoint: EndpointId) {
            self.seen.remove(&endpoint);
            self.unsampled.remove(&endpoint);
        }
        fn resampled(&mut self, endpoint: &Endpoint, unsampled: u64) {
            self.seen.entry(endpoint.id()).or_default();
            self.unsampled.insert(endpoint.id(), unsampled);
        }
        fn left_out(&mut self, _: &Flow, _: LeftOut) {
            self.left_out += 1;
        }
    }

    fn flow(n: u64, url: &str) -> Flow {
        let request = Request::new("GET", url, HttpVersion::Http11);
        Flow::new(
            FlowId(n),
            Timestamp::from_unix_micros(0),
            Client::Human,
            request,
        )
        .with_response(Response::new(204, HttpVersion::Http11))
    }

    fn store() -> EndpointStore {
        let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
        EndpointStore::new(scope, StoreConfig::default()).with_evidence(Tally::default())
    }

    /// Every endpoint's evidence accounts for exactly its flows: those seen
    /// plus those counted without evidence after a split.
    fn assert_accounts_for_every_flow(store: &EndpointStore, ingested: u64) {
        let tally = store.evidence::<Tally>().expect("a tally is kept");
        let live: Vec<EndpointId> = store.endpoints().iter().map(|e| e.id()).collect();
        for endpoint in store.endpoints() {
            let id = endpoint.id();
            let seen = tally.seen.get(&id).map_or(0, Vec::len) as u64;
            let unsampled = tally.unsampled.get(&id).copied().unwrap_or(0);
            assert_eq!(
                seen + unsampled,
                endpoint.flow_count(),
                "{}",
                endpoint.key().as_str()
            );
        }
        assert!(
            tally.seen.keys().all(|id| live.contains(id)),
            "evidence of a merged-away endpoint is left: {:?} vs {live:?}",
            tally.seen.keys().collect::<Vec<_>>()
        );
        assert_eq!(tally.fresh + tally.left_out, ingested);
    }

    /// Which of a fresh flow's bodies reached the evidence on a tape, and
    /// whether that tape held exactly the body.
    #[derive(Debug, Default)]
    struct Tapes(Vec<(Option<bool>, Option<bool>)>);

    impl EndpointEvidence for Tapes {
        fn observe(&mut self, flow: &Flow, _: &Endpoint, observation: Observation<'_>) {
            let holds = |tape: Option<&Tape>, body: &[u8]| {
                tape.map(|t| {
                    let mut again = Tape::new();
                    again.read(body).is_ok() && again.tokens() == t.tokens()
                })
            };
            let response = flow.response.as_ref().map_or(&[][..], |r| &r.body.bytes);
            self.0.push((
                holds(observation.tapes.request, &flow.request.body.bytes),
                holds(observation.tapes.response, response),
            ));
        }
        fn merge(&mut self, _: EndpointId, _: EndpointId) {}
        fn forget(&mut self, _: EndpointId) {}
        fn resampled(&mut self, _: &Endpoint, _: u64) {}
        fn left_out(&mut self, _: &Flow, _: LeftOut) {}
    }

    #[test]
    fn the_bodies_the_store_read_reach_the_evidence_on_their_tapes() {
        let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
        let mut store =
            EndpointStore::new(scope, StoreConfig::default()).with_evidence(Tapes::default());
        let answered = |n: u64, request: &[u8], response: &[u8], media: &str| {
            let mut flow = flow(n, "https://shop.test/orders");
            flow.request.body = crate::Body::from_decoded(Some(media.into()), request.to_vec());
            let mut answer = Response::new(200, HttpVersion::Http11);
            answer.body = crate::Body::from_decoded(Some(media.into()), response.to_vec());
            flow.with_response(answer)
        };
        let json = "application/json";
        store.ingest(&answered(1, br#"{"q":"a"}"#, br#"[{"id":1}]"#, json));
        // Not JSON; JSON that is not one document.
        store.ingest(&answered(2, b"", b"hello", "text/plain"));
        store.ingest(&answered(3, br#"{"q":"b"}"#, br#"{"id":1} x"#, json));
        // The same small body a third time is answered from the store's memory, unread.
        for n in 4..7 {
            store.ingest(&answered(n, br#"{"q":"c"}"#, br#"{"id":2}"#, json));
        }
        let seen = &store.evidence::<Tapes>().expect("kept").0;
        assert_eq!(
            seen,
            &[
                (Some(true), Some(true)),
                (None, None),
                (Some(true), None),
                (Some(true), Some(true)),
                (Some(true), Some(true)),
                (None, None),
            ]
        );
    }

    #[test]
    fn merging_endpoints_merge_their_evidence() {
        let mut store = store();
        let paths = ["/users/1", "/users/2", "/users/3", "/items/a1b2c3d4", "/x"];
        for (n, path) in paths.iter().enumerate() {
            store.ingest(&flow(n as u64, &format!("https://shop.test{path}")));
        }
        store.ingest(&flow(9, "https://elsewhere.test/y"));
        let users = store.resolve_key("GET shop.test/users/{userId}").unwrap();
        let tally = store.evidence::<Tally>().unwrap();
        assert_eq!(
            tally.seen[&users.id()],
            [FlowId(0), FlowId(1), FlowId(2)],
            "the first flow's evidence followed the merge"
        );
        assert_eq!(tally.left_out, 1);
        assert_accounts_for_every_flow(&store, paths.len() as u64 + 1);
    }

    #[test]
    fn a_split_rebuilds_its_endpoints_from_their_samples() {
        let mut store = store();
        let paths = [
            "/repos/rust-lang/cargo/issues",
            "/repos/tokio-rs/tokio/issues",
            "/repos/tokio-rs/tokio/issues",
        ];
        for (n, path) in paths.iter().enumerate() {
            store.ingest(&flow(n as u64, &format!("https://shop.test{path}")));
        }
        let folded = (store.resolve_key("GET shop.test/repos/{owner}/{repo}/issues"))
            .unwrap()
            .id();
        let outcome = store.split(folded, 1).unwrap();
        assert!(!outcome.created.is_empty());
        assert_accounts_for_every_flow(&store, paths.len() as u64);
        let tally = store.evidence::<Tally>().unwrap();
        let cargo = (store.resolve_key("GET shop.test/repos/rust-lang/cargo/issues")).unwrap();
        assert_eq!(tally.seen[&cargo.id()], [FlowId(0)]);
        let tokio = (store.resolve_key("GET shop.test/repos/tokio-rs/tokio/issues")).unwrap();
        assert_eq!(tally.seen[&tokio.id()], [FlowId(1), FlowId(2)]);
    }

    #[test]
    fn without_evidence_the_store_keeps_none() {
        let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
        let mut store = EndpointStore::new(scope, StoreConfig::default());
        store.ingest(&flow(1, "https://shop.test/users/1"));
        assert!(store.evidence::<Tally>().is_none());
    }

    proptest! {
        /// Whatever paths come, in whatever order, merges and narrowings
        /// included: each endpoint's evidence is its flows, no more, no less,
        /// and nothing is kept for an endpoint that is gone.
        #[test]
        fn evidence_accounts_for_every_flow_of_every_endpoint(
            paths in proptest::collection::vec(
                proptest::collection::vec(
                    prop_oneof![
                        Just("users".to_string()), Just("v1".to_string()), Just("settings".to_string()),
                        Just("orders".to_string()), Just("42".to_string()), Just("43".to_string()),
                        "[a-z]{3,8}", "[0-9]{1,4}",
                    ],
                    1..4,
                ),
                1..60,
            ),
        ) {
            let mut store = store();
            for (n, segments) in paths.iter().enumerate() {
                store.ingest(&flow(n as u64, &format!("https://shop.test/{}", segments.join("/"))));
            }
            assert_accounts_for_every_flow(&store, paths.len() as u64);
        }
    }
}
