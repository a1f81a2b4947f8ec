//! `ar <url>`: a browser watched through the capture proxy, a spec that
//! grows while someone (the explorer, the agent, or you) uses the site, and
//! a REPL to steer it.
//!
//! ```text
//!  browser ──proxy (ar-capture)──► batches ──► capture (one owner of the store)
//!     ▲                                        │ flows.jsonl, store, documenter
//!     │ Driver turn (explorer / agent / /open)  ▼
//!  Session ◄── commands (REPL, pipe) ── openapi.yaml + API.md (atomic, ≤ 1 s)
//! ```
//!
//! - `args` / `config`: the flags and the validated config.
//! - `manifest`: `session.json`, what `--resume` reads.
//! - the archive on disk is `crate::archive_dir` (shared with `ar proxy`):
//!   `flows.jsonl` + `bodies/`, read back on resume, streamed into `capture.har`.
//! - `capture`: the capture work that owns the pipeline and answers queries,
//!   run by the capture driver `ar proxy` uses too (`crate::pipeline::capture_threads`).
//! - `core`: [`core::Session`], the running parts and every command.
//! - `driver`: the [`driver::Driver`] trait turns are run through;
//!   `explore` (the built-in explorer) and `agent` (the LLM) are drivers.
//!   `core` starts their turns; they never see the `Session`: a driver gets
//!   a [`driver::DriverContext`] (browser, cancel, progress) and the agent's
//!   tools get [`handles::SessionHandles`] (channels to the capture,
//!   the replayer, the counters, the events).
//! - `event`: what the capture and the drivers tell the session loop.
//! - `input` / `run`: the editor, pipes and signals, and the loop.
//! - `status` / `commands`: the status line and the REPL grammar.
//!
//! The modules import one another in one direction only: `run` → `core` →
//! `agent`, `explore` → `handles` → `capture` → `event` → `driver`; `config`
//! reads `manifest` (to resume), never the other way.

mod agent;
pub(crate) mod args;
mod capture;
mod commands;
mod config;
mod core;
pub(crate) mod driver;
mod event;
mod explore;
mod handles;
mod input;
pub(crate) mod manifest;
mod run;
mod status;

pub(crate) use agent::{AskHuman, summary_for_agent};
pub(crate) use args::SessionArgs;
pub(crate) use capture::Templater;
pub(crate) use config::SessionConfig;
pub(crate) use core::{Session, TurnOutcome};
pub(crate) use event::Event;
pub(crate) use explore::Explorer;
pub(crate) use run::{report, run, run_in_runtime};
pub(crate) use status::{Counters, Style};
