//! GraphQL requests: one HTTP path (`/graphql`) carries many operations, so
//! they are documented by operation name rather than by path.

use ar_flow::graphql::{OperationKind, document_head};
use ar_store::Request;
use serde_json::Value;

/// One GraphQL operation found in a request.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GraphqlCall {
    /// The operation name (`operationName`, else the name in the document, else `anonymous`).
    pub(crate) name: String,
    /// Query, mutation or subscription.
    pub(crate) kind: OperationKind,
    /// The `variables` object, if any.
    pub(crate) variables: Option<Value>,
    /// The query document text.
    pub(crate) query: Option<String>,
}

/// The GraphQL operations in a request: a POST with a JSON body (single or
/// batched) or a GET with `query`/`operationName` in the query string.
/// Empty when the request is not GraphQL. `query` is the URL's query string
/// ([`ar_flow::url::query_of`]).
pub(crate) fn calls(request: &Request, query: Option<&str>) -> Vec<GraphqlCall> {
    let media = crate::fold::media_type(&request.body).unwrap_or_default();
    if !request.body.bytes.is_empty()
        && (media.contains("json") || media.is_empty())
        && may_name_an_operation(&request.body.bytes)
        && let Ok(value) = serde_json::from_slice::<Value>(&request.body.bytes)
    {
        {
            let items = match value {
                Value::Array(items) => items,
                single @ Value::Object(_) => vec![single],
                _ => Vec::new(),
            };
            return items.iter().filter_map(call_from_object).collect();
        }
    }
    if media == "application/graphql" {
        let query = String::from_utf8_lossy(&request.body.bytes).into_owned();
        return call_from_parts(&query, None, None).into_iter().collect();
    }
    let Some(query_string) = query else {
        return Vec::new();
    };
    let pairs = crate::form::parse_urlencoded(query_string);
    let find = |key: &str| {
        pairs
            .iter()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value.clone())
    };
    let Some(query) = find("query") else {
        return Vec::new();
    };
    let variables = find("variables").and_then(|text| serde_json::from_str(&text).ok());
    call_from_parts(&query, find("operationName").as_deref(), variables)
        .into_iter()
        .collect()
}

/// Whether a JSON body can hold a `query` or `operationName` key, so most
/// REST bodies are not parsed into a `Value` only to find neither. Exact: a
/// key spelled with escapes (`"\u0071uery"`) still contains `\u`.
fn may_name_an_operation(body: &[u8]) -> bool {
    use memchr::memmem;
    memmem::find(body, b"query").is_some()
        || memmem::find(body, b"operationName").is_some()
        || memmem::find(body, b"\\u").is_some()
}

fn call_from_object(object: &Value) -> Option<GraphqlCall> {
    let query = object.get("query").and_then(Value::as_str);
    let name = object.get("operationName").and_then(Value::as_str);
    let variables = object.get("variables").filter(|v| !v.is_null()).cloned();
    match query {
        Some(query) => call_from_parts(query, name, variables),
        // Persisted queries send only a name and a hash.
        None => name.map(|name| GraphqlCall {
            name: name.to_string(),
            kind: OperationKind::Query,
            variables,
            query: None,
        }),
    }
}

fn call_from_parts(
    query: &str,
    name: Option<&str>,
    variables: Option<Value>,
) -> Option<GraphqlCall> {
    let (kind, document_name) = match document_head(query) {
        (OperationKind::Unknown, _) => return None,
        head => head,
    };
    let name = name
        .filter(|n| !n.is_empty())
        .map(str::to_string)
        .or(document_name);
    Some(GraphqlCall {
        name: name.unwrap_or_else(|| "anonymous".to_string()),
        kind,
        variables,
        query: Some(query.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls_of(request: &Request) -> Vec<GraphqlCall> {
        calls(request, ar_flow::url::query_of(&request.url))
    }
    use ar_store::{Body, HttpVersion};

    fn post(body: &str) -> Request {
        let mut request = Request::new("POST", "https://api.test/graphql", HttpVersion::Http11);
        request.body =
            Body::from_decoded(Some("application/json".into()), body.as_bytes().to_vec());
        request
    }

    #[test]
    fn named_operations_from_body_and_document() {
        let found = calls_of(&post(
            r#"{"query":"query GetUser($id: ID!) { user(id: $id) { name } }","variables":{"id":"1"}}"#,
        ));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "GetUser");
        assert_eq!(found[0].kind, OperationKind::Query);
        assert_eq!(found[0].variables, Some(serde_json::json!({"id": "1"})));
        let found = calls_of(&post(
            r#"{"operationName":"AddToCart","query":"fragment F on X { a } mutation AddToCart { add { id } }"}"#,
        ));
        assert_eq!(
            (found[0].name.as_str(), found[0].kind),
            ("AddToCart", OperationKind::Mutation)
        );
    }

    #[test]
    fn batches_get_requests_and_anonymous_queries() {
        let found = calls_of(&post(
            r#"[{"query":"{ me { id } }"},{"query":"mutation Logout { logout }"}]"#,
        ));
        assert_eq!(
            found.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["anonymous", "Logout"]
        );
        let get = Request::new(
            "GET",
            "https://api.test/graphql?query=query%20Feed%7Bfeed%7Bid%7D%7D&operationName=Feed",
            HttpVersion::Http11,
        );
        assert_eq!(calls_of(&get)[0].name, "Feed");
    }

    #[test]
    fn keys_spelled_with_escapes_are_still_found() {
        let found = calls_of(&post(r#"{"\u0071uery":"query Me { me { id } }"}"#));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].name, "Me");
    }

    #[test]
    fn non_graphql_json_is_ignored() {
        assert!(calls_of(&post(r#"{"name":"ada"}"#)).is_empty());
        assert!(calls_of(&post(r#"{"query":"red shoes"}"#)).is_empty());
    }
}
