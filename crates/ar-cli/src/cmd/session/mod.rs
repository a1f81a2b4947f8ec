//! `ar <url>`: the session's front end. The session itself (capture,
//! documents, browser, explorer, agent, web view) is the `ar-session`
//! library; this module turns flags into its config (`args`), reads the
//! user's lines and signals (`input`) and runs the loop that feeds them to
//! it and prints what it says (`run`).

mod args;
mod input;
mod run;

pub(crate) use args::SessionArgs;
pub(crate) use run::{report, run, run_in_runtime};
