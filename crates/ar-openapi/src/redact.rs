//! Redaction: secrets never reach the spec, the markdown, an example or an LLM.
//!
//! Two kinds of evidence mark a value as secret, and either is enough:
//! - its *name*: the header, query parameter, form field or JSON key is called
//!   something like `authorization`, `x-api-key`, `access_token`, `password`;
//! - its *shape*: the value itself looks like a credential wherever it appears
//!   (a JWT, `Bearer ...`, a well-known key prefix such as `sk_live_` or `AKIA`,
//!   or a long random-looking token).
//!
//! Names are kept (so the documentation can say *that* a header carries a key);
//! values are replaced by [`REDACTED`].

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::fold::{has_part, normalise, with_lowercase, with_normalised};

/// What every redacted value is replaced with.
pub const REDACTED: &str = "REDACTED";

/// Strips credentials from headers, URLs, query strings, JSON and text.
///
/// Redaction is on by default; [`Redactor::danger_disabled`] turns it off for
/// users who explicitly ask for raw values (`ar import --no-redact`).
///
/// ```
/// use ar_openapi::Redactor;
///
/// let redactor = Redactor::new();
/// assert_eq!(redactor.header_value("Authorization", "Bearer abc.def"), "Bearer REDACTED");
/// assert_eq!(
///     redactor.url("https://api.shop.test/items?page=2&access_token=s3cr3t"),
///     "https://api.shop.test/items?page=2&access_token=REDACTED"
/// );
/// let mut body = serde_json::json!({"user": "ada", "password": "hunter2"});
/// redactor.json(&mut body);
/// assert_eq!(body, serde_json::json!({"user": "ada", "password": "REDACTED"}));
/// ```
#[derive(Debug, Clone)]
pub struct Redactor {
    enabled: bool,
    extra_names: Vec<String>,
    patterns: Patterns,
}

#[derive(Debug, Clone)]
struct Patterns {
    /// Whole-value or embedded credentials: JWTs, auth schemes, vendor key prefixes.
    secret: Regex,
    /// Runs of token characters long enough to be a random secret.
    long_token: Regex,
    /// `password=...`, `"token": "..."` style assignments in free text.
    assignment: Regex,
}

/// Compiled once per process: building the three automata costs more than
/// documenting a small session, and every [`Redactor`] shares them.
static PATTERNS: LazyLock<Patterns> = LazyLock::new(Patterns::compile);

impl Patterns {
    /// Word boundaries are ASCII (`(?-u:\b)`): the tokens are ASCII, and a
    /// Unicode `\b` stops the regex engine's fast automaton at the first
    /// non-ASCII byte (an em dash in API.md), leaving the whole text to the
    /// slow one.
    fn compile() -> Self {
        let secret = Regex::new(concat!(
            r"eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*",
            r"|(?i:(?-u:\b)(?:bearer|basic|token|digest)\s+)[A-Za-z0-9._~+/=-]{8,}",
            r"|(?-u:\b)(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}",
            r"|(?-u:\b)(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|(?-u:\b)github_pat_[A-Za-z0-9_]{20,}",
            r"|(?-u:\b)xox[abprs]-[A-Za-z0-9-]{10,}|(?-u:\b)glpat-[A-Za-z0-9_-]{16,}|(?-u:\b)npm_[A-Za-z0-9]{30,}",
            r"|(?-u:\b)AKIA[0-9A-Z]{16}(?-u:\b)|(?-u:\b)AIza[0-9A-Za-z_-]{35}",
        ))
        .expect("static secret pattern compiles");
        let long_token =
            Regex::new(r"[A-Za-z0-9_+=-]{32,}").expect("static token pattern compiles");
        let assignment = Regex::new(
            r#"(?i)(?-u:\b)((?:[a-z_-]*(?:password|passwd|secret|token|api[_-]?key|apikey|signature|session[_-]?id))["']?\s*[:=]\s*["']?)([^\s"'&,;}]+)"#,
        )
        .expect("static assignment pattern compiles");
        Self {
            secret,
            long_token,
            assignment,
        }
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Self::new()
    }
}

impl Redactor {
    /// A redactor with the default rules, switched on.
    pub fn new() -> Self {
        Self {
            enabled: true,
            extra_names: Vec::new(),
            patterns: PATTERNS.clone(),
        }
    }

    /// A redactor that passes every value through unchanged.
    ///
    /// Only for users who asked for raw output; the name says it is dangerous.
    pub fn danger_disabled() -> Self {
        Self {
            enabled: false,
            ..Self::new()
        }
    }

    /// Whether redaction is on.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Also treats headers, parameters and JSON keys called `name` as secret
    /// (matched case-insensitively, ignoring `-` and `_`).
    #[must_use]
    pub fn with_secret_name(mut self, name: &str) -> Self {
        self.extra_names.push(normalise(name));
        self
    }

    /// Whether a header with this name carries a credential.
    ///
    /// HTTP/2 pseudo-headers and the browser's own `Sec-*` headers
    /// (`Sec-WebSocket-Key` is a handshake nonce, `Sec-Fetch-*` fetch
    /// metadata) never do, whatever their names end with.
    pub fn is_secret_header(&self, name: &str) -> bool {
        with_lowercase(name, |lower| self.is_secret_lowercase_header(lower))
    }

    /// [`Redactor::is_secret_header`] for a name already lowercased.
    pub(crate) fn is_secret_lowercase_header(&self, lower: &str) -> bool {
        if lower.starts_with(':') || lower.starts_with("sec-") {
            return false;
        }
        matches!(
            lower,
            "authorization" | "proxy-authorization" | "cookie" | "set-cookie" | "www-authenticate"
        ) || lower.ends_with("-key")
            || lower.ends_with("-auth")
            || self.is_secret_name(lower)
    }

    /// Whether a query parameter, form field or JSON key with this name holds a secret.
    pub fn is_secret_name(&self, name: &str) -> bool {
        with_normalised(name, |norm| self.is_secret_normalised_name(norm))
    }

    /// [`Redactor::is_secret_name`] for a name already normalised.
    fn is_secret_normalised_name(&self, norm: &str) -> bool {
        if self.extra_names.iter().any(|extra| extra == norm) {
            return true;
        }
        if norm.ends_with("type") || has_part(norm, "expir") || norm.ends_with("count") {
            return false; // `token_type`, `expires_in`, `session_count`: facts about a secret, not the secret
        }
        matches!(
            norm,
            "key"
                | "sig"
                | "pwd"
                | "pass"
                | "otp"
                | "auth"
                | "cvv"
                | "cvc"
                | "pin"
                | "ssn"
                | "jwt"
                | "sid"
                | "nonce"
                | "hmac"
        ) || has_secret_part(norm)
    }

    /// Whether a value looks like a credential by itself, whatever it is called.
    pub fn is_secret_value(&self, value: &str) -> bool {
        if !self.enabled {
            return false;
        }
        let trimmed = value.trim();
        self.patterns.secret.is_match(trimmed)
            || self
                .patterns
                .long_token
                .find_iter(trimmed)
                .any(|m| looks_random(m.as_str()))
    }

    /// The value of a header as it may appear in output.
    ///
    /// Credentials keep their scheme (`Bearer REDACTED`), cookies keep their
    /// names (`session=REDACTED; theme=REDACTED`), everything else is checked
    /// for secret-looking content.
    pub fn header_value<'a>(&self, name: &str, value: &'a str) -> Cow<'a, str> {
        if !self.enabled {
            return Cow::Borrowed(value);
        }
        with_lowercase(name, |lower| match lower {
            "cookie" => Cow::Owned(redact_cookie_pairs(value, "; ")),
            "set-cookie" => {
                let (pair, attributes) = value.split_once(';').unwrap_or((value, ""));
                let name = pair.split_once('=').map_or(pair, |(n, _)| n).trim();
                if attributes.is_empty() {
                    Cow::Owned(format!("{name}={REDACTED}"))
                } else {
                    Cow::Owned(format!("{name}={REDACTED};{attributes}"))
                }
            }
            _ if self.is_secret_lowercase_header(lower) => {
                let scheme = value.split_whitespace().next().filter(|first| {
                    value.trim() != *first && first.chars().all(|c| c.is_ascii_alphabetic())
                });
                match scheme {
                    Some(scheme) => Cow::Owned(format!("{scheme} {REDACTED}")),
                    None => Cow::Borrowed(REDACTED),
                }
            }
            _ => self.text(value),
        })
    }

    /// The value of a query parameter or form field as it may appear in output.
    pub fn param_value<'a>(&self, name: &str, value: &'a str) -> Cow<'a, str> {
        if !self.enabled {
            return Cow::Borrowed(value);
        }
        if self.is_secret_name(name) || self.is_secret_value(value) {
            Cow::Borrowed(REDACTED)
        } else {
            Cow::Borrowed(value)
        }
    }

    /// A URL with credentials removed: user info, secret query values, and
    /// secret-looking path segments.
    pub fn url(&self, url: &str) -> String {
        if !self.enabled {
            return url.to_string();
        }
        let (before_fragment, _) = url.split_once('#').unwrap_or((url, ""));
        let (base, query) = match before_fragment.split_once('?') {
            Some((base, query)) => (base, Some(query)),
            None => (before_fragment, None),
        };
        let base = strip_userinfo(base);
        let mut out = String::with_capacity(url.len());
        for (index, segment) in base.split('/').enumerate() {
            if index > 0 {
                out.push('/');
            }
            if index > 2 && self.is_secret_value(segment) {
                out.push_str(REDACTED);
            } else {
                out.push_str(segment);
            }
        }
        if let Some(query) = query {
            out.push('?');
            out.push_str(&self.query_string(query));
        }
        out
    }

    /// A raw `a=1&b=2` query (or form) string with secret values replaced.
    pub fn query_string(&self, query: &str) -> String {
        if !self.enabled {
            return query.to_string();
        }
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((name, value)) => {
                    let decoded_name = ar_flow::url::percent_decode(name);
                    let decoded_value = ar_flow::url::percent_decode(value);
                    if self.is_secret_name(&decoded_name) || self.is_secret_value(&decoded_value) {
                        format!("{name}={REDACTED}")
                    } else {
                        pair.to_string()
                    }
                }
                None => pair.to_string(),
            })
            .collect();
        pairs.join("&")
    }

    /// Redacts a JSON document in place: values under secret keys, and strings
    /// that look like credentials anywhere. Types are kept where it matters
    /// (a secret number becomes `0`), so examples still fit their schemas.
    pub fn json(&self, value: &mut Value) {
        if !self.enabled {
            return;
        }
        let mut stack = vec![value];
        while let Some(node) = stack.pop() {
            match node {
                Value::Object(map) => {
                    let pair = NameValuePair::of(map);
                    for (key, child) in map.iter_mut() {
                        let secret = match &pair {
                            Some(pair) if *key == pair.name_field => false,
                            Some(pair) if *key == pair.value_field => {
                                self.is_secret_name(&pair.name)
                            }
                            _ => self.is_secret_name(key),
                        };
                        if secret {
                            match child {
                                Value::String(text) => *text = REDACTED.to_string(),
                                Value::Number(_) => *child = Value::from(0),
                                Value::Object(_) | Value::Array(_) => stack.push(child),
                                Value::Null | Value::Bool(_) => {}
                            }
                        } else {
                            stack.push(child);
                        }
                    }
                }
                Value::Array(items) => stack.extend(items.iter_mut()),
                Value::String(text) => {
                    if let Cow::Owned(clean) = self.text(text) {
                        *text = clean;
                    }
                }
                Value::Null | Value::Bool(_) | Value::Number(_) => {}
            }
        }
    }

    /// Free text (a text body, a header value, a markdown snippet) with
    /// embedded credentials replaced.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if !self.enabled {
            return Cow::Borrowed(text);
        }
        let mut current = Cow::Borrowed(text);
        if self.patterns.secret.is_match(&current) {
            let replaced =
                self.patterns
                    .secret
                    .replace_all(&current, |caps: &regex::Captures<'_>| {
                        // `Bearer abc` keeps its scheme word: `Bearer REDACTED`.
                        let found = &caps[0];
                        match found.split_once(char::is_whitespace) {
                            Some((scheme, _))
                                if scheme.chars().all(|c| c.is_ascii_alphabetic()) =>
                            {
                                format!("{scheme} {REDACTED}")
                            }
                            _ => REDACTED.to_string(),
                        }
                    });
            current = Cow::Owned(replaced.into_owned());
        }
        if self.patterns.assignment.is_match(&current) {
            let replaced = self
                .patterns
                .assignment
                .replace_all(&current, |caps: &regex::Captures<'_>| {
                    format!("{}{REDACTED}", &caps[1])
                });
            current = Cow::Owned(replaced.into_owned());
        }
        if self
            .patterns
            .long_token
            .find_iter(&current)
            .any(|m| looks_random(m.as_str()))
        {
            let replaced =
                self.patterns
                    .long_token
                    .replace_all(&current, |caps: &regex::Captures<'_>| {
                        let token = &caps[0];
                        if looks_random(token) {
                            REDACTED.to_string()
                        } else {
                            token.to_string()
                        }
                    });
            current = Cow::Owned(replaced.into_owned());
        }
        current
    }
}

/// An object that is one entry of a list of settings, tags or headers
/// (`{"key": "env", "value": "prod"}`, `{"name": "Authorization", "value":
/// "Bearer …"}`): its `key` or `name` names the entry, so it is no secret by
/// its field name, and its `value` is a secret when that name says so.
struct NameValuePair {
    name_field: String,
    value_field: String,
    name: String,
}

impl NameValuePair {
    /// Objects of a few fields, one `key` or `name` string and one `value`.
    fn of(map: &serde_json::Map<String, Value>) -> Option<Self> {
        if map.len() > 4 {
            return None;
        }
        let field = |wanted: &[&str]| {
            map.keys()
                .find(|k| wanted.iter().any(|w| k.eq_ignore_ascii_case(w)))
        };
        let value_field = field(&["value"])?;
        let name_field = field(&["key", "name"])?;
        let name = map.get(name_field)?.as_str()?;
        Some(Self {
            name_field: name_field.clone(),
            value_field: value_field.clone(),
            name: name.to_owned(),
        })
    }
}

/// Whether a normalised name contains a word that marks a secret wherever it
/// appears (`accessToken`, `x-session-id`, `clientSecret`). One pass over the
/// name: at each offset only the words starting with that letter are compared.
fn has_secret_part(norm: &str) -> bool {
    let bytes = norm.as_bytes();
    (0..bytes.len()).any(|at| {
        secret_parts_starting_with(bytes[at])
            .iter()
            .any(|part| bytes[at..].starts_with(part.as_bytes()))
    })
}

/// The words of [`has_secret_part`], by first letter.
fn secret_parts_starting_with(first: u8) -> &'static [&'static str] {
    match first {
        b'a' => &["apikey", "accesskey", "authorization"],
        b'c' => &["credential", "csrf", "cookie", "cardnumber"],
        b'p' => &["password", "passwd", "passphrase", "privatekey"],
        b's' => &["secret", "signature", "session"],
        b't' => &["token"],
        b'x' => &["xsrf"],
        _ => &[],
    }
}

/// Redacts every value of a `name=value<sep>name=value` list, keeping names.
fn redact_cookie_pairs(value: &str, separator: &str) -> String {
    value
        .split(';')
        .map(str::trim)
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let name = pair.split_once('=').map_or(pair, |(name, _)| name);
            format!("{name}={REDACTED}")
        })
        .collect::<Vec<_>>()
        .join(separator)
}

/// `https://user:pass@host/x` → `https://host/x`.
fn strip_userinfo(base: &str) -> Cow<'_, str> {
    let Some((scheme, rest)) = base.split_once("://") else {
        return Cow::Borrowed(base);
    };
    let authority_end = rest.find('/').unwrap_or(rest.len());
    match rest[..authority_end].rfind('@') {
        Some(at) => Cow::Owned(format!("{scheme}://{}", &rest[at + 1..])),
        None => Cow::Borrowed(base),
    }
}

/// Whether a long run of token characters looks machine-generated rather
/// than like a word, a path or an id: it mixes character classes and has
/// high per-character entropy. UUIDs and plain hex (ids, hashes) are not
/// treated as secrets by shape alone; their names still can be.
fn looks_random(token: &str) -> bool {
    if token.len() < 32 {
        return false;
    }
    if token.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
        return false;
    }
    let has_upper = token.bytes().any(|b| b.is_ascii_uppercase());
    if !has_upper && token.bytes().any(|b| b == b'-' || b == b'_') {
        return false; // a slug or a snake_case name, not a key
    }
    if is_compound_name(token) {
        return false;
    }
    let has_lower = token.bytes().any(|b| b.is_ascii_lowercase());
    let has_digit = token.bytes().any(|b| b.is_ascii_digit());
    if !(has_digit && (has_upper || has_lower) && (has_upper && has_lower || token.len() >= 40)) {
        return false;
    }
    shannon_bits(token) >= 4.0
}

/// Whether a token is words run together (`createApi20ExperimentsSearch`,
/// `AbstractSingletonProxyFactoryBean`): nearly all its letters are in runs
/// of three or more lowercase letters, each after at most one capital. In
/// a random token of mixed case, runs that long are rare.
fn is_compound_name(token: &str) -> bool {
    let bytes = token.as_bytes();
    let (mut letters, mut in_words) = (0usize, 0usize);
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        if bytes[at].is_ascii_uppercase() {
            at += 1;
        }
        while at < bytes.len() && bytes[at].is_ascii_lowercase() {
            at += 1;
        }
        let lower = at - start - usize::from(bytes[start].is_ascii_uppercase());
        if at > start {
            letters += at - start;
            if lower >= 3 {
                in_words += at - start;
            }
        } else {
            at += 1;
        }
    }
    letters > 0 && in_words * 10 >= letters * 9
}

fn shannon_bits(token: &str) -> f64 {
    let mut counts = [0u32; 256];
    for byte in token.bytes() {
        counts[usize::from(byte)] += 1;
    }
    let total = token.len() as f64;
    counts
        .iter()
        .filter(|count| **count > 0)
        .map(|count| {
            let p = f64::from(*count) / total;
            -p * p.log2()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";

    #[test]
    fn auth_headers_keep_their_scheme_and_lose_their_value() {
        let r = Redactor::new();
        assert_eq!(
            r.header_value("authorization", "Basic dXNlcjpwYXNz"),
            "Basic REDACTED"
        );
        assert_eq!(r.header_value("X-API-Key", "k-123"), "REDACTED");
        assert_eq!(r.header_value("x-csrf-token", "abc"), "REDACTED");
        assert_eq!(
            r.header_value("Cookie", "sid=1; theme=dark"),
            "sid=REDACTED; theme=REDACTED"
        );
        assert_eq!(
            r.header_value("set-cookie", "sid=abc; Path=/; HttpOnly"),
            "sid=REDACTED; Path=/; HttpOnly"
        );
        assert_eq!(
            r.header_value("accept", "application/json"),
            "application/json"
        );
        assert_eq!(r.header_value("x-trace", JWT), "REDACTED");
    }

    #[test]
    fn urls_lose_userinfo_secret_params_and_token_segments() {
        let r = Redactor::new();
        assert_eq!(
            r.url("https://bob:pw@s3.test/b/o?X-Amz-Signature=ff00&X-Amz-Date=20250101"),
            "https://s3.test/b/o?X-Amz-Signature=REDACTED&X-Amz-Date=20250101"
        );
        let url = format!("https://a.test/reset/{JWT}?q=shoes");
        assert_eq!(r.url(&url), "https://a.test/reset/REDACTED?q=shoes");
        assert_eq!(
            r.url("https://a.test/users/42?page=1"),
            "https://a.test/users/42?page=1"
        );
    }

    #[test]
    fn json_redacts_by_key_and_by_shape_and_keeps_ids() {
        let r = Redactor::new();
        let mut doc = serde_json::json!({
            "id": "5f1c2a9e-8d7b-4c3a-9f0e-1a2b3c4d5e6f",
            "sha": "3f786850e387550fdab836ed7e6dc881de23001b",
            "auth": {"accessToken": JWT, "expires_in": 3600, "pin": 1234},
            "notes": ["call me", "key: sk_live_51HxYzAbCdEfGhIjKlMn"],
            "blob": "Q2hhcmxpZSBhbmQgdGhlIGNob2NvbGF0ZSBmYWN0b3J5IDEyMzQ1Ng9XyZ"
        });
        r.json(&mut doc);
        let text = doc.to_string();
        assert!(!text.contains("eyJ"), "{text}");
        assert!(!text.contains("sk_live"), "{text}");
        assert!(!text.contains("Q2hhcmxp"), "{text}");
        assert!(text.contains("5f1c2a9e-8d7b-4c3a-9f0e-1a2b3c4d5e6f"));
        assert!(text.contains("3f786850e387550fdab836ed7e6dc881de23001b"));
        assert_eq!(doc["auth"]["pin"], 0);
        assert_eq!(doc["auth"]["expires_in"], 3600);
    }

    #[test]
    fn entries_of_name_value_lists_are_judged_by_their_name() {
        let r = Redactor::new();
        let mut doc = serde_json::json!({
            "tags": [
                {"key": "mlflow.user", "value": "ada"},
                {"key": "api_token", "value": "plain-looking"},
            ],
            "headers": [{"name": "Authorization", "value": "opaque"}],
            "credentials": {"name": "ci", "key": "k-123"},
        });
        r.json(&mut doc);
        assert_eq!(doc["tags"][0]["key"], "mlflow.user");
        assert_eq!(doc["tags"][0]["value"], "ada");
        assert_eq!(doc["tags"][1]["key"], "api_token");
        assert_eq!(doc["tags"][1]["value"], REDACTED);
        assert_eq!(doc["headers"][0]["value"], REDACTED);
        // No `value` beside it: this `key` is a key.
        assert_eq!(doc["credentials"]["key"], REDACTED);
    }

    #[test]
    fn generated_names_are_not_tokens_and_random_mixed_case_is() {
        let r = Redactor::new();
        for name in [
            "createAjaxApi20MlflowExperimentsCreate",
            "AbstractSingletonProxyFactoryBeanProvider",
            "getApiV3RepositoriesOwnerRepoPullsNumberReviews",
        ] {
            assert_eq!(r.text(name), name);
        }
        let key = "Zx8fQ2mLp0Rt7VbN4kWc9YhJ3sGd6EaU";
        assert_eq!(r.text(key), REDACTED);
    }

    #[test]
    fn text_beside_non_ascii_is_redacted_too() {
        let r = Redactor::new();
        assert_eq!(
            r.text("200× — Bearer abcdefghijkl"),
            "200× — Bearer REDACTED"
        );
        assert_eq!(
            r.text("ключ:AKIAABCDEFGHIJKLMNOP, café password=hunter2"),
            "ключ:REDACTED, café password=REDACTED"
        );
        assert_eq!(r.text("naïve — prose stays"), "naïve — prose stays");
    }

    #[test]
    fn text_redacts_assignments_and_keeps_prose() {
        let r = Redactor::new();
        assert_eq!(
            r.text("user=ada&password=hunter2&x=1"),
            "user=ada&password=REDACTED&x=1"
        );
        assert_eq!(r.text("the quick brown fox"), "the quick brown fox");
        assert_eq!(
            r.text("Authorization: Bearer abcdefghijkl"),
            "Authorization: Bearer REDACTED"
        );
        assert_eq!(r.text("Bearer REDACTED"), "Bearer REDACTED");
    }

    #[test]
    fn disabled_redactor_changes_nothing() {
        let r = Redactor::danger_disabled();
        assert_eq!(r.header_value("authorization", "Bearer x"), "Bearer x");
        let mut doc = serde_json::json!({"password": "p"});
        r.json(&mut doc);
        assert_eq!(doc["password"], "p");
    }

    #[test]
    fn secret_headers_are_found_in_any_case() {
        let r = Redactor::new();
        for name in [
            "X-Api-Key",
            "x-api-key",
            "X-API-KEY",
            "Authorization",
            "AUTHORIZATION",
            "Proxy-Authorization",
            "Cookie",
            "cOOKIE",
            "Set-Cookie",
            "x-auth-token",
            "X-Auth-Token",
            "X-Session-Id",
            "X-Amz-Security-Token",
            "X-Client-Secret",
            "X-Csrf-Token",
            "X-Partner-Auth",
            "X-Hub-Signature-256",
        ] {
            assert!(r.is_secret_header(name), "{name}");
        }
        for name in [
            "Host",
            "Content-Type",
            "Accept",
            "X-Request-Id",
            "X-Token-Type",
            "X-Session-Count",
            "Sec-WebSocket-Key",
            ":authority",
            "X-Expires-At",
        ] {
            assert!(!r.is_secret_header(name), "{name}");
        }
    }

    #[test]
    fn every_secret_word_counts_anywhere_in_a_name() {
        let r = Redactor::new();
        for word in [
            "token",
            "secret",
            "password",
            "passwd",
            "passphrase",
            "signature",
            "apikey",
            "credential",
            "session",
            "csrf",
            "xsrf",
            "privatekey",
            "accesskey",
            "authorization",
            "cookie",
            "cardnumber",
        ] {
            let upper = word.to_ascii_uppercase();
            for name in [
                word.to_string(),
                format!("my_{upper}"),
                format!("{word}Value"),
                format!("Zz-{word}-zz"),
            ] {
                assert!(r.is_secret_name(&name), "{name}");
            }
        }
        assert!(r.is_secret_name("Ünïcode_Token"));
        assert!(!r.is_secret_name("tokenizer_type"));
        assert!(!r.is_secret_name("page_size"));
    }

    #[test]
    fn extra_names_are_secret() {
        let r = Redactor::new().with_secret_name("X-Shop-Passcode");
        assert!(r.is_secret_header("x-shop-passcode"));
        assert!(r.is_secret_name("x_shop_passcode"));
        assert!(!r.is_secret_name("page"));
        assert!(!r.is_secret_name("token_type"));
        assert!(!r.is_secret_value(
            "https://api.shop.test/api/v1/orders/5f1c2a9e-8d7b-4c3a-9f0e-1a2b3c4d5e6f"
        ));
        assert!(!r.is_secret_value("this-is-a-very-long-product-slug-for-2024-summer"));
        assert!(!r.is_secret_header("content-type"));
    }
}
