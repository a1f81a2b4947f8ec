//! The browser an agent or the explorer drives: the [`Browser`] trait and its data.
//!
//! The trait lives here, away from WebDriver, so the agent loop and the
//! explorer are tested with a fake browser; `ar` implements it with
//! fantoccini + chromedriver. Every action is addressed by a [`Ref`] from the
//! latest [`Snapshot`]; refs never write into the page (no injected
//! attributes that CSP or hydration would break), stay the same for the same
//! element across snapshots, and fail with [`BrowserError::StaleRef`] once
//! their element is gone.
//!
//! A driver's step usually looks like this:
//!
//! ```
//! use ar_agent::browser::{diff, Browser, BrowserError, Wait};
//!
//! async fn click_first_link(browser: &dyn Browser) -> Result<String, BrowserError> {
//!     let before = browser.snapshot().await?;
//!     let Some(link) = before.elements.iter().find(|e| e.role == "link") else {
//!         return Ok("no link on this page".to_owned());
//!     };
//!     browser.click(link.reference).await?;
//!     browser.wait(Wait::network_idle()).await?;
//!     let after = browser.snapshot().await?;
//!     Ok(diff(&before, &after).to_string())
//! }
//! ```

mod diff;
mod error;
mod snapshot;
mod types;

use std::path::Path;

pub use diff::{DiffLine, SnapshotDiff, diff};
pub use error::BrowserError;
pub use snapshot::{ElementInfo, OutlineLine, SelectOption, Snapshot};
pub use types::{DialogAction, PageInfo, Ref, Scroll, SentRequest, Wait};

/// A web browser driven one action at a time.
///
/// Methods take `&self` so one browser can be shared (`Arc<dyn Browser>`)
/// between the agent, the explorer and the session; implementations serialise
/// what must be serialised. While a dialog is open every method except
/// [`Browser::handle_dialog`] and [`Browser::page`] may fail with
/// [`BrowserError::DialogOpen`].
#[async_trait::async_trait]
pub trait Browser: Send + Sync {
    /// Loads `url` and waits for its `load` event.
    async fn navigate(&self, url: &str) -> Result<PageInfo, BrowserError>;

    /// Goes back one entry in the history.
    async fn back(&self) -> Result<PageInfo, BrowserError>;

    /// Takes a snapshot of the visible page and hands out refs for its interactive elements.
    async fn snapshot(&self) -> Result<Snapshot, BrowserError>;

    /// Clicks the element (falling back to a script click when something covers it).
    async fn click(&self, target: Ref) -> Result<(), BrowserError>;

    /// Double-clicks the element: how many file lists, tables and trees open an entry.
    async fn double_click(&self, target: Ref) -> Result<(), BrowserError>;

    /// Presses the secondary button on the element: how file browsers, tabs
    /// and rows offer their context menus (Rename, Duplicate, Delete).
    async fn context_click(&self, target: Ref) -> Result<(), BrowserError>;

    /// Replaces the field's content with `text` (empty: empties it); with
    /// `submit`, then submits (Enter, or the field's form when Enter would not
    /// submit it).
    async fn type_text(&self, target: Ref, text: &str, submit: bool) -> Result<(), BrowserError>;

    /// Chooses the option of a select whose value or visible label is `option`;
    /// returns the chosen option's label.
    async fn select(&self, target: Ref, option: &str) -> Result<String, BrowserError>;

    /// Presses a key on the focused element: `Enter`, `Escape`, `Tab`,
    /// `ArrowDown`, `PageDown`, `a`, or a chord like `Control+a`.
    async fn press(&self, key: &str) -> Result<(), BrowserError>;

    /// Scrolls the page or an element into view.
    async fn scroll(&self, scroll: Scroll) -> Result<(), BrowserError>;

    /// Waits for a time or for the network to go quiet.
    async fn wait(&self, wait: Wait) -> Result<(), BrowserError>;

    /// The current URL and title.
    async fn page(&self) -> Result<PageInfo, BrowserError>;

    /// The requests the page sent since the last call, oldest first: what an
    /// action made the page ask its servers (the explorer's measure of novelty).
    async fn take_requests(&self) -> Result<Vec<SentRequest>, BrowserError>;

    /// Saves a PNG screenshot of the viewport to `path`.
    async fn screenshot(&self, path: &Path) -> Result<(), BrowserError>;

    /// Accepts or dismisses the open dialog; returns its message.
    async fn handle_dialog(&self, action: DialogAction) -> Result<String, BrowserError>;
}
