//! `eN ↔ WebDriver element` table.
//!
//! The snapshot script returns element handles; WebDriver gives the same web
//! element reference for the same DOM element every time, so keying refs by
//! that id gives stable refs across snapshots, and a command on a removed
//! element fails with "stale element reference": staleness detection for free,
//! with nothing written into the page.

use std::collections::{BTreeMap, HashMap};

use ar_agent::browser::Ref;

/// Refs kept at most; the oldest go first (long sessions visit many pages).
const MAX_REFS: usize = 20_000;

/// The table; `H` is the element handle type (a fantoccini `Element` in `ar`).
#[derive(Debug)]
pub(crate) struct RefTable<H> {
    next: u32,
    by_id: HashMap<String, Ref>,
    by_ref: BTreeMap<Ref, (String, H)>,
}

impl<H: Clone> RefTable<H> {
    pub(crate) fn new() -> Self {
        Self {
            next: 1,
            by_id: HashMap::new(),
            by_ref: BTreeMap::new(),
        }
    }

    /// The ref of the element with WebDriver id `id`: the old one if seen before, else a new one.
    pub(crate) fn assign(&mut self, id: &str, handle: H) -> Ref {
        if let Some(&reference) = self.by_id.get(id) {
            return reference;
        }
        let reference = Ref::new(self.next);
        self.next = self.next.saturating_add(1);
        self.by_id.insert(id.to_owned(), reference);
        self.by_ref.insert(reference, (id.to_owned(), handle));
        while self.by_ref.len() > MAX_REFS {
            if let Some((_, (old_id, _))) = self.by_ref.pop_first() {
                self.by_id.remove(&old_id);
            }
        }
        reference
    }

    /// The handle behind a ref.
    pub(crate) fn get(&self, reference: Ref) -> Option<H> {
        self.by_ref
            .get(&reference)
            .map(|(_, handle)| handle.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_element_keeps_its_ref_and_new_ones_count_up() {
        let mut table = RefTable::new();
        let a = table.assign("f.1.d.2.e.5", "a");
        let b = table.assign("f.1.d.2.e.6", "b");
        assert_eq!((a, b), (Ref::new(1), Ref::new(2)));
        assert_eq!(table.assign("f.1.d.2.e.5", "a again"), a);
        assert_eq!(table.get(b), Some("b"));
        assert_eq!(table.get(Ref::new(9)), None);
    }

    #[test]
    fn refs_are_never_reused_after_eviction() {
        let mut table = RefTable::new();
        for i in 0..=MAX_REFS {
            table.assign(&i.to_string(), i);
        }
        assert_eq!(table.get(Ref::new(1)), None, "oldest evicted");
        let fresh = table.assign("0", 0);
        assert!(
            fresh.number() as usize > MAX_REFS,
            "evicted id gets a new ref, not e1"
        );
    }
}
