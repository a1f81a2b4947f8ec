//! The one error type of browser actions.
//!
//! Messages are written for the reader who must re-plan (often a model): each
//! says what failed and what to do next ("take a new snapshot", "accept or
//! dismiss it first"). [`BrowserError::code`] gives a stable machine name for
//! tool results.

use super::Ref;

/// Why a browser action failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BrowserError {
    /// The element behind a ref left the page (re-render, navigation).
    #[error("ref {reference} is stale: the element is gone from the page; take a new snapshot")]
    StaleRef {
        /// The ref that was used.
        reference: Ref,
    },
    /// A ref that no snapshot handed out, or something asked for that is not there
    /// (an option of a select, a key name).
    #[error("{what} not found{}", hint_suffix(.hint))]
    NotFound {
        /// What was looked for, e.g. `ref e99` or `option "Purple" in e5`.
        what: String,
        /// What is available instead, or what to do.
        hint: String,
    },
    /// A wait or a command took too long.
    #[error("timed out after {after_ms} ms waiting for {what}")]
    Timeout {
        /// What was being waited for (with what is still pending, if known).
        what: String,
        /// How long the wait lasted.
        after_ms: u64,
    },
    /// The page could not be loaded (DNS, refused connection, TLS, bad URL).
    #[error("navigation to {url} failed: {reason}")]
    NavigationFailed {
        /// The URL asked for.
        url: String,
        /// The browser's reason, e.g. `net::ERR_CONNECTION_REFUSED`.
        reason: String,
    },
    /// An `alert`/`confirm`/`prompt` dialog blocks the page.
    #[error("a dialog is open saying {text:?}: accept or dismiss it first")]
    DialogOpen {
        /// The dialog's message.
        text: String,
    },
    /// A dialog action was asked for but no dialog is open.
    #[error("no dialog is open")]
    NoDialog,
    /// The element exists but cannot take this action (hidden, disabled,
    /// covered, not editable, not a select).
    #[error("ref {reference} cannot be used for this: {reason}")]
    NotInteractable {
        /// The ref that was used.
        reference: Ref,
        /// Why, in the browser's words.
        reason: String,
    },
    /// An argument was malformed (a ref that is not `eN`, an unknown key name).
    #[error("invalid {what}: {reason}")]
    InvalidArgument {
        /// Which argument.
        what: String,
        /// What a valid one looks like.
        reason: String,
    },
    /// The browser or its driver crashed or was closed; nothing more will work.
    #[error("the browser is gone: {hint}")]
    BrowserGone {
        /// What happened and how to recover (usually: restart `ar`).
        hint: String,
    },
    /// Writing a file (a screenshot) failed.
    #[error("cannot write {path}")]
    Io {
        /// The file.
        path: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The browser answered something unexpected.
    #[error("browser error during {action}: {reason}")]
    Driver {
        /// What was being done.
        action: String,
        /// The driver's message.
        reason: String,
    },
}

fn hint_suffix(hint: &str) -> String {
    if hint.is_empty() {
        String::new()
    } else {
        format!(": {hint}")
    }
}

impl BrowserError {
    /// A stable snake_case name for tool results (`stale_ref`, `not_found`, ...).
    ///
    /// ```
    /// use ar_agent::browser::{BrowserError, Ref};
    ///
    /// let error = BrowserError::StaleRef { reference: Ref::new(12) };
    /// assert_eq!(error.code(), "stale_ref");
    /// assert_eq!(
    ///     error.to_string(),
    ///     "ref e12 is stale: the element is gone from the page; take a new snapshot"
    /// );
    /// ```
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::StaleRef { .. } => "stale_ref",
            Self::NotFound { .. } => "not_found",
            Self::Timeout { .. } => "timeout",
            Self::NavigationFailed { .. } => "navigation_failed",
            Self::DialogOpen { .. } => "dialog_open",
            Self::NoDialog => "no_dialog",
            Self::NotInteractable { .. } => "not_interactable",
            Self::InvalidArgument { .. } => "invalid_argument",
            Self::BrowserGone { .. } => "browser_gone",
            Self::Io { .. } => "io",
            Self::Driver { .. } => "driver",
        }
    }

    /// Whether the browser is unusable from now on (the session should stop driving).
    #[must_use]
    pub fn is_fatal(&self) -> bool {
        matches!(self, Self::BrowserGone { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_found_lists_what_is_available() {
        let error = BrowserError::NotFound {
            what: "option \"Purple\" in e5".to_owned(),
            hint: "options are \"Red\", \"Green\"".to_owned(),
        };
        assert_eq!(
            error.to_string(),
            "option \"Purple\" in e5 not found: options are \"Red\", \"Green\""
        );
    }

    #[test]
    fn dialog_open_quotes_the_dialog() {
        let error = BrowserError::DialogOpen {
            text: "Delete item?".to_owned(),
        };
        assert_eq!(
            error.to_string(),
            "a dialog is open saying \"Delete item?\": accept or dismiss it first"
        );
        assert_eq!(error.code(), "dialog_open");
        assert!(!error.is_fatal());
    }
}
