//! A hand-written fast path for [`super::scan`]: the same walk over a JSON
//! body, without serde's visitor machinery.
//!
//! It reports exactly what the serde walk reports (the same scalar
//! callbacks in the same order, the same shape fingerprint) for the
//! documents it accepts, and it is stricter than serde_json: anything it is
//! not sure about (a lone surrogate escape, a float near the edge of `f64`,
//! deep nesting, any syntax error) makes it give up with [`Bail`], and the
//! caller rolls back what the callback collected and runs the serde walk,
//! which decides. Giving up is always correct, only slower; so the fast path
//! never has to reproduce serde_json's error cases, only its successes.
//!
//! Key path hashes are incremental: FNV-1a is a left fold over bytes, so the
//! hash of `$.owner.login:string` continues from the hash of `$.owner`
//! instead of rehashing the whole path at every leaf.

use std::borrow::Cow;

use super::fieldpath::{FieldPath, Step};
use super::scan::{MAX_PATHS, SCAN_DEPTH, SCAN_ITEMS, SHAPE_DEPTH, SHAPE_ITEMS};

/// The fast path gave up; the serde walk must decide.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Bail;

type R<T> = Result<T, Bail>;

/// Containers nested deeper than this make the fast path give up (serde_json's limit is 128).
const MAX_NESTING: usize = 100;
/// Floats whose decimal magnitude may exceed this are left to serde_json (range errors).
const MAX_MAGNITUDE: i64 = 250;

/// Bytes that end the ordinary run of a string: the quote, a backslash, control characters.
const SPECIAL: [bool; 256] = {
    let mut table = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        table[c] = true;
        c += 1;
    }
    table[b'"' as usize] = true;
    table[b'\\' as usize] = true;
    table
};

/// Where the first byte at or after `from` that [`SPECIAL`] marks is
/// (`b.len()` when none): eight bytes at a time while eight remain (keys
/// and values are mostly a word or less), the rest one by one.
#[inline(always)]
fn special_at(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(word) = b.get(i..i + 8).and_then(|w| <[u8; 8]>::try_from(w).ok()) {
        let marks = special_bytes(u64::from_le_bytes(word));
        if marks != 0 {
            return i + marks.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    i + b.get(i..).map_or(0, |rest| {
        rest.iter()
            .position(|&c| SPECIAL[usize::from(c)])
            .unwrap_or(rest.len())
    })
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `word` (little-endian) below 0x20, equal
/// to `"` or to `\`; exact up to the lowest marked byte (a borrow can
/// only mark bytes above it), which is all [`special_at`] reads.
#[inline]
fn special_bytes(word: u64) -> u64 {
    let below = |x: u64, n: u64| x.wrapping_sub(ONES * n) & !x & HIGHS;
    below(word, 0x20)
        | below(word ^ (ONES * u64::from(b'"')), 1)
        | below(word ^ (ONES * u64::from(b'\\')), 1)
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0100_0000_01b3;

#[inline]
fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// The buffers a fast scan fills, kept by the caller between bodies.
#[derive(Debug, Default)]
pub(crate) struct FastBuffers {
    /// Leaf hashes in document order.
    pub(crate) hashes: Vec<u64>,
    /// The steps from the root to the current value.
    pub(crate) steps: Vec<Step>,
    /// Keys with escapes on the current path, decoded.
    pub(crate) unescaped: String,
}

/// Scans `bytes`, pushing leaf hashes into `buffers.hashes` (in document
/// order; every buffer is cleared first), or gives up with [`Bail`].
///
/// `on_value` is generic (not `dyn`, as in the serde walk) so the
/// caller's test of each scalar compiles into the walk. Paths reach it as
/// steps ([`FieldPath::Steps`]): building the text of every path cost more
/// than the rest of a field's work, and it is read for few values.
pub(crate) fn scan_fast<F: FnMut(&str, &FieldPath<'_>, Option<&str>, &str, bool)>(
    bytes: &[u8],
    on_value: &mut F,
    buffers: &mut FastBuffers,
) -> R<()> {
    let FastBuffers {
        hashes,
        steps,
        unescaped,
    } = buffers;
    steps.clear();
    unescaped.clear();
    hashes.clear();
    // One UTF-8 check of the whole body: every string then slices from it
    // at quote positions (ASCII, so char boundaries) without its own check.
    let text = std::str::from_utf8(bytes).map_err(|_| Bail)?;
    let mut p = Parser {
        s: text,
        b: bytes,
        i: 0,
        steps,
        unescaped,
        hashes,
        on_value,
    };
    p.ws();
    let root = fnv(FNV_OFFSET, b"$");
    let first = p.peek()?;
    p.value(first, 0, None, None, None, true, root)?;
    p.ws();
    if p.i != p.b.len() {
        return Err(Bail);
    }
    Ok(())
}

struct Parser<'a, 's, 'c, F> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    steps: &'s mut Vec<Step>,
    unescaped: &'s mut String,
    hashes: &'s mut Vec<u64>,
    on_value: &'c mut F,
}

impl<'a, F: FnMut(&str, &FieldPath<'_>, Option<&str>, &str, bool)> Parser<'a, '_, '_, F> {
    #[inline]
    fn peek(&self) -> R<u8> {
        self.b.get(self.i).copied().ok_or(Bail)
    }

    #[inline]
    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\t' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    #[inline]
    fn leaf(&mut self, hash: u64, depth: usize, kind: &[u8]) {
        if depth <= SHAPE_DEPTH && self.hashes.len() < MAX_PATHS {
            self.hashes.push(fnv(fnv(hash, b":"), kind));
        }
    }

    /// One value starting with byte `c` (at `self.i`); mirrors `scan::Node`.
    #[allow(
        clippy::too_many_arguments,
        reason = "the walk's state, as in scan::Node"
    )]
    // Inlined into the object and array loops: for small values the call
    // (seven arguments, saved registers) cost more than the work.
    #[inline(always)]
    fn value(
        &mut self,
        c: u8,
        depth: usize,
        key: Option<&str>,
        name: Option<&str>,
        parent: Option<&str>,
        shape: bool,
        hash: u64,
    ) -> R<()> {
        let (kind, text, number): (&[u8], Option<Cow<'a, str>>, bool) = match c {
            b'{' => return self.object(depth, name, shape, hash),
            b'[' => return self.array(depth, name, parent, shape, hash),
            b'"' => {
                self.i += 1;
                (b"string", Some(self.string()?), false)
            }
            b't' => (self.literal(b"true")?, None, false),
            b'f' => (self.literal(b"false")?, None, false),
            b'n' => (self.literal(b"null")?, None, false),
            b'-' | b'0'..=b'9' => (b"number", self.number()?.map(Cow::Borrowed), true),
            _ => return Err(Bail),
        };
        if shape {
            self.leaf(hash, depth, kind);
        }
        if let (Some(text), Some(key)) = (text, key) {
            let path = FieldPath::Steps {
                body: self.s,
                unescaped: self.unescaped,
                steps: self.steps,
                hash,
            };
            (self.on_value)(&text, &path, parent, key, number);
        }
        Ok(())
    }

    /// `true` / `false` / `null`: the kind name for the shape.
    fn literal(&mut self, word: &'static [u8]) -> R<&'static [u8]> {
        if self.b.get(self.i..self.i + word.len()) != Some(word) {
            return Err(Bail);
        }
        self.i += word.len();
        Ok(if word == b"null" { b"null" } else { b"bool" })
    }

    #[inline(never)]
    fn object(&mut self, depth: usize, name: Option<&str>, shape: bool, hash: u64) -> R<()> {
        if self.open(b'}', depth, shape, hash, b"object")? {
            return Ok(());
        }
        let mut fields = 0usize;
        loop {
            if self.peek()? != b'"' {
                return Err(Bail);
            }
            self.i += 1;
            let key_start = self.i;
            let key = self.string()?;
            self.ws();
            if self.peek()? != b':' {
                return Err(Bail);
            }
            self.i += 1;
            self.ws();
            let unescaped_len = self.unescaped.len();
            self.steps.push(match &key {
                // A borrowed key is the body's text right after its quote.
                Cow::Borrowed(k) => Step::Key(key_start, key_start + k.len()),
                Cow::Owned(k) => {
                    self.unescaped.push_str(k);
                    Step::Unescaped(unescaped_len, self.unescaped.len())
                }
            });
            let child_shape = shape && depth < SHAPE_DEPTH && fields < 64;
            let child_hash = if child_shape {
                fnv(fnv(hash, b"."), key.as_bytes())
            } else {
                0
            };
            let c = self.peek()?;
            self.value(
                c,
                depth + 1,
                Some(&key),
                Some(&key),
                name,
                child_shape,
                child_hash,
            )?;
            self.steps.pop();
            if let Cow::Owned(_) = key {
                self.unescaped.truncate(unescaped_len);
            }
            fields += 1;
            if self.closed(b'}')? {
                return Ok(());
            }
        }
    }

    #[inline(never)]
    fn array(
        &mut self,
        depth: usize,
        name: Option<&str>,
        parent: Option<&str>,
        shape: bool,
        hash: u64,
    ) -> R<()> {
        if self.open(b']', depth, shape, hash, b"array")? {
            return Ok(());
        }
        self.steps.push(Step::Items);
        let item_hash = if shape { fnv(hash, b"[]") } else { 0 };
        let mut i = 0usize;
        loop {
            let c = self.peek()?;
            if i < SCAN_ITEMS {
                let item_shape = shape && i < SHAPE_ITEMS && depth < SHAPE_DEPTH;
                self.value(c, depth + 1, None, name, parent, item_shape, item_hash)?;
            } else {
                self.skip(c, depth + 1)?;
            }
            i += 1;
            if self.closed(b']')? {
                break;
            }
        }
        self.steps.pop();
        Ok(())
    }

    /// Enters the container at `self.i`: reports its shape leaf, skips it
    /// past the scan depth, and says whether it is already over (empty or
    /// skipped), so the caller walks its members only when it is not.
    #[inline]
    fn open(&mut self, close: u8, depth: usize, shape: bool, hash: u64, kind: &[u8]) -> R<bool> {
        self.i += 1;
        if shape {
            self.leaf(hash, depth, kind);
        }
        if depth >= SCAN_DEPTH {
            return self.skip_rest(close, depth).map(|()| true);
        }
        self.ws();
        if self.peek()? == close {
            self.i += 1;
            return Ok(true);
        }
        Ok(false)
    }

    /// After a member: `,` (more follow) or `close` (the container ends).
    #[inline]
    fn closed(&mut self, close: u8) -> R<bool> {
        self.ws();
        match self.peek()? {
            b',' => {
                self.i += 1;
                self.ws();
                Ok(false)
            }
            c if c == close => {
                self.i += 1;
                Ok(true)
            }
            _ => Err(Bail),
        }
    }

    /// Validates one value without reporting anything.
    #[cold]
    #[inline(never)]
    fn skip(&mut self, c: u8, depth: usize) -> R<()> {
        match c {
            b'{' => {
                self.i += 1;
                self.skip_rest(b'}', depth)
            }
            b'[' => {
                self.i += 1;
                self.skip_rest(b']', depth)
            }
            b'"' => {
                self.i += 1;
                self.string().map(drop)
            }
            b't' => self.literal(b"true").map(drop),
            b'f' => self.literal(b"false").map(drop),
            b'n' => self.literal(b"null").map(drop),
            b'-' | b'0'..=b'9' => self.number().map(drop),
            _ => Err(Bail),
        }
    }

    /// Validates the rest of a container whose opening byte was consumed.
    #[cold]
    #[inline(never)]
    fn skip_rest(&mut self, close: u8, depth: usize) -> R<()> {
        if depth >= MAX_NESTING {
            return Err(Bail);
        }
        self.ws();
        if self.peek()? == close {
            self.i += 1;
            return Ok(());
        }
        loop {
            if close == b'}' {
                if self.peek()? != b'"' {
                    return Err(Bail);
                }
                self.i += 1;
                self.string()?;
                self.ws();
                if self.peek()? != b':' {
                    return Err(Bail);
                }
                self.i += 1;
                self.ws();
            }
            let c = self.peek()?;
            self.skip(c, depth + 1)?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.i += 1;
                    self.ws();
                }
                c if c == close => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(Bail),
            }
        }
    }

    /// The rest of a string whose opening quote was consumed, unescaped.
    // Inlined at its two callers (keys, values): as a call it cost more
    // than the search.
    #[inline(always)]
    fn string(&mut self) -> R<Cow<'a, str>> {
        let b = self.b;
        let start = self.i;
        let i = special_at(b, start);
        self.i = i;
        match b.get(i) {
            Some(b'"') => {
                let text = self.s.get(start..i).ok_or(Bail)?;
                self.i = i + 1;
                Ok(Cow::Borrowed(text))
            }
            Some(b'\\') => self.escaped(start).map(Cow::Owned),
            _ => Err(Bail),
        }
    }

    /// A string with escapes (rare in API bodies): decoded into an owned string.
    #[cold]
    #[inline(never)]
    fn escaped(&mut self, start: usize) -> R<String> {
        let b = self.b;
        let mut out: Vec<u8> = b[start..self.i].to_vec();
        loop {
            let c = *b.get(self.i).ok_or(Bail)?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = *b.get(self.i).ok_or(Bail)?;
                    self.i += 1;
                    match e {
                        b'"' | b'\\' | b'/' => out.push(e),
                        b'b' => out.push(0x08),
                        b'f' => out.push(0x0c),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let hex = self.s.get(self.i..self.i + 4).ok_or(Bail)?;
                            if !hex.bytes().all(|d| d.is_ascii_hexdigit()) {
                                return Err(Bail);
                            }
                            let code = u32::from_str_radix(hex, 16).map_err(|_| Bail)?;
                            self.i += 4;
                            // Surrogates (pairs or lone) are left to serde_json.
                            let ch = char::from_u32(code).ok_or(Bail)?;
                            let mut buf = [0u8; 4];
                            out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                        }
                        _ => return Err(Bail),
                    }
                }
                0..=0x1f => return Err(Bail),
                _ => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|_| Bail)
    }

    /// A number; its text when serde_json would report it as a `u64`.
    fn number(&mut self) -> R<Option<&'a str>> {
        let b = self.b;
        let start = self.i;
        let negative = b.get(start) == Some(&b'-');
        let digits_start = start + usize::from(negative);
        let digits_end = digits_start
            + b.get(digits_start..).map_or(0, |rest| {
                rest.iter()
                    .position(|d| !d.is_ascii_digit())
                    .unwrap_or(rest.len())
            });
        let int_digits = digits_end - digits_start;
        self.i = digits_end;
        match b.get(digits_start) {
            Some(b'0') if int_digits > 1 => return Err(Bail),
            Some(b'0'..=b'9') => {}
            _ => return Err(Bail),
        }
        // The common case, a plain unsigned integer: nothing more to read.
        if !negative && !matches!(b.get(digits_end), Some(b'.' | b'e' | b'E')) {
            let text = self.s.get(start..digits_end).ok_or(Bail)?;
            // 19 digits always fit a u64; 20 may; more are parsed as f64 by serde_json.
            return match int_digits {
                0..=19 => Ok(Some(text)),
                20 => Ok(text.parse::<u64>().is_ok().then_some(text)),
                n if n as i64 > MAX_MAGNITUDE => Err(Bail),
                _ => Ok(None),
            };
        }
        let mut frac_digits = 0usize;
        if b.get(self.i) == Some(&b'.') {
            self.i += 1;
            let from = self.i;
            while b.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
            frac_digits = self.i - from;
            if frac_digits == 0 {
                return Err(Bail);
            }
        }
        let mut exponent: i64 = 0;
        if let Some(b'e' | b'E') = b.get(self.i) {
            self.i += 1;
            let negative_exp = match b.get(self.i) {
                Some(b'-') => {
                    self.i += 1;
                    true
                }
                Some(b'+') => {
                    self.i += 1;
                    false
                }
                _ => false,
            };
            let from = self.i;
            while let Some(d) = b.get(self.i).filter(|d| d.is_ascii_digit()) {
                exponent = exponent * 10 + i64::from(d - b'0');
                self.i += 1;
                if self.i - from > 4 {
                    return Err(Bail);
                }
            }
            if self.i == from {
                return Err(Bail);
            }
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
}

#[cfg(test)]
mod tests {
    use super::super::scan::{ScanBuffers, scan_fast_with, scan_serde};
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
        let shape = scan_fast_with(
            doc.as_bytes(),
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

    /// When the fast path accepts a document, it reports what serde reports.
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
            r#"{"x":[[[[[[[[[[1]]]]]]]]]]}"#,
            r#"{"y":"日本語","z":{}}"#,
            r#""top""#,
            "42",
            "[]",
        ] {
            assert!(agrees(doc), "fast path gave up on {doc}");
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
            r#""\ud83d\ude00""#,
            r#""\ud800""#,
            "1e400",
            "\"a\u{1}b\"",
            r#""\x""#,
            r#""\u+123""#,
            "\u{feff}{}",
        ] {
            assert!(!agrees(doc), "fast path accepted {doc:?}");
        }
        let wide_integer = "9".repeat(300);
        assert!(!agrees(&wide_integer) && !agrees(&format!("[{wide_integer}]")));
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(!agrees(&deep));
        assert_eq!(
            scan_fast(
                b"{\"a\":\"\xff\"}",
                &mut |_, _, _, _, _| {},
                &mut FastBuffers::default()
            ),
            Err(Bail)
        );
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

        /// The word-at-a-time search finds the byte the table marks first.
        #[test]
        fn special_at_agrees_with_the_byte_table(
            bytes in prop::collection::vec(
                prop_oneof![Just(b'"'), Just(b'\\'), 0u8..0x20, 0x20u8..=0xff],
                0..40,
            ),
            from in 0usize..40,
        ) {
            let from = from.min(bytes.len());
            let by_table = bytes[from..]
                .iter()
                .position(|&c| SPECIAL[usize::from(c)])
                .map_or(bytes.len(), |at| from + at);
            prop_assert_eq!(special_at(&bytes, from), by_table);
        }

        /// Whatever the fast path accepts, it reports exactly as serde's walk,
        /// valid documents or damaged ones (cut short, a byte replaced).
        #[test]
        fn fast_scan_agrees_with_serde(
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
