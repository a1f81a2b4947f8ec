//! The few JSON writing primitives the archive line needs, appending to a `Vec<u8>`.
//!
//! The text is exactly what `serde_json::to_writer` writes for the same values
//! (so archive lines stay byte-identical to the serde encoding they replaced),
//! only cheaper: serde_json escapes a string one byte at a time through a
//! lookup table, while [`string`] tests eight bytes at once and copies clean
//! words with one store each. Escapes are serde_json's: `\"`, `\\`, `\b`,
//! `\f`, `\n`, `\r`, `\t` and `\u00xx` (lowercase hex) for the other control
//! bytes; everything else, `DEL` and non-ASCII included, is written as is.
//! Numbers are in [`super::json_num`].

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
        match word[at] {
            // Quotes are most of the escapes (JSON bodies): no call for them.
            b'"' => out.extend_from_slice(br#"\""#),
            byte => escape(out, byte),
        }
        i += at + 1;
    }
    let n = bytes.len() - i;
    if n > 0 {
        let word = tail_word(bytes, n);
        if escape_mask(word) & low_mask(n) == 0 {
            out.extend_from_slice(&word.to_le_bytes());
            out.truncate(out.len() - (8 - n));
        } else {
            low_bytes(out, word, n);
        }
    }
    out.push(b'"');
}

/// The last `n` bytes of `bytes` (`0 < n < 8`) as the low bytes of a word,
/// the rest zero, without a variable-length copy: an overlapping load from
/// the end when the text is long enough, else up to three byte loads.
fn tail_word(bytes: &[u8], n: usize) -> u64 {
    let len = bytes.len();
    if len >= 8 {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[len - 8..]);
        return u64::from_le_bytes(word) >> (8 * (8 - n));
    }
    if n >= 4 {
        let load = |at: usize| {
            let mut word = [0; 4];
            word.copy_from_slice(&bytes[at..at + 4]);
            u64::from(u32::from_le_bytes(word))
        };
        // The two loads overlap on equal bytes, so OR-ing them is exact.
        return load(0) | load(n - 4) << (8 * (n - 4));
    }
    let byte = |at: usize| u64::from(bytes[at]) << (8 * at);
    byte(0) | byte(n / 2) | byte(n - 1)
}

/// The bits of a word's low `n` bytes (`0 < n <= 8`).
fn low_mask(n: usize) -> u64 {
    u64::MAX >> (8 * (8 - n))
}

/// Appends the low `n` bytes of `word` (`0 < n <= 8`) with escapes.
///
/// Stays in registers between escapes: after each one the word is shifted
/// past it and its mask recomputed, which also drops any false hit the
/// escaped byte's borrow caused. Bytes above `n` are zero (control bytes),
/// so their hits are masked off, and a borrow only ever runs upward.
fn low_bytes(out: &mut Vec<u8>, mut word: u64, mut n: usize) {
    loop {
        out.extend_from_slice(&word.to_le_bytes());
        let mask = escape_mask(word) & low_mask(n);
        if mask == 0 {
            out.truncate(out.len() - (8 - n));
            return;
        }
        let at = (mask.trailing_zeros() / 8) as usize;
        out.truncate(out.len() - (8 - at));
        escape(out, (word >> (8 * at)) as u8);
        n -= at + 1;
        if n == 0 {
            return;
        }
        word >>= 8 * (at + 1);
    }
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::archive::written;

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
    fn plain_strings_are_only_quoted() {
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
    }
}
