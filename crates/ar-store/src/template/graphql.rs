//! GraphQL requests are keyed by operation, not by their (single) URL.
//!
//! What a request sends is recognised by [`ar_flow::graphql::calls`] (the
//! documenter documents the same calls); the name comes from
//! `operationName`, else from the document (`query Foo {`, `mutation
//! Bar(`). Batched requests (a JSON array) join the names with `+`.

use serde::{Deserialize, Serialize};

use crate::Flow;
use ar_flow::graphql::{Call, OperationKind, calls};
use ar_flow::url::UrlParts;

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
    operation_of(&graphql_calls(flow, url))
}

/// The GraphQL operations `flow`'s request sends ([`ar_flow::graphql::calls`]).
pub(crate) fn graphql_calls(flow: &Flow, url: &UrlParts<'_>) -> Vec<Call> {
    let request = &flow.request;
    // Case-insensitive `contains("graphql")` without lowercasing a copy of
    // the path; only asked once a body or query mentions a GraphQL field.
    let path_says_graphql =
        || contains_ignore_case(url.path.as_bytes(), b"graphql") || url.path.ends_with("/gql");
    calls(
        &request.body.bytes,
        request.body.media_type_as_sent(),
        url.query,
        path_says_graphql,
    )
}

/// The operation an endpoint is keyed by: the one call's, or for a batch
/// the names joined with `+` (`anonymous` for an unnamed one) and the kind
/// they share (`Unknown` when they differ).
pub(crate) fn operation_of(calls: &[Call]) -> Option<GraphQlOperation> {
    match calls {
        [] => None,
        [one] => Some(GraphQlOperation {
            name: one.name.clone(),
            kind: one.kind,
        }),
        [first, ..] => {
            let names: Vec<&str> = calls
                .iter()
                .map(|c| c.name.as_deref().unwrap_or("anonymous"))
                .collect();
            let kind = if calls.iter().all(|c| c.kind == first.kind) {
                first.kind
            } else {
                OperationKind::Unknown
            };
            Some(GraphQlOperation {
                name: Some(names.join("+")),
                kind,
            })
        }
    }
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
}
