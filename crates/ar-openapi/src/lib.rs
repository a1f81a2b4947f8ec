//! OpenAPI 3.0 documents and markdown guides from captured HTTP traffic. Pure: no I/O.
//!
//! A [`Documenter`] is the evidence an `ar_store` endpoint store keeps per
//! endpoint: the store shows it each in-scope flow under the endpoint the
//! flow landed in, and carries it through merges and splits. Per endpoint it
//! holds schema builders for request and response bodies, parameter
//! statistics (query, request headers, and per status the response headers
//! that describe the API, such as `Location`, `Link` or rate limits),
//! detected credentials, GraphQL operations and one redacted example.
//! [`document`] reads it, with the endpoints' identities from the store, into
//! an `openapiv3::OpenAPI` plus `API.md`; the same input always gives
//! byte-identical output.
//!
//! Secrets never reach the output: the [`Redactor`] removes credentials from
//! headers, URLs, query strings, JSON and text, and is usable on its own.
//!
//! ```
//! use ar_openapi::{document, Documenter, Enrichment, Options, Redactor};
//! use ar_store::scope::{Scope, ScopeConfig};
//! use ar_store::store::{EndpointStore, StoreConfig};
//! use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
//!
//! let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
//! let mut store = EndpointStore::new(scope, StoreConfig::default())
//!     .with_evidence(Documenter::new(Redactor::new()));
//! for (id, user) in [(1, "42"), (2, "43")] {
//!     let request = Request::new("GET", format!("https://api.shop.test/users/{user}"), HttpVersion::Http11);
//!     let mut response = Response::new(200, HttpVersion::Http11);
//!     let body = format!(r#"{{"id":{user},"email":"u{user}@shop.test"}}"#);
//!     response.body = Body::from_decoded(Some("application/json".into()), body.into_bytes());
//!     store.ingest(&Flow::new(FlowId(id), Timestamp::from_unix_micros(0), Client::Human, request).with_response(response));
//! }
//! let docs = document(&store, &Enrichment::new(), &Options::default()).unwrap();
//! let yaml = docs.yaml().unwrap();
//! assert!(yaml.contains("url: https://api.shop.test"));
//! assert!(yaml.contains("/users/{userId}:"));
//! assert!(yaml.contains("format: email"));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod api_wide;
mod assemble;
mod body;
mod components;
mod documenter;
mod echo;
mod endpoint;
mod error;
mod fold;
mod form;
mod header_roles;
mod identity;
mod markdown;
mod model;
mod naming;
mod options;
mod params;
mod redact;
mod security;
mod spec;
mod yaml;

pub use assemble::{Documentation, assemble, document, to_json, to_yaml};
pub use documenter::{Documenter, Ledger, SkipReason};
pub use error::Error;
pub use options::{Annotation, Enrichment, Options};
pub use redact::{REDACTED, Redactor};
pub use security::{Credential, KeyLocation, SecurityKind, detect_credentials};
