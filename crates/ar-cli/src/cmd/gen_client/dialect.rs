//! What each generator can read of a valid spec, decided before it runs.
//!
//! ar's specs describe what the traffic showed; a generator supports fewer
//! media types than an API uses. Where a generator would drop an operation or
//! a response on its own (openapi-python-client prints a warning, progenitor
//! stops with an error or a panic), ar decides first: binary media types are
//! handed to openapi-python-client as `application/octet-stream` (its
//! documented `content_type_overrides`: the client sends and returns bytes,
//! with the API's own `Content-Type`), and what no setting makes readable is
//! left out of that client, named in a warning of ar's own. The spec beside
//! the client stays whole.

use std::collections::BTreeMap;

use openapiv3::{
    MediaType, OpenAPI, Operation, ReferenceOr, SchemaKind, StringFormat, Type,
    VariantOrUnknownOrEmpty,
};

use super::api::method_slots;
/// The spec a generator is given, and what ar changed for it.
#[derive(Debug, Clone)]
pub(crate) struct Adapted {
    /// The spec without what the generator cannot read.
    pub(crate) spec: OpenAPI,
    /// For openapi-python-client's `content_type_overrides`.
    pub(crate) overrides: BTreeMap<String, String>,
    /// What was left out, one sentence each.
    pub(crate) left_out: Vec<String>,
}

/// openapi-python-client 0.29: request bodies in JSON, forms, multipart or
/// octet-stream; responses in JSON, `text/*` or octet-stream.
pub(crate) fn for_python(spec: &OpenAPI) -> Adapted {
    let mut adapted = Adapted {
        spec: spec.clone(),
        overrides: BTreeMap::new(),
        left_out: Vec::new(),
    };
    let who = "openapi-python-client";
    for (path, method, operation) in operations_mut(&mut adapted.spec) {
        let name = format!("{} {path}", method.to_ascii_uppercase());
        if let Some(ReferenceOr::Item(body)) = operation.request_body.as_mut() {
            let mut dropped = Vec::new();
            body.content.retain(|kind, media| {
                let base = base_type(kind);
                if python_sends(&base) {
                    return true;
                }
                if is_binary(media) {
                    adapted
                        .overrides
                        .insert(kind.clone(), "application/octet-stream".into());
                    return true;
                }
                dropped.push(kind.clone());
                false
            });
            if body.content.is_empty() {
                adapted.left_out.push(format!(
                    "{who} cannot send a {} body: {name} is left out of the Python client",
                    dropped.join(" or ")
                ));
                operation.operation_id = None;
                continue;
            }
            if !dropped.is_empty() {
                adapted.left_out.push(format!(
                    "{who} cannot send a {} body: {name} sends only {} from Python",
                    dropped.join(" or "),
                    body.content
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(" or ")
                ));
            }
        }
        for (status, response) in operation.responses.responses.iter_mut() {
            let ReferenceOr::Item(response) = response else {
                continue;
            };
            if response.content.is_empty()
                || (response.content.keys()).any(|kind| python_reads(&base_type(kind)))
            {
                continue;
            }
            let binary: Vec<String> = (response.content.iter())
                .filter(|(_, media)| is_binary(media))
                .map(|(kind, _)| kind.clone())
                .collect();
            if let Some(kind) = binary.first() {
                adapted
                    .overrides
                    .insert(kind.clone(), "application/octet-stream".into());
                continue;
            }
            adapted.left_out.push(format!(
                "{who} cannot read {}: the {status} answer of {name} is untyped in the Python client",
                response.content.keys().cloned().collect::<Vec<_>>().join(" or ")
            ));
            response.content.clear();
        }
    }
    remove_unnamed(&mut adapted.spec);
    adapted
}

/// progenitor 0.15: one request media type of JSON, a form, octet-stream (a
/// binary schema) or `text/plain` (a plain string); it stops on anything else.
#[cfg(feature = "rust-client")]
pub(crate) fn for_progenitor(spec: &OpenAPI) -> Adapted {
    let mut adapted = Adapted {
        spec: spec.clone(),
        overrides: BTreeMap::new(),
        left_out: Vec::new(),
    };
    for (path, method, operation) in operations_mut(&mut adapted.spec) {
        let name = format!("{} {path}", method.to_ascii_uppercase());
        let Some(ReferenceOr::Item(body)) = operation.request_body.as_mut() else {
            continue;
        };
        // Several media types: keep the first one progenitor sends.
        let first = (body.content.iter())
            .find(|(kind, media)| progenitor_sends(kind, media))
            .map(|(kind, media)| (kind.clone(), media.clone()));
        match first {
            Some((kind, media)) => {
                if body.content.len() > 1 {
                    let others: Vec<String> = (body.content.keys())
                        .filter(|k| **k != kind)
                        .cloned()
                        .collect();
                    adapted.left_out.push(format!(
                        "progenitor takes one body media type: {name} sends {kind}, not {}, from Rust",
                        others.join(" or ")
                    ));
                }
                body.content.clear();
                body.content.insert(kind, media);
            }
            None => {
                adapted.left_out.push(format!(
                    "progenitor cannot send a {} body: {name} is left out of the Rust client",
                    body.content
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(" or ")
                ));
                operation.operation_id = None;
            }
        }
    }
    remove_unnamed(&mut adapted.spec);
    adapted
}

/// `application/json; charset=utf-8` → `application/json`.
fn base_type(kind: &str) -> String {
    kind.split(';')
        .next()
        .unwrap_or(kind)
        .trim()
        .to_ascii_lowercase()
}

fn is_json(base: &str) -> bool {
    base == "application/json" || base.ends_with("+json")
}

fn python_sends(base: &str) -> bool {
    is_json(base)
        || matches!(
            base,
            "application/x-www-form-urlencoded"
                | "multipart/form-data"
                | "application/octet-stream"
        )
}

fn python_reads(base: &str) -> bool {
    is_json(base) || base.starts_with("text/") || base == "application/octet-stream"
}

#[cfg(feature = "rust-client")]
fn progenitor_sends(kind: &str, media: &MediaType) -> bool {
    let base = base_type(kind);
    let plain_string = matches!(
        media.schema.as_ref(),
        Some(ReferenceOr::Item(schema)) if matches!(
            &schema.schema_kind,
            SchemaKind::Type(Type::String(s)) if matches!(s.format, VariantOrUnknownOrEmpty::Empty)
                && s.pattern.is_none() && s.enumeration.is_empty()
                && s.min_length.is_none() && s.max_length.is_none()
        ) && !schema.schema_data.nullable && schema.schema_data.default.is_none()
    );
    match base.as_str() {
        "application/json" | "application/x-www-form-urlencoded" => media.encoding.is_empty(),
        "application/octet-stream" => is_binary(media),
        "text/plain" | "text/x-markdown" => plain_string,
        _ => false,
    }
}

/// `type: string, format: binary`: raw bytes whatever the media type.
fn is_binary(media: &MediaType) -> bool {
    matches!(
        media.schema.as_ref(),
        Some(ReferenceOr::Item(schema)) if matches!(
            &schema.schema_kind,
            SchemaKind::Type(Type::String(s))
                if matches!(s.format, VariantOrUnknownOrEmpty::Item(StringFormat::Binary))
        )
    )
}

fn operations_mut(spec: &mut OpenAPI) -> Vec<(String, &'static str, &mut Operation)> {
    let mut out = Vec::new();
    for (path, item) in spec.paths.paths.iter_mut() {
        let ReferenceOr::Item(item) = item else {
            continue;
        };
        for (method, operation) in method_slots(item) {
            if let Some(operation) = operation.as_mut() {
                out.push((path.clone(), method, operation));
            }
        }
    }
    out
}

/// Drops the operations marked for leaving out (their id cleared), and paths
/// left empty.
fn remove_unnamed(spec: &mut OpenAPI) {
    spec.paths.paths.retain(|_, item| {
        let ReferenceOr::Item(item) = item else {
            return true;
        };
        for (_, operation) in method_slots(item) {
            if operation
                .as_ref()
                .is_some_and(|op| op.operation_id.is_none())
            {
                *operation = None;
            }
        }
        item.iter().next().is_some()
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = r"
openapi: 3.0.3
info: {title: t, version: '1'}
servers: [{url: 'https://vault.test'}]
paths:
  /notes:
    post:
      operationId: createNote
      requestBody: {content: {text/plain: {schema: {type: string}}}}
      responses: {'200': {description: OK, content: {text/plain: {schema: {type: string}}}}}
  /photos:
    post:
      operationId: createPhoto
      requestBody: {content: {multipart/form-data: {schema: {type: object}}}}
      responses: {'201': {description: Created}}
  /files/report.pdf:
    get:
      operationId: getReport
      responses: {'200': {description: OK, content: {application/pdf: {schema: {type: string, format: binary}}}}}
  /feed:
    get:
      operationId: getFeed
      responses: {'200': {description: OK, content: {application/xml: {schema: {type: string}}}}}
";

    fn spec() -> OpenAPI {
        serde_norway::from_str(SPEC).unwrap()
    }

    #[test]
    fn python_gets_bytes_for_binary_types_and_leaves_out_text_bodies() {
        let adapted = for_python(&spec());
        assert_eq!(
            adapted.overrides.get("application/pdf").map(String::as_str),
            Some("application/octet-stream")
        );
        assert!(!adapted.spec.paths.paths.contains_key("/notes"));
        assert!(adapted.spec.paths.paths.contains_key("/photos"));
        assert_eq!(
            adapted.left_out,
            [
                "openapi-python-client cannot send a text/plain body: POST /notes is left out of the Python client",
                "openapi-python-client cannot read application/xml: the 200 answer of GET /feed is untyped in the Python client",
            ]
        );
    }

    #[cfg(feature = "rust-client")]
    #[test]
    fn progenitor_keeps_text_bodies_and_leaves_out_multipart() {
        let adapted = for_progenitor(&spec());
        assert!(adapted.spec.paths.paths.contains_key("/notes"));
        assert!(!adapted.spec.paths.paths.contains_key("/photos"));
        assert_eq!(
            adapted.left_out,
            [
                "progenitor cannot send a multipart/form-data body: POST /photos is left out of the Rust client"
            ]
        );
    }
}
