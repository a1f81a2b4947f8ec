//! A session: a browser watched through the capture proxy, and a spec that
//! grows while someone (the explorer, the agent, or a person) uses the site.
//! `ar <url>` puts a REPL in front of it; `ar mcp` serves it to other agents.
//!
//! ```text
//!  browser ──proxy (ar-capture)──► batches ──► capture (one owner of the store)
//!     ▲                                        │ flows.jsonl, store, documenter
//!     │ Driver turn (explorer / agent / /open)  ▼
//!  Session ◄── commands (REPL, pipe) ── openapi.yaml + API.md (atomic, ≤ 1 s)
//! ```
//!
//! - `config`: the validated config (`ar`'s flags become one in the binary).
//! - `manifest`: `session.json`, what `--resume` reads.
//! - the archive on disk is [`crate::archive_dir`] (shared with `ar proxy`):
//!   `flows.jsonl` + `bodies/`, read back on resume, streamed into `capture.har`.
//! - `capture`: the capture work that owns the pipeline and answers queries,
//!   run by the capture driver `ar proxy` uses too ([`crate::pipeline::capture_threads`]).
//! - `core`: [`Session`], the running parts and every command.
//! - `driver`: the [`driver::Driver`] trait turns are run through;
//!   `explore` (the built-in explorer) and `agent` (the LLM) are drivers.
//!   `core` starts their turns; they never see the `Session`: a driver gets
//!   a [`driver::DriverContext`] (browser, cancel, progress) and the agent's
//!   tools get `SessionHandles` (channels to the capture,
//!   the replayer, the counters, the events).
//! - `event`: what the capture and the drivers tell the session loop.
//! - `status` / `commands`: the status line and the commands' grammar
//!   (what a REPL line or a piped line means).
//!
//! The modules import one another in one direction only: `core` →
//! `agent`, `explore` → `handles` → `capture` → `event` → `driver`; `config`
//! reads `manifest` (to resume), never the other way.

mod agent;
mod capture;
pub mod commands;
mod config;
mod core;
pub mod driver;
mod event;
mod explore;
mod handles;
mod manifest;
mod status;

pub use agent::{AskHuman, summary_for_agent};
pub use capture::Templater;
pub use config::{Provider, SessionConfig, default_out_dir, parse_target, upstream_line};
pub use core::{Next, Session, TurnOutcome};
pub use event::Event;
pub use explore::Explorer;
pub use manifest::{MANIFEST_FILE, Manifest};
pub use status::{Counters, Style};
