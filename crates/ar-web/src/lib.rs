//! The live web view of an `ar` capture: a page on 127.0.0.1 that shows
//! every flow as it is captured (pushed with Server-Sent Events, filtered on
//! the server), one flow's headers and bodies with secrets redacted and a
//! per-value reveal, the endpoints with their templating evidence and
//! corrections of their templates, the spec as it grows, the session's
//! counters, and replay of an edited request.
//!
//! The owner of the capture (the `ar <url>` session, `ar proxy`) pushes what
//! happens into a [`Live`] and answers what the page reads on demand through
//! a [`Backend`]; [`WebUi::start`] serves both. Every request must name a
//! loopback `Host` and carry the random token of [`WebUi::url`], or it gets
//! 403 (and a log line). The page is hand-written HTML, CSS and JavaScript
//! embedded in the binary.
//!
//! ```
//! use std::sync::Arc;
//! use ar_web::{Backend, Live, Placement, SessionView, WebConfig, WebUi};
//! use ar_store::{Client, Flow, FlowId, HttpVersion, Request, Timestamp};
//!
//! struct Nothing;
//! impl Backend for Nothing {}
//!
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let live = Live::new(SessionView::new("https://shop.test/"));
//! let ui = WebUi::start(WebConfig::port(0), live.clone(), Arc::new(Nothing)).await.unwrap();
//! assert!(ui.url().starts_with("http://127.0.0.1:") && ui.url().contains("/?token="));
//!
//! let request = Request::new("GET", "https://shop.test/api/cart", HttpVersion::Http11);
//! let flow = Flow::new(FlowId(1), Timestamp::from_unix_micros(0), Client::Human, request);
//! live.record(&flow, &Placement::default());
//! assert_eq!(live.len(), 1);
//! # });
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod backend;
pub mod correction;
mod detail;
mod guard;
mod live;
mod rejoin;
mod replay;
mod routes;
mod row;
mod server;
mod sse;
#[cfg(test)]
mod testing;

pub use backend::{Backend, Documents, EndpointView, PICK_VALUES, SegmentValues};
pub use live::{Live, SessionView};
pub use rejoin::{Joined, endpoints_now};
pub use row::{Driver, Filter, FlowRow, Placement};
pub use server::{Error, RefusalLog, WebConfig, WebUi};
