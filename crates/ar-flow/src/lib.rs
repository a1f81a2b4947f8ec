//! `ar-flow` is what `ar` knows of one captured HTTP exchange: a [`Flow`],
//! how it is read and written (HAR 1.2, the archive's line format), and the
//! helpers every other crate reads a flow's URL with. The capture proxy
//! depends on this crate alone; the endpoint store, the documenter, the web
//! view and the binary build on it.
//!
//! The crate is a pure core: it does no I/O, reads no clock and spawns no
//! threads. Time arrives as data ([`Timestamp`]), bytes arrive as slices or
//! through `Read`/`Write` values the caller supplies.
//!
//! - [`har`]: streaming HAR 1.2 import (Chrome, Firefox, mitmproxy, Charles,
//!   Proxyman quirks) and export.
//! - [`archive`]: the lossless `flows.jsonl` line format with spilled bodies.
//! - [`url`]: an allocation-light URL splitter, query pairs, percent-decoding.
//! - [`graphql`]: the operation a GraphQL document starts with.
//! - [`segment`]: what one path segment's spelling says it is (an id, a
//!   date, a version, a name) and the suffix it carries (`.json`, `:start`).
//! - [`destructive`]: which requests and actions read as destructive (the
//!   explorer's two locks).
//! - `testing` (feature `testing`): arbitrary flows for property tests, small flow builders.
//!
//! ```
//! use ar_flow::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
//!
//! let request = Request::new("GET", "https://api.shop.test/users/42", HttpVersion::Http11);
//! let mut response = Response::new(200, HttpVersion::Http11);
//! response.headers.push("content-type", "application/json");
//! response.body = Body::from_decoded(Some("application/json".into()), br#"{"id":42}"#.to_vec());
//!
//! let flow = Flow::new(FlowId(1), Timestamp::from_unix_micros(1_700_000_000_000_000), Client::Human, request)
//!     .with_response(response);
//! assert_eq!(flow.status(), Some(200));
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod archive;
pub mod destructive;
mod error;
mod flow;
pub mod graphql;
pub mod har;
pub mod segment;
#[cfg(feature = "testing")]
pub mod testing;
pub mod url;

pub use error::Error;
pub use flow::{
    Body, BodySide, Client, Direction, ErrorKind, Flow, FlowError, FlowId, Header, Headers,
    HttpVersion, Request, Response, Timestamp, Timings, WebSocketFrame, WebSocketLog, WsOpcode,
    media_type,
};
