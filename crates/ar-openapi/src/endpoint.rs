//! Everything the documenter learned about one endpoint from its flows.

use std::borrow::Cow;
use std::collections::BTreeMap;

use ar_schema::{SchemaBuilder, Tape};
use ar_store::store::Observation;
use ar_store::template::{PathTemplate, Segment};
use ar_store::{Body, Flow, Header, Headers};
use serde_json::Value;

use crate::body::{BodyKind, BodyStats};
use crate::fold;
use crate::header_roles::HeaderRoles;
use crate::params::{ParamSet, ParamStats};
use crate::redact::Redactor;
use crate::security::{HeaderCredential, SecurityKind, credentials_in};
use ar_flow::graphql::{Call, OperationKind};

/// At most this many GraphQL operations, media types and credential sets are
/// tracked per endpoint; memory stays bounded whatever the traffic.
const MAX_GRAPHQL_OPS: usize = 500;
const MAX_MEDIA_TYPES: usize = 8;
const MAX_SECURITY_SETS: usize = 8;
const MAX_STATUSES: usize = 40;
const MAX_ORIGINS: usize = 16;
/// The media type of a body that names none.
const OCTET_STREAM: &str = "application/octet-stream";

/// Responses with one status code.
#[derive(Debug, Clone, Default)]
pub(crate) struct ResponseDoc {
    pub(crate) count: u64,
    pub(crate) reason: String,
    pub(crate) content: BTreeMap<String, BodyStats>,
    /// Response headers worth documenting (see `is_boring_response_header`).
    pub(crate) headers: ParamSet,
}

/// One GraphQL operation seen on an endpoint.
#[derive(Debug, Clone)]
pub(crate) struct GraphqlOp {
    pub(crate) kind: OperationKind,
    pub(crate) count: u64,
    pub(crate) variables: SchemaBuilder,
    pub(crate) response: SchemaBuilder,
    /// The query document of the first call, with secrets redacted.
    pub(crate) query: Option<String>,
}

/// A complete example exchange, redacted, for the markdown.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Exchange {
    pub(crate) method: String,
    pub(crate) url: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) request_body: Option<String>,
    pub(crate) status: Option<u16>,
    pub(crate) response_type: Option<String>,
    pub(crate) response_body: Option<String>,
}

/// What the documenter knows about one endpoint.
#[derive(Debug, Clone, Default)]
pub(crate) struct EndpointDoc {
    pub(crate) flows: u64,
    /// Flows the store counted for this endpoint whose evidence is gone: it
    /// was rebuilt from the store's samples after a split. They count in the
    /// flows the spec reports, not in the statistics (which `flows` divides).
    pub(crate) unsampled: u64,
    pub(crate) origins: BTreeMap<String, u64>,
    pub(crate) path: BTreeMap<String, ParamStats>,
    pub(crate) query: ParamSet,
    pub(crate) headers: ParamSet,
    pub(crate) with_body: u64,
    pub(crate) request: BTreeMap<String, BodyStats>,
    pub(crate) responses: BTreeMap<u16, ResponseDoc>,
    pub(crate) security: BTreeMap<Vec<SecurityKind>, u64>,
    pub(crate) bearer_jwt: bool,
    pub(crate) graphql: BTreeMap<String, GraphqlOp>,
    pub(crate) example: Option<Exchange>,
    pub(crate) undecodable: u64,
}

impl EndpointDoc {
    /// Learns from one flow whose path matched `template`, with what the
    /// store tells of it (the GraphQL operations its request sends, its
    /// bodies as the store read them).
    pub(crate) fn observe(
        &mut self,
        flow: &Flow,
        template: &PathTemplate,
        store: Observation<'_>,
        redactor: &Redactor,
        roles: &mut HeaderRoles,
    ) {
        self.flows += 1;
        let request = &flow.request;
        let (origin, path, query) = ar_flow::url::split_url(&request.url);
        let origin = match origin.bytes().rposition(|b| b == b'@') {
            Some(at) => Cow::Owned(format!(
                "{}://{}",
                origin[..at].split("://").next().unwrap_or("https"),
                &origin[at + 1..]
            )),
            None => Cow::Borrowed(origin),
        };
        count_bounded(&mut self.origins, &*origin, MAX_ORIGINS);
        self.observe_path(template, path, redactor);
        let pairs = query.map(crate::form::parse_urlencoded).unwrap_or_default();
        self.query.observe(
            pairs
                .iter()
                .filter(|(n, v)| !ar_flow::segment::is_cache_buster(n, v))
                .map(|(n, v)| (n.as_str(), v.as_str())),
            true,
            |n, v| redactor.param_value(n, v).into_owned(),
        );
        let carriers = self.observe_request_headers(&request.headers, redactor, roles);
        let raw_query = ar_flow::url::query_of(&request.url);
        let credentials = credentials_in(carriers, raw_query);
        self.bearer_jwt |= credentials.iter().any(|c| c.jwt);
        let set: Vec<SecurityKind> = credentials.into_iter().map(|c| c.kind).collect();
        count_bounded(&mut self.security, &set, MAX_SECURITY_SETS);

        if !request.body.bytes.is_empty() {
            self.with_body += 1;
            let body = (&request.body, store.tapes.request);
            if !observe_body(&mut self.request, body, redactor) {
                self.undecodable += 1;
            }
        }
        if let Some(response) = &flow.response
            && (self.responses.len() < MAX_STATUSES
                || self.responses.contains_key(&response.status))
        {
            {
                let doc = self.responses.entry(response.status).or_default();
                doc.count += 1;
                if doc.reason.is_empty() {
                    doc.reason.clone_from(&response.reason);
                }
                doc.headers.observe(
                    (response.headers.iter())
                        .filter(|h| roles.of(&h.name, redactor).response_param)
                        .map(|h| (h.name.as_str(), h.value.as_str())),
                    false,
                    |n, v| redactor.header_value(n, v).into_owned(),
                );
                if !response.body.bytes.is_empty()
                    && !observe_body(
                        &mut doc.content,
                        (&response.body, store.tapes.response),
                        redactor,
                    )
                {
                    self.undecodable += 1;
                }
            }
        }
        self.observe_graphql(flow, store.graphql, store.tapes.response, redactor);
        self.observe_example(flow, redactor);
    }

    /// Records the request headers worth documenting and returns those that
    /// carry a credential: one look at each header's role serves both. Few
    /// headers carry one, so the list rarely allocates.
    fn observe_request_headers<'a>(
        &mut self,
        headers: &'a Headers,
        redactor: &Redactor,
        roles: &mut HeaderRoles,
    ) -> Vec<(&'a Header, HeaderCredential)> {
        let mut carriers = Vec::new();
        self.headers.observe(
            (headers.iter())
                .filter(|h| {
                    let role = roles.of(&h.name, redactor);
                    if role.credential != HeaderCredential::None {
                        carriers.push((*h, role.credential));
                    }
                    role.request_param
                })
                .map(|h| (h.name.as_str(), h.value.as_str())),
            false,
            |n, v| redactor.header_value(n, v).into_owned(),
        );
        carriers
    }

    /// Learns the values of the template's parameters from the concrete path.
    fn observe_path(&mut self, template: &PathTemplate, path: &str, redactor: &Redactor) {
        let segments = &template.segments;
        if template.params().next().is_none() {
            return; // no path parameter to learn about
        }
        let concrete: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        // A trailing rest parameter takes every remaining segment.
        let rest =
            matches!(segments.last(), Some(Segment::Param(p)) if p.rest && p.suffix.is_empty());
        let joined;
        let values: Vec<&str> = match rest {
            true if concrete.len() >= segments.len() => {
                let last = segments.len() - 1;
                joined = concrete[last..].join("/");
                concrete[..last]
                    .iter()
                    .copied()
                    .chain([joined.as_str()])
                    .collect()
            }
            _ if concrete.len() == segments.len() => concrete,
            _ => return,
        };
        for (segment, value) in segments.iter().zip(values) {
            let Segment::Param(param) = segment else {
                continue;
            };
            let value = value.strip_suffix(param.suffix.as_str()).unwrap_or(value);
            // A segment of several parameters gives each its part; one
            // without their separators teaches none of them.
            let Some(parts) = param.split_value(value) else {
                continue;
            };
            for (name, part) in param.names().zip(parts) {
                let decoded = ar_flow::url::percent_decode(part);
                let stats = self
                    .path
                    .entry(name.to_string())
                    .or_insert_with(|| ParamStats::new(name));
                stats.present += 1;
                stats.observe(&decoded, || {
                    redactor.param_value(name, &decoded).into_owned()
                });
            }
        }
    }

    /// Documents each GraphQL call the request sends, with its part of the
    /// answer. One call's answer is the whole body, inferred from its bytes
    /// (from the store's tape when it read the body); a batch's answer is an
    /// array, one item per call.
    fn observe_graphql(
        &mut self,
        flow: &Flow,
        calls: &[Call],
        tape: Option<&Tape>,
        redactor: &Redactor,
    ) {
        if calls.is_empty() {
            return;
        }
        let answer = flow.response.as_ref().filter(|r| {
            BodyKind::of(&fold::media_type(&r.body).unwrap_or_default()) == BodyKind::Json
                && !r.body.truncated
        });
        // One call: the whole body, inferred from its bytes (the tape when
        // the store read it).
        let whole = answer
            .filter(|_| calls.len() == 1)
            .map(|r| (tape, &r.body.bytes[..]));
        let response_json = answer
            .filter(|_| whole.is_none())
            .and_then(|r| crate::body::example_value(&r.body.bytes).ok());
        let responses: Vec<Option<&Value>> = match (&response_json, calls.len()) {
            (Some(Value::Array(items)), n) if n > 1 => (0..n).map(|i| items.get(i)).collect(),
            (value, n) => (0..n).map(|_| value.as_ref()).collect(),
        };
        for (call, response) in calls.iter().zip(responses) {
            let name = call.name.as_deref().unwrap_or("anonymous");
            if !self.graphql.contains_key(name) && self.graphql.len() >= MAX_GRAPHQL_OPS {
                continue;
            }
            let op = self
                .graphql
                .entry(name.to_owned())
                .or_insert_with(|| GraphqlOp {
                    kind: call.kind,
                    count: 0,
                    variables: SchemaBuilder::new(),
                    response: SchemaBuilder::new(),
                    query: None,
                });
            // A persisted call states no kind; the first call that sends
            // the document does.
            if op.kind == OperationKind::Unknown {
                op.kind = call.kind;
            }
            op.count += 1;
            if let Some(variables) = &call.variables {
                op.variables.add_value(variables);
            }
            match (whole, response) {
                (Some((Some(tape), body)), _) => op.response.add_tape(tape, body),
                // Not JSON after all: the answer says nothing of the operation.
                (Some((None, body)), _) => {
                    let _ = op.response.add_json_slice(body);
                }
                (None, Some(response)) => op.response.add_value(response),
                (None, None) => {}
            }
            if op.query.is_none() {
                op.query = call.query.as_deref().map(|q| redactor.text(q).into_owned());
            }
        }
    }

    fn observe_example(&mut self, flow: &Flow, redactor: &Redactor) {
        let success = flow.status().is_some_and(|s| (200..300).contains(&s));
        let replace = match &self.example {
            None => true,
            Some(current) => success && !current.status.is_some_and(|s| (200..300).contains(&s)),
        };
        if !replace {
            return;
        }
        let request = &flow.request;
        let headers = request
            .headers
            .iter()
            .filter(|h| !h.name.starts_with(':'))
            .filter(|h| {
                let lower = h.name.to_ascii_lowercase();
                !matches!(
                    lower.as_str(),
                    "user-agent"
                        | "connection"
                        | "content-length"
                        | "host"
                        | "accept-encoding"
                        | "accept-language"
                        | "referer"
                        | "origin"
                ) && !lower.starts_with("sec-")
            })
            .take(12)
            .map(|h| {
                (
                    h.name.clone(),
                    redactor.header_value(&h.name, &h.value).into_owned(),
                )
            })
            .collect();
        let response = flow.response.as_ref();
        self.example = Some(Exchange {
            method: request.method.clone(),
            url: redactor.url(&request.url),
            headers,
            request_body: example_text(&request.body, redactor),
            status: response.map(|r| r.status),
            response_type: response.and_then(|r| r.body.media_type()),
            response_body: response.and_then(|r| example_text(&r.body, redactor)),
        });
    }

    /// Adds another endpoint's evidence (when the store merges two endpoints).
    pub(crate) fn merge(&mut self, other: &EndpointDoc) {
        self.flows += other.flows;
        self.unsampled += other.unsampled;
        for (origin, count) in &other.origins {
            *self.origins.entry(origin.clone()).or_default() += count;
        }
        // Path parameters of the absorbed endpoint were literals or other names; the
        // survivor's next flows re-type its parameters, so only matching names merge.
        for (name, stats) in &other.path {
            if let Some(mine) = self.path.get_mut(name) {
                mine.merge(stats);
            }
        }
        self.query.merge(&other.query);
        self.headers.merge(&other.headers);
        self.with_body += other.with_body;
        for (media, stats) in &other.request {
            match self.request.get_mut(media) {
                Some(mine) => mine.merge(stats),
                None => {
                    self.request.insert(media.clone(), stats.clone());
                }
            }
        }
        for (status, response) in &other.responses {
            let mine = self.responses.entry(*status).or_default();
            mine.count += response.count;
            if mine.reason.is_empty() {
                mine.reason.clone_from(&response.reason);
            }
            mine.headers.merge(&response.headers);
            for (media, stats) in &response.content {
                match mine.content.get_mut(media) {
                    Some(existing) => existing.merge(stats),
                    None => {
                        mine.content.insert(media.clone(), stats.clone());
                    }
                }
            }
        }
        for (set, count) in &other.security {
            *self.security.entry(set.clone()).or_default() += count;
        }
        self.bearer_jwt |= other.bearer_jwt;
        for (name, op) in &other.graphql {
            match self.graphql.get_mut(name) {
                Some(mine) => {
                    if mine.kind == OperationKind::Unknown {
                        mine.kind = op.kind;
                    }
                    if mine.query.is_none() {
                        mine.query.clone_from(&op.query);
                    }
                    mine.count += op.count;
                    mine.variables.add_schema(op.variables.schema());
                    mine.response.add_schema(op.response.schema());
                }
                None => {
                    self.graphql.insert(name.clone(), op.clone());
                }
            }
        }
        if self.example.is_none() {
            self.example.clone_from(&other.example);
        }
        self.undecodable += other.undecodable;
    }
}

/// Counts one more `key`, unless `map` already holds `limit` other keys.
/// Looks the key up before copying it: most flows repeat a key already there.
fn count_bounded<K, Q>(map: &mut BTreeMap<K, u64>, key: &Q, limit: usize)
where
    K: std::borrow::Borrow<Q> + Ord,
    Q: ToOwned<Owned = K> + Ord + ?Sized,
{
    if let Some(count) = map.get_mut(key) {
        *count += 1;
    } else if map.len() < limit {
        map.insert(key.to_owned(), 1);
    }
}

/// Adds `body` (with its tape, when the store read it) to the evidence for
/// its media type, unless `map` already tracks `MAX_MEDIA_TYPES` others.
/// Returns `false` when the body could not be decoded as its media type claims.
fn observe_body(
    map: &mut BTreeMap<String, BodyStats>,
    (body, tape): (&Body, Option<&Tape>),
    redactor: &Redactor,
) -> bool {
    let media = fold::media_type(body).unwrap_or(Cow::Borrowed(OCTET_STREAM));
    if let Some(stats) = map.get_mut(&*media) {
        return stats.observe(body, tape, redactor);
    }
    if map.len() >= MAX_MEDIA_TYPES {
        return true;
    }
    let mut stats = BodyStats::new(BodyKind::of(&media));
    let decoded = stats.observe(body, tape, redactor);
    map.insert(media.into_owned(), stats);
    decoded
}

/// A body as example text: pretty JSON, form text or plain text, redacted and clipped.
fn example_text(body: &Body, redactor: &Redactor) -> Option<String> {
    if body.bytes.is_empty() {
        return None;
    }
    let media = fold::media_type(body).unwrap_or_default();
    let text = match BodyKind::of(&media) {
        BodyKind::Json => match crate::body::example_value(&body.bytes) {
            Ok(mut value) => {
                redactor.json(&mut value);
                serde_json::to_string_pretty(&crate::body::prune(value, 0)).ok()?
            }
            Err(why) => return Some(why.placeholder(body.bytes.len())),
        },
        BodyKind::Form => redactor.query_string(&String::from_utf8_lossy(&body.bytes)),
        BodyKind::Text => redactor
            .text(&String::from_utf8_lossy(&body.bytes))
            .into_owned(),
        BodyKind::Multipart => {
            let parts = crate::form::parse_multipart(
                body.content_type.as_deref().unwrap_or(""),
                &body.bytes,
            );
            parts
                .iter()
                .map(|p| match &p.filename {
                    Some(file) => format!("{}: <file {}>", p.name, redactor.text(file)),
                    None => format!(
                        "{}: {}",
                        p.name,
                        redactor.param_value(&p.name, p.text.as_deref().unwrap_or("<binary>"))
                    ),
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
        BodyKind::Binary => format!(
            "<{} bytes of {}>",
            body.size.max(body.bytes.len() as u64),
            if media.is_empty() {
                "binary data"
            } else {
                &media
            }
        ),
    };
    const MAX: usize = 1500;
    if text.chars().count() > MAX {
        let mut clipped: String = text.chars().take(MAX).collect();
        clipped.push_str("\n…");
        Some(clipped)
    } else {
        Some(text)
    }
}
