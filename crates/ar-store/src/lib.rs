//! `ar-store` groups captured HTTP exchanges ([`Flow`]s, from `ar-flow`)
//! into the endpoints of an API.
//!
//! The crate is a pure core: it does no I/O, reads no clock and spawns no
//! threads. Time arrives as data ([`Timestamp`]).
//!
//! - [`template`]: signatures `(method, host, path template, status class)`,
//!   path templating in two layers with evidence, GraphQL operations.
//! - [`scope`]: which flows describe the target's API.
//! - [`store`]: the [`EndpointStore`](store::EndpointStore) that groups flows
//!   into endpoints with bounded samples and parameter statistics.
//!
//! ```
//! use ar_store::{Body, Client, Flow, FlowId, Headers, HttpVersion, Request, Response, Timestamp};
//!
//! let request = Request::new("GET", "https://api.shop.test/users/42", HttpVersion::Http11);
//! let mut response = Response::new(200, HttpVersion::Http11);
//! response.headers.push("content-type", "application/json");
//! response.body = Body::from_decoded(Some("application/json".into()), br#"{"id":42}"#.to_vec());
//!
//! let flow = Flow::new(FlowId(1), Timestamp::from_unix_micros(1_700_000_000_000_000), Client::Human, request)
//!     .with_response(response);
//! assert_eq!(flow.response.as_ref().unwrap().status, 200);
//! assert_eq!(flow.request.headers.get("host"), None);
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod error;
pub mod scope;
pub mod store;
pub mod template;

pub use error::Error;
// The store's API speaks the flow model: re-exported so that a user of the
// store needs one import, with `ar-flow` its one owner.
pub use ar_flow::{
    Body, BodySide, Client, Direction, ErrorKind, Flow, FlowError, FlowId, Header, Headers,
    HttpVersion, Request, Response, Timestamp, Timings, WebSocketFrame, WebSocketLog, WsOpcode,
};
