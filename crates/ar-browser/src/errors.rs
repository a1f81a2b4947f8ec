//! WebDriver errors → [`BrowserError`]s an agent can act on.

use ar_agent::browser::{BrowserError, Ref};
use fantoccini::error::{CmdError, ErrorStatus};

/// Messages chromedriver uses when Chromium itself is gone.
const GONE_MARKERS: &[&str] = &[
    "chrome not reachable",
    "not connected to DevTools",
    "disconnected",
    "tab crashed",
    "session deleted",
    "no such window",
    "target window already closed",
    "cannot determine loading status",
];

/// Maps a failed command. `reference` is the ref acted on, if any.
pub(crate) fn map_error(action: &str, reference: Option<Ref>, error: CmdError) -> BrowserError {
    let wd = match error {
        CmdError::Standard(wd) => wd,
        CmdError::Failed(e) => return gone(&e),
        CmdError::FailedC(e) => return gone(&e),
        CmdError::Lost(e) => return gone(&e),
        CmdError::WaitTimeout => {
            return BrowserError::Timeout {
                what: action.to_owned(),
                after_ms: 0,
            };
        }
        other => {
            return BrowserError::Driver {
                action: action.to_owned(),
                reason: other.to_string(),
            };
        }
    };
    let message = first_line(&wd.message);
    match (&wd.error, reference) {
        (ErrorStatus::StaleElementReference, Some(reference)) => {
            BrowserError::StaleRef { reference }
        }
        (ErrorStatus::UnexpectedAlertOpen, _) => BrowserError::DialogOpen {
            text: alert_text(wd.data.as_ref(), &wd.message),
        },
        (ErrorStatus::NoSuchAlert, _) => BrowserError::NoDialog,
        (
            ErrorStatus::ElementNotInteractable
            | ErrorStatus::ElementClickIntercepted
            | ErrorStatus::InvalidElementState,
            Some(reference),
        ) => BrowserError::NotInteractable {
            reference,
            reason: message,
        },
        (ErrorStatus::InvalidSessionId | ErrorStatus::NoSuchWindow, _) => {
            BrowserError::BrowserGone {
                hint: format!("{message}; restart ar to get a new browser"),
            }
        }
        (ErrorStatus::Timeout | ErrorStatus::ScriptTimeout, _) => BrowserError::Timeout {
            what: action.to_owned(),
            after_ms: 0,
        },
        _ if GONE_MARKERS.iter().any(|m| message.contains(m)) => BrowserError::BrowserGone {
            hint: format!("{message}; restart ar to get a new browser"),
        },
        _ => BrowserError::Driver {
            action: action.to_owned(),
            reason: message,
        },
    }
}

fn gone(error: &dyn std::fmt::Display) -> BrowserError {
    BrowserError::BrowserGone {
        hint: format!("chromedriver is not answering ({error}); restart ar to get a new browser"),
    }
}

fn first_line(message: &str) -> String {
    message.lines().next().unwrap_or_default().trim().to_owned()
}

/// The dialog's text from the error data, or from `{Alert text : ...}` in the message.
fn alert_text(data: Option<&serde_json::Value>, message: &str) -> String {
    if let Some(text) = data.and_then(|d| d.get("text")).and_then(|t| t.as_str()) {
        return text.to_owned();
    }
    message
        .split("{Alert text : ")
        .nth(1)
        .and_then(|rest| rest.rsplit_once('}'))
        .map(|(text, _)| text.to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fantoccini::error::WebDriver;

    fn standard(status: ErrorStatus, message: &'static str) -> CmdError {
        CmdError::Standard(WebDriver::new(status, message))
    }

    #[test]
    fn stale_element_names_the_ref() {
        let error = map_error(
            "click",
            Some(Ref::new(12)),
            standard(
                ErrorStatus::StaleElementReference,
                "stale element reference: gone",
            ),
        );
        assert_eq!(
            error.to_string(),
            "ref e12 is stale: the element is gone from the page; take a new snapshot"
        );
    }

    #[test]
    fn alert_text_comes_from_the_message_when_data_is_missing() {
        let error = map_error(
            "snapshot",
            None,
            standard(
                ErrorStatus::UnexpectedAlertOpen,
                "unexpected alert open: {Alert text : Delete {all} items?}\n  (Session info: x)",
            ),
        );
        assert_eq!(error.code(), "dialog_open");
        assert!(
            error.to_string().contains("\"Delete {all} items?\""),
            "{error}"
        );
    }

    #[test]
    fn a_dead_chromium_is_browser_gone() {
        let error = map_error(
            "snapshot",
            None,
            standard(
                ErrorStatus::UnknownError,
                "chrome not reachable\n (Session info)",
            ),
        );
        assert!(error.is_fatal(), "{error}");
    }
}
