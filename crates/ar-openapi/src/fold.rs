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

/// Room to fold one name into; the folded name borrows it.
pub(crate) struct Folded {
    inline: [u8; INLINE],
    heap: String,
}

impl Folded {
    pub(crate) fn new() -> Self {
        Self {
            inline: [0; INLINE],
            heap: String::new(),
        }
    }

    /// `text` ASCII-lowercased, as [`str::to_ascii_lowercase`] gives it.
    pub(crate) fn lowercase<'a>(&'a mut self, text: &'a str) -> &'a str {
        if !text.bytes().any(|b| b.is_ascii_uppercase()) {
            return text;
        }
        self.fold(text, |b| Some(b.to_ascii_lowercase()))
            .unwrap_or_else(|heap| {
                heap.push_str(&text.to_ascii_lowercase());
                heap
            })
    }

    /// `text` as [`normalise`] gives it: lowercase without `-` and `_`.
    pub(crate) fn normalised<'a>(&'a mut self, text: &'a str) -> &'a str {
        if text
            .bytes()
            .all(|b| b.is_ascii() && !b.is_ascii_uppercase() && b != b'-' && b != b'_')
        {
            return text;
        }
        if !text.is_ascii() {
            // Non-ASCII letters fold by Unicode rules, as `normalise` does.
            self.heap = normalise(text);
            return &self.heap;
        }
        let keep = |b: u8| (b != b'-' && b != b'_').then_some(b.to_ascii_lowercase());
        self.fold(text, keep).unwrap_or_else(|heap| {
            heap.extend(text.bytes().filter_map(keep).map(char::from));
            heap
        })
    }

    /// Maps `text` byte by byte into the inline room (dropping bytes `map`
    /// returns `None` for); hands back the cleared heap string instead when
    /// `text` does not fit or the result is not UTF-8.
    fn fold(&mut self, text: &str, map: impl Fn(u8) -> Option<u8>) -> Result<&str, &mut String> {
        let mut len = 0;
        if text.len() <= INLINE {
            for (slot, byte) in self.inline.iter_mut().zip(text.bytes().filter_map(map)) {
                *slot = byte;
                len += 1;
            }
            if let Ok(folded) = std::str::from_utf8(&self.inline[..len]) {
                return Ok(folded);
            }
        }
        self.heap.clear();
        Err(&mut self.heap)
    }
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
            assert_eq!(Folded::new().lowercase(name), name.to_ascii_lowercase());
            assert_eq!(Folded::new().normalised(name), normalise(name));
            assert_eq!(lowercase(name), name.to_ascii_lowercase());
        }
    }

    #[test]
    fn media_types_fold_like_body_media_type() {
        for content_type in [
            "application/json",
            "Application/JSON; charset=utf-8",
            " text/html ;q=1",
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
