//! What an operation documents for a body and an answer, and where a flow's body or status
//! falls outside it: the media type (by essence, case and parameters aside, or a wildcard),
//! the status (its code, its `2XX` range, or `default`), then the JSON against the schema.

use std::collections::HashMap;

use ar_schema::Tape;
use serde_json::{Map, Value};

use super::Payload;
use super::body::{Scratch, Side};
use super::checked::CheckedBodies;
use super::finding::{FindingKind, Issue, Location};
use super::shape::{ShapeId, Shapes};
use super::tape;
use crate::document::{Document, Operation};

/// Media types, as sent, one operation's terms are kept for on one side and status; a client
/// that sends more (each with other parameters, say) has the rest worked out each time.
const MAX_MEDIA_TYPES: usize = 16;

/// What operations document, worked out once for each operation, status and media type a
/// drift meets, and kept: reading the status, the media type and the schema out of the
/// document cost as much for every flow as the body walk itself.
///
/// Operations are known by the address of their object in the document, which the drift's
/// [`super::Baseline`] shares and never changes (as [`Shapes`] knows schemas), and are only
/// looked up in the document when something about them is not worked out yet.
#[derive(Clone, Debug, Default)]
pub(super) struct Contracts {
    pub(super) shapes: Shapes,
    terms: HashMap<TermsKey, Vec<(Option<String>, Terms)>, foldhash::fast::RandomState>,
    checked: CheckedBodies,
    /// A text handed over without its tape is read onto this one, kept between bodies.
    tape: Tape,
    /// What each walk writes as it goes, kept between bodies.
    scratch: Scratch,
}

/// An operation (its address), the status answered (`None`: the request), and whether the
/// body parsed as JSON; the media types sent are told apart beside it.
type TermsKey = (usize, Option<u16>, bool);

/// What a body is held to once its operation, status and media type are known: the issues
/// those alone raise, and the schema its JSON is then walked along.
#[derive(Clone, Debug, Default)]
struct Terms {
    issues: Vec<Issue>,
    schema: Option<ShapeId>,
}

/// An operation as the contracts know it: the address of its object, and how to find it in
/// the document (which never fails for an address that it gave).
pub(super) struct OperationAt<'f, 'd> {
    pub(super) key: usize,
    pub(super) find: &'f dyn Fn() -> Option<Operation<'d>>,
}

impl Contracts {
    /// The issues of a request body (`status` `None`), or of an answer and its body.
    pub(super) fn issues(
        &mut self,
        document: &Document,
        operation: &OperationAt<'_, '_>,
        status: Option<u16>,
        body: Option<Payload<'_>>,
    ) -> Vec<Issue> {
        let side = if status.is_some() {
            Side::Response
        } else {
            Side::Request
        };
        let text = body.and_then(|b| b.json);
        let terms = self.terms(document, operation, status, body, text.is_some());
        let Some(text) = text else {
            return terms.issues;
        };
        let (shapes, schema, own) = (&self.shapes, terms.schema, &mut self.tape);
        let scratch = &mut self.scratch;
        let found = match body.and_then(|b| b.tape) {
            Some(read) => tape::check(shapes, schema, read, text, side, scratch),
            None => self.checked.get_or_check(schema, side, text, || {
                // A failed read leaves the tape empty: the text is no JSON.
                let _ = own.read(text);
                let found = tape::check(shapes, schema, own, text, side, scratch);
                own.shrink();
                found
            }),
        };
        match found {
            Some(found) => {
                let mut issues = terms.issues;
                issues.extend(found);
                issues
            }
            // Not JSON after all: held as a body that is not.
            None => self.terms(document, operation, status, body, false).issues,
        }
    }

    /// What a body (JSON or not) is held to, worked out the first time.
    fn terms(
        &mut self,
        document: &Document,
        operation: &OperationAt<'_, '_>,
        status: Option<u16>,
        body: Option<Payload<'_>>,
        json: bool,
    ) -> Terms {
        let media_type = body.and_then(|b| b.media_type);
        let key = (operation.key, status, json);
        let known = self.terms.get(&key).and_then(|kept| {
            kept.iter()
                .find(|(sent, _)| sent.as_deref() == media_type)
                .map(|(_, terms)| terms)
        });
        if let Some(terms) = known {
            // Most terms raise no issue: an empty list is made, not cloned (a call).
            let issues = if terms.issues.is_empty() {
                Vec::new()
            } else {
                terms.issues.clone()
            };
            return Terms {
                issues,
                schema: terms.schema,
            };
        }
        // The document gave the address, and it does not change: the operation is there.
        let terms = match (operation.find)() {
            Some(operation) => self.terms_of(document, &operation, status, body, json),
            None => Terms::default(),
        };
        let kept = self.terms.entry(key).or_default();
        if kept.len() < MAX_MEDIA_TYPES {
            kept.push((media_type.map(str::to_owned), terms.clone()));
        }
        terms
    }

    fn terms_of(
        &mut self,
        document: &Document,
        operation: &Operation<'_>,
        status: Option<u16>,
        body: Option<Payload<'_>>,
        json: bool,
    ) -> Terms {
        match (status, body) {
            (None, Some(body)) => self.request_terms(document, operation, body, json),
            (Some(status), body) => self.response_terms(document, operation, status, body, json),
            (None, None) => Terms::default(),
        }
    }

    /// A request body the operation does not take, or what it is held to.
    fn request_terms(
        &mut self,
        document: &Document,
        operation: &Operation<'_>,
        body: Payload<'_>,
        json: bool,
    ) -> Terms {
        match operation.value().get("requestBody") {
            Some(declared) => {
                let declared = document.resolve(declared);
                self.content_terms(
                    document,
                    declared.get("content"),
                    body,
                    json,
                    Location::RequestBody,
                )
            }
            None => Terms::issue(undocumented_media(body, Location::RequestBody, None)),
        }
    }

    /// A status the operation does not document, or what its body is held to.
    fn response_terms(
        &mut self,
        document: &Document,
        operation: &Operation<'_>,
        status: u16,
        body: Option<Payload<'_>>,
        json: bool,
    ) -> Terms {
        if status == 304 {
            return Terms::default();
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
            return Terms::issue(
                Issue::new(FindingKind::UndocumentedStatus, Location::Response, "")
                    .expected(documented),
            );
        };
        match body {
            Some(body) => {
                let response = document.resolve(response);
                let content = response.get("content");
                self.content_terms(document, content, body, json, Location::Response)
            }
            None => Terms::default(),
        }
    }

    /// A body held against the content a request body or response documents: its media
    /// type, then the schema its JSON is walked along.
    fn content_terms(
        &mut self,
        document: &Document,
        content: Option<&Value>,
        body: Payload<'_>,
        json: bool,
        location: Location,
    ) -> Terms {
        let Some(content) = content.and_then(Value::as_object).filter(|c| !c.is_empty()) else {
            return Terms::issue(undocumented_media(body, location, None));
        };
        let media = match body.media_type {
            Some(media_type) => match media_for(content, media_type) {
                Some(media) => media,
                None => {
                    let listed: Vec<&str> = content.keys().map(String::as_str).collect();
                    return Terms::issue(undocumented_media(
                        body,
                        location,
                        Some(listed.join(", ")),
                    ));
                }
            },
            // No media type on the wire: JSON is held against the JSON the spec documents.
            None => match content.iter().find(|(k, _)| is_json(essence(k))) {
                Some((_, media)) if json => media,
                _ => return Terms::default(),
            },
        };
        let schema = document.resolve(media).get("schema");
        Terms {
            issues: Vec::new(),
            schema: schema
                .filter(|_| json)
                .map(|schema| self.shapes.compile(document.as_value(), schema)),
        }
    }
}

impl Terms {
    fn issue(issue: Issue) -> Terms {
        Terms {
            issues: vec![issue],
            schema: None,
        }
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
