//! Parameters as an endpoint counts them: a hash map by name.
//!
//! The public [`ParamSet`] is a `BTreeMap` sorted by name, which suits
//! readers; counting searches it for every query parameter and header of
//! every flow, and a search there is a string comparison per step. The
//! table keeps a [`ParamCounter`] per name in a hash map (one hash and one
//! comparison per name) and builds the sorted [`ParamSet`] of
//! [`ParamStats`](super::params::ParamStats) when someone reads it,
//! keeping it until the next flow changes the table.
//!
//! Flows of one endpoint mostly send the same names in the same order, so
//! the table also remembers which entry each position of the last flow
//! counted into: a name equal to the one there needs no hash at all.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use indexmap::IndexMap;

use super::params::{ParamCounter, ParamSet};

/// Positions of a flow whose entry is remembered for the next flow.
const MAX_REMEMBERED: usize = 64;

/// The identity normalization: query names are kept as sent (decoded).
pub(crate) fn as_sent(name: &str) -> Cow<'_, str> {
    Cow::Borrowed(name)
}

/// Query or header parameters of one endpoint.
#[derive(Debug, Clone, Default)]
pub(crate) struct ParamTable {
    params: IndexMap<Box<str>, ParamCounter, foldhash::fast::FixedState>,
    dropped_names: u64,
    /// Entry index per position of the last flow's names (a hint, checked
    /// against the name before use; `u32::MAX` when there was none).
    last_order: Vec<u32>,
    /// The sorted view handed to readers, built on first read after a change.
    view: OnceLock<ParamSet>,
}

impl ParamTable {
    /// Records the parameters of one flow; a name repeated within the flow
    /// counts once. `stamp` is nonzero and grows with every call on this table.
    /// Names are stored as `normalize` gives them (it must be idempotent:
    /// a stored name normalizes to itself).
    pub(crate) fn observe<K: AsRef<str>, V: AsRef<str>>(
        &mut self,
        pairs: impl Iterator<Item = (K, V)>,
        normalize: for<'s> fn(&'s str) -> Cow<'s, str>,
        max_names: usize,
        stamp: u64,
    ) {
        self.view.take();
        for (position, (name, value)) in pairs.enumerate() {
            let (raw, value) = (name.as_ref(), value.as_ref());
            let hint = self.last_order.get(position).copied().unwrap_or(u32::MAX);
            // Equal to a stored (normalized) name: `normalize(raw)` is that name.
            if let Some((stored, counter)) = self.params.get_index_mut(hint as usize)
                && ar_flow::url::eq_words(stored.as_bytes(), raw.as_bytes())
            {
                counter.record(value, stamp);
                continue;
            }
            let Some(index) = self.index_of(normalize(raw), max_names) else {
                continue;
            };
            self.remember(position, index);
            self.params[index].record(value, stamp);
        }
    }

    /// The entry of `name`, added when there is room.
    fn index_of(&mut self, name: Cow<'_, str>, max_names: usize) -> Option<usize> {
        if let Some(index) = self.params.get_index_of(&*name) {
            return Some(index);
        }
        if self.params.len() >= max_names {
            self.dropped_names += 1;
            return None;
        }
        let stats = ParamCounter::new(&name);
        Some(self.params.insert_full(name.into(), stats).0)
    }

    fn remember(&mut self, position: usize, index: usize) {
        if position >= MAX_REMEMBERED {
            return;
        }
        if self.last_order.len() <= position {
            self.last_order.resize(position + 1, u32::MAX);
        }
        self.last_order[position] = u32::try_from(index).unwrap_or(u32::MAX);
    }

    /// Adds another table's observations (used when endpoints merge). Names
    /// are taken in sorted order, so which ones a full table drops does not
    /// depend on hashing.
    pub(crate) fn merge(&mut self, other: &ParamTable, max_names: usize) {
        self.view.take();
        self.dropped_names += other.dropped_names;
        let mut theirs: Vec<(&str, &ParamCounter)> =
            other.params.iter().map(|(k, v)| (&**k, v)).collect();
        theirs.sort_unstable_by_key(|(name, _)| *name);
        for (name, stats) in theirs {
            if !self.params.contains_key(name) && self.params.len() >= max_names {
                self.dropped_names += 1;
                continue;
            }
            self.params
                .entry(name.into())
                .or_insert_with(|| ParamCounter::like(stats))
                .absorb(stats);
        }
    }

    /// The parameters sorted by name, as the public API shows them.
    pub(crate) fn view(&self) -> &ParamSet {
        self.view.get_or_init(|| ParamSet {
            params: self
                .params
                .iter()
                .map(|(k, v)| (k.to_string(), v.stats()))
                .collect::<BTreeMap<_, _>>(),
            dropped_names: self.dropped_names,
        })
    }

    /// Parameter names, in no particular order.
    pub(crate) fn names(&self) -> impl Iterator<Item = &str> {
        self.params.keys().map(|k| &**k)
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.params
            .iter()
            .map(|(k, v)| k.len() + v.heap_bytes())
            .sum::<usize>()
            + self.last_order.capacity() * 4
            + self.view.get().map_or(0, ParamSet::heap_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::params::ValueKind;
    use super::*;

    #[test]
    fn counts_presence_kinds_and_hides_secrets() {
        let mut table = ParamTable::default();
        table.observe(
            [("page", "1"), ("q", "shoes"), ("api_key", "sk_live_123")].into_iter(),
            as_sent,
            64,
            1,
        );
        table.observe(
            [("page", "2"), ("page", "3"), ("api_key", "sk_live_456")].into_iter(),
            as_sent,
            64,
            2,
        );
        let set = table.view();
        let page = &set.params["page"];
        assert_eq!(page.seen, 2);
        assert_eq!(page.kinds[&ValueKind::Integer], 3);
        assert_eq!(page.examples, ["1", "2", "3"]);
        assert!(set.params["api_key"].sensitive && set.params["api_key"].examples.is_empty());
        table.observe([("x", "1"), ("y", "2")].into_iter(), as_sent, 4, 3);
        let set = table.view();
        assert_eq!((set.params.len(), set.dropped_names), (4, 1));
    }

    /// The remembered positions are only a hint: reordered, renamed or
    /// differently cased names count as a fresh lookup would count them.
    #[test]
    fn remembered_positions_count_like_lookups() {
        fn lower(s: &str) -> Cow<'_, str> {
            Cow::Owned(s.to_ascii_lowercase())
        }
        let flows: [&[(&str, &str)]; 4] = [
            &[("Accept", "a"), ("x-id", "1")],
            &[("accept", "b"), ("x-id", "2")],
            &[("x-id", "3"), ("ACCEPT", "c"), ("new", "n")],
            &[("accept", "d"), ("accept", "e"), ("x-id", "4")],
        ];
        let mut hinted = ParamTable::default();
        for (stamp, pairs) in (1u64..).zip(flows) {
            hinted.observe(pairs.iter().copied(), lower, 64, stamp);
        }
        let set = hinted.view();
        assert_eq!(
            set.params.keys().collect::<Vec<_>>(),
            ["accept", "new", "x-id"]
        );
        assert_eq!((set.params["accept"].seen, set.params["x-id"].seen), (4, 4));
        assert_eq!(set.params["accept"].examples, ["a", "b", "c", "d", "e"]);
        assert_eq!(set.params["x-id"].kinds[&ValueKind::Integer], 4);
    }

    #[test]
    fn merging_into_a_full_table_drops_names_in_sorted_order() {
        let mut full = ParamTable::default();
        full.observe([("a", "1")].into_iter(), as_sent, 2, 1);
        let mut other = ParamTable::default();
        other.observe(
            [("z", "1"), ("m", "2"), ("a", "3")].into_iter(),
            as_sent,
            8,
            1,
        );
        full.merge(&other, 2);
        let set = full.view();
        assert_eq!(set.params.keys().collect::<Vec<_>>(), ["a", "m"]);
        assert_eq!((set.params["a"].seen, set.dropped_names), (2, 1));
        assert_eq!(set.params["a"].examples, ["1", "3"]);
    }
}
