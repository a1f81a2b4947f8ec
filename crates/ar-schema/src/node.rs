//! The evidence behind a schema: counts per position, and how two sets of counts merge.
//!
//! Every statistic here is a count, a bit-mask intersection or a capped set union. All three are
//! commutative and associative with an identity (zero, all-ones, the empty set), so merging nodes
//! is too, whatever the order samples arrive in. Rendering decisions (required, enum, map, format)
//! are made only when a schema is written out, from the counts; nothing is decided early.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::format::{self, FormatSet};
use crate::limits::{MAX_ENUM_TRACKED, MAX_ENUM_VALUE_BYTES, MAX_PROPERTIES};

/// Property count above which an object position keeps a name index.
const INDEX_FROM: usize = 8;

/// Everything seen at one position of the samples (the root, a property, array items).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct Node {
    pub(crate) nulls: u64,
    pub(crate) bools: u64,
    pub(crate) ints: u64,
    pub(crate) floats: u64,
    pub(crate) strings: StringStats,
    /// Arrays seen here, inspected or not (see `capped_arrays`).
    pub(crate) arrays: u64,
    /// Objects seen here, inspected or not (see `capped_objects`).
    pub(crate) objects: u64,
    /// Arrays and objects below the depth limit: their type is known, their contents are not.
    pub(crate) capped: u64,
    pub(crate) array: Option<Box<ArrayStats>>,
    pub(crate) object: Option<Box<ObjectStats>>,
}

/// Strings seen at one position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct StringStats {
    pub(crate) count: u64,
    /// Formats every string so far matched; `format::ALL` while `count == 0`.
    pub(crate) formats: FormatSet,
    /// Distinct short values with their counts, sorted, or `None` once there were too many.
    pub(crate) values: Option<Vec<(Box<str>, u64)>>,
}

/// Arrays whose elements were inspected.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct ArrayStats {
    pub(crate) count: u64,
    /// Every element of every array, merged; `count == 0` if all arrays were empty.
    pub(crate) items: Node,
}

/// Objects whose members were inspected.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default)]
pub(crate) struct ObjectStats {
    pub(crate) count: u64,
    /// Properties in first-seen order (output sorts them).
    pub(crate) props: Vec<Prop>,
    #[serde(skip)]
    index: HashMap<Box<[u8]>, u32>,
    /// Past `MAX_PROPERTIES` distinct keys, keys stop being tracked one by one.
    pub(crate) collapsed: bool,
    /// Formats every key matched, once collapsed (before, each `Prop` holds its own).
    pub(crate) collapsed_key_formats: FormatSet,
    /// Keys longer than `MAX_KEY_BYTES`: not kept as property names.
    pub(crate) long_keys: u64,
    /// Values of keys not tracked one by one (long keys, or every key once collapsed).
    pub(crate) extra: Option<Box<Node>>,
    /// Where the next key was found last time: objects in one array usually share key order.
    #[serde(skip)]
    cursor: usize,
    /// The serial of the last object begun (or taken back): above every `Prop::mark`, and
    /// never decreasing, so a later object never mistakes a mark for its own.
    #[serde(skip)]
    serial: u64,
}

/// One property of an object position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Prop {
    pub(crate) name: Box<str>,
    /// Objects that had this key.
    pub(crate) present: u64,
    pub(crate) key_formats: FormatSet,
    pub(crate) node: Node,
    /// Serial of the last object that counted this key (guards against duplicate keys).
    #[serde(skip)]
    mark: Mark,
    /// The name has no byte that JSON must escape, so it can be matched against raw input.
    #[serde(skip)]
    plain: Plain,
}

/// Scratch state that takes no part in equality.
#[derive(Clone, Copy, Debug, Default)]
struct Mark(u64);

impl PartialEq for Mark {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Scratch state that takes no part in equality: whether a name is [`is_plain`] and, for a
/// plain name of at most 7 bytes, the name and its closing quote as one little-endian word
/// (`quoted`, zero-padded) with the mask of its bytes, so one 8-byte compare matches it.
#[derive(Clone, Copy, Debug, Default)]
struct Plain {
    plain: bool,
    quoted: u64,
    mask: u64,
}

impl Plain {
    fn of(name: &[u8]) -> Self {
        let plain = is_plain(name);
        if !plain || name.len() > 7 {
            return Self {
                plain,
                quoted: 0,
                mask: 0,
            };
        }
        let mut word = [0u8; 8];
        word[..name.len()].copy_from_slice(name);
        word[name.len()] = b'"';
        Self {
            plain,
            quoted: u64::from_le_bytes(word),
            mask: u64::MAX >> (8 * (7 - name.len())),
        }
    }
}

impl PartialEq for Plain {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Byte equality for short strings (keys, enum values) without a call into `memcmp`: eight
/// bytes at a time, the last word overlapping the one before.
#[inline]
fn eq_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    let word = |s: &[u8], at: usize| {
        u64::from_le_bytes(
            s.get(at..at + 8)
                .and_then(|w| w.try_into().ok())
                .unwrap_or([0; 8]),
        )
    };
    let mut i = 0;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

/// Whether a key, written between quotes with no escapes, is exactly these bytes: no quote,
/// backslash or control character (such keys are matched through [`ObjectStats::expected`]).
fn is_plain(name: &[u8]) -> bool {
    name.iter().all(|&c| c >= 0x20 && c != b'"' && c != b'\\')
}

impl Default for StringStats {
    fn default() -> Self {
        Self {
            count: 0,
            formats: format::ALL,
            values: Some(Vec::new()),
        }
    }
}

impl Default for ObjectStats {
    fn default() -> Self {
        Self {
            count: 0,
            props: Vec::new(),
            index: HashMap::new(),
            collapsed: false,
            collapsed_key_formats: format::ALL,
            long_keys: 0,
            extra: None,
            cursor: 0,
            serial: 0,
        }
    }
}

impl PartialEq for ObjectStats {
    fn eq(&self, other: &Self) -> bool {
        self.count == other.count
            && self.collapsed == other.collapsed
            && self.collapsed_key_formats == other.collapsed_key_formats
            && self.long_keys == other.long_keys
            && self.extra == other.extra
            && self.props.len() == other.props.len()
            && self.props.iter().all(|p| other.prop(&p.name) == Some(p))
    }
}

impl Node {
    /// Rebuilds the name indexes after deserialization (they are not stored).
    pub(crate) fn reindex(&mut self) {
        if let Some(array) = &mut self.array {
            array.items.reindex();
        }
        if let Some(object) = &mut self.object {
            object.index = if object.props.len() > INDEX_FROM {
                object
                    .props
                    .iter()
                    .enumerate()
                    .map(|(i, p)| (p.name.as_bytes().into(), i as u32))
                    .collect()
            } else {
                HashMap::new()
            };
            object.props.iter_mut().for_each(|p| {
                p.plain = Plain::of(p.name.as_bytes());
                p.node.reindex();
            });
            if let Some(extra) = &mut object.extra {
                extra.reindex();
            }
        }
        if let Some(values) = &mut self.strings.values {
            values.sort();
            values.dedup_by(|a, b| a.0 == b.0);
        }
    }

    /// Values seen at this position.
    pub(crate) fn count(&self) -> u64 {
        self.nulls
            + self.bools
            + self.ints
            + self.floats
            + self.strings.count
            + self.arrays
            + self.objects
    }

    /// Records one string value (valid UTF-8).
    #[inline]
    pub(crate) fn add_string(&mut self, s: &[u8]) {
        self.strings.add(s, true);
    }

    /// Adds every count of `other` into `self`.
    pub(crate) fn merge_from(&mut self, other: &Node) {
        self.nulls += other.nulls;
        self.bools += other.bools;
        self.ints += other.ints;
        self.floats += other.floats;
        self.arrays += other.arrays;
        self.objects += other.objects;
        self.capped += other.capped;
        self.strings.merge_from(&other.strings);
        if let Some(theirs) = &other.array {
            match &mut self.array {
                Some(ours) => {
                    ours.count += theirs.count;
                    ours.items.merge_from(&theirs.items);
                }
                None => self.array = Some(theirs.clone()),
            }
        }
        if let Some(theirs) = &other.object {
            match &mut self.object {
                Some(ours) => ours.merge_from(theirs),
                None => self.object = Some(theirs.clone()),
            }
        }
    }

    /// Merges `other` in, moving its parts when `self` has none (cheaper than cloning).
    pub(crate) fn merge_owned(&mut self, other: Node) {
        if self.count() == 0 {
            *self = other;
        } else {
            self.merge_from(&other);
        }
    }
}

impl StringStats {
    /// Whether the next string here can change more than the count: while values are still
    /// collected as enum evidence or some format is still possible. Once neither holds (long
    /// free text, many distinct values), the scanner only checks such strings, never decodes.
    #[inline]
    pub(crate) fn wants_content(&self) -> bool {
        self.values.is_some() || self.formats != 0
    }

    /// Counts one string: the common cases (an enum value seen before, or a position that
    /// tracks nothing but the count) stay inline in the scanner; the rest is [`Self::add_new`].
    ///
    /// Unless `sure` (the document is known to be valid JSON), only a change that
    /// [`Self::remove`] can take back is made: if the string would add an enum value, give up
    /// on the enum or narrow the formats, nothing changes and `false` is returned.
    #[inline(always)]
    pub(crate) fn add(&mut self, s: &[u8], sure: bool) -> bool {
        if let Some(values) = &mut self.values
            && s.len() <= MAX_ENUM_VALUE_BYTES
        {
            // At most `MAX_ENUM_TRACKED` values: a linear scan comparing lengths first
            // touches one string in most hits, where a binary search compares four.
            for (v, n) in values.iter_mut() {
                if v.len() == s.len() && eq_bytes(v.as_bytes(), s) {
                    *n += 1;
                    self.count += 1;
                    // A value seen before already narrowed `formats` to formats it has
                    // (which only ever shrink), so checking it again would change nothing.
                    return true;
                }
            }
        }
        if self.values.is_some() || self.formats != 0 {
            return self.add_new(s, sure);
        }
        self.count += 1;
        true
    }

    /// Takes back one [`Self::add`] of `s` that changed nothing but counts.
    pub(crate) fn remove(&mut self, s: &[u8]) {
        self.count -= 1;
        if let Some(values) = &mut self.values
            && let Some((_, n)) = values.iter_mut().find(|(v, _)| eq_bytes(v.as_bytes(), s))
        {
            *n -= 1;
        }
    }

    /// A string not among the enum values: remember it (or give up on an enum) and narrow
    /// the formats (only if `sure`, unless that changes nothing but the count).
    #[inline(never)]
    fn add_new(&mut self, s: &[u8], sure: bool) -> bool {
        let formats = if self.formats != 0 {
            self.formats & format::detect(s, self.formats)
        } else {
            0
        };
        if !sure && (self.values.is_some() || formats != self.formats) {
            return false;
        }
        self.count += 1;
        self.formats = formats;
        if let Some(values) = &mut self.values {
            if s.len() > MAX_ENUM_VALUE_BYTES || values.len() >= MAX_ENUM_TRACKED {
                self.values = None;
            } else {
                let i = values.partition_point(|(v, _)| v.as_bytes() < s);
                let value = std::str::from_utf8(s)
                    .map_or_else(|_| String::from_utf8_lossy(s).into(), Box::from);
                values.insert(i, (value, 1));
            }
        }
        true
    }

    fn merge_from(&mut self, other: &StringStats) {
        self.count += other.count;
        self.formats &= other.formats;
        self.values = match (self.values.take(), &other.values) {
            (Some(mut ours), Some(theirs)) => {
                for (value, n) in theirs {
                    match ours.binary_search_by(|(v, _)| v.cmp(value)) {
                        Ok(i) => ours[i].1 += n,
                        Err(i) => ours.insert(i, (value.clone(), *n)),
                    }
                }
                (ours.len() <= MAX_ENUM_TRACKED).then_some(ours)
            }
            _ => None,
        };
    }
}

impl ObjectStats {
    /// Starts counting one more object; returns its serial for [`ObjectStats::slot`].
    pub(crate) fn begin(&mut self) -> u64 {
        self.count += 1;
        self.cursor = 0;
        self.serial += 1;
        self.serial
    }

    /// Takes back one [`ObjectStats::begin`]; returns a fresh serial for the `unslot` calls
    /// that take back its keys (duplicate keys are found as they were when counted).
    pub(crate) fn unbegin(&mut self) -> u64 {
        self.count -= 1;
        self.cursor = 0;
        self.serial += 1;
        self.serial
    }

    /// The property a key's value goes to in the object numbered `serial`, counting the key as
    /// present; `None` means the key is not tracked by name and the value goes to `extra`.
    pub(crate) fn slot(&mut self, key: &[u8], serial: u64) -> Option<usize> {
        self.try_slot(key, serial, true).flatten()
    }

    /// [`ObjectStats::slot`], except that unless `sure` (the document is known to be valid)
    /// it changes nothing and returns `None` where the key would change more than counts (a
    /// new property, the first untracked key, fewer key formats): what [`ObjectStats::unslot`]
    /// cannot take back.
    pub(crate) fn try_slot(
        &mut self,
        key: &[u8],
        serial: u64,
        sure: bool,
    ) -> Option<Option<usize>> {
        if key.len() > crate::limits::MAX_KEY_BYTES {
            if !sure && self.extra.is_none() {
                return None;
            }
            self.long_keys += 1;
            return Some(None);
        }
        if self.collapsed {
            let formats = self.collapsed_key_formats & format::detect(key, format::ALL);
            if !sure && (formats != self.collapsed_key_formats || self.extra.is_none()) {
                return None;
            }
            self.collapsed_key_formats = formats;
            return Some(None);
        }
        let i = match self.find(key) {
            Some(i) => i,
            None if !sure => return None,
            None if self.props.len() >= MAX_PROPERTIES => {
                self.collapse();
                self.collapsed_key_formats &= format::detect(key, format::ALL);
                return Some(None);
            }
            None => self.insert(Prop::new(key)),
        };
        Some(Some(self.count_key(i, serial)))
    }

    /// Takes back the [`ObjectStats::try_slot`] of `key` (made with `sure` false) in the object
    /// [`ObjectStats::unbegin`] numbered `serial`.
    pub(crate) fn unslot(&mut self, key: &[u8], serial: u64) -> Option<usize> {
        if key.len() > crate::limits::MAX_KEY_BYTES {
            self.long_keys -= 1;
            return None;
        }
        if self.collapsed {
            return None;
        }
        let i = self.find(key)?;
        Some(self.uncount_key(i, serial))
    }

    /// Counts property `i` present in object `serial`, once however often its key repeats.
    #[inline]
    fn count_key(&mut self, i: usize, serial: u64) -> usize {
        self.cursor = i + 1;
        let prop = &mut self.props[i];
        if prop.mark.0 != serial {
            prop.mark = Mark(serial);
            prop.present += 1;
        }
        i
    }

    /// Takes back [`ObjectStats::count_key`].
    fn uncount_key(&mut self, i: usize, serial: u64) -> usize {
        self.cursor = i + 1;
        let prop = &mut self.props[i];
        if prop.mark.0 != serial {
            prop.mark = Mark(serial);
            prop.present -= 1;
        }
        i
    }

    /// If `rest` (the input just past a key's opening quote) starts with the key that came next
    /// last time, then its closing quote, returns the key's length: the caller can skip the
    /// key without scanning it and take [`ObjectStats::slot_expected`]. Objects at one position
    /// usually repeat their keys in one order, so this is the common case.
    #[inline]
    pub(crate) fn expected(&self, rest: &[u8]) -> Option<usize> {
        let p = self.props.get(self.cursor)?;
        let n = p.name.len();
        if p.plain.mask != 0
            && let Some(head) = rest.get(..8)
        {
            let word = u64::from_le_bytes(head.try_into().unwrap_or([0; 8]));
            return (word & p.plain.mask == p.plain.quoted).then_some(n);
        }
        (p.plain.plain && rest.get(n) == Some(&b'"') && eq_bytes(&rest[..n], p.name.as_bytes()))
            .then_some(n)
    }

    /// What [`ObjectStats::slot`] returns for the key [`ObjectStats::expected`] matched.
    #[inline]
    pub(crate) fn slot_expected(&mut self, serial: u64) -> usize {
        self.count_key(self.cursor, serial)
    }

    /// Takes back [`ObjectStats::slot_expected`].
    pub(crate) fn unslot_expected(&mut self, serial: u64) -> usize {
        self.uncount_key(self.cursor, serial)
    }

    /// The node that takes values of untracked keys.
    pub(crate) fn extra_mut(&mut self) -> &mut Node {
        self.extra.get_or_insert_with(Box::default)
    }

    /// The property named `name`, if tracked.
    pub(crate) fn prop(&self, name: &str) -> Option<&Prop> {
        self.lookup(name.as_bytes()).map(|i| &self.props[i])
    }

    fn find(&self, key: &[u8]) -> Option<usize> {
        if let Some(p) = self.props.get(self.cursor)
            && p.name.as_bytes() == key
        {
            return Some(self.cursor);
        }
        self.lookup(key)
    }

    /// Few properties: a scan beats hashing. Many: the index (built once there are more than
    /// `INDEX_FROM` properties, so small objects never pay for it).
    fn lookup(&self, key: &[u8]) -> Option<usize> {
        if self.props.len() <= INDEX_FROM {
            return self.props.iter().position(|p| p.name.as_bytes() == key);
        }
        self.index.get(key).map(|&i| i as usize)
    }

    fn insert(&mut self, prop: Prop) -> usize {
        let i = self.props.len();
        self.props.push(prop);
        if self.props.len() == INDEX_FROM + 1 {
            self.index = self
                .props
                .iter()
                .enumerate()
                .map(|(i, p)| (p.name.as_bytes().into(), i as u32))
                .collect();
        } else if self.props.len() > INDEX_FROM + 1 {
            self.index
                .insert(self.props[i].name.as_bytes().into(), i as u32);
        }
        i
    }

    /// Stops tracking keys by name: every property's values merge into `extra`.
    fn collapse(&mut self) {
        let mut extra = self.extra.take().map(|b| *b).unwrap_or_default();
        let mut key_formats = format::ALL;
        for prop in self.props.drain(..) {
            key_formats &= prop.key_formats;
            extra.merge_owned(prop.node);
        }
        self.index = HashMap::new();
        self.extra = Some(Box::new(extra));
        self.collapsed_key_formats &= key_formats;
        self.collapsed = true;
    }

    fn merge_from(&mut self, other: &ObjectStats) {
        self.count += other.count;
        self.long_keys += other.long_keys;
        self.collapsed_key_formats &= other.collapsed_key_formats;
        if let Some(theirs) = &other.extra {
            self.extra_mut().merge_from(theirs);
        }
        for theirs in &other.props {
            if self.collapsed {
                self.collapsed_key_formats &= theirs.key_formats;
                self.extra_mut().merge_from(&theirs.node);
                continue;
            }
            match self.lookup(theirs.name.as_bytes()) {
                Some(i) => {
                    let ours = &mut self.props[i];
                    ours.present += theirs.present;
                    ours.node.merge_from(&theirs.node);
                }
                None => {
                    self.insert(theirs.clone());
                }
            }
        }
        if other.collapsed || self.props.len() > MAX_PROPERTIES {
            self.collapse();
        }
        // Serials go on above every mark (ours and the ones cloned from `other`), so
        // duplicate-key detection stays correct.
        self.serial = self.serial.max(other.serial);
        self.cursor = 0;
    }
}

impl Prop {
    fn new(name: &[u8]) -> Self {
        Self {
            name: std::str::from_utf8(name)
                .map_or_else(|_| String::from_utf8_lossy(name).into(), Box::from),
            present: 0,
            key_formats: format::detect(name, format::ALL),
            node: Node::default(),
            mark: Mark(0),
            plain: Plain::of(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(values: &[&str]) -> Node {
        let mut node = Node::default();
        for v in values {
            node.add_string(v.as_bytes());
        }
        node
    }

    #[test]
    fn string_merge_matches_adding_in_one_go() {
        let mut a = strings(&["a", "b", "2024-01-01"]);
        a.merge_from(&strings(&["b", "c"]));
        assert_eq!(a, strings(&["a", "b", "2024-01-01", "b", "c"]));
    }

    #[test]
    fn value_set_overflows_to_none() {
        let many: Vec<String> = (0..=MAX_ENUM_TRACKED).map(|i| format!("v{i}")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(strings(&refs).strings.values, None);
    }

    #[test]
    fn duplicate_keys_count_once() {
        let mut stats = ObjectStats::default();
        let serial = stats.begin();
        assert_eq!(stats.slot(b"a", serial), Some(0));
        assert_eq!(stats.slot(b"a", serial), Some(0));
        assert_eq!(stats.props[0].present, 1);
    }

    #[test]
    fn too_many_keys_collapse_into_extra() {
        let mut stats = ObjectStats::default();
        let serial = stats.begin();
        for i in 0..=MAX_PROPERTIES {
            if let Some(slot) = stats.slot(i.to_string().as_bytes(), serial) {
                stats.props[slot].node.ints += 1;
            } else {
                stats.extra_mut().ints += 1;
            }
        }
        assert!(stats.collapsed);
        assert!(stats.props.is_empty());
        assert_eq!(
            stats.extra.as_ref().map(|e| e.ints),
            Some(MAX_PROPERTIES as u64 + 1)
        );
        assert_eq!(stats.collapsed_key_formats, format::INTEGER);
    }
}
