//! YAML that YAML 1.1 and YAML 1.2 readers read back alike.
//!
//! serde_norway writes YAML 1.2, and leaves plain what only YAML 1.2 reads as
//! a string: `on`, `yes`, `n`, `1_000`, `1:20`, `017`, `2024-05-01`, `<<`, `=`.
//! PyYAML, which openapi-spec-validator reads specs with, speaks YAML 1.1 and
//! takes them for booleans, numbers, dates or merge keys: a property named
//! `on` became the key `True` and its `required` entry `True`, and the spec
//! was invalid. serde_norway also writes line separators and NEL raw inside
//! single quotes, where a YAML 1.1 reader folds them into spaces.
//!
//! This emitter keeps serde_norway's layout, so that a spec without such
//! strings is byte-for-byte what it was: block style, two-space indentation,
//! a sequence under a mapping key not indented (`required:` then `- a`), a
//! mapping in a sequence starting on the dash's line (`- name: a`), `{}` and
//! `[]` for empty collections, no line folding, `? key` then `: value` for a
//! key longer than 128 bytes or spanning lines, and multi-line strings as
//! literal blocks where that is faithful. What changes is the choice of
//! quotes: a string is plain only when neither version could read it as
//! anything else; otherwise single-quoted when every character can be
//! written raw on one line; otherwise double-quoted with escapes.

use std::fmt::Write as _;
use std::sync::LazyLock;

use regex::Regex;
use serde_norway::{Mapping, Value};

use crate::error::Error;

/// `value` as a YAML document.
///
/// Fails only on a mapping key that is a collection or on a tagged value,
/// neither of which an OpenAPI document has.
pub(crate) fn to_string(value: &Value) -> Result<String, Error> {
    let mut emitter = Emitter { out: String::new() };
    emitter.node(value, After::Nothing)?;
    emitter.out.push('\n');
    Ok(emitter.out)
}

/// What precedes a node on its line.
#[derive(Debug, Clone, Copy)]
enum After {
    /// Nothing: the node is the document.
    Nothing,
    /// `key:` written at this column.
    Key(usize),
    /// `-`, `?` or `:` written at this column: a collection starts on the
    /// same line (`- name: a`, `- - a`).
    Indicator(usize),
}

struct Emitter {
    out: String,
}

impl Emitter {
    /// Writes `value`, which follows `after` on the current line.
    fn node(&mut self, value: &Value, after: After) -> Result<(), Error> {
        // Where the entries of a nested mapping and of a nested sequence go,
        // and where the lines of a literal block go.
        let (mapping_column, sequence_column, block_indent) = match after {
            After::Nothing => (0, 0, 2),
            After::Key(column) => (column + 2, column, column + 2),
            After::Indicator(column) => (column + 2, column + 2, column + 2),
        };
        let same_line = !matches!(after, After::Key(_));
        if !matches!(after, After::Nothing) && (same_line || !is_block_collection(value)) {
            self.out.push(' ');
        }
        match value {
            Value::Mapping(map) if !map.is_empty() => self.mapping(map, mapping_column, same_line),
            Value::Sequence(items) if !items.is_empty() => {
                for (i, item) in items.iter().enumerate() {
                    if i > 0 || !same_line {
                        self.new_line(sequence_column);
                    }
                    self.out.push('-');
                    self.node(item, After::Indicator(sequence_column))?;
                }
                Ok(())
            }
            _ => self.scalar(value, block_indent),
        }
    }

    fn mapping(&mut self, map: &Mapping, column: usize, same_line: bool) -> Result<(), Error> {
        for (i, (key, value)) in map.iter().enumerate() {
            if i > 0 || !same_line {
                self.new_line(column);
            }
            if is_block_collection(key) {
                return Err(unsupported("a mapping key that is a collection"));
            }
            // serde_norway's (libyaml's) limit for a key on the value's line.
            let simple = match key {
                Value::String(text) => text.len() <= 128 && !text.contains('\n'),
                _ => true,
            };
            if simple {
                self.scalar(key, column + 2)?;
                self.out.push(':');
                self.node(value, After::Key(column))?;
            } else {
                self.out.push_str("? ");
                self.scalar(key, column + 2)?;
                self.new_line(column);
                self.out.push(':');
                self.node(value, After::Indicator(column))?;
            }
        }
        Ok(())
    }

    /// A scalar or an empty collection; a literal block's lines go at `block_indent`.
    fn scalar(&mut self, value: &Value, block_indent: usize) -> Result<(), Error> {
        match value {
            Value::Null => self.out.push_str("null"),
            Value::Bool(true) => self.out.push_str("true"),
            Value::Bool(false) => self.out.push_str("false"),
            Value::Number(number) => {
                write!(self.out, "{number}").expect("writing to a String cannot fail");
            }
            Value::String(text) => match style(text) {
                Style::Plain => self.out.push_str(text),
                Style::SingleQuoted => {
                    self.out.push('\'');
                    self.out.push_str(&text.replace('\'', "''"));
                    self.out.push('\'');
                }
                Style::Literal => self.literal(text, block_indent),
                Style::DoubleQuoted => self.double_quoted(text),
            },
            Value::Sequence(_) => self.out.push_str("[]"),
            Value::Mapping(_) => self.out.push_str("{}"),
            Value::Tagged(_) => return Err(unsupported("a tagged value")),
        }
        Ok(())
    }

    /// `|` with libyaml's indentation and chomping indicators, then the lines.
    ///
    /// The last line break is left out: whatever follows starts with one.
    fn literal(&mut self, text: &str, indent: usize) {
        self.out.push('|');
        if text.starts_with([' ', '\n']) {
            // The lines are two columns in from their parent.
            self.out.push('2');
        }
        if !text.ends_with('\n') {
            self.out.push('-');
        } else if text == "\n" || text.ends_with("\n\n") {
            self.out.push('+');
        }
        let body = text.strip_suffix('\n').unwrap_or(text);
        for line in body.split('\n') {
            self.out.push('\n');
            if !line.is_empty() {
                self.pad(indent);
                self.out.push_str(line);
            }
        }
    }

    /// Escapes as libyaml does: named escapes where YAML has them, else
    /// `\x`, `\u` or `\U` with the code point.
    fn double_quoted(&mut self, text: &str) {
        self.out.push('"');
        for c in text.chars() {
            if let Some(named) = named_escape(c) {
                self.out.push_str(named);
            } else if is_raw(c) {
                self.out.push(c);
            } else {
                let code = u32::from(c);
                if code <= 0xFF {
                    write!(self.out, "\\x{code:02X}")
                } else if code <= 0xFFFF {
                    write!(self.out, "\\u{code:04X}")
                } else {
                    write!(self.out, "\\U{code:08X}")
                }
                .expect("writing to a String cannot fail");
            }
        }
        self.out.push('"');
    }

    fn new_line(&mut self, column: usize) {
        self.out.push('\n');
        self.pad(column);
    }

    fn pad(&mut self, column: usize) {
        self.out.extend(std::iter::repeat_n(' ', column));
    }
}

/// YAML's short escapes, for the characters libyaml writes them for.
fn named_escape(c: char) -> Option<&'static str> {
    Some(match c {
        '\0' => "\\0",
        '\u{7}' => "\\a",
        '\u{8}' => "\\b",
        '\t' => "\\t",
        '\n' => "\\n",
        '\u{b}' => "\\v",
        '\u{c}' => "\\f",
        '\r' => "\\r",
        '\u{1b}' => "\\e",
        '"' => "\\\"",
        '\\' => "\\\\",
        '\u{85}' => "\\N",
        '\u{2028}' => "\\L",
        '\u{2029}' => "\\P",
        _ => return None,
    })
}

fn is_block_collection(value: &Value) -> bool {
    match value {
        Value::Mapping(map) => !map.is_empty(),
        Value::Sequence(items) => !items.is_empty(),
        _ => false,
    }
}

fn unsupported(what: &str) -> Error {
    Error::Serialise {
        format: "YAML",
        reason: format!("{what} has no YAML form here"),
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    Literal,
    DoubleQuoted,
}

fn style(text: &str) -> Style {
    if text.chars().all(is_raw) {
        if is_plain_safe(text) && !NOT_A_STRING.is_match(text) {
            Style::Plain
        } else {
            Style::SingleQuoted
        }
    } else if is_literal_safe(text) {
        Style::Literal
    } else {
        Style::DoubleQuoted
    }
}

/// Characters that may appear unescaped: printable for libyaml (and so for
/// PyYAML, which allows more) and not a line break. Tab, CR, NEL, U+2028,
/// U+2029, the BOM, C0 and C1 controls, U+FFFE and U+FFFF are escaped.
fn is_raw(c: char) -> bool {
    matches!(c, ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// Whether a string of raw characters reads back as itself when written
/// plain in block context, as far as YAML's syntax goes (libyaml's test):
/// no leading indicator, no `: ` or ` #`, no leading or trailing space.
/// Whether it then reads as a string is [`NOT_A_STRING`]'s question.
fn is_plain_safe(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Some(&first) = bytes.first() else {
        return false; // an empty plain scalar is null
    };
    let blank_after_first = bytes.get(1).is_none_or(|b| *b == b' ');
    !(b"#,[]{}&*!|>'\"%@`".contains(&first)
        || matches!(first, b'-' | b'?' | b':') && blank_after_first
        || text.starts_with("---")
        || text.starts_with("...")
        || text.starts_with(' ')
        || text.ends_with(' ')
        || text.ends_with(':')
        || text.contains(": ")
        || text.contains(" #"))
}

/// Whether a multi-line string is written as a literal block, as serde_norway
/// (libyaml) writes it: raw characters and `\n` only, and no space before a
/// line break or at the end. Anything else in several lines is double-quoted.
fn is_literal_safe(text: &str) -> bool {
    text.contains('\n')
        && text.chars().all(|c| c == '\n' || is_raw(c))
        && !text.ends_with(' ')
        && !text.contains(" \n")
}

/// Plain scalars that YAML 1.1 or YAML 1.2 reads as something other than a
/// string: PyYAML's implicit resolvers (YAML 1.1 booleans, ints with `_`,
/// `0` octal, `0b` and sexagesimal `1:20`, floats, `.inf`, `.nan`, null,
/// `~`, the merge key `<<`, the value key `=`, timestamps), the single-letter
/// booleans `y`/`n` of the YAML 1.1 type repository, and YAML 1.2's core
/// schema as serde_norway reads it (`0o17`, `0x1F`, `1e5`, `+1`, `1.`).
static NOT_A_STRING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:",
        // booleans and nulls, 1.1 and 1.2
        r"y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE",
        r"|on|On|ON|off|Off|OFF|~|null|Null|NULL|<<|=",
        // YAML 1.2 (serde_norway) integers and floats
        r"|[-+]?(?:[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+|0b[01]+)",
        r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?",
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
        // PyYAML integers
        r"|[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+",
        r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+",
        // PyYAML floats
        r"|[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?",
        r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*",
        // PyYAML timestamps
        r"|[0-9]{4}-[0-9]{2}-[0-9]{2}",
        r"|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?",
        r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?",
        r")$",
    ))
    .expect("static YAML resolver pattern compiles")
});

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Words YAML 1.1 (PyYAML) or YAML 1.2 reads as something other than a
    /// string when they are written plain.
    const SPECIALS: &[&str] = &[
        "y",
        "Y",
        "n",
        "N",
        "yes",
        "Yes",
        "YES",
        "no",
        "No",
        "NO",
        "on",
        "On",
        "ON",
        "off",
        "Off",
        "OFF",
        "true",
        "True",
        "TRUE",
        "false",
        "False",
        "FALSE",
        "null",
        "Null",
        "NULL",
        "~",
        "",
        "=",
        "<<",
        ".inf",
        "-.inf",
        "+.INF",
        ".nan",
        ".NaN",
        "1:20",
        "-1:20:30.5",
        "1_000",
        "0b1010",
        "0o17",
        "017",
        "0x1F",
        "0x_1F",
        "12",
        "+12",
        "-0",
        "1.5",
        "1.",
        ".5",
        "1e5",
        "6.02e+23",
        "1_0.5",
        "2024-05-01",
        "2024-5-1 10:00:00",
        "2025-01-02T10:00:00Z",
        "2001-12-14t21:59:43.10-05:00",
    ];

    fn yaml(value: &Value) -> String {
        to_string(value).unwrap()
    }

    fn map(entries: &[(&str, Value)]) -> Value {
        Value::Mapping(
            entries
                .iter()
                .map(|(key, value)| (Value::from(*key), value.clone()))
                .collect(),
        )
    }

    #[test]
    fn yaml_1_1_specials_are_quoted_as_keys_and_as_values() {
        for word in SPECIALS {
            let doc = map(&[(word, Value::from(*word))]);
            let quoted = format!("'{word}'");
            assert_eq!(yaml(&doc), format!("{quoted}: {quoted}\n"), "{word}");
            let list = map(&[("required", Value::Sequence(vec![Value::from(*word)]))]);
            assert_eq!(yaml(&list), format!("required:\n- {quoted}\n"), "{word}");
        }
    }

    #[test]
    fn strings_that_only_look_alike_stay_plain() {
        for word in [
            "only", "nope", "yess", "oN", "0.1.0", "1.2.3", "v1", "2024-05", "a:b", "a#b",
        ] {
            assert_eq!(yaml(&Value::from(word)), format!("{word}\n"));
        }
    }

    #[test]
    fn control_characters_line_separators_and_the_bom_are_escaped() {
        let cases = [
            ("tab\there", r#""tab\there""#),
            ("nul\0", r#""nul\0""#),
            ("c0\u{1}\u{1f}", r#""c0\x01\x1F""#),
            ("c1\u{80}\u{9f}", r#""c1\x80\x9F""#),
            ("nel\u{85}", r#""nel\N""#),
            ("ls\u{2028}ps\u{2029}", r#""ls\Lps\P""#),
            ("\u{feff}bom", r#""\uFEFFbom""#),
            ("\u{fffe}\u{ffff}", r#""\uFFFE\uFFFF""#),
            ("cr\r\nlf", r#""cr\r\nlf""#),
            ("line \nbreak", r#""line \nbreak""#),
            ("quote\" and \\ \n", r#""quote\" and \\ \n""#),
        ];
        for (text, written) in cases {
            // A key spanning lines goes after `? `, as serde_norway puts it.
            let expected = if text.contains('\n') {
                format!("? {written}\n: {written}\n")
            } else {
                format!("{written}: {written}\n")
            };
            assert_eq!(yaml(&map(&[(text, Value::from(text))])), expected);
        }
    }

    #[test]
    fn multi_line_strings_are_literal_blocks_where_that_is_faithful() {
        let doc = map(&[
            ("clip", Value::from("a\nb\n")),
            ("strip", Value::from("a\n\n  b")),
            ("keep", Value::from("a\n\n")),
            ("indented", Value::from("  a\nb")),
            (
                "list",
                Value::Sequence(vec![Value::from("\n"), Value::from("x\ny")]),
            ),
        ]);
        let expected = "clip: |\n  a\n  b\nstrip: |-\n  a\n\n    b\nkeep: |+\n  a\n\n\
                        indented: |2-\n    a\n  b\nlist:\n- |2+\n\n- |-\n  x\n  y\n";
        assert_eq!(yaml(&doc), expected);
    }

    #[test]
    fn the_layout_is_serde_norways() {
        let long = "k".repeat(129);
        let doc = map(&[
            ("openapi", Value::from("3.0.3")),
            (
                "empty",
                map(&[("map", map(&[])), ("list", Value::Sequence(vec![]))]),
            ),
            (
                "list",
                Value::Sequence(vec![
                    map(&[("name", Value::from("a")), ("in", Value::from("query"))]),
                    Value::Sequence(vec![Value::from(1), Value::Sequence(vec![])]),
                    Value::from("it's"),
                    Value::from(-1.5),
                    Value::Null,
                    Value::Bool(false),
                ]),
            ),
            (&long, Value::Sequence(vec![Value::from("a"), map(&[])])),
            (
                "multi\nline key",
                map(&[("a", Value::from("b")), ("c", Value::from(2))]),
            ),
            (
                "'200'",
                map(&[("$ref", Value::from("#/components/schemas/A"))]),
            ),
            ("- x: y #z", Value::from("{\"a\": [1]} @b")),
        ]);
        assert_eq!(yaml(&doc), serde_norway::to_string(&doc).unwrap());
    }

    #[test]
    fn collection_keys_and_tagged_values_are_refused() {
        let key = Value::Sequence(vec![Value::from(1)]);
        let doc = Value::Mapping(std::iter::once((key, Value::Null)).collect());
        assert!(to_string(&doc).is_err());
        let tagged: Value = serde_norway::from_str("!Tag 1").unwrap();
        assert!(to_string(&tagged).is_err());
    }

    /// Strings full of what YAML treats specially.
    fn text() -> impl Strategy<Value = String> + Clone {
        let fragment = prop_oneof![
            prop::sample::select(SPECIALS).prop_map(str::to_owned),
            prop::sample::select(
                &[
                    " ", "  ", ": ", ":", "#", " #", "-", "- ", "?", "'", "\"", "\\", "\n", "\r",
                    "\t", "---", "...", "|", ">", "&a", "*a", "!", "%", "@", "`", "{", "}", "[",
                    "]", ",", "\0", "\u{7f}", "\u{85}", "\u{a0}", "\u{2028}", "\u{2029}",
                    "\u{feff}", "\u{fffe}", "\u{ffff}", "é", "漢字", "😀",
                ][..]
            )
            .prop_map(str::to_owned),
            "[a-z0-9]{1,4}",
            any::<String>(),
        ];
        prop::collection::vec(fragment, 0..5).prop_map(|parts| parts.concat())
    }

    fn tree(text: impl Strategy<Value = String> + Clone + 'static) -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            4 => text.clone().prop_map(Value::String),
            1 => any::<i64>().prop_map(Value::from),
            1 => any::<u64>().prop_map(Value::from),
            1 => any::<f64>().prop_filter("NaN is unequal to itself", |f| !f.is_nan()).prop_map(Value::from),
            1 => any::<bool>().prop_map(Value::Bool),
            1 => Just(Value::Null),
        ];
        leaf.prop_recursive(4, 48, 5, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Sequence),
                prop::collection::vec((text.clone(), inner), 0..5).prop_map(|entries| {
                    Value::Mapping(
                        entries
                            .into_iter()
                            .map(|(k, v)| (Value::String(k), v))
                            .collect(),
                    )
                }),
            ]
        })
    }

    proptest! {
        #[test]
        fn every_document_reads_back_as_written(doc in tree(text())) {
            let written = to_string(&doc).unwrap();
            let read: Value = serde_norway::from_str(&written)
                .map_err(|e| TestCaseError::fail(format!("{e}:\n{written}")))?;
            prop_assert_eq!(read, doc, "{}", written);
        }

        #[test]
        fn documents_serde_norway_already_wrote_safely_are_unchanged(
            doc in tree("k[ -~\n]{0,40}|k{129}")
        ) {
            prop_assert_eq!(to_string(&doc).unwrap(), serde_norway::to_string(&doc).unwrap());
        }
    }
}
