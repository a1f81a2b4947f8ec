//! The few JSON writing primitives the archive line needs, appending to a `Vec<u8>`.
//!
//! The text is exactly what `serde_json::to_writer` writes for the same values
//! (so archive lines stay byte-identical to the serde encoding they replaced),
//! only cheaper: serde_json escapes a string one byte at a time through a
//! lookup table, while [`string`] tests eight bytes at once and copies clean
//! words with one store each. Escapes are serde_json's: `\"`, `\\`, `\b`,
//! `\f`, `\n`, `\r`, `\t` and `\u00xx` (lowercase hex) for the other control
//! bytes; everything else, `DEL` and non-ASCII included, is written as is.
//! Numbers go through serde_json's own `CompactFormatter`, so floats are
//! spelled by the same code.

use std::io::Write as _;

use serde_json::ser::{CompactFormatter, Formatter as _};

/// `0x01` in every byte of a word.
const ONES: u64 = u64::from_le_bytes([1; 8]);
/// The high bit of every byte of a word.
const HIGHS: u64 = ONES * 0x80;

/// A mask whose lowest set bit is the high bit of the first byte of `word`
/// (little-endian) that JSON must escape: `"`, `\` or a byte below `0x20`.
///
/// Each of the three tests is the classic "byte below n" subtraction: a byte
/// under the bound borrows and sets its high bit. A borrow can spill into the
/// byte above and flag it falsely, but only above a true hit, so the lowest
/// set bit is always exact. Bytes with the high bit set never match (`& !word`).
fn escape_mask(word: u64) -> u64 {
    let control = word.wrapping_sub(ONES * 0x20);
    let quote = (word ^ (ONES * u64::from(b'"'))).wrapping_sub(ONES);
    let backslash = (word ^ (ONES * u64::from(b'\\'))).wrapping_sub(ONES);
    (control | quote | backslash) & !word & HIGHS
}

/// Whether JSON must escape `byte` inside a string.
fn needs_escape(byte: u8) -> bool {
    byte < 0x20 || byte == b'"' || byte == b'\\'
}

/// Appends serde_json's escape sequence for `byte` (one that [`needs_escape`]).
fn escape(out: &mut Vec<u8>, byte: u8) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let short = match byte {
        b'"' => b'"',
        b'\\' => b'\\',
        b'\n' => b'n',
        b'\r' => b'r',
        b'\t' => b't',
        0x08 => b'b',
        0x0c => b'f',
        _ => {
            out.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(byte >> 4)],
                HEX[usize::from(byte & 0xf)],
            ]);
            return;
        }
    };
    out.extend_from_slice(&[b'\\', short]);
}

/// Appends `text` as a JSON string, quotes included.
pub(super) fn string(out: &mut Vec<u8>, text: &str) {
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut i = 0;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let mut word = [0; 8];
        word.copy_from_slice(chunk);
        // Copy the whole word (one 8-byte store), then cut it back at the
        // first byte to escape, if any: cheaper than a variable-length copy.
        out.extend_from_slice(&word);
        let mask = escape_mask(u64::from_le_bytes(word));
        if mask == 0 {
            i += 8;
            continue;
        }
        let at = (mask.trailing_zeros() / 8) as usize;
        out.truncate(out.len() - (8 - at));
        escape(out, word[at]);
        i += at + 1;
    }
    for &byte in &bytes[i..] {
        if needs_escape(byte) {
            escape(out, byte);
        } else {
            out.push(byte);
        }
    }
    out.push(b'"');
}

/// Appends `text` as a JSON string when it is known to need no escaping
/// (base64, hex digests, fixed names).
pub(super) fn plain_string(out: &mut Vec<u8>, text: &[u8]) {
    debug_assert!(!text.iter().copied().any(needs_escape));
    out.reserve(text.len() + 2);
    out.push(b'"');
    out.extend_from_slice(text);
    out.push(b'"');
}

// Writing into a `Vec` cannot fail, so the `io::Result`s below are always `Ok`.

/// Appends an unsigned integer.
pub(super) fn u64(out: &mut Vec<u8>, value: u64) {
    let _ = CompactFormatter.write_u64(out, value);
}

/// Appends a signed integer.
pub(super) fn i64(out: &mut Vec<u8>, value: i64) {
    let _ = CompactFormatter.write_i64(out, value);
}

/// Appends a float as serde_json does: shortest round-trip text, `null` for
/// NaN and infinities. HAR's placeholders `-1` and `0` skip the formatter.
pub(super) fn f64(out: &mut Vec<u8>, value: f64) {
    if value == -1.0 {
        out.extend_from_slice(b"-1.0");
    } else if value.to_bits() == 0 {
        out.extend_from_slice(b"0.0");
    } else if value.is_finite() {
        let _ = CompactFormatter.write_f64(out, value);
    } else {
        out.extend_from_slice(b"null");
    }
}

/// Appends a float's `Display` text as a JSON string (the archive's exact
/// timings: `"0.356"`, `"NaN"`, `"inf"`), which never needs escaping.
pub(super) fn display_f64_string(out: &mut Vec<u8>, value: f64) {
    out.push(b'"');
    let _ = write!(out, "{value}");
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn written(write: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut out = b"prefix".to_vec();
        write(&mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_byte_class_at_every_offset_is_escaped_as_serde_json_does() {
        let specials = [
            "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{0}", "\u{1f}",
        ];
        let others = ["\u{7f}", " ", "#", "]", "!", "é", "\u{2028}", "😀"];
        for len in 0..20 {
            for at in 0..len {
                for special in specials.iter().chain(&others) {
                    // A special next to the bytes a borrow could falsely flag.
                    for filler in ["a", " ", "#", "]"] {
                        let mut text: String = filler.repeat(len);
                        text.replace_range(at..=at, special);
                        let expected = serde_json::to_string(&text).unwrap();
                        assert_eq!(written(|o| string(o, &text)), format!("prefix{expected}"));
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_are_spelled_as_serde_json_spells_them() {
        for value in [
            0.0,
            -0.0,
            -1.0,
            1.0,
            0.1 + 0.2,
            1e-7,
            1e21,
            -1e300,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            let expected = serde_json::to_string(&value).unwrap();
            assert_eq!(written(|o| f64(o, value)), format!("prefix{expected}"));
        }
        for value in [0, 1, u64::MAX] {
            assert_eq!(written(|o| u64(o, value)), format!("prefix{value}"));
        }
        for value in [i64::MIN, -1, 0, i64::MAX] {
            assert_eq!(written(|o| i64(o, value)), format!("prefix{value}"));
        }
        assert_eq!(
            written(|o| display_f64_string(o, 1e-7)),
            "prefix\"0.0000001\""
        );
        assert_eq!(written(|o| plain_string(o, b"/wCA")), "prefix\"/wCA\"");
    }

    fn tricky_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            3 => "[a-z ]{1,9}",
            2 => prop::sample::select(vec!["\"", "\\", "\n", "\u{0}", "\u{1f}", "\u{7f}", "#", "]", " "]).prop_map(String::from),
            1 => any::<char>().prop_map(String::from),
        ];
        prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn any_string_is_written_as_serde_json_writes_it(
            text in prop_oneof![any::<String>(), tricky_text()],
        ) {
            let expected = serde_json::to_string(&text).unwrap();
            prop_assert_eq!(written(|o| string(o, &text)), format!("prefix{expected}"));
        }

        #[test]
        fn any_float_is_written_as_serde_json_writes_it(value in any::<f64>()) {
            let expected = serde_json::to_string(&value).unwrap();
            prop_assert_eq!(written(|o| f64(o, value)), format!("prefix{expected}"));
        }
    }
}
