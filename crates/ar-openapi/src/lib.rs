//! OpenAPI 3.0 documents and markdown guides from captured HTTP traffic. Pure: no I/O.
//!
//! A [`Documenter`] observes each in-scope flow together with the endpoint
//! the store placed it in ([`EndpointInfo`]) and keeps, per endpoint, schema
//! builders for request and response bodies, parameter statistics (query,
//! request headers, and per status the response headers that describe the
//! API, such as `Location`, `Link` or rate limits), detected credentials,
//! GraphQL operations and one redacted example. [`document`]
//! turns that into an `openapiv3::OpenAPI` plus `API.md`; the same input
//! always gives byte-identical output.
//!
//! Secrets never reach the output: the [`Redactor`] removes credentials from
//! headers, URLs, query strings, JSON and text, and is usable on its own.
//!
//! ```
//! use ar_openapi::{document, Documenter, EndpointInfo, Enrichment, Options, Redactor};
//! use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
//!
//! let mut documenter = Documenter::new(Redactor::new());
//! for (id, user) in [(1, "42"), (2, "43")] {
//!     let request = Request::new("GET", format!("https://api.shop.test/users/{user}"), HttpVersion::Http11);
//!     let mut response = Response::new(200, HttpVersion::Http11);
//!     let body = format!(r#"{{"id":{user},"email":"u{user}@shop.test"}}"#);
//!     response.body = Body::from_decoded(Some("application/json".into()), body.into_bytes());
//!     let flow = Flow::new(FlowId(id), Timestamp::from_unix_micros(0), Client::Human, request).with_response(response);
//!     let info = EndpointInfo {
//!         id: 7, key: "GET api.shop.test/users/{userId}".into(), method: "GET".into(),
//!         host: "api.shop.test".into(), template: "/users/{userId}".into(), sources: vec![],
//!         rest_param: None,
//!     };
//!     documenter.observe(&flow, &info);
//! }
//! let docs = document(&documenter, &Enrichment::new(), &Options::default()).unwrap();
//! let yaml = docs.yaml().unwrap();
//! assert!(yaml.contains("url: https://api.shop.test"));
//! assert!(yaml.contains("format: email"));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod assemble;
mod body;
mod components;
mod documenter;
mod echo;
mod endpoint;
mod error;
mod fold;
mod form;
mod graphql;
mod header_roles;
mod markdown;
mod model;
mod naming;
mod options;
mod params;
mod redact;
mod security;
mod spec;
mod store;
mod yaml;

pub use assemble::{Documentation, assemble, document, to_json, to_yaml};
pub use documenter::{Documenter, EndpointInfo, Ledger, SkipReason, ValueSource};
pub use error::Error;
pub use options::{Annotation, Enrichment, Options};
pub use redact::{REDACTED, Redactor};
pub use security::{Credential, KeyLocation, SecurityKind, detect_credentials};
pub use store::{endpoint_info, skip_reason};
