//! Shape fingerprints from the leaf hashes of a body scan.
//!
//! A fingerprint is FNV-1a over the sorted, deduplicated leaf hashes (the
//! value is public: [`super::Sample::shape`]). Bodies of one API repeat their
//! structure, and a scan pushes leaf hashes in document order, so the same
//! sequence comes back again and again: the last few sequences are kept with
//! their fingerprints, and a repeat skips the sort and the hash.

use std::collections::HashMap;

use crate::template::{AnswerShape, leaf_sketch};

/// Leaf-hash sequences remembered; each holds at most `scan::MAX_PATHS` hashes.
const RECENT: usize = 8;
/// Leaf sketches remembered by fingerprint; beyond it the map starts over.
const SKETCHES: usize = 4096;

/// The last few leaf-hash sequences (document order) and their fingerprints.
#[derive(Debug, Default)]
pub(crate) struct Fingerprints {
    recent: Vec<(Vec<u64>, u64)>,
    /// The slot replaced next once `recent` is full.
    next: usize,
    /// The leaf sketch ([`crate::template::AnswerShape`]) of each
    /// fingerprint computed lately: a body read again from the body memo
    /// gives its fingerprint only.
    sketches: HashMap<u64, u128, foldhash::fast::FixedState>,
}

impl Fingerprints {
    /// The fingerprint of `hashes` (leaf hashes in document order); on a
    /// miss they are sorted and deduplicated in place.
    pub(crate) fn of(&mut self, hashes: &mut Vec<u64>) -> u64 {
        if let Some((_, fingerprint)) = self.recent.iter().find(|(seq, _)| seq == hashes) {
            return *fingerprint;
        }
        let slot = if self.recent.len() < RECENT {
            self.recent.push((Vec::new(), 0));
            self.recent.len() - 1
        } else {
            let slot = self.next;
            self.next = (slot + 1) % RECENT;
            slot
        };
        let (seq, fingerprint) = &mut self.recent[slot];
        seq.clear();
        seq.extend_from_slice(hashes);
        *fingerprint = fingerprint_of(hashes);
        if self.sketches.len() >= SKETCHES {
            self.sketches.clear();
        }
        (self.sketches).insert(*fingerprint, leaf_sketch(hashes));
        *fingerprint
    }

    /// The shape of fingerprint `fingerprint`, with its leaf sketch when
    /// it is still known.
    pub(crate) fn shape(&self, fingerprint: u64) -> AnswerShape {
        match self.sketches.get(&fingerprint) {
            Some(leaves) => AnswerShape::with_leaves(fingerprint, *leaves),
            None => AnswerShape::exact(fingerprint),
        }
    }
}

/// FNV-1a over the sorted, deduplicated hashes (little-endian bytes).
fn fingerprint_of(hashes: &mut Vec<u64>) -> u64 {
    hashes.sort_unstable();
    hashes.dedup();
    let mut h = super::analysis::Fnv::new();
    for x in hashes.iter() {
        h.write(&x.to_le_bytes());
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembered_sequences_give_the_fingerprint_a_fresh_one_gives() {
        let mut memo = Fingerprints::default();
        let sequences: Vec<Vec<u64>> = (0..20u64)
            .map(|i| vec![i % 11, 3, i % 11, 7 * (i % 5)])
            .collect();
        for _ in 0..3 {
            for seq in &sequences {
                let fresh = fingerprint_of(&mut seq.clone());
                assert_eq!(memo.of(&mut seq.clone()), fresh, "{seq:?}");
            }
        }
        assert_eq!(memo.recent.len(), RECENT);
        assert_ne!(
            memo.of(&mut vec![1, 2]),
            memo.of(&mut vec![1, 3]),
            "different shapes differ"
        );
        assert_eq!(memo.of(&mut vec![2, 1, 2]), memo.of(&mut vec![1, 2]));
    }
}
