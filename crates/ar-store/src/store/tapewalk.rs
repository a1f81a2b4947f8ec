//! The store's walk over a body read once into an [`ar_schema::Tape`]: the
//! walk [`super::scan`]'s serde visitor makes, over tokens instead of text.
//!
//! The tape is read once per body and walked twice: here, for the shape
//! fingerprint and the identifier-like values (provenance), and by the
//! documentation's schema inference
//! ([`SchemaBuilder::add_tape`](ar_schema::SchemaBuilder::add_tape)).
//!
//! It reports exactly what the serde walk reports (the same scalar
//! callbacks in the same order, the same shape fingerprint) for the
//! documents it accepts. The tape accepts a little more than serde_json
//! (a byte-order mark, lone surrogate escapes, any depth, numbers beyond
//! `f64`); for those, and for numbers near the edge of `f64`, the walk gives
//! up with [`Bail`], and the caller rolls back what the callback collected
//! and runs the serde walk, which decides. Giving up is always correct, only
//! slower; so this walk never has to reproduce serde_json's error cases,
//! only its successes.
//!
//! Key path hashes are incremental: FNV-1a is a left fold over bytes, so the
//! hash of `$.owner.login:string` continues from the hash of `$.owner`
//! instead of rehashing the whole path at every leaf.

use ar_schema::{Span, Tape, Token};

use super::analysis::{FNV_OFFSET, fnv_fold};
use super::fieldpath::{FieldPath, Step};
use super::scan::{MAX_PATHS, SCAN_DEPTH, SCAN_ITEMS, SHAPE_DEPTH, SHAPE_ITEMS};

/// The walk gave up; the serde walk must decide.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Bail;

type R<T> = Result<T, Bail>;

/// Documents nested deeper than this are left to serde_json (its limit is 128).
const MAX_NESTING: usize = 100;
/// Floats whose decimal magnitude may exceed this are left to serde_json (range errors).
const MAX_MAGNITUDE: i64 = 250;

/// The buffers a walk fills, kept by the caller between bodies.
#[derive(Debug, Default)]
pub(crate) struct WalkBuffers {
    /// Leaf hashes in document order.
    pub(crate) hashes: Vec<u64>,
    /// The steps from the root to the current value.
    pub(crate) steps: Vec<Step>,
}

/// Walks `tape`, read from `bytes`, pushing leaf hashes into
/// `buffers.hashes` (in document order; every buffer is cleared first), or
/// gives up with [`Bail`].
///
/// `on_value` is generic (not `dyn`, as in the serde walk) so the
/// caller's test of each scalar compiles into the walk. Paths reach it as
/// steps ([`FieldPath::Steps`]): building the text of every path cost more
/// than the rest of a field's work, and it is read for few values.
pub(crate) fn walk_tape<F: FnMut(&str, &FieldPath<'_>, Option<&str>, &str, bool)>(
    bytes: &[u8],
    tape: &Tape,
    on_value: &mut F,
    buffers: &mut WalkBuffers,
) -> R<()> {
    let WalkBuffers { hashes, steps } = buffers;
    steps.clear();
    hashes.clear();
    if !tape.holds(bytes.len())
        || tape.had_bom()
        || tape.had_lone_surrogate()
        || tape.depth() > MAX_NESTING
    {
        return Err(Bail);
    }
    // One UTF-8 check of the whole body (the tape checked each string, but
    // keys and values are handed on as `str`): every string then slices
    // from it at quote positions without its own check.
    let text = std::str::from_utf8(bytes).map_err(|_| Bail)?;
    let mut w = Walker {
        s: text,
        tokens: tape.tokens(),
        decoded: tape.decoded(),
        i: 0,
        steps,
        hashes,
        on_value,
    };
    let root = fnv_fold(FNV_OFFSET, b"$");
    let first = w.next();
    w.value(first, 0, None, None, None, true, root)
}

struct Walker<'a, 's, 'c, F> {
    s: &'a str,
    tokens: &'a [Token],
    decoded: &'a str,
    /// The next token.
    i: usize,
    steps: &'s mut Vec<Step>,
    hashes: &'s mut Vec<u64>,
    on_value: &'c mut F,
}

impl<'a, F: FnMut(&str, &FieldPath<'_>, Option<&str>, &str, bool)> Walker<'a, '_, '_, F> {
    #[inline(always)]
    fn next(&mut self) -> Token {
        let token = self.tokens.get(self.i).copied().unwrap_or(Token::End);
        self.i += 1;
        token
    }

    #[inline]
    fn leaf(&mut self, hash: u64, depth: usize, kind: &[u8]) {
        if depth <= SHAPE_DEPTH && self.hashes.len() < MAX_PATHS {
            self.hashes.push(fnv_fold(fnv_fold(hash, b":"), kind));
        }
    }

    /// One value, whose first token is `token`; mirrors `scan::Node`.
    #[allow(
        clippy::too_many_arguments,
        reason = "the walk's state, as in scan::Node"
    )]
    // Inlined into the object and array loops: for small values the call
    // (seven arguments, saved registers) cost more than the work.
    #[inline(always)]
    fn value(
        &mut self,
        token: Token,
        depth: usize,
        key: Option<&str>,
        name: Option<&str>,
        parent: Option<&str>,
        shape: bool,
        hash: u64,
    ) -> R<()> {
        let (kind, text, number): (&[u8], Option<&'a str>, bool) = match token {
            Token::Object { end } => return self.object(end, depth, name, shape, hash),
            Token::Array { end } => return self.array(end, depth, name, parent, shape, hash),
            Token::String(span) => (b"string", self.s.get(span.range()), false),
            Token::DecodedString(span) => (b"string", self.decoded.get(span.range()), false),
            Token::True | Token::False => (b"bool", None, false),
            Token::Null => (b"null", None, false),
            Token::Integer(span) => (b"number", self.number(span, true)?, true),
            Token::Float(span) => (b"number", self.number(span, false)?, true),
            Token::End | Token::Key(_) | Token::DecodedKey(_) => return Err(Bail),
        };
        if shape {
            self.leaf(hash, depth, kind);
        }
        if let (Some(text), Some(key)) = (text, key) {
            let path = FieldPath::Steps {
                body: self.s,
                unescaped: self.decoded,
                steps: self.steps,
                hash,
            };
            (self.on_value)(text, &path, parent, key, number);
        }
        Ok(())
    }

    #[inline(never)]
    fn object(
        &mut self,
        end: u32,
        depth: usize,
        name: Option<&str>,
        shape: bool,
        hash: u64,
    ) -> R<()> {
        if self.open(end, depth, shape, hash, b"object")? {
            return Ok(());
        }
        let mut fields = 0usize;
        loop {
            let (key, step): (&'a str, Step) = match self.next() {
                Token::Key(span) => {
                    let range = span.range();
                    let step = Step::Key(range.start, range.end);
                    (self.s.get(range).ok_or(Bail)?, step)
                }
                Token::DecodedKey(span) => {
                    let range = span.range();
                    let step = Step::Unescaped(range.start, range.end);
                    (self.decoded.get(range).ok_or(Bail)?, step)
                }
                Token::End => return Ok(()),
                _ => return Err(Bail),
            };
            self.steps.push(step);
            let child_shape = shape && depth < SHAPE_DEPTH && fields < 64;
            let child_hash = if child_shape {
                fnv_fold(fnv_fold(hash, b"."), key.as_bytes())
            } else {
                0
            };
            let token = self.next();
            self.value(
                token,
                depth + 1,
                Some(key),
                Some(key),
                name,
                child_shape,
                child_hash,
            )?;
            self.steps.pop();
            fields += 1;
        }
    }

    #[inline(never)]
    fn array(
        &mut self,
        end: u32,
        depth: usize,
        name: Option<&str>,
        parent: Option<&str>,
        shape: bool,
        hash: u64,
    ) -> R<()> {
        if self.open(end, depth, shape, hash, b"array")? {
            return Ok(());
        }
        self.steps.push(Step::Items);
        let item_hash = if shape { fnv_fold(hash, b"[]") } else { 0 };
        let mut i = 0usize;
        loop {
            let token = self.next();
            match token {
                Token::End => break,
                _ if i < SCAN_ITEMS => {
                    let item_shape = shape && i < SHAPE_ITEMS && depth < SHAPE_DEPTH;
                    self.value(token, depth + 1, None, name, parent, item_shape, item_hash)?;
                }
                Token::Object { end } | Token::Array { end } => self.step_over(end)?,
                Token::Integer(span) => drop(self.number(span, true)?),
                Token::Float(span) => drop(self.number(span, false)?),
                _ => {}
            }
            i += 1;
        }
        self.steps.pop();
        Ok(())
    }

    /// Enters the container whose opening token was read and whose end is
    /// at `end`: reports its shape leaf, steps over it past the scan depth,
    /// and says whether it is already over (empty or stepped over), so the
    /// caller walks its members only when it is not.
    #[inline]
    fn open(&mut self, end: u32, depth: usize, shape: bool, hash: u64, kind: &[u8]) -> R<bool> {
        if shape {
            self.leaf(hash, depth, kind);
        }
        if depth >= SCAN_DEPTH {
            self.step_over(end)?;
            return Ok(true);
        }
        if self.i == end as usize {
            self.i += 1;
            return Ok(true);
        }
        Ok(false)
    }

    /// Steps past the end (at `end`) of a container whose opening token was
    /// read, reporting nothing; its numbers are still looked at, as serde_json
    /// refuses some that the tape reads.
    #[cold]
    #[inline(never)]
    fn step_over(&mut self, end: u32) -> R<()> {
        let end = end as usize;
        for token in self.tokens.get(self.i..end).unwrap_or_default() {
            match *token {
                Token::Integer(span) => drop(self.number(span, true)?),
                Token::Float(span) => drop(self.number(span, false)?),
                _ => {}
            }
        }
        self.i = end + 1;
        Ok(())
    }

    /// The number literal in `span`, as [`as_serde_u64`] reads it.
    #[inline]
    fn number(&self, span: Span, integer: bool) -> R<Option<&'a str>> {
        as_serde_u64(self.s.get(span.range()).ok_or(Bail)?, integer)
    }
}

/// A number literal's text when serde_json reads it as a `u64` (which the
/// serde walk reports), `None` for other numbers, or [`Bail`] when it may
/// be beyond `f64` (serde_json refuses those; it decides). `integer`: the
/// tape read it as an integer literal (digits, perhaps after a minus).
fn as_serde_u64(literal: &str, integer: bool) -> R<Option<&str>> {
    let b = literal.as_bytes();
    let negative = b.first() == Some(&b'-');
    if integer {
        let digits = b.len() - usize::from(negative);
        return match digits {
            n if n as i64 > MAX_MAGNITUDE => Err(Bail),
            _ if negative => Ok(None),
            // 19 digits always fit a u64; 20 may; more are parsed as f64 by serde_json.
            0..=19 => Ok(Some(literal)),
            20 => Ok(literal.parse::<u64>().is_ok().then_some(literal)),
            _ => Ok(None),
        };
    }
    let digits_start = usize::from(negative);
    let digits_end = digits_start
        + b[digits_start..]
            .iter()
            .position(|d| !d.is_ascii_digit())
            .unwrap_or(b.len() - digits_start);
    let int_digits = digits_end - digits_start;
    let mut i = digits_end;
    let mut frac_digits = 0usize;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let from = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        frac_digits = i - from;
    }
    let mut exponent: i64 = 0;
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        let negative_exp = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let digits = &b[i..];
        if digits.len() > 4 {
            return Err(Bail);
        }
        exponent = digits
            .iter()
            .fold(0, |n, d| n * 10 + i64::from(d.wrapping_sub(b'0')));
        if negative_exp {
            exponent = -exponent;
        }
    }
    // Far from f64's range edges, or left to serde_json.
    if int_digits as i64 + exponent > MAX_MAGNITUDE
        || exponent < -MAX_MAGNITUDE
        || frac_digits as i64 > MAX_MAGNITUDE
    {
        return Err(Bail);
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::super::scan::{ScanBuffers, scan_serde, scan_tape_with};
    use super::*;

    type Seen = Vec<(String, String, Option<String>, String, bool)>;

    /// A scan callback that writes down everything it is told.
    fn recorder(
        seen: &mut Seen,
    ) -> impl FnMut(&str, &FieldPath<'_>, Option<&str>, &str, bool) + '_ {
        |t, p, parent, k, n| {
            seen.push((
                t.to_string(),
                p.to_string(),
                parent.map(str::to_string),
                k.to_string(),
                n,
            ));
        }
    }

    fn fast(doc: &str) -> R<(u64, Seen)> {
        let mut seen = Vec::new();
        let shape = scan_tape_with(
            doc.as_bytes(),
            &mut Tape::new(),
            &mut recorder(&mut seen),
            &mut ScanBuffers::default(),
        )?;
        Ok((shape, seen))
    }

    fn slow(doc: &str) -> (Option<u64>, Seen) {
        let mut seen = Vec::new();
        let shape = scan_serde(
            doc.as_bytes(),
            Some(&mut recorder(&mut seen)),
            &mut ScanBuffers::default(),
        );
        (shape, seen)
    }

    /// When the tape walk accepts a document, it reports what serde reports.
    fn agrees(doc: &str) -> bool {
        match fast(doc) {
            Ok((shape, seen)) => {
                assert_eq!(
                    slow(doc),
                    (Some(shape), seen),
                    "fast and serde scans differ on {doc:?}"
                );
                true
            }
            Err(Bail) => false,
        }
    }

    #[test]
    fn agrees_with_serde_on_ordinary_bodies() {
        for doc in [
            r#"{"id":123,"name":"widget","price":9.5,"tags":["a","b"],"owner":{"id":7,"login":"ann"}}"#,
            r#"{"name":"widget","qty":2}"#,
            r#" [ {"id": "ord_8Hq2LmZ", "n": null, "ok": true, "f": false}, {"id": 2} ] "#,
            r#"{"orders":[{"id":17,"n":"a\"b"}],"user":{"login":"ann","age":-3}}"#,
            r#"{"e":"\u00e9\n\t\\\/","k\u0041":"v","nested":{"a":{"b":{"c":{"d":{"e":1}}}}}}"#,
            r#"{"big":18446744073709551615,"bigger":18446744073709551616,"f":1e10,"g":-0.5E-3}"#,
            r#"{"huge":123456789012345678901234567890,"neg":-17,"zero":0,"z":-0,"e":0e5}"#,
            r#"{"a long key with spaces":"a value longer than eight bytes","k":"\u0000 x"}"#,
            r#"{"pair":"\ud83d\ude00","k\ud83d\ude00":1}"#,
            r#"{"x":[[[[[[[[[[1]]]]]]]]]]}"#,
            r#"{"y":"日本語","z":{}}"#,
            r#""top""#,
            "42",
            "[]",
        ] {
            assert!(agrees(doc), "tape walk gave up on {doc}");
        }
        let many: Vec<String> = (0..100).map(|i| format!("{{\"id\":{i}}}")).collect();
        assert!(agrees(&format!("[{}]", many.join(","))));
        let wide: Vec<String> = (0..80).map(|i| format!("\"k{i}\":{i}")).collect();
        assert!(agrees(&format!("{{{}}}", wide.join(","))));
    }

    #[test]
    fn gives_up_where_serde_decides() {
        for doc in [
            "",
            "{",
            r#"{"a":1,}"#,
            "[1,]",
            "01",
            "1.",
            "-",
            "1e",
            r#"{"a" 1}"#,
            "{} x",
            "tru",
            r#""\ud800""#,
            "1e400",
            "\"a\u{1}b\"",
            r#""\x""#,
            r#""\u+123""#,
            "\u{feff}{}",
        ] {
            assert!(!agrees(doc), "tape walk accepted {doc:?}");
        }
        let wide_integer = "9".repeat(300);
        assert!(!agrees(&wide_integer) && !agrees(&format!("[{wide_integer}]")));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(!agrees(&deep));
        // Numbers serde_json refuses, where the walk reports nothing: past
        // the scan depth, past the items scanned.
        let deep_number = format!("{}1e400{}", "[".repeat(12), "]".repeat(12));
        let late_number = format!("[{}1e400]", "1,".repeat(70));
        assert!(!agrees(&deep_number) && !agrees(&late_number));
        let mut buffers = ScanBuffers::default();
        let not_utf8 = scan_tape_with(
            b"{\"a\":\"\xff\"}",
            &mut Tape::new(),
            &mut |_, _, _, _, _| {},
            &mut buffers,
        );
        assert_eq!(not_utf8, Err(Bail));
    }
    use proptest::prelude::*;

    /// Random JSON text: escapes, non-ASCII, big and odd numbers, nesting,
    /// whitespace; serialised by serde_json, so valid to begin with.
    fn json() -> impl Strategy<Value = serde_json::Value> {
        let key = prop::sample::select(vec![
            "id", "name", "k\"q", "é", "a.b", "", "orders", "userId", "tags", "\u{1}",
        ]);
        let leaf = prop_oneof![
            Just(serde_json::Value::Null),
            any::<bool>().prop_map(serde_json::Value::from),
            any::<u64>().prop_map(serde_json::Value::from),
            any::<i64>().prop_map(serde_json::Value::from),
            (-1e12f64..1e12).prop_map(serde_json::Value::from),
            "[a-zA-Z0-9_ /é\"\\\n-]{0,12}".prop_map(serde_json::Value::from),
        ];
        leaf.prop_recursive(5, 64, 8, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(serde_json::Value::from),
                prop::collection::vec((key.clone(), inner), 0..8).prop_map(|fields| {
                    serde_json::Value::Object(
                        fields
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Whatever the tape walk accepts, it reports exactly as serde's walk,
        /// valid documents or damaged ones (cut short, a byte replaced).
        #[test]
        fn the_tape_walk_agrees_with_serde(
            value in json(),
            pretty in any::<bool>(),
            cut in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            damage in 0u8..3,
        ) {
            let text = if pretty {
                serde_json::to_string_pretty(&value).unwrap()
            } else {
                serde_json::to_string(&value).unwrap()
            };
            let mut bytes = text.into_bytes();
            let at = cut.index(bytes.len().max(1)).min(bytes.len());
            match damage {
                1 => bytes.truncate(at),
                2 if at < bytes.len() => bytes[at] = byte,
                _ => {}
            }
            if let Ok(doc) = std::str::from_utf8(&bytes) {
                agrees(doc);
            }
        }
    }
}
