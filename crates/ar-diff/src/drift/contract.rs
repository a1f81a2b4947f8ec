//! What an operation documents for a body and an answer, and where a flow's body or status
//! falls outside it: the media type (by essence, case and parameters aside, or a wildcard),
//! the status (its code, its `2XX` range, or `default`), then the JSON against the schema.

use serde_json::{Map, Value};

use super::Payload;
use super::body::{self, Side};
use super::finding::{FindingKind, Issue, Location};
use super::shape::Shapes;
use crate::document::{Document, Operation};

/// The issues of a request body: one the operation does not take, or its JSON.
pub(super) fn request_issues(
    shapes: &mut Shapes,
    document: &Document,
    operation: &Operation<'_>,
    body: Payload<'_>,
) -> Vec<Issue> {
    match operation.value().get("requestBody") {
        Some(declared) => {
            let declared = document.resolve(declared);
            content_issues(
                shapes,
                document,
                declared.get("content"),
                body,
                Side::Request,
            )
        }
        None => vec![undocumented_media(body, Location::RequestBody, None)],
    }
}

/// The issues of an answer: a status the operation does not document, or its body.
pub(super) fn response_issues(
    shapes: &mut Shapes,
    document: &Document,
    operation: &Operation<'_>,
    status: u16,
    body: Option<Payload<'_>>,
) -> Vec<Issue> {
    if status == 304 {
        return Vec::new();
    }
    let responses = operation
        .value()
        .get("responses")
        .and_then(Value::as_object);
    let Some(response) = responses.and_then(|r| response_for(r, status)) else {
        let documented: Vec<&str> = responses
            .into_iter()
            .flat_map(|r| r.keys())
            .filter(|k| !k.starts_with("x-"))
            .map(String::as_str)
            .collect();
        let documented = if documented.is_empty() {
            "none".to_owned()
        } else {
            documented.join(", ")
        };
        return vec![
            Issue::new(FindingKind::UndocumentedStatus, Location::Response, "")
                .expected(documented),
        ];
    };
    match body {
        Some(body) => {
            let response = document.resolve(response);
            content_issues(
                shapes,
                document,
                response.get("content"),
                body,
                Side::Response,
            )
        }
        None => Vec::new(),
    }
}

/// The response a status is answered by: its own code, its range (`2XX`), or `default`.
fn response_for(responses: &Map<String, Value>, status: u16) -> Option<&Value> {
    let code = status.to_string();
    let range = format!("{}XX", status / 100);
    responses
        .get(&code)
        .or_else(|| {
            responses
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(&range))
                .map(|(_, v)| v)
        })
        .or_else(|| {
            responses
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("default"))
                .map(|(_, v)| v)
        })
}

/// A body held against the content a request body or response documents.
fn content_issues(
    shapes: &mut Shapes,
    document: &Document,
    content: Option<&Value>,
    body: Payload<'_>,
    side: Side,
) -> Vec<Issue> {
    let location = match side {
        Side::Request => Location::RequestBody,
        Side::Response => Location::Response,
    };
    let Some(content) = content.and_then(Value::as_object).filter(|c| !c.is_empty()) else {
        return vec![undocumented_media(body, location, None)];
    };
    let media = match body.media_type {
        Some(media_type) => match media_for(content, media_type) {
            Some(media) => media,
            None => {
                let listed: Vec<&str> = content.keys().map(String::as_str).collect();
                return vec![undocumented_media(body, location, Some(listed.join(", ")))];
            }
        },
        // No media type on the wire: JSON is held against the JSON the spec documents.
        None => match content.iter().find(|(k, _)| is_json(essence(k))) {
            Some((_, media)) if body.json.is_some() => media,
            _ => return Vec::new(),
        },
    };
    let schema = document.resolve(media).get("schema");
    match (schema, body.json) {
        (Some(schema), Some(json)) => body::check(shapes, document.as_value(), schema, json, side),
        _ => Vec::new(),
    }
}

/// The documented media type a body's type falls under: the same essence (case and
/// parameters aside), else a wildcard (`application/*`, `*/*`).
fn media_for<'c>(content: &'c Map<String, Value>, media_type: &str) -> Option<&'c Value> {
    let sent = essence(media_type).to_ascii_lowercase();
    let main = sent.split('/').next().unwrap_or_default();
    let find = |matches: &dyn Fn(&str) -> bool| {
        content
            .iter()
            .find(|(k, _)| matches(&essence(k).to_ascii_lowercase()))
            .map(|(_, v)| v)
    };
    find(&|k| k == sent)
        .or_else(|| find(&|k| k.strip_suffix("/*") == Some(main)))
        .or_else(|| find(&|k| k == "*/*" || k == "*"))
}

fn undocumented_media(body: Payload<'_>, location: Location, listed: Option<String>) -> Issue {
    let media = body.media_type.map_or("no media type", essence);
    let mut issue = Issue::new(
        FindingKind::UndocumentedMediaType,
        location,
        media.to_ascii_lowercase(),
    );
    issue.expected = listed;
    issue
}

/// `application/json; charset=utf-8` → `application/json`.
fn essence(media_type: &str) -> &str {
    media_type.split(';').next().unwrap_or_default().trim()
}

fn is_json(essence: &str) -> bool {
    let essence = essence.to_ascii_lowercase();
    essence == "application/json" || essence.ends_with("+json") || essence == "*/*"
}
