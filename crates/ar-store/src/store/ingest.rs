//! Ingest: scope, signature, endpoint lookup or creation, counters, samples.
//! Re-templating, merging and splitting live in [`super::retemplate`].

use std::borrow::Cow;

use super::analysis::{BodySide, analyse_with};
use super::endpoint::{Endpoint, EndpointId, FlowMedia, ProvenanceLink, StableKey};
use super::evidence::BodyTapes;
use super::retemplate::Changes;
use super::valueindex::Hashed;
use super::{
    EndpointHit, EndpointStore, Identity, IdentityKey, IdentityRef, Ingested, Route, RouteRef,
};
use crate::scope::ScopeDecision;
use crate::template::{
    GraphQlOperation, Origin, PathTemplate, SeenCall, Segment, classify_segment, graphql_calls,
    is_version_like, operation_of, singular, split_path,
};
use crate::{Flow, Timestamp};
use ar_flow::graphql::Call;
use ar_flow::url::UrlParts;

impl EndpointStore {
    /// Ingests one flow: scope, signature, endpoint, counters, samples, and
    /// the [`EndpointEvidence`](super::EndpointEvidence) kept, if any.
    pub fn ingest(&mut self, flow: &Flow) -> Ingested {
        // A flow whose bodies are not read (out of scope, say) leaves no other's standing.
        self.body_tapes.clear();
        let (ingested, graphql) = self.place_flow(flow);
        self.carry_evidence(flow, &ingested, &graphql);
        self.body_tapes.shrink();
        ingested
    }

    /// The bodies of `flow`, the flow ingested last, as the store read them onto tapes: a
    /// program that reads them too (holding them against a published schema, say) walks
    /// these instead of parsing the text again. A body is there only when the store read it
    /// ([`BodyTapes`]); the tapes are the next flow's once it is ingested.
    ///
    /// ```
    /// use ar_flow::testing::json_flow;
    /// use ar_store::scope::{Scope, ScopeConfig};
    /// use ar_store::store::{EndpointStore, StoreConfig};
    ///
    /// let scope = Scope::new(ScopeConfig::for_target("https://api.shop.test/")).unwrap();
    /// let mut store = EndpointStore::new(scope, StoreConfig::default());
    /// let flow = json_flow(1, "GET", "https://api.shop.test/items/1", 200, r#"{"id": 1}"#);
    /// store.ingest(&flow);
    /// assert_eq!(store.body_tapes(&flow).response.map(|t| t.tokens().len()), Some(4));
    /// assert!(store.body_tapes(&flow).request.is_none());
    /// ```
    pub fn body_tapes(&self, flow: &Flow) -> BodyTapes<'_> {
        self.body_tapes.of(flow)
    }

    /// [`EndpointStore::ingest`] but for the evidence; with the GraphQL
    /// operations the request sends (recognised once, shown to the evidence).
    fn place_flow(&mut self, flow: &Flow) -> (Ingested, Vec<Call>) {
        self.stats.flows += 1;
        let url = UrlParts::split(&flow.request.url);
        let scope = self
            .scope
            .decide_split_cached(flow, &url, &mut self.scope_cache);
        let mut host = url.host_key_cow();
        if host.is_empty() {
            host = Cow::Owned(
                flow.request
                    .headers
                    .get(":authority")
                    .or_else(|| flow.request.headers.get("host"))
                    .unwrap_or("")
                    .to_ascii_lowercase(),
            );
        }
        let mut result = Ingested {
            scope,
            endpoint: None,
            merged: Vec::new(),
            rekeyed: Vec::new(),
            splits: Vec::new(),
        };
        if let ScopeDecision::Out(reason) = scope {
            self.stats.out_of_scope += 1;
            self.count_out(host.into_owned(), reason);
            return (result, Vec::new());
        }
        self.stats.in_scope += 1;
        let method: Cow<'_, str> = if flow.request.method.bytes().any(|b| b.is_ascii_lowercase()) {
            Cow::Owned(flow.request.method.to_ascii_uppercase())
        } else {
            Cow::Borrowed(&flow.request.method)
        };
        let path = if url.path.is_empty() { "/" } else { url.path };
        let max = self.config.max_analysis_bytes;
        // Reused between flows: a flow's new body values cost no allocation of their list.
        // Taken out and put back (an `Option`: putting back drops no emptied pair).
        let (mut response_values, mut request_values) =
            self.found_buffers.take().unwrap_or_default();
        let (buffers, tapes, values, memo) = (
            &mut self.scan_buffers,
            &mut self.body_tapes,
            &mut self.values,
            &mut self.body_memo,
        );
        let media = FlowMedia::of(flow);
        let response_shape = flow.response.as_ref().and_then(|r| {
            let found = (&mut *values, &mut response_values);
            let tape = &mut tapes.response;
            analyse_with(&r.body, media.response, max, found, tape, buffers, memo)
        });
        let request_shape = analyse_with(
            &flow.request.body,
            media.request,
            max,
            (values, &mut request_values),
            &mut tapes.request,
            buffers,
            memo,
        );
        let shape = response_shape.unwrap_or(0)
            ^ request_shape.map_or(0, |s| s.rotate_left(1))
            ^ u64::from(flow.status().unwrap_or(0));

        let calls = graphql_calls(flow, &url);
        let graphql = operation_of(&calls).filter(|op| op.name.is_some());
        let mut origins = Vec::new();
        let route = match &graphql {
            Some(op) => RouteRef::GraphQl(op.name.as_deref().unwrap_or_default()),
            None => {
                origins = self.origins_of(path);
                // Most paths hold no value seen in a body: nothing to build then.
                let marks: Vec<(usize, Origin)> = if origins.is_empty() {
                    Vec::new()
                } else {
                    origins
                        .iter()
                        .map(|(pos, seen, use_name)| {
                            (
                                *pos,
                                Origin {
                                    field_path: seen.field_path.to_string(),
                                    name: seen.name.to_string(),
                                    use_name: *use_name,
                                },
                            )
                        })
                        .collect()
                };
                // Observing classifies the segments once; the shape key comes
                // from the same walk (cached per layer-1 form of the path).
                if self.templater.observe_shape_key_into(
                    &host,
                    path,
                    SeenCall {
                        shape: (response_shape.filter(|_| !answers_nothing(flow)))
                            .map(|shape| self.scan_buffers.answer_shape(shape)),
                        query: url.query,
                        method: Some(&flow.request.method),
                        status: flow.status(),
                    },
                    &marks,
                    &mut self.shape_buffer,
                ) {
                    let mut changes = Changes::default();
                    self.retemplate_host(&host, &mut changes);
                    result.merged = changes.merged;
                    result.rekeyed = changes.rekeyed;
                    result.splits = changes.splits;
                }
                RouteRef::Path(&self.shape_buffer)
            }
        };
        let found = self
            .identities
            .get(&IdentityRef {
                method: &method,
                host: &host,
                route,
            } as &dyn IdentityKey)
            .copied();
        let (id, is_new) = match found {
            Some(id) => (id, false),
            None if self.endpoints.len() >= self.config.max_endpoints => {
                self.stats.over_endpoint_cap += 1;
                return (result, calls);
            }
            None => {
                let identity = Identity {
                    method: method.into_owned(),
                    host: host.into_owned(),
                    route: match route {
                        RouteRef::Path(p) => Route::Path(p.to_string()),
                        RouteRef::GraphQl(n) => Route::GraphQl(n.to_string()),
                    },
                };
                (self.create(identity, graphql, path, flow.started), true)
            }
        };
        let limits = self.config.limits();
        let max_params = self.config.max_params_per_endpoint;
        let ep = self
            .endpoints
            .get_mut(&id)
            .expect("identities point at live endpoints");
        ep.count(flow, media, url.scheme, path, url.query, max_params);
        ep.samples.offer(flow, shape, limits);
        for &(position, ref seen, _) in &origins {
            if seen.source != id {
                let param = ep
                    .template
                    .param_at(position)
                    .map(|p| p.name.clone())
                    .unwrap_or_default();
                ep.add_link(ProvenanceLink {
                    position,
                    param,
                    source: seen.source,
                    side: seen.side,
                    field_path: seen.field_path.to_string(),
                });
            }
        }
        let key = ep.key.clone();
        self.values
            .insert(&mut response_values, id, BodySide::Response);
        self.values
            .insert(&mut request_values, id, BodySide::Request);
        self.found_buffers = Some((response_values, request_values));
        result.endpoint = Some(EndpointHit { id, key, is_new });
        (result, calls)
    }

    fn count_out(&mut self, host: String, reason: crate::scope::OutReason) {
        let known = self.out.keys().any(|(h, _)| *h == host);
        let host = if known || self.out_hosts < self.config.max_out_of_scope_hosts {
            if !known {
                self.out_hosts += 1;
            }
            host
        } else {
            "(other)".to_string()
        };
        *self.out.entry((host, reason)).or_default() += 1;
    }

    /// Path segments whose value was seen in an earlier body (not the first segment, not versions).
    fn origins_of(&self, path: &str) -> Vec<(usize, super::valueindex::SeenValue, bool)> {
        let (segments, _) = split_path(path);
        let mut out = Vec::new();
        let mut previous: Option<&str> = None;
        for (position, segment) in segments.enumerate() {
            if position > 0
                && segment.len() >= 2
                && !is_version_like(segment)
                && let Some(seen) = self.values.get(Hashed::new(segment))
            {
                // A short classified value (`17`) only counts when the field's
                // collection matches the segment before it (`/orders/17` and `$.orders[].id`).
                let distinctive = segment.len() >= 6 || classify_segment(segment).is_none();
                let matches_collection =
                    previous.is_some_and(|p| seen.field_path.contains(&format!(".{p}")));
                if distinctive || matches_collection {
                    let use_name = match &seen.generic_parent {
                        None => true,
                        Some(parent) => previous
                            .is_some_and(|p| singular(p).eq_ignore_ascii_case(&singular(parent))),
                    };
                    out.push((position, seen.clone(), use_name));
                }
            }
            previous = Some(segment);
        }
        out
    }

    pub(super) fn create(
        &mut self,
        identity: Identity,
        graphql: Option<GraphQlOperation>,
        path: &str,
        started: Timestamp,
    ) -> EndpointId {
        let id = EndpointId(self.next_id);
        self.next_id += 1;
        let template = match &identity.route {
            Route::Path(_) => self.templater.template(&identity.host, path),
            Route::GraphQl(_) => PathTemplate {
                segments: split_path(path)
                    .0
                    .map(|s| Segment::Literal(s.to_string()))
                    .collect(),
                trailing_slash: false,
            },
        };
        let key = self.allocate_key(&base_key(&identity, &template));
        let mut ep = Endpoint::new(
            id,
            key.clone(),
            identity.method.clone(),
            identity.host.clone(),
            template,
            graphql,
            path,
            started,
            self.config.seed,
        );
        if let Route::Path(shape) = &identity.route {
            ep.shape = shape.clone();
        }
        self.keys.insert(key.0.to_string(), id);
        self.by_host
            .entry(identity.host.clone())
            .or_default()
            .push(id);
        self.identities.insert(identity, id);
        self.endpoints.insert(id, ep);
        id
    }

    /// `base`, or `base#2`, `base#3`, ... whichever is free.
    pub(super) fn allocate_key(&self, base: &str) -> StableKey {
        if !self.keys.contains_key(base) {
            return StableKey(base.into());
        }
        (2..)
            .map(|n| format!("{base}#{n}"))
            .find(|k| !self.keys.contains_key(k))
            .map(|k| StableKey(k.into()))
            .expect("an unused suffix exists")
    }

    pub(super) fn alias(&mut self, old: &StableKey, id: EndpointId) {
        if self.aliases.len() >= super::MAX_ALIASES
            && let Some(oldest) = self.alias_order.pop_front()
        {
            self.aliases.remove(&oldest);
        }
        self.alias_order.push_back(old.0.to_string());
        self.aliases.insert(old.0.to_string(), id);
    }
}

pub(super) fn base_key(identity: &Identity, template: &PathTemplate) -> String {
    match &identity.route {
        Route::GraphQl(name) => name.clone(),
        Route::Path(_) => format!("{} {}{}", identity.method, identity.host, template),
    }
}

/// Whether a flow's answer holds no structure (no body, `{}`, `[]`): two
/// such answers say nothing about whether two paths are alike, so the
/// templater gets no shape for them (`/experiments/delete` and
/// `/experiments/search-datasets` both answering `{}` are not one thing).
fn answers_nothing(flow: &Flow) -> bool {
    flow.response.as_ref().is_none_or(|r| {
        let body = r.body.bytes.trim_ascii();
        body.is_empty() || body == b"{}" || body == b"[]"
    })
}

#[cfg(test)]
mod tests {
    use super::answers_nothing;
    use crate::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

    fn answered(body: &[u8]) -> Flow {
        let mut response = Response::new(200, HttpVersion::Http11);
        response.body = Body::from_decoded(Some("application/json".into()), body.to_vec());
        let request = Request::new("POST", "https://api.test/x/delete", HttpVersion::Http11);
        Flow::new(
            FlowId(1),
            Timestamp::from_unix_micros(0),
            Client::Human,
            request,
        )
        .with_response(response)
    }

    #[test]
    fn empty_answers_carry_no_shape_evidence() {
        for body in [&b""[..], b"{}", b" [] \n"] {
            assert!(answers_nothing(&answered(body)), "{body:?}");
        }
        assert!(!answers_nothing(&answered(br#"{"id":1}"#)));
    }
}
