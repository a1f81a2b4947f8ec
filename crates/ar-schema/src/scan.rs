//! Inference straight from JSON bytes, without building a `serde_json::Value`.
//!
//! A small validating scanner walks the text once and counts into the schema nodes as it goes:
//! strings are borrowed from the input unless they contain escapes, numbers are classified by
//! their literal (no fraction or exponent: an integer, of any length) and never converted. Up to
//! [`MAX_DEPTH`] levels it recurses; below that it switches to an iterative skipper that still
//! checks the JSON is well formed but keeps only a one-byte-per-level stack on the heap, so
//! 100,000-deep input cannot overflow the thread's stack.
//!
//! A document can also be read optimistically, before it is known to be valid: then only counts
//! change until something else must (a new property, enum value or format narrowing), and the
//! whole document is checked first at that point; if it fails, the same code reads the bytes
//! up to the error again with `UNDO` and takes every count back.

use crate::limits::MAX_DEPTH;
use crate::node::{Node, ObjectStats};

/// How many levels of containers [`Scanner::walk`] reads by recursion before it iterates.
const WALK_RECURSION: usize = 64;

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
    /// Whether the document being read is known to be valid JSON. While it is not, inference
    /// makes only changes that [`Scanner::value`] with `UNDO` can take back (counts); before
    /// any other change, [`Scanner::confirm`] checks the whole document first.
    sure: bool,
    /// Where the document being read starts (for [`Scanner::confirm`]).
    doc_start: usize,
    /// Whether nothing but whitespace may follow the document (for [`Scanner::confirm`]).
    whole: bool,
    /// Where reading stopped when [`Scanner::confirm`] found the document invalid: everything
    /// counted so far came from the bytes before it.
    stop: Option<usize>,
    /// Whether a string decoded since this was last cleared had a lone surrogate escape
    /// (decoded as U+FFFD, where serde_json refuses the document).
    lone_surrogate: bool,
}

impl<'a> Scanner<'a> {
    /// A scanner at the start of `b`, past a UTF-8 byte-order mark if there is one.
    pub(crate) fn new(b: &'a [u8]) -> Self {
        let pos = if b.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
        Self::at(b, pos)
    }

    /// A scanner at byte `pos` of `b`.
    pub(crate) fn at(b: &'a [u8], pos: usize) -> Self {
        Self {
            b,
            pos,
            scratch: Vec::new(),
            sure: true,
            doc_start: pos,
            whole: false,
            stop: None,
            lone_surrogate: false,
        }
    }

    /// Reads the next document optimistically (see [`Scanner::sure`]); `whole`: nothing but
    /// whitespace may follow it.
    pub(crate) fn unsure(&mut self, whole: bool) {
        self.sure = false;
        self.doc_start = self.pos;
        self.whole = whole;
        self.stop = None;
    }

    /// Ends an optimistic document that failed at `failed_at` (`None`: it was read whole).
    /// Returns where to stop taking back what it counted, if anything must be: every count
    /// came from the bytes before that offset (the error's, unless [`Scanner::confirm`]
    /// stopped reading earlier). Nothing must be once the document was checked.
    pub(crate) fn settle(&mut self, failed_at: Option<usize>) -> Option<usize> {
        let sure = std::mem::replace(&mut self.sure, true);
        let stop = self.stop.take();
        failed_at.filter(|_| !sure).map(|at| stop.unwrap_or(at))
    }

    /// Checks that nothing but whitespace is left, if the document must be `whole`.
    pub(crate) fn end_document(&mut self, whole: bool) -> Result<()> {
        if whole && !self.at_end() {
            return Err(self.err("trailing characters after the JSON document"));
        }
        Ok(())
    }

    /// Before a change that counting back cannot undo, at byte `at` (where the value or key
    /// that needs it starts): checks the whole document, once. If it is invalid, reading
    /// stops here with its error, and every change so far came from the bytes before `at`.
    #[cold]
    #[inline(never)]
    fn confirm(&mut self, at: usize) -> Result<()> {
        let mut check = Scanner::at(self.b, self.doc_start);
        match check
            .skip_value()
            .and_then(|()| check.end_document(self.whole))
        {
            Ok(()) => {
                self.sure = true;
                Ok(())
            }
            Err(e) => {
                self.stop = Some(at);
                Err(e)
            }
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

    /// Reads one JSON value into `node`; with `UNDO`, takes back what reading it without
    /// being [`Scanner::sure`] counted (the scanner reads the bytes that were read then, up to
    /// where that stopped, so it takes the same paths through the same nodes).
    ///
    /// Inlined into the object and array loops, so a leaf value (string, number, literal) costs
    /// no call; containers go through [`Scanner::container`], the one recursive call.
    #[inline(always)]
    pub(crate) fn value<const UNDO: bool>(&mut self, node: &mut Node, depth: usize) -> Result<()> {
        let Some(c) = self.peek() else {
            return Err(self.err("unexpected end of input, expected a value"));
        };
        match c {
            b'"' => {
                let at = self.pos;
                self.pos += 1;
                if node.strings.wants_content() {
                    let sure = self.sure;
                    let s = self.string()?;
                    if UNDO {
                        node.strings.remove(s);
                    } else if !node.strings.add(s, sure) {
                        self.confirm(at)?;
                        self.pos = at + 1;
                        node.add_string(self.string()?);
                    }
                } else {
                    self.skip_string()?;
                    count::<UNDO>(&mut node.strings.count);
                }
                Ok(())
            }
            b'{' | b'[' => self.container::<UNDO>(node, c, depth),
            b'-' | b'0'..=b'9' => {
                if self.number()? {
                    count::<UNDO>(&mut node.ints);
                } else {
                    count::<UNDO>(&mut node.floats);
                }
                Ok(())
            }
            b'n' => self
                .literal(b"null")
                .map(|()| count::<UNDO>(&mut node.nulls)),
            b't' => self
                .literal(b"true")
                .map(|()| count::<UNDO>(&mut node.bools)),
            b'f' => self
                .literal(b"false")
                .map(|()| count::<UNDO>(&mut node.bools)),
            _ => Err(self.err("expected a JSON value")),
        }
    }

    /// Reads the object or array opening with `open` at the cursor into `node`.
    #[inline(never)]
    fn container<const UNDO: bool>(
        &mut self,
        node: &mut Node,
        open: u8,
        depth: usize,
    ) -> Result<()> {
        if depth >= MAX_DEPTH {
            count::<UNDO>(if open == b'{' {
                &mut node.objects
            } else {
                &mut node.arrays
            });
            count::<UNDO>(&mut node.capped);
            return self.skip_value();
        }
        let new = if open == b'{' {
            node.object.is_none()
        } else {
            node.array.is_none()
        };
        if !UNDO && new && !self.sure {
            self.confirm(self.pos)?;
        }
        self.pos += 1;
        if open == b'{' {
            count::<UNDO>(&mut node.objects);
            self.object::<UNDO>(node.object.get_or_insert_with(Box::default), depth)
        } else {
            count::<UNDO>(&mut node.arrays);
            let stats = node.array.get_or_insert_with(Box::default);
            count::<UNDO>(&mut stats.count);
            self.array::<UNDO>(&mut stats.items, depth)
        }
    }

    fn object<const UNDO: bool>(&mut self, stats: &mut ObjectStats, depth: usize) -> Result<()> {
        let serial = if UNDO { stats.unbegin() } else { stats.begin() };
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            if self.peek() != Some(b'"') {
                return Err(self.err("expected a string key"));
            }
            let at = self.pos;
            self.pos += 1;
            let slot = match stats.expected(&self.b[self.pos..]) {
                Some(len) => {
                    self.pos += len + 1;
                    Some(if UNDO {
                        stats.unslot_expected(serial)
                    } else {
                        stats.slot_expected(serial)
                    })
                }
                None => {
                    let sure = self.sure;
                    let key = self.string()?;
                    if UNDO {
                        stats.unslot(key, serial)
                    } else if let Some(slot) = stats.try_slot(key, serial, sure) {
                        slot
                    } else {
                        self.confirm(at)?;
                        self.pos = at + 1;
                        stats.slot(self.string()?, serial)
                    }
                }
            };
            if self.peek() != Some(b':') {
                return Err(self.err("expected ':' after an object key"));
            }
            self.pos += 1;
            let target = match slot {
                Some(i) => &mut stats.props[i].node,
                None => stats.extra_mut(),
            };
            self.value::<UNDO>(target, depth + 1)?;
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(());
                }
                _ => return Err(self.err("expected ',' or '}' in an object")),
            }
        }
    }

    fn array<const UNDO: bool>(&mut self, items: &mut Node, depth: usize) -> Result<()> {
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.value::<UNDO>(items, depth + 1)?;
            match self.peek() {
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
        self.walk_value(&mut Skip, 0)
    }

    /// Validates one value of any depth, telling `sink` each token in document order (a
    /// [`crate::Tape`] records them). Containers up to [`WALK_RECURSION`] levels below
    /// `depth` are read by recursion, which is faster; deeper ones by [`Scanner::walk_value`].
    #[inline(always)]
    pub(crate) fn walk<S: Sink>(&mut self, sink: &mut S, depth: usize) -> Result<()> {
        let Some(c) = self.peek() else {
            return Err(self.err("unexpected end of input, expected a value"));
        };
        match c {
            b'"' => {
                self.pos += 1;
                self.walk_string(sink, false)
            }
            b'{' | b'[' if depth < WALK_RECURSION => self.walk_container(sink, c, depth),
            b'{' | b'[' => self.walk_value(sink, depth),
            b'-' | b'0'..=b'9' => {
                let at = self.pos;
                let integer = self.number()?;
                sink.number(at, self.pos, integer);
                Ok(())
            }
            b't' => self.literal(b"true").map(|()| sink.literal(Literal::True)),
            b'f' => self
                .literal(b"false")
                .map(|()| sink.literal(Literal::False)),
            b'n' => self.literal(b"null").map(|()| sink.literal(Literal::Null)),
            _ => Err(self.err("expected a JSON value")),
        }
    }

    /// The object or array opening with `open` at the cursor, `depth` levels down.
    #[inline(never)]
    fn walk_container<S: Sink>(&mut self, sink: &mut S, open: u8, depth: usize) -> Result<()> {
        self.pos += 1;
        let opened = sink.open(open == b'{', depth + 1);
        if open == b'{' {
            self.walk_members(sink, depth)?;
        } else {
            self.walk_items(sink, depth)?;
        }
        sink.close(opened);
        Ok(())
    }

    /// An object's members, after its `{`, through its `}`.
    #[inline(always)]
    fn walk_members<S: Sink>(&mut self, sink: &mut S, depth: usize) -> Result<()> {
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            if !self.eat(b'"') {
                return Err(self.err("expected a string key"));
            }
            self.walk_string(sink, true)?;
            if !self.eat(b':') {
                return Err(self.err("expected ':' after an object key"));
            }
            self.walk(sink, depth + 1)?;
            if !self.more(b'}', "expected ',' or '}' in an object")? {
                return Ok(());
            }
        }
    }

    /// An array's items, after its `[`, through its `]`.
    #[inline(always)]
    fn walk_items<S: Sink>(&mut self, sink: &mut S, depth: usize) -> Result<()> {
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(());
        }
        loop {
            self.walk(sink, depth + 1)?;
            if !self.more(b']', "expected ',' or ']' in an array")? {
                return Ok(());
            }
        }
    }

    /// After a member or item: whether another follows (`,`), or the container ends
    /// (`close`); anything else is the error `expected`.
    #[inline(always)]
    fn more(&mut self, close: u8, expected: &'static str) -> Result<bool> {
        if self.eat(b',') {
            Ok(true)
        } else if self.eat(close) {
            Ok(false)
        } else {
            Err(self.err(expected))
        }
    }

    /// Validates one value of any depth without recursion, telling `sink` each token in
    /// document order; `depth`: how many levels down the value is.
    pub(crate) fn walk_value<S: Sink>(&mut self, sink: &mut S, depth: usize) -> Result<()> {
        // The open containers: their opening byte and what the sink made of them.
        let mut open: Vec<(u8, u32)> = Vec::new();
        loop {
            // A value is expected here.
            self.ws();
            match self.b.get(self.pos) {
                Some(&c @ (b'{' | b'[')) => {
                    self.pos += 1;
                    let opened = sink.open(c == b'{', depth + open.len() + 1);
                    self.ws();
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.b.get(self.pos) == Some(&close) {
                        self.pos += 1;
                        sink.close(opened);
                    } else {
                        open.push((c, opened));
                        if c == b'{' {
                            self.walk_key(sink)?;
                        }
                        continue;
                    }
                }
                Some(b'"') => {
                    self.pos += 1;
                    self.walk_string(sink, false)?;
                }
                Some(b't') => self
                    .literal(b"true")
                    .map(|()| sink.literal(Literal::True))?,
                Some(b'f') => self
                    .literal(b"false")
                    .map(|()| sink.literal(Literal::False))?,
                Some(b'n') => self
                    .literal(b"null")
                    .map(|()| sink.literal(Literal::Null))?,
                Some(b'-' | b'0'..=b'9') => {
                    let at = self.pos;
                    let integer = self.number()?;
                    sink.number(at, self.pos, integer);
                }
                None => return Err(self.err("unexpected end of input, expected a value")),
                Some(_) => return Err(self.err("expected a JSON value")),
            }
            // A value ended: close containers until one wants another element.
            loop {
                let Some(&(top, opened)) = open.last() else {
                    return Ok(());
                };
                self.ws();
                match (self.b.get(self.pos), top) {
                    (Some(b','), _) => {
                        self.pos += 1;
                        if top == b'{' {
                            self.walk_key(sink)?;
                        }
                        break;
                    }
                    (Some(b'}'), b'{') | (Some(b']'), b'[') => {
                        self.pos += 1;
                        open.pop();
                        sink.close(opened);
                    }
                    (_, b'{') => return Err(self.err("expected ',' or '}' in an object")),
                    _ => return Err(self.err("expected ',' or ']' in an array")),
                }
            }
        }
    }

    fn walk_key<S: Sink>(&mut self, sink: &mut S) -> Result<()> {
        self.ws();
        if self.b.get(self.pos) != Some(&b'"') {
            return Err(self.err("expected a string key"));
        }
        self.pos += 1;
        self.walk_string(sink, true)?;
        self.ws();
        if self.b.get(self.pos) != Some(&b':') {
            return Err(self.err("expected ':' after an object key"));
        }
        self.pos += 1;
        Ok(())
    }

    /// Checks the string whose opening quote was consumed and tells `sink` of it: as the range
    /// of the input it spans, or decoded when it has escapes (if the sink wants it decoded).
    #[inline(always)]
    fn walk_string<S: Sink>(&mut self, sink: &mut S, key: bool) -> Result<()> {
        let start = self.pos;
        let (end, escape) = self.string_end(start)?;
        self.pos = end + 1;
        match escape {
            Some(at) if S::DECODES => {
                self.lone_surrogate = false;
                self.unescape(start, at, end)?;
                sink.decoded(key, &self.scratch, self.lone_surrogate);
            }
            _ => sink.raw(key, start, end),
        }
        Ok(())
    }

    /// Reads a string whose opening quote was consumed; returns its bytes, checked to be UTF-8.
    /// Borrows the input unless the string has escapes.
    #[inline(always)]
    fn string(&mut self) -> Result<&[u8]> {
        let start = self.pos;
        let (end, escape) = self.string_end(start)?;
        self.pos = end + 1;
        match escape {
            None => Ok(&self.b[start..end]),
            Some(at) => self.unescape(start, at, end),
        }
    }

    /// Checks a string whose opening quote was consumed, as [`Scanner::string`] does, without
    /// decoding it: for positions that no longer need a string's content (see
    /// [`crate::node::StringStats::wants_content`]).
    #[inline(always)]
    fn skip_string(&mut self) -> Result<()> {
        let (end, _) = self.string_end(self.pos)?;
        self.pos = end + 1;
        Ok(())
    }

    /// Checks the string from `start` (just past its opening quote) in one pass: no control
    /// character, valid escapes, valid UTF-8. Returns the offset of its closing quote and of
    /// its first backslash, if any.
    ///
    /// Eight bytes at a time: each word says where its first quote, backslash or control
    /// character is, and the high bits of the bytes before it are collected, so UTF-8 is
    /// validated (once, over the whole string) only for strings with a non-ASCII byte.
    /// Escapes are ASCII and decode to whole characters, so the raw bytes are valid UTF-8
    /// exactly when the decoded string is.
    #[inline(always)]
    fn string_end(&self, start: usize) -> Result<(usize, Option<usize>)> {
        let b = self.b;
        let mut i = start;
        let mut high = 0u64;
        let mut escape = None;
        // The last offset a whole word can be read from (none if the input is shorter).
        let last_word = b.len().checked_sub(8);
        loop {
            // To the next quote, backslash or control character (or the end of the input).
            'run: {
                while last_word.is_some_and(|last| i <= last) {
                    let word = u64::from_le_bytes(b[i..i + 8].try_into().unwrap_or([0; 8]));
                    let stop = stops(word);
                    if stop != 0 {
                        // The bits below the first stop byte: only those are in the string.
                        high |= word & ((stop & stop.wrapping_neg()) - 1);
                        i += (stop.trailing_zeros() / 8) as usize;
                        break 'run;
                    }
                    high |= word;
                    i += 8;
                }
                // Fewer than eight bytes of input left.
                while let Some(&c) = b.get(i) {
                    if c == b'"' || c == b'\\' || c < 0x20 {
                        break;
                    }
                    high |= u64::from(c);
                    i += 1;
                }
            }
            match b.get(i) {
                Some(b'"') => break,
                Some(b'\\') => {
                    escape.get_or_insert(i);
                    i += self.escape_len(i)?;
                }
                // After an escape, a run with no quote or backslash after it is reported as
                // unterminated even if it holds a control character (as it always was).
                Some(_) if escape.is_none() || memchr::memchr2(b'"', b'\\', &b[i..]).is_some() => {
                    return Err(ScanError {
                        offset: i,
                        reason: "control character in string",
                    }
                    .into());
                }
                _ => {
                    return Err(ScanError {
                        offset: b.len(),
                        reason: "unterminated string",
                    }
                    .into());
                }
            }
        }
        if high & HIGH != 0
            && !crate::utf8::is_valid(&b[start..i])
            && let Err(e) = std::str::from_utf8(&b[start..i])
        {
            // Offsets: within a plain string, the first bad byte; with escapes, the string.
            let offset = if escape.is_some() {
                start
            } else {
                start + e.valid_up_to()
            };
            return Err(ScanError {
                offset,
                reason: "invalid UTF-8 in string",
            }
            .into());
        }
        Ok((i, escape))
    }

    /// The length of the escape sequence at `at` (a backslash), checked but not decoded.
    #[inline(always)]
    fn escape_len(&self, at: usize) -> Result<usize> {
        match self.b.get(at + 1) {
            Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(2),
            Some(b'u') if self.b.get(at + 2..at + 6).and_then(hex4).is_some() => Ok(6),
            Some(b'u') => Err(ScanError {
                offset: at,
                reason: "invalid \\u escape in string",
            }
            .into()),
            _ => Err(ScanError {
                offset: at,
                reason: "invalid escape in string",
            }
            .into()),
        }
    }

    /// Decodes the checked string `[start, end)`, whose first backslash is at `at`, into the
    /// scratch buffer.
    fn unescape(&mut self, start: usize, mut at: usize, end: usize) -> Result<&[u8]> {
        self.scratch.clear();
        self.scratch.extend_from_slice(&self.b[start..at]);
        while at < end {
            at += self.decode_escape(at)?;
            let next = memchr::memchr(b'\\', &self.b[at..end]).map_or(end, |j| at + j);
            self.scratch.extend_from_slice(&self.b[at..next]);
            at = next;
        }
        Ok(&self.scratch)
    }

    /// Appends the character the escape at `at` (a backslash) stands for to the scratch
    /// buffer; returns the escape's length.
    fn decode_escape(&mut self, at: usize) -> Result<usize> {
        let byte = match self.b.get(at + 1).copied() {
            Some(b'"') => b'"',
            Some(b'\\') => b'\\',
            Some(b'/') => b'/',
            Some(b'b') => 0x08,
            Some(b'f') => 0x0c,
            Some(b'n') => b'\n',
            Some(b'r') => b'\r',
            Some(b't') => b'\t',
            Some(b'u') => {
                let (ch, used) = self.unicode_escape(at)?;
                // A surrogate decodes only as a pair (twelve bytes).
                self.lone_surrogate |= used == 6 && ch == char::REPLACEMENT_CHARACTER && {
                    let code = self.b.get(at + 2..at + 6).and_then(hex4);
                    code.is_some_and(|c| (0xD800..0xE000).contains(&c))
                };
                let mut buf = [0u8; 4];
                self.scratch
                    .extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                return Ok(used);
            }
            _ => {
                return Err(ScanError {
                    offset: at,
                    reason: "invalid escape in string",
                }
                .into());
            }
        };
        self.scratch.push(byte);
        Ok(2)
    }

    /// Decodes `\uXXXX` (and a following low surrogate) at `i`; lone surrogates become U+FFFD.
    fn unicode_escape(&self, i: usize) -> Result<(char, usize)> {
        let hex = |at: usize| self.b.get(at..at + 4).and_then(hex4);
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
    #[inline(always)]
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

    /// Skips whitespace. Minified input has none, so one compare decides the common case.
    #[inline(always)]
    fn ws(&mut self) {
        if let Some(&c) = self.b.get(self.pos)
            && c <= b' '
        {
            self.ws_loop();
        }
    }

    /// Consumes `byte` if it is the next byte that is not whitespace (minified input, where it
    /// comes right away: one compare).
    #[inline(always)]
    fn eat(&mut self, byte: u8) -> bool {
        if self.b.get(self.pos) == Some(&byte) || self.peek() == Some(byte) {
            self.pos += 1;
            return true;
        }
        false
    }

    /// The next byte that is not whitespace, skipping to it (minified input: one compare).
    #[inline(always)]
    fn peek(&mut self) -> Option<u8> {
        match self.b.get(self.pos) {
            Some(&c) if c > b' ' => Some(c),
            _ => {
                self.ws_loop();
                self.b.get(self.pos).copied()
            }
        }
    }

    fn ws_loop(&mut self) {
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

/// What a validating walk ([`Scanner::walk_value`]) tells about the tokens it reads; offsets
/// are byte offsets in the input.
pub(crate) trait Sink {
    /// Whether strings with escapes are told decoded ([`Sink::decoded`]); otherwise every string
    /// is told as its range ([`Sink::raw`]).
    const DECODES: bool;
    /// An object (`object`) or array opens, `depth` levels down (the document is level 1);
    /// returns what [`Sink::close`] is given when it closes.
    fn open(&mut self, object: bool, depth: usize) -> u32;
    /// The innermost open container closes; `opened`: what [`Sink::open`] returned for it.
    fn close(&mut self, opened: u32);
    /// A key (`key`) or string value, `input[start..end]`, with no escapes.
    fn raw(&mut self, key: bool, start: usize, end: usize);
    /// A key or string value that had escapes, decoded; `lone_surrogate`: one of them was.
    fn decoded(&mut self, key: bool, text: &[u8], lone_surrogate: bool);
    /// A number `input[start..end]`; `integer`: its literal has no fraction and no exponent.
    fn number(&mut self, start: usize, end: usize, integer: bool);
    /// `true`, `false` or `null`.
    fn literal(&mut self, literal: Literal);
}

/// A JSON literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Literal {
    True,
    False,
    Null,
}

/// A sink that keeps nothing: [`Scanner::skip_value`].
struct Skip;

impl Sink for Skip {
    const DECODES: bool = false;
    #[inline(always)]
    fn open(&mut self, _: bool, _: usize) -> u32 {
        0
    }
    #[inline(always)]
    fn close(&mut self, _: u32) {}
    #[inline(always)]
    fn raw(&mut self, _: bool, _: usize, _: usize) {}
    #[inline(always)]
    fn decoded(&mut self, _: bool, _: &[u8], _: bool) {}
    #[inline(always)]
    fn number(&mut self, _: usize, _: usize, _: bool) {}
    #[inline(always)]
    fn literal(&mut self, _: Literal) {}
}

/// Counts one value, or takes it back with `UNDO`.
#[inline(always)]
fn count<const UNDO: bool>(n: &mut u64) {
    if UNDO {
        *n -= 1;
    } else {
        *n += 1;
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of every byte of `word` that is a quote, a backslash or a control character,
/// possibly with false positives *above* a true one (borrows propagate upwards): the lowest
/// set bit is exact, which is all the caller uses. Bytes >= 0x80 never borrow, so non-ASCII
/// text neither stops the scan nor causes false positives.
#[inline(always)]
fn stops(word: u64) -> u64 {
    // A zero byte of `x` borrows in `x - ONES` (the classic `(x - ONES) & !x & HIGH`); a byte
    // below 0x20 borrows in `word - 0x20 * ONES`. For the quote and backslash tests `x` is
    // `word` xor a byte below 0x80, so `!x & HIGH == !word & HIGH`: one mask serves all three.
    let quote = (word ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
    let backslash = (word ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
    let control = word.wrapping_sub(ONES * 0x20);
    (quote | backslash | control) & !word & HIGH
}

/// Bytes that end a plain run of a string: the quote, a backslash, control characters.
#[cfg(test)]
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

/// Four hexadecimal digits (any case) as a number.
fn hex4(h: &[u8]) -> Option<u32> {
    h.iter().try_fold(0u32, |n, &c| {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return None,
        };
        Some(n << 4 | u32::from(d))
    })
}

/// How many ASCII digits `b` starts with: eight bytes at a time (a byte is a digit exactly
/// when `c ^ b'0'` is below 10, tested on all eight at once without carries between bytes).
#[inline(always)]
fn count_digits(b: &[u8]) -> usize {
    let mut n = 0;
    while let Some(chunk) = b.get(n..n + 8) {
        let x = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])) ^ (ONES * u64::from(b'0'));
        // Per byte: the high bit is set when the low seven bits are >= 10 or the byte >= 0x80.
        let not_digit = (((x & !HIGH) + ONES * 0x76) | x) & HIGH;
        if not_digit != 0 {
            return n + (not_digit.trailing_zeros() / 8) as usize;
        }
        n += 8;
    }
    n + b[n..].iter().take_while(|c| c.is_ascii_digit()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Result<Node> {
        let mut node = Node::default();
        let mut s = Scanner::new(text.as_bytes());
        s.value::<false>(&mut node, 0)?;
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
            .value::<false>(&mut n, 0)
            .expect_err("invalid UTF-8");
        assert_eq!((err.offset, err.reason), (17, "invalid UTF-8 in string"));
        let err = scan("\"abcdefghijklmnop\u{7}\"").expect_err("control");
        assert_eq!(err.offset, 17);
        for word in [
            *b"abcdefgh",
            *b"ABCD1234",
            *b"  -_/:.~",
            *b"abc\x80efgh",
            *b"\xff\xfe\x80\xc3\xa9\xe6\x97\xa5",
        ] {
            assert_eq!(stops(u64::from_le_bytes(word)), 0, "{word:?}");
        }
        for word in [
            *b"abc\"efgh",
            *b"abc\\efgh",
            *b"abc\nefgh",
            *b"\x7f\x1f      ",
        ] {
            assert_ne!(stops(u64::from_le_bytes(word)), 0, "{word:?}");
        }
    }

    #[test]
    fn the_lowest_stop_bit_is_the_first_special_byte() {
        // Every byte value at every position, after plain or non-ASCII bytes and before any
        // bytes at all (including bytes that make the borrow trick report false positives
        // higher up); non-ASCII bytes never stop the scan.
        for special in 0u8..=255 {
            for at in 0..8 {
                for before in [b'x', 0x80, 0xff] {
                    for after in [b'a', 0x00, 0x01, b'"', 0xff] {
                        let mut word = [before; 8];
                        word[at] = special;
                        word[at + 1..].fill(after);
                        let mask = stops(u64::from_le_bytes(word));
                        if STRING_STOP[usize::from(special)] {
                            assert_eq!(mask.trailing_zeros() / 8, at as u32, "{word:?}");
                        } else {
                            assert!(mask.trailing_zeros() / 8 > at as u32, "{word:?}");
                        }
                    }
                }
            }
        }
        let node = scan(r#"{"k": "ab\"c", "key12345": "v", "a\u00e9": "é"}"#).expect("valid");
        let object = node.object.as_ref().expect("object");
        assert_eq!(object.props.len(), 3);
    }

    #[test]
    fn digits_are_counted_a_word_at_a_time() {
        for c in 0u8..=255 {
            for at in 0..12 {
                let mut text = vec![b'7'; 12];
                text[at] = c;
                let expected = if c.is_ascii_digit() { 12 } else { at };
                assert_eq!(count_digits(&text), expected, "{c:#x} at {at}");
            }
        }
    }

    #[test]
    fn strings_decode_like_serde_json_and_fail_at_the_same_offsets() {
        // Escapes and non-ASCII at every offset around the word boundaries.
        for pad in 0..18 {
            let p = "p".repeat(pad);
            for body in [
                p.clone(),
                format!("{p}\\n{p}é\\u00e9\\ud83d\\ude00{p}"),
                format!("日本{p}\\\"{p}\\/\\t"),
                format!("\\ud800{p}\\u0041"),
            ] {
                let text = format!("\"{body}\"");
                // A lone surrogate (which serde_json rejects) becomes U+FFFD.
                let expected: String =
                    serde_json::from_str(&text.replace("\\ud800", "\\ufffd")).expect("valid");
                let mut s = Scanner::new(text.as_bytes());
                s.pos = 1;
                let got = s.string().expect(&text).to_vec();
                assert_eq!(String::from_utf8(got).ok(), Some(expected), "{text}");
                assert_eq!(s.pos, text.len());
            }
            let at = pad + 1;
            for (bytes, offset, reason) in [
                (format!("\"{p}\x01\""), at, "control character in string"),
                (format!("\"{p}\\x\""), at, "invalid escape in string"),
                (
                    format!("\"{p}\\u12g4\""),
                    at,
                    "invalid \\u escape in string",
                ),
                (
                    format!("\"{p}\\n\x1f\""),
                    at + 2,
                    "control character in string",
                ),
                (format!("\"{p}\\n{p}"), 2 * pad + 3, "unterminated string"),
            ] {
                let mut s = Scanner::new(bytes.as_bytes());
                s.pos = 1;
                let err = s.skip_string().expect_err(&bytes);
                assert_eq!((err.offset, err.reason), (offset, reason), "{bytes:?}");
            }
            let p = p.as_bytes();
            for (bytes, offset) in [
                ([b"\"", p, b"\xff\""].concat(), pad + 1),
                ([b"\"", p, b"\xc3\""].concat(), pad + 1),
                ([b"\"", p, "é".as_bytes(), b"\xe9\""].concat(), pad + 3),
                // With an escape anywhere, the error points at the string.
                ([b"\"", p, b"\\n\xff\""].concat(), 1),
                ([b"\"", p, b"\xc3\\n\""].concat(), 1),
            ] {
                for skip in [false, true] {
                    let mut s = Scanner::new(&bytes);
                    s.pos = 1;
                    let err = if skip {
                        s.skip_string().expect_err("bad UTF-8")
                    } else {
                        s.string().expect_err("bad UTF-8")
                    };
                    assert_eq!(
                        (err.offset, err.reason),
                        (offset, "invalid UTF-8 in string")
                    );
                }
            }
        }
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
