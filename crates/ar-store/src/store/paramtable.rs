//! Parameters as an endpoint counts them: a hash map by name.
//!
//! The public [`ParamSet`] is a `BTreeMap` sorted by name, which suits
//! readers; counting searches it for every query parameter and header of
//! every flow, and a search there is a string comparison per step. The
//! table keeps the same [`ParamStats`] in a hash map (one hash and one
//! comparison per name) and builds the sorted [`ParamSet`] when someone
//! reads it, keeping it until the next flow changes the table.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::HashMap;
use super::params::{ParamSet, ParamStats};

/// Query or header parameters of one endpoint.
#[derive(Debug, Clone, Default)]
pub(crate) struct ParamTable {
    params: HashMap<Box<str>, ParamStats>,
    dropped_names: u64,
    /// The sorted view handed to readers, built on first read after a change.
    view: OnceLock<ParamSet>,
}

impl ParamTable {
    /// Records the parameters of one flow; a name repeated within the flow
    /// counts once. `stamp` is nonzero and grows with every call on this table.
    pub(crate) fn observe<K: AsRef<str>, V: AsRef<str>>(
        &mut self,
        pairs: impl Iterator<Item = (K, V)>,
        max_names: usize,
        stamp: u64,
    ) {
        self.view.take();
        for (name, value) in pairs {
            let (name, value) = (name.as_ref(), value.as_ref());
            // One map search in the usual case (the name is known).
            let full = self.params.len() >= max_names;
            let stats = match self.params.get_mut(name) {
                Some(stats) => stats,
                None if full => {
                    self.dropped_names += 1;
                    continue;
                }
                None => self
                    .params
                    .entry(name.into())
                    .or_insert_with(|| ParamStats::new(name)),
            };
            stats.record(value, stamp);
        }
    }

    /// Adds another table's observations (used when endpoints merge). Names
    /// are taken in sorted order, so which ones a full table drops does not
    /// depend on hashing.
    pub(crate) fn merge(&mut self, other: &ParamTable, max_names: usize) {
        self.view.take();
        self.dropped_names += other.dropped_names;
        let mut theirs: Vec<(&str, &ParamStats)> =
            other.params.iter().map(|(k, v)| (&**k, v)).collect();
        theirs.sort_unstable_by_key(|(name, _)| *name);
        for (name, stats) in theirs {
            if !self.params.contains_key(name) && self.params.len() >= max_names {
                self.dropped_names += 1;
                continue;
            }
            self.params
                .entry(name.into())
                .or_insert_with(|| ParamStats {
                    sensitive: stats.sensitive,
                    ..ParamStats::default()
                })
                .absorb(stats);
        }
    }

    /// The parameters sorted by name, as the public API shows them.
    pub(crate) fn view(&self) -> &ParamSet {
        self.view.get_or_init(|| ParamSet {
            params: self
                .params
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
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
            64,
            1,
        );
        table.observe(
            [("page", "2"), ("page", "3"), ("api_key", "sk_live_456")].into_iter(),
            64,
            2,
        );
        let set = table.view();
        let page = &set.params["page"];
        assert_eq!(page.seen, 2);
        assert_eq!(page.kinds[&ValueKind::Integer], 3);
        assert_eq!(page.examples, ["1", "2", "3"]);
        assert!(set.params["api_key"].sensitive && set.params["api_key"].examples.is_empty());
        table.observe([("x", "1"), ("y", "2")].into_iter(), 4, 3);
        let set = table.view();
        assert_eq!((set.params.len(), set.dropped_names), (4, 1));
    }

    #[test]
    fn merging_into_a_full_table_drops_names_in_sorted_order() {
        let mut full = ParamTable::default();
        full.observe([("a", "1")].into_iter(), 2, 1);
        let mut other = ParamTable::default();
        other.observe([("z", "1"), ("m", "2"), ("a", "3")].into_iter(), 8, 1);
        full.merge(&other, 2);
        let set = full.view();
        assert_eq!(set.params.keys().collect::<Vec<_>>(), ["a", "m"]);
        assert_eq!((set.params["a"].seen, set.dropped_names), (2, 1));
        assert_eq!(set.params["a"].examples, ["1", "3"]);
    }
}
