//! The handles a driver's tools get to a running session, instead of the
//! session itself.

use tokio::sync::{mpsc, watch};

use super::capture::Scoper;
use super::event::Event;
use super::status::Counters;
use crate::pipeline::enrich::Runner;
use crate::web::Replayer;

/// What the agent's tools (and `ar mcp`'s) reach of a running session: the
/// capture task through its channels, the proxy through the replayer, the
/// loop through its events. Cheap to clone and owned, so a tool holds no
/// borrow of the session, and a driver never holds `&mut Session`.
#[derive(Clone)]
pub struct SessionHandles {
    /// Runs closures on the capture pipeline.
    pub run: Runner,
    /// Changes the capture's scope.
    pub scoper: Scoper,
    /// Sends requests again through the session's proxy.
    pub replayer: Replayer,
    /// What has been captured so far.
    pub counters: watch::Receiver<Counters>,
    /// Lines for the user.
    pub events: mpsc::UnboundedSender<Event>,
}
