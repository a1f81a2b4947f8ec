//! What the parts of a session tell its loop.

use super::driver::TurnReport;

/// Something the session loop should show or act on.
#[derive(Debug)]
pub enum Event {
    /// A line to print (driver progress, a new endpoint).
    Message(String),
    /// The running turn ended; pass it to `Session::end_turn`.
    TurnEnded(anyhow::Result<TurnReport>),
}
