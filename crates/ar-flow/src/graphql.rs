//! GraphQL as requests carry it: which operations a request sends
//! ([`calls`]), and which operation a document starts with, its kind and
//! name ([`document_head`]). The store keys a GraphQL endpoint by the calls
//! it recognises; the documenter documents those same calls, so the two
//! never disagree about what is GraphQL.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::url::query_pairs;

/// The kind of a GraphQL operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OperationKind {
    /// `query` (also the `{ ... }` shorthand).
    Query,
    /// `mutation`.
    Mutation,
    /// `subscription`.
    Subscription,
    /// Not stated (persisted query by hash or name only).
    Unknown,
}

impl OperationKind {
    /// The GraphQL keyword (`unknown` when not stated).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Query => "query",
            Self::Mutation => "mutation",
            Self::Subscription => "subscription",
            Self::Unknown => "unknown",
        }
    }
}

/// Whether `doc` reads as a GraphQL document: an operation, the `{ ... }`
/// shorthand or a fragment first, after what the grammar ignores.
pub fn looks_like_document(doc: &str) -> bool {
    let t = skip_ignored(doc);
    t.starts_with('{')
        || t.starts_with("query")
        || t.starts_with("mutation")
        || t.starts_with("subscription")
        || t.starts_with("fragment")
}

/// Skips whitespace, commas and `#` comments.
fn skip_ignored(mut text: &str) -> &str {
    loop {
        text = text.trim_start_matches(|c: char| c.is_whitespace() || c == ',' || c == '\u{feff}');
        if let Some(rest) = text.strip_prefix('#') {
            text = rest.split_once('\n').map(|(_, r)| r).unwrap_or("");
        } else {
            return text;
        }
    }
}

/// The kind and name of the first operation in a document; fragments
/// before it are skipped. `Unknown` when the document starts with
/// something else or a fragment never closes.
///
/// ```
/// use ar_flow::graphql::{OperationKind, document_head};
///
/// let doc = "fragment F on User { id } mutation AddToCart($id: ID!) { addToCart(id: $id) { id } }";
/// assert_eq!(document_head(doc), (OperationKind::Mutation, Some("AddToCart".into())));
/// assert_eq!(document_head("{ me { id } }"), (OperationKind::Query, None));
/// ```
pub fn document_head(doc: &str) -> (OperationKind, Option<String>) {
    let mut text = skip_ignored(doc);
    loop {
        if text.starts_with('{') {
            return (OperationKind::Query, None);
        }
        let word: String = text
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let kind = match word.as_str() {
            "query" => OperationKind::Query,
            "mutation" => OperationKind::Mutation,
            "subscription" => OperationKind::Subscription,
            "fragment" => {
                // Skip the fragment's selection set, counting braces.
                let Some(open) = text.find('{') else {
                    return (OperationKind::Unknown, None);
                };
                let mut depth = 0usize;
                let mut end = None;
                for (i, c) in text[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = Some(open + i + 1);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                let Some(end) = end else {
                    return (OperationKind::Unknown, None);
                };
                text = skip_ignored(&text[end..]);
                continue;
            }
            _ => return (OperationKind::Unknown, None),
        };
        let rest = skip_ignored(&text[word.len()..]);
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        return (kind, (!name.is_empty()).then_some(name));
    }
}

/// One GraphQL operation a request sends.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    /// `operationName`, else the name in the document; `None` when anonymous.
    pub name: Option<String>,
    /// The document's first operation; `Unknown` when no document is sent
    /// (a persisted query, by hash or by name).
    pub kind: OperationKind,
    /// The `variables` object (a JSON body's, or the query string's
    /// `variables` parsed as JSON), when sent and not `null`.
    pub variables: Option<Value>,
    /// The query document, when sent.
    pub query: Option<String>,
}

/// JSON bodies larger than this are not looked at for GraphQL.
const MAX_BODY: usize = 1 << 20;
/// Operations read from one batched request.
const MAX_BATCH: usize = 16;

/// The GraphQL operations a request sends: a JSON body (one operation, or a
/// batch as an array), an `application/graphql` body (the document itself),
/// or a query string (`query`, `operationName`, `variables`, `extensions`).
/// Empty when the request is not GraphQL.
///
/// An operation counts when it sends a document (`query Feed { ... }`, the
/// `{ ... }` shorthand, fragments first), or a name on a path that says
/// `graphql` (`path_says_graphql`, asked only then), or in a JSON body a
/// name with a persisted-query extension. A batch counts when all of its
/// operations do. So `{"query": "red shoes"}` on a search API is not GraphQL.
///
/// ```
/// use ar_flow::graphql::{OperationKind, calls};
///
/// let body = br#"{"query":"mutation AddToCart($id: ID!) { addToCart(id: $id) { id } }","variables":{"id":3}}"#;
/// let sent = calls(body, Some("application/json"), None, || false);
/// assert_eq!(sent[0].name.as_deref(), Some("AddToCart"));
/// assert_eq!(sent[0].kind, OperationKind::Mutation);
/// assert_eq!(sent[0].variables, Some(serde_json::json!({"id": 3})));
///
/// // Apollo's persisted queries send a name, variables and a hash, no document.
/// let query = "operationName=Feed&variables=%7B%22n%22%3A2%7D&extensions=%7B%22persistedQuery%22%3A%7B%7D%7D";
/// let on_graphql_path = || true;
/// let sent = calls(b"", None, Some(query), on_graphql_path);
/// assert_eq!((sent[0].name.as_deref(), sent[0].kind), (Some("Feed"), OperationKind::Unknown));
/// assert!(calls(br#"{"query":"red shoes"}"#, Some("application/json"), None, || false).is_empty());
/// ```
pub fn calls(
    body: &[u8],
    media: Option<&str>,
    query: Option<&str>,
    path_says_graphql: impl Fn() -> bool,
) -> Vec<Call> {
    if !body.is_empty() && body.len() <= MAX_BODY {
        let first = body.iter().find(|b| !b.is_ascii_whitespace()).copied();
        if matches!(first, Some(b'{' | b'['))
            && mentions_graphql_field(body)
            && let Ok(value) = serde_json::from_slice::<Value>(body)
        {
            let sent = from_json(value, &path_says_graphql);
            if !sent.is_empty() {
                return sent;
            }
        }
        if media.is_some_and(|m| m.eq_ignore_ascii_case("application/graphql"))
            && let Ok(doc) = std::str::from_utf8(body)
            && looks_like_document(doc)
        {
            return vec![call(None, Some(doc.to_owned()), None)];
        }
    }
    query.map_or_else(Vec::new, |query| from_query(query, &path_says_graphql))
}

/// The operations of a JSON body: one object, or a non-empty array whose
/// first [`MAX_BATCH`] items all are operations.
fn from_json(value: Value, path_says_graphql: &impl Fn() -> bool) -> Vec<Call> {
    match value {
        Value::Object(map) => from_object(map, path_says_graphql).into_iter().collect(),
        Value::Array(items) if !items.is_empty() => items
            .into_iter()
            .take(MAX_BATCH)
            .map(|item| match item {
                Value::Object(map) => from_object(map, path_says_graphql),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

fn from_object(
    mut map: serde_json::Map<String, Value>,
    path_says_graphql: &impl Fn() -> bool,
) -> Option<Call> {
    let doc = match map.remove("query") {
        Some(Value::String(doc)) => Some(doc),
        _ => None,
    };
    let name = match map.remove("operationName") {
        Some(Value::String(name)) if !name.is_empty() => Some(name),
        _ => None,
    };
    let persisted = map
        .get("extensions")
        .and_then(|e| e.get("persistedQuery"))
        .is_some();
    let ok = doc.as_deref().is_some_and(looks_like_document)
        || (name.is_some() && (persisted || path_says_graphql()));
    let variables = map.remove("variables").filter(|v| !v.is_null());
    ok.then(|| call(name, doc, variables))
}

fn from_query(query: &str, path_says_graphql: &impl Fn() -> bool) -> Vec<Call> {
    // Most queries name none of the three parameters: decide that on the raw
    // names (a name with `%` or `+` is decoded below like any other). A
    // query without `%`, `+`, `q`, `N` or `x` cannot name one (`query`,
    // `operationName`, `extensions`): one pass over its bytes settles it.
    let bytes = query.as_bytes();
    if !bytes.iter().any(|b| MAY_NAME_GRAPHQL[usize::from(*b)]) {
        return Vec::new();
    }
    let relevant = bytes.split(|b| *b == b'&').any(|pair| {
        let name = pair.split(|b| *b == b'=').next().unwrap_or(pair);
        name.iter().any(|b| *b == b'%' || *b == b'+')
            || matches!(name, b"query" | b"operationName" | b"extensions")
    });
    if !relevant {
        return Vec::new();
    }
    let (mut doc, mut name, mut variables, mut persisted) = (None, None, None, false);
    for (key, value) in query_pairs(query) {
        match &*key {
            "query" => doc = Some(value),
            "operationName" => name = Some(value).filter(|n| !n.is_empty()),
            "variables" => variables = Some(value),
            "extensions" => persisted = value.contains("persistedQuery"),
            _ => {}
        }
    }
    let doc_ok = doc.as_deref().is_some_and(looks_like_document);
    if !(doc_ok || ((name.is_some() || persisted) && path_says_graphql())) {
        return Vec::new();
    }
    let variables = variables
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .filter(|v| !v.is_null());
    vec![call(
        name.map(|n| n.into_owned()),
        doc.map(|d| d.into_owned()),
        variables,
    )]
}

/// A call: the kind and, failing `operationName`, the name from the document.
fn call(name: Option<String>, query: Option<String>, variables: Option<Value>) -> Call {
    let (kind, doc_name) = query
        .as_deref()
        .map_or((OperationKind::Unknown, None), document_head);
    Call {
        name: name.or(doc_name),
        kind,
        variables,
        query,
    }
}

/// The bytes without which a query names none of `query`, `operationName`
/// and `extensions` (or has a name to decode first).
const MAY_NAME_GRAPHQL: [bool; 256] = {
    let mut table = [false; 256];
    table[b'%' as usize] = true;
    table[b'+' as usize] = true;
    table[b'q' as usize] = true;
    table[b'N' as usize] = true;
    table[b'x' as usize] = true;
    table
};

/// Whether a body mentions `"query"`, `"operationName"` or `persistedQuery`,
/// or may spell one with escapes (`"\u0071uery"`: it then holds `\u`): a
/// vector search for a byte each needle has (`q`, `N`, `Q`; rare in other
/// JSON), then a comparison around those hits only.
fn mentions_graphql_field(body: &[u8]) -> bool {
    let named = memchr::memchr3_iter(b'q', b'N', b'Q', body).any(|i| {
        let (offset, needle): (usize, &[u8]) = match body[i] {
            b'q' => (1, b"\"query\""),
            b'N' => (10, b"\"operationName\""),
            _ => (9, b"persistedQuery"),
        };
        i.checked_sub(offset)
            .is_some_and(|start| body[start..].starts_with(needle))
    });
    named || memchr::memmem::find(body, b"\\u").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_grammar_ignores_is_skipped_and_a_longer_word_is_no_keyword() {
        let doc = "\u{feff}# cached\n,, query  Feed($n: Int) { feed(n: $n) { id } }";
        assert!(looks_like_document(doc));
        assert_eq!(
            document_head(doc),
            (OperationKind::Query, Some("Feed".into()))
        );
        assert_eq!(
            document_head("queryFeed { id }"),
            (OperationKind::Unknown, None)
        );
        assert_eq!(
            document_head("fragment F on User { id "),
            (OperationKind::Unknown, None),
            "a fragment that never closes"
        );
        assert!(!looks_like_document("SELECT 1"));
    }

    #[test]
    fn body_prefilter_finds_each_field_name_anywhere() {
        for body in [
            &br#""query""#[..],
            br#"{"qty":1,"query":"{a}"}"#,
            br#"{"operationName":"X"}"#,
            br#"{"extensions":{"persistedQuery":{}}}"#,
            b"persistedQuery",
        ] {
            assert!(
                mentions_graphql_field(body),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
        for body in [
            &br#"{"qty":1,"Query":"x","name":"N"}"#[..],
            br#"query"#,
            br#"{"operation_Name":1,"persisted_Query":2}"#,
            b"Q",
        ] {
            assert!(
                !mentions_graphql_field(body),
                "{}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn a_batch_is_every_operation_or_none_and_names_come_from_documents() {
        let body = br#"[{"query":"query A { a }","variables":{"x":1}},{"query":"mutation { b }","variables":null}]"#;
        let sent = calls(body, Some("application/json"), None, || false);
        assert_eq!(sent.len(), 2);
        assert_eq!(
            (sent[0].name.as_deref(), sent[0].kind),
            (Some("A"), OperationKind::Query)
        );
        assert_eq!(sent[0].variables, Some(serde_json::json!({"x": 1})));
        assert_eq!(
            (sent[1].name.as_deref(), sent[1].kind),
            (None, OperationKind::Mutation)
        );
        assert_eq!(sent[1].variables, None, "null variables are none");
        let mixed = br#"[{"query":"query A { a }"},{"query":"red shoes"}]"#;
        assert!(calls(mixed, None, None, || true).is_empty());
    }

    #[test]
    fn a_name_alone_counts_on_a_graphql_path_or_with_a_persisted_query() {
        let named = br#"{"operationName":"Feed","variables":{"n":2}}"#;
        assert!(calls(named, None, None, || false).is_empty());
        assert_eq!(
            calls(named, None, None, || true)[0].name.as_deref(),
            Some("Feed")
        );
        let persisted =
            br#"{"operationName":"Feed","extensions":{"persistedQuery":{"sha256Hash":"ab"}}}"#;
        let sent = calls(persisted, None, None, || false);
        assert_eq!(
            (sent[0].name.as_deref(), sent[0].kind),
            (Some("Feed"), OperationKind::Unknown)
        );
        // On a GET, the same, from the query string; `variables` is JSON there.
        assert!(calls(b"", None, Some("operationName=Feed"), || false).is_empty());
        let sent = calls(
            b"",
            None,
            Some("operationName=Feed&variables=%7B%22n%22%3A2%7D"),
            || true,
        );
        assert_eq!(sent[0].variables, Some(serde_json::json!({"n": 2})));
        assert!(calls(b"", None, Some("page=2&q=shoes"), || true).is_empty());
    }

    #[test]
    fn keys_spelled_with_escapes_are_still_found() {
        let sent = calls(
            br#"{"\u0071uery":"query Me { me { id } }"}"#,
            None,
            None,
            || false,
        );
        assert_eq!(sent[0].name.as_deref(), Some("Me"));
    }

    #[test]
    fn an_application_graphql_body_is_its_document() {
        let doc = b"query Viewer { me { id } }";
        let sent = calls(doc, Some("Application/GraphQL"), None, || false);
        assert_eq!(
            (sent[0].name.as_deref(), sent[0].kind),
            (Some("Viewer"), OperationKind::Query)
        );
        assert_eq!(sent[0].query.as_deref(), Some("query Viewer { me { id } }"));
        assert!(calls(doc, Some("text/plain"), None, || false).is_empty());
    }
}
