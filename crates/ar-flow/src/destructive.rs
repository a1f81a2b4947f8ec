//! Which requests read as destructive: the one word list behind both locks
//! of the no-LLM explorer (issue #26). The explorer leaves alone actions
//! whose names read as destructive, and the capture proxy, while the
//! explorer drives, refuses requests that do ([`path_is_destructive`]).
//!
//! A request reads as destructive when its method does (`DELETE`, `PURGE`),
//! or when it may write (any method but `GET`, `HEAD`, `OPTIONS`, `TRACE`
//! and `CONNECT`) and its path ends in a destructive verb: in the last
//! segment (`/experiments/delete`, `/carts/3/clear`, `/users/me/logOut`), in
//! its custom method (`/instances/i1:stop` is not, `/instances/i1:delete`
//! is), or in the segment before an id that ends the path
//! (`/notifications/unsubscribe/sub_9Xh2kQ`). Words are whole words, split at
//! `-`, `_`, `.`, digits, any other punctuation, percent escapes and
//! camelCase: `deleted-items` holds no verb, `clear-cache` and `chat.delete`
//! do.
//!
//! ```
//! use ar_flow::destructive::{is_destructive_verb, path_is_destructive, reads_destructive};
//!
//! assert!(is_destructive_verb("delete") && !is_destructive_verb("deleted"));
//! assert!(reads_destructive("Sign out") && reads_destructive("clearCache"));
//! assert!(path_is_destructive("DELETE", "/api/carts/3"));
//! assert!(path_is_destructive("POST", "/api/2.0/mlflow/experiments/delete"));
//! assert!(!path_is_destructive("POST", "/orders"));
//! assert!(!path_is_destructive("GET", "/api/demo/delete"));
//! ```

use crate::segment::{classify_segment, split_suffix};
use crate::url::UrlParts;
use crate::{Client, ErrorKind, Flow};

/// Verbs that end or erase state, lowercase, one word each: what a request
/// path (or an action's name) must not say for the explorer to send it.
pub const DESTRUCTIVE_VERBS: &[&str] = &[
    "delete",
    "remove",
    "destroy",
    "purge",
    "wipe",
    "clear",
    "reset",
    "revoke",
    "disable",
    "deactivate",
    "terminate",
    "shutdown",
    "restart",
    "reboot",
    "interrupt",
    "cancel",
    "unsubscribe",
    "logout",
    "signout",
    "archive",
    "erase",
    "discard",
];

/// Destructive verbs written as two words (`log out`, `signOut`, `shut-down`).
const TWO_WORD_VERBS: &[(&str, &str)] = &[("log", "out"), ("sign", "out"), ("shut", "down")];

/// Whether `word` (one word, any case) is one of [`DESTRUCTIVE_VERBS`].
pub fn is_destructive_verb(word: &str) -> bool {
    DESTRUCTIVE_VERBS
        .iter()
        .any(|verb| verb.eq_ignore_ascii_case(word))
}

/// Whether `text` (a path segment, a method, an action's name) holds a
/// destructive verb as a whole word, or as two (`log out`, `sign-out`).
pub fn reads_destructive(text: &str) -> bool {
    let words = words(text);
    words.iter().any(|w| is_destructive_verb(w))
        || words.windows(2).any(|pair| {
            TWO_WORD_VERBS
                .iter()
                .any(|(a, b)| pair[0] == *a && pair[1] == *b)
        })
}

/// Whether a request with `method` to `path` reads as destructive (see the
/// module documentation). `path` may carry a query or a fragment; they are
/// not read.
pub fn path_is_destructive(method: &str, path: &str) -> bool {
    if reads_destructive(method) {
        return true;
    }
    if is_safe_method(method) {
        return false;
    }
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let mut segments = path.rsplit('/').filter(|s| !s.is_empty());
    let Some(last) = segments.next() else {
        return false;
    };
    if reads_destructive(last) {
        return true;
    }
    // `/items/delete/42`: the verb names what is done to the id after it.
    let (stem, _) = split_suffix(last, true);
    classify_segment(stem).is_some() && segments.next().is_some_and(reads_destructive)
}

/// Whether `flow` is a request the proxy refused while the explorer drove
/// because it reads as destructive: what the explorer's lock on requests
/// records, and what API.md lists as blocked.
pub fn refused_as_destructive(flow: &Flow) -> bool {
    flow.client == Client::Explorer
        && flow
            .error
            .as_ref()
            .is_some_and(|e| e.kind == ErrorKind::Refused)
        && path_is_destructive(
            &flow.request.method,
            UrlParts::split(&flow.request.url).path,
        )
}

/// Methods that never write: a request with one is never destructive,
/// whatever its path says (`GET /deleted-items`).
fn is_safe_method(method: &str) -> bool {
    ["GET", "HEAD", "OPTIONS", "TRACE", "CONNECT"]
        .iter()
        .any(|m| m.eq_ignore_ascii_case(method))
}

/// The lowercase words of `text`: runs of ASCII letters, split at camelCase
/// (`logOut`, `HTTPReset`), everything else (digits, punctuation, `%2F`)
/// separating them.
fn words(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut words = Vec::new();
    let mut word = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !b.is_ascii_alphabetic() {
            flush(&mut word, &mut words);
            // A percent escape separates words; its hex digits are no word.
            let escape = b == b'%'
                && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
            i += if escape { 3 } else { 1 };
            continue;
        }
        if b.is_ascii_uppercase() {
            let after_lower = word.bytes().last().is_some_and(|p| p.is_ascii_lowercase());
            // `HTTPReset`: the last capital of a run starts the next word.
            let ends_acronym = word.len() > 1
                && word.bytes().all(|p| p.is_ascii_uppercase())
                && bytes.get(i + 1).is_some_and(u8::is_ascii_lowercase);
            if after_lower || ends_acronym {
                flush(&mut word, &mut words);
            }
        }
        word.push(char::from(b));
        i += 1;
    }
    flush(&mut word, &mut words);
    words
}

fn flush(word: &mut String, words: &mut Vec<String>) {
    if !word.is_empty() {
        words.push(std::mem::take(word).to_ascii_lowercase());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FlowId, HttpVersion, Request, Timestamp};

    #[test]
    fn words_split_at_punctuation_digits_escapes_and_camel_case() {
        assert_eq!(
            words("clear-cache_now.json"),
            ["clear", "cache", "now", "json"]
        );
        assert_eq!(words("logOut"), ["log", "out"]);
        assert_eq!(words("HTTPReset"), ["http", "reset"]);
        assert_eq!(words("v2delete"), ["v", "delete"]);
        assert_eq!(words("items%2Fdelete"), ["items", "delete"]);
        assert_eq!(words("Sign out"), ["sign", "out"]);
        assert!(words("42").is_empty());
    }

    #[test]
    fn verbs_are_whole_words_in_any_case() {
        for text in [
            "delete",
            "DELETE",
            "Delete account",
            "clearCache",
            "reset_password",
            "log-out",
            "sign-out",
            "logout",
            "signOut",
            "shut-down",
            "shutdown",
            "unsubscribe",
            "chat.delete",
        ] {
            assert!(reads_destructive(text), "{text}");
        }
        for text in [
            "deleted-items",
            "deleted",
            "clearance",
            "resets",
            "orders",
            "logo",
            "sign-up",
            "login",
            "cancellations",
            "",
        ] {
            assert!(!reads_destructive(text), "{text}");
        }
    }

    #[test]
    fn destructive_requests_by_method_and_path() {
        for (method, path) in [
            ("DELETE", "/api/carts/3"),
            ("delete", "/"),
            ("PURGE", "/cache/x"),
            ("POST", "/api/2.0/mlflow/experiments/delete"),
            ("POST", "/api/demo/delete"),
            ("POST", "/api/demo/clear?all=1"),
            ("PUT", "/v1/instances/i1:delete"),
            ("PATCH", "/users/me/deactivate"),
            ("POST", "/auth/sign-out"),
            ("POST", "/api/logout"),
            ("POST", "/jobs/123/cancel"),
            ("POST", "/items/delete/42"),
            ("POST", "/notifications/unsubscribe/sub_9Xh2kQ"),
            ("POST", "/files/remove/550e8400-e29b-41d4-a716-446655440000"),
        ] {
            assert!(path_is_destructive(method, path), "{method} {path}");
        }
        for (method, path) in [
            ("POST", "/orders"),
            ("POST", "/api/cart/items"),
            ("GET", "/api/demo/delete"),
            ("HEAD", "/logout"),
            ("OPTIONS", "/api/carts/3/clear"),
            ("GET", "/deleted-items"),
            ("POST", "/deleted-items"),
            ("POST", "/v1/instances/i1:stop"),
            ("POST", "/api/archive/search"),
            ("POST", "/delete/items"),
            ("PUT", "/api/cart/items/42"),
            ("POST", "/"),
            ("POST", ""),
            ("POST", "/search#delete"),
        ] {
            assert!(!path_is_destructive(method, path), "{method} {path}");
        }
    }

    #[test]
    fn a_refused_flow_of_the_explorer_is_one_the_lock_refused() {
        let flow = |client, method, url, kind: Option<ErrorKind>| {
            let request = Request::new(method, url, HttpVersion::Http11);
            let flow = Flow::new(FlowId(1), Timestamp::from_unix_micros(0), client, request);
            match kind {
                Some(kind) => flow.with_error(kind, "refused"),
                None => flow,
            }
        };
        let url = "https://shop.test/api/carts/3";
        let refused = Some(ErrorKind::Refused);
        assert!(refused_as_destructive(&flow(
            Client::Explorer,
            "DELETE",
            url,
            refused
        )));
        assert!(!refused_as_destructive(&flow(
            Client::Human,
            "DELETE",
            url,
            refused
        )));
        assert!(!refused_as_destructive(&flow(
            Client::Explorer,
            "DELETE",
            url,
            Some(ErrorKind::Connect)
        )));
        assert!(!refused_as_destructive(&flow(
            Client::Explorer,
            "GET",
            url,
            refused
        )));
        assert!(!refused_as_destructive(&flow(
            Client::Explorer,
            "DELETE",
            url,
            None
        )));
    }
}
