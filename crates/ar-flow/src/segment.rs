//! One path segment on its own: what its spelling says it is (layer 1 of
//! templating: a value or a name), and the suffix it may carry (`.json`,
//! `:start`).
//!
//! A segment is a parameter on its own when its spelling alone says "this is
//! a value, not a name": digits, UUIDs, hashes, dates, emails, prefixed ids.
//! The checks are hand-written byte scans (no regex) because they run for
//! every segment of every flow.

use serde::{Deserialize, Serialize};

/// What a path segment looks like when it is a value rather than a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    /// Decimal digits (`42`).
    Integer,
    /// A UUID (`0b0e5f6e-...`), any version, any case.
    Uuid,
    /// A hex id or hash: 8+ hex digits with a digit in them, or 16+ hex digits.
    Hex,
    /// A calendar date or date-time (`2024-05-01`, `2024-05-01T10:00:00Z`).
    Date,
    /// A Unix timestamp in seconds or milliseconds (10 or 13 digits, 2001..2286).
    Timestamp,
    /// An email address (also `%40`-encoded).
    Email,
    /// A prefixed id such as Stripe's `cus_9Xh2kQ` or `ord_...`.
    PrefixedId,
    /// Two uppercase letters and 32 hex digits (Twilio-style `AC...` SIDs).
    Sid,
    /// A long opaque base62 / base64url token (or a JWT).
    OpaqueToken,
    /// An issue-tracker key (`PROJ-123`).
    IssueKey,
    /// An IP address (`203.0.113.138`, `2001:db8::1`).
    Ip,
    /// A value that needed percent-encoding (`group%2Fproject`,
    /// `Drum%20%26%20Bass`, `abc%3D%3D`): route names are written plain.
    Encoded,
    /// A dotted version number (`2.0`, `1.4.2`): an API generation when it
    /// never varies or each value leads to its own paths, else a parameter.
    Version,
    /// A language tag with a region or script (`en-US`, `pt_BR`, `zh-Hant`):
    /// a site's fixed prefix when it never varies, else a parameter.
    Locale,
    /// A comma-separated list of values (`4641251,7773458,7773459`, `bus,tube`):
    /// several values at once. A route's names are single words; a list
    /// in a segment is what a client chose.
    List,
    /// Two numbers joined by a comma (`52.52,13.40`, `701,80939`): a point
    /// or a range. Where every value of a position is one, the position
    /// holds two parameters (`{latitude},{longitude}`); a list of ids of
    /// varying length is a [`Self::List`].
    Pair,
}

impl SegmentKind {
    /// Short lowercase name, as used in explanations (`integer`, `uuid`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Integer => "integer",
            Self::Uuid => "uuid",
            Self::Hex => "hex",
            Self::Date => "date",
            Self::Timestamp => "timestamp",
            Self::Email => "email",
            Self::PrefixedId => "prefixed_id",
            Self::Sid => "sid",
            Self::OpaqueToken => "opaque_token",
            Self::IssueKey => "issue_key",
            Self::Version => "version",
            Self::Encoded => "encoded",
            Self::Ip => "ip",
            Self::Locale => "locale",
            Self::List => "list",
            Self::Pair => "pair",
        }
    }

    /// Whether values of this kind identify a resource (named `{thingId}`).
    pub fn is_id_like(self) -> bool {
        !matches!(
            self,
            Self::Date
                | Self::Timestamp
                | Self::Email
                | Self::IssueKey
                | Self::Version
                | Self::Locale
                | Self::Encoded
                | Self::Ip
                | Self::List
                | Self::Pair
        )
    }

    /// Whether a value of this spelling can just as well name an API
    /// generation as identify a resource (`/1/...`, `/2015-03-31/...`,
    /// `/2.0/...`): short integers, plain dates and dotted versions. Only the
    /// evidence across paths (a value that never varies, values that each
    /// lead to paths of their own) tells which; the templater keeps such
    /// values apart until it has decided.
    pub fn is_weak(self, segment: &str) -> bool {
        match self {
            Self::Integer => segment.len() <= 2,
            Self::Date => segment.len() == 10,
            Self::Version | Self::Locale => true,
            _ => false,
        }
    }
}

/// Whether a query pair is a cache-buster rather than a parameter: a name
/// with no value that is itself a value (`?1795950405958`, `?_=<uuid>` is a
/// named parameter and is not one). Apps append the time or a random id as a
/// bare key so no cache answers; a parameter's name is a word, never a number
/// or an id, so such a pair names nothing and is left out of shapes and specs.
///
/// ```
/// use ar_flow::segment::is_cache_buster;
/// assert!(is_cache_buster("1795950405958", ""));
/// assert!(is_cache_buster("0b0e5f6e-8c3f-4b53-9b7e-6a1f7e0c2d11", ""));
/// assert!(!is_cache_buster("refresh", ""));
/// assert!(!is_cache_buster("1795950405958", "1"));
/// ```
pub fn is_cache_buster(name: &str, value: &str) -> bool {
    value.is_empty()
        && classify_segment(name)
            .is_some_and(|kind| kind.is_id_like() || kind == SegmentKind::Timestamp)
}

/// Classifies one raw path segment (as written in the URL, not decoded).
///
/// Returns `None` for anything that may be a name: words, slugs, version
/// tags (`v2`), file names.
///
/// ```
/// use ar_flow::segment::{classify_segment, SegmentKind};
/// assert_eq!(classify_segment("42"), Some(SegmentKind::Integer));
/// assert_eq!(classify_segment("cus_9Xh2kQ"), Some(SegmentKind::PrefixedId));
/// assert_eq!(classify_segment("PROJ-123"), Some(SegmentKind::IssueKey));
/// assert_eq!(classify_segment("4641251,7773458,7773459"), Some(SegmentKind::List));
/// assert_eq!(classify_segment("-37.8136,144.9631"), Some(SegmentKind::Pair));
/// assert_eq!(classify_segment("settings"), None);
/// assert_eq!(classify_segment("v2"), None);
/// ```
pub fn classify_segment(segment: &str) -> Option<SegmentKind> {
    let b = segment.as_bytes();
    if b.is_empty() {
        return None;
    }
    // The usual literal (`users`, `order-items`): short, lowercase letters and
    // dashes. Every kind below needs a digit, an uppercase letter, `@`, `%`,
    // `_`, `.` or 16+ bytes, so such a word is none of them.
    if b.len() < 16 && b.iter().all(|c| c.is_ascii_lowercase() || *c == b'-') {
        return None;
    }
    if is_number_pair(b) {
        return Some(SegmentKind::Pair);
    }
    if is_list(b) {
        return Some(SegmentKind::List);
    }
    if b.iter().all(u8::is_ascii_digit) {
        return Some(if is_timestamp(b) {
            SegmentKind::Timestamp
        } else {
            SegmentKind::Integer
        });
    }
    if is_ipv4(b) || is_ipv6(segment) {
        return Some(SegmentKind::Ip);
    }
    if is_dotted_version(b) {
        return Some(SegmentKind::Version);
    }
    if is_locale(b) {
        return Some(SegmentKind::Locale);
    }
    // Short versions and words with digits (`v1`, `v2.1`, `md5`, `x-2`): a
    // kind below needs 8+ bytes, an uppercase letter, `@`, `%` or `_`.
    if b.len() < 8
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-' || *c == b'.')
    {
        return None;
    }
    if is_uuid(b) {
        return Some(SegmentKind::Uuid);
    }
    if is_sid(b) {
        return Some(SegmentKind::Sid);
    }
    if is_hex_id(b) {
        return Some(SegmentKind::Hex);
    }
    if is_date(b) {
        return Some(SegmentKind::Date);
    }
    if is_email(segment) {
        return Some(SegmentKind::Email);
    }
    if is_issue_key(b) {
        return Some(SegmentKind::IssueKey);
    }
    if is_prefixed_id(b) || is_qualified_uuid(b) {
        return Some(SegmentKind::PrefixedId);
    }
    if is_opaque(b) {
        return Some(SegmentKind::OpaqueToken);
    }
    if is_percent_encoded(b) {
        return Some(SegmentKind::Encoded);
    }
    None
}

/// Whether `b` holds a `%XX` escape: a character a route name would not use.
fn is_percent_encoded(b: &[u8]) -> bool {
    b.windows(3)
        .any(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
}

/// A BCP 47 language tag with a region or a script, as paths write them:
/// two or three lowercase letters, `-` or `_`, then two uppercase letters
/// (`en-US`, `pt_BR`) or a titlecase script (`zh-Hant`), and optionally a
/// region after a script (`zh-Hant-TW`). A bare language (`en`) is as
/// likely a word (`me`, `id`), so it is none.
fn is_locale(b: &[u8]) -> bool {
    let language = b.iter().take_while(|c| c.is_ascii_lowercase()).count();
    if !(2..=3).contains(&language) || !matches!(b.get(language), Some(b'-' | b'_')) {
        return false;
    }
    let rest = &b[language + 1..];
    let region = |r: &[u8]| r.len() == 2 && r.iter().all(u8::is_ascii_uppercase);
    let script = |s: &[u8]| {
        s.len() == 4 && s[0].is_ascii_uppercase() && s[1..].iter().all(u8::is_ascii_lowercase)
    };
    region(rest)
        || script(rest)
        || (rest.len() == 7 && script(&rest[..4]) && rest[4] == b'-' && region(&rest[5..]))
}

/// Version tags (`v1`, `v2.1`, `V3`) are names of an API generation, never values.
pub fn is_version_like(segment: &str) -> bool {
    let b = segment.as_bytes();
    b.len() >= 2
        && (b[0] == b'v' || b[0] == b'V')
        && b[1].is_ascii_digit()
        && b[1..].iter().all(|c| c.is_ascii_digit() || *c == b'.')
}

/// Two or more non-empty items joined by commas (`12,34`, `bus,tube`).
/// Two decimal numbers, each with an optional sign and fraction, joined by
/// one comma (`-37.81,144.96`, `701,80939`).
fn is_number_pair(b: &[u8]) -> bool {
    let number = |n: &[u8]| {
        let n = n
            .strip_prefix(b"-")
            .or_else(|| n.strip_prefix(b"+"))
            .unwrap_or(n);
        let (whole, fraction) = match n.iter().position(|c| *c == b'.') {
            Some(dot) => (&n[..dot], Some(&n[dot + 1..])),
            None => (n, None),
        };
        !whole.is_empty()
            && whole.iter().all(u8::is_ascii_digit)
            && fraction.is_none_or(|f| !f.is_empty() && f.iter().all(u8::is_ascii_digit))
    };
    let mut parts = b.split(|c| *c == b',');
    matches!(
        (parts.next(), parts.next(), parts.next()),
        (Some(x), Some(y), None) if number(x) && number(y)
    )
}

fn is_list(b: &[u8]) -> bool {
    b.contains(&b',') && b.split(|c| *c == b',').all(|item| !item.is_empty())
}

/// Four decimal groups of at most 255 joined by dots (`203.0.113.138`).
fn is_ipv4(b: &[u8]) -> bool {
    let mut groups = 0;
    for group in b.split(|c| *c == b'.') {
        let ok = !group.is_empty()
            && group.len() <= 3
            && group.iter().all(u8::is_ascii_digit)
            && std::str::from_utf8(group)
                .ok()
                .and_then(|g| g.parse::<u16>().ok())
                .is_some_and(|n| n <= 255);
        if !ok {
            return false;
        }
        groups += 1;
    }
    groups == 4
}

/// An IPv6 address as written in a path (`2001:db8::1`, also `%3A`-encoded).
fn is_ipv6(segment: &str) -> bool {
    // Cheap refusals first: this runs for every unknown segment.
    let b = segment.as_bytes();
    if b.len() < 2
        || !b
            .iter()
            .all(|c| c.is_ascii_hexdigit() || b":%.".contains(c))
    {
        return false;
    }
    if memchr::memchr(b':', b).is_none() && !segment.contains("%3A") && !segment.contains("%3a") {
        return false;
    }
    let decoded = segment.replace("%3A", ":").replace("%3a", ":");
    decoded.contains(':') && decoded.parse::<std::net::Ipv6Addr>().is_ok()
}

/// `2.0`, `1.4.2`: digit groups joined by single dots, at most four groups.
fn is_dotted_version(b: &[u8]) -> bool {
    let mut groups = 0;
    for group in b.split(|c| *c == b'.') {
        if group.is_empty() || group.len() > 4 || !group.iter().all(u8::is_ascii_digit) {
            return false;
        }
        groups += 1;
    }
    (2..=4).contains(&groups)
}

fn is_timestamp(b: &[u8]) -> bool {
    // 2001-09-09 (1_000_000_000) to 2286 in seconds, or the same in milliseconds.
    (b.len() == 10 || b.len() == 13) && b[0] != b'0'
}

fn is_uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

fn is_sid(b: &[u8]) -> bool {
    b.len() == 34
        && b[0].is_ascii_uppercase()
        && b[1].is_ascii_uppercase()
        && b[2..].iter().all(u8::is_ascii_hexdigit)
}

fn is_hex_id(b: &[u8]) -> bool {
    b.len() >= 8
        && b.iter().all(u8::is_ascii_hexdigit)
        && (b.len() >= 16 || b.iter().any(u8::is_ascii_digit))
        && !(b.iter().any(u8::is_ascii_lowercase) && b.iter().any(u8::is_ascii_uppercase))
}

fn is_date(b: &[u8]) -> bool {
    if b.len() < 10 {
        return false;
    }
    let d = |i: usize| b[i].is_ascii_digit();
    let ymd = d(0)
        && d(1)
        && d(2)
        && d(3)
        && b[4] == b'-'
        && d(5)
        && d(6)
        && b[7] == b'-'
        && d(8)
        && d(9);
    if !ymd {
        return false;
    }
    b.len() == 10
        || (b[10] == b'T' || b[10] == b't' || b[10] == b' ')
            && b[11..]
                .iter()
                .all(|c| c.is_ascii_digit() || b":.+-Zz%".contains(c))
}

fn is_email(s: &str) -> bool {
    // Byte searches: a `&str` pattern search costs more to set up than the
    // whole check, and this runs for every path segment of every flow.
    let b = s.as_bytes();
    let (local, domain) = if let Some(i) = memchr::memchr(b'@', b) {
        (&s[..i], &s[i + 1..])
    } else if let Some(i) = find_encoded_at(b) {
        (&s[..i], &s[i + 3..])
    } else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && domain
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'-')
}

/// The first `%40` in `b` (a memmem finder costs more to build than this search).
fn find_encoded_at(b: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'%', &b[from..]).map(|i| i + from) {
        if b[i + 1..].starts_with(b"40") {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

fn is_issue_key(b: &[u8]) -> bool {
    let Some(dash) = b.iter().position(|c| *c == b'-') else {
        return false;
    };
    (2..=10).contains(&dash)
        && b[0].is_ascii_uppercase()
        && b[..dash]
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
        && dash + 1 < b.len()
        && b[dash + 1..].iter().all(u8::is_ascii_digit)
}

fn is_prefixed_id(b: &[u8]) -> bool {
    let Some(us) = b.iter().position(|c| *c == b'_') else {
        return false;
    };
    let (prefix, tail) = (&b[..us], &b[us + 1..]);
    let numbered = tail.len() >= 3 && tail.iter().all(u8::is_ascii_digit);
    // A word ending in a number (`oauth2`, `sha256`) names something; a
    // generated tail mixes digits or capitals in (`9Xh2kQ`).
    let word_end = tail
        .iter()
        .rposition(|c| !c.is_ascii_digit())
        .map_or(0, |i| i + 1);
    (2..=8).contains(&prefix.len())
        && prefix.iter().all(u8::is_ascii_lowercase)
        && (numbered
            || tail.len() >= 6
                && tail.iter().all(u8::is_ascii_alphanumeric)
                && tail[..word_end]
                    .iter()
                    .any(|c| c.is_ascii_digit() || c.is_ascii_uppercase()))
}

/// A UUID qualified by the kind of thing it names
/// (`prefect.deployment.0b0e5f6e-...`, `user:0b0e5f6e-...`): one resource,
/// named as event sources and URNs name it.
fn is_qualified_uuid(b: &[u8]) -> bool {
    b.len() > 37
        && matches!(b[b.len() - 37], b'.' | b':' | b'_' | b'-')
        && is_uuid(&b[b.len() - 36..])
}

fn is_opaque(b: &[u8]) -> bool {
    // A JWT: three base64url parts separated by dots, the first a JSON
    // object (`{"alg":...}` is `eyJ...` in base64url, `{ "` is `eyAi`). Words
    // joined by dots (`account.failed_webhooks.json`, `matcher.subtitle.get`)
    // are an RPC method's name, not a token.
    if b.iter().filter(|c| **c == b'.').count() == 2 && b.len() >= 20 {
        return b.starts_with(b"ey")
            && b.split(|c| *c == b'.')
                .all(|part| !part.is_empty() && part.iter().all(|c| is_b64url(*c)));
    }
    if b.len() < 16 || !b.iter().all(|c| is_b64url(*c)) {
        return false;
    }
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    let upper = b.iter().filter(|c| c.is_ascii_uppercase()).count();
    let lower = b.iter().filter(|c| c.is_ascii_lowercase()).count();
    let separators = b.iter().filter(|c| **c == b'-' || **c == b'_').count();
    // Slugs (`my-first-post-2023`) are words joined by separators; tokens mix
    // classes densely and rarely separate words.
    let mixed = (digits > 0) as u8 + (upper > 0) as u8 + (lower > 0) as u8;
    mixed >= 2
        && separators * 6 < b.len()
        && (digits + upper) * 5 >= b.len()
        && !(separators == 0 && is_camel_words(b))
}

/// Whether letters alone read as words run together in camel or Pascal case
/// (`clientTaskPONumber`, `CallerIdLists`, `segmentPlanPunctualityAtOrigin`):
/// each word a capital (or an acronym) and lowercase letters, words of four
/// letters on average, each of three or more with a vowel. A random token's
/// case changes fall anywhere (`xKqPzLmWvBtRnYsD`), so its "words" are short
/// and unpronounceable; an identifier's are a language's. A word may end in
/// a number (`usRaceEthnicityZIP5`, `toBase64`), as names do; a digit
/// inside a word (`Rva2Vu`) is a token's.
fn is_camel_words(b: &[u8]) -> bool {
    let digits = b.iter().filter(|c| c.is_ascii_digit()).count();
    if !b.iter().all(u8::is_ascii_alphanumeric) || !b[0].is_ascii_alphabetic() || digits > 4 {
        return false;
    }
    let word_ok = |w: &[u8]| {
        let letters = &w[..w.iter().take_while(|c| c.is_ascii_alphabetic()).count()];
        let vowel = letters.iter().any(|c| {
            matches!(
                c.to_ascii_lowercase(),
                b'a' | b'e' | b'i' | b'o' | b'u' | b'y'
            )
        });
        let number = &w[letters.len()..];
        letters.len() >= 2 && (letters.len() < 3 || vowel) && number.iter().all(u8::is_ascii_digit)
    };
    let (mut words, mut start) = (1, 0);
    for i in 1..b.len() {
        let (prev, here) = (b[i - 1], b[i]);
        let next_lower = b.get(i + 1).is_some_and(u8::is_ascii_lowercase);
        // A word starts at a capital after a lowercase letter or a number
        // (`taskPO`, `ZIP5Code`), or at the last capital of an acronym that
        // a word follows (`PONumber`).
        if here.is_ascii_uppercase()
            && (prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower))
        {
            if !word_ok(&b[start..i]) {
                return false;
            }
            words += 1;
            start = i;
        }
    }
    words >= 2 && b.len() >= 4 * words && word_ok(&b[start..])
}

fn is_b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

/// Response formats that a path may name in a suffix (`/t/27176.json`),
/// each with its token ([`SegmentSuffix::token`]).
const FORMATS: [(&str, &str); 8] = [
    ("json", "\0.json"),
    ("xml", "\0.xml"),
    ("csv", "\0.csv"),
    ("txt", "\0.txt"),
    ("html", "\0.html"),
    ("yaml", "\0.yaml"),
    ("atom", "\0.atom"),
    ("rss", "\0.rss"),
];

/// What the trie keeps apart from a segment's stem, as a child of its own:
/// a response format (`27176.json`: the value `27176` answered as JSON) or,
/// in a path's last segment, a custom method (`instances/i1:start`, as
/// Google's AIP-136 writes them: an operation on `i1`, not another value).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentSuffix<'a> {
    /// A response format (`.json`), by its marker.
    Format(&'static str),
    /// `:verb`, as written.
    Method(&'a str),
}

impl<'a> SegmentSuffix<'a> {
    /// A token for the suffix that no segment can be: a NUL, then the
    /// suffix as written (a NUL never appears in a raw URL path). The
    /// templater's trie keeps suffixes apart from stems with it.
    pub fn token(self) -> std::borrow::Cow<'a, str> {
        match self {
            Self::Format(marker) => marker.into(),
            Self::Method(text) => format!("\0{text}").into(),
        }
    }

    /// As written in the path: `.json`, `:start`.
    pub fn text(self) -> &'a str {
        match self {
            Self::Format(marker) => &marker[1..],
            Self::Method(text) => text,
        }
    }
}

/// Splits a raw segment into its stem and what follows it ([`SegmentSuffix`]).
/// A stem with a dot of its own (`example.com.json`) or none at all keeps
/// the whole segment; a custom method is only split off the `last` segment,
/// and only as `:` and a lowerCamel verb after a stem without a colon.
///
/// ```text
/// split_suffix("27176.json", false) == ("27176", Some(Format("\0.json")))
/// split_suffix("a.b.json", false)   == ("a.b.json", None)
/// split_suffix("i1:start", true)    == ("i1", Some(Method(":start")))
/// split_suffix("i1:start", false)   == ("i1:start", None)
/// ```
pub fn split_suffix(segment: &str, last: bool) -> (&str, Option<SegmentSuffix<'_>>) {
    if last && let Some(colon) = memchr::memrchr(b':', segment.as_bytes()) {
        let (stem, verb) = (&segment[..colon], &segment[colon + 1..]);
        if is_method_verb(verb) && !stem.is_empty() && !stem.contains(':') {
            return (stem, Some(SegmentSuffix::Method(&segment[colon..])));
        }
    }
    let Some(dot) = memchr::memrchr(b'.', segment.as_bytes()) else {
        return (segment, None);
    };
    let (stem, ext) = (&segment[..dot], &segment[dot + 1..]);
    if stem.is_empty() || stem.contains('.') {
        return (segment, None);
    }
    match FORMATS.iter().find(|(e, _)| *e == ext) {
        Some((_, marker)) => (stem, Some(SegmentSuffix::Format(marker))),
        None => (segment, None),
    }
}

/// Whether `verb` (after the `:` ending a path) names a custom method:
/// lowerCamel letters, two or more (`start`, `batchGet`), where a port or a
/// time (`:8080`, `:30`) has digits.
///
/// ```
/// use ar_flow::segment::is_method_verb;
/// assert!(is_method_verb("batchGet") && !is_method_verb("8080") && !is_method_verb("Start"));
/// ```
pub fn is_method_verb(verb: &str) -> bool {
    verb.as_bytes().first().is_some_and(u8::is_ascii_lowercase)
        && verb.len() >= 2
        && verb.bytes().all(|b| b.is_ascii_alphabetic())
}

/// The suffix a trie token stands for (`.json`, `:start`), or `None` for any
/// other token.
pub fn format_suffix(token: &str) -> Option<&str> {
    token.strip_prefix('\0')
}

/// Whether a trie token is a response format, which says how a path
/// answers, not where it leads (a custom method does say where).
pub fn is_format_token(token: &str) -> bool {
    token.starts_with("\0.")
}

/// Splits a URL path into raw segments and whether it had a trailing slash.
pub fn split_path(path: &str) -> (impl Iterator<Item = &str>, bool) {
    let trimmed = path.strip_prefix('/').unwrap_or(path);
    let trailing = trimmed.ends_with('/') && !trimmed.is_empty();
    let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
    let iter = Segments {
        rest: (!trimmed.is_empty()).then_some(trimmed),
    };
    (iter, trailing)
}

/// `rest.split('/')` as byte searches (a `char` pattern search costs more
/// to set up than a path segment takes to scan).
struct Segments<'a> {
    rest: Option<&'a str>,
}

impl<'a> Iterator for Segments<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let rest = self.rest?;
        match rest.bytes().position(|b| b == b'/') {
            Some(i) => {
                self.rest = Some(&rest[i + 1..]);
                Some(&rest[..i])
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use SegmentKind::*;

    #[test]
    fn values_are_classified() {
        let cases = [
            ("42", Integer),
            ("0", Integer),
            ("1700000000", Timestamp),
            ("1700000000123", Timestamp),
            ("0b0e5f6e-8c4d-4b1a-9d2e-1f2a3b4c5d6e", Uuid),
            ("5f2b1c9a", Hex),
            ("da39a3ee5e6b4b0d3255bfef95601890afd80709", Hex),
            ("2024-05-01", Date),
            ("2024-05-01T10:00:00Z", Date),
            ("ann@example.com", Email),
            ("ann%40example.com", Email),
            ("cus_9Xh2kQ", PrefixedId),
            ("ord_1NcPq7Lk", PrefixedId),
            ("AC0123456789abcdef0123456789abcdef", Sid),
            ("dGhpcyBpcyBhIHRva2VuIQ", OpaqueToken),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
                OpaqueToken,
            ),
            ("PROJ-123", IssueKey),
            ("2.0", Version),
            ("1.4.2", Version),
            ("en-US", Locale),
            ("pt_BR", Locale),
            ("zh-Hant", Locale),
            ("zh-Hant-TW", Locale),
            ("blue-harbor%2Fcli", Encoded),
            ("203.0.113.138", Ip),
            ("2001:db8::1", Ip),
            ("2001%3Adb8%3A%3A1", Ip),
            ("cart_87654", PrefixedId),
            (
                "prefect.deployment.28eb642f-8c03-432d-9769-1fa4ced1a2f8",
                PrefixedId,
            ),
            ("user:0b0e5f6e-8c4d-4b1a-9d2e-1f2a3b4c5d6e", PrefixedId),
            ("line_4273", PrefixedId),
            ("Drum%20%26%20Bass", Encoded),
            ("UzZFAFX7tcZb0O3IsvBgMg%3D%3D", Encoded),
            ("xKqPzLmWvBtRnYsD", OpaqueToken),
            ("Rt5vBq8ZmW2xLp4N", OpaqueToken),
            ("4641251,7773458,7773459", List),
            ("bus,tube,dlr", List),
            ("bus,1", List),
            ("1.5.,2", List),
            ("4641251,7773458", Pair),
            ("-37.8136,144.9631", Pair),
            ("+1.5,2", Pair),
            ("API_BASE_URL,AWS_REGION", List),
        ];
        for (segment, kind) in cases {
            assert_eq!(classify_segment(segment), Some(kind), "{segment}");
        }
    }

    #[test]
    fn names_stay_literal() {
        for segment in [
            "users",
            "me",
            "v1",
            "v2",
            "search",
            "settings",
            "rust-lang",
            "tokio",
            "deadbeef",
            "index.json",
            "account.failed_webhooks.json",
            "matcher.subtitle.get",
            "my-first-post-2023",
            "user_settings",
            "google_oauth2",
            "hmac_sha256",
            "api",
            "graphql",
            "Cafe",
            "facade",
            "2fa",
            "en",
            "en-us",
            "clientTaskPONumber",
            "CallerIdLists",
            "segmentPlanPunctualityAtOrigin",
            "usRaceEthnicityZIP5",
            "convertToBase64Image",
            ",",
            "a,",
            ",b",
        ] {
            assert_eq!(classify_segment(segment), None, "{segment}");
        }
        assert!(is_version_like("v2") && is_version_like("v1.1") && !is_version_like("vip"));
        assert_eq!(find_encoded_at(b"a%4%40b%40"), Some(3));
        assert_eq!(find_encoded_at(b"a%4"), None);
    }

    use proptest::prelude::*;

    proptest! {
        /// The short-word shortcut in `classify_segment` skips only checks that cannot match.
        #[test]
        fn short_words_with_digits_are_of_no_kind(s in "[a-z0-9.-]{1,7}") {
            let b = s.as_bytes();
            prop_assume!(!b.iter().all(u8::is_ascii_digit));
            prop_assert!(!(is_uuid(b) || is_sid(b) || is_hex_id(b) || is_date(b) || is_email(&s)
                || is_issue_key(b) || is_prefixed_id(b) || is_opaque(b)));
        }
    }
}
