//! The real browser: Debian's Chromium driven through chromedriver with
//! fantoccini, implementing [`ar_agent::browser::Browser`].
//!
//! - `launch`: binaries, capabilities (proxy, CA pin, profile, quiet flags),
//!   and errors that say how to fix a missing or mismatched install.
//! - `process`: chromedriver in its own process group, killed with Chromium
//!   when the browser is dropped, so neither outlives `ar`.
//! - `chrome`: the session, command timeouts, the ref table, network idle.
//! - `actions`: the `Browser` methods; `scripts`: the small page scripts they run.
//! - `page_snapshot` + `snapshot.js`: the snapshot script returns element
//!   handles; `refs` maps their WebDriver ids to stable `eN` refs.
//! - `network`: in-flight requests from chromedriver's performance log.

mod actions;
mod chrome;
mod errors;
mod keys;
mod launch;
mod network;
mod page_snapshot;
mod process;
mod refs;
mod scripts;

pub use chrome::ChromeBrowser;
pub use launch::{BrowserConfig, LaunchError};
