//! Observed query and header parameters: presence counts and value types.
//!
//! Presence is counted per flow, so `seen == endpoint.flow_count()` means
//! "always present" (a required parameter). Example values of sensitive
//! names (tokens, keys, cookies) are never kept: the store may be shown to an
//! agent or printed.

use std::collections::BTreeMap;
use std::hash::BuildHasher;

use serde::{Deserialize, Serialize};

use crate::template::{SegmentKind, classify_segment};

/// The type of one observed parameter value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// Present with no value (`?flag` or `?flag=`).
    Empty,
    /// `true` / `false`.
    Boolean,
    /// Decimal integer.
    Integer,
    /// Decimal number with a fraction or exponent.
    Number,
    /// A UUID.
    Uuid,
    /// A calendar date (`2024-05-01`).
    Date,
    /// A date-time (`2024-05-01T10:00:00Z`).
    DateTime,
    /// An email address.
    Email,
    /// An absolute URL.
    Uri,
    /// Anything else.
    String,
}

impl ValueKind {
    /// Every kind, in declaration (and `Ord`) order: `ALL[kind as usize] == kind`.
    const ALL: [ValueKind; 10] = [
        Self::Empty,
        Self::Boolean,
        Self::Integer,
        Self::Number,
        Self::Uuid,
        Self::Date,
        Self::DateTime,
        Self::Email,
        Self::Uri,
        Self::String,
    ];

    /// Classifies one value.
    ///
    /// ```
    /// use ar_store::store::ValueKind;
    /// assert_eq!(ValueKind::of("42"), ValueKind::Integer);
    /// assert_eq!(ValueKind::of("2024-05-01T10:00:00Z"), ValueKind::DateTime);
    /// assert_eq!(ValueKind::of("red shoes"), ValueKind::String);
    /// assert_eq!(ValueKind::of(" 42\u{a0}"), ValueKind::Integer);
    /// ```
    pub fn of(value: &str) -> Self {
        // Visible ASCII at both ends (the usual value) has nothing to trim:
        // no Unicode whitespace search then.
        let visible = |b: Option<&u8>| b.is_some_and(|b| b.is_ascii_graphic());
        let bytes = value.as_bytes();
        let v = if visible(bytes.first()) && visible(bytes.last()) {
            value
        } else {
            value.trim()
        };
        if v.is_empty() {
            return Self::Empty;
        }
        if v == "true" || v == "false" {
            return Self::Boolean;
        }
        let digits = v.strip_prefix('-').unwrap_or(v);
        if !digits.is_empty() && digits.len() <= 19 && digits.bytes().all(|b| b.is_ascii_digit()) {
            return Self::Integer;
        }
        if v.parse::<f64>().is_ok_and(f64::is_finite)
            && v.bytes().any(|b| b.is_ascii_digit())
            && !v.contains(['i', 'n', 'N', 'I'])
        {
            return Self::Number;
        }
        if v.starts_with("http://") || v.starts_with("https://") {
            return Self::Uri;
        }
        match classify_segment(v) {
            Some(SegmentKind::Uuid) => Self::Uuid,
            Some(SegmentKind::Date) if v.len() == 10 => Self::Date,
            Some(SegmentKind::Date) => Self::DateTime,
            Some(SegmentKind::Email) if v.contains('@') => Self::Email,
            _ => Self::String,
        }
    }
}

/// What was seen of one parameter name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamStats {
    /// Flows in which the parameter was present.
    pub seen: u64,
    /// Value kinds with how many values had each.
    pub kinds: BTreeMap<ValueKind, u64>,
    /// Up to five distinct example values (none for sensitive names).
    pub examples: Vec<String>,
    /// Whether the name looks secret (values are then never kept).
    pub sensitive: bool,
    /// Hash and kind of the last value, so a repeated value (the same
    /// `user-agent` on every flow) is not classified again.
    #[serde(skip)]
    pub(crate) last: Option<(u64, ValueKind)>,
    /// The stamp of the last [`ParamSet::observe`] call that counted this
    /// name, so a name repeated within one flow counts once.
    #[serde(skip)]
    pub(crate) stamp: u64,
}

/// Parameters by name (query: as sent; headers: lowercased).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParamSet {
    /// The parameters, sorted by name.
    pub params: BTreeMap<String, ParamStats>,
    /// Names not tracked because the per-endpoint cap was reached.
    pub dropped_names: u64,
}

const MAX_EXAMPLES: usize = 5;
const MAX_EXAMPLE_LEN: usize = 80;

impl ParamSet {
    pub(crate) fn heap_bytes(&self) -> usize {
        self.params
            .iter()
            .map(|(k, v)| k.len() + v.heap_bytes())
            .sum()
    }
}

impl ParamStats {
    pub(crate) fn heap_bytes(&self) -> usize {
        96 + self.kinds.len() * 32 + self.examples.iter().map(|e| e.len() + 24).sum::<usize>()
    }
}

/// What an endpoint's table counts for one name: [`ParamStats`] with the
/// kind counts in an array, so a value bumps a slot instead of searching a
/// map (every parameter of every flow is recorded); the public
/// [`ParamStats`] is built when someone reads the table.
#[derive(Debug, Clone, Default)]
pub(crate) struct ParamCounter {
    seen: u64,
    /// Values per kind, indexed by `ValueKind as usize`.
    kinds: [u64; ValueKind::ALL.len()],
    examples: Vec<String>,
    sensitive: bool,
    /// Hash and kind of the last value, so a repeated value (the same
    /// `user-agent` on every flow) is not classified again.
    last: Option<(u64, ValueKind)>,
    /// The stamp of the last flow that counted this name, so a name
    /// repeated within one flow counts once.
    stamp: u64,
}

impl ParamCounter {
    /// A fresh entry for `name`.
    pub(crate) fn new(name: &str) -> Self {
        Self {
            sensitive: is_sensitive(name),
            ..Self::default()
        }
    }

    /// A fresh entry as sensitive as `other` (merging starts from it).
    pub(crate) fn like(other: &ParamCounter) -> Self {
        Self {
            sensitive: other.sensitive,
            ..Self::default()
        }
    }

    /// Records one value of this parameter in the flow stamped `stamp`.
    // Inlined into the table's loop: it runs for every parameter of every
    // flow, and the call's register saving was a fifth of its cost.
    #[inline(always)]
    pub(crate) fn record(&mut self, value: &str, stamp: u64) {
        if self.stamp != stamp {
            self.seen += 1;
            self.stamp = stamp;
        }
        // foldhash (fixed seed) rather than byte-at-a-time FNV: header values are long.
        let value_hash = foldhash::fast::FixedState::default().hash_one(value);
        let repeated = self.last.filter(|(h, _)| *h == value_hash);
        let kind = match repeated {
            Some((_, kind)) => kind,
            None => ValueKind::of(value),
        };
        self.last = Some((value_hash, kind));
        self.kinds[kind as usize] += 1;
        // The same value as last time was already kept (or could not be):
        // examples only grow, so there is nothing to compare.
        if repeated.is_none()
            && !self.sensitive
            && self.examples.len() < MAX_EXAMPLES
            && !self.examples.iter().any(|e| e == value)
        {
            let mut example: String = value.chars().take(MAX_EXAMPLE_LEN).collect();
            if example.len() < value.len() {
                example.push('…');
            }
            self.examples.push(example);
        }
    }

    /// Adds another entry's observations (used when endpoints merge).
    pub(crate) fn absorb(&mut self, theirs: &ParamCounter) {
        self.seen += theirs.seen;
        for (mine, n) in self.kinds.iter_mut().zip(theirs.kinds) {
            *mine += n;
        }
        for example in &theirs.examples {
            if self.examples.len() < MAX_EXAMPLES && !self.examples.contains(example) {
                self.examples.push(example.clone());
            }
        }
    }

    /// The public form: kinds with a count, in kind order.
    pub(crate) fn stats(&self) -> ParamStats {
        ParamStats {
            seen: self.seen,
            kinds: ValueKind::ALL
                .into_iter()
                .zip(self.kinds)
                .filter(|(_, n)| *n > 0)
                .collect(),
            examples: self.examples.clone(),
            sensitive: self.sensitive,
            last: self.last,
            stamp: self.stamp,
        }
    }

    /// Estimated like the [`ParamStats`] it stands for.
    pub(crate) fn heap_bytes(&self) -> usize {
        96 + self.kinds.iter().filter(|n| **n > 0).count() * 32
            + self.examples.iter().map(|e| e.len() + 24).sum::<usize>()
    }
}

/// Names whose values are credentials or session state.
pub(crate) fn is_sensitive(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    matches!(
        n.as_str(),
        "authorization"
            | "proxy-authorization"
            | "cookie"
            | "set-cookie"
            | "sig"
            | "signature"
            | "code"
            | "state"
            | "nonce"
            | "otp"
            | "pin"
    ) || [
        "token",
        "secret",
        "password",
        "passwd",
        "api_key",
        "apikey",
        "api-key",
        "access_key",
        "session",
        "auth",
        "credential",
        "jwt",
        "csrf",
        "xsrf",
    ]
    .iter()
    .any(|s| n.contains(s))
        || n == "key"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_sits_at_its_own_index() {
        for (i, kind) in ValueKind::ALL.into_iter().enumerate() {
            assert_eq!(kind as usize, i);
        }
        assert!(ValueKind::ALL.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn value_kinds() {
        assert_eq!(ValueKind::of(""), ValueKind::Empty);
        assert_eq!(ValueKind::of("-3.5e2"), ValueKind::Number);
        assert_eq!(ValueKind::of("nan"), ValueKind::String);
        assert_eq!(ValueKind::of("2024-05-01"), ValueKind::Date);
        assert_eq!(ValueKind::of("a@b.test"), ValueKind::Email);
        assert_eq!(ValueKind::of("https://x.test/"), ValueKind::Uri);
        assert_eq!(
            ValueKind::of("0b0e5f6e-8c4d-4b1a-9d2e-1f2a3b4c5d6e"),
            ValueKind::Uuid
        );
    }
}
