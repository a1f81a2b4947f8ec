//! Response shapes as the templating compares them: alike, not only equal.
//!
//! Values of one parameter answer with documents of one kind, but rarely
//! with the very same fields: an API leaves out what is empty or unset
//! (`omitempty`, `exclude_none`), and a list may be empty. So two answers
//! are alike when they are equal, or when two thirds of the leaves of the
//! smaller (each `field path: JSON type`) are leaves of the larger too. Two
//! different resources that share an envelope or an `id` and a `name`
//! still differ in most of their fields.

/// Leaves two answers must share, at least, to be alike without being equal.
const MIN_SHARED: u32 = 2;
/// Above this many leaf bits a sketch says too little (bits collide): such
/// answers are alike only when equal.
const MAX_SKETCH_BITS: u32 = 96;

/// One response's shape: its fingerprint (equal fingerprints, equal shapes)
/// and a sketch of its leaves, one bit of 128 per leaf (`0`: not known,
/// compared by fingerprint alone).
///
/// ```
/// use ar_store::template::AnswerShape;
/// let user = AnswerShape::exact(7);
/// assert!(user.alike(&AnswerShape::exact(7)));
/// assert!(!user.alike(&AnswerShape::exact(8)));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AnswerShape {
    fingerprint: u64,
    leaves: u128,
}

impl AnswerShape {
    /// A shape known by its fingerprint only.
    pub fn exact(fingerprint: u64) -> Self {
        Self {
            fingerprint,
            leaves: 0,
        }
    }

    /// A shape with the sketch of its leaf hashes ([`leaf_sketch`]).
    pub(crate) fn with_leaves(fingerprint: u64, leaves: u128) -> Self {
        Self {
            fingerprint,
            leaves,
        }
    }

    /// This shape with the leaves of `envelope` ([`envelope_leaves`]) left
    /// out of its sketch: what remains says what kind of document it is.
    pub(crate) fn beyond(self, envelope: u128) -> Self {
        Self {
            leaves: self.leaves & !envelope,
            ..self
        }
    }

    /// Whether this answer says nothing beyond the API's envelope: each of
    /// its leaves is one of `envelope`'s (`{"ErrorCode", "Message"}` alone).
    pub(crate) fn only_envelope(&self, envelope: u128) -> bool {
        self.leaves != 0 && self.leaves & !envelope == 0
    }

    /// The leaves any of `shapes` showed.
    pub(crate) fn union_of(shapes: &[AnswerShape]) -> u128 {
        shapes.iter().fold(0, |all, shape| all | shape.leaves)
    }

    /// Whether this is a document whose fields can be compared, two leaves
    /// or more: not a bare value (`42`, `"ok"`), which any other of its type
    /// equals, nor a shape known by its fingerprint only.
    pub(crate) fn is_document(&self) -> bool {
        self.leaves.count_ones() >= MIN_SHARED
    }

    /// Whether every leaf of this shape is among `leaves` (a known sketch).
    pub(crate) fn within(&self, leaves: u128) -> bool {
        self.leaves != 0 && self.leaves & !leaves == 0
    }

    /// Whether every one of `leaves` is a leaf of this shape.
    pub(crate) fn carries(&self, leaves: u128) -> bool {
        self.leaves & leaves == leaves
    }

    /// The fingerprint: equal fingerprints, equal shapes.
    pub fn fingerprint(&self) -> u64 {
        self.fingerprint
    }

    /// Whether two answers are of one kind: equal, or at least two in
    /// three leaves of the smaller are leaves of the larger, and they share
    /// a third of the larger's (`{"id", "name", "tags": []}` and `{"id",
    /// "name", "owner", "tags": [{...}]}` are alike; a user and a project
    /// that share `id` and `name` are not).
    pub fn alike(&self, other: &Self) -> bool {
        if self.fingerprint == other.fingerprint {
            return true;
        }
        let (a, b) = (self.leaves.count_ones(), other.leaves.count_ones());
        if a == 0 || b == 0 || a.max(b) > MAX_SKETCH_BITS {
            return false;
        }
        let shared = (self.leaves & other.leaves).count_ones();
        shared >= MIN_SHARED && shared * 3 >= a.min(b) * 2 && shared * 3 >= a.max(b)
    }
}

/// Distinct answers an API must have given before the leaves most of them
/// share are taken for its envelope.
const ENVELOPE_MIN_ANSWERS: usize = 8;

/// The leaves (sketch bits) that more than half of an API's distinct
/// answers carry: its envelope (`{"ErrorCode", "Message", "Response"}`),
/// which says nothing of what kind of document an answer is. `0` while
/// fewer than [`ENVELOPE_MIN_ANSWERS`] answers are known.
pub(crate) fn envelope_leaves(shapes: impl Iterator<Item = AnswerShape>) -> u128 {
    let mut seen = std::collections::BTreeMap::new();
    for shape in shapes.filter(|s| s.leaves != 0) {
        seen.insert(shape.fingerprint, shape.leaves);
    }
    if seen.len() < ENVELOPE_MIN_ANSWERS {
        return 0;
    }
    let mut carry = [0usize; 128];
    for leaves in seen.values() {
        let mut rest = *leaves;
        while rest != 0 {
            carry[rest.trailing_zeros() as usize] += 1;
            rest &= rest - 1;
        }
    }
    (carry.iter().enumerate())
        .filter(|(_, n)| **n * 2 > seen.len())
        .fold(0u128, |common, (bit, _)| common | 1 << bit)
}

/// Whether some answer of `a` is alike some answer of `b`.
pub(crate) fn any_alike(a: &[AnswerShape], b: &[AnswerShape]) -> bool {
    a.iter().any(|x| b.iter().any(|y| x.alike(y)))
}

/// The sketch of a body's leaf hashes ([`AnswerShape`]): one bit of 128
/// per hash, from its high bits after a multiplicative mix (the low bits of
/// FNV-1a vary least).
pub(crate) fn leaf_sketch(hashes: &[u64]) -> u128 {
    hashes.iter().fold(0u128, |bits, h| {
        let mixed = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        bits | 1u128 << (mixed >> 57)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(leaves: &[u64]) -> AnswerShape {
        AnswerShape::with_leaves(leaves.iter().sum(), leaf_sketch(leaves))
    }

    #[test]
    fn answers_leaving_out_a_few_fields_are_alike() {
        let full = shape(&(1..=12).collect::<Vec<_>>());
        let most = shape(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert!(full.alike(&most) && most.alike(&full));
        // An empty list beside a full one: `$:array` is all the smaller has.
        assert!(shape(&[1, 2]).alike(&shape(&[1, 2, 3, 4, 5])));
    }

    #[test]
    fn answers_sharing_an_envelope_only_are_not_alike() {
        let user = shape(&[1, 2, 3, 10, 11]);
        let project = shape(&[1, 2, 3, 20, 21]);
        assert!(!user.alike(&project));
        // A root alone is no evidence.
        assert!(!shape(&[1]).alike(&shape(&[1, 5, 6])));
        // Unknown leaves: equal fingerprints only.
        assert!(!AnswerShape::exact(99).alike(&shape(&[1])));
        assert!(AnswerShape::exact(6).alike(&AnswerShape::with_leaves(6, 3)));
    }

    #[test]
    fn an_envelope_every_answer_carries_is_no_evidence() {
        // Eight answers in one envelope (leaves 1..=8), each its own payload.
        let answers: Vec<AnswerShape> = (0..8u64)
            .map(|i| shape(&[1, 2, 3, 4, 5, 6, 7, 8, 100 + 10 * i, 101 + 10 * i]))
            .collect();
        let envelope = envelope_leaves(answers.iter().copied());
        assert_eq!(envelope, leaf_sketch(&[1, 2, 3, 4, 5, 6, 7, 8]));
        let (a, b) = (answers[0], answers[1]);
        assert!(a.alike(&b), "alike by their envelope alone");
        assert!(!a.beyond(envelope).alike(&b.beyond(envelope)));
        // The envelope with the same payload, one field left out: alike.
        let c = shape(&[1, 2, 3, 4, 5, 6, 7, 100, 101]);
        assert!(a.beyond(envelope).alike(&c.beyond(envelope)));
        // Too few answers to tell an envelope.
        assert_eq!(envelope_leaves(answers[..7].iter().copied()), 0);
    }

    #[test]
    fn a_large_answer_is_alike_only_when_equal() {
        let many: Vec<u64> = (0..2000).collect();
        let most = &many[..1900];
        let (a, b) = (shape(&many), shape(most));
        assert!(a.leaves.count_ones() > MAX_SKETCH_BITS);
        assert!(!a.alike(&b));
    }
}
