//! A JSON body checked on a [`Tape`]: its tokens, read once, walked by the walk of `body.rs`
//! with no `serde_json::Value` built for it.
//!
//! The store reads each body it documents onto a tape; a flow handed over with that tape
//! ([`Payload::tape`](super::Payload::tape)) is checked on it without reading the text again,
//! and any other text is read onto the drift's own tape first. Either way the verdict is the
//! one the walk over the text's `Value` gives:
//!
//! - The text is JSON exactly when `serde_json::from_slice::<Value>` takes it. A tape takes a
//!   little more (a byte-order mark, a lone surrogate escape, numbers beyond `f64`, nesting
//!   deeper than serde_json's recursion limit), so a tape holding any of those is not JSON.
//! - A number is typed as the `Value` would hold it: an integer literal is an integer, and any
//!   other literal is read by serde_json and is an integer when it has no fraction (`2.0`).
//! - The walk meets an object's members in the order sent, the `Value` in name order. Issues
//!   are kept by kind and place, and each place is one schema's (a path names each step: a
//!   property, `.*` for `additionalProperties`, `[*]` for items), so the order changes an
//!   issue only where the walk's bounds cut in. A key the walk checks met twice in one object
//!   is the other difference (a `Value` keeps its last value). In those cases the text is
//!   parsed and the walk over its `Value` decides.

use ar_schema::{Span, Tape, Token};
use serde_json::Value;

use super::body::{self, Json, MAX_STEPS, Scratch, Side, Walk};
use super::finding::Issue;
use super::shape::{ShapeId, Shapes};
use crate::types::TypeSet;

/// serde_json refuses a document nested this deep or deeper (its recursion limit).
const SERDE_DEPTH_LIMIT: usize = 128;

/// The issues `text`, read onto `tape`, raises against `schema` (`None`: it is only read), or
/// `None` when the text is not JSON. `tape` must hold `text` as [`Tape::read`] read it; an
/// empty tape is a text that did not read. The walk writes in `scratch`.
pub(super) fn check(
    shapes: &Shapes,
    schema: Option<ShapeId>,
    tape: &Tape,
    text: &[u8],
    side: Side,
    scratch: &mut Scratch,
) -> Option<Vec<Issue>> {
    if !is_json(tape, text) {
        return None;
    }
    let Some(id) = schema else {
        return Some(Vec::new());
    };
    let root = OnTape {
        tokens: tape.tokens(),
        text,
        decoded: tape.decoded(),
        at: 0,
    };
    let mut seen = std::mem::take(&mut scratch.seen);
    seen.clear();
    let path = &mut scratch.path;
    path.clear();
    path.push('$');
    let mut walk = Walk::new(shapes, side, MAX_STEPS, seen);
    walk.check(id, root, path, 0);
    scratch.seen = std::mem::take(&mut walk.seen);
    if walk.whole() {
        return Some(walk.issues());
    }
    let value: Value = serde_json::from_slice(text).ok()?;
    Some(body::check(shapes, id, &value, side))
}

/// Whether serde_json takes the text `tape` holds.
fn is_json(tape: &Tape, text: &[u8]) -> bool {
    if !tape.holds(text.len())
        || tape.had_bom()
        || tape.had_lone_surrogate()
        || tape.depth() >= SERDE_DEPTH_LIMIT
    {
        return false;
    }
    // A number serde_json reads as a float must fit one.
    tape.tokens().iter().all(|token| match *token {
        Token::Float(span) => plain(&text[span.range()]).is_some() || float(text, span).is_some(),
        Token::Integer(span) if span.len() > INTEGER_DIGITS => float(text, span).is_some(),
        _ => true,
    })
}

/// An integer literal this long or shorter fits `i64` or `u64` (serde_json reads a longer one
/// as a float, which may not fit).
const INTEGER_DIGITS: usize = 19;

/// The number literal at `span` as serde_json reads it into a `Value`, or `None` when it does
/// not fit an `f64` (serde_json refuses the document then).
fn float(text: &[u8], span: Span) -> Option<f64> {
    serde_json::from_slice::<f64>(&text[span.range()])
        .ok()
        .filter(|f| f.is_finite())
}

/// Whether a float literal (JSON's syntax) reads as an integer (`2.0`), when its digits alone
/// tell; `None` when it must be parsed. A literal of at most [`PLAIN_DIGITS`] digits and no
/// exponent is finite, and serde_json reads it as its digits over a power of ten, both exact
/// in an `f64`: one rounding, so the value read is within 2⁻⁵³ of the literal's, relatively.
/// A literal of 15 digits or fewer with a digit other than `0` after the point is at least
/// 10⁻¹⁵ of its value from any integer, so it reads as an integer exactly when every digit
/// after the point is `0`. Parsing costs a hundred instructions or more; this, a few a digit.
fn plain(literal: &[u8]) -> Option<bool> {
    let literal = literal.strip_prefix(b"-").unwrap_or(literal);
    if literal.len() > PLAIN_DIGITS + 1 {
        return None;
    }
    let point = literal.iter().position(|&b| b == b'.')?;
    let fraction = &literal[point + 1..];
    // An exponent (`e`, `E`, a sign) follows the fraction, if any.
    if !fraction.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(fraction.iter().all(|&b| b == b'0'))
}

/// The type a `Value` gives the float literal at `span`: an integer when it has no fraction.
#[inline(never)]
fn float_type(text: &[u8], span: Span) -> TypeSet {
    let integer = plain(&text[span.range()])
        .or_else(|| float(text, span).map(|f| f.fract() == 0.0))
        .unwrap_or(false);
    if integer {
        TypeSet::INTEGER
    } else {
        TypeSet::NUMBER
    }
}

/// Digits a float literal may have to be read by [`plain`].
const PLAIN_DIGITS: usize = 15;

/// A value on a tape: the token it starts at.
#[derive(Clone, Copy)]
struct OnTape<'t> {
    tokens: &'t [Token],
    text: &'t [u8],
    decoded: &'t str,
    at: usize,
}

impl<'t> OnTape<'t> {
    fn at(self, at: usize) -> OnTape<'t> {
        OnTape { at, ..self }
    }

    /// The index of the token after this value.
    fn after(self) -> usize {
        match self.tokens[self.at] {
            Token::Object { end } | Token::Array { end } => end as usize + 1,
            _ => self.at + 1,
        }
    }

    /// What an object (`object`) or an array holds: the index of its first key or value, and of
    /// its end; empty for any other value.
    fn inside(self, object: bool) -> std::ops::Range<usize> {
        match self.tokens[self.at] {
            Token::Object { end } if object => self.at + 1..end as usize,
            Token::Array { end } if !object => self.at + 1..end as usize,
            _ => 0..0,
        }
    }

    /// The key at `at` (UTF-8: the tape checked it).
    fn key(self, at: usize) -> &'t [u8] {
        match self.tokens[at] {
            Token::Key(span) => &self.text[span.range()],
            Token::DecodedKey(span) => &self.decoded.as_bytes()[span.range()],
            _ => b"",
        }
    }
}

impl<'t> Json<'t> for OnTape<'t> {
    // Inlined: asked of every value, mostly to learn it is a plain scalar. A float's type,
    // which may take reading its digits, is worked out apart so that this stays small.
    #[inline]
    fn found(self) -> Option<TypeSet> {
        match self.tokens[self.at] {
            Token::Object { .. } => Some(TypeSet::OBJECT),
            Token::Array { .. } => Some(TypeSet::ARRAY),
            Token::String(_) | Token::DecodedString(_) => Some(TypeSet::STRING),
            Token::Integer(_) => Some(TypeSet::INTEGER),
            Token::Float(span) => Some(float_type(self.text, span)),
            Token::True | Token::False => Some(TypeSet::BOOLEAN),
            // Never at a value's place on a tape `Tape::read` wrote.
            Token::Null | Token::End | Token::Key(_) | Token::DecodedKey(_) => None,
        }
    }

    fn items(self) -> impl Iterator<Item = Self> {
        let range = self.inside(false);
        let mut at = range.start;
        std::iter::from_fn(move || {
            (at < range.end).then(|| {
                let item = self.at(at);
                at = item.after();
                item
            })
        })
    }

    fn members(self) -> impl Iterator<Item = (&'t [u8], Self)> {
        let range = self.inside(true);
        let mut at = range.start;
        std::iter::from_fn(move || {
            (at < range.end).then(|| {
                let value = self.at(at + 1);
                let member = (self.key(at), value);
                at = value.after();
                member
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::drift::body::tests::root;

    /// Checks `text` as the drift does with a text it was given alone: read onto a tape.
    fn read_and_check(
        shapes: &Shapes,
        schema: Option<ShapeId>,
        text: &[u8],
        side: Side,
    ) -> Option<Vec<Issue>> {
        let mut tape = Tape::new();
        let _ = tape.read(text);
        check(shapes, schema, &tape, text, side, &mut Scratch::default())
    }

    /// Whether the walk on the tape went the whole way (else the `Value` decided).
    fn whole(shapes: &Shapes, id: ShapeId, text: &str) -> bool {
        let mut tape = Tape::new();
        if tape.read(text.as_bytes()).is_err() || !is_json(&tape, text.as_bytes()) {
            return true;
        }
        let root = OnTape {
            tokens: tape.tokens(),
            text: text.as_bytes(),
            decoded: tape.decoded(),
            at: 0,
        };
        let mut walk = Walk::new(shapes, Side::Response, MAX_STEPS, Vec::new());
        walk.check(id, root, &mut String::from("$"), 0);
        walk.whole()
    }

    /// Schemas, each with bodies, every one held both ways.
    fn corpus() -> Vec<(Value, Vec<String>)> {
        let user = json!({"$ref": "#/components/schemas/User"});
        let texts = |t: &[&str]| t.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
        let nest = |levels: usize| "[".repeat(levels) + "1" + &"]".repeat(levels);
        let mut nested = json!({"type": "string"});
        for _ in 0..100 {
            nested = json!({"type": "array", "items": nested});
        }
        let wide: Vec<String> = (0..1000).map(|i| format!("\"k{i}\": {i}")).collect();
        let long = format!("[{}]", vec!["1"; 210_000].join(","));
        vec![
            (
                user.clone(),
                texts(&[
                    r#"{"id": 1, "name": "a", "age": null, "tags": ["x"], "meta": {"a": 1.5, "b": 2}, "free": {"anything": [1]}}"#,
                    r#"{"id": 2.0, "name": null, "age": "3", "tags": ["x", 4, null], "meta": {"a": "no"}, "extra": {"deep": 1}}"#,
                    r#"{"name": "a"}"#,
                    r#"{}"#,
                    r#"[]"#,
                    r#""user""#,
                    r#"null"#,
                    r#"{"name": "a", "pet": {"kind": "dog", "bark": true}}"#,
                    r#"{"name": "a", "pet": {"kind": "dog", "bark": "loud"}}"#,
                    r#"{"name": "a", "pet": {"kind": 3, "meow": 1}}"#,
                    r#"{"name": "a", "pet": [1]}"#,
                    r#"{"grid": [[1, 2.5], [3, "x"], "row", [[1]]], "tags": [[1], {"a": 1}]}"#,
                    r#"{"id": 18446744073709551616, "age": -9223372036854775809, "name": 1e3}"#,
                    r#"{"id": 123456789012345678901234567890, "age": 1.0e2, "meta": {"x": -0, "y": 1E-2}}"#,
                    r#"{"id": 1e400}"#,
                    r#"{"extra": [1e400]}"#,
                    r#"{"extra": 1000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000}"#,
                    &format!(r#"{{"age": 1{}}}"#, "0".repeat(400)),
                    r#"{"age": 4503599627370496.5, "id": 0.30000000000000000001, "name": -0.0}"#,
                    r#"{"n\u0061me": 1, "\u00e9t\u00e9": true, "tags": ["\ud83d\ude00", "\u0000"]}"#,
                    r#"{"name": "\ud800"}"#,
                    "\u{feff}{\"name\": \"a\"}",
                    r#"{"name": "a", "name": 1}"#,
                    r#"{"name": 1, "name": "a"}"#,
                    r#"{"name": 1, "n\u0061me": "a"}"#,
                    r#"{"meta": {"a": 1, "a": "x"}}"#,
                    r#"{"meta": {"a": "x", "a": 1}}"#,
                    r#"{"extra": 1, "extra": 2, "free": {"a": 1, "a": [1]}}"#,
                    r#"{"id": 1, "name": "a"#,
                    r#"{"id": 1, "name": "a""#,
                    r#"{"tags": ["x", 1"#,
                    r#"{"id": 1,}"#,
                    r#"{"id": 1} x"#,
                    "",
                    "   ",
                    r#"{"id": 01}"#,
                    r#"{"id": NaN}"#,
                    "{\"name\": \"tab\there\"}",
                ]),
            ),
            (
                json!({"type": "array", "items": {"$ref": "#/components/schemas/User"}}),
                texts(&[
                    r#"[{"name": 1, "tags": [null]}, {"meta": {"a": "b"}}, 3, null]"#,
                    r#"[{"name": "a", "password": "p"}, {"name": "b", "id": 3, "name": "c"}]"#,
                    r#"[{"name": "a"}, {"name": "b"]"#,
                ]),
            ),
            (
                json!({"$ref": "#/components/schemas/Node"}),
                texts(&[
                    r#"{"v": "a", "next": {"v": 1, "next": {"v": true, "next": {"v": [1], "z": 1}}}}"#,
                    r#"{"v": null, "next": null}"#,
                    r#"{"v": 1, "v": "x"}"#,
                ]),
            ),
            (
                json!({"anyOf": [{"$ref": "#/components/schemas/User"}, {"type": "string"}]}),
                texts(&[
                    r#"{"name": "a", "password": 3}"#,
                    r#""s""#,
                    r#"1.5"#,
                    r#"{"name": "a", "name": 2}"#,
                    r#"{"name": "a""#,
                ]),
            ),
            (
                json!({"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": true}),
                texts(&["null", "[1]", "2.0", "2.5", "true", "{\"a\": 1}"]),
            ),
            (
                json!({"type": "object", "additionalProperties": false}),
                texts(&[
                    r#"{"a b": 1, "c'd": 2, "e\\f": 3}"#,
                    "{}",
                    r#"{"a": 1, "a": 2}"#,
                ]),
            ),
            (
                json!({"properties": {"a": {"type": "integer"}}, "additionalProperties": true}),
                texts(&[r#"{"b": 1, "a": "x"}"#]),
            ),
            (
                json!({"properties": {"a": {}}, "patternProperties": {"^x": {}}}),
                texts(&[r#"{"x1": 1, "b": 2}"#]),
            ),
            (
                // Required names not all listed, one twice.
                json!({"type": "object", "required": ["z", "a", "b", "b"], "properties": {"a": {}},
                       "additionalProperties": {"type": "string"}}),
                texts(&[
                    r#"{"a": 1}"#,
                    r#"{"b": "x", "z": 2}"#,
                    r#"{"z": "x", "b": "y", "a": 1}"#,
                ]),
            ),
            (
                json!({"type": "object", "required": ["b"], "properties": {"a": {"type": "string"}}}),
                texts(&[
                    r#"{"a": "x"}"#,
                    r#"{"b": null, "a": 1}"#,
                    &format!("{{{}}}", wide.join(",")),
                ]),
            ),
            (
                json!({"$ref": "#/components/schemas/Missing"}),
                texts(&[r#"{"a": 1}"#, "[1"]),
            ),
            (
                nested,
                (126..=130)
                    .map(nest)
                    .chain([nest(100), nest(200)])
                    .collect(),
            ),
            (
                json!({"type": "array", "items": {"type": "integer"}}),
                vec![long],
            ),
        ]
    }

    /// Each body of the corpus, on a tape and through the walk over its value.
    #[test]
    fn checks_as_the_walk_over_the_value_does() {
        let root = root();
        let mut shapes = Shapes::default();
        let mut walked = Vec::new();
        let mut not_json = 0;
        // Schemas are known by their address: each must stay where it is.
        let corpus = corpus();
        for (schema, texts) in &corpus {
            let id = shapes.compile(&root, schema);
            for text in texts {
                let short: String = text.chars().take(120).collect();
                for side in [Side::Request, Side::Response] {
                    let by_value = serde_json::from_str::<Value>(text)
                        .ok()
                        .map(|value| body::check(&shapes, id, &value, side));
                    let on_tape = read_and_check(&shapes, Some(id), text.as_bytes(), side);
                    assert_eq!(format!("{on_tape:?}"), format!("{by_value:?}"), "{short}");
                    let read = read_and_check(&shapes, None, text.as_bytes(), side);
                    assert_eq!(read.is_some(), by_value.is_some(), "{short}");
                }
                not_json += usize::from(serde_json::from_str::<Value>(text).is_err());
                if !whole(&shapes, id, text) {
                    walked.push(text.get(..30).unwrap_or(text).to_owned());
                }
            }
        }
        // The value is read only where a key repeats or a bound cuts in.
        assert_eq!(
            walked,
            [
                r#"{"name": "a", "name": 1}"#,
                r#"{"name": 1, "name": "a"}"#,
                r#"{"name": 1, "n\u0061me": "a"}"#,
                r#"{"meta": {"a": 1, "a": "x"}}"#,
                r#"{"meta": {"a": "x", "a": 1}}"#,
                r#"[{"name": "a", "password": "p""#,
                r#"{"v": 1, "v": "x"}"#,
                r#"{"name": "a", "name": 2}"#,
                r#"{"k0": 0,"k1": 1,"k2": 2,"k3":"#,
                r#"[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"#,
            ]
        );
        assert_eq!(not_json, 22);
    }

    #[test]
    fn a_repeated_key_counts_as_a_value_holds_it_its_last() {
        let root = root();
        let mut shapes = Shapes::default();
        let id = shapes.compile(&root, &json!({"$ref": "#/components/schemas/User"}));
        let names = |text: &str| -> Vec<String> {
            read_and_check(&shapes, Some(id), text.as_bytes(), Side::Request)
                .expect("JSON")
                .into_iter()
                .map(|issue| format!("{} {}", issue.kind.id(), issue.name))
                .collect()
        };
        assert_eq!(
            names(r#"{"name": 1, "password": "p", "name": "a"}"#),
            Vec::<String>::new()
        );
        assert_eq!(
            names(r#"{"name": "a", "password": "p", "name": 1}"#),
            ["wrong_type $.name"]
        );
        assert_eq!(
            names(r#"{"name": "a", "password": "p", "meta": {"a": "x", "a": 1}}"#),
            Vec::<String>::new()
        );
        // Keys not checked may repeat, and the walk on the tape still goes the whole way.
        let text = r#"{"name": "a", "password": "p", "x": 1, "x": 2, "free": {"a": 1, "a": 2}}"#;
        assert!(whole(&shapes, id, text));
        assert_eq!(names(text), ["undocumented_field $.x"]);
    }

    #[test]
    fn a_float_read_by_its_digits_reads_as_serde_json_reads_it() {
        let mut literals: Vec<String> = [
            "0.0",
            "-0.0",
            "2.0",
            "-2.000",
            "9.99",
            "0.1",
            "0.000000000000001",
            "1.5e0",
            "1E2",
            "99999999999999.0",
            "99999999999999.9",
            "999999999999999.0",
            "0.30000000000000004",
            "4503599627370496.5",
            "9007199254740993.0",
            "123456789012.345",
        ]
        .map(str::to_owned)
        .to_vec();
        let mut n = 7_u64;
        let mut next = |below: u64| {
            n = n
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (n >> 33) % below
        };
        for _ in 0..20_000 {
            let digits = 2 + next(16);
            let point = 1 + next(digits - 1);
            let zeros = next(digits - point + 1);
            let mut literal = String::new();
            for at in 0..digits {
                if at == point {
                    literal.push('.');
                }
                let digit = if at >= digits - zeros { 0 } else { next(10) };
                literal.push(char::from(b'0' + digit as u8));
            }
            let literal = literal.trim_start_matches('0');
            let literal = if literal.starts_with('.') {
                format!("0{literal}")
            } else {
                literal.to_owned()
            };
            literals.push(literal);
        }
        let mut read = 0;
        for literal in &literals {
            let parsed = serde_json::from_str::<f64>(literal).unwrap();
            if let Some(integer) = plain(literal.as_bytes()) {
                assert_eq!(integer, parsed.fract() == 0.0, "{literal}");
                read += 1;
            }
        }
        assert!(read > 15_000, "{read}");
        for long in ["4503599627370496.5", "0.30000000000000004", "1.5e0", "1E2"] {
            assert_eq!(plain(long.as_bytes()), None);
        }
    }

    #[test]
    fn a_tape_that_holds_another_text_is_no_json() {
        let shapes = Shapes::default();
        let mut tape = Tape::new();
        tape.read(b"[1, 2]").unwrap();
        let mut scratch = Scratch::default();
        assert!(check(&shapes, None, &tape, b"[1,2]", Side::Response, &mut scratch).is_none());
        assert!(
            check(
                &shapes,
                None,
                &tape,
                b"[1, 2]",
                Side::Response,
                &mut scratch
            )
            .is_some()
        );
    }
}
