//! The no-LLM explorer: a deterministic driver that makes a site's API calls
//! fire by using the site the way a curious person would.
//!
//! It visits same-site links (a few per URL shape, so `/products/1` and
//! `/products/2` both appear but not all thousand products; a return-to
//! parameter or its own search terms do not make a page new; a button that
//! carries a page's address is such a link; a catalog's pages, named not
//! numbered, are visited while they bring something new), opens menus
//! and then their items, tabs, dialogs and other buttons, fills forms with
//! plausible values by field type and name and submits them (a modal's form
//! by its footer button), opens list entries (double-clicking those a click
//! only selects), and follows what those actions reveal. A click that hides
//! the navigation (a collapsed sidebar) is undone at once.
//!
//! It measures every step by what the page asked its site for and which
//! controls it showed: pages of a shape already seen, and further entries of
//! a list, are tried only while they still bring something new, and a page
//! whose actions stopped asking for anything new is put off while other
//! pages wait, then finished: it says "nothing left" only when that is true,
//! an app that never changes its URL included. What an action reveals (a
//! menu's items, a context menu, a dialog) is tried next. It skips
//! destructive actions (delete, clear, pay, sign out) unless told otherwise,
//! and cancels dialogs that ask to confirm one. It stops at a page, action or
//! time budget, or when cancelled, and reports what it left and why. The
//! same site and settings give the same sequence of actions.
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
mod mode;
mod novelty;
mod plan;
mod policy;
mod refusal;

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
    /// Defaults sized for a quick, useful first pass: 40 pages, 250 actions,
    /// 3 minutes.
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
    /// A page whose plan was put off while other pages waited was loaded
    /// again for the actions it had left.
    Return {
        /// Its URL.
        url: String,
        /// How many planned actions it had left.
        untried: usize,
    },
    /// An element's context menu was opened (a secondary click).
    ContextMenu {
        /// Its role.
        role: String,
        /// Its accessible name.
        name: String,
    },
    /// A list entry that a click only selected was double-clicked.
    DoubleClick {
        /// Its role.
        role: String,
        /// Its accessible name.
        name: String,
    },
    /// A click hid the navigation (a collapsed sidebar) and was undone.
    Undo {
        /// The control clicked twice.
        name: String,
        /// How many controls it had hidden.
        hidden: usize,
    },
    /// The app had switched out of a mode the explorer chose (the
    /// navigation showed the other mode's places), so it was chosen again.
    KeepMode {
        /// The option clicked again.
        name: String,
    },
    /// A form was filled and submitted.
    Submit {
        /// The submit control's name, or the form's field names.
        form: String,
        /// How many fields were filled.
        fields: usize,
    },
    /// A form still shown after its submission flagged fields the explorer
    /// had filled: they were given other values and the form submitted again.
    Resubmit {
        /// The submit control's name, or the form's field names.
        form: String,
        /// What was changed.
        changed: Vec<Revision>,
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
            Self::Return { url, untried } => {
                write!(f, "return to {url} for its {untried} untried actions")
            }
            Self::ContextMenu { role, name } => {
                write!(f, "open the context menu of {role} \"{name}\"")
            }
            Self::DoubleClick { role, name } => write!(f, "double-click {role} \"{name}\""),
            Self::Undo { name, hidden } => write!(
                f,
                "undo \"{name}\": it hid {hidden} controls of the navigation"
            ),
            Self::KeepMode { name } => {
                write!(f, "choose \"{name}\" again: the app had switched out of it")
            }
            Self::Submit { form, fields } => {
                write!(f, "submit \"{form}\" ({fields} fields filled)")
            }
            Self::Resubmit { form, changed } => {
                write!(f, "submit \"{form}\" again, changing what it refused: ")?;
                for (i, revision) in changed.iter().enumerate() {
                    let comma = if i == 0 { "" } else { ", " };
                    write!(f, "{comma}{revision}")?;
                }
                Ok(())
            }
            Self::SkippedDestructive { name } => write!(
                f,
                "skip \"{name}\" (destructive; --explore-unsafe to allow)"
            ),
            Self::Failed { action, reason } => write!(f, "failed to {action}: {reason}"),
        }
    }
}

/// A change made to a field a form refused ([`ExplorerEvent::Resubmit`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Revision {
    /// Typed this text over what the field held.
    Typed {
        /// The field's name.
        field: String,
        /// The text.
        text: String,
    },
    /// Emptied: an optional field left alone, as a person would leave it.
    Emptied {
        /// The field's name.
        field: String,
    },
    /// Checked: the first box of a group the form wants one of.
    Checked {
        /// The box's name.
        field: String,
    },
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Typed { field, text } => write!(f, "\"{field}\" to \"{text}\""),
            Self::Emptied { field } => write!(f, "\"{field}\" emptied"),
            Self::Checked { field } => write!(f, "\"{field}\" checked"),
        }
    }
}

/// Why the exploration ended. It ends early only when every control it
/// could reach in every page and state was tried or left for a reason the
/// report gives; otherwise a budget or the caller ends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StopReason {
    /// Every control reached was tried (or left for a stated reason) and no
    /// page is left to visit.
    #[default]
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
        match self {
            Self::Exhausted => f.write_str("nothing left to explore"),
            Self::PageBudget => f.write_str("page budget reached"),
            Self::ActionBudget => f.write_str("action budget reached"),
            Self::TimeBudget => f.write_str("time budget reached"),
            Self::Cancelled => f.write_str("cancelled"),
        }
    }
}

/// What an exploration did, and what it saw but left.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
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
    /// Distinct requests (method and URL shape) the site was asked.
    pub request_shapes: usize,
    /// Controls clicked twice because the first click hid the navigation.
    pub undone: Vec<String>,
    /// Mode options chosen again after the app switched out of them, once per switch.
    pub modes_kept: Vec<String>,
    /// Pages queued but not visited when it stopped.
    pub pages_left: usize,
    /// Pages not visited because pages of their shape had stopped bringing anything new.
    pub pages_same_shape: usize,
    /// Pages not visited because they are entries of a catalog (more pages
    /// than a menu holds, alike but for one segment) whose last visited
    /// entries brought nothing new.
    pub pages_same_family: usize,
    /// List entries not tried because the entries before them brought nothing new.
    pub entries_left: usize,
    /// Actions planned but not reached when it stopped (a budget ran out,
    /// or the caller cancelled).
    pub actions_left: usize,
    /// Planned actions whose control was gone when their turn came (a
    /// panel closed, a list re-rendered without it).
    pub actions_gone: usize,
    /// Distinct controls repeated on a page (one "Add to cart" per row),
    /// left as identical to the one tried.
    pub identical: usize,
    /// How long it ran.
    pub elapsed: std::time::Duration,
    /// Why it stopped.
    pub stopped: StopReason,
}

impl ExplorerReport {
    /// How much of its budgets the run used and why it stopped, one line:
    /// `used 58 s of 180 s, 25 of 250 actions, 2 of 40 pages; nothing left to explore`.
    #[must_use]
    pub fn budget_line(&self, config: &ExplorerConfig) -> String {
        format!(
            "used {} s of {} s, {} of {} actions, {} of {} pages; {}",
            self.elapsed.as_secs(),
            config.time_budget.as_secs(),
            self.actions,
            config.max_actions,
            self.pages_visited,
            config.max_pages,
            self.stopped
        )
    }

    /// What it saw but did not do, and why, one line each (empty when it did everything).
    #[must_use]
    pub fn left_out(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.pages_left > 0 {
            lines.push(format!(
                "{} pages found but not visited ({})",
                self.pages_left, self.stopped
            ));
        }
        if self.pages_same_shape > 0 {
            lines.push(format!(
                "{} pages like ones already visited (same URL shape, nothing new on the last)",
                self.pages_same_shape
            ));
        }
        if self.pages_same_family > 0 {
            lines.push(format!(
                "{} catalog pages left (over {} pages alike but for one segment; {} in a row brought nothing new)",
                self.pages_same_family,
                plan::MANY_CHOICES,
                crawl::DULL_ENTRIES
            ));
        }
        if self.entries_left > 0 {
            lines.push(format!(
                "{} list entries after {} in a row brought nothing new",
                self.entries_left,
                crawl::DULL_ENTRIES
            ));
        }
        if self.actions_left > 0 {
            lines.push(format!(
                "{} planned actions not reached ({})",
                self.actions_left, self.stopped
            ));
        }
        if self.identical > 0 {
            lines.push(format!(
                "{} repeated controls (one per row or card) tried once each",
                self.identical
            ));
        }
        if self.actions_gone > 0 {
            lines.push(format!(
                "{} controls gone by the time their turn came (a panel closed, a list re-rendered)",
                self.actions_gone
            ));
        }
        if !self.skipped_destructive.is_empty() {
            let mut names = self.skipped_destructive.clone();
            names.dedup();
            let shown: Vec<String> = names.iter().take(8).map(|n| format!("\"{n}\"")).collect();
            lines.push(format!(
                "{} destructive actions (--explore-unsafe allows them): {}{}",
                self.skipped_destructive.len(),
                shown.join(", "),
                if names.len() > 8 { ", ..." } else { "" }
            ));
        }
        for name in &self.undone {
            lines.push(format!(
                "\"{name}\" hid the navigation, so it was clicked again"
            ));
        }
        let mut kept = self.modes_kept.clone();
        kept.dedup();
        for name in kept {
            let times = self.modes_kept.iter().filter(|n| **n == name).count();
            lines.push(format!(
                "the app switched out of \"{name}\" {times} time(s), so it was chosen again"
            ));
        }
        lines
    }
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
