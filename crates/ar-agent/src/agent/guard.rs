//! The loop detector: notices when the model repeats a call (or a short
//! cycle of calls) that leaves the page unchanged, and nudges it.

use std::collections::VecDeque;

/// Calls remembered.
const WINDOW: usize = 8;
/// Times the same call (name + arguments) may appear in the window.
const REPEATS: usize = 3;

/// Remembers recent calls and says when the model goes round in circles.
#[derive(Debug, Default)]
pub(crate) struct LoopDetector {
    recent: VecDeque<String>,
}

impl LoopDetector {
    /// Records a call; returns a nudge when it repeats.
    pub(crate) fn record(&mut self, name: &str, args: &serde_json::Value) -> Option<String> {
        let call = format!("{name} {args}");
        if self.recent.len() == WINDOW {
            self.recent.pop_front();
        }
        self.recent.push_back(call.clone());
        let count = self.recent.iter().filter(|c| **c == call).count();
        let cycle = self.recent.len() >= 4 && {
            let n = self.recent.len();
            self.recent[n - 1] == self.recent[n - 3]
                && self.recent[n - 2] == self.recent[n - 4]
                && self.recent[n - 1] != self.recent[n - 2]
        };
        if count >= REPEATS {
            self.recent.clear();
            Some(format!(
                "note from ar: you called {name} with the same arguments {count} times recently. \
                 It is not getting you anywhere: try a different element or page, check doc_status \
                 for open questions, or report what you found."
            ))
        } else if cycle {
            self.recent.clear();
            Some(
                "note from ar: you are alternating between the same two calls. Step back: check \
                 doc_status, try another part of the site, or report."
                    .to_owned(),
            )
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn third_identical_call_is_nudged_once() {
        let mut d = LoopDetector::default();
        let args = json!({"ref": "e4"});
        assert!(d.record("browser_click", &args).is_none());
        assert!(d.record("browser_snapshot", &json!({})).is_none());
        assert!(d.record("browser_click", &args).is_none());
        let nudge = d.record("browser_click", &args).unwrap();
        assert!(nudge.contains("browser_click"), "{nudge}");
        assert!(d.record("browser_click", &args).is_none());
    }

    #[test]
    fn two_step_cycle_is_nudged() {
        let mut d = LoopDetector::default();
        let a = json!({"ref": "e1"});
        let b = json!({"ref": "e2"});
        assert!(d.record("browser_click", &a).is_none());
        assert!(d.record("browser_click", &b).is_none());
        assert!(d.record("browser_click", &a).is_none());
        assert!(
            d.record("browser_click", &b)
                .unwrap()
                .contains("alternating")
        );
    }

    #[test]
    fn different_calls_are_fine() {
        let mut d = LoopDetector::default();
        for i in 0..20 {
            assert!(
                d.record("browser_click", &json!({"ref": format!("e{i}")}))
                    .is_none()
            );
        }
    }
}
