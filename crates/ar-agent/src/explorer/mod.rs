//! The no-LLM explorer: a deterministic driver that makes a site's API calls
//! fire by using the site the way a curious person would.
//!
//! It visits same-site links (a few per URL shape, so `/products/1` and
//! `/products/2` both appear but not all thousand products), opens menus,
//! tabs and other buttons, fills forms with plausible values by field type
//! and name and submits them, and follows what those actions reveal. It
//! skips destructive actions (delete, pay, sign out) unless told otherwise,
//! and stops at a page, action or time budget, or when cancelled. The same
//! site and settings give the same sequence of actions.
//!
//! ```no_run
//! use ar_agent::browser::Browser;
//! use ar_agent::explorer::{explore, ExplorerConfig};
//! use tokio_util::sync::CancellationToken;
//!
//! # async fn run(browser: &dyn Browser) -> Result<(), ar_agent::explorer::ExplorerError> {
//! let config = ExplorerConfig::new("https://shop.test/");
//! let report = explore(browser, &config, &CancellationToken::new(), &mut |event| println!("{event}")).await?;
//! println!("{} pages, {} actions", report.pages_visited, report.actions);
//! # Ok(())
//! # }
//! ```

mod crawl;
#[cfg(test)]
mod fake;
mod fill;
mod policy;

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

pub use crawl::explore;

use crate::browser::BrowserError;

/// Settings of one exploration.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ExplorerConfig {
    /// Where to start; its site (registrable domain) bounds which links are followed.
    pub start: String,
    /// Most pages to load.
    pub max_pages: usize,
    /// Most actions (clicks, form submissions) to perform.
    pub max_actions: usize,
    /// Longest the exploration may run.
    pub time_budget: Duration,
    /// How many URLs of one shape (ids masked, query values dropped) to visit.
    pub per_shape: usize,
    /// Also perform destructive actions (delete, pay, sign out).
    pub allow_destructive: bool,
    /// A file to attach to file inputs, if any.
    pub upload_file: Option<PathBuf>,
}

impl ExplorerConfig {
    /// Defaults sized for a quick, useful first pass: 40 pages, 250 actions, 3 minutes.
    pub fn new(start: impl Into<String>) -> Self {
        Self {
            start: start.into(),
            max_pages: 40,
            max_actions: 250,
            time_budget: Duration::from_secs(180),
            per_shape: 3,
            allow_destructive: false,
            upload_file: None,
        }
    }
}

/// Something the explorer did or decided, for live progress output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExplorerEvent {
    /// A page was loaded.
    Visit {
        /// Its URL.
        url: String,
    },
    /// An element was clicked.
    Click {
        /// Its role.
        role: String,
        /// Its accessible name.
        name: String,
    },
    /// A form was filled and submitted.
    Submit {
        /// The submit control's name, or the form's field names.
        form: String,
        /// How many fields were filled.
        fields: usize,
    },
    /// A destructive action was left alone.
    SkippedDestructive {
        /// Its accessible name.
        name: String,
    },
    /// An action failed; the explorer carried on.
    Failed {
        /// What was attempted.
        action: String,
        /// Why it failed.
        reason: String,
    },
}

impl fmt::Display for ExplorerEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Visit { url } => write!(f, "visit {url}"),
            Self::Click { role, name } => write!(f, "click {role} \"{name}\""),
            Self::Submit { form, fields } => {
                write!(f, "submit \"{form}\" ({fields} fields filled)")
            }
            Self::SkippedDestructive { name } => write!(
                f,
                "skip \"{name}\" (destructive; --explore-unsafe to allow)"
            ),
            Self::Failed { action, reason } => write!(f, "failed to {action}: {reason}"),
        }
    }
}

/// Why the exploration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// Nothing new was left to visit or do.
    Exhausted,
    /// The page budget ran out.
    PageBudget,
    /// The action budget ran out.
    ActionBudget,
    /// The time budget ran out.
    TimeBudget,
    /// The caller cancelled.
    Cancelled,
}

impl fmt::Display for StopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Exhausted => "nothing left to explore",
            Self::PageBudget => "page budget reached",
            Self::ActionBudget => "action budget reached",
            Self::TimeBudget => "time budget reached",
            Self::Cancelled => "cancelled",
        })
    }
}

/// What an exploration did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplorerReport {
    /// Pages loaded.
    pub pages_visited: usize,
    /// Clicks and submissions performed.
    pub actions: usize,
    /// Forms submitted.
    pub forms_submitted: usize,
    /// Names of destructive actions left alone.
    pub skipped_destructive: Vec<String>,
    /// Actions that failed (the explorer carried on).
    pub failures: usize,
    /// Why it stopped.
    pub stopped: StopReason,
}

/// Why an exploration could not run or had to stop early.
#[derive(Debug, thiserror::Error)]
pub enum ExplorerError {
    /// The start URL is not an absolute http(s) URL.
    #[error(
        "cannot explore from {start:?}: give an absolute http(s) URL such as https://shop.test/"
    )]
    InvalidStart {
        /// The URL given.
        start: String,
    },
    /// The browser went away; nothing more can be done.
    #[error("the browser stopped working during exploration")]
    Browser(#[from] BrowserError),
}
