//! A small, allocation-light splitter for the absolute URLs found in flows.
//!
//! The store splits every request URL on the hot path, so this avoids a full
//! WHATWG parse: it only needs scheme, host, port, path and query, and it
//! must never fail on odd input (a relative URL yields an empty host).

use std::borrow::Cow;

/// The parts of a URL the store cares about, borrowed from the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UrlParts<'a> {
    /// Lowercase expected; as written otherwise (`https`).
    pub scheme: &'a str,
    /// Host without userinfo and port; IPv6 literals keep their brackets.
    pub host: &'a str,
    /// Explicit port, when one was written and parses.
    pub port: Option<u16>,
    /// `host[:port]` as written (no userinfo): what a host key with a port borrows.
    host_port: &'a str,
    /// Path starting with `/` (or empty when the URL has none).
    pub path: &'a str,
    /// Query without the `?`, when present.
    pub query: Option<&'a str>,
}

impl<'a> UrlParts<'a> {
    /// Splits `url`; never fails.
    pub fn split(url: &'a str) -> Self {
        // Byte searches (memchr) instead of `str` patterns: this runs once per
        // flow, and every delimiter is ASCII, so byte offsets are char boundaries.
        // A first `://` after anything but scheme characters gives no scheme.
        let (scheme, rest) = split_scheme(url).unwrap_or(("", url));
        // The authority ends at the first `/`, `?` or `#` (a relative URL has
        // none); short, so a plain loop beats a vector search's setup. The
        // same loop notes the last `@` (userinfo ends) and the last `:`.
        let (mut authority_end, mut at, mut colon) = (0, None, None);
        if !scheme.is_empty() {
            authority_end = rest.len();
            for (i, b) in rest.bytes().enumerate() {
                match b {
                    b'/' | b'?' | b'#' => {
                        authority_end = i;
                        break;
                    }
                    b'@' => at = Some(i),
                    b':' => colon = Some(i),
                    _ => {}
                }
            }
        }
        let (authority, path_query) = rest.split_at(authority_end);
        let host_start = at.map_or(0, |i| i + 1);
        let authority = &authority[host_start..];
        let (host, port) = match colon {
            _ if authority.starts_with('[') => split_host_port(authority),
            Some(i) if i >= host_start => (
                &rest[host_start..i],
                rest[i + 1..authority_end].parse().ok(),
            ),
            _ => (authority, None),
        };
        // Whichever of `?` and `#` comes first ends the path; a fragment ends the query.
        let (path, query) = match memchr::memchr2(b'?', b'#', path_query.as_bytes()) {
            Some(i) if path_query.as_bytes()[i] == b'?' => {
                let query = &path_query[i + 1..];
                let query = match memchr::memchr(b'#', query.as_bytes()) {
                    Some(j) => &query[..j],
                    None => query,
                };
                (&path_query[..i], Some(query))
            }
            Some(i) => (&path_query[..i], None),
            None => (path_query, None),
        };
        Self {
            scheme,
            host,
            port,
            host_port: authority,
            path,
            query,
        }
    }

    /// [`UrlParts::host_key`], borrowed when nothing needs changing (the usual case).
    pub fn host_key_cow(&self) -> Cow<'a, str> {
        let default_port = self.port.is_none_or(|port| {
            matches!(
                (self.scheme, port),
                ("http" | "ws", 80) | ("https" | "wss", 443)
            )
        });
        if has_ascii_uppercase(self.host.as_bytes()) {
            return Cow::Owned(self.host_key());
        }
        if default_port {
            return Cow::Borrowed(self.host);
        }
        // `localhost:3000`: the text as written is the key when its port is
        // spelled as `host_key` spells it (digits, no leading zero).
        let written = &self.host_port[self.host.len()..];
        match written.strip_prefix(':').map(str::as_bytes) {
            Some([b'1'..=b'9', rest @ ..]) if rest.iter().all(u8::is_ascii_digit) => {
                Cow::Borrowed(self.host_port)
            }
            _ => Cow::Owned(self.host_key()),
        }
    }

    /// `host` or `host:port` when the port is not the scheme's default, lowercased.
    pub fn host_key(&self) -> String {
        let mut key = self.host.to_ascii_lowercase();
        if let Some(port) = self.port {
            let default = matches!(
                (self.scheme, port),
                ("http" | "ws", 80) | ("https" | "wss", 443)
            );
            if !default {
                key.push(':');
                key.push_str(&port.to_string());
            }
        }
        key
    }
}

/// The scheme of `url` and the rest after `://`, when `url` starts with
/// scheme characters followed by `://` (the usual absolute URL): a walk
/// over the few scheme bytes instead of a search of the whole URL.
fn split_scheme(url: &str) -> Option<(&str, &str)> {
    let bytes = url.as_bytes();
    let end = bytes
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.'))?;
    bytes[end..]
        .starts_with(b"://")
        .then(|| (&url[..end], &url[end + 3..]))
}

fn split_host_port(authority: &str) -> (&str, Option<u16>) {
    if authority.starts_with('[') {
        return match authority.find(']') {
            Some(end) => {
                let port = authority[end + 1..]
                    .strip_prefix(':')
                    .and_then(|p| p.parse().ok());
                (&authority[..=end], port)
            }
            None => (authority, None),
        };
    }
    match authority.bytes().rposition(|b| b == b':') {
        Some(i) => (&authority[..i], authority[i + 1..].parse().ok()),
        None => (authority, None),
    }
}

/// Splits a query string into raw `(name, value)` pairs, percent-decoded
/// (`+` as space), skipping empty pieces; byte searches (every flow's query
/// is split).
pub fn query_pairs(query: &str) -> impl Iterator<Item = (Cow<'_, str>, Cow<'_, str>)> + '_ {
    // Most queries have nothing to decode: one search of the whole query
    // then spares every name and value its own.
    let plain = !query.bytes().any(|b| b == b'%' || b == b'+');
    let decode = move |text| {
        if plain {
            Cow::Borrowed(text)
        } else {
            percent_decode(text)
        }
    };
    // One walk over the bytes: each pair ends at `&` (or the end), and its
    // first `=` seen on the way ends the name.
    let mut start = 0;
    std::iter::from_fn(move || {
        let bytes = query.as_bytes();
        while start <= bytes.len() {
            let mut equals = None;
            let mut end = start;
            while let Some(&b) = bytes.get(end) {
                match b {
                    b'&' => break,
                    b'=' if equals.is_none() => equals = Some(end),
                    _ => {}
                }
                end += 1;
            }
            let pair_start = start;
            start = end + 1;
            if end == pair_start {
                continue;
            }
            let (name, value) = match equals {
                Some(i) => (&query[pair_start..i], &query[i + 1..end]),
                None => (&query[pair_start..end], ""),
            };
            return Some((decode(name), decode(value)));
        }
        None
    })
}

/// Whether any byte is `A`..=`Z`, eight bytes at a time (hosts and header
/// names are checked on every flow).
pub fn has_ascii_uppercase(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        if uppercase_bits(word(chunk)) != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(u8::is_ascii_uppercase)
}

/// Whether `a == b`, eight bytes at a time without a call: for the short
/// names (headers, query parameters) compared on every flow, a call to
/// `memcmp` cost more than the comparison.
pub fn eq_words(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    if len < 8 {
        return a.iter().zip(b).all(|(x, y)| x == y);
    }
    // Whole words, then the last eight bytes (overlapping the words before).
    (0..len - 8)
        .step_by(8)
        .all(|at| word(&a[at..]) == word(&b[at..]))
        && word(&a[len - 8..]) == word(&b[len - 8..])
}

/// Whether `a` and `b` are equal ignoring ASCII case (`eq_ignore_ascii_case`),
/// eight bytes at a time: header names are compared on every flow.
pub fn eq_ignore_ascii_case_words(a: &[u8], b: &[u8]) -> bool {
    let len = a.len();
    if len != b.len() {
        return false;
    }
    if len < 8 {
        return a.eq_ignore_ascii_case(b);
    }
    let folded_equal = |at: usize| {
        let (x, y) = (word(&a[at..]), word(&b[at..]));
        x == y || lowercase_word(x) == lowercase_word(y)
    };
    // Whole words, then the last eight bytes (overlapping the words before).
    (0..len - 8).step_by(8).all(folded_equal) && folded_equal(len - 8)
}

/// The first eight bytes as one little-endian word.
fn word(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(word)
}

/// The high bit of each byte of `x` that is `A`..=`Z`.
fn uppercase_bits(x: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Per byte (no carries: each byte of `y` is at most 0x7f): the high
    // bit of `y + 0x3f` is set from `A` up, of `y + 0x25` from `[` up;
    // `!x` drops bytes that were non-ASCII to begin with.
    let y = x & LOW7;
    (y + 0x3f3f_3f3f_3f3f_3f3f) & !(y + 0x2525_2525_2525_2525) & !x & HIGH
}

/// `x` with its ASCII uppercase bytes lowercased (`0x20` set on each).
fn lowercase_word(x: u64) -> u64 {
    x | (uppercase_bits(x) >> 2)
}

/// Percent-decodes `text` (and `+` as space); invalid escapes stay as written,
/// and bytes that are not UTF-8 are replaced.
pub fn percent_decode(text: &str) -> Cow<'_, str> {
    if !text.bytes().any(|b| b == b'%' || b == b'+') {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_val(bytes[i + 1]), hex_val(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h * 16 + l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            other => out.push(other),
        }
        i += 1;
    }
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

fn hex_val(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Splits an absolute URL into origin (`https://host:port`), path and query,
/// leaving out any fragment. Runs on every flow: one forward pass over the
/// bytes, with no searcher to set up.
pub fn split_url(url: &str) -> (&str, &str, Option<&str>) {
    let bytes = url.as_bytes();
    // The scheme ends at the first `://` before the fragment.
    let mut after_scheme = 0;
    let mut colon = next_of(bytes, 0, |b| b == b':' || b == b'#');
    while bytes.get(colon) == Some(&b':') {
        if bytes[colon + 1..].starts_with(b"//") {
            after_scheme = colon + 3;
            break;
        }
        colon = next_of(bytes, colon + 1, |b| b == b':' || b == b'#');
    }
    let path_start = next_of(bytes, after_scheme, |b| matches!(b, b'/' | b'?' | b'#'));
    let path_end = next_of(bytes, path_start, |b| b == b'?' || b == b'#');
    let (origin, path) = (&url[..path_start], &url[path_start..path_end]);
    if bytes.get(path_end) == Some(&b'?') {
        let query_end = next_of(bytes, path_end + 1, |b| b == b'#');
        (origin, path, Some(&url[path_end + 1..query_end]))
    } else {
        (origin, path, None)
    }
}

/// Where the first byte from `from` on that `stop` accepts is (the end if none).
fn next_of(bytes: &[u8], from: usize, stop: impl Fn(u8) -> bool) -> usize {
    (bytes[from..].iter().position(|b| stop(*b))).map_or(bytes.len(), |at| from + at)
}

/// The query string as the credential and GraphQL checks read a URL: after
/// the first `?`, up to any `#`. Found once per flow for both.
pub fn query_of(url: &str) -> Option<&str> {
    let bytes = url.as_bytes();
    let start = bytes.iter().position(|b| *b == b'?')? + 1;
    Some(&url[start..next_of(bytes, start, |b| b == b'#')])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_common_shapes() {
        let u = UrlParts::split("https://user:pw@API.Shop.test:8443/v1/users?id=1#frag");
        assert_eq!(
            (u.scheme, u.host, u.port, u.path, u.query),
            (
                "https",
                "API.Shop.test",
                Some(8443),
                "/v1/users",
                Some("id=1")
            )
        );
        assert_eq!(u.host_key(), "api.shop.test:8443");
        assert_eq!(u.host_key_cow(), "api.shop.test:8443");
        let u = UrlParts::split("http://[::1]:80/x");
        assert_eq!((u.host, u.port), ("[::1]", Some(80)));
        assert_eq!(u.host_key(), "[::1]");
        let u = UrlParts::split("https://shop.test?q=1");
        assert_eq!((u.path, u.query), ("", Some("q=1")));
        let u = UrlParts::split("/relative/path");
        assert_eq!((u.host, u.path), ("", "/relative/path"));
    }

    /// The `str`-pattern splitter the byte version replaced: both must agree.
    fn reference(url: &str) -> (&str, &str, Option<u16>, &str, Option<&str>) {
        let (scheme, rest) = match url.find("://") {
            Some(i)
                if url[..i]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b)) =>
            {
                (&url[..i], &url[i + 3..])
            }
            _ => ("", url),
        };
        let rest = rest.split('#').next().unwrap_or("");
        let (authority, path_query) = if scheme.is_empty() {
            ("", rest)
        } else {
            match rest.find(['/', '?']) {
                Some(i) => (&rest[..i], &rest[i..]),
                None => (rest, ""),
            }
        };
        let (host, port) = split_host_port(authority.rsplit('@').next().unwrap_or(""));
        let (path, query) = match path_query.find('?') {
            Some(i) => (&path_query[..i], Some(&path_query[i + 1..])),
            None => (path_query, None),
        };
        (scheme, host, port, path, query)
    }

    #[test]
    fn byte_splitter_matches_the_pattern_splitter() {
        for url in [
            "https://a@b@Host.test:99/p/q?x=1?y#f?g",
            "://x/y",
            "weird scheme://h/p",
            "a:b://h:/p",
            "https:/x//y",
            "https://h#frag/p?q",
            "https://h?q/p",
            "h:x://é.test/ü?ß=1",
            "mailto:x@y",
            "",
            ":",
            "https://",
            "https://h/p#f?q",
            "https://h/p?q#f?g",
            "https://u@h?q#f",
            "/rel?q#f",
            "https://h:8080",
            "https://u:pw@h/p",
            "https://u:pw@h:81?q",
            "https://[::1]:8080/x",
            "https://u@[::1]/x",
            "https://h:99999/",
            "https://h:x:1#f",
            "x+y.z-1://h/p",
            "abc",
            "https:x://h",
        ] {
            let u = UrlParts::split(url);
            assert_eq!(
                (u.scheme, u.host, u.port, u.path, u.query),
                reference(url),
                "{url}"
            );
            assert_eq!(u.host_key_cow(), u.host_key(), "{url}");
        }
    }

    #[test]
    fn host_keys_with_ports_borrow_the_url_when_spelled_as_keys() {
        for (url, key, borrowed) in [
            ("http://localhost:3000/x", "localhost:3000", true),
            ("https://[::1]:8443/x", "[::1]:8443", true),
            ("https://u:pw@h.test:81?q", "h.test:81", true),
            ("http://h.test:80/x", "h.test", true),
            ("http://h.test:03000/x", "h.test:3000", false),
            ("http://h.test:+3000/x", "h.test:3000", false),
            ("http://H.test:3000/x", "h.test:3000", false),
            ("http://h.test:0/x", "h.test:0", false),
        ] {
            let u = UrlParts::split(url);
            let cow = u.host_key_cow();
            assert_eq!(
                (&*cow, matches!(cow, Cow::Borrowed(_))),
                (key, borrowed),
                "{url}"
            );
        }
    }

    #[test]
    fn decodes_queries() {
        let pairs: Vec<_> = query_pairs("a=1&b=hello+world&c=%E2%9C%93&d&e=%zz%").collect();
        assert_eq!((&*pairs[1].0, &*pairs[1].1), ("b", "hello world"));
        assert_eq!(pairs[2].1, "✓");
        assert_eq!((&*pairs[3].0, &*pairs[3].1), ("d", ""));
        assert_eq!(pairs[4].1, "%zz%");
    }

    #[test]
    fn query_pairs_split_like_str_split() {
        for query in [
            "",
            "a=1&b=2",
            "&&a&=x&b=1=2&",
            "q=red+shoes&x=%41%2",
            "é=ü&&",
        ] {
            let ours: Vec<_> = query_pairs(query).collect();
            let theirs: Vec<_> = query
                .split('&')
                .filter(|p| !p.is_empty())
                .map(|pair| {
                    let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                    (percent_decode(name), percent_decode(value))
                })
                .collect();
            assert_eq!(ours, theirs, "{query}");
        }
    }

    #[test]
    fn uppercase_is_found_in_any_byte() {
        for len in 0..20 {
            for at in 0..len {
                for (byte, upper) in [
                    (b'A', true),
                    (b'Z', true),
                    (b'@', false),
                    (b'[', false),
                    (b'a', false),
                    (0xC1, false),
                    (0xDA, false),
                ] {
                    let mut bytes = vec![b'x'; len];
                    bytes[at] = byte;
                    assert_eq!(has_ascii_uppercase(&bytes), upper, "{bytes:?}");
                }
            }
        }
        assert!(!has_ascii_uppercase(b"accept-language\xff\xc1\xda"));
    }

    /// The word-at-a-time comparison agrees with `eq_ignore_ascii_case`
    /// whatever the length and wherever the case (or a byte) differs.
    #[test]
    fn words_compare_like_eq_ignore_ascii_case() {
        let base = b"Access-Control-Request-Method\xc3\x89@[`{";
        for len in 0..=base.len() {
            let name = &base[..len];
            assert!(eq_ignore_ascii_case_words(name, name));
            for at in 0..len {
                for byte in [
                    b'a', b'A', b'z', b'Z', b'@', b'[', b'`', b'{', 0xc3, 0xe3, b'#',
                ] {
                    let mut other = name.to_vec();
                    other[at] = byte;
                    for (a, b) in [(name, &other[..]), (&other[..], name)] {
                        assert_eq!(
                            eq_ignore_ascii_case_words(a, b),
                            a.eq_ignore_ascii_case(b),
                            "{a:?} {b:?}"
                        );
                    }
                }
            }
        }
        assert!(!eq_ignore_ascii_case_words(b"content-type", b"content-typ"));
    }

    #[test]
    fn words_compare_like_slices() {
        let base = b"x-forwarded-for-and-some-more\xc3\x89";
        for len in 0..=base.len() {
            let name = &base[..len];
            assert!(eq_words(name, name));
            assert!(!eq_words(name, &base[..len.saturating_sub(1)]) || len == 0);
            for at in 0..len {
                let mut other = name.to_vec();
                other[at] ^= 0x20;
                assert!(!eq_words(name, &other) && !eq_words(&other, name));
            }
        }
    }

    /// How URLs were split before the one-pass [`split_url`]: the reference
    /// it must agree with.
    fn split_url_by_searches(url: &str) -> (&str, &str, Option<&str>) {
        let url = url.split('#').next().unwrap_or("");
        let after_scheme = url.find("://").map_or(0, |i| i + 3);
        let path_start = url[after_scheme..]
            .find(['/', '?'])
            .map_or(url.len(), |i| after_scheme + i);
        let (origin, rest) = url.split_at(path_start);
        match rest.split_once('?') {
            Some((path, query)) => (origin, path, Some(query)),
            None => (origin, rest, None),
        }
    }

    proptest::proptest! {
        #[test]
        fn one_pass_split_agrees_with_the_searches(url in "[a-z:/?#@.=&é]{0,24}") {
            proptest::prop_assert_eq!(split_url(&url), split_url_by_searches(&url));
            let expected = url.split_once('?').map(|(_, q)| q.split('#').next().unwrap_or(""));
            proptest::prop_assert_eq!(query_of(&url), expected);
        }
    }

    #[test]
    fn urls_split_into_origin_path_and_query() {
        assert_eq!(
            split_url("https://a.test:8443/x/y?q=1#f"),
            ("https://a.test:8443", "/x/y", Some("q=1"))
        );
        assert_eq!(split_url("http://a.test"), ("http://a.test", "", None));
        assert_eq!(
            split_url("http://a.test?x"),
            ("http://a.test", "", Some("x"))
        );
    }

    #[test]
    fn percent_decoding_handles_plus_escapes_and_garbage() {
        assert_eq!(percent_decode("a+b%20c%2Fd"), "a b c/d");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz%4"), "%zz%4");
        assert_eq!(percent_decode("%FF"), "\u{FFFD}");
    }
}
