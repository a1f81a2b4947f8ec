//! Ingest, re-templating, merging and splitting of endpoints.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::analysis::{BodySide, analyse_with};
use super::endpoint::{Endpoint, EndpointId, ProvenanceLink, StableKey};
use super::{
    EndpointHit, EndpointStore, Identity, IdentityKey, IdentityRef, Ingested, Merge, Rekey, Route,
    RouteRef, SplitOutcome,
};
use crate::scope::ScopeDecision;
use crate::template::{
    GraphQlOperation, Origin, PathTemplate, Segment, classify_segment, graphql_operation_split,
    is_version_like, singular, split_path,
};
use crate::url::UrlParts;
use crate::{Error, Flow, Timestamp};

impl EndpointStore {
    /// Ingests one flow: scope, signature, endpoint, counters, samples.
    pub fn ingest(&mut self, flow: &Flow) -> Ingested {
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
        };
        if let ScopeDecision::Out(reason) = scope {
            self.stats.out_of_scope += 1;
            self.count_out(host.into_owned(), reason);
            return result;
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
        let (mut response_values, mut request_values) = std::mem::take(&mut self.found_buffers);
        let (buffers, values) = (&mut self.scan_buffers, &mut self.values);
        let response_shape = flow
            .response
            .as_ref()
            .and_then(|r| analyse_with(&r.body, max, values, &mut response_values, buffers));
        let request_shape = analyse_with(
            &flow.request.body,
            max,
            values,
            &mut request_values,
            buffers,
        );
        let shape = response_shape.unwrap_or(0)
            ^ request_shape.map_or(0, |s| s.rotate_left(1))
            ^ u64::from(flow.status().unwrap_or(0));

        let graphql = graphql_operation_split(flow, &url).filter(|op| op.name.is_some());
        let mut origins = Vec::new();
        let route = match &graphql {
            Some(op) => RouteRef::GraphQl(op.name.as_deref().unwrap_or_default()),
            None => {
                origins = self.origins_of(path);
                let marks: Vec<(usize, Origin)> = origins
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
                    .collect();
                // Observing classifies the segments once; the shape key comes
                // from the same walk (cached per layer-1 form of the path).
                if self.templater.observe_shape_key_into(
                    &host,
                    path,
                    response_shape,
                    &marks,
                    &mut self.shape_buffer,
                ) {
                    self.retemplate_host(&host, &mut result.merged, &mut result.rekeyed);
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
                return result;
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
        ep.count(flow, url.scheme, path, url.query, max_params);
        ep.samples.offer(flow, shape, limits);
        for (position, seen, _) in origins {
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
        self.found_buffers = (response_values, request_values);
        result.endpoint = Some(EndpointHit { id, key, is_new });
        result
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
    fn origins_of(&self, path: &str) -> Vec<(usize, super::analysis::SeenValue, bool)> {
        let (segments, _) = split_path(path);
        let mut out = Vec::new();
        let mut previous: Option<&str> = None;
        for (position, segment) in segments.enumerate() {
            if position > 0
                && segment.len() >= 2
                && !is_version_like(segment)
                && let Some(seen) = self.values.get(segment)
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

    fn create(
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
    fn allocate_key(&self, base: &str) -> StableKey {
        if !self.keys.contains_key(base) {
            return StableKey(base.into());
        }
        (2..)
            .map(|n| format!("{base}#{n}"))
            .find(|k| !self.keys.contains_key(k))
            .map(|k| StableKey(k.into()))
            .expect("an unused suffix exists")
    }

    fn alias(&mut self, old: &StableKey, id: EndpointId) {
        if self.aliases.len() >= super::MAX_ALIASES
            && let Some(oldest) = self.alias_order.pop_front()
        {
            self.aliases.remove(&oldest);
        }
        self.alias_order.push_back(old.0.to_string());
        self.aliases.insert(old.0.to_string(), id);
    }

    /// Recomputes templates of every path endpoint of `host`, merging those that now coincide.
    fn retemplate_host(&mut self, host: &str, merged: &mut Vec<Merge>, rekeyed: &mut Vec<Rekey>) {
        let ids: Vec<EndpointId> = self.by_host.get(host).cloned().unwrap_or_default();
        for id in ids {
            let Some(ep) = self.endpoints.get(&id) else {
                continue;
            };
            if ep.graphql.is_some() {
                continue;
            }
            let new_shape = self.templater.shape_key(host, &ep.representative);
            let template = self.templater.template(host, &ep.representative);
            let mut live = id;
            if new_shape != ep.shape {
                let old_identity = Identity {
                    method: ep.method.clone(),
                    host: ep.host.clone(),
                    route: Route::Path(ep.shape.clone()),
                };
                let new_identity = Identity {
                    route: Route::Path(new_shape.clone()),
                    ..old_identity.clone()
                };
                self.identities.remove(&old_identity);
                match self.identities.get(&new_identity).copied() {
                    Some(other) => {
                        let (into, from) = (other.min(id), other.max(id));
                        self.identities.insert(new_identity, into);
                        self.merge(from, into, merged);
                        live = into;
                    }
                    None => {
                        self.identities.insert(new_identity, id);
                    }
                }
                if let Some(ep) = self.endpoints.get_mut(&live) {
                    ep.shape = new_shape;
                }
            }
            self.set_template(live, template, rekeyed);
        }
    }

    fn set_template(&mut self, id: EndpointId, template: PathTemplate, rekeyed: &mut Vec<Rekey>) {
        let Some(ep) = self.endpoints.get(&id) else {
            return;
        };
        let identity = Identity {
            method: ep.method.clone(),
            host: ep.host.clone(),
            route: Route::Path(String::new()),
        };
        let base = base_key(&identity, &template);
        let old = ep.key.clone();
        let unchanged_base = *old.0 == *base
            || old
                .0
                .strip_prefix(base.as_str())
                .is_some_and(|s| s.starts_with('#'));
        let new = if unchanged_base {
            old.clone()
        } else {
            self.keys.remove(&*old.0);
            let key = self.allocate_key(&base);
            self.keys.insert(key.0.to_string(), id);
            self.alias(&old, id);
            key
        };
        let ep = self.endpoints.get_mut(&id).expect("checked above");
        ep.template = template;
        for link in &mut ep.links {
            if let Some(p) = ep.template.param_at(link.position) {
                link.param = p.name.clone();
            }
        }
        if new != old {
            ep.key = new.clone();
            rekeyed.push(Rekey { id, old, new });
        }
    }

    fn merge(&mut self, from: EndpointId, into: EndpointId, merged: &mut Vec<Merge>) {
        let Some(gone) = self.endpoints.remove(&from) else {
            return;
        };
        self.keys.remove(&*gone.key.0);
        self.alias(&gone.key, into);
        if let Some(list) = self.by_host.get_mut(&gone.host) {
            list.retain(|i| *i != from);
        }
        self.identities.retain(|_, v| *v != from);
        self.values.redirect(from, into);
        for ep in self.endpoints.values_mut() {
            for link in &mut ep.links {
                if link.source == from {
                    link.source = into;
                }
            }
        }
        let from_key = gone.key.clone();
        let limits = self.config.limits();
        let max_params = self.config.max_params_per_endpoint;
        let survivor = self.endpoints.get_mut(&into).expect("merge target is live");
        survivor.absorb(gone, limits, max_params);
        survivor.links.retain(|l| l.source != into);
        self.stats.merges += 1;
        merged.push(Merge {
            from,
            into,
            from_key,
            into_key: survivor.key.clone(),
        });
    }

    /// Splits a wrongly merged template: the literals at segment `position`
    /// of endpoint `id` stay literal from now on (a pin the templater keeps),
    /// and the endpoint's concrete paths are regrouped. Counters follow the
    /// per-path flow counts; samples follow their paths; other statistics stay
    /// with the endpoint that keeps the most flows (see [`SplitOutcome`]).
    pub fn split(&mut self, id: EndpointId, position: usize) -> Result<SplitOutcome, Error> {
        let ep = self
            .endpoints
            .get(&id)
            .ok_or(Error::UnknownEndpoint(id.0))?;
        if ep.template.param_at(position).is_none() {
            return Err(Error::NothingToSplit {
                key: ep.key.0.to_string(),
                position,
            });
        }
        let (host, representative) = (ep.host.clone(), ep.representative.clone());
        let mut outcome = SplitOutcome::default();
        if !self.templater.pin(&host, &representative, position) {
            return Ok(outcome);
        }
        let ids: Vec<EndpointId> = self.by_host.get(&host).cloned().unwrap_or_default();
        for id in ids {
            self.regroup(id, &mut outcome);
        }
        let mut merged = Vec::new();
        self.retemplate_host(&host, &mut merged, &mut outcome.rekeyed);
        outcome.merged.extend(merged);
        Ok(outcome)
    }

    /// Moves the paths of `id` whose shape key changed into their own endpoints.
    fn regroup(&mut self, id: EndpointId, outcome: &mut SplitOutcome) {
        let Some(ep) = self.endpoints.get(&id) else {
            return;
        };
        if ep.graphql.is_some() {
            return;
        }
        let host = ep.host.clone();
        let mut groups: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
        for (path, n) in ep.paths.view() {
            groups
                .entry(self.templater.shape_key(&host, path))
                .or_default()
                .push((path.clone(), *n));
        }
        if groups.len() <= 1 {
            return;
        }
        let keep = groups
            .iter()
            .max_by_key(|(k, paths)| {
                (
                    paths.iter().map(|(_, n)| n).sum::<u64>(),
                    std::cmp::Reverse((*k).clone()),
                )
            })
            .map(|(k, _)| k.clone())
            .expect("two groups or more");
        let method = ep.method.clone();
        for (shape, paths) in groups {
            if shape == keep {
                let ep = self.endpoints.get_mut(&id).expect("live");
                ep.representative = paths[0].0.clone();
                continue;
            }
            let identity = Identity {
                method: method.clone(),
                host: host.clone(),
                route: Route::Path(shape),
            };
            let flows: u64 = paths.iter().map(|(_, n)| n).sum();
            let ep = self.endpoints.get_mut(&id).expect("live");
            let moved = ep.samples.take_where(|s| {
                paths
                    .iter()
                    .any(|(p, _)| UrlParts::split(&s.flow.request.url).path == p)
            });
            for (p, _) in &paths {
                ep.paths.remove(p);
            }
            ep.flows = ep.flows.saturating_sub(flows);
            let started = moved
                .iter()
                .map(|s| s.flow.started)
                .min()
                .unwrap_or(ep.first_seen);
            let target = match self.identities.get(&identity).copied() {
                Some(existing) => existing,
                None => {
                    let new_id = self.create(identity, None, &paths[0].0, started);
                    outcome.created.push(new_id);
                    new_id
                }
            };
            let limits = self.config.limits();
            let max_params = self.config.max_params_per_endpoint;
            let target_ep = self.endpoints.get_mut(&target).expect("live");
            for sample in &moved {
                let url = UrlParts::split(&sample.flow.request.url);
                target_ep.count(&sample.flow, url.scheme, url.path, url.query, max_params);
                target_ep.samples.offer(&sample.flow, sample.shape, limits);
            }
            target_ep.flows += flows.saturating_sub(moved.len() as u64);
            for (p, n) in &paths {
                target_ep.paths.set(p, *n);
            }
            if !outcome.shrunk.contains(&id) {
                outcome.shrunk.push(id);
            }
        }
    }
}

fn base_key(identity: &Identity, template: &PathTemplate) -> String {
    match &identity.route {
        Route::GraphQl(name) => name.clone(),
        Route::Path(_) => format!("{} {}{}", identity.method, identity.host, template),
    }
}
