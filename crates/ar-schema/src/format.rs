//! String formats recognised in samples.
//!
//! A format is kept for a field only while *every* string seen there matches it, so each detector
//! must be cheap on free text (most strings fail on their first bytes) and strict: it accepts a
//! subset of what a JSON Schema validator accepts for the same `format`, so a schema we emit never
//! rejects the samples it was built from.

/// A set of formats as a bit mask; the merge of two sets is their intersection.
pub(crate) type FormatSet = u16;

/// RFC 3339 `date-time` with a `T` separator and an offset (`Z` or `±hh:mm`).
pub(crate) const DATE_TIME: FormatSet = 1 << 0;
/// RFC 3339 `full-date`: `YYYY-MM-DD`, a real calendar day.
pub(crate) const DATE: FormatSet = 1 << 1;
/// RFC 3339 `full-time`: `hh:mm:ss[.frac]` plus an offset.
pub(crate) const TIME: FormatSet = 1 << 2;
/// `8-4-4-4-12` hexadecimal UUID.
pub(crate) const UUID: FormatSet = 1 << 3;
/// A plain `local@domain.tld` address.
pub(crate) const EMAIL: FormatSet = 1 << 4;
/// An absolute URI with an authority: `scheme://host[:port][/path][?query][#fragment]`.
pub(crate) const URI: FormatSet = 1 << 5;
/// Dotted-quad IPv4 address without leading zeros.
pub(crate) const IPV4: FormatSet = 1 << 6;
/// IPv6 address as `std` parses it (no zone id).
pub(crate) const IPV6: FormatSet = 1 << 7;
/// A string of decimal digits with an optional leading `-` (ids sent as strings).
pub(crate) const INTEGER: FormatSet = 1 << 8;
/// Every format: the identity of intersection, held by a field with no strings yet.
pub(crate) const ALL: FormatSet = (1 << 9) - 1;

/// Formats in output priority: when several survive, the first one is reported.
pub(crate) const ORDERED: [(FormatSet, &str); 9] = [
    (DATE_TIME, "date-time"),
    (DATE, "date"),
    (TIME, "time"),
    (UUID, "uuid"),
    (EMAIL, "email"),
    (URI, "uri"),
    (IPV4, "ipv4"),
    (IPV6, "ipv6"),
    (INTEGER, "integer"),
];

/// Longest string any detector looks at; longer strings match no format.
const MAX_FORMAT_LEN: usize = 2048;

/// Returns which of the `candidates` formats `s` matches.
pub(crate) fn detect(b: &[u8], candidates: FormatSet) -> FormatSet {
    if b.is_empty() || b.len() > MAX_FORMAT_LEN || candidates == 0 {
        return 0;
    }
    let mut found = 0;
    let first = b[0];
    if first.is_ascii_digit() {
        if candidates & DATE_TIME != 0 && is_date_time(b) {
            found |= DATE_TIME;
        }
        if candidates & DATE != 0 && b.len() == 10 && is_date(b) {
            found |= DATE;
        }
        if candidates & TIME != 0 && is_time(b) {
            found |= TIME;
        }
        if candidates & IPV4 != 0 && is_ipv4(b) {
            found |= IPV4;
        }
    }
    if candidates & INTEGER != 0 && is_integer(b) {
        found |= INTEGER;
    }
    if candidates & UUID != 0 && b.len() == 36 && is_uuid(b) {
        found |= UUID;
    }
    if candidates & IPV6 != 0 && (first.is_ascii_hexdigit() || first == b':') && is_ipv6(b) {
        found |= IPV6;
    }
    if candidates & EMAIL != 0 && is_email(b) {
        found |= EMAIL;
    }
    if candidates & URI != 0 && first.is_ascii_alphabetic() && is_uri(b) {
        found |= URI;
    }
    found
}

/// The name of the highest-priority format in `set`, if any.
pub(crate) fn name(set: FormatSet) -> Option<&'static str> {
    ORDERED
        .iter()
        .find(|(bit, _)| set & bit != 0)
        .map(|(_, name)| *name)
}

/// Whether a map key looks like an identifier (integer, UUID, long hex hash).
pub(crate) fn is_id_key(key: &str) -> bool {
    let b = key.as_bytes();
    (is_integer(b) && b.len() <= 40)
        || (b.len() == 36 && is_uuid(b))
        || (b.len() >= 16 && b.len() <= 128 && b.iter().all(u8::is_ascii_hexdigit))
}

fn digits(b: &[u8]) -> Option<u32> {
    if b.is_empty() || !b.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(b.iter().fold(0u32, |n, d| n * 10 + u32::from(d - b'0')))
}

fn is_integer(b: &[u8]) -> bool {
    let digits = b.strip_prefix(b"-").unwrap_or(b);
    !digits.is_empty() && digits.len() <= 64 && all_digits(digits)
}

/// Whether every byte is an ASCII digit: eight at a time (`c ^ b'0'` is below 10 exactly for
/// digits; adding 0x76 to the low seven bits sets the high bit of any byte that is not, with no
/// carry between bytes), then byte by byte.
fn all_digits(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    let words_ok = words.by_ref().all(|w| {
        let x = u64::from_le_bytes(w.try_into().unwrap_or([0; 8])) ^ (ONES * u64::from(b'0'));
        (((x & !HIGH) + ONES * 0x76) | x) & HIGH == 0
    });
    words_ok && words.remainder().iter().all(u8::is_ascii_digit)
}

fn is_date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(&b[0..4]), digits(&b[5..7]), digits(&b[8..10]))
    else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

fn is_time(b: &[u8]) -> bool {
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(h), Some(m), Some(s)) = (digits(&b[0..2]), digits(&b[3..5]), digits(&b[6..8])) else {
        return false;
    };
    if h > 23 || m > 59 || s > 59 {
        return false;
    }
    let mut rest = &b[8..];
    if let Some(frac) = rest.strip_prefix(b".") {
        let n = frac.iter().take_while(|c| c.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &frac[n..];
    }
    match rest {
        b"Z" => true,
        [sign, oh1, oh2, b':', om1, om2] if *sign == b'+' || *sign == b'-' => {
            matches!((digits(&[*oh1, *oh2]), digits(&[*om1, *om2])), (Some(oh), Some(om)) if oh <= 23 && om <= 59)
        }
        _ => false,
    }
}

fn is_date_time(b: &[u8]) -> bool {
    b.len() >= 20 && b[10] == b'T' && is_date(&b[..10]) && is_time(&b[11..])
}

fn is_uuid(b: &[u8]) -> bool {
    b.iter().enumerate().all(|(i, c)| match i {
        8 | 13 | 18 | 23 => *c == b'-',
        _ => c.is_ascii_hexdigit(),
    })
}

fn is_ipv4(b: &[u8]) -> bool {
    let mut parts = 0;
    for part in b.split(|c| *c == b'.') {
        parts += 1;
        if parts > 4 || part.is_empty() || part.len() > 3 || (part.len() > 1 && part[0] == b'0') {
            return false;
        }
        match digits(part) {
            Some(n) if n <= 255 => {}
            _ => return false,
        }
    }
    parts == 4
}

fn is_ipv6(b: &[u8]) -> bool {
    b.len() <= 45
        && b.contains(&b':')
        && std::str::from_utf8(b).is_ok_and(|s| s.parse::<std::net::Ipv6Addr>().is_ok())
}

fn is_email(b: &[u8]) -> bool {
    if b.len() > 254 {
        return false;
    }
    let Some(at) = memchr::memchr(b'@', b) else {
        return false;
    };
    let (local, domain) = (&b[..at], &b[at + 1..]);
    if local.is_empty() || local.len() > 64 || local[0] == b'.' || local[local.len() - 1] == b'.' {
        return false;
    }
    let local_ok =
        local.windows(2).all(|w| w != b"..") && local.iter().all(|&c| EMAIL_LOCAL[usize::from(c)]);
    local_ok && is_domain(domain)
}

fn is_domain(b: &[u8]) -> bool {
    let mut labels = 0;
    let mut last: &[u8] = &[];
    for label in b.split(|c| *c == b'.') {
        labels += 1;
        let ok = !label.is_empty()
            && label.len() <= 63
            && label[0] != b'-'
            && label[label.len() - 1] != b'-'
            // `--` in the third and fourth places marks an IDNA A-label
            // (`xn--`) or is reserved for one (RFC 5891 4.2.3.1); validators
            // decode it and reject what is not valid Punycode, so such a
            // domain is no evidence of the format.
            && label.get(2..4) != Some(b"--")
            && label
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || *c == b'-');
        if !ok {
            return false;
        }
        last = label;
    }
    labels >= 2 && last.len() >= 2 && last.iter().all(u8::is_ascii_alphabetic)
}

fn is_uri(b: &[u8]) -> bool {
    let Some(colon) = b.iter().position(|c| *c == b':') else {
        return false;
    };
    let scheme = &b[..colon];
    let scheme_ok = scheme.len() <= 32
        && scheme[0].is_ascii_alphabetic()
        && scheme
            .iter()
            .all(|c| c.is_ascii_alphanumeric() || b"+.-".contains(c));
    let Some(rest) = b[colon + 1..].strip_prefix(b"//") else {
        return false;
    };
    if !scheme_ok {
        return false;
    }
    // One pass over the authority (up to the first `/`, `?` or `#`): host and port are what
    // follows its last `@`, split at the first `:` after that; track both as we go.
    let mut end = rest.len();
    let (mut at, mut colon) = (None, None);
    let (mut host_ok, mut port_ok) = (true, true);
    for (j, &c) in rest.iter().enumerate() {
        if AUTHORITY_END[usize::from(c)] {
            end = j;
            break;
        }
        match c {
            b'@' => {
                (at, colon) = (Some(j), None);
                (host_ok, port_ok) = (true, true);
            }
            b':' if colon.is_none() => colon = Some(j),
            _ if colon.is_none() => host_ok &= HOST_CHAR[usize::from(c)],
            _ => port_ok &= c.is_ascii_digit(),
        }
    }
    let (authority, tail) = rest.split_at(end);
    let host_start = at.map_or(0, |at| at + 1);
    let host_end = colon.unwrap_or(end);
    let port_len = colon.map_or(0, |colon| end - colon - 1);
    if let Some(at) = at
        && !authority[..at]
            .iter()
            .all(|c| is_uri_char(*c) && !b"/?#@[]".contains(c))
    {
        return false;
    }
    host_ok && host_end > host_start && port_ok && port_len <= 5 && tail_ok(tail)
}

fn tail_ok(tail: &[u8]) -> bool {
    // Most paths and queries have no percent-escape, fragment or bracket: one table pass.
    if all_in(tail, &TAIL_PLAIN) {
        return true;
    }
    let mut i = 0;
    let mut seen_hash = false;
    while i < tail.len() {
        let c = tail[i];
        if c == b'%' {
            if !(tail.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && tail.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
            {
                return false;
            }
            i += 3;
            continue;
        }
        if c == b'#' {
            if seen_hash {
                return false;
            }
            seen_hash = true;
        } else if !is_uri_char(c) || c == b'[' || c == b']' {
            return false;
        }
        i += 1;
    }
    true
}

fn is_uri_char(c: u8) -> bool {
    URI_CHAR[usize::from(c)]
}

/// A 256-entry membership table: one lookup per byte on the hot path.
const fn table(extra: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric();
        c += 1;
    }
    let mut i = 0;
    while i < extra.len() {
        t[extra[i] as usize] = true;
        i += 1;
    }
    t
}

/// Whether every byte of `b` is in `set`: no early exit, so the loop stays branch-free per
/// byte (these checks run on every string of a field that is still a URI).
fn all_in(b: &[u8], set: &[bool; 256]) -> bool {
    b.iter().fold(true, |ok, &c| ok & set[usize::from(c)])
}

/// RFC 3986 unreserved + reserved characters.
static URI_CHAR: [bool; 256] = table(b"-._~:/?#[]@!$&'()*+,;=");
/// URI characters that need no closer look in a path or query (no `#`, `[`, `]`; `%` is not
/// in `URI_CHAR` either, it is checked with its two hex digits).
static TAIL_PLAIN: [bool; 256] = table(b"-._~:/?@!$&'()*+,;=");
/// Bytes that end a URI's authority.
static AUTHORITY_END: [bool; 256] = {
    let mut t = [false; 256];
    t[b'/' as usize] = true;
    t[b'?' as usize] = true;
    t[b'#' as usize] = true;
    t
};
/// Characters of a host name (or IPv4 address) in a URI.
static HOST_CHAR: [bool; 256] = table(b"-._~");
/// Characters of an unquoted email local part.
static EMAIL_LOCAL: [bool; 256] = table(b".!#$%&'*+/=?^_`{|}~-");

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(s: &str) -> Option<&'static str> {
        name(detect(s.as_bytes(), ALL))
    }

    #[test]
    fn recognises_each_format() {
        assert_eq!(fmt("2024-02-29T10:20:30Z"), Some("date-time"));
        assert_eq!(fmt("2024-02-29T10:20:30.123+02:00"), Some("date-time"));
        assert_eq!(fmt("2024-02-29"), Some("date"));
        assert_eq!(fmt("10:20:30Z"), Some("time"));
        assert_eq!(fmt("123e4567-e89b-12d3-a456-426614174000"), Some("uuid"));
        assert_eq!(fmt("ada@example.com"), Some("email"));
        assert_eq!(fmt("ada@2e--ra-xampl8.com"), None, "a reserved `--` label");
        assert_eq!(fmt("ada@e--x.example.com"), Some("email"));
        assert_eq!(
            fmt("https://api.example.com:8443/v1/users?id=3#top"),
            Some("uri")
        );
        assert_eq!(fmt("192.168.0.1"), Some("ipv4"));
        assert_eq!(fmt("2001:db8::1"), Some("ipv6"));
        assert_eq!(fmt("-12345678901234567890123"), Some("integer"));
    }

    #[test]
    fn rejects_near_misses() {
        for s in [
            "",
            "hello",
            "2023-02-29",
            "2024-13-01",
            "2024-01-01T25:00:00Z",
            "2024-01-01T10:00:00",
            "10:20:30",
            "123e4567-e89b-12d3-a456-42661417400g",
            "ada@localhost",
            "a..b@example.com",
            "https://exa mple.com",
            "http://host:port/",
            "mailto:ada@example.com",
            "01.2.3.4",
            "256.1.1.1",
            "1.2.3",
            "::g",
            "12a",
            "-",
            "https://x.com/%zz",
        ] {
            assert_eq!(fmt(s), None, "{s:?}");
        }
    }

    #[test]
    fn candidates_limit_the_work() {
        assert_eq!(detect(b"2024-02-29", UUID | EMAIL), 0);
        assert_eq!(detect(b"2024-02-29", DATE | UUID), DATE);
    }

    #[test]
    fn digits_word_at_a_time() {
        for c in 0u8..=255 {
            for len in 1..20 {
                for at in 0..len {
                    let mut b = vec![b'5'; len];
                    b[at] = c;
                    assert_eq!(
                        all_digits(&b),
                        c.is_ascii_digit(),
                        "{c:#x} at {at} of {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn id_keys() {
        assert!(is_id_key("12345"));
        assert!(is_id_key("123e4567-e89b-12d3-a456-426614174000"));
        assert!(is_id_key("9f86d081884c7d659a2feaa0c55ad015"));
        assert!(!is_id_key("name"));
        assert!(!is_id_key("cafe"));
    }
}
