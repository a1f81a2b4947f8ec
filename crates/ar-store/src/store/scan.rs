//! One pass over a JSON body without building a tree.
//!
//! Ingest needs two facts from a body: its shape fingerprint and the
//! identifier-like values it contains (for provenance). A `serde_json::Value`
//! would allocate every key and string; this visitor walks the document once,
//! hashing key paths into a small vector and reporting candidate values to a
//! callback (which allocates only for values it keeps).

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use ar_schema::Tape;

use crate::template::AnswerShape;

use super::analysis::Fnv;
use super::evidence::BodyTapes;
use super::fieldpath::FieldPath;
use super::fingerprint::Fingerprints;
use super::tapewalk::{Bail, WalkBuffers, walk_tape};

pub(crate) const SHAPE_DEPTH: usize = 3;
pub(crate) const SHAPE_ITEMS: usize = 4;
pub(crate) const SCAN_DEPTH: usize = 8;
pub(crate) const SCAN_ITEMS: usize = 64;
pub(crate) const MAX_PATHS: usize = 256;

/// A scalar field: `(value text, field path, parent key, key, is a number)`.
pub(crate) type OnValue<'a> = dyn FnMut(&str, &FieldPath<'_>, Option<&str>, &str, bool) + 'a;

struct State<'a, 'b> {
    path: String,
    hashes: Vec<u64>,
    on_value: Option<&'a mut OnValue<'b>>,
}

impl State<'_, '_> {
    fn leaf(&mut self, depth: usize, kind: &str) {
        if depth <= SHAPE_DEPTH && self.hashes.len() < MAX_PATHS {
            let mut h = Fnv::new();
            h.write(self.path.as_bytes());
            h.write(b":");
            h.write(kind.as_bytes());
            self.hashes.push(h.finish());
        }
    }
}

/// Buffers of the scans kept between bodies, so a scan of a small body allocates nothing.
#[derive(Debug, Default)]
pub(crate) struct ScanBuffers {
    /// The serde walk's key path.
    path: String,
    /// The tape walk's buffers; their leaf hashes serve the serde walk too.
    walk: WalkBuffers,
    fingerprints: Fingerprints,
}

impl ScanBuffers {
    /// The shape of a fingerprint these buffers computed, with its leaf
    /// sketch while they remember it.
    pub(crate) fn answer_shape(&self, fingerprint: u64) -> AnswerShape {
        self.fingerprints.shape(fingerprint)
    }
}

/// The bodies of the flow being ingested, each read once onto a tape that
/// the store walks and then hands to the evidence
/// ([`super::Observation::tapes`]). A tape holds its body only when the
/// store read it (see [`super::analysis::analyse_with`]); otherwise it is
/// cleared, so it never stands for another flow's body.
#[derive(Debug, Default)]
pub(crate) struct FlowTapes {
    pub(crate) request: Tape,
    pub(crate) response: Tape,
}

impl FlowTapes {
    /// The tapes that hold `flow`'s bodies, for [`super::Observation::tapes`].
    pub(crate) fn of(&self, flow: &crate::Flow) -> BodyTapes<'_> {
        let response = flow.response.as_ref().map(|r| r.body.bytes.len());
        BodyTapes {
            request: Some(&self.request).filter(|t| t.holds(flow.request.body.bytes.len())),
            response: Some(&self.response).filter(|t| response.is_some_and(|len| t.holds(len))),
        }
    }

    /// Forgets the bodies held, keeping the buffers.
    pub(crate) fn clear(&mut self) {
        self.request.clear();
        self.response.clear();
    }

    /// Lets go of what a large body made the tapes grow to (once the evidence has walked them).
    pub(crate) fn shrink(&mut self) {
        self.request.shrink();
        self.response.shrink();
    }
}

/// A key path longer than this is not kept between scans (memory stays bounded).
const KEEP_PATH_CAPACITY: usize = 4096;
/// Steps of a tape walk kept between scans (memory stays bounded).
const KEEP_STEPS: usize = 256;

#[cfg(test)]
pub(crate) fn scan(bytes: &[u8], on_value: Option<&mut OnValue<'_>>) -> Option<u64> {
    scan_serde(bytes, on_value, &mut ScanBuffers::default())
}

/// Reads `bytes` onto `tape` and walks it ([`super::tapewalk`]) with the
/// kept buffers: the shape fingerprint, or [`Bail`] when serde_json must
/// decide (the callback may have been called already: the caller rolls
/// back what it collected). The tape holds the body afterwards whenever it
/// is JSON, whether the walk gave up or not.
pub(crate) fn scan_tape_with<F: FnMut(&str, &FieldPath<'_>, Option<&str>, &str, bool)>(
    bytes: &[u8],
    tape: &mut Tape,
    on_value: &mut F,
    buffers: &mut ScanBuffers,
) -> Result<u64, Bail> {
    tape.read(bytes).map_err(|_| Bail)?;
    let result = walk_tape(bytes, tape, on_value, &mut buffers.walk);
    let walk = &mut buffers.walk;
    if walk.steps.capacity() > KEEP_STEPS {
        walk.steps = Vec::new();
    }
    result.map(|()| buffers.fingerprints.of(&mut walk.hashes))
}

/// Scans `bytes` with serde_json: the shape fingerprint, or `None` when it is not one JSON document.
pub(crate) fn scan_serde(
    bytes: &[u8],
    on_value: Option<&mut OnValue<'_>>,
    buffers: &mut ScanBuffers,
) -> Option<u64> {
    let mut state = State {
        path: std::mem::take(&mut buffers.path),
        hashes: std::mem::take(&mut buffers.walk.hashes),
        on_value,
    };
    state.path.clear();
    state.path.push('$');
    state.hashes.clear();
    let walked = walk(bytes, &mut state);
    if state.path.capacity() <= KEEP_PATH_CAPACITY {
        buffers.path = state.path;
    }
    buffers.walk.hashes = state.hashes;
    walked.map(|()| buffers.fingerprints.of(&mut buffers.walk.hashes))
}

/// Walks one document, leaving its leaf hashes in `state.hashes`; `None` when it is not JSON.
fn walk(bytes: &[u8], state: &mut State<'_, '_>) -> Option<()> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    Node {
        st: state,
        depth: 0,
        key: None,
        name: None,
        parent: None,
        shape: true,
    }
    .deserialize(&mut de)
    .ok()?;
    de.end().ok()
}

struct Node<'s, 'a, 'b, 'k> {
    st: &'s mut State<'a, 'b>,
    depth: usize,
    /// The key of this value when it is an object field (scalars are reported with it).
    key: Option<&'k str>,
    /// The nearest key above, inherited by array items (the parent of children).
    name: Option<&'k str>,
    /// The key of the object holding this field.
    parent: Option<&'k str>,
    shape: bool,
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl Node<'_, '_, '_, '_> {
    fn scalar(self, kind: &str, text: Option<&str>, number: bool) {
        if self.shape {
            self.st.leaf(self.depth, kind);
        }
        if let (Some(text), Some(key), Some(cb)) = (text, self.key, self.st.on_value.as_mut()) {
            cb(
                text,
                &FieldPath::Text(&self.st.path),
                self.parent,
                key,
                number,
            );
        }
    }
}

/// A map key, borrowed from the input when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(std::borrow::Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

impl<'de> Visitor<'de> for Node<'_, '_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        self.scalar("bool", None, false);
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        self.scalar("number", None, true);
        Ok(())
    }
    fn visit_u64<E>(self, v: u64) -> Result<(), E> {
        self.scalar("number", Some(itoa::Buffer::new().format(v)), true);
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        self.scalar("number", None, true);
        Ok(())
    }
    fn visit_str<E>(self, v: &str) -> Result<(), E> {
        self.scalar("string", Some(v), false);
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        self.scalar("null", None, false);
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        if self.shape {
            self.st.leaf(self.depth, "array");
        }
        if self.depth >= SCAN_DEPTH {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        let len = self.st.path.len();
        self.st.path.push_str("[]");
        let mut i = 0;
        loop {
            let more = if i < SCAN_ITEMS {
                let shape = self.shape && i < SHAPE_ITEMS && self.depth < SHAPE_DEPTH;
                let item = Node {
                    st: &mut *self.st,
                    depth: self.depth + 1,
                    key: None,
                    name: self.name,
                    parent: self.parent,
                    shape,
                };
                seq.next_element_seed(item)?.is_some()
            } else {
                seq.next_element::<IgnoredAny>()?.is_some()
            };
            if !more {
                break;
            }
            i += 1;
        }
        self.st.path.truncate(len);
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if self.shape {
            self.st.leaf(self.depth, "object");
        }
        if self.depth >= SCAN_DEPTH {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(());
        }
        let len = self.st.path.len();
        let mut fields = 0;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            self.st.path.push('.');
            self.st.path.push_str(&key);
            let shape = self.shape && self.depth < SHAPE_DEPTH && fields < 64;
            let field = Node {
                st: &mut *self.st,
                depth: self.depth + 1,
                key: Some(&key),
                name: Some(&key),
                parent: self.name,
                shape,
            };
            map.next_value_seed(field)?;
            self.st.path.truncate(len);
            fields += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_ignore_values_and_key_order() {
        let a = scan(br#"{"id": 1, "name": "x", "tags": ["a"]}"#, None).unwrap();
        let b = scan(br#"{"tags": ["b", "c"], "name": "y", "id": 2}"#, None).unwrap();
        let c = scan(br#"{"id": 1, "name": "x"}"#, None).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(scan(b"not json", None), None);
        assert_eq!(scan(b"{} trailing", None), None);
    }

    #[test]
    fn reports_scalars_with_path_parent_and_key() {
        let mut seen = Vec::new();
        let body = br#"{"orders":[{"id":17,"n":"a\"b"}],"user":{"login":"ann","age":-3}}"#;
        scan(
            body,
            Some(&mut |text: &str,
                       path: &FieldPath<'_>,
                       parent: Option<&str>,
                       key: &str,
                       _: bool| {
                seen.push(format!("{text} {path} {parent:?} {key}"));
            }),
        )
        .unwrap();
        assert_eq!(
            seen,
            [
                "17 $.orders[].id Some(\"orders\") id",
                "a\"b $.orders[].n Some(\"orders\") n",
                "ann $.user.login Some(\"user\") login"
            ]
        );
    }
}
