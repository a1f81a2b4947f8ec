//! The provenance index: identifier-like values seen in bodies, and where.
//!
//! Bounded, oldest dropped first. Every flow of an API brings a value or
//! two the index has not seen (a new order's id), so taking one and
//! dropping the oldest is on the per-flow path: the values live in a ring
//! of slots whose text buffers are reused, found through a hash table of
//! slot numbers, so a new value costs no allocation and one hash.

use std::hash::BuildHasher;
use std::sync::Arc;

use hashbrown::HashTable;

use super::EndpointId;
use super::analysis::{BodySide, FieldNames};

/// A value seen in a body, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SeenValue {
    pub(crate) source: EndpointId,
    pub(crate) side: BodySide,
    pub(crate) field_path: Arc<str>,
    pub(crate) name: Arc<str>,
    /// The parent key when the field is generic (`id`, `name`): the name then
    /// only fits a path whose collection matches it.
    pub(crate) generic_parent: Option<Arc<str>>,
    /// How many values the index took before this one (its insertion number).
    pub(crate) seq: u64,
}

/// A found value's field: `(field path, name, generic parent)`, shared between values.
pub(crate) type FieldName = (Arc<str>, Arc<str>, Option<Arc<str>>);

/// Values one body scan found that the index did not know, for
/// [`ValueIndex::insert`]. Their texts share one buffer; both are reused
/// from flow to flow, so a flow's new values cost no allocation.
#[derive(Debug, Default)]
pub(crate) struct FoundValues {
    texts: String,
    /// `(end of the text in texts, its hash, its field)`; a text starts
    /// where the previous one ends.
    items: Vec<(usize, u64, FieldName)>,
}

/// A text buffer longer than this is not kept between flows.
const KEEP_TEXTS: usize = 4096;

impl FoundValues {
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    pub(crate) fn push(&mut self, value: Hashed<'_>, field: FieldName) {
        self.texts.push_str(value.text);
        self.items.push((self.texts.len(), value.hash, field));
    }

    /// Drops the values found after the first `len`.
    pub(crate) fn truncate(&mut self, len: usize) {
        self.items.truncate(len);
        self.texts
            .truncate(self.items.last().map_or(0, |(end, _, _)| *end));
    }

    /// The values with their fields, in order (tests).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> Vec<(String, FieldName)> {
        let mut start = 0;
        self.items
            .iter()
            .map(|(end, _, field)| {
                let text = self.texts[start..*end].to_string();
                start = *end;
                (text, field.clone())
            })
            .collect()
    }

    fn clear(&mut self) {
        self.items.clear();
        self.texts.clear();
        if self.texts.capacity() > KEEP_TEXTS {
            self.texts = String::new();
        }
    }
}

/// One value of the ring.
#[derive(Debug)]
struct Slot {
    text: String,
    hash: u64,
    seen: SeenValue,
}

/// Bounded map from identifier-like values to where they were first seen.
#[derive(Debug, Default)]
pub(crate) struct ValueIndex {
    /// Slot numbers, by the hash of their text.
    table: HashTable<u32>,
    /// The values; value number `n` sits in slot `n % capacity`, so once
    /// the ring is full the next slot to write holds the oldest value.
    slots: Vec<Slot>,
    capacity: usize,
    /// Field paths and names of recent fields, shared by their values.
    pub(super) fields: FieldNames,
    /// Values ever taken (the next value's insertion number).
    inserted: u64,
    /// Values recently found here, by the field they were found at.
    pub(super) known: KnownValues,
}

/// A value's text with its hash in the index, computed once for both
/// the lookup and the insertion of a new value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hashed<'t> {
    text: &'t str,
    hash: u64,
}

impl<'t> Hashed<'t> {
    pub(crate) fn new(text: &'t str) -> Self {
        Self {
            text,
            hash: foldhash::fast::FixedState::default().hash_one(text),
        }
    }
}

impl ValueIndex {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.min(u32::MAX as usize),
            ..Self::default()
        }
    }

    /// Whether the index takes values at all.
    pub(crate) fn is_off(&self) -> bool {
        self.capacity == 0
    }

    /// Whether the value inserted as number `seq` is still held: the ring
    /// holds the last `slots.len()` values inserted.
    pub(crate) fn holds(&self, seq: u64) -> bool {
        seq + self.slots.len() as u64 >= self.inserted
    }

    pub(crate) fn get(&self, value: Hashed<'_>) -> Option<&SeenValue> {
        let slots = &self.slots;
        self.table
            .find(value.hash, |&i| slots[i as usize].text == value.text)
            .map(|&i| &slots[i as usize].seen)
    }

    /// Remembers values found in a body of `source` (first sighting wins).
    /// Takes the values out of `found`, leaving it empty (its buffers are reused).
    pub(crate) fn insert(&mut self, found: &mut FoundValues, source: EndpointId, side: BodySide) {
        if found.items.is_empty() {
            return; // most bodies bring nothing new
        }
        let mut start = 0;
        for (end, hash, (field_path, name, generic_parent)) in found.items.drain(..) {
            let text = &found.texts[start..end];
            start = end;
            if self.capacity == 0 {
                continue;
            }
            let slots = &mut self.slots;
            if self
                .table
                .find(hash, |&i| slots[i as usize].text == text)
                .is_some()
            {
                continue;
            }
            let seen = SeenValue {
                source,
                side,
                field_path,
                name,
                generic_parent,
                seq: self.inserted,
            };
            let at = (self.inserted % self.capacity as u64) as usize;
            self.inserted += 1;
            if at == slots.len() {
                slots.push(Slot {
                    text: text.to_string(),
                    hash,
                    seen,
                });
            } else {
                // The oldest value leaves (the new one is never it: it is youngest).
                let old = &mut slots[at];
                if let Ok(entry) = self.table.find_entry(old.hash, |&i| i as usize == at) {
                    entry.remove();
                }
                old.text.clear();
                old.text.push_str(text);
                old.hash = hash;
                old.seen = seen;
            }
            let slots = &self.slots;
            self.table
                .insert_unique(hash, at as u32, |&i| slots[i as usize].hash);
        }
        found.clear();
    }

    /// Points entries of a merged-away endpoint at the survivor.
    pub(crate) fn redirect(&mut self, from: EndpointId, into: EndpointId) {
        for slot in &mut self.slots {
            if slot.seen.source == from {
                slot.seen.source = into;
            }
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.slots
            .iter()
            .map(|s| s.text.len() + s.seen.field_path.len() + s.seen.name.len() + 128)
            .sum::<usize>()
            + self.known.heap_bytes()
    }

    /// How many values are held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }
}

/// Values recently found in the index, one per field (by path hash):
/// bodies of an API repeat the same values in the same fields flow after
/// flow (`"login":"ann"`), and a slot tells such a value is still indexed
/// without hashing it. The index drops values oldest first and no other
/// way, so a value whose insertion number is among the last `slots.len()`
/// is still there: a slot is checked against the value's text and that
/// number, never trusted blindly.
#[derive(Debug, Default)]
pub(crate) struct KnownValues {
    /// `(path hash, value, insertion number)`, direct-mapped by path hash.
    pub(super) slots: Vec<(u64, String, u64)>,
}

const KNOWN_SLOTS: usize = 64;

impl KnownValues {
    /// The insertion number remembered for `text` at the field hashed `hash`.
    pub(crate) fn get(&self, hash: u64, text: &str) -> Option<u64> {
        let (h, value, seq) = self.slots.get(hash as usize % KNOWN_SLOTS)?;
        (*h == hash && value == text).then_some(*seq)
    }

    pub(crate) fn set(&mut self, hash: u64, text: &str, seq: u64) {
        if self.slots.is_empty() {
            self.slots.resize(KNOWN_SLOTS, (0, String::new(), 0));
        }
        let (h, value, s) = &mut self.slots[hash as usize % KNOWN_SLOTS];
        *h = hash;
        value.clear();
        value.push_str(text);
        *s = seq;
    }

    fn heap_bytes(&self) -> usize {
        self.slots.iter().map(|(_, v, _)| v.capacity() + 40).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(path: &str) -> FieldName {
        (path.into(), "id".into(), None)
    }

    /// The ring drops values oldest first, however many pass through,
    /// and what it holds is found (the table and the slots agree).
    #[test]
    fn ring_keeps_the_newest_values_and_finds_them() {
        let mut index = ValueIndex::new(3);
        let mut found = FoundValues::default();
        for round in 0..5u32 {
            for i in 0..4u32 {
                found.push(Hashed::new(&format!("v{}", round * 4 + i)), field("$.id"));
            }
            found.push(Hashed::new("v0"), field("$.again")); // first sighting wins while held
            index.insert(&mut found, EndpointId(round), BodySide::Response);
            assert_eq!(found.len(), 0);
        }
        assert_eq!(index.len(), 3);
        // 20 distinct values, then "v0" again (dropped by then, so taken anew).
        assert_eq!(
            index.get(Hashed::new("v0")).map(|s| &*s.field_path),
            Some("$.again")
        );
        assert!(index.get(Hashed::new("v19")).is_some() && index.get(Hashed::new("v18")).is_some());
        assert!((0..18).all(|n| index.get(Hashed::new(&format!("v{n}"))).is_none() || n == 0));
        let seqs: Vec<u64> = ["v18", "v19", "v0"]
            .iter()
            .map(|v| index.get(Hashed::new(v)).unwrap().seq)
            .collect();
        assert!(seqs.iter().all(|s| index.holds(*s)));
        assert!(!index.holds(seqs[0] - 1));
    }

    #[test]
    fn found_values_truncate_with_their_texts() {
        let mut found = FoundValues::default();
        found.push(Hashed::new("abc"), field("$.a"));
        found.push(Hashed::new("de"), field("$.b"));
        found.truncate(1);
        found.push(Hashed::new("xyz"), field("$.c"));
        let mut index = ValueIndex::new(8);
        index.insert(&mut found, EndpointId(1), BodySide::Request);
        assert!(index.get(Hashed::new("abc")).is_some() && index.get(Hashed::new("xyz")).is_some());
        assert!(
            index.get(Hashed::new("de")).is_none() && index.get(Hashed::new("dexyz")).is_none()
        );
    }
}
