//! `ar`'s running parts, as a library: the pipeline that turns flows into
//! `openapi.yaml`, `openapi.json` and `API.md`; the one capture driver that
//! feeds it (used by `ar proxy` and sessions alike); the capture proxy
//! alone (`ar proxy`); the archive directory;
//! the web view's backend; and the session (browser, proxy, explorer, agent)
//! that `ar <url>` and `ar mcp` put a front end on.
//!
//! The `ar` binary keeps what is about a terminal and a command line: flags,
//! the REPL, printing, the archiver hand-off.
//!
//! - [`pipeline`]: one owner of the endpoint store and its documenter, fed a
//!   flow at a time ([`pipeline::Pipeline`]), rewriting the documents live
//!   ([`pipeline::live`]), on the capture threads ([`pipeline::capture_threads`]).
//! - [`proxy`]: the capture proxy alone (`ar proxy`): archive, live documents, web view.
//! - [`archive_dir`]: `flows.jsonl` + `bodies/`, appended, read back, exported to HAR.
//! - [`web`]: what the web view asks of a pipeline, and replays through the proxy.
//! - [`session`]: [`session::Session`] and the drivers that take turns in its browser.
//! - [`files`]: atomic writes, the one way any document reaches the disk.
//!
//! ```
//! use ar_session::pipeline::{Pipeline, PipelineConfig};
//! use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
//!
//! let config = PipelineConfig::default().with_scope_hosts(&["shop.test".to_owned()]);
//! let mut pipeline = Pipeline::new(config)?;
//! for (id, user) in [(1, 17), (2, 42)] {
//!     let url = format!("https://shop.test/api/users/{user}");
//!     let mut response = Response::new(200, HttpVersion::Http11);
//!     let body = format!(r#"{{"id":{user},"name":"Ada"}}"#).into_bytes();
//!     response.body = Body::from_decoded(Some("application/json".into()), body);
//!     let request = Request::new("GET", &url, HttpVersion::Http11);
//!     let flow = Flow::new(FlowId(id), Timestamp::from_unix_micros(0), Client::Human, request)
//!         .with_response(response);
//!     pipeline.ingest(&flow)?;
//! }
//! let documents = pipeline.documents()?;
//! // Two ids, one endpoint: the server is `https://shop.test/api`.
//! assert!(documents.yaml.contains("  /users/{userId}:"), "{}", documents.yaml);
//! assert!(documents.markdown.contains("GET"));
//! # Ok::<(), anyhow::Error>(())
//! ```

#![warn(missing_docs)]

pub mod archive_dir;
pub mod files;
pub mod pipeline;
pub mod proxy;
pub mod session;
pub mod web;
