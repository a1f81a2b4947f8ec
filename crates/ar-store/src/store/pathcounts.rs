//! Concrete paths of an endpoint with their flow counts.
//!
//! Counting looks a path up on every flow; in a `BTreeMap` of 32 paths
//! that share a prefix (`/api/v1/users/…`) that is a string comparison per
//! step. The counts live in a hash map, and the sorted map the public API
//! shows ([`super::Endpoint::concrete_paths`]) is built when it is read,
//! kept until the next change.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use super::HashMap;

/// Distinct paths after which an endpoint's map is grown to the cap at once.
const GROW_TO_CAP_AT: usize = 4;

/// Paths and flow counts, at most `cap` paths (the caller's limit).
#[derive(Debug, Clone, Default)]
pub(crate) struct PathCounts {
    counts: HashMap<Box<str>, u64>,
    view: OnceLock<BTreeMap<String, u64>>,
}

impl PathCounts {
    /// Adds `n` flows of `path`; a new path only while fewer than `cap` are kept.
    pub(crate) fn add(&mut self, path: &str, n: u64, cap: usize) {
        self.view.take();
        if let Some(count) = self.counts.get_mut(path) {
            *count += n;
        } else if self.counts.len() < cap {
            // An endpoint whose paths vary (ids in them) soon holds `cap`
            // paths: grow to that once, instead of rehashing at every doubling.
            if self.counts.len() == GROW_TO_CAP_AT {
                self.counts.reserve(cap - GROW_TO_CAP_AT);
            }
            self.counts.insert(path.into(), n);
        }
    }

    /// Sets the count of `path` (whatever the cap).
    pub(crate) fn set(&mut self, path: &str, n: u64) {
        self.view.take();
        self.counts.insert(path.into(), n);
    }

    pub(crate) fn remove(&mut self, path: &str) {
        self.view.take();
        self.counts.remove(path);
    }

    /// The paths sorted, with counts.
    pub(crate) fn view(&self) -> &BTreeMap<String, u64> {
        self.view.get_or_init(|| {
            self.counts
                .iter()
                .map(|(p, n)| (p.to_string(), *n))
                .collect()
        })
    }

    /// Paths in no particular order.
    pub(crate) fn paths(&self) -> impl Iterator<Item = &str> {
        self.counts.keys().map(|p| &**p)
    }

    /// Paths with counts in no particular order (no sorted copy is built).
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, u64)> {
        self.counts.iter().map(|(p, n)| (&**p, *n))
    }

    /// Flows of `path` (0 when not kept).
    pub(crate) fn get(&self, path: &str) -> u64 {
        self.counts.get(path).copied().unwrap_or(0)
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.counts.keys().map(|p| p.len() + 64).sum::<usize>()
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
}
