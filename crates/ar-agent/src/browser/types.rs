//! Small value types the [`Browser`](super::Browser) methods take and return.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::BrowserError;

/// A reference to an interactive element of a page, as shown in a snapshot (`e12`).
///
/// Refs are handed out by [`Browser::snapshot`](super::Browser::snapshot). The
/// same element keeps the same ref across snapshots, so an agent can act on a
/// ref it saw a few steps ago; a ref whose element left the page fails with
/// [`BrowserError::StaleRef`] instead of hitting some other element.
///
/// ```
/// use ar_agent::browser::Ref;
///
/// let r: Ref = "e12".parse().unwrap();
/// assert_eq!(r, Ref::new(12));
/// assert_eq!(r.to_string(), "e12");
/// // What models tend to echo back is accepted too.
/// assert_eq!("[ref=e12]".parse::<Ref>().unwrap(), r);
/// assert!("button".parse::<Ref>().is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Ref(u32);

impl Ref {
    /// The ref with number `n` (`e{n}`).
    #[must_use]
    pub const fn new(n: u32) -> Self {
        Self(n)
    }

    /// The number after the `e`.
    #[must_use]
    pub const fn number(self) -> u32 {
        self.0
    }
}

impl fmt::Display for Ref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "e{}", self.0)
    }
}

impl FromStr for Ref {
    type Err = BrowserError;

    /// Parses `e12`, `12`, `ref=e12` or `[ref=e12]` (models echo all of these).
    fn from_str(input: &str) -> Result<Self, Self::Err> {
        let trimmed = input.trim().trim_start_matches('[').trim_end_matches(']');
        let trimmed = trimmed.strip_prefix("ref=").unwrap_or(trimmed);
        let digits = trimmed.strip_prefix('e').unwrap_or(trimmed);
        digits
            .parse::<u32>()
            .map(Ref)
            .map_err(|_| BrowserError::InvalidArgument {
                what: format!("ref {input:?}"),
                reason: "a ref looks like e12: use one from the latest snapshot".to_owned(),
            })
    }
}

impl Serialize for Ref {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Ref {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The page the browser shows: where it is and what it is called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageInfo {
    /// The current URL (after redirects).
    pub url: String,
    /// The document title (may be empty).
    pub title: String,
}

/// A request the page sent, as the browser saw it leave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SentRequest {
    /// The HTTP method.
    pub method: String,
    /// The absolute URL.
    pub url: String,
    /// What the page was loading: `Document`, `Fetch`, `XHR`, `Script`,
    /// `Image`, `EventSource`, `WebSocket`, ... (Chromium's resource types).
    pub kind: String,
}

impl SentRequest {
    /// Whether the page asked for data (an API call, a page, a stream) rather
    /// than for a script, style sheet, image or font.
    ///
    /// ```
    /// use ar_agent::browser::SentRequest;
    ///
    /// let call = |kind: &str| SentRequest { method: "GET".into(), url: "https://shop.test/x".into(), kind: kind.into() };
    /// assert!(call("Fetch").is_data());
    /// assert!(call("XHR").is_data());
    /// assert!(!call("Image").is_data());
    /// ```
    #[must_use]
    pub fn is_data(&self) -> bool {
        matches!(
            self.kind.as_str(),
            "Document" | "Fetch" | "XHR" | "EventSource" | "WebSocket" | "Other" | "Ping"
        )
    }
}

/// What [`Browser::wait`](super::Browser::wait) waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// Sleep for a fixed time (let an animation or a debounce finish).
    Time(Duration),
    /// Wait until no request has been in flight for `quiet`, giving up after
    /// `timeout` with [`BrowserError::Timeout`] (which names what is still
    /// loading). Long-lived streams (SSE, WebSocket) are not counted.
    NetworkIdle {
        /// How long the network must stay quiet.
        quiet: Duration,
        /// The longest the wait may take.
        timeout: Duration,
    },
}

impl Wait {
    /// Network quiet for 500 ms, at most 10 s: what "wait for the page to settle" usually means.
    #[must_use]
    pub const fn network_idle() -> Self {
        Self::NetworkIdle {
            quiet: Duration::from_millis(500),
            timeout: Duration::from_secs(10),
        }
    }
}

/// Where [`Browser::scroll`](super::Browser::scroll) scrolls.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scroll {
    /// One viewport down (infinite lists load their next page this way).
    Down,
    /// One viewport up.
    Up,
    /// To the top of the page.
    Top,
    /// To the bottom of the page.
    Bottom,
    /// By a number of CSS pixels (positive: right and down).
    By {
        /// Horizontal pixels.
        x: i32,
        /// Vertical pixels.
        y: i32,
    },
    /// Until the element is in view.
    IntoView(Ref),
}

/// What to do with an open `alert`/`confirm`/`prompt` dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DialogAction {
    /// Press OK; for a `prompt`, first type `prompt_text` if given.
    Accept {
        /// Text for a `prompt` dialog.
        prompt_text: Option<String>,
    },
    /// Press Cancel (the safe choice for "Delete this?").
    Dismiss,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ref_parses_the_forms_models_echo() {
        for input in ["e7", "7", " e7 ", "ref=e7", "[ref=e7]"] {
            assert_eq!(input.parse::<Ref>().unwrap(), Ref::new(7), "{input}");
        }
    }

    #[test]
    fn bad_ref_says_what_a_ref_looks_like() {
        let error = "Save button".parse::<Ref>().unwrap_err();
        assert!(error.to_string().contains("e12"), "{error}");
    }

    #[test]
    fn ref_round_trips_through_json_as_a_string() {
        let json = serde_json::to_string(&Ref::new(3)).unwrap();
        assert_eq!(json, "\"e3\"");
        assert_eq!(serde_json::from_str::<Ref>(&json).unwrap(), Ref::new(3));
    }
}
