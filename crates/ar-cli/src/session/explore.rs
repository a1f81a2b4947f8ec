//! `/explore` and `--explore`: the built-in, no-LLM explorer as a session
//! driver.

use std::io::Write;

use super::core::Session;

/// Starts the explorer's turn, or says why it cannot run.
pub(crate) fn start(session: &mut Session, out: &mut dyn Write) -> anyhow::Result<()> {
    let _ = session;
    writeln!(
        out,
        "the built-in explorer is not part of this build yet: use /open URL... to load pages, \
         or /take to browse yourself"
    )?;
    Ok(())
}
