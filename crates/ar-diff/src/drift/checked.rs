//! Small bodies held against a schema again byte for byte, with the issues they raised.
//!
//! Clients repeat request bodies (the same search, the same mutation) and servers repeat
//! answers (polled state, a configuration every page loads). What a body raises against a
//! schema depends on its bytes, the schema and the side alone, so a body met again is not
//! parsed again: its issues are replayed. Checking a small body costs tens of times what
//! hashing and copying it does, so every checked body is kept, in a slot its hash picks.

use std::hash::BuildHasher;

use super::body::Side;
use super::finding::Issue;
use super::shape::ShapeId;

/// Bodies longer than this are always checked.
const MAX_BODY: usize = 512;
/// Bodies remembered, direct-mapped.
const SLOTS: usize = 64;

/// What checking a text against a schema came to: its issues, or `None` when it was not JSON.
pub(super) type Checked = Option<Vec<Issue>>;

/// One remembered check.
#[derive(Clone, Debug)]
struct Slot {
    schema: Option<ShapeId>,
    side: Side,
    body: Vec<u8>,
    found: Checked,
}

/// Recent small bodies and their issues, bounded: [`SLOTS`] bodies of at most [`MAX_BODY`] bytes.
#[derive(Clone, Debug, Default)]
pub(super) struct CheckedBodies {
    slots: Vec<Option<Slot>>,
}

impl CheckedBodies {
    /// What `text` raised against `schema` on `side` the last time it was checked here, or
    /// what `check` finds now (remembered for next time).
    pub(super) fn get_or_check(
        &mut self,
        schema: Option<ShapeId>,
        side: Side,
        text: &[u8],
        check: impl FnOnce() -> Checked,
    ) -> Checked {
        if text.len() > MAX_BODY {
            return check();
        }
        if self.slots.is_empty() {
            self.slots.resize(SLOTS, None);
        }
        let hash = foldhash::fast::FixedState::default().hash_one((schema, side, text));
        let slot = &mut self.slots[hash as usize % SLOTS];
        if let Some(kept) = slot
            && kept.schema == schema
            && kept.side == side
            && kept.body == text
        {
            return kept.found.clone();
        }
        let found = check();
        match slot {
            Some(kept) => {
                kept.schema = schema;
                kept.side = side;
                kept.body.clear();
                kept.body.extend_from_slice(text);
                kept.found.clone_from(&found);
            }
            None => {
                *slot = Some(Slot {
                    schema,
                    side,
                    body: text.to_vec(),
                    found: found.clone(),
                });
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::drift::finding::{FindingKind, Location};

    fn issue(name: &str) -> Issue {
        Issue::new(FindingKind::UndocumentedField, Location::Response, name)
    }

    #[test]
    fn a_body_met_again_is_answered_without_a_check_and_only_when_all_of_it_matches() {
        let mut checked = CheckedBodies::default();
        let runs = Cell::new(0);
        let check = |found: Checked| {
            let runs = &runs;
            move || {
                runs.set(runs.get() + 1);
                found
            }
        };
        let body = br#"{"id":1,"extra":true}"#;
        let first = checked.get_or_check(
            None,
            Side::Response,
            body,
            check(Some(vec![issue("$.extra")])),
        );
        let again = checked.get_or_check(None, Side::Response, body, check(None));
        assert_eq!(first, Some(vec![issue("$.extra")]));
        assert_eq!(again, first, "replayed, not checked again");
        assert_eq!(runs.get(), 1);

        checked.get_or_check(None, Side::Request, body, check(Some(Vec::new())));
        checked.get_or_check(
            None,
            Side::Response,
            br#"{"id":2,"extra":true}"#,
            check(Some(Vec::new())),
        );
        assert_eq!(runs.get(), 3, "another side or other bytes are checked");
    }

    #[test]
    fn a_large_body_is_always_checked() {
        let mut checked = CheckedBodies::default();
        let body = vec![b' '; MAX_BODY + 1];
        let runs = Cell::new(0);
        for _ in 0..2 {
            checked.get_or_check(None, Side::Response, &body, || {
                runs.set(runs.get() + 1);
                None
            });
        }
        assert_eq!(runs.get(), 2);
    }
}
