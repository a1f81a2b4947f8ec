//! A JSON document read once into tokens, for several readers to walk.
//!
//! A program that wants more than a schema from a body (a fingerprint of its shape, the values
//! in it) would otherwise parse it once per use. A [`Tape`] is that one parse: the scanner that
//! checks documents for [`SchemaBuilder::add_json_slice`](crate::SchemaBuilder::add_json_slice)
//! reads the document and writes down its tokens, strings as ranges of the input (decoded
//! only when they have escapes) and containers with the index of their end, so a reader can
//! step over what it does not want. Each reader then walks twelve-byte tokens instead of
//! scanning text, and [`SchemaBuilder::add_tape`](crate::SchemaBuilder::add_tape) infers from
//! them what `add_json_slice` infers from the text.

use std::ops::Range;

use crate::error::Error;
use crate::limits::MAX_DEPTH;
use crate::node::Node;
use crate::scan::{Literal, Scanner, Sink};

/// A range `at..at + len`: of the document, or of the tape's [decoded text](Tape::decoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    at: u32,
    len: u32,
}

impl Span {
    /// The range as indexes.
    #[inline]
    pub fn range(self) -> Range<usize> {
        self.at as usize..self.at as usize + self.len as usize
    }

    /// Where the range starts.
    #[inline]
    pub fn start(self) -> usize {
        self.at as usize
    }

    /// How many bytes it spans.
    #[inline]
    pub fn len(self) -> usize {
        self.len as usize
    }

    /// Whether it spans nothing (`""`).
    #[inline]
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    fn new(range: Range<usize>) -> Self {
        // `Tape::read` refuses documents whose offsets do not fit.
        Self {
            at: range.start as u32,
            len: (range.end - range.start) as u32,
        }
    }
}

/// One token of a document on a [`Tape`], in document order.
///
/// An object is [`Token::Object`], then each member as a key token and its value's tokens,
/// then [`Token::End`]; an array the same with items and no keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    /// `{`; its [`Token::End`] is at index `end` of [`Tape::tokens`].
    Object {
        /// The index of the matching [`Token::End`].
        end: u32,
    },
    /// `[`; its [`Token::End`] is at index `end` of [`Tape::tokens`].
    Array {
        /// The index of the matching [`Token::End`].
        end: u32,
    },
    /// The end of the innermost open object or array.
    End,
    /// An object key without escapes: the document's bytes in the span.
    Key(Span),
    /// An object key that had escapes, decoded: [`Tape::decoded`] in the span.
    DecodedKey(Span),
    /// A string value without escapes: the document's bytes in the span.
    String(Span),
    /// A string value that had escapes, decoded: [`Tape::decoded`] in the span.
    DecodedString(Span),
    /// A number whose literal (the document's bytes in the span) has no fraction and no
    /// exponent, however many digits it has.
    Integer(Span),
    /// Any other number literal.
    Float(Span),
    /// `true`.
    True,
    /// `false`.
    False,
    /// `null`.
    Null,
}

/// The tokens of one JSON document, read once ([`Tape::read`]) and walked by any number of
/// readers. Reading again reuses the buffers, so a long-lived tape allocates only while the
/// documents it reads keep growing.
///
/// A tape holds twelve bytes per token, plus the decoded text of strings with escapes: up to
/// six times the document for an array of one-digit numbers, about 1.2 times it for typical API
/// bodies. Read large documents with
/// [`SchemaBuilder::add_json_slice`](crate::SchemaBuilder::add_json_slice), whose memory does
/// not grow with the document.
///
/// ```
/// use ar_schema::{SchemaBuilder, Tape, Token};
///
/// let body = br#"{"id": 7, "tags": ["a", "b\n"]}"#;
/// let mut tape = Tape::new();
/// tape.read(body).unwrap();
/// let keys: Vec<&str> = tape
///     .tokens()
///     .iter()
///     .filter_map(|t| match *t {
///         Token::Key(span) => std::str::from_utf8(&body[span.range()]).ok(),
///         _ => None,
///     })
///     .collect();
/// assert_eq!(keys, ["id", "tags"]);
/// assert_eq!(tape.decoded(), "b\n");
///
/// // The same schema as from the text, without reading the text again.
/// let mut from_tape = SchemaBuilder::new();
/// from_tape.add_tape(&tape, body);
/// let mut from_text = SchemaBuilder::new();
/// from_text.add_json_slice(body).unwrap();
/// assert_eq!(from_tape.schema(), from_text.schema());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Tape {
    tokens: Vec<Token>,
    decoded: String,
    /// The length of the document read, which readers are given again.
    len: usize,
    depth: usize,
    bom: bool,
    lone_surrogate: bool,
}

/// The most tokens [`Tape::shrink`] keeps room for (768 KiB): enough for the bodies an API
/// sends again and again, so a tape kept between them does not grow anew for each (that cost
/// 0.4% of `ar import` on an API of large answers with room for 4,096).
const KEEP_TOKENS: usize = 1 << 16;
/// The most bytes of decoded text [`Tape::shrink`] keeps room for.
const KEEP_DECODED: usize = 1 << 14;

impl Tape {
    /// An empty tape.
    pub fn new() -> Self {
        Self::default()
    }

    /// Reads `body`, one JSON document (a UTF-8 byte-order mark and whitespace around it
    /// allowed), replacing what the tape held. Accepts exactly what
    /// [`SchemaBuilder::add_json_slice`](crate::SchemaBuilder::add_json_slice) accepts, and
    /// fails with the same error; after an error the tape holds no document.
    ///
    /// A document longer than `u32::MAX` bytes is refused ([`Error::TooLong`]); such bodies
    /// are read by `add_json_slice` alone, which keeps no tokens.
    pub fn read(&mut self, body: &[u8]) -> Result<(), Error> {
        self.tokens.clear();
        self.decoded.clear();
        self.len = body.len();
        self.depth = 0;
        self.bom = body.starts_with(b"\xEF\xBB\xBF");
        self.lone_surrogate = false;
        if u32::try_from(body.len()).is_err() {
            self.len = 0;
            return Err(Error::TooLong { len: body.len() });
        }
        let mut scanner = Scanner::new(body);
        let read = scanner
            .walk(&mut Recorder(self), 0)
            .and_then(|()| scanner.end_document(true));
        read.map_err(|e| {
            self.tokens.clear();
            self.len = 0;
            Error::syntax(body, e.offset, e.reason)
        })
    }

    /// Forgets the document read (keeping the buffers), so the tape holds none.
    pub fn clear(&mut self) {
        self.tokens.clear();
        self.decoded.clear();
        self.len = 0;
    }

    /// The tokens, in document order; empty when no document was read.
    #[inline]
    pub fn tokens(&self) -> &[Token] {
        &self.tokens
    }

    /// The decoded text of the strings and keys that had escapes, one after another
    /// ([`Token::DecodedKey`] and [`Token::DecodedString`] point into it).
    #[inline]
    pub fn decoded(&self) -> &str {
        &self.decoded
    }

    /// Whether the tape holds a document read from a body of `len` bytes.
    #[inline]
    pub fn holds(&self, len: usize) -> bool {
        !self.tokens.is_empty() && self.len == len
    }

    /// The deepest nesting of objects and arrays (0 for a scalar document).
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Whether the document started with a UTF-8 byte-order mark, which the tape skipped
    /// (JSON parsers such as serde_json refuse it).
    pub fn had_bom(&self) -> bool {
        self.bom
    }

    /// Whether a string or key had a `\u` escape of a lone surrogate, which the tape decoded as
    /// U+FFFD (as schema inference does; serde_json refuses the document).
    pub fn had_lone_surrogate(&self) -> bool {
        self.lone_surrogate
    }

    /// Drops buffers a large document grew beyond what ordinary documents need, so a tape kept
    /// between documents holds bounded memory; the document read stays readable only if
    /// nothing was dropped, so call it once the readers are done.
    pub fn shrink(&mut self) {
        if self.tokens.capacity() > KEEP_TOKENS {
            self.tokens = Vec::new();
            self.len = 0;
        }
        if self.decoded.capacity() > KEEP_DECODED {
            self.decoded = String::new();
            self.tokens.clear();
            self.len = 0;
        }
    }
}

/// Writes the tokens a scanner reads onto a tape.
struct Recorder<'t>(&'t mut Tape);

impl Recorder<'_> {
    #[inline(always)]
    fn push(&mut self, token: Token) {
        self.0.tokens.push(token);
    }

    fn decoded_span(&mut self, text: &[u8]) -> Span {
        let start = self.0.decoded.len();
        // A decoded string is UTF-8 (the scanner checked the input and escapes decode to
        // whole characters), so this never replaces anything.
        self.0.decoded.push_str(&String::from_utf8_lossy(text));
        Span::new(start..self.0.decoded.len())
    }
}

impl Sink for Recorder<'_> {
    const DECODES: bool = true;

    #[inline(always)]
    fn open(&mut self, object: bool, depth: usize) -> u32 {
        self.0.depth = self.0.depth.max(depth);
        let at = self.0.tokens.len() as u32;
        self.push(if object {
            Token::Object { end: 0 }
        } else {
            Token::Array { end: 0 }
        });
        at
    }

    #[inline(always)]
    fn close(&mut self, opened: u32) {
        let end = self.0.tokens.len() as u32;
        if let Some(Token::Object { end: at } | Token::Array { end: at }) =
            self.0.tokens.get_mut(opened as usize)
        {
            *at = end;
        }
        self.push(Token::End);
    }

    #[inline(always)]
    fn raw(&mut self, key: bool, start: usize, end: usize) {
        let span = Span::new(start..end);
        self.push(if key {
            Token::Key(span)
        } else {
            Token::String(span)
        });
    }

    #[cold]
    fn decoded(&mut self, key: bool, text: &[u8], lone_surrogate: bool) {
        self.0.lone_surrogate |= lone_surrogate;
        let span = self.decoded_span(text);
        self.push(if key {
            Token::DecodedKey(span)
        } else {
            Token::DecodedString(span)
        });
    }

    #[inline(always)]
    fn number(&mut self, start: usize, end: usize, integer: bool) {
        let span = Span::new(start..end);
        self.push(if integer {
            Token::Integer(span)
        } else {
            Token::Float(span)
        });
    }

    #[inline(always)]
    fn literal(&mut self, literal: Literal) {
        self.push(match literal {
            Literal::True => Token::True,
            Literal::False => Token::False,
            Literal::Null => Token::Null,
        });
    }
}

/// Counts the document on `tape` (read from `body`) into `root`, as the scanner counts it from
/// the text.
pub(crate) fn add(root: &mut Node, tape: &Tape, body: &[u8]) {
    let mut reader = Reader {
        tokens: &tape.tokens,
        decoded: tape.decoded.as_bytes(),
        body,
        i: 0,
    };
    reader.value(root, 0);
}

struct Reader<'a> {
    tokens: &'a [Token],
    decoded: &'a [u8],
    body: &'a [u8],
    /// The next token.
    i: usize,
}

impl Reader<'_> {
    #[inline(always)]
    fn next(&mut self) -> Token {
        let token = self.tokens.get(self.i).copied().unwrap_or(Token::End);
        self.i += 1;
        token
    }

    #[inline(always)]
    fn value(&mut self, node: &mut Node, depth: usize) {
        match self.next() {
            Token::String(span) => string(node, self.body.get(span.range()).unwrap_or_default()),
            Token::DecodedString(span) => {
                string(node, self.decoded.get(span.range()).unwrap_or_default());
            }
            Token::Integer(_) => node.ints += 1,
            Token::Float(_) => node.floats += 1,
            Token::True | Token::False => node.bools += 1,
            Token::Null => node.nulls += 1,
            Token::Object { end } => self.container(node, true, end, depth),
            Token::Array { end } => self.container(node, false, end, depth),
            // Never at a value's place on a tape `Tape::read` wrote.
            Token::End | Token::Key(_) | Token::DecodedKey(_) => {}
        }
    }

    /// An object or array whose opening token was read; `end`: the index of its end.
    #[inline(never)]
    fn container(&mut self, node: &mut Node, object: bool, end: u32, depth: usize) {
        if object {
            node.objects += 1;
        } else {
            node.arrays += 1;
        }
        if depth >= MAX_DEPTH {
            node.capped += 1;
            self.i = end as usize + 1;
            return;
        }
        if object {
            let stats = node.object.get_or_insert_with(Box::default);
            let serial = stats.begin();
            loop {
                let slot = match self.next() {
                    Token::Key(span) => {
                        let rest = self.body.get(span.start()..).unwrap_or_default();
                        match stats.expected(rest) {
                            Some(_) => Some(stats.slot_expected(serial)),
                            None => stats.slot(&rest[..span.len().min(rest.len())], serial),
                        }
                    }
                    Token::DecodedKey(span) => {
                        stats.slot(self.decoded.get(span.range()).unwrap_or_default(), serial)
                    }
                    _ => break,
                };
                let target = match slot {
                    Some(i) => &mut stats.props[i].node,
                    None => stats.extra_mut(),
                };
                self.value(target, depth + 1);
            }
        } else {
            let stats = node.array.get_or_insert_with(Box::default);
            stats.count += 1;
            while !matches!(self.tokens.get(self.i), Some(Token::End) | None) {
                self.value(&mut stats.items, depth + 1);
            }
            self.i += 1;
        }
    }
}

/// One string value: its content counts while the position still wants it.
#[inline(always)]
fn string(node: &mut Node, s: &[u8]) {
    if node.strings.wants_content() {
        node.add_string(s);
    } else {
        node.strings.count += 1;
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::SchemaBuilder;
    use crate::testing::{damage, damaged, text};

    #[test]
    fn a_token_is_twelve_bytes() {
        assert_eq!(std::mem::size_of::<Token>(), 12);
    }

    #[test]
    fn containers_point_at_their_end() {
        let text = br#" [{"a": [1, 2.5]}, {}, "x\u00e9"] "#;
        let span = |at, len| Span { at, len };
        let mut tape = Tape::new();
        tape.read(text).unwrap();
        assert_eq!(
            tape.tokens(),
            [
                Token::Array { end: 11 },
                Token::Object { end: 7 },
                Token::Key(span(4, 1)),
                Token::Array { end: 6 },
                Token::Integer(span(9, 1)),
                Token::Float(span(12, 3)),
                Token::End,
                Token::End,
                Token::Object { end: 9 },
                Token::End,
                Token::DecodedString(span(0, 3)),
                Token::End,
            ]
        );
        assert_eq!(tape.decoded(), "xé");
        assert_eq!(tape.depth(), 3);
        assert!(tape.holds(text.len()) && !tape.holds(text.len() - 1));
    }

    #[test]
    fn tells_what_serde_json_would_refuse() {
        let mut tape = Tape::new();
        tape.read(b"\xEF\xBB\xBF{\"a\":\"\\ud800x\"}").unwrap();
        assert!(tape.had_bom() && tape.had_lone_surrogate());
        assert_eq!(tape.decoded(), "\u{FFFD}x");
        tape.read(br#"["\ud83d\ude00", "\ufffd"]"#).unwrap();
        assert!(!tape.had_bom() && !tape.had_lone_surrogate());
        assert_eq!(tape.decoded(), "😀\u{FFFD}");
    }

    #[test]
    fn refuses_what_add_json_slice_refuses_with_its_error() {
        let mut tape = Tape::new();
        for text in ["{\"a\" 1}", "[1,]", "\"abc", "[1] x", "", "[\"\\x\"]"] {
            let from_tape = tape.read(text.as_bytes()).expect_err(text).to_string();
            let from_text = SchemaBuilder::new()
                .add_json_slice(text.as_bytes())
                .expect_err(text)
                .to_string();
            assert_eq!(from_tape, from_text);
            assert!(tape.tokens().is_empty() && !tape.holds(text.len()));
        }
    }

    #[test]
    fn deep_documents_are_read_without_recursion_and_capped_in_the_schema() {
        let depth = 100_000;
        let text = format!("{}1{}", "[{\"a\":".repeat(depth), "}]".repeat(depth));
        let mut tape = Tape::new();
        tape.read(text.as_bytes()).unwrap();
        assert_eq!(tape.depth(), 2 * depth);
        let mut from_tape = SchemaBuilder::new();
        from_tape.add_tape(&tape, text.as_bytes());
        let mut from_text = SchemaBuilder::new();
        from_text.add_json_slice(text.as_bytes()).unwrap();
        assert_eq!(from_tape.schema(), from_text.schema());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]

        /// A damaged document (cut short, a byte replaced, removed or inserted) is refused by
        /// the tape exactly when `add_json_slice` refuses it, with the same error.
        #[test]
        fn a_tape_refuses_what_the_text_refuses(source in text(), how in damage()) {
            let bytes = damaged(&source, &how);
            let mut tape = Tape::new();
            let from_tape = tape.read(&bytes).map_err(|e| e.to_string());
            let from_text = SchemaBuilder::new().add_json_slice(&bytes).map_err(|e| e.to_string());
            prop_assert_eq!(tape.holds(bytes.len()), from_tape.is_ok());
            prop_assert_eq!(from_tape, from_text);
        }

        /// Documents added from tapes build the schema the same documents build from their
        /// text, one after another into one builder.
        #[test]
        fn a_tape_infers_what_the_text_infers(documents in prop::collection::vec(text(), 1..6)) {
            let mut from_tape = SchemaBuilder::new();
            let mut from_text = SchemaBuilder::new();
            let mut tape = Tape::new();
            for text in &documents {
                tape.read(text.as_bytes()).unwrap();
                from_tape.add_tape(&tape, text.as_bytes());
                from_text.add_json_slice(text.as_bytes()).unwrap();
                prop_assert_eq!(from_tape.schema(), from_text.schema());
            }
        }
    }
}
