//! Following the templater: when its view of a host changes, endpoints whose
//! concrete paths now have different shapes split, endpoints whose shapes now
//! coincide merge, and keys follow the new templates.
//!
//! The view decides, whichever way it moves. Templates usually widen as
//! evidence grows (`/products/red-shoes` and `/products/blue-hat` become
//! `/products/{product}`); occasionally they narrow (eight plural words folded
//! into `/v1/{name}/settings` stay literal again once one of them shows its
//! own ids, `/v1/users/{userId}`). After [`EndpointStore::retemplate_host`]
//! every concrete path an endpoint tracks has the endpoint's shape key, so
//! the endpoints depend on the paths seen, not on the order they arrived in.

use std::collections::BTreeMap;

use super::endpoint::{EndpointId, FlowMedia};
use super::samples::Sample;
use super::{EndpointStore, Identity, Merge, Rekey, Route, SplitOutcome};
use crate::template::PathTemplate;
use crate::{Error, Timestamp};
use ar_flow::url::UrlParts;

/// What one re-templating did. A consumer applies the merges, then the
/// splits (rebuilding the endpoints they list), then the key changes.
#[derive(Debug, Default)]
pub(super) struct Changes {
    pub(super) merged: Vec<Merge>,
    pub(super) rekeyed: Vec<Rekey>,
    /// One per endpoint that lost paths, in endpoint order.
    pub(super) splits: Vec<SplitOutcome>,
}

/// An endpoint's concrete paths grouped by their shape key under the new view.
struct Plan {
    id: EndpointId,
    /// The shape the endpoint keeps: its only one, or the one with the most flows.
    keep: String,
    /// The new representative path, when the old one leaves.
    representative: Option<String>,
    /// The groups that leave, by shape, with their paths and flow counts.
    leave: BTreeMap<String, Vec<(String, u64)>>,
}

/// Paths, with their flows and samples, taken out of an endpoint.
struct Detached {
    source: EndpointId,
    method: String,
    shape: String,
    paths: Vec<(String, u64)>,
    flows: u64,
    samples: Vec<Sample>,
    started: Timestamp,
}

impl EndpointStore {
    /// Brings every path endpoint of `host` in line with the templater's
    /// current view: splits those whose paths no longer share one shape,
    /// merges those that now share one, and re-keys those whose template changed.
    ///
    /// Identities of endpoints whose shape changed are freed before any is
    /// claimed, so no endpoint merges into a shape another one is leaving.
    /// Leaving groups are detached before the merges and attached after them,
    /// so a group whose shape some endpoint now has joins that endpoint.
    pub(super) fn retemplate_host(&mut self, host: &str, changes: &mut Changes) {
        let merges_before = changes.merged.len();
        let ids: Vec<EndpointId> = self.by_host.get(host).cloned().unwrap_or_default();
        let plans: Vec<Plan> = ids.iter().filter_map(|id| self.plan(host, *id)).collect();
        for plan in &plans {
            let ep = &self.endpoints[&plan.id];
            if plan.keep != ep.shape {
                self.identities.remove(&Identity {
                    method: ep.method.clone(),
                    host: ep.host.clone(),
                    route: Route::Path(ep.shape.clone()),
                });
            }
        }
        // Where each source's remaining paths live (a source may merge away).
        let mut home: BTreeMap<EndpointId, EndpointId> = BTreeMap::new();
        let mut detached = Vec::new();
        for plan in &plans {
            for (shape, paths) in &plan.leave {
                detached.push(self.detach(plan.id, shape, paths));
            }
            if let Some(representative) = &plan.representative
                && let Some(ep) = self.endpoints.get_mut(&plan.id)
            {
                ep.representative.clone_from(representative);
            }
            if !plan.leave.is_empty() {
                home.insert(plan.id, plan.id);
            }
        }
        self.claim(&plans, &mut home, &mut changes.merged);
        let outcomes = self.place(host, detached, &home);
        let ids: Vec<EndpointId> = self.by_host.get(host).cloned().unwrap_or_default();
        for id in &ids {
            let Some(ep) = self.endpoints.get(id) else {
                continue;
            };
            if ep.graphql.is_some() {
                continue;
            }
            let template = self.templater.template(host, &ep.representative);
            self.set_template(*id, template, &mut changes.rekeyed);
        }
        // A key freed by an endpoint rekeyed after a suffixed one.
        for id in ids {
            let Some(ep) = self.endpoints.get(&id) else {
                continue;
            };
            if ep.graphql.is_none() && ep.key.0.contains('#') {
                let template = ep.template.clone();
                self.set_template(id, template, &mut changes.rekeyed);
            }
        }
        // Merges happened before the survivors' keys followed their templates.
        for merge in &mut changes.merged[merges_before..] {
            if let Some(ep) = self.endpoints.get(&merge.into) {
                merge.into_key.clone_from(&ep.key);
            }
        }
        changes.splits.extend(outcomes.into_values());
    }

    /// Gives each endpoint whose shape changed the identity of its new
    /// shape, merging it with the endpoint that already has it (into the
    /// older one); `home` follows sources that merge away.
    fn claim(
        &mut self,
        plans: &[Plan],
        home: &mut BTreeMap<EndpointId, EndpointId>,
        merged: &mut Vec<Merge>,
    ) {
        for plan in plans {
            let Some(ep) = self.endpoints.get(&plan.id) else {
                continue;
            };
            if plan.keep == ep.shape {
                continue;
            }
            let identity = Identity {
                method: ep.method.clone(),
                host: ep.host.clone(),
                route: Route::Path(plan.keep.clone()),
            };
            let live = match self.identities.get(&identity).copied() {
                Some(other) => {
                    let (into, from) = (other.min(plan.id), other.max(plan.id));
                    self.identities.insert(identity, into);
                    self.merge(from, into, merged);
                    home.values_mut()
                        .filter(|h| **h == from)
                        .for_each(|h| *h = into);
                    into
                }
                None => {
                    self.identities.insert(identity, plan.id);
                    plan.id
                }
            };
            if let Some(ep) = self.endpoints.get_mut(&live) {
                ep.shape.clone_from(&plan.keep);
            }
        }
    }

    /// Puts each detached group where its shape lives now: an endpoint
    /// that has it, a new endpoint, or (at the endpoint cap) back home.
    fn place(
        &mut self,
        host: &str,
        detached: Vec<Detached>,
        home: &BTreeMap<EndpointId, EndpointId>,
    ) -> BTreeMap<EndpointId, SplitOutcome> {
        let mut outcomes: BTreeMap<EndpointId, SplitOutcome> = BTreeMap::new();
        let mut created = Vec::new();
        for group in detached {
            let source_home = home.get(&group.source).copied().unwrap_or(group.source);
            let outcome = outcomes.entry(group.source).or_default();
            if !outcome.shrunk.contains(&source_home) {
                outcome.shrunk.push(source_home);
            }
            let identity = Identity {
                method: group.method.clone(),
                host: host.to_string(),
                route: Route::Path(group.shape.clone()),
            };
            let target = match self.identities.get(&identity).copied() {
                Some(existing) => {
                    if !created.contains(&existing) && !outcome.grown.contains(&existing) {
                        outcome.grown.push(existing);
                    }
                    existing
                }
                // At the endpoint cap the paths stay where they were.
                None if self.endpoints.len() >= self.config.max_endpoints => source_home,
                None => {
                    let first = group.paths[0].0.clone();
                    let id = self.create(identity, None, &first, group.started);
                    created.push(id);
                    outcome.created.push(id);
                    id
                }
            };
            self.attach(target, group);
        }
        outcomes
    }

    /// Groups the concrete paths of endpoint `id` by their shape under the
    /// current view. `None` for GraphQL endpoints (keyed by operation).
    fn plan(&self, host: &str, id: EndpointId) -> Option<Plan> {
        let ep = self.endpoints.get(&id)?;
        if ep.graphql.is_some() {
            return None;
        }
        let main = self.templater.shape_key(host, &ep.representative);
        let diverges = ep.paths.iter().any(|(path, _)| {
            path != ep.representative && self.templater.shape_key(host, path) != main
        });
        if !diverges {
            // The common case: one shape, nothing leaves.
            return Some(Plan {
                id,
                keep: main,
                representative: None,
                leave: BTreeMap::new(),
            });
        }
        let mut groups: BTreeMap<String, Vec<(String, u64)>> = BTreeMap::new();
        for (path, n) in ep.paths.iter() {
            let shape = self.templater.shape_key(host, path);
            groups.entry(shape).or_default().push((path.to_string(), n));
        }
        for paths in groups.values_mut() {
            paths.sort();
        }
        let keep = groups
            .iter()
            .max_by_key(|(shape, paths)| {
                (
                    paths.iter().map(|(_, n)| n).sum::<u64>(),
                    std::cmp::Reverse(*shape),
                )
            })
            .map(|(shape, _)| shape.clone())?;
        let kept = groups.remove(&keep)?;
        let representative = (keep != main).then(|| kept[0].0.clone());
        Some(Plan {
            id,
            keep,
            representative,
            leave: groups,
        })
    }

    /// Takes `paths` out of endpoint `id`: their flow counts and the samples
    /// of those paths. Everything else (statuses, parameters, links) stays.
    fn detach(&mut self, id: EndpointId, shape: &str, paths: &[(String, u64)]) -> Detached {
        let ep = self
            .endpoints
            .get_mut(&id)
            .expect("planned endpoints are live");
        let samples = ep
            .samples
            .take_where(|s| paths.iter().any(|(p, _)| path_of(&s.flow.request.url) == p));
        for (p, _) in paths {
            ep.paths.remove(p);
        }
        let flows: u64 = paths.iter().map(|(_, n)| n).sum();
        ep.flows = ep.flows.saturating_sub(flows);
        let started = samples
            .iter()
            .map(|s| s.flow.started)
            .min()
            .unwrap_or(ep.first_seen);
        Detached {
            source: id,
            method: ep.method.clone(),
            shape: shape.to_string(),
            paths: paths.to_vec(),
            flows,
            samples,
            started,
        }
    }

    /// Adds detached paths to endpoint `target`: their samples are counted
    /// and offered, and the flow counts follow the per-path counts.
    fn attach(&mut self, target: EndpointId, group: Detached) {
        let limits = self.config.limits();
        let max_params = self.config.max_params_per_endpoint;
        let Some(ep) = self.endpoints.get_mut(&target) else {
            return;
        };
        let before: Vec<u64> = group.paths.iter().map(|(p, _)| ep.paths.get(p)).collect();
        for sample in &group.samples {
            let url = UrlParts::split(&sample.flow.request.url);
            let path = if url.path.is_empty() { "/" } else { url.path };
            let media = FlowMedia::of(&sample.flow);
            ep.count(&sample.flow, media, url.scheme, path, url.query, max_params);
            ep.samples.offer(&sample.flow, sample.shape, limits);
        }
        ep.flows += group.flows.saturating_sub(group.samples.len() as u64);
        for ((p, n), b) in group.paths.iter().zip(before) {
            ep.paths.set(p, b + n);
        }
    }

    pub(super) fn set_template(
        &mut self,
        id: EndpointId,
        template: PathTemplate,
        rekeyed: &mut Vec<Rekey>,
    ) {
        let Some(ep) = self.endpoints.get(&id) else {
            return;
        };
        let identity = Identity {
            method: ep.method.clone(),
            host: ep.host.clone(),
            route: Route::Path(String::new()),
        };
        let base = super::ingest::base_key(&identity, &template);
        let old = ep.key.clone();
        // A suffixed key (`base#2`) stays while another endpoint holds
        // `base`; once `base` is free it is taken, so the keys a capture
        // ends with do not depend on the order its flows came in.
        let suffixed = (old.0.strip_prefix(base.as_str())).is_some_and(|s| s.starts_with('#'));
        let unchanged_base = *old.0 == *base || (suffixed && self.keys.contains_key(base.as_str()));
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
    /// and the endpoints of its host are regrouped as after any change of
    /// view. Counters follow the per-path flow counts; samples follow their
    /// paths; other statistics stay with the endpoint that keeps the most
    /// flows (see [`SplitOutcome`]).
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
        let mut changes = Changes::default();
        self.retemplate_host(&host, &mut changes);
        for split in changes.splits {
            outcome.created.extend(split.created);
            for (all, ids) in [
                (&mut outcome.shrunk, split.shrunk),
                (&mut outcome.grown, split.grown),
            ] {
                for id in ids {
                    if !all.contains(&id) {
                        all.push(id);
                    }
                }
            }
        }
        outcome.merged = changes.merged;
        outcome.rekeyed = changes.rekeyed;
        self.carry_split(&outcome);
        Ok(outcome)
    }
}

/// The path of a URL as ingest counts it (`/` when empty).
fn path_of(url: &str) -> &str {
    let path = UrlParts::split(url).path;
    if path.is_empty() { "/" } else { path }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scope::Scope;
    use crate::store::StoreConfig;
    use crate::{Body, Client, Flow, FlowId, HttpVersion, Request, Response};

    fn flow(id: u64, path: &str) -> Flow {
        let mut response = Response::new(200, HttpVersion::Http11);
        response.body = Body::from_decoded(Some("application/json".into()), b"{\"a\":1}".to_vec());
        let url = format!("https://h.test{path}");
        Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(id as i64),
            Client::Human,
            Request::new("GET", url, HttpVersion::Http11),
        )
        .with_response(response)
    }

    fn id_of(store: &EndpointStore, path: &str) -> EndpointId {
        store
            .endpoints()
            .into_iter()
            .find(|e| e.concrete_paths().contains_key(path))
            .map(|e| e.id())
            .expect("path stored")
    }

    #[test]
    fn detached_paths_take_their_counts_and_samples_along() {
        let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
        for (i, path) in ["/a/x", "/a/x", "/b/y"].iter().enumerate() {
            store.ingest(&flow(i as u64, path));
        }
        let (a, b) = (id_of(&store, "/a/x"), id_of(&store, "/b/y"));
        let group = store.detach(a, "s", &[("/a/x".to_string(), 2)]);
        assert_eq!((group.flows, group.samples.len()), (2, 2));
        assert_eq!(store.endpoint(a).unwrap().flow_count(), 0);
        store.attach(b, group);
        let b = store.endpoint(b).unwrap();
        assert_eq!(b.flow_count(), 3);
        assert_eq!(
            b.concrete_paths().iter().collect::<Vec<_>>(),
            [(&"/a/x".to_string(), &2), (&"/b/y".to_string(), &1)]
        );
        assert_eq!(b.samples().count(), 3);
    }

    #[test]
    fn attaching_a_path_already_kept_adds_to_its_count() {
        let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
        for (i, path) in ["/a/x", "/b/y", "/b/y"].iter().enumerate() {
            store.ingest(&flow(i as u64, path));
        }
        let (a, b) = (id_of(&store, "/a/x"), id_of(&store, "/b/y"));
        let group = store.detach(b, "s", &[("/b/y".to_string(), 2)]);
        store.attach(b, group);
        let group = store.detach(a, "s", &[("/a/x".to_string(), 1)]);
        store.attach(b, group);
        let again = store.detach(b, "s", &[("/a/x".to_string(), 1)]);
        store.attach(b, again);
        let b = store.endpoint(b).unwrap();
        assert_eq!(b.concrete_paths()["/b/y"], 2);
        assert_eq!(b.concrete_paths()["/a/x"], 1);
        assert_eq!(b.flow_count(), 3);
    }

    #[test]
    fn at_the_endpoint_cap_a_narrowed_endpoint_keeps_what_it_cannot_place() {
        let config = StoreConfig {
            max_endpoints: 8,
            ..StoreConfig::default()
        };
        let mut store = EndpointStore::new(Scope::everything(), config);
        let words = [
            "users",
            "orders",
            "carts",
            "reviews",
            "stores",
            "coupons",
            "invoices",
            "shipments",
        ];
        for (i, w) in words.iter().enumerate() {
            store.ingest(&flow(i as u64, &format!("/categories/{w}/settings")));
        }
        for (i, p) in ["/status", "/health", "/ping", "/version", "/time"]
            .iter()
            .enumerate()
        {
            store.ingest(&flow(20 + i as u64, p));
        }
        assert_eq!(
            store.endpoints().len(),
            6,
            "one folded endpoint and five others"
        );
        let narrowed = store.ingest(&flow(50, "/categories/users/42"));
        assert_eq!(store.endpoints().len(), 8, "the cap holds");
        assert_eq!(
            narrowed.endpoint, None,
            "no room left for /categories/users/42"
        );
        let created: usize = narrowed.splits.iter().map(|s| s.created.len()).sum();
        assert_eq!(created, 2, "two of the seven groups found room");
        let flows: u64 = store.endpoints().iter().map(|e| e.flow_count()).sum();
        assert_eq!(flows, 13, "no stored flow is lost");
        let home = store
            .endpoints()
            .into_iter()
            .find(|e| e.concrete_paths().len() > 1)
            .expect("the rest stayed together");
        assert_eq!(home.concrete_paths().len(), 6);
        assert_eq!(home.flow_count(), 6);
    }
}
