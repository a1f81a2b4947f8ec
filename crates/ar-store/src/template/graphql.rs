//! GraphQL requests are keyed by operation, not by their (single) URL.
//!
//! Detected from a POST JSON body with a `query` string (or a persisted-query
//! extension) or a GET query string with `query` / `operationName`. The name
//! comes from `operationName`, else from the document (`query Foo {`,
//! `mutation Bar(`). Batched requests (a JSON array) join the names with `+`.

use serde::{Deserialize, Serialize};

use crate::Flow;
use ar_flow::graphql::{OperationKind, document_head, looks_like_document};
use ar_flow::url::{UrlParts, query_pairs};

/// A GraphQL operation recognised in a request.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct GraphQlOperation {
    /// The operation name; `None` for an anonymous operation.
    pub name: Option<String>,
    /// Query, mutation or subscription.
    pub kind: OperationKind,
}

/// Recognises a GraphQL request.
///
/// ```
/// use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Timestamp};
/// use ar_store::template::{graphql_operation, OperationKind};
///
/// let mut request = Request::new("POST", "https://shop.test/graphql", HttpVersion::Http2);
/// request.body = Body::from_decoded(Some("application/json".into()),
///     br#"{"query":"mutation AddToCart($id: ID!) { addToCart(id: $id) { id } }"}"#.to_vec());
/// let flow = Flow::new(FlowId(1), Timestamp::from_unix_micros(0), Client::Human, request);
/// let op = graphql_operation(&flow).unwrap();
/// assert_eq!(op.name.as_deref(), Some("AddToCart"));
/// assert_eq!(op.kind, OperationKind::Mutation);
/// ```
pub fn graphql_operation(flow: &Flow) -> Option<GraphQlOperation> {
    graphql_operation_split(flow, &UrlParts::split(&flow.request.url))
}

/// [`graphql_operation`] with the request URL already split (the store splits it once per flow).
pub(crate) fn graphql_operation_split(flow: &Flow, url: &UrlParts<'_>) -> Option<GraphQlOperation> {
    let request = &flow.request;
    // Case-insensitive `contains("graphql")` without lowercasing a copy of
    // the path; only asked once a body or query mentions a GraphQL field.
    let looks_graphql_path =
        || contains_ignore_case(url.path.as_bytes(), b"graphql") || url.path.ends_with("/gql");
    if !request.body.bytes.is_empty() && request.body.bytes.len() <= 1 << 20 {
        let first = request
            .body
            .bytes
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .copied();
        if matches!(first, Some(b'{') | Some(b'['))
            && mentions_graphql_field(&request.body.bytes)
            && let Ok(value) = serde_json::from_slice::<serde_json::Value>(&request.body.bytes)
            && let Some(op) = from_json(&value, looks_graphql_path())
        {
            return Some(op);
        }
    }
    let query = url.query?;
    // Most queries name none of the three parameters: decide that on the raw
    // names (a name with `%` or `+` is decoded below like any other). A
    // query without `%`, `+`, `q`, `N` or `x` cannot name one (`query`,
    // `operationName`, `extensions`): one pass over its bytes settles it.
    let bytes = query.as_bytes();
    if !bytes.iter().any(|b| MAY_NAME_GRAPHQL[usize::from(*b)]) {
        return None;
    }
    let relevant = bytes.split(|b| *b == b'&').any(|pair| {
        let name = pair.split(|b| *b == b'=').next().unwrap_or(pair);
        name.iter().any(|b| *b == b'%' || *b == b'+')
            || matches!(name, b"query" | b"operationName" | b"extensions")
    });
    if !relevant {
        return None;
    }
    let (mut doc, mut name, mut persisted) = (None, None, false);
    for (key, value) in query_pairs(query) {
        match &*key {
            "query" => doc = Some(value),
            "operationName" => name = Some(value).filter(|n| !n.is_empty()),
            "extensions" => persisted = value.contains("persistedQuery"),
            _ => {}
        }
    }
    let doc_ok = doc.as_deref().is_some_and(looks_like_document);
    if !(doc_ok || ((name.is_some() || persisted) && looks_graphql_path())) {
        return None;
    }
    Some(operation(name.map(|n| n.into_owned()), doc.as_deref()))
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

/// Whether a body mentions `"query"`, `"operationName"` or `persistedQuery`:
/// a vector search for a byte each needle has (`q`, `N`, `Q`; rare in other
/// JSON), then a comparison around those hits only.
fn mentions_graphql_field(body: &[u8]) -> bool {
    memchr::memchr3_iter(b'q', b'N', b'Q', body).any(|i| {
        let (offset, needle): (usize, &[u8]) = match body[i] {
            b'q' => (1, b"\"query\""),
            b'N' => (10, b"\"operationName\""),
            _ => (9, b"persistedQuery"),
        };
        i.checked_sub(offset)
            .is_some_and(|start| body[start..].starts_with(needle))
    })
}

/// Whether `haystack` contains `needle` (lowercase ASCII) ignoring ASCII case.
fn contains_ignore_case(haystack: &[u8], needle: &[u8]) -> bool {
    let Some(last) = haystack.len().checked_sub(needle.len()) else {
        return false;
    };
    // Only positions whose byte can start the needle are compared.
    let first = needle[0];
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), &haystack[..=last])
        .any(|i| haystack[i..i + needle.len()].eq_ignore_ascii_case(needle))
}

fn from_json(value: &serde_json::Value, graphql_path: bool) -> Option<GraphQlOperation> {
    match value {
        serde_json::Value::Object(map) => {
            let doc = map.get("query").and_then(|q| q.as_str());
            let name = map
                .get("operationName")
                .and_then(|n| n.as_str())
                .filter(|n| !n.is_empty());
            let persisted = map
                .get("extensions")
                .and_then(|e| e.get("persistedQuery"))
                .is_some();
            let ok = doc.is_some_and(looks_like_document)
                || ((persisted || graphql_path) && name.is_some());
            ok.then(|| operation(name.map(str::to_string), doc))
        }
        serde_json::Value::Array(items) if !items.is_empty() => {
            let ops: Vec<_> = items
                .iter()
                .take(16)
                .map(|v| from_json(v, graphql_path))
                .collect::<Option<_>>()?;
            let names: Vec<String> = ops
                .iter()
                .map(|o| o.name.clone().unwrap_or_else(|| "anonymous".into()))
                .collect();
            let kind = if ops.iter().all(|o| o.kind == ops[0].kind) {
                ops[0].kind
            } else {
                OperationKind::Unknown
            };
            Some(GraphQlOperation {
                name: Some(names.join("+")),
                kind,
            })
        }
        _ => None,
    }
}

fn operation(name: Option<String>, doc: Option<&str>) -> GraphQlOperation {
    let (kind, doc_name) = doc
        .map(document_head)
        .unwrap_or((OperationKind::Unknown, None));
    GraphQlOperation {
        name: name.or(doc_name),
        kind,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Body, Client, FlowId, HttpVersion, Request, Timestamp};

    fn flow(method: &str, url: &str, body: &str) -> Flow {
        let mut request = Request::new(method, url, HttpVersion::Http11);
        request.body =
            Body::from_decoded(Some("application/json".into()), body.as_bytes().to_vec());
        Flow::new(
            FlowId(1),
            Timestamp::from_unix_micros(0),
            Client::Unknown,
            request,
        )
    }

    #[test]
    fn names_come_from_operation_name_or_document() {
        let op = graphql_operation(&flow(
            "POST",
            "https://x.test/graphql",
            r#"{"operationName":"GetUser","query":"query GetUser { me { id } }"}"#,
        ))
        .unwrap();
        assert_eq!(
            (op.name.as_deref(), op.kind),
            (Some("GetUser"), OperationKind::Query)
        );
        let op = graphql_operation(&flow(
            "POST",
            "https://x.test/api",
            "{\"query\":\"# c\\n fragment F on User { id { x } }\\n query Viewer { ...F }\"}",
        ))
        .unwrap();
        assert_eq!(op.name.as_deref(), Some("Viewer"));
        let op = graphql_operation(&flow(
            "GET",
            "https://x.test/graphql?query=query%20Search%28%24q%3A%20String%29%20%7B%20x%20%7D",
            "",
        ))
        .unwrap();
        assert_eq!(
            (op.name.as_deref(), op.kind),
            (Some("Search"), OperationKind::Query)
        );
        let op = graphql_operation(&flow(
            "POST",
            "https://x.test/graphql",
            r#"[{"query":"query A { a }"},{"query":"query B { b }"}]"#,
        ))
        .unwrap();
        assert_eq!(op.name.as_deref(), Some("A+B"));
        let op = graphql_operation(&flow(
            "POST",
            "https://x.test/graphql",
            r#"{"query":"{ me { id } }"}"#,
        ))
        .unwrap();
        assert_eq!((op.name, op.kind), (None, OperationKind::Query));
    }

    #[test]
    fn ordinary_json_is_not_graphql() {
        assert!(
            graphql_operation(&flow(
                "POST",
                "https://x.test/search",
                r#"{"query":"red shoes"}"#
            ))
            .is_none()
        );
        assert!(graphql_operation(&flow("GET", "https://x.test/search?query=shoes", "")).is_none());
    }

    #[test]
    fn query_names_are_matched_decoded_and_paths_ignoring_case() {
        // `%6Fperation%4Eame` is `operationName` once decoded.
        let op = graphql_operation(&flow(
            "GET",
            "https://x.test/API/GraphQL?%6Fperation%4Eame=Feed&extensions=%7B%22persistedQuery%22%7D",
            "",
        ))
        .unwrap();
        assert_eq!(op.name.as_deref(), Some("Feed"));
        assert!(graphql_operation(&flow("GET", "https://x.test/GraphQL?page=2&a", "")).is_none());
        assert!(contains_ignore_case(b"/v1/GRAPHQL", b"graphql"));
        assert!(!contains_ignore_case(b"/graph", b"graphql"));
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
}
