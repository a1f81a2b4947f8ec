//! Concrete paths of an endpoint with their flow counts.
//!
//! Counting looks a path up on every flow, and an endpoint whose paths
//! carry ids meets a new one on most flows until it holds its cap of them.
//! The paths' texts share one buffer, found through a hash table of entry
//! numbers: a lookup is one hash, a new path an append (no allocation of
//! its own). The sorted map the public API shows
//! ([`super::Endpoint::concrete_paths`]) is built when it is read, kept
//! until the next change.

use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::ops::Range;
use std::sync::OnceLock;

use hashbrown::HashTable;

/// Distinct paths after which an endpoint's table is grown to the cap at once.
const GROW_TO_CAP_AT: usize = 4;

/// Paths and flow counts, at most `cap` paths (the caller's limit).
#[derive(Debug, Clone, Default)]
pub(crate) struct PathCounts {
    /// The paths' texts, one after another.
    text: String,
    /// `(hash, range in text, flows)` per path.
    entries: Vec<(u64, Range<usize>, u64)>,
    /// Entry numbers by the hash of their path.
    table: HashTable<usize>,
    view: OnceLock<BTreeMap<String, u64>>,
}

fn hash_of(path: &str) -> u64 {
    foldhash::fast::FixedState::default().hash_one(path)
}

impl PathCounts {
    /// The entry of `path` and its hash (the hash is wanted to add it).
    fn find(&self, path: &str) -> (Option<usize>, u64) {
        let hash = hash_of(path);
        let (text, entries) = (&self.text, &self.entries);
        let found = self
            .table
            .find(hash, |&i| text[entries[i].1.clone()] == *path)
            .copied();
        (found, hash)
    }

    fn push(&mut self, path: &str, hash: u64, n: u64) {
        let start = self.text.len();
        self.text.push_str(path);
        self.entries.push((hash, start..self.text.len(), n));
        let entries = &self.entries;
        self.table
            .insert_unique(hash, entries.len() - 1, |&i| entries[i].0);
    }

    /// Adds `n` flows of `path`; a new path only while fewer than `cap` are kept.
    pub(crate) fn add(&mut self, path: &str, n: u64, cap: usize) {
        self.view.take();
        match self.find(path) {
            (Some(i), _) => self.entries[i].2 += n,
            (None, hash) if self.entries.len() < cap => {
                // An endpoint whose paths vary (ids in them) soon holds `cap`
                // paths: grow to that once, instead of rehashing at every doubling.
                if self.entries.len() == GROW_TO_CAP_AT {
                    let entries = &self.entries;
                    self.table.reserve(cap - GROW_TO_CAP_AT, |&i| entries[i].0);
                    self.entries.reserve(cap - GROW_TO_CAP_AT);
                }
                self.push(path, hash, n);
            }
            (None, _) => {}
        }
    }

    /// Sets the count of `path` (whatever the cap).
    pub(crate) fn set(&mut self, path: &str, n: u64) {
        self.view.take();
        match self.find(path) {
            (Some(i), _) => self.entries[i].2 = n,
            (None, hash) => self.push(path, hash, n),
        }
    }

    /// Forgets `path` (rare: a split), rewriting the texts without it.
    pub(crate) fn remove(&mut self, path: &str) {
        self.view.take();
        let (Some(gone), _) = self.find(path) else {
            return;
        };
        let old = std::mem::take(self);
        for (i, (hash, range, n)) in old.entries.into_iter().enumerate() {
            if i != gone {
                self.push(&old.text[range], hash, n);
            }
        }
    }

    /// The paths sorted, with counts.
    pub(crate) fn view(&self) -> &BTreeMap<String, u64> {
        self.view
            .get_or_init(|| self.iter().map(|(p, n)| (p.to_string(), n)).collect())
    }

    /// Paths in no particular order.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        self.iter().map(|(p, _)| p)
    }

    /// Paths with counts in no particular order (no sorted copy is built).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.entries
            .iter()
            .map(|(_, range, n)| (&self.text[range.clone()], *n))
    }

    /// Flows of `path` (0 when not kept).
    pub(crate) fn get(&self, path: &str) -> u64 {
        self.find(path).0.map_or(0, |i| self.entries[i].2)
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.text.capacity()
            + self.entries.capacity() * 40
            + self.table.capacity() * 9
            + self
                .view
                .get()
                .map_or(0, |v| v.keys().map(|p| p.len() + 64).sum())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_capped_and_read_sorted() {
        let mut paths = PathCounts::default();
        for p in ["/b", "/a", "/b", "/c"] {
            paths.add(p, 1, 2);
        }
        assert_eq!(
            paths
                .view()
                .iter()
                .map(|(p, n)| (p.as_str(), *n))
                .collect::<Vec<_>>(),
            [("/a", 1), ("/b", 2)]
        );
        paths.set("/c", 5);
        paths.remove("/a");
        assert_eq!(paths.view().keys().collect::<Vec<_>>(), ["/b", "/c"]);
        assert_eq!(paths.paths().count(), 2);
        assert_eq!((paths.get("/c"), paths.get("/a")), (5, 0));
        assert_eq!(paths.iter().map(|(_, n)| n).sum::<u64>(), 7);
    }

    /// Removing rewrites the shared texts: what is left reads and counts as before.
    #[test]
    fn removing_keeps_the_other_paths_whole() {
        let mut paths = PathCounts::default();
        for (i, p) in ["/a/1", "/bb/22", "/ccc/333", "/dddd/4444"]
            .iter()
            .enumerate()
        {
            paths.add(p, i as u64 + 1, 32);
        }
        paths.remove("/bb/22");
        paths.remove("/never");
        paths.add("/ccc/333", 10, 32);
        paths.add("/e", 1, 32);
        let expected = [("/a/1", 1), ("/ccc/333", 13), ("/dddd/4444", 4), ("/e", 1)];
        let view: Vec<(&str, u64)> = paths.view().iter().map(|(p, n)| (p.as_str(), *n)).collect();
        assert_eq!(view, expected);
        assert!(expected.iter().all(|(p, n)| paths.get(p) == *n));
        assert_eq!(paths.get("/bb/22"), 0);
    }
}
