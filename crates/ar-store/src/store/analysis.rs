//! Body analysis for the store: shape fingerprints and the provenance index.
//!
//! A *shape fingerprint* hashes the set of key paths of a JSON body (to a
//! bounded depth), so two bodies with the same structure and different
//! values hash alike. The *provenance index* remembers identifier-like values
//! seen in JSON bodies (`$.orders[].id = 17`) so that a later path segment
//! with that value becomes a parameter named after the field.

use std::collections::VecDeque;
use std::collections::hash_map::Entry;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::fieldpath::FieldPath;
use super::scan::{ScanBuffers, scan_fast_with, scan_serde};
use super::{EndpointId, HashMap};
use crate::Body;
use crate::template::{classify_segment, is_generic_field, is_version_like, name_from_field};

/// Which body of a flow a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodySide {
    /// The request body.
    Request,
    /// The response body.
    Response,
}

/// Whether a body should be scanned as JSON: it claims (or looks) to be
/// JSON and is not larger than `max_bytes`.
pub(crate) fn looks_json(body: &Body, max_bytes: usize) -> bool {
    if body.bytes.is_empty() || body.bytes.len() > max_bytes {
        return false;
    }
    let claims = body.content_type.as_deref().is_some_and(|ct| {
        let media = super::media_type(ct);
        media.len() >= 4 && media[media.len() - 4..].eq_ignore_ascii_case("json")
    });
    claims
        || matches!(
            body.bytes.iter().find(|b| !b.is_ascii_whitespace()),
            Some(b'{' | b'[')
        )
}

/// FNV-1a, stable across Rust versions (fingerprints appear in outputs).
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// `analyse_with` with fresh buffers (tests).
#[cfg(test)]
pub(crate) fn analyse(
    body: &Body,
    max_bytes: usize,
    index: &mut ValueIndex,
    found: &mut Vec<Found>,
) -> Option<u64> {
    analyse_with(body, max_bytes, index, found, &mut ScanBuffers::default())
}

/// Scans one body: its shape fingerprint (when it is JSON) and the
/// identifier-like values in it that `index` does not know yet. `buffers`
/// are reused between bodies so a small body costs no allocation.
pub(crate) fn analyse_with(
    body: &Body,
    max_bytes: usize,
    index: &mut ValueIndex,
    found: &mut Vec<Found>,
    buffers: &mut ScanBuffers,
) -> Option<u64> {
    if !looks_json(body, max_bytes) {
        return None;
    }
    if index.capacity == 0 {
        return scan_fast_with(&body.bytes, &mut |_, _, _, _, _| {}, buffers)
            .ok()
            .or_else(|| scan_serde(&body.bytes, None, buffers));
    }
    // The fast path first; when it gives up, what it collected is dropped
    // and serde_json's walk decides (values before a syntax error count).
    let before = found.len();
    let fast = scan_fast_with(
        &body.bytes,
        &mut |text: &str, path: &FieldPath<'_>, parent: Option<&str>, key: &str, number: bool| {
            collect(index, found, text, path, parent, key, number)
        },
        buffers,
    );
    if let Ok(shape) = fast {
        return Some(shape);
    }
    found.truncate(before);
    scan_serde(
        &body.bytes,
        Some(&mut |text: &str,
                   path: &FieldPath<'_>,
                   parent: Option<&str>,
                   key: &str,
                   number: bool| {
            collect(index, found, text, path, parent, key, number)
        }),
        buffers,
    )
}

/// Keeps one scalar of a body when it looks like an identifier the index does not know.
fn collect(
    index: &mut ValueIndex,
    found: &mut Vec<Found>,
    text: &str,
    path: &FieldPath<'_>,
    parent: Option<&str>,
    key: &str,
    number: bool,
) {
    // A value remembered at this field and still indexed is skipped, as
    // the lookup below would skip it, before any test: the usual case for
    // the values a body repeats. Then the key tests, cheaper than the lookup.
    let hash = path.hash();
    if hash != 0
        && index
            .known
            .get(hash, text)
            .is_some_and(|seq| index.holds(seq))
    {
        return;
    }
    if found.len() < MAX_VALUES_PER_BODY
        && (if number {
            is_id_key(key)
        } else {
            is_identifier_value(key, text)
        })
    {
        match index.map.get(text) {
            Some(seen) => {
                if hash != 0 {
                    let seq = seen.seq;
                    index.known.set(hash, text, seq);
                }
            }
            None => {
                let (field_path, name, generic_parent) = index.fields.get(path, parent, key);
                found.push(Found {
                    text: text.into(),
                    field_path,
                    name,
                    generic_parent,
                });
            }
        }
    }
}

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

/// Bounded map from identifier-like values to where they were first seen.
#[derive(Debug, Default)]
pub(crate) struct ValueIndex {
    /// Values share their text with `order` (one allocation per value).
    map: HashMap<Arc<str>, SeenValue>,
    order: VecDeque<Arc<str>>,
    capacity: usize,
    /// Field paths and names of recent fields, shared by their values.
    fields: FieldNames,
    /// Values ever taken (the next value's insertion number).
    inserted: u64,
    /// Values recently found here, by the field they were found at.
    known: KnownValues,
}

/// Values recently found in the index, one per field (by path hash):
/// bodies of an API repeat the same values in the same fields flow after
/// flow (`"login":"ann"`), and a slot tells such a value is still indexed
/// without hashing it. The index drops values oldest first and no other
/// way, so a value whose insertion number is among the last `map.len()`
/// is still there: a slot is checked against the value's text and that
/// number, never trusted blindly.
#[derive(Debug, Default)]
struct KnownValues {
    /// `(path hash, value, insertion number)`, direct-mapped by path hash.
    slots: Vec<(u64, String, u64)>,
}

const KNOWN_SLOTS: usize = 64;

impl KnownValues {
    /// The insertion number remembered for `text` at the field hashed `hash`.
    fn get(&self, hash: u64, text: &str) -> Option<u64> {
        let (h, value, seq) = self.slots.get(hash as usize % KNOWN_SLOTS)?;
        (*h == hash && value == text).then_some(*seq)
    }

    fn set(&mut self, hash: u64, text: &str, seq: u64) {
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

/// The last few fields values were found at, with their derived names:
/// the same fields (`$.id`, `$.orders[].id`) recur in every body of an API,
/// so their path and name are computed and allocated once, then shared.
#[derive(Debug, Default)]
struct FieldNames {
    recent: VecDeque<FieldEntry>,
    /// The path being looked up, written out (reused between lookups).
    path: String,
}

type FieldEntry = (Arc<str>, Option<Box<str>>, Box<str>, FieldName);
type FieldName = (Arc<str>, Arc<str>, Option<Arc<str>>);

const RECENT_FIELDS: usize = 8;

impl FieldNames {
    /// `(field path, name, generic parent)` of the field `key` under `parent` at `path`.
    fn get(&mut self, path: &FieldPath<'_>, parent: Option<&str>, key: &str) -> FieldName {
        if self.path.capacity() > 4096 {
            self.path = String::new(); // a long path is not kept between lookups
        }
        self.path.clear();
        path.write_to(&mut self.path);
        let path = self.path.as_str();
        if let Some((_, _, _, names)) = self
            .recent
            .iter()
            .find(|(p, par, k, _)| **p == *path && **k == *key && par.as_deref() == parent)
        {
            return names.clone();
        }
        let field_path: Arc<str> = path.into();
        let names = (
            field_path.clone(),
            Arc::from(name_from_field(parent, key)),
            is_generic_field(key).then(|| Arc::from(parent.unwrap_or(""))),
        );
        if self.recent.len() >= RECENT_FIELDS {
            self.recent.pop_back();
        }
        self.recent
            .push_front((field_path, parent.map(Box::from), key.into(), names.clone()));
        names
    }
}

const MAX_VALUES_PER_BODY: usize = 256;

impl ValueIndex {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            map: HashMap::default(),
            order: VecDeque::new(),
            capacity,
            fields: FieldNames::default(),
            inserted: 0,
            known: KnownValues::default(),
        }
    }

    /// Whether the value inserted as number `seq` is still held: the map
    /// holds the last `map.len()` values inserted.
    fn holds(&self, seq: u64) -> bool {
        seq + self.map.len() as u64 >= self.inserted
    }

    pub(crate) fn get(&self, value: &str) -> Option<&SeenValue> {
        self.map.get(value)
    }

    /// Remembers values found in a body of `source` (first sighting wins).
    /// Takes the values out of `found`, leaving it empty (its allocation is reused).
    pub(crate) fn insert(&mut self, found: &mut Vec<Found>, source: EndpointId, side: BodySide) {
        for Found {
            text,
            field_path,
            name,
            generic_parent,
        } in found.drain(..)
        {
            if self.capacity == 0 {
                continue;
            }
            // One hash per value: insert when new, then drop the oldest
            // when over capacity (never the new one, it is the youngest).
            let Entry::Vacant(slot) = self.map.entry(text) else {
                continue;
            };
            self.order.push_back(Arc::clone(slot.key()));
            slot.insert(SeenValue {
                source,
                side,
                field_path,
                name,
                generic_parent,
                seq: self.inserted,
            });
            self.inserted += 1;
            if self.map.len() > self.capacity
                && let Some(old) = self.order.pop_front()
            {
                self.map.remove(&old);
            }
        }
    }

    /// Points entries of a merged-away endpoint at the survivor.
    pub(crate) fn redirect(&mut self, from: EndpointId, into: EndpointId) {
        for seen in self.map.values_mut() {
            if seen.source == from {
                seen.source = into;
            }
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.map
            .iter()
            .map(|(k, v)| k.len() + v.field_path.len() + v.name.len() + 128)
            .sum::<usize>()
            + self.known.heap_bytes()
    }
}

#[derive(Debug)]
pub(crate) struct Found {
    text: Arc<str>,
    field_path: Arc<str>,
    name: Arc<str>,
    generic_parent: Option<Arc<str>>,
}

fn is_id_key(key: &str) -> bool {
    // Case-insensitive tests on bytes: no lowercased copy per JSON field.
    let k = key.as_bytes();
    let ends_with_ci = |suffix: &[u8]| {
        k.len() >= suffix.len() && k[k.len() - suffix.len()..].eq_ignore_ascii_case(suffix)
    };
    k.eq_ignore_ascii_case(b"id")
        || k.eq_ignore_ascii_case(b"_id")
        || k.eq_ignore_ascii_case(b"uuid")
        || ends_with_ci(b"_id")
        || key.ends_with("Id")
        || key.ends_with("ID")
}

fn is_identifier_value(key: &str, value: &str) -> bool {
    if value.len() < 2
        || value.len() > 128
        || value
            .bytes()
            .any(|b| matches!(b, b'/' | b' ' | b'?' | b'#'))
        || is_version_like(value)
    {
        return false;
    }
    is_id_key(key)
        || [
            "slug", "login", "handle", "username", "sku", "key", "code", "name", "number",
        ]
        .iter()
        .any(|name| key.eq_ignore_ascii_case(name))
        || classify_segment(value).is_some_and(|kind| kind.is_id_like())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn harvest(index: &mut ValueIndex, json: &str) {
        let mut found = Vec::new();
        let body = Body::from_decoded(Some("application/json".into()), json.as_bytes().to_vec());
        analyse(&body, 1 << 20, index, &mut found).unwrap();
        index.insert(&mut found, EndpointId(1), BodySide::Response);
    }

    #[test]
    fn harvests_ids_with_field_names() {
        let mut index = ValueIndex::new(16);
        harvest(
            &mut index,
            r#"{"orders": [{"id": 17, "total": 3}, {"id": "ord_8Hq2LmZ"}], "user": {"login": "octocat", "bio": "hi there"}, "page": 2}"#,
        );
        let seen = index.get("17").unwrap();
        assert_eq!(
            (&*seen.field_path, &*seen.name),
            ("$.orders[].id", "orderId")
        );
        assert_eq!(&*index.get("ord_8Hq2LmZ").unwrap().name, "orderId");
        assert_eq!(&*index.get("octocat").unwrap().name, "login");
        assert!(
            index.get("2").is_none() && index.get("hi there").is_none() && index.get("3").is_none()
        );
    }

    #[test]
    fn index_is_bounded() {
        let mut index = ValueIndex::new(2);
        for i in 0..10 {
            harvest(&mut index, &format!("{{\"id\": {i}}}"));
        }
        assert_eq!(index.map.len(), 2);
        assert!(index.get("9").is_some() && index.get("0").is_none());
    }

    /// A value remembered as known is looked up again once the index has
    /// dropped it, and taken anew (the memo never outlives the index).
    #[test]
    fn values_dropped_from_the_index_are_taken_again() {
        let mut index = ValueIndex::new(2);
        harvest(&mut index, r#"{"login": "ann"}"#);
        harvest(&mut index, r#"{"login": "ann"}"#);
        assert!(
            index.known.slots.iter().any(|(_, v, _)| v == "ann"),
            "the second sighting remembers it as known"
        );
        harvest(&mut index, r#"{"id": 1}"#);
        harvest(&mut index, r#"{"id": 2}"#);
        assert!(index.get("ann").is_none(), "dropped, oldest first");
        harvest(&mut index, r#"{"login": "ann"}"#);
        assert!(index.get("ann").is_some(), "found again and kept");
        assert!(index.get("1").is_none() && index.get("2").is_some());
    }

    #[test]
    fn only_json_bodies_are_scanned() {
        let text = Body::from_decoded(Some("text/plain".into()), b"hello".to_vec());
        let json = Body::from_decoded(Some("application/problem+json".into()), b"  {}".to_vec());
        let sniffed = Body::from_decoded(None, b"[1]".to_vec());
        assert!(!looks_json(&text, 100) && looks_json(&json, 100) && looks_json(&sniffed, 100));
        assert!(!looks_json(&sniffed, 2), "too large");
    }
}
