//! Case folding for the checks the documenter makes on every name of every
//! flow (header names, parameter names, media types). A live `ar proxy`
//! documents each flow as it passes, so these checks borrow the text when it
//! is already folded, fold short names on the stack, and allocate only for
//! long or non-ASCII names; they give exactly what the allocating
//! `to_ascii_lowercase` and [`normalise`] give.

use std::borrow::Cow;

use ar_store::Body;

/// Names up to this many bytes are folded on the stack; header and
/// parameter names are far shorter.
const INLINE: usize = 64;

/// Calls `f` with `text` ASCII-lowercased, as [`str::to_ascii_lowercase`] gives it.
pub(crate) fn with_lowercase<R>(text: &str, f: impl FnOnce(&str) -> R) -> R {
    if !has_ascii_uppercase(text.as_bytes()) {
        return f(text);
    }
    fold_then(text, |b| Some(b.to_ascii_lowercase()), f)
}

/// Calls `f` with `text` as [`normalise`] gives it: lowercase without `-` and `_`.
pub(crate) fn with_normalised<R>(text: &str, f: impl FnOnce(&str) -> R) -> R {
    if text
        .bytes()
        .all(|b| b.is_ascii() && !b.is_ascii_uppercase() && b != b'-' && b != b'_')
    {
        return f(text);
    }
    if !text.is_ascii() {
        // Non-ASCII letters fold by Unicode rules, as `normalise` does.
        return f(&normalise(text));
    }
    fold_then(
        text,
        |b| (b != b'-' && b != b'_').then_some(b.to_ascii_lowercase()),
        f,
    )
}

/// Maps `text` byte by byte (dropping the bytes `map` gives `None` for) and
/// calls `f` with the result: built on the stack when it fits. `map` changes
/// or drops only ASCII bytes, so the result is UTF-8 like `text`.
fn fold_then<R>(text: &str, map: impl Fn(u8) -> Option<u8>, f: impl FnOnce(&str) -> R) -> R {
    if text.len() <= INLINE {
        let mut room = [0; INLINE];
        let mut len = 0;
        for (slot, byte) in room.iter_mut().zip(text.bytes().filter_map(&map)) {
            *slot = byte;
            len += 1;
        }
        if let Ok(folded) = std::str::from_utf8(&room[..len]) {
            return f(folded);
        }
    }
    let folded: Vec<u8> = text.bytes().filter_map(map).collect();
    f(&String::from_utf8_lossy(&folded))
}

/// Lowercase with `-` and `_` removed, so `X-Api-Key`, `x_api_key` and `XAPIKEY` compare equal.
pub(crate) fn normalise(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// `text` ASCII-lowercased, borrowed when it has no capitals.
pub(crate) fn lowercase(text: &str) -> Cow<'_, str> {
    if has_ascii_uppercase(text.as_bytes()) {
        Cow::Owned(text.to_ascii_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// A body's media type exactly as [`Body::media_type`] gives it, without a
/// copy unless the sender used capitals.
pub(crate) fn media_type(body: &Body) -> Option<Cow<'_, str>> {
    body.media_type_as_sent().map(lowercase)
}

/// Whether any byte is `A`..=`Z`, eight bytes at a time: most names and
/// media types have no capitals, so every byte is looked at.
fn has_ascii_uppercase(bytes: &[u8]) -> bool {
    let mut words = bytes.chunks_exact(8);
    let found = words.any(|word| {
        let mut eight = [0; 8];
        eight.copy_from_slice(word);
        word_has_ascii_uppercase(u64::from_le_bytes(eight))
    });
    found || words.remainder().iter().any(u8::is_ascii_uppercase)
}

/// Whether one of the eight bytes of `word` is `A`..=`Z`. Each byte's low
/// seven bits plus a bias set its high bit exactly when it is at least `A`
/// (or more than `Z`); no sum carries into the next byte. Bytes of 0x80 and
/// up are never uppercase ASCII.
fn word_has_ascii_uppercase(word: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let low = word & !HIGH;
    let at_least_a = low + ONES * u64::from(0x80 - b'A');
    let above_z = low + ONES * u64::from(0x80 - b'Z' - 1);
    at_least_a & !above_z & !word & HIGH != 0
}

/// Whether `part` occurs in `text`. Names are short: comparing at each offset
/// costs less than setting up `str::contains`'s two-way search.
pub(crate) fn has_part(text: &str, part: &str) -> bool {
    text.as_bytes()
        .windows(part.len())
        .any(|window| window == part.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_matches_the_allocating_versions() {
        let long = format!("X-{}-Key", "Very-Long".repeat(10));
        for name in [
            "host",
            "Content-Type",
            "X-API-Key",
            "x_api_key",
            "AUTHORIZATION",
            "Ünïcode-Näme",
            "STRASSE-É",
            "",
            long.as_str(),
        ] {
            assert_eq!(
                with_lowercase(name, str::to_string),
                name.to_ascii_lowercase()
            );
            assert_eq!(with_normalised(name, str::to_string), normalise(name));
            assert_eq!(lowercase(name), name.to_ascii_lowercase());
        }
    }

    #[test]
    fn media_types_fold_like_body_media_type() {
        for content_type in [
            "application/json",
            "Application/JSON; charset=utf-8",
            " text/html ;q=1",
            "\u{a0}Text/HTML\u{2003}; x",
            "",
            ";",
        ] {
            let body = Body::from_decoded(Some(content_type.into()), Vec::new());
            assert_eq!(media_type(&body).map(Cow::into_owned), body.media_type());
        }
        assert_eq!(media_type(&Body::empty()), None);
    }

    proptest::proptest! {
        #[test]
        fn uppercase_is_found_like_byte_by_byte(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..40)) {
            proptest::prop_assert_eq!(
                has_ascii_uppercase(&bytes),
                bytes.iter().any(u8::is_ascii_uppercase)
            );
        }
    }

    #[test]
    fn every_byte_value_is_classified_in_every_position() {
        for byte in 0..=u8::MAX {
            for at in 0..8 {
                let mut word = [b'a'; 8];
                word[at] = byte;
                assert_eq!(
                    has_ascii_uppercase(&word),
                    byte.is_ascii_uppercase(),
                    "{byte} at {at}"
                );
            }
        }
    }

    #[test]
    fn parts_are_found_anywhere() {
        assert!(has_part("x-csrf-token", "csrf"));
        assert!(has_part("csrf", "csrf"));
        assert!(!has_part("csr", "csrf"));
        assert!(!has_part("x-xsrf", "csrf"));
    }
}
