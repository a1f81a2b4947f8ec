//! What changed between two OpenAPI documents, and whether it breaks a client; where traffic
//! departs from a published one. Pure: no I/O.
//!
//! Give [`diff`] two [`Document`]s (OpenAPI 3.0 or 3.1, written by any tool; the caller parses
//! the YAML or JSON into a `serde_json::Value`) and get a [`Report`]: per operation, the
//! operations added and removed, deprecations, security requirements, parameters, request
//! bodies, responses, media types, and the properties of every schema, walked recursively
//! (objects, array items, map values, `allOf` merged, `oneOf`/`anyOf` branch by branch). Each
//! [`Change`] is classified breaking or not for a client of the old document by a [`Rule`]
//! whose id is oasdiff's where oasdiff has one (`api-removed-without-deprecation`,
//! `new-required-request-parameter`, `response-property-became-nullable`, ...). Requests
//! break by narrowing and responses by widening: [`Rule`] lists every verdict and why.
//!
//! Operations are matched across the documents by method and path, whatever the parameters
//! are called and wherever the server URL ends and the path begins. The same matching maps
//! concrete requests onto a document: [`OperationMatcher`] finds that `GET /api/users/42`
//! calls `GET /api/users/{id}`.
//!
//! The report renders as text for a terminal, markdown for a pull request, or JSON with
//! stable keys ([`Format`]); [`Report::has_breaking`] is the exit status of a CI gate. The
//! output is deterministic: the same documents give the same bytes.
//!
//! ```
//! use ar_diff::{Document, Format, Method, OperationMatcher};
//! use serde_json::json;
//!
//! let old = Document::from_value(json!({
//!     "openapi": "3.0.3",
//!     "servers": [{"url": "https://api.example.com/v1"}],
//!     "paths": {"/users/{id}": {"get": {
//!         "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
//!         "responses": {"200": {"content": {"application/json": {"schema": {
//!             "type": "object", "required": ["id"],
//!             "properties": {"id": {"type": "integer"}, "email": {"type": "string"}}
//!         }}}}}
//!     }}}
//! }))?;
//! let new = Document::from_value(json!({
//!     "openapi": "3.1.0",
//!     "servers": [{"url": "https://api.example.com"}],
//!     "paths": {"/v1/users/{userId}": {"get": {
//!         "parameters": [{"name": "userId", "in": "path", "required": true, "schema": {"type": "integer"}}],
//!         "responses": {"200": {"content": {"application/json": {"schema": {
//!             "type": "object", "required": ["id"],
//!             "properties": {"id": {"type": "integer"}, "email": {"type": ["string", "null"]}}
//!         }}}}}
//!     }}}
//! }))?;
//!
//! let report = ar_diff::diff(&old, &new);
//! assert!(report.has_breaking());
//! let change = &report.operations()[0].changes[0];
//! assert_eq!(change.rule.id(), "response-property-became-nullable");
//! assert_eq!(
//!     report.render(Format::Text),
//!     "1 breaking change, 0 other changes; operations: 1 changed\n\
//!      \n\
//!      GET /v1/users/{userId} (was /v1/users/{id})\n  \
//!      breaking  response 200 property `email` (application/json) became nullable  \
//!      [response-property-became-nullable]\n"
//! );
//!
//! let matcher = OperationMatcher::new(&new);
//! let called = matcher.find(Method::Get, "/v1/users/42").expect("documented");
//! assert_eq!(called.path, "/v1/users/{userId}");
//! assert_eq!(called.params, [("userId", "42".to_owned())]);
//! # Ok::<(), ar_diff::DocumentError>(())
//! ```
//!
//! **Traffic against a spec.** A [`Drift`] holds flows, one [`Exchange`] at a time, against a
//! published [`Baseline`]: shadow endpoints (called, not documented), zombie endpoints
//! (called, deprecated), undocumented parameters and fields, and answers that break the
//! documented status, media type or schema, each [`Finding`] with the flows that show it.
//!
//! ```
//! use ar_diff::{Baseline, Document, Drift, Exchange, Payload};
//! use serde_json::json;
//!
//! let spec = Document::from_value(json!({
//!     "openapi": "3.0.3",
//!     "paths": {"/users/{id}": {"get": {"responses": {"200": {"content": {"application/json": {
//!         "schema": {"type": "object", "properties": {"id": {"type": "integer"}}}}}}}}}}
//! }))?;
//! let mut drift = Drift::new(Baseline::new(spec, "users.yaml"));
//! let body = json!({"id": "42", "email": "a@example.com"}).to_string();
//! drift.observe(
//!     &Exchange::new(1, "GET", "https://api.example.com/users/42")
//!         .response(200, Some(Payload::new(Some("application/json"), Some(body.as_bytes())))),
//! );
//! drift.observe(&Exchange::new(2, "DELETE", "https://api.example.com/users/42"));
//! let report = drift.report();
//! assert_eq!(report.headline(), "1 shadow endpoint, 0 zombie endpoints, 1 violation, 1 undocumented");
//! let messages: Vec<&str> = report.findings().iter().map(|f| f.message.as_str()).collect();
//! assert_eq!(messages, [
//!     "called, but the spec documents this path for GET only",
//!     "response 200 field `$.id` is string; documented integer",
//!     "response 200 field `$.email` not documented",
//! ]);
//! assert!(report.to_markdown().starts_with("# Drift from the published spec"));
//! # Ok::<(), ar_diff::DocumentError>(())
//! ```
//!
//! **Limits.** References are followed [`MAX_REF_HOPS`] in a row; schemas are compared
//! [`MAX_DEPTH`] levels deep; one schema comparison lists [`MAX_SCHEMA_CHANGES`] changes and
//! counts the rest. Comparisons of shared components are remembered, so a component used by
//! thousands of operations is walked once.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod change;
mod classify;
mod diff;
mod document;
mod drift;
mod facts;
mod matcher;
mod message;
mod method;
mod names;
mod operation;
mod operation_diff;
mod refs;
mod render;
mod report;
mod rule;
mod schema_diff;
mod schema_view;
mod security;
mod servers;
mod template;
mod types;
mod variants;

pub use change::{Change, ChangeKind, Element, ParameterLocation};
pub use diff::diff;
pub use document::{Document, DocumentError, Operation};
pub use drift::{
    Baseline, Category, Drift, DriftReport, DriftSummary, Exchange, Finding, FindingKind,
    HeaderNames, Location, MAX_FINDINGS, MAX_FLOW_IDS, Payload,
};
pub use facts::MAX_SCHEMA_CHANGES;
pub use matcher::{Lookup, OperationMatcher, RouteMatch};
pub use method::Method;
pub use refs::MAX_REF_HOPS;
pub use render::Format;
pub use report::{OperationDiff, OperationStatus, Report, Summary};
pub use rule::Rule;
pub use schema_diff::MAX_DEPTH;
pub use schema_view::Combinator;
pub use types::TypeRelation;
