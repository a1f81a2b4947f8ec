//! Inference straight from JSON bytes, without building a `serde_json::Value`.
//!
//! A small validating scanner walks the text once and counts into the schema nodes as it goes:
//! strings are borrowed from the input unless they contain escapes, numbers are classified by
//! their literal (no fraction or exponent: an integer, of any length) and never converted. Up to
//! [`MAX_DEPTH`] levels it recurses; below that it switches to an iterative skipper that still
//! checks the JSON is well formed but keeps only a one-byte-per-level stack on the heap, so
//! 100,000-deep input cannot overflow the thread's stack.

use memchr::memchr2;

use crate::limits::MAX_DEPTH;
use crate::node::{Node, ObjectStats};

/// A syntax error at a byte offset; the caller turns it into [`crate::Error`].
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct ScanError {
    pub(crate) offset: usize,
    pub(crate) reason: &'static str,
}

/// Boxed, so that every `Result` on the hot path fits in registers (errors are rare).
type Result<T> = std::result::Result<T, Box<ScanError>>;

/// A cursor over one input buffer.
pub(crate) struct Scanner<'a> {
    b: &'a [u8],
    pos: usize,
    scratch: Vec<u8>,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `b`, past a UTF-8 byte-order mark if there is one.
    pub(crate) fn new(b: &'a [u8]) -> Self {
        let pos = if b.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        Self {
            b,
            pos,
            scratch: Vec::new(),
        }
    }

    /// A scanner at byte `pos` of `b`.
    pub(crate) fn at(b: &'a [u8], pos: usize) -> Self {
        Self {
            b,
            pos,
            scratch: Vec::new(),
        }
    }

    /// Skips whitespace and says whether the input is exhausted.
    pub(crate) fn at_end(&mut self) -> bool {
        self.ws();
        self.pos >= self.b.len()
    }

    /// The current byte offset.
    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    /// Reads one JSON value into `node`.
    pub(crate) fn value(&mut self, node: &mut Node, depth: usize) -> Result<()> {
        self.ws();
        let Some(&c) = self.b.get(self.pos) else {
            return Err(self.err("unexpected end of input, expected a value"));
        };
        match c {
            b'{' => {
                node.objects += 1;
                if depth >= MAX_DEPTH {
                    node.capped += 1;
                    return self.skip_value();
                }
                self.pos += 1;
                self.object(node.object.get_or_insert_with(Box::default), depth)
            }
            b'[' => {
                node.arrays += 1;
                if depth >= MAX_DEPTH {
                    node.capped += 1;
                    return self.skip_value();
                }
                self.pos += 1;
                let stats = node.array.get_or_insert_with(Box::default);
                stats.count += 1;
                self.array(&mut stats.items, depth)
            }
            b'"' => {
                self.pos += 1;
                let s = self.string()?;
                node.add_string(s);
                Ok(())
            }
            b't' => self.literal(b"true").map(|()| node.bools += 1),
            b'f' => self.literal(b"false").map(|()| node.bools += 1),
            b'n' => self.literal(b"null").map(|()| node.nulls += 1),
            b'-' | b'0'..=b'9' => {
                if self.number()? {
                    node.ints += 1;
                } else {
                    node.floats += 1;
                }
                Ok(())
            }
            _ => Err(self.err("expected a JSON value")),
        }
    }

    fn object(&mut self, stats: &mut ObjectStats, depth: usize) -> Result<()> {
        let serial = stats.begin();
        self.ws();
        if self.b.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.ws();
            if self.b.get(self.pos) != Some(&b'"') {
                return Err(self.err("expected a string key"));
            }
            self.pos += 1;
            let slot = match stats.expected(&self.b[self.pos..]) {
                Some(len) => {
                    self.pos += len + 1;
                    Some(stats.slot_expected(serial))
                }
                None => {
                    let key = self.string()?;
                    stats.slot(key, serial)
                }
            };
            self.ws();
            if self.b.get(self.pos) != Some(&b':') {
                return Err(self.err("expected ':' after an object key"));
            }
            self.pos += 1;
            let target = match slot {
                Some(i) => &mut stats.props[i].node,
                None => stats.extra_mut(),
            };
            self.value(target, depth + 1)?;
            self.ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected ',' or '}' in an object")),
            }
        }
    }

    fn array(&mut self, items: &mut Node, depth: usize) -> Result<()> {
        self.ws();
        if self.b.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.value(items, depth + 1)?;
            self.ws();
            match self.b.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected ',' or ']' in an array")),
            }
        }
    }

    /// Validates one value of any depth without recursion and without recording it.
    pub(crate) fn skip_value(&mut self) -> Result<()> {
        let mut open: Vec<u8> = Vec::new();
        loop {
            // A value is expected here.
            self.ws();
            match self.b.get(self.pos) {
                Some(&c @ (b'{' | b'[')) => {
                    self.pos += 1;
                    self.ws();
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.b.get(self.pos) == Some(&close) {
                        self.pos += 1;
                    } else {
                        open.push(c);
                        if c == b'{' {
                            self.skip_key()?;
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    self.pos += 1;
                    self.string()?;
                }
                Some(b't') => self.literal(b"true")?,
                Some(b'f') => self.literal(b"false")?,
                Some(b'n') => self.literal(b"null")?,
                Some(b'-' | b'0'..=b'9') => {
                    self.number()?;
                }
                None => return Err(self.err("unexpected end of input, expected a value")),
                Some(_) => return Err(self.err("expected a JSON value")),
            }
            // A value ended: close containers until one wants another element.
            loop {
                let Some(&top) = open.last() else {
                    return Ok(());
                };
                self.ws();
                match (self.b.get(self.pos), top) {
                    (Some(b','), _) => {
                        self.pos += 1;
                        if top == b'{' {
                            self.skip_key()?;
                        }
                        break;
                    }
                    (Some(b'}'), b'{') | (Some(b']'), b'[') => {
                        self.pos += 1;
                        open.pop();
                    }
                    (_, b'{') => return Err(self.err("expected ',' or '}' in an object")),
                    _ => return Err(self.err("expected ',' or ']' in an array")),
                }
            }
        }
    }

    fn skip_key(&mut self) -> Result<()> {
        self.ws();
        if self.b.get(self.pos) != Some(&b'"') {
            return Err(self.err("expected a string key"));
        }
        self.pos += 1;
        self.string()?;
        self.ws();
        if self.b.get(self.pos) != Some(&b':') {
            return Err(self.err("expected ':' after an object key"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Reads a string whose opening quote was consumed; returns its bytes, checked to be UTF-8.
    /// Borrows the input unless the string has escapes.
    fn string(&mut self) -> Result<&[u8]> {
        let start = self.pos;
        let b = self.b;
        // Eight bytes at a time while they are plain ASCII (no quote, backslash, control or
        // high byte); the first word that is not says exactly where the first such byte is, so
        // a plain ASCII string ends here, with no byte loop and no UTF-8 validation.
        let mut i = start;
        for chunk in b[start..].chunks_exact(8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
            let mask = attention(word);
            if mask != 0 {
                i += (mask.trailing_zeros() / 8) as usize;
                if b[i] == b'"' {
                    self.pos = i + 1;
                    return Ok(&b[start..i]);
                }
                break;
            }
            i += 8;
        }
        let mut high = 0u8;
        while let Some(&c) = b.get(i) {
            if STRING_STOP[usize::from(c)] {
                break;
            }
            high |= c;
            i += 1;
        }
        match b.get(i) {
            None => Err(ScanError {
                offset: b.len(),
                reason: "unterminated string",
            }
            .into()),
            Some(b'"') => {
                self.pos = i + 1;
                let raw = &b[start..i];
                if high >= 0x80
                    && let Err(e) = std::str::from_utf8(raw)
                {
                    return Err(ScanError {
                        offset: start + e.valid_up_to(),
                        reason: "invalid UTF-8 in string",
                    }
                    .into());
                }
                Ok(raw)
            }
            Some(b'\\') => self.escaped_string(start),
            Some(_) => Err(ScanError {
                offset: i,
                reason: "control character in string",
            }
            .into()),
        }
    }

    fn escaped_string(&mut self, start: usize) -> Result<&[u8]> {
        self.scratch.clear();
        let mut i = start;
        loop {
            let Some(j) = memchr2(b'"', b'\\', &self.b[i..]) else {
                return Err(ScanError {
                    offset: self.b.len(),
                    reason: "unterminated string",
                }
                .into());
            };
            let raw = &self.b[i..i + j];
            check_controls(raw, i)?;
            self.scratch.extend_from_slice(raw);
            i += j;
            if self.b[i] == b'"' {
                self.pos = i + 1;
                break;
            }
            let escape = self.b.get(i + 1).copied();
            let byte = match escape {
                Some(b'"') => b'"',
                Some(b'\\') => b'\\',
                Some(b'/') => b'/',
                Some(b'b') => 0x08,
                Some(b'f') => 0x0c,
                Some(b'n') => b'\n',
                Some(b'r') => b'\r',
                Some(b't') => b'\t',
                Some(b'u') => {
                    let (ch, used) = self.unicode_escape(i)?;
                    let mut buf = [0u8; 4];
                    self.scratch
                        .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                    i += used;
                    continue;
                }
                _ => {
                    return Err(ScanError {
                        offset: i,
                        reason: "invalid escape in string",
                    }
                    .into());
                }
            };
            self.scratch.push(byte);
            i += 2;
        }
        match std::str::from_utf8(&self.scratch) {
            Ok(_) => Ok(&self.scratch),
            Err(_) => Err(ScanError {
                offset: start,
                reason: "invalid UTF-8 in string",
            }
            .into()),
        }
    }

    /// Decodes `\uXXXX` (and a following low surrogate) at `i`; lone surrogates become U+FFFD.
    fn unicode_escape(&self, i: usize) -> Result<(char, usize)> {
        let hex = |at: usize| -> Option<u32> {
            let h = self.b.get(at..at + 4)?;
            std::str::from_utf8(h)
                .ok()
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .filter(|_| h.iter().all(u8::is_ascii_hexdigit))
        };
        let Some(first) = hex(i + 2) else {
            return Err(ScanError {
                offset: i,
                reason: "invalid \\u escape in string",
            }
            .into());
        };
        if (0xD800..0xDC00).contains(&first)
            && self.b.get(i + 6..i + 8) == Some(b"\\u")
            && let Some(second) = hex(i + 8).filter(|s| (0xDC00..0xE000).contains(s))
        {
            let code = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00);
            return Ok((char::from_u32(code).unwrap_or('\u{FFFD}'), 12));
        }
        Ok((char::from_u32(first).unwrap_or('\u{FFFD}'), 6))
    }

    /// Reads a number; returns whether its literal is an integer (no fraction, no exponent).
    fn number(&mut self) -> Result<bool> {
        let b = self.b;
        let mut i = self.pos;
        if b[i] == b'-' {
            i += 1;
        }
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => i += 1 + count_digits(&b[i + 1..]),
            _ => {
                return Err(ScanError {
                    offset: i,
                    reason: "invalid number",
                }
                .into());
            }
        }
        let mut integer = true;
        if b.get(i) == Some(&b'.') {
            let n = count_digits(&b[i + 1..]);
            if n == 0 {
                return Err(ScanError {
                    offset: i + 1,
                    reason: "expected digits after '.'",
                }
                .into());
            }
            i += 1 + n;
            integer = false;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(b.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            let n = count_digits(&b[i..]);
            if n == 0 {
                return Err(ScanError {
                    offset: i,
                    reason: "expected digits in exponent",
                }
                .into());
            }
            i += n;
            integer = false;
        }
        self.pos = i;
        Ok(integer)
    }

    fn literal(&mut self, word: &'static [u8]) -> Result<()> {
        if self.b[self.pos..].starts_with(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(self.err("invalid literal (expected true, false or null)"))
        }
    }

    fn ws(&mut self) {
        while let Some(b' ' | b'\n' | b'\r' | b'\t') = self.b.get(self.pos) {
            self.pos += 1;
        }
    }

    fn err(&self, reason: &'static str) -> Box<ScanError> {
        Box::new(ScanError {
            offset: self.pos,
            reason,
        })
    }
}

/// The high bit of every byte of `word` that is a quote, a backslash, a control character or
/// non-ASCII, possibly with false positives *above* a true one (borrows propagate upwards): the
/// lowest set bit is exact, which is all the caller uses.
fn attention(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let quote = has_zero(word ^ (ONES * u64::from(b'"')));
    let backslash = has_zero(word ^ (ONES * u64::from(b'\\')));
    let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
    quote | backslash | control | (word & HIGH)
}

/// Whether any byte of `word` needs a closer look (see [`attention`]).
#[cfg(test)]
fn needs_attention(word: u64) -> bool {
    attention(word) != 0
}

/// Bytes that end the fast path of a string: the quote, a backslash, control characters.
static STRING_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = true;
        c += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

fn count_digits(b: &[u8]) -> usize {
    b.iter().take_while(|c| c.is_ascii_digit()).count()
}

fn check_controls(raw: &[u8], at: usize) -> Result<()> {
    match raw.iter().position(|&c| c < 0x20) {
        Some(p) => Err(ScanError {
            offset: at + p,
            reason: "control character in string",
        }
        .into()),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Result<Node> {
        let mut node = Node::default();
        let mut s = Scanner::new(text.as_bytes());
        s.value(&mut node, 0)?;
        if !s.at_end() {
            return Err(s.err("trailing characters"));
        }
        Ok(node)
    }

    #[test]
    fn agrees_with_the_value_path() {
        let text =
            r#"{"a":[1,2.5,"x\n\u00e9\ud83d\ude00",null,true,{"b":{}}],"c":-1,"d":"2024-01-01"}"#;
        let value: serde_json::Value = serde_json::from_str(text).expect("valid");
        let mut expected = Node::default();
        crate::value::add(&mut expected, &value, 0);
        assert_eq!(scan(text).expect("valid"), expected);
    }

    #[test]
    fn rejects_bad_json_with_offsets() {
        for (text, offset) in [
            ("{\"a\" 1}", 5),
            ("[1,]", 3),
            ("[01]", 2),
            ("\"abc", 4),
            ("{\"a\":tru}", 5),
            ("[1.]", 3),
            ("\"\\x\"", 1),
            ("\"a\u{1}\"", 2),
            ("[1 2]", 3),
        ] {
            let err = scan(text).expect_err(text);
            assert_eq!(err.offset, offset, "{text}: {}", err.reason);
        }
    }

    #[test]
    fn deep_nesting_is_skipped_without_recursion() {
        let depth = 100_000;
        let text = format!("{}1{}", "[{\"a\":".repeat(depth), "}]".repeat(depth));
        let node = scan(&text).expect("valid deep JSON");
        assert_eq!(node.arrays, 1);
        let bad = format!("{}{}", "[".repeat(depth), "]".repeat(depth - 1));
        assert!(scan(&bad).is_err());
    }

    #[test]
    fn long_strings_take_the_word_at_a_time_path_correctly() {
        let node = scan("\"abcdefghijklmnopqrstuvwxyzé0123456789\"").expect("valid");
        assert_eq!(node.strings.count, 1);
        let mut n = Node::default();
        let bad = b"\"abcdefghijklmnop\xff\"";
        let err = Scanner::new(bad)
            .value(&mut n, 0)
            .expect_err("invalid UTF-8");
        assert_eq!((err.offset, err.reason), (17, "invalid UTF-8 in string"));
        let err = scan("\"abcdefghijklmnop\u{7}\"").expect_err("control");
        assert_eq!(err.offset, 17);
        for word in [*b"abcdefgh", *b"ABCD1234", *b"  -_/:.~"] {
            assert!(!needs_attention(u64::from_le_bytes(word)));
        }
        for word in [
            *b"abc\"efgh",
            *b"abc\\efgh",
            *b"abc\nefgh",
            *b"abc\x80efgh",
            *b"\x7f\x1f      ",
        ] {
            assert!(needs_attention(u64::from_le_bytes(word)), "{word:?}");
        }
    }

    #[test]
    fn the_lowest_attention_bit_is_the_first_special_byte() {
        // Every byte value at every position, after plain bytes and before any bytes at all
        // (including bytes that make the borrow trick report false positives higher up).
        for special in (0u8..=255).filter(|c| STRING_STOP[usize::from(*c)] || *c >= 0x80) {
            for at in 0..8 {
                for after in [b'a', 0x00, 0x01, b'"', 0xff] {
                    let mut word = [b'x'; 8];
                    word[at] = special;
                    word[at + 1..].fill(after);
                    let mask = attention(u64::from_le_bytes(word));
                    assert_eq!(mask.trailing_zeros() / 8, at as u32, "{word:?}");
                }
            }
        }
        let node = scan(r#"{"k": "ab\"c", "key12345": "v", "a\u00e9": "é"}"#).expect("valid");
        let object = node.object.as_ref().expect("object");
        assert_eq!(object.props.len(), 3);
    }

    #[test]
    fn keys_matched_raw_agree_with_keys_scanned() {
        // Prefixes, reordering, escaped spellings of a plain name, names that need escapes,
        // duplicates: each key counts once per object, under its decoded name.
        let text = r#"[{"id":1,"id_str":"x","a\"b":0},{"id_str":"y","id":2,"a\"b":1},
            {"i\u0064":3,"id":4,"a\"b":2},{"id":5,"id":6}]"#;
        let node = scan(text).expect("valid");
        let items = &node.array.as_ref().expect("array").items;
        let object = items.object.as_ref().expect("object");
        let present = |name: &str| object.prop(name).map(|p| (p.present, p.node.count()));
        assert_eq!(present("id"), Some((4, 6)));
        assert_eq!(present("id_str"), Some((2, 2)));
        assert_eq!(present("a\"b"), Some((3, 3)));
        assert_eq!(object.props.len(), 3);
    }

    #[test]
    fn short_and_long_keys_matched_raw() {
        // Names around the one-word compare (7 bytes + quote), an empty name, near misses.
        let text = r#"[{"":0,"abcdefg":1,"abcdefgh":2,"abcdef":3},{"":0,"abcdefg":1,"abcdefgh":2,"abcdef":3},
            {"abcdefgx":1,"abcdefg":2,"abcdefghi":3,"abcdefgh":4,"abcdeg":5}]"#;
        let node = scan(text).expect("valid");
        let items = &node.array.as_ref().expect("array").items;
        let object = items.object.as_ref().expect("object");
        for (name, present) in [
            ("", 2),
            ("abcdefg", 3),
            ("abcdefgh", 3),
            ("abcdef", 2),
            ("abcdefgx", 1),
            ("abcdefghi", 1),
            ("abcdeg", 1),
        ] {
            assert_eq!(
                object.prop(name).map(|p| p.present),
                Some(present),
                "{name:?}"
            );
        }
        assert_eq!(object.props.len(), 7);
    }

    #[test]
    fn big_integers_are_integers() {
        let node = scan("[123456789012345678901234567890123, -1e400, 1.0]").expect("valid");
        let items = &node.array.as_ref().expect("array").items;
        assert_eq!((items.ints, items.floats), (1, 2));
    }
}
