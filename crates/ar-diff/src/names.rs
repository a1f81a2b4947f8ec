//! A fixed set of names, each with a value, found by the bytes a request or a body sent with
//! one short hash and, nearly always, one slot looked at.
//!
//! A schema's properties (each key of each object of a body) and a path segment's literal
//! children (each segment of each request) are looked up here. A `HashMap` spent about a
//! hundred instructions a key (hashing a byte slice, a group probe, a tag match, a `memcmp`)
//! and a `BTreeMap` as much in comparisons: as much as the rest of the key's walk. The names
//! are the document's, fixed once it is read, so the table is built for them:
//!
//! - Open addressing with linear probing, at most half full, its seed the one (of a few
//!   tried) that leaves the fewest names away from their home slot, usually none. A look-up
//!   stops at the first empty slot, so how far it probes depends on the names in the table
//!   only, never on the key asked for: a client cannot send keys that make it slow.
//! - A name's first and last eight bytes (or four, or three single bytes) and its length are
//!   read into a [`Words`] once, which is both what the hash mixes and, for a name of at most
//!   sixteen bytes (all but odd ones), the whole name: such a key is compared with a slot's
//!   name as three numbers, with no `memcmp`.

/// Names with a value each.
#[derive(Clone, Debug)]
pub(crate) struct Names<V> {
    /// Each name (as bytes) with its value.
    listed: Vec<(Box<[u8]>, V)>,
    /// A power of two of slots, two or more (none when nothing is listed).
    slots: Box<[Slot]>,
    seed: u64,
    /// How far a hash is shifted right to leave the bits that pick a slot (worked out once,
    /// not at each look-up).
    shift: u32,
}

// Not derived: that would ask `V: Default`.
impl<V> Default for Names<V> {
    fn default() -> Names<V> {
        Names {
            listed: Vec::new(),
            slots: Box::default(),
            seed: 0,
            shift: 0,
        }
    }
}

/// One slot: the place in `listed` of the name there, plus one (`0`: empty), and the name's
/// [`Words`].
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    words: Words,
    at: u32,
}

/// What a name is read into: its first and last eight bytes (each window within the name,
/// so they overlap for a name shorter than sixteen; four bytes each for one of four to seven;
/// its first, middle and last byte for a shorter one) and its length. Two names of at most
/// sixteen bytes are the same exactly when their `Words` are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Words {
    first: u64,
    last: u64,
    len: usize,
}

/// Names up to this long are whole in their [`Words`].
const WHOLE: usize = 16;

/// Seeds a table tries before it keeps the best one.
const SEEDS: u64 = 8;

impl<V> Names<V> {
    /// The table of `listed` (each name once).
    pub(crate) fn new(listed: Vec<(Box<[u8]>, V)>) -> Names<V> {
        if listed.is_empty() {
            return Names::default();
        }
        let size = (listed.len() * 2).next_power_of_two();
        let mask = size - 1;
        let shift = 64 - size.trailing_zeros();
        let words: Vec<Words> = listed.iter().map(|(name, _)| Words::of(name)).collect();
        let mut best: Option<(usize, Box<[Slot]>, u64)> = None;
        for seed in 1..=SEEDS {
            let mut slots = vec![Slot::default(); size].into_boxed_slice();
            let mut displaced = 0;
            for (at, (&words, (name, _))) in words.iter().zip(&listed).enumerate() {
                let mut slot = home(words, name, seed, shift);
                while slots[slot].at != 0 {
                    slot = (slot + 1) & mask;
                    displaced += 1;
                }
                let at = u32::try_from(at + 1).expect("a document lists fewer than 2³² names");
                slots[slot] = Slot { words, at };
            }
            if best.as_ref().is_none_or(|(fewest, ..)| displaced < *fewest) {
                best = Some((displaced, slots, seed));
            }
            if displaced == 0 {
                break;
            }
        }
        let (_, slots, seed) = best.expect("at least one seed is tried");
        Names {
            listed,
            slots,
            seed,
            shift,
        }
    }

    /// The value of the name `key`.
    #[inline]
    pub(crate) fn get(&self, key: &[u8]) -> Option<&V> {
        if self.slots.is_empty() {
            return None;
        }
        let words = Words::of(key);
        let mask = self.slots.len() - 1;
        let mut slot = home(words, key, self.seed, self.shift);
        loop {
            let Slot { words: there, at } = self.slots[slot];
            let (name, value) = self.listed.get((at as usize).checked_sub(1)?)?;
            if there == words && (key.len() <= WHOLE || **name == *key) {
                return Some(value);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// How many names there are.
    pub(crate) fn len(&self) -> usize {
        self.listed.len()
    }

    /// Whether there are none.
    pub(crate) fn is_empty(&self) -> bool {
        self.listed.is_empty()
    }
}

impl Words {
    #[inline]
    fn of(name: &[u8]) -> Words {
        let len = name.len();
        let (first, last) = if len >= 8 {
            (
                u64::from_le_bytes(head(name)),
                u64::from_le_bytes(tail(name)),
            )
        } else if len >= 4 {
            let first = u32::from_le_bytes(head(name));
            let last = u32::from_le_bytes(tail(name));
            (u64::from(first), u64::from(last))
        } else if len > 0 {
            let [a, b, c] = [name[0], name[len / 2], name[len - 1]].map(u64::from);
            (a | b << 8 | c << 16, 0)
        } else {
            (0, 0)
        };
        Words { first, last, len }
    }
}

/// The first `N` bytes of `bytes` (which has as many).
#[inline]
fn head<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes[..N].try_into().expect("checked length")
}

/// The last `N` bytes of `bytes` (which has as many).
#[inline]
fn tail<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes[bytes.len() - N..].try_into().expect("checked length")
}

/// The slot `name` (read into `words`) hashes to in a table of `2^(64 - shift)` slots: the top
/// bits of a folded multiply, which mixes them best. A name longer than [`WHOLE`]
/// has its middle bytes mixed in too, so names alike at both ends spread.
#[inline]
fn home(words: Words, name: &[u8], seed: u64, shift: u32) -> usize {
    const K0: u64 = 0x243f_6a88_85a3_08d3;
    const K1: u64 = 0x1319_8a2e_0370_7344;
    let mut hash = fold(
        words.first ^ seed.wrapping_mul(K0),
        words.last ^ K1 ^ words.len as u64,
    );
    if words.len > WHOLE {
        for chunk in name[8..words.len - 8].chunks_exact(8) {
            hash = fold(hash ^ u64::from_le_bytes(head(chunk)), K1);
        }
    }
    usize::try_from(hash >> shift).expect("fewer bits than a usize has")
}

/// The high and low halves of `a × b`, xored: a multiply that spreads every bit of each.
#[inline]
fn fold(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ (product >> 64) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(names: &[String]) -> Names<usize> {
        let listed = names
            .iter()
            .enumerate()
            .map(|(index, name)| (name.as_bytes().into(), index))
            .collect();
        Names::new(listed)
    }

    #[test]
    fn every_name_is_found_and_no_other() {
        let sets: Vec<Vec<String>> = vec![
            vec![],
            vec![String::new()],
            vec!["id".into()],
            ["id", "name", "price", "tags", "stock", "updated"]
                .map(String::from)
                .to_vec(),
            // Names alike but for a middle byte, longer than the two words read, and every
            // length around the words' sizes.
            (0..300)
                .map(|i| format!("customer_shipping_{i:03}_address_line"))
                .chain((0..20).map(|n| "x".repeat(n)))
                .chain((0..20).map(|n| format!("{}y", "x".repeat(n))))
                .collect(),
        ];
        for names in &sets {
            let table = table(names);
            assert_eq!(table.len(), names.len());
            assert_eq!(table.is_empty(), names.is_empty());
            for (index, name) in names.iter().enumerate() {
                assert_eq!(table.get(name.as_bytes()), Some(&index), "{name}");
            }
            let others = [
                "",
                "ID",
                "nam",
                "names",
                "customer_shipping_300_address_line",
                "customer_shipping_001_address_linf",
                "x\0",
                "xxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
                "xyx",
                "xxxxyxxxx",
            ];
            for other in others {
                if !names.iter().any(|n| n == other) {
                    assert_eq!(table.get(other.as_bytes()), None, "{other}");
                }
            }
        }
    }

    #[test]
    fn short_names_are_whole_in_their_words() {
        let names: Vec<String> = (0..=WHOLE)
            .flat_map(|len| (0..len).map(move |at| (len, at)))
            .map(|(len, at)| {
                let mut name = vec![b'a'; len];
                name[at] = b'b';
                String::from_utf8(name).unwrap()
            })
            .collect();
        for a in &names {
            for b in &names {
                let same = Words::of(a.as_bytes()) == Words::of(b.as_bytes());
                assert_eq!(same, a == b, "{a} {b}");
            }
        }
    }
}
