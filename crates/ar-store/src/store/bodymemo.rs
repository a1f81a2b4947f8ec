//! Small bodies an API sends again byte for byte, with what a scan of them found.
//!
//! Clients repeat request bodies (the same search, the same mutation) and
//! servers repeat responses (polled state). A body's shape fingerprint and
//! its identifier candidates (values whose key and text pass the
//! provenance tests) depend on its bytes alone; which candidates are new
//! depends on the index, so a repeat skips the scan and asks the index
//! about the remembered candidates in their order, which is what the scan
//! would have done. A body is remembered in full on its second sighting
//! (the first only leaves its hash), so bodies that never repeat cost a
//! hash and no copy.

use std::hash::BuildHasher;

use super::valueindex::{FoundValues, Hashed, ValueIndex};

/// Bodies longer than this are always scanned.
const MAX_BODY: usize = 512;
/// Hashes of recent bodies, direct-mapped.
const SEEN_SLOTS: usize = 256;
/// Bodies remembered in full, direct-mapped.
const KEPT_SLOTS: usize = 16;

/// One candidate of a remembered body: `(value, field path, parent key, key)`.
pub(crate) type Candidate = (String, String, Option<String>, String);

/// What [`BodyMemo::sighting`] knows of a body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sighting {
    /// Remembered in full, in this slot.
    Kept(usize),
    /// Seen once before: worth remembering after this scan (its hash).
    Again(u64),
    /// New, or too large to remember.
    New,
}

#[derive(Debug, Default)]
struct Kept {
    hash: u64,
    body: Vec<u8>,
    shape: u64,
    candidates: Vec<Candidate>,
}

/// Recent small bodies, bounded: [`SEEN_SLOTS`] hashes and [`KEPT_SLOTS`] bodies.
#[derive(Debug, Default)]
pub(crate) struct BodyMemo {
    seen: Vec<u64>,
    kept: Vec<Kept>,
}

impl BodyMemo {
    /// Looks `bytes` up, noting its hash when it is new.
    pub(crate) fn sighting(&mut self, bytes: &[u8]) -> Sighting {
        if bytes.len() > MAX_BODY {
            return Sighting::New;
        }
        let hash = foldhash::fast::FixedState::default().hash_one(bytes);
        if let Some(kept) = self.kept.get(hash as usize % KEPT_SLOTS)
            && kept.hash == hash
            && kept.body == bytes
        {
            return Sighting::Kept(hash as usize % KEPT_SLOTS);
        }
        if self.seen.is_empty() {
            self.seen.resize(SEEN_SLOTS, 0);
        }
        let seen = &mut self.seen[hash as usize % SEEN_SLOTS];
        if *seen == hash {
            Sighting::Again(hash)
        } else {
            *seen = hash;
            Sighting::New
        }
    }

    /// Remembers a scanned body (`hash` from [`Sighting::Again`]).
    pub(crate) fn keep(&mut self, hash: u64, bytes: &[u8], shape: u64, candidates: Vec<Candidate>) {
        if self.kept.is_empty() {
            self.kept.resize_with(KEPT_SLOTS, Kept::default);
        }
        let kept = &mut self.kept[hash as usize % KEPT_SLOTS];
        kept.hash = hash;
        kept.body.clear();
        kept.body.extend_from_slice(bytes);
        kept.shape = shape;
        kept.candidates = candidates;
    }

    /// The shape of the body kept in `slot`, its candidates that `index`
    /// does not know added to `found` (as the scan's collection adds them).
    pub(crate) fn replay(
        &self,
        slot: usize,
        index: &mut ValueIndex,
        found: &mut FoundValues,
        max_values: usize,
    ) -> u64 {
        let kept = &self.kept[slot];
        for (text, path, parent, key) in &kept.candidates {
            if found.len() >= max_values {
                break;
            }
            let value = Hashed::new(text);
            if index.get(value).is_none() {
                let field = index.fields.get(
                    &super::fieldpath::FieldPath::Text(path),
                    parent.as_deref(),
                    key,
                );
                found.push(value, field);
            }
        }
        kept.shape
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.seen.capacity() * 8
            + self
                .kept
                .iter()
                .map(|k| {
                    k.body.capacity()
                        + 48
                        + k.candidates
                            .iter()
                            .map(|(t, p, parent, key)| {
                                t.len()
                                    + p.len()
                                    + parent.as_ref().map_or(0, String::len)
                                    + key.len()
                                    + 96
                            })
                            .sum::<usize>()
                })
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_kept_on_its_second_sighting() {
        let mut memo = BodyMemo::default();
        let body = br#"{"name":"widget"}"#;
        assert_eq!(memo.sighting(body), Sighting::New);
        let Sighting::Again(hash) = memo.sighting(body) else {
            panic!("the second sighting is known");
        };
        memo.keep(hash, body, 42, Vec::new());
        let Sighting::Kept(slot) = memo.sighting(body) else {
            panic!("kept after the second scan");
        };
        let mut index = ValueIndex::new(4);
        let mut found = FoundValues::default();
        assert_eq!(memo.replay(slot, &mut index, &mut found, 8), 42);
        assert_eq!(memo.sighting(br#"{"name":"widgets"}"#), Sighting::New);
        assert_eq!(memo.sighting(&[b' '; MAX_BODY + 1]), Sighting::New);
        assert_eq!(
            memo.sighting(&[b' '; MAX_BODY + 1]),
            Sighting::New,
            "too large to keep"
        );
    }
}
