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
    if !text.bytes().any(|b| b.is_ascii_uppercase()) {
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
    if text.bytes().any(|b| b.is_ascii_uppercase()) {
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

    #[test]
    fn parts_are_found_anywhere() {
        assert!(has_part("x-csrf-token", "csrf"));
        assert!(has_part("csrf", "csrf"));
        assert!(!has_part("csr", "csrf"));
        assert!(!has_part("x-xsrf", "csrf"));
    }
}
