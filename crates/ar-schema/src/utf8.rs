//! UTF-8 validation for JSON strings: mostly ASCII, with a multi-byte character every few words.
//!
//! `std::str::from_utf8` takes its word-at-a-time ASCII path only from aligned addresses, so
//! such text spends most of its bytes in the byte loop; this check reads eight bytes at any
//! address and decodes only the non-ASCII characters. It answers yes or no: on "no" the caller
//! asks `std::str::from_utf8` where the error is, so errors are reported exactly as std does.

const HIGH: u64 = 0x8080_8080_8080_8080;

/// Whether `b` is valid UTF-8 (the same answer as `std::str::from_utf8(b).is_ok()`).
pub(crate) fn is_valid(b: &[u8]) -> bool {
    let mut i = 0;
    while i < b.len() {
        if let Some(chunk) = b.get(i..i + 8) {
            let high = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])) & HIGH;
            if high == 0 {
                i += 8;
                continue;
            }
            // Past the ASCII bytes in front of the first non-ASCII one.
            i += (high.trailing_zeros() / 8) as usize;
        } else if b[i] < 0x80 {
            i += 1;
            continue;
        }
        match char_len(&b[i..]) {
            Some(n) => i += n,
            None => return false,
        }
    }
    true
}

/// The length of the well-formed multi-byte character `b` starts with (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF), or `None`.
fn char_len(b: &[u8]) -> Option<usize> {
    let continuation = |k: usize| b.get(k).is_some_and(|&c| c & 0xC0 == 0x80);
    let second = b.get(1).copied().unwrap_or(0);
    let n = match b[0] {
        0xC2..=0xDF => 2,
        0xE0 if (0xA0..=0xBF).contains(&second) => 3,
        0xE1..=0xEC | 0xEE..=0xEF if (0x80..=0xBF).contains(&second) => 3,
        0xED if (0x80..=0x9F).contains(&second) => 3,
        0xF0 if (0x90..=0xBF).contains(&second) => 4,
        0xF1..=0xF3 if (0x80..=0xBF).contains(&second) => 4,
        0xF4 if (0x80..=0x8F).contains(&second) => 4,
        _ => return None,
    };
    (1..n).all(continuation).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agrees(b: &[u8]) {
        assert_eq!(is_valid(b), std::str::from_utf8(b).is_ok(), "{b:x?}");
    }

    #[test]
    fn agrees_with_std_on_every_short_sequence() {
        // Every sequence of one or two bytes, every three-byte sequence that starts with a
        // non-ASCII byte, and four-byte sequences over the boundary values of each position;
        // each also behind 7 ASCII bytes and in front of 9, to take the word path.
        let edges = [
            0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xF4, 0xFF,
        ];
        for a in 0..=255u8 {
            agrees(&[a]);
            for b in 0..=255u8 {
                agrees(&[a, b]);
                agrees(&[b'x', b'x', b'x', b'x', b'x', b'x', b'x', a, b, b'y']);
                if a >= 0x80 {
                    for c in 0..=255u8 {
                        agrees(&[a, b, c]);
                    }
                }
                if a >= 0xF0 {
                    for c in edges {
                        for d in edges {
                            agrees(&[a, b, c, d]);
                            agrees(&[b'p', b'p', b'p', b'p', b'p', b'p', b'p', a, b, c, d]);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn agrees_with_std_on_mixed_text() {
        let pieces: [&[u8]; 9] = [
            b"plain ascii ",
            "café ".as_bytes(),
            "日本語".as_bytes(),
            "😀".as_bytes(),
            b"\xff",
            b"\xe6\x97",
            b"\xed\xa0\x80",
            b"\xf0\x9f\x98",
            b"12345678",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            let mut text = Vec::new();
            for _ in 0..6 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.extend_from_slice(pieces[(state % 9) as usize]);
            }
            agrees(&text);
        }
    }
}
