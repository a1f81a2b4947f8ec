//! One endpoint: everything observed for `(method, host, template)`.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::analysis::BodySide;
use super::params::ParamSet;
use super::paramtable::{ParamTable, as_sent};
use super::pathcounts::PathCounts;
use super::samples::{Sample, SampleLimits, Samples};
use crate::template::{GraphQlOperation, PathTemplate, StatusClass};
use crate::{Flow, Timestamp};

/// Identifies an endpoint inside one store. Ids are never reused; an id
/// disappears only when its endpoint is merged into another ([`super::Merge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EndpointId(pub u32);

impl fmt::Display for EndpointId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The key an agent uses to name an endpoint: the GraphQL operation name,
/// else `METHOD host/template`; collisions get `#2`, `#3`.
///
/// Shared text: every ingest hands the key back, so cloning it must not copy.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StableKey(pub(crate) Arc<str>);

impl Serialize for StableKey {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for StableKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(|s| Self(s.into()))
    }
}

impl StableKey {
    /// The key as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StableKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A value in this endpoint's path that was first seen in another
/// endpoint's body: the raw material of an OpenAPI `link`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ProvenanceLink {
    /// Segment position of the parameter in this endpoint's template.
    pub position: usize,
    /// The parameter's name in this endpoint's template (when the link was made).
    pub param: String,
    /// The endpoint whose body held the value.
    pub source: EndpointId,
    /// Which body of the source.
    pub side: BodySide,
    /// Where in that body, e.g. `$.orders[].id`.
    pub field_path: String,
}

const MAX_PATHS: usize = 32;
const MAX_LINKS: usize = 16;

/// Everything the store knows about one endpoint.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub(crate) id: EndpointId,
    pub(crate) key: StableKey,
    pub(crate) method: String,
    pub(crate) host: String,
    pub(crate) schemes: BTreeMap<String, u64>,
    pub(crate) template: PathTemplate,
    pub(crate) graphql: Option<GraphQlOperation>,
    /// Concrete paths seen (capped), with flow counts; the first is the representative.
    pub(crate) paths: PathCounts,
    pub(crate) representative: String,
    /// The templater's shape key of the current template (empty for GraphQL).
    pub(crate) shape: String,
    pub(crate) flows: u64,
    pub(crate) first_seen: Timestamp,
    pub(crate) last_seen: Timestamp,
    pub(crate) statuses: BTreeMap<u16, u64>,
    pub(crate) no_response: u64,
    pub(crate) query: ParamTable,
    pub(crate) headers: ParamTable,
    pub(crate) request_media: BTreeMap<String, u64>,
    pub(crate) response_media: BTreeMap<String, u64>,
    pub(crate) samples: Samples,
    pub(crate) links: Vec<ProvenanceLink>,
    pub(crate) merged_from: Vec<EndpointId>,
    /// Counts [`Endpoint::count`] calls: the stamp of each flow's parameters.
    pub(crate) param_stamp: u64,
}

impl Endpoint {
    /// The id, stable until the endpoint is merged away.
    pub fn id(&self) -> EndpointId {
        self.id
    }
    /// The agent-facing key (changes when the template widens; old keys still resolve).
    pub fn key(&self) -> &StableKey {
        &self.key
    }
    /// Uppercase HTTP method.
    pub fn method(&self) -> &str {
        &self.method
    }
    /// Lowercase host, with `:port` when not the scheme's default.
    pub fn host(&self) -> &str {
        &self.host
    }
    /// The most used scheme (`https` on ties).
    pub fn scheme(&self) -> &str {
        self.schemes
            .iter()
            .max_by_key(|(s, n)| (**n, s.as_str() == "https"))
            .map_or("https", |(s, _)| s.as_str())
    }
    /// Schemes seen with their flow counts.
    pub fn schemes(&self) -> &BTreeMap<String, u64> {
        &self.schemes
    }
    /// The path template, with parameter names and evidence.
    pub fn template(&self) -> &PathTemplate {
        &self.template
    }
    /// The GraphQL operation, when this endpoint is keyed by one.
    pub fn graphql(&self) -> Option<&GraphQlOperation> {
        self.graphql.as_ref()
    }
    /// Concrete paths seen (at most 32), with flow counts.
    pub fn concrete_paths(&self) -> &BTreeMap<String, u64> {
        self.paths.view()
    }
    /// Flows ingested into this endpoint (including merged ones).
    pub fn flow_count(&self) -> u64 {
        self.flows
    }
    /// Start time of the earliest flow.
    pub fn first_seen(&self) -> Timestamp {
        self.first_seen
    }
    /// Start time of the latest flow.
    pub fn last_seen(&self) -> Timestamp {
        self.last_seen
    }
    /// Response status codes with counts.
    pub fn statuses(&self) -> &BTreeMap<u16, u64> {
        &self.statuses
    }
    /// Flows that ended without a response (errors).
    pub fn no_response_count(&self) -> u64 {
        self.no_response
    }
    /// Status classes with counts (the last part of the signature).
    pub fn status_classes(&self) -> BTreeMap<StatusClass, u64> {
        let mut classes = BTreeMap::new();
        for (status, n) in &self.statuses {
            *classes.entry(StatusClass::of(Some(*status))).or_default() += n;
        }
        if self.no_response > 0 {
            classes.insert(StatusClass::NoResponse, self.no_response);
        }
        classes
    }
    /// Query parameters observed.
    pub fn query_params(&self) -> &ParamSet {
        self.query.view()
    }
    /// Request headers observed (names lowercased; pseudo-headers excluded).
    pub fn header_params(&self) -> &ParamSet {
        self.headers.view()
    }
    /// Request media types (`application/json`) with counts.
    pub fn request_media_types(&self) -> &BTreeMap<String, u64> {
        &self.request_media
    }
    /// Response media types with counts.
    pub fn response_media_types(&self) -> &BTreeMap<String, u64> {
        &self.response_media
    }
    /// Kept samples: first ones, structurally different ones, then the reservoir.
    pub fn samples(&self) -> impl Iterator<Item = &Sample> {
        self.samples.iter()
    }
    /// Values of this endpoint's path that came from other endpoints' bodies.
    pub fn links(&self) -> &[ProvenanceLink] {
        &self.links
    }
    /// Ids of endpoints merged into this one.
    pub fn merged_from(&self) -> &[EndpointId] {
        &self.merged_from
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "crate-internal constructor called from one place"
    )]
    pub(crate) fn new(
        id: EndpointId,
        key: StableKey,
        method: String,
        host: String,
        template: PathTemplate,
        graphql: Option<GraphQlOperation>,
        path: &str,
        at: Timestamp,
        seed: u64,
    ) -> Self {
        Self {
            id,
            key,
            method,
            host,
            schemes: BTreeMap::new(),
            template,
            graphql,
            paths: PathCounts::default(),
            representative: path.to_string(),
            shape: String::new(),
            flows: 0,
            first_seen: at,
            last_seen: at,
            statuses: BTreeMap::new(),
            no_response: 0,
            query: ParamTable::default(),
            headers: ParamTable::default(),
            request_media: BTreeMap::new(),
            response_media: BTreeMap::new(),
            samples: Samples::new(seed ^ u64::from(id.0).wrapping_mul(0x9E37_79B9_7F4A_7C15)),
            links: Vec::new(),
            merged_from: Vec::new(),
            param_stamp: 0,
        }
    }

    /// Counts one flow (everything except samples and links).
    pub(crate) fn count(
        &mut self,
        flow: &Flow,
        media: FlowMedia<'_>,
        scheme: &str,
        path: &str,
        query: Option<&str>,
        max_params: usize,
    ) {
        self.flows += 1;
        self.param_stamp += 1;
        self.first_seen = self.first_seen.min(flow.started);
        self.last_seen = self.last_seen.max(flow.started);
        bump(&mut self.schemes, scheme);
        self.paths.add(path, 1, MAX_PATHS);
        match &flow.response {
            Some(r) => {
                *self.statuses.entry(r.status).or_default() += 1;
                if let Some(m) = lowercase_media(media.response) {
                    bump(&mut self.response_media, &m);
                }
            }
            None => self.no_response += 1,
        }
        if let Some(m) =
            lowercase_media(media.request).filter(|_| !flow.request.body.bytes.is_empty())
        {
            bump(&mut self.request_media, &m);
        }
        if let Some(q) = query {
            self.query.observe(
                ar_flow::url::query_pairs(q),
                as_sent,
                max_params,
                self.param_stamp,
            );
        }
        let headers = flow
            .request
            .headers
            .iter()
            .filter(|h| !h.name.starts_with(':'));
        self.headers.observe(
            headers.map(|h| (h.name.as_str(), h.value.as_str())),
            lowercase,
            max_params,
            self.param_stamp,
        );
    }

    pub(crate) fn add_link(&mut self, link: ProvenanceLink) {
        if self.links.len() < MAX_LINKS
            && !self.links.iter().any(|l| {
                l.position == link.position
                    && l.source == link.source
                    && l.field_path == link.field_path
            })
        {
            self.links.push(link);
            self.links.sort();
        }
    }

    /// Absorbs `other` (which is being merged away).
    pub(crate) fn absorb(&mut self, other: Endpoint, limits: SampleLimits, max_params: usize) {
        self.flows += other.flows;
        self.first_seen = self.first_seen.min(other.first_seen);
        self.last_seen = self.last_seen.max(other.last_seen);
        add_counts(&mut self.schemes, &other.schemes);
        // In sorted order, so which paths a full endpoint drops does not depend on hashing.
        for (path, n) in other.paths.view() {
            self.paths.add(path, *n, MAX_PATHS);
        }
        for (s, n) in &other.statuses {
            *self.statuses.entry(*s).or_default() += n;
        }
        self.no_response += other.no_response;
        self.query.merge(&other.query, max_params);
        self.headers.merge(&other.headers, max_params);
        add_counts(&mut self.request_media, &other.request_media);
        add_counts(&mut self.response_media, &other.response_media);
        self.samples.merge(other.samples, limits);
        for link in other.links {
            self.add_link(link);
        }
        self.merged_from.push(other.id);
        self.merged_from.extend(other.merged_from);
        self.merged_from.sort();
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.key.0.len()
            + self.host.len()
            + self.representative.len()
            + self.paths.heap_bytes()
            + self.statuses.len() * 32
            + self.query.heap_bytes()
            + self.headers.heap_bytes()
            + self.samples.heap_bytes()
            + self
                .links
                .iter()
                .map(|l| l.param.len() + l.field_path.len() + 64)
                .sum::<usize>()
            + self
                .template
                .segments
                .iter()
                .map(|s| {
                    64 + match s {
                        crate::template::Segment::Literal(t) => t.len(),
                        crate::template::Segment::Param(p) => {
                            p.name.len()
                                + p.evidence
                                    .values
                                    .iter()
                                    .map(|v| v.len() + 24)
                                    .sum::<usize>()
                        }
                    }
                })
                .sum::<usize>()
    }
}

/// `s` lowercased, borrowing when it already is (HTTP/2 names always are).
/// The media types of a flow's bodies as sent (parameters dropped), found
/// once per flow: the body scan and the endpoint's counters both read them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FlowMedia<'f> {
    pub(crate) request: Option<&'f str>,
    pub(crate) response: Option<&'f str>,
}

impl<'f> FlowMedia<'f> {
    pub(crate) fn of(flow: &'f Flow) -> Self {
        Self {
            request: flow.request.body.media_type_as_sent(),
            response: flow
                .response
                .as_ref()
                .and_then(|r| r.body.media_type_as_sent()),
        }
    }
}

fn lowercase(s: &str) -> Cow<'_, str> {
    if ar_flow::url::has_ascii_uppercase(s.as_bytes()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// A media type as sent, lowercased, unless there is none.
fn lowercase_media(media: Option<&str>) -> Option<Cow<'_, str>> {
    media.filter(|m| !m.is_empty()).map(lowercase)
}

fn bump(map: &mut BTreeMap<String, u64>, key: &str) {
    if let Some(n) = map.get_mut(key) {
        *n += 1;
    } else if map.len() < 16 {
        map.insert(key.to_string(), 1);
    }
}

fn add_counts(into: &mut BTreeMap<String, u64>, from: &BTreeMap<String, u64>) {
    for (k, n) in from {
        *into.entry(k.clone()).or_default() += n;
    }
}
