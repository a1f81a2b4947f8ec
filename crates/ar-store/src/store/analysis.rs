//! Body analysis for the store: shape fingerprints and the provenance index.
//!
//! A *shape fingerprint* hashes the set of key paths of a JSON body (to a
//! bounded depth), so two bodies with the same structure and different
//! values hash alike. The *provenance index* remembers identifier-like values
//! seen in JSON bodies (`$.orders[].id = 17`) so that a later path segment
//! with that value becomes a parameter named after the field.

use std::sync::Arc;

use super::bodymemo::{BodyMemo, Candidate, Sighting};
use super::fieldpath::FieldPath;
use super::scan::{ScanBuffers, scan_serde, scan_tape_with};
use super::valueindex::{FieldName, FoundValues, Hashed, ValueIndex};
use crate::Body;
use crate::template::{
    classify_segment, is_generic_field, is_id_field, is_identifier_field, is_version_like,
    name_from_field,
};
use ar_schema::Tape;

pub use ar_flow::BodySide;

/// Whether a media type (parameters dropped) claims JSON: `application/json`,
/// `application/problem+json`, `application/vnd.api+json`, ...
pub(crate) fn claims_json(media: &str) -> bool {
    let b = media.as_bytes();
    b.len() >= 4 && b[b.len() - 4..].eq_ignore_ascii_case(b"json")
}

/// Whether a body should be scanned as JSON: it claims (by `media`, its
/// media type as sent) or looks to be JSON and is not larger than `max_bytes`.
pub(crate) fn looks_json(body: &Body, media: Option<&str>, max_bytes: usize) -> bool {
    if body.bytes.is_empty() || body.bytes.len() > max_bytes {
        return false;
    }
    media.is_some_and(claims_json)
        || matches!(
            body.bytes.iter().find(|b| !b.is_ascii_whitespace()),
            Some(b'{' | b'[')
        )
}

/// FNV-1a, stable across Rust versions (fingerprints appear in outputs).
pub(crate) struct Fnv(u64);

/// FNV-1a's starting state.
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `bytes` continued from the state `h`: the hash is a left fold
/// over bytes, so a path's hash continues from its parent's (the tape walk).
#[inline]
pub(crate) fn fnv_fold(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Fnv {
    pub(crate) fn new() -> Self {
        Self(FNV_OFFSET)
    }
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        self.0 = fnv_fold(self.0, bytes);
    }
    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// `analyse_with` with fresh buffers and memo (tests).
#[cfg(test)]
pub(crate) fn analyse(
    body: &Body,
    max_bytes: usize,
    index: &mut ValueIndex,
    found: &mut FoundValues,
) -> Option<u64> {
    let mut memo = BodyMemo::default();
    analyse_with(
        body,
        body.media_type_as_sent(),
        max_bytes,
        (index, found),
        &mut Tape::new(),
        &mut ScanBuffers::default(),
        &mut memo,
    )
}

/// Scans one body: its shape fingerprint (when it is JSON) and the
/// identifier-like values in it that `index` does not know yet (into
/// `found`). The body is read onto `tape`, which holds it afterwards for
/// the evidence to walk, or is cleared when the body was not read (not
/// JSON, too large, or answered by `memo`). `buffers` are reused between
/// bodies so a small body costs no allocation; `memo` answers for a small
/// body seen again (see [`super::bodymemo`]). `media` is the body's media
/// type as sent ([`Body::media_type_as_sent`]), which the caller has at hand.
pub(crate) fn analyse_with(
    body: &Body,
    media: Option<&str>,
    max_bytes: usize,
    (index, found): (&mut ValueIndex, &mut FoundValues),
    tape: &mut Tape,
    buffers: &mut ScanBuffers,
    memo: &mut BodyMemo,
) -> Option<u64> {
    tape.clear();
    if !looks_json(body, media, max_bytes) {
        return None;
    }
    if index.is_off() {
        return scan_tape_with(&body.bytes, tape, &mut |_, _, _, _, _| {}, buffers)
            .ok()
            .or_else(|| scan_serde(&body.bytes, None, buffers));
    }
    let sighting = memo.sighting(&body.bytes);
    if let Sighting::Kept(slot) = sighting {
        return Some(memo.replay(slot, index, found, MAX_VALUES_PER_BODY));
    }
    // The tape walk first; when it gives up, what it collected is dropped
    // and serde_json's walk decides (values before a syntax error count).
    let before = found.len();
    let mut candidates = matches!(sighting, Sighting::Again(_)).then(Vec::new);
    let walked = scan_tape_with(
        &body.bytes,
        tape,
        &mut |text: &str, path: &FieldPath<'_>, parent: Option<&str>, key: &str, number: bool| {
            let field = (path, parent, key);
            collect(index, found, text, field, number, candidates.as_mut());
        },
        buffers,
    );
    if let Ok(shape) = walked {
        if let (Sighting::Again(hash), Some(candidates)) = (sighting, candidates) {
            memo.keep(hash, &body.bytes, shape, candidates);
        }
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
            collect(index, found, text, (path, parent, key), number, None);
        }),
        buffers,
    )
}

/// Keeps one scalar of a body when it looks like an identifier the index
/// does not know; `field` is `(path, parent key, key)`. With `candidates`,
/// also writes down every scalar that passes the key tests (known or not),
/// for [`BodyMemo::keep`].
// Inlined into the scan's walk: most scalars leave at the first tests,
// and the call cost more than those (−90 instructions per small flow).
#[inline]
fn collect(
    index: &mut ValueIndex,
    found: &mut FoundValues,
    text: &str,
    (path, parent, key): (&FieldPath<'_>, Option<&str>, &str),
    number: bool,
    candidates: Option<&mut Vec<Candidate>>,
) {
    // A value remembered at this field and still indexed is skipped, as
    // the lookup below would skip it, before any test: the usual case for
    // the values a body repeats. Then the key tests, cheaper than the lookup.
    let hash = path.hash();
    let known = hash != 0
        && index
            .known
            .get(hash, text)
            .is_some_and(|seq| index.holds(seq));
    if known && candidates.is_none() {
        return;
    }
    let candidate = if number {
        is_id_field(key)
    } else {
        is_identifier_value(key, text)
    };
    if !candidate {
        return;
    }
    if let Some(candidates) = candidates {
        candidates.push((
            text.to_string(),
            path.to_string(),
            parent.map(str::to_string),
            key.to_string(),
        ));
    }
    if known || found.len() >= MAX_VALUES_PER_BODY {
        return;
    }
    let value = Hashed::new(text);
    match index.get(value) {
        Some(seen) => {
            if hash != 0 {
                let seq = seen.seq;
                index.known.set(hash, text, seq);
            }
        }
        None => found.push(value, index.fields.get(path, parent, key)),
    }
}

/// The last few fields values were found at, with their derived names:
/// the same fields (`$.id`, `$.orders[].id`) recur in every body of an API,
/// so their path and name are computed and allocated once, then shared.
#[derive(Debug, Default)]
pub(super) struct FieldNames {
    /// Most recently useful first; a few entries, so a vector.
    recent: Vec<FieldEntry>,
    /// The path being looked up, written out (reused between lookups).
    path: String,
}

/// `(path hash, parent key, key, names)`; the path itself is `names.0`.
type FieldEntry = (u64, Option<Box<str>>, Box<str>, FieldName);

const RECENT_FIELDS: usize = 8;

impl FieldNames {
    /// `(field path, name, generic parent)` of the field `key` under `parent` at `path`.
    pub(super) fn get(
        &mut self,
        path: &FieldPath<'_>,
        parent: Option<&str>,
        key: &str,
    ) -> FieldName {
        // The path's hash tells recent fields apart; the path is compared
        // only with the one whose hash, key and parent match, without
        // writing it out.
        let hash = path.hash();
        if let Some(at) = self.recent.iter().position(|(h, par, k, names)| {
            *h == hash && **k == *key && par.as_deref() == parent && path.is(&names.0)
        }) {
            // A hit moves to the front (swapped there): the field that
            // brings new values on every flow (an id) is then found first.
            self.recent.swap(0, at);
            return self.recent[0].3.clone();
        }
        if self.path.capacity() > 4096 {
            self.path = String::new(); // a long path is not kept between lookups
        }
        self.path.clear();
        path.write_to(&mut self.path);
        let names = (
            Arc::from(self.path.as_str()),
            Arc::from(name_from_field(parent, key)),
            is_generic_field(key).then(|| Arc::from(parent.unwrap_or(""))),
        );
        if self.recent.len() >= RECENT_FIELDS {
            self.recent.pop();
        }
        self.recent
            .insert(0, (hash, parent.map(Box::from), key.into(), names.clone()));
        names
    }
}

const MAX_VALUES_PER_BODY: usize = 256;

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
    is_identifier_field(key)
        || ["key", "code", "name", "number"]
            .iter()
            .any(|name| key.eq_ignore_ascii_case(name))
        || classify_segment(value).is_some_and(|kind| kind.is_id_like())
}

#[cfg(test)]
mod tests {
    use super::super::EndpointId;
    use super::*;

    fn harvest(index: &mut ValueIndex, json: &str) {
        let mut found = FoundValues::default();
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
        let seen = index.get(Hashed::new("17")).unwrap();
        assert_eq!(
            (&*seen.field_path, &*seen.name),
            ("$.orders[].id", "orderId")
        );
        assert_eq!(
            &*index.get(Hashed::new("ord_8Hq2LmZ")).unwrap().name,
            "orderId"
        );
        assert_eq!(&*index.get(Hashed::new("octocat")).unwrap().name, "login");
        assert!(
            index.get(Hashed::new("2")).is_none()
                && index.get(Hashed::new("hi there")).is_none()
                && index.get(Hashed::new("3")).is_none()
        );
    }

    #[test]
    fn index_is_bounded() {
        let mut index = ValueIndex::new(2);
        for i in 0..10 {
            harvest(&mut index, &format!("{{\"id\": {i}}}"));
        }
        assert_eq!(index.len(), 2);
        assert!(index.get(Hashed::new("9")).is_some() && index.get(Hashed::new("0")).is_none());
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
        assert!(
            index.get(Hashed::new("ann")).is_none(),
            "dropped, oldest first"
        );
        harvest(&mut index, r#"{"login": "ann"}"#);
        assert!(
            index.get(Hashed::new("ann")).is_some(),
            "found again and kept"
        );
        assert!(index.get(Hashed::new("1")).is_none() && index.get(Hashed::new("2")).is_some());
    }

    use proptest::prelude::*;

    proptest! {
        /// A body seen again is answered from the memo as a scan answers
        /// it: the same shape, the same new values in the same order,
        /// whatever the index dropped in between (a small index drops a lot).
        #[test]
        fn remembered_bodies_answer_as_a_scan(
            picks in prop::collection::vec(0usize..6, 1..40),
            capacity in 1usize..6,
        ) {
            let pool = [
                r#"{"id":17,"login":"ann","tags":["a"],"owner":{"id":7,"login":"bob"}}"#,
                r#"{"name":"widget","qty":2}"#,
                r#"{"orders":[{"id":"ord_8Hq2LmZ"},{"id":"ord_9ZzQ"}],"userId":17}"#,
                r#"{"id":1,"again":{"id":1},"k\u0041":"x"}"#,
                "[3, {\"sku\": \"A-1\"}]",
                r#"{"id": 5, "broken": }"#,
            ];
            let (mut memoised, mut fresh) = (ValueIndex::new(capacity), ValueIndex::new(capacity));
            let (mut memo, mut buffers) = (BodyMemo::default(), ScanBuffers::default());
            for (n, pick) in picks.into_iter().enumerate() {
                let body = Body::from_decoded(
                    Some("application/json".into()),
                    pool[pick].as_bytes().to_vec(),
                );
                let (mut a, mut b) = (FoundValues::default(), FoundValues::default());
                let media = body.media_type_as_sent();
                let shape = analyse_with(&body, media, 1 << 20, (&mut memoised, &mut a), &mut Tape::new(), &mut buffers, &mut memo);
                prop_assert_eq!(shape, analyse(&body, 1 << 20, &mut fresh, &mut b));
                prop_assert_eq!(a.entries(), b.entries());
                let source = EndpointId(n as u32);
                memoised.insert(&mut a, source, BodySide::Response);
                fresh.insert(&mut b, source, BodySide::Response);
            }
        }
    }

    #[test]
    fn only_json_bodies_are_scanned() {
        let text = Body::from_decoded(Some("text/plain".into()), b"hello".to_vec());
        let json = Body::from_decoded(Some("application/problem+json".into()), b"  {}".to_vec());
        let sniffed = Body::from_decoded(None, b"[1]".to_vec());
        let looks = |body: &Body, max| looks_json(body, body.media_type_as_sent(), max);
        assert!(!looks(&text, 100) && looks(&json, 100) && looks(&sniffed, 100));
        assert!(!looks(&sniffed, 2), "too large");
    }
}
