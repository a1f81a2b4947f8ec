//! The live status line (`flows 120 · in scope 48 · endpoints 17 · hosts 4`)
//! and the small bits of terminal styling the session uses: colour only on
//! a terminal and never when `NO_COLOR` is set.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What the session has captured and documented so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counters {
    /// Flows captured (every exchange, archived).
    pub flows: u64,
    /// Flows that describe the target's API (in scope, not static, not telemetry).
    pub in_scope_flows: u64,
    /// Distinct endpoints in the spec.
    pub endpoints: u64,
    /// Distinct hosts seen (in scope or not).
    pub hosts: u64,
}

impl Counters {
    /// What grew from `before` to `self` (saturating, for summaries).
    pub fn since(self, before: Counters) -> Counters {
        Counters {
            flows: self.flows.saturating_sub(before.flows),
            in_scope_flows: self.in_scope_flows.saturating_sub(before.in_scope_flows),
            endpoints: self.endpoints.saturating_sub(before.endpoints),
            hosts: self.hosts.saturating_sub(before.hosts),
        }
    }

    /// The counters by name, in the status line's order (the web view's Session panel).
    pub fn named(self) -> Vec<(String, u64)> {
        [
            ("flows", self.flows),
            ("in scope", self.in_scope_flows),
            ("endpoints", self.endpoints),
            ("hosts", self.hosts),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect()
    }
}

impl fmt::Display for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "flows {} · in scope {} · endpoints {} · hosts {}",
            self.flows, self.in_scope_flows, self.endpoints, self.hosts
        )
    }
}

/// Terminal styling: ANSI colour when wanted, plain text otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    colour: bool,
}

impl Style {
    /// Colour when `terminal` and `NO_COLOR` is unset or empty (<https://no-color.org>).
    pub fn detect(terminal: bool) -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Self {
            colour: terminal && !no_color,
        }
    }

    /// No colour at all (tests, pipes).
    pub const fn plain() -> Self {
        Self { colour: false }
    }

    /// Dim text (the status line).
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Green text (new endpoints, success).
    pub fn good(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Yellow text (warnings, notices).
    pub fn warn(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Bold text (headings, the prompt).
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }
}

/// The status line for `counters`, styled.
pub(super) fn status_line(style: Style, counters: Counters) -> String {
    style.dim(&format!("[{counters}]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_line_shows_all_four_counters_plainly_without_colour() {
        let counters = Counters {
            flows: 120,
            in_scope_flows: 48,
            endpoints: 17,
            hosts: 4,
        };
        assert_eq!(
            status_line(Style::plain(), counters),
            "[flows 120 · in scope 48 · endpoints 17 · hosts 4]"
        );
    }

    #[test]
    fn colour_wraps_in_ansi_and_resets() {
        let style = Style { colour: true };
        assert_eq!(style.good("ok"), "\x1b[32mok\x1b[0m");
    }

    #[test]
    fn since_reports_growth() {
        let before = Counters {
            flows: 10,
            in_scope_flows: 5,
            endpoints: 3,
            hosts: 2,
        };
        let after = Counters {
            flows: 25,
            in_scope_flows: 9,
            endpoints: 5,
            hosts: 2,
        };
        assert_eq!(
            after.since(before),
            Counters {
                flows: 15,
                in_scope_flows: 4,
                endpoints: 2,
                hosts: 0
            }
        );
    }
}
