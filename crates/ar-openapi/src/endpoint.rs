//! Everything the documenter learned about one endpoint from its flows.

use std::collections::BTreeMap;

use ar_schema::SchemaBuilder;
use ar_store::{Flow, Headers};
use serde_json::Value;

use crate::body::{BodyKind, BodyStats};
use crate::graphql::{self, GraphqlKind};
use crate::naming::{Segment, segments};
use crate::params::{ParamSet, ParamStats, is_boring_header, is_boring_response_header};
use crate::redact::Redactor;
use crate::security::{SecurityKind, detect_credentials};

/// At most this many GraphQL operations, media types and credential sets are
/// tracked per endpoint; memory stays bounded whatever the traffic.
const MAX_GRAPHQL_OPS: usize = 500;
const MAX_MEDIA_TYPES: usize = 8;
const MAX_SECURITY_SETS: usize = 8;
const MAX_STATUSES: usize = 40;

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
    pub(crate) kind: GraphqlKind,
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
    /// Learns from one flow whose path matched `template`.
    pub(crate) fn observe(&mut self, flow: &Flow, template: &str, redactor: &Redactor) {
        self.flows += 1;
        let request = &flow.request;
        let (origin, path, query) = split_url(&request.url);
        let origin = origin
            .rsplit_once('@')
            .map_or(origin.to_string(), |(scheme_user, host)| {
                format!(
                    "{}://{host}",
                    scheme_user.split("://").next().unwrap_or("https")
                )
            });
        let origin = origin.as_str();
        if self.origins.len() < 16 || self.origins.contains_key(origin) {
            *self.origins.entry(origin.to_string()).or_default() += 1;
        }
        self.observe_path(template, path, redactor);
        if let Some(query) = query {
            let pairs = crate::form::parse_urlencoded(query);
            self.query.observe(
                pairs.iter().map(|(n, v)| {
                    (
                        n.as_str(),
                        v.as_str(),
                        redactor.param_value(n, v).into_owned(),
                    )
                }),
                true,
            );
        } else {
            self.query.observe(std::iter::empty(), true);
        }
        self.headers.observe(
            documented_headers(&request.headers, is_boring_header, redactor),
            false,
        );
        let credentials = detect_credentials(request, redactor);
        self.bearer_jwt |= credentials.iter().any(|c| c.jwt);
        let set: Vec<SecurityKind> = credentials.into_iter().map(|c| c.kind).collect();
        if self.security.len() < MAX_SECURITY_SETS || self.security.contains_key(&set) {
            *self.security.entry(set).or_default() += 1;
        }

        let calls = graphql::calls(request);
        if !request.body.bytes.is_empty() {
            self.with_body += 1;
            let media = request
                .body
                .media_type()
                .unwrap_or_else(|| "application/octet-stream".into());
            if let Some(stats) = bounded_entry(&mut self.request, &media)
                && !stats.observe(&request.body, redactor)
            {
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
                    documented_headers(&response.headers, is_boring_response_header, redactor),
                    false,
                );
                if !response.body.bytes.is_empty() {
                    let media = response
                        .body
                        .media_type()
                        .unwrap_or_else(|| "application/octet-stream".into());
                    if let Some(stats) = bounded_entry(&mut doc.content, &media)
                        && !stats.observe(&response.body, redactor)
                    {
                        self.undecodable += 1;
                    }
                }
            }
        }
        self.observe_graphql(flow, &calls, redactor);
        self.observe_example(flow, redactor);
    }

    fn observe_path(&mut self, template: &str, path: &str, redactor: &Redactor) {
        let concrete: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let template_segments = segments(template);
        if concrete.len() != template_segments.len() {
            return;
        }
        for (segment, value) in template_segments.iter().zip(concrete) {
            if let Segment::Param(name) = segment {
                let decoded = crate::form::percent_decode(value);
                let shown = redactor.param_value(name, &decoded).into_owned();
                let stats = self
                    .path
                    .entry((*name).to_string())
                    .or_insert_with(|| ParamStats::new(name));
                stats.present += 1;
                stats.observe(&decoded, &shown);
            }
        }
    }

    fn observe_graphql(
        &mut self,
        flow: &Flow,
        calls: &[graphql::GraphqlCall],
        redactor: &Redactor,
    ) {
        if calls.is_empty() {
            return;
        }
        let response_json = flow
            .response
            .as_ref()
            .filter(|r| {
                BodyKind::of(&r.body.media_type().unwrap_or_default()) == BodyKind::Json
                    && !r.body.truncated
            })
            .and_then(|r| serde_json::from_slice::<Value>(&r.body.bytes).ok());
        let responses: Vec<Option<&Value>> = match (&response_json, calls.len()) {
            (Some(Value::Array(items)), n) if n > 1 => (0..n).map(|i| items.get(i)).collect(),
            (value, n) => (0..n).map(|_| value.as_ref()).collect(),
        };
        for (call, response) in calls.iter().zip(responses) {
            if !self.graphql.contains_key(&call.name) && self.graphql.len() >= MAX_GRAPHQL_OPS {
                continue;
            }
            let op = self
                .graphql
                .entry(call.name.clone())
                .or_insert_with(|| GraphqlOp {
                    kind: call.kind,
                    count: 0,
                    variables: SchemaBuilder::new(),
                    response: SchemaBuilder::new(),
                    query: None,
                });
            op.count += 1;
            if let Some(variables) = &call.variables {
                op.variables.add_value(variables);
            }
            if let Some(response) = response {
                op.response.add_value(response);
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

/// `(name, value, redacted value)` of the headers worth documenting: not
/// `boring`, not credentials (those become security schemes or stay out).
fn documented_headers<'a>(
    headers: &'a Headers,
    boring: fn(&str) -> bool,
    redactor: &'a Redactor,
) -> impl Iterator<Item = (&'a str, &'a str, String)> + 'a {
    headers
        .iter()
        .filter(move |h| {
            let lower = h.name.to_ascii_lowercase();
            !boring(&lower) && !redactor.is_secret_header(&lower)
        })
        .map(|h| {
            (
                h.name.as_str(),
                h.value.as_str(),
                redactor.header_value(&h.name, &h.value).into_owned(),
            )
        })
}

fn bounded_entry<'a>(
    map: &'a mut BTreeMap<String, BodyStats>,
    media: &str,
) -> Option<&'a mut BodyStats> {
    if !map.contains_key(media) && map.len() >= MAX_MEDIA_TYPES {
        return None;
    }
    Some(
        map.entry(media.to_string())
            .or_insert_with(|| BodyStats::new(BodyKind::of(media))),
    )
}

/// A body as example text: pretty JSON, form text or plain text, redacted and clipped.
fn example_text(body: &ar_store::Body, redactor: &Redactor) -> Option<String> {
    if body.bytes.is_empty() {
        return None;
    }
    let media = body.media_type().unwrap_or_default();
    let text = match BodyKind::of(&media) {
        BodyKind::Json => match serde_json::from_slice::<Value>(&body.bytes) {
            Ok(mut value) => {
                redactor.json(&mut value);
                serde_json::to_string_pretty(&crate::body::prune(value, 0)).ok()?
            }
            Err(_) => return Some(format!("<{} bytes of invalid JSON>", body.bytes.len())),
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

/// Splits an absolute URL into origin (`https://host:port`), path and query.
pub(crate) fn split_url(url: &str) -> (&str, &str, Option<&str>) {
    let url = url.split('#').next().unwrap_or("");
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let path_start = url[after_scheme..]
        .find(['/', '?'])
        .map_or(url.len(), |i| after_scheme + i);
    let origin = &url[..path_start];
    let rest = &url[path_start..];
    match rest.split_once('?') {
        Some((path, query)) => (origin, path, Some(query)),
        None => (origin, rest, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_origin_path_and_query() {
        assert_eq!(
            split_url("https://a.test:8443/x/y?q=1#f"),
            ("https://a.test:8443", "/x/y", Some("q=1"))
        );
        assert_eq!(split_url("http://a.test"), ("http://a.test", "", None));
        assert_eq!(
            split_url("http://a.test?x"),
            ("http://a.test", "", Some("x"))
        );
    }
}
