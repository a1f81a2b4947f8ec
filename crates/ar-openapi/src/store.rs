//! Glue to `ar_store::store::EndpointStore`: follow its verdicts (scope,
//! endpoint, merges, splits, key changes) so the documenter's per-endpoint state
//! always matches the store's endpoints.

use ar_store::scope::{OutReason, ScopeDecision};
use ar_store::store::{
    BodySide, Endpoint, EndpointId, EndpointStore, Ingested, ProvenanceLink, SplitOutcome,
};
use ar_store::template::{PathTemplate, Segment};
use ar_store::{Flow, FlowId};

use crate::documenter::{Documenter, EndpointInfo, SkipReason, ValueSource};
use crate::endpoint::EndpointDoc;

/// The documenter's view of a store endpoint.
pub fn endpoint_info(endpoint: &Endpoint) -> EndpointInfo {
    EndpointInfo {
        id: id(endpoint.id()),
        key: endpoint.key().as_str().to_string(),
        method: endpoint.method().to_ascii_uppercase(),
        host: endpoint.host().to_string(),
        template: endpoint.template().to_string(),
        sources: endpoint
            .links()
            .iter()
            .map(|link| {
                let (param, from_endpoint, json_path, from_response) = source_of(link);
                ValueSource {
                    param: param.to_string(),
                    from_endpoint,
                    json_path: json_path.to_string(),
                    from_response,
                }
            })
            .collect(),
        rest_param: rest_param(endpoint.template()).map(str::to_string),
    }
}

/// The name of the template's last parameter when it takes the rest of the path.
fn rest_param(template: &PathTemplate) -> Option<&str> {
    template.params().find(|p| p.rest).map(|p| p.name.as_str())
}

/// The flow an ingest was about, while the splits it made are followed.
#[derive(Debug, Clone, Copy)]
struct Ingesting {
    flow: FlowId,
    /// The endpoint the store put it in.
    endpoint: Option<EndpointId>,
}

/// A provenance link as the fields of its [`ValueSource`], borrowed.
fn source_of(link: &ProvenanceLink) -> (&str, u64, &str, bool) {
    (
        &link.param,
        id(link.source),
        &link.field_path,
        link.side == BodySide::Response,
    )
}

/// Whether `info` is what [`endpoint_info`] builds for `endpoint`, found out
/// without building it: on most flows nothing changed, and building copies
/// every string of the endpoint and formats its template.
fn describes(info: &EndpointInfo, endpoint: &Endpoint) -> bool {
    let method = endpoint.method();
    info.id == id(endpoint.id())
        && info.key == endpoint.key().as_str()
        && info.host == endpoint.host()
        && info.method.len() == method.len()
        && (info.method.bytes()).eq(method.bytes().map(|b| b.to_ascii_uppercase()))
        && template_is(endpoint.template(), &info.template)
        && info.rest_param.as_deref() == rest_param(endpoint.template())
        && (info.sources.iter())
            .map(|s| {
                (
                    s.param.as_str(),
                    s.from_endpoint,
                    s.json_path.as_str(),
                    s.from_response,
                )
            })
            .eq(endpoint.links().iter().map(source_of))
}

/// Whether `template` displays as exactly `text` (`/users/{userId}/`), read
/// off its segments as `PathTemplate`'s `Display` writes them: formatting it
/// on every flow only to compare cost more than the rest of the check.
fn template_is(template: &PathTemplate, text: &str) -> bool {
    if template.segments.is_empty() {
        return text == "/";
    }
    let mut rest = text;
    for segment in &template.segments {
        let Some(after_slash) = rest.strip_prefix('/') else {
            return false;
        };
        let next = match segment {
            Segment::Literal(literal) => after_slash.strip_prefix(literal.as_str()),
            Segment::Param(param) => (after_slash.strip_prefix('{'))
                .and_then(|name| name.strip_prefix(param.name.as_str()))
                .and_then(|after| after.strip_prefix('}'))
                .and_then(|after| after.strip_prefix(param.suffix.as_str())),
        };
        let Some(next) = next else {
            return false;
        };
        rest = next;
    }
    rest == if template.trailing_slash { "/" } else { "" }
}

fn id(endpoint: EndpointId) -> u64 {
    u64::from(endpoint.0)
}

/// Why the store left a flow out, in the ledger's terms.
pub fn skip_reason(reason: OutReason) -> SkipReason {
    match reason {
        OutReason::OutOfScopeHost => SkipReason::OutOfScopeHost,
        OutReason::StaticAsset => SkipReason::StaticAsset,
        OutReason::Tracker => SkipReason::Tracker,
        OutReason::HtmlPage => SkipReason::HtmlPage,
        OutReason::Preflight => SkipReason::Preflight,
        OutReason::Refused => SkipReason::Refused,
        OutReason::UserDeniedHost | OutReason::UserDeniedPath | OutReason::NotAllowedPath => {
            SkipReason::UserRule
        }
    }
}

impl Documenter {
    /// Learns from a flow the store just ingested: applies the store's merges,
    /// splits (when a template narrowed) and key changes, counts out-of-scope flows in the ledger, and observes
    /// in-scope flows under their endpoint.
    ///
    /// ```
    /// use ar_openapi::{document, Documenter, Enrichment, Options, Redactor};
    /// use ar_store::scope::{Scope, ScopeConfig};
    /// use ar_store::store::{EndpointStore, StoreConfig};
    /// use ar_store::{Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
    ///
    /// let mut store = EndpointStore::new(Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap(), StoreConfig::default());
    /// let mut documenter = Documenter::new(Redactor::new());
    /// for (n, url) in ["https://api.shop.test/users/42", "https://api.shop.test/users/43", "https://cdn.elsewhere.test/x"].iter().enumerate() {
    ///     let request = Request::new("GET", *url, HttpVersion::Http11);
    ///     let flow = Flow::new(FlowId(n as u64), Timestamp::from_unix_micros(0), Client::Human, request)
    ///         .with_response(Response::new(204, HttpVersion::Http11));
    ///     let ingested = store.ingest(&flow);
    ///     documenter.observe_ingested(&flow, &ingested, &store);
    /// }
    /// documenter.sync(&store);
    /// let yaml = document(&documenter, &Enrichment::new(), &Options::default()).unwrap().yaml().unwrap();
    /// assert!(yaml.contains("/users/{userId}:"));
    /// assert_eq!(documenter.ledger().other_hosts.get("cdn.elsewhere.test"), Some(&1));
    /// ```
    pub fn observe_ingested(&mut self, flow: &Flow, ingested: &Ingested, store: &EndpointStore) {
        for merge in &ingested.merged {
            self.merge_endpoints(id(merge.into), id(merge.from));
        }
        // A template narrowed: the endpoints it split are rebuilt from their
        // samples, leaving out this flow, which is observed below like any other.
        let ingesting = Ingesting {
            flow: flow.id,
            endpoint: ingested.endpoint.as_ref().map(|hit| hit.id),
        };
        for split in &ingested.splits {
            self.follow_split(split, store, Some(ingesting));
        }
        for rekey in &ingested.rekeyed {
            if let Some(endpoint) = store.endpoint(rekey.id) {
                self.refresh(&endpoint_info(endpoint));
            }
        }
        match (ingested.scope, &ingested.endpoint) {
            (ScopeDecision::Out(reason), _) => self.skip(flow, skip_reason(reason)),
            (ScopeDecision::In(_), Some(hit)) => match store.endpoint(hit.id) {
                Some(endpoint) => self.observe_endpoint(flow, endpoint),
                None => self.skip(flow, SkipReason::OverCapacity),
            },
            (ScopeDecision::In(_), None) => self.skip(flow, SkipReason::OverCapacity),
        }
    }

    /// Observes a flow the store placed in `endpoint`, copying the
    /// endpoint's identity only when the documenter's copy is out of date.
    fn observe_endpoint(&mut self, flow: &Flow, endpoint: &Endpoint) {
        let endpoint_id = id(endpoint.id());
        let current =
            (self.endpoints.get(&endpoint_id)).is_some_and(|(info, _)| describes(info, endpoint));
        if current {
            self.observe_current(flow, endpoint_id);
        } else {
            self.observe(flow, &endpoint_info(endpoint));
        }
    }

    /// Re-reads every endpoint's identity (template, key, provenance) from the
    /// store and drops endpoints the store no longer has. Call before [`crate::document`].
    pub fn sync(&mut self, store: &EndpointStore) {
        let ids: Vec<u64> = self.endpoints.keys().copied().collect();
        for endpoint_id in ids {
            let found = u32::try_from(endpoint_id)
                .ok()
                .and_then(|raw| store.endpoint(EndpointId(raw)));
            match found {
                Some(endpoint) => self.refresh(&endpoint_info(endpoint)),
                None => self.remove_endpoint(endpoint_id),
            }
        }
    }

    /// Follows [`EndpointStore::split`]: merges it caused are folded, and the
    /// endpoints it created, shrank or grew are rebuilt from the samples the
    /// store kept for them (their earlier evidence was mixed and cannot be divided).
    /// [`Documenter::observe_ingested`] does the same for the splits an ingest made.
    pub fn apply_split(&mut self, outcome: &SplitOutcome, store: &EndpointStore) {
        self.follow_split(outcome, store, None);
    }

    fn follow_split(
        &mut self,
        outcome: &SplitOutcome,
        store: &EndpointStore,
        skip: Option<Ingesting>,
    ) {
        for merge in &outcome.merged {
            self.merge_endpoints(id(merge.into), id(merge.from));
        }
        for endpoint in outcome
            .created
            .iter()
            .chain(&outcome.shrunk)
            .chain(&outcome.grown)
        {
            self.rebuild_except(*endpoint, store, skip);
        }
        for rekey in &outcome.rekeyed {
            if let Some(endpoint) = store.endpoint(rekey.id) {
                self.refresh(&endpoint_info(endpoint));
            }
        }
    }

    /// Rebuilds one endpoint's evidence from the samples the store kept
    /// (after [`EndpointStore::split`] created or shrank it).
    pub fn rebuild(&mut self, endpoint: EndpointId, store: &EndpointStore) {
        self.rebuild_except(endpoint, store, None);
    }

    /// [`Documenter::rebuild`] without the flow being ingested (`skip`),
    /// which is observed on its own. The store's flows beyond its samples
    /// still count as the endpoint's flows ([`EndpointDoc::unsampled`]).
    fn rebuild_except(
        &mut self,
        endpoint: EndpointId,
        store: &EndpointStore,
        skip: Option<Ingesting>,
    ) {
        self.remove_endpoint(id(endpoint));
        let Some(found) = store.endpoint(endpoint) else {
            return;
        };
        let info = endpoint_info(found);
        let info_id = info.id;
        let skipped = skip.map(|s| s.flow);
        let mut sampled = 0;
        let mut skipped_sampled = false;
        for sample in found.samples() {
            sampled += 1;
            if Some(sample.flow.id) == skipped {
                skipped_sampled = true;
            } else {
                self.observe_quietly(&sample.flow, &info);
            }
        }
        // A split can leave an endpoint without a sample of its own (the
        // reservoir kept other paths' flows): it stays documented rather than
        // vanishing from the spec, with its flows counted and no evidence.
        let doc = &mut (self.endpoints)
            .entry(info_id)
            .or_insert_with(|| (info, EndpointDoc::default()))
            .1;
        // The flow being ingested is in the store's count and is observed next.
        let ingesting_here = skip.is_some_and(|s| s.endpoint == Some(endpoint)) && !skipped_sampled;
        doc.unsampled = found
            .flow_count()
            .saturating_sub(sampled + u64::from(ingesting_here));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::scope::{Scope, ScopeConfig};
    use ar_store::store::StoreConfig;
    use ar_store::{Client, HttpVersion, Request, Response, Timestamp};

    /// A store that saw `paths` on `api.shop.test`, with its endpoints.
    fn store_of(paths: &[&str]) -> EndpointStore {
        let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
        let mut store = EndpointStore::new(scope, StoreConfig::default());
        for (n, path) in paths.iter().enumerate() {
            let request = Request::new(
                "get",
                format!("https://api.shop.test{path}"),
                HttpVersion::Http11,
            );
            let flow = Flow::new(
                FlowId(n as u64),
                Timestamp::from_unix_micros(0),
                Client::Human,
                request,
            )
            .with_response(Response::new(204, HttpVersion::Http11));
            store.ingest(&flow);
        }
        store
    }

    #[test]
    fn requests_the_proxy_refused_are_listed_in_the_ledger_not_documented() {
        let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
        let mut store = EndpointStore::new(scope, StoreConfig::default());
        let mut documenter = Documenter::new(crate::Redactor::new());
        let flows = [
            ("DELETE", "https://shop.test/api/carts/3", Client::Explorer),
            (
                "DELETE",
                "https://shop.test/api/carts/3?force=1",
                Client::Explorer,
            ),
            ("POST", "https://shop.test/api/demo/clear", Client::Explorer),
            ("POST", "https://other.test/api/wipe", Client::Explorer),
            // Refused for another reason (a loop, --offline): not the lock's doing.
            ("GET", "https://shop.test/api/cart", Client::Explorer),
            ("DELETE", "https://shop.test/api/carts/4", Client::Human),
        ];
        for (n, (method, url, client)) in flows.into_iter().enumerate() {
            let request = Request::new(method, url, HttpVersion::Http11);
            let flow = Flow::new(
                FlowId(n as u64),
                Timestamp::from_unix_micros(0),
                client,
                request,
            )
            .with_error(ar_store::ErrorKind::Refused, "refused");
            let ingested = store.ingest(&flow);
            documenter.observe_ingested(&flow, &ingested, &store);
        }
        assert!(
            store.endpoints().is_empty(),
            "refused flows are no evidence"
        );
        let ledger = documenter.ledger();
        assert_eq!(ledger.skipped.get(&SkipReason::Refused), Some(&5));
        assert_eq!(ledger.other_hosts.get("other.test"), Some(&1));
        assert_eq!(ledger.refused_destructive, 4);
        assert_eq!(
            ledger.refused_destructive_first,
            [
                ("DELETE /api/carts/3".to_string(), 2),
                ("POST /api/demo/clear".to_string(), 1),
                ("POST /api/wipe".to_string(), 1),
            ]
        );
    }

    #[test]
    fn templates_compare_as_they_display() {
        let store = store_of(&[
            "/",
            "/users/41/orders/",
            "/users/42/orders/",
            "/users/43/orders/",
            "/v1/search",
        ]);
        let mut checked = 0;
        for endpoint in store.endpoints() {
            let template = endpoint.template();
            let text = template.to_string();
            assert!(template_is(template, &text), "{text}");
            for other in ["", "/", "/users", "/users/{userId}/orders", "/v1/search/"] {
                assert_eq!(
                    template_is(template, other),
                    other == text,
                    "{text} vs {other}"
                );
            }
            checked += 1;
        }
        assert!(checked >= 3, "{checked} endpoints");
    }

    #[test]
    fn an_endpoint_is_described_until_it_changes() {
        let store = store_of(&["/users/41", "/users/42", "/users/43"]);
        for endpoint in store.endpoints() {
            let info = endpoint_info(endpoint);
            assert!(describes(&info, endpoint));
            for changed in [
                EndpointInfo {
                    template: format!("{}/", info.template),
                    ..info.clone()
                },
                EndpointInfo {
                    method: "get".into(),
                    ..info.clone()
                },
                EndpointInfo {
                    key: format!("{} ", info.key),
                    ..info.clone()
                },
                EndpointInfo {
                    host: "shop.test".into(),
                    ..info.clone()
                },
                EndpointInfo {
                    sources: vec![ValueSource {
                        param: "userId".into(),
                        from_endpoint: 9,
                        json_path: "$.id".into(),
                        from_response: true,
                    }],
                    ..info.clone()
                },
            ] {
                assert!(!describes(&changed, endpoint), "{changed:?}");
            }
        }
    }
}
