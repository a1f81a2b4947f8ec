//! The query and header parameters of a request held against its operation's: names sent
//! that the operation does not document, and required ones not sent.
//!
//! A query name is documented when a query parameter has that name; when it is a
//! parameter's name followed by brackets (`filter[status]`, `ids[]`: `deepObject` and PHP-style
//! arrays); when an exploded form-style object parameter lists it among its properties (or
//! lists none: a free-form object takes any name); or when an `apiKey` security scheme sends
//! it. A header is documented when a header parameter or an `apiKey` scheme names it (case
//! aside). Headers every HTTP client or browser sends (`Accept`, `User-Agent`, `Sec-Fetch-*`,
//! `Authorization`, ...) are never reported. Cookies are not checked: a browser sends every
//! cookie of the site to every call.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use serde_json::Value;

use super::HeaderNames;
use super::finding::{FindingKind, Issue, Location};
use crate::document::{Document, Operation};
use crate::names::Names;
use crate::refs::percent_decode;
use crate::schema_view::SchemaView;
use crate::types::TypeSet;

/// Request headers that are the protocol's or the browser's, not an API's parameters.
const STANDARD_HEADERS: &[&str] = &[
    "a-im",
    "accept",
    "accept-charset",
    "accept-datetime",
    "accept-encoding",
    "accept-language",
    "access-control-request-headers",
    "access-control-request-method",
    "authorization",
    "cache-control",
    "connection",
    "content-encoding",
    "content-language",
    "content-length",
    "content-md5",
    "content-type",
    "cookie",
    "date",
    "device-memory",
    "dnt",
    "downlink",
    "dpr",
    "early-data",
    "ect",
    "expect",
    "forwarded",
    "from",
    "host",
    "http2-settings",
    "if-match",
    "if-modified-since",
    "if-none-match",
    "if-range",
    "if-unmodified-since",
    "keep-alive",
    "max-forwards",
    "origin",
    "pragma",
    "prefer",
    "priority",
    "purpose",
    "range",
    "referer",
    "rtt",
    "save-data",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "upgrade-insecure-requests",
    "user-agent",
    "via",
    "viewport-width",
    "warning",
    "width",
    "x-forwarded-for",
    "x-forwarded-host",
    "x-forwarded-proto",
    "x-real-ip",
    "x-requested-with",
];

/// Prefixes of standard request headers: fetch metadata and client hints (`sec-`), proxies'
/// own, HTTP/2 pseudo-headers.
const STANDARD_PREFIXES: &[&str] = &["sec-", "proxy-", "x-forwarded-", ":"];

/// Header parameters OpenAPI says a parameter list does not describe.
const IGNORED_HEADERS: [&str; 3] = ["accept", "content-type", "authorization"];

/// The parameters an `apiKey` security scheme sends, documented for every operation.
#[derive(Clone, Debug, Default)]
pub(crate) struct Credentials {
    /// Header names, lowercase.
    headers: BTreeSet<String>,
    queries: BTreeSet<String>,
}

impl Credentials {
    /// The `apiKey` schemes of `document`'s components.
    pub(crate) fn of(document: &Document) -> Credentials {
        let mut credentials = Credentials::default();
        let schemes = document
            .as_value()
            .pointer("/components/securitySchemes")
            .and_then(Value::as_object);
        for scheme in schemes.into_iter().flat_map(|m| m.values()) {
            let scheme = document.resolve(scheme);
            if scheme.get("type").and_then(Value::as_str) != Some("apiKey") {
                continue;
            }
            let Some(name) = scheme.get("name").and_then(Value::as_str) else {
                continue;
            };
            match scheme.get("in").and_then(Value::as_str) {
                Some("header") => {
                    credentials.headers.insert(name.to_ascii_lowercase());
                }
                Some("query") => {
                    credentials.queries.insert(name.to_owned());
                }
                _ => {}
            }
        }
        credentials
    }
}

/// What one operation documents of the query and the headers, read out of the document once,
/// when a flow first calls it: reading the parameter lists (references, path item and
/// operation) cost as much for every flow as checking what the flow sent.
#[derive(Clone, Debug, Default)]
pub(crate) struct Documented {
    queries: Vec<QueryParam>,
    /// Header names the operation documents (its parameters and `apiKey` schemes), lowercase.
    headers: Vec<Box<str>>,
    /// Header parameters it requires, lowercase (those OpenAPI says a list does not describe
    /// left out).
    required_headers: Vec<Box<str>>,
}

/// A documented query parameter.
#[derive(Clone, Debug)]
struct QueryParam {
    name: Box<str>,
    required: bool,
    /// For an exploded form-style object: the property names it spreads into the query
    /// (`None`: any name, a free-form object).
    spread: Option<Option<Vec<Box<str>>>>,
}

impl Documented {
    /// What `operation` (and its path item) documents; `credentials` are the document's.
    pub(crate) fn of(
        document: &Document,
        operation: &Operation<'_>,
        credentials: &Credentials,
    ) -> Documented {
        let mut documented = Documented::default();
        let mut headers: BTreeSet<Box<str>> = credentials
            .headers
            .iter()
            .map(|h| h.as_str().into())
            .collect();
        for param in parameters(document, operation) {
            match param.location {
                "query" => documented.queries.push(QueryParam {
                    name: param.name.into(),
                    required: param.required,
                    spread: param
                        .spread
                        .map(|names| names.map(|n| n.into_iter().map(Box::from).collect())),
                }),
                "header" => {
                    let lower = param.name.to_ascii_lowercase().into_boxed_str();
                    let ignored = IGNORED_HEADERS.contains(&&*lower);
                    if param.required && !ignored {
                        documented.required_headers.push(lower.clone());
                    }
                    headers.insert(lower);
                }
                _ => {}
            }
        }
        documented.headers = headers.into_iter().collect();
        documented
    }
}

/// One documented parameter, as the operation lists it.
struct Param<'d> {
    location: &'d str,
    name: &'d str,
    required: bool,
    /// As [`QueryParam`]'s.
    spread: Option<Option<Vec<&'d str>>>,
}

/// The issues of a request's query (`query`, without `?`) and header names against what its
/// operation documents.
pub(crate) fn check(
    documented: &Documented,
    query: &str,
    headers: &(impl HeaderNames + ?Sized),
    credentials: &Credentials,
) -> Vec<Issue> {
    let mut issues = Vec::new();
    // Most calls send no query, and most operations require none: even an empty set of
    // names sent costs hundreds of instructions.
    if !query.is_empty() || documented.queries.iter().any(|p| p.required) {
        check_query(documented, query, credentials, &mut issues);
    }
    check_headers(documented, headers, &mut issues);
    issues
}

fn check_query(
    documented: &Documented,
    query: &str,
    credentials: &Credentials,
    issues: &mut Vec<Issue>,
) {
    // The names sent, decoded, once each and in order: a sorted list, since a query has a
    // few (a set of them cost a thousand instructions for one name).
    let mut sent: Vec<Cow<'_, str>> = query
        .split('&')
        .filter_map(|pair| {
            let name = pair.split('=').next().unwrap_or_default();
            (!name.is_empty()).then(|| decoded(name))
        })
        .collect();
    sent.sort_unstable();
    sent.dedup();
    for name in &sent {
        if !query_documented(name, &documented.queries, credentials) {
            issues.push(Issue::new(
                FindingKind::UndocumentedParameter,
                Location::Query,
                &**name,
            ));
        }
    }
    for param in documented.queries.iter().filter(|p| p.required) {
        let present = match &param.spread {
            Some(None) => true,
            Some(Some(names)) => names.iter().any(|n| sent.iter().any(|s| **s == **n)),
            None => sent.iter().any(|s| base_name(s) == &*param.name),
        };
        if !present {
            issues.push(Issue::new(
                FindingKind::MissingRequiredParameter,
                Location::Query,
                &*param.name,
            ));
        }
    }
}

fn check_headers(
    documented: &Documented,
    headers: &(impl HeaderNames + ?Sized),
    issues: &mut Vec<Issue>,
) {
    let mut buffer = [0; LOWERED_BYTES];
    let names = || (0..headers.count()).map(|at| headers.name(at));
    for name in names() {
        let known = |lower: &[u8]| {
            documented.headers.iter().any(|h| h.as_bytes() == lower) || is_standard(lower)
        };
        let known = match lowered(name, &mut buffer) {
            Some(lower) => known(lower),
            None => known(name.to_ascii_lowercase().as_bytes()),
        };
        if known {
            continue;
        }
        let lower = name.to_ascii_lowercase();
        let reported = |issue: &Issue| issue.location == Location::Header && issue.name == lower;
        if !issues.iter().any(reported) {
            issues.push(Issue::new(
                FindingKind::UndocumentedParameter,
                Location::Header,
                lower,
            ));
        }
    }
    for required in &documented.required_headers {
        if !names().any(|h| h.eq_ignore_ascii_case(required)) {
            issues.push(Issue::new(
                FindingKind::MissingRequiredParameter,
                Location::Header,
                &**required,
            ));
        }
    }
}

/// Header names up to this long (all but odd ones) are lowered on the stack to be compared.
const LOWERED_BYTES: usize = 64;

/// `name` in lowercase, in `buffer`; `None` when it is too long for it.
fn lowered<'b>(name: &str, buffer: &'b mut [u8; LOWERED_BYTES]) -> Option<&'b [u8]> {
    let lower = buffer.get_mut(..name.len())?;
    lower.copy_from_slice(name.as_bytes());
    lower.make_ascii_lowercase();
    Some(lower)
}

/// A query name as the server reads it: `+` is a space, then percent-decoded.
fn decoded(name: &str) -> Cow<'_, str> {
    if name.contains('+') {
        Cow::Owned(percent_decode(&name.replace('+', " ")).into_owned())
    } else {
        percent_decode(name)
    }
}

fn query_documented(name: &str, queries: &[QueryParam], credentials: &Credentials) -> bool {
    let base = base_name(name);
    credentials.queries.contains(name)
        || queries.iter().any(|p| {
            *p.name == *name
                || *p.name == *base
                || match &p.spread {
                    Some(None) => true,
                    Some(Some(names)) => names.iter().any(|n| **n == *name || **n == *base),
                    None => false,
                }
        })
}

/// `filter[status]` → `filter`, `ids[]` → `ids`.
fn base_name(name: &str) -> &str {
    match name.find('[') {
        Some(at) if at > 0 => &name[..at],
        _ => name,
    }
}

/// [`STANDARD_HEADERS`] as a table (`names.rs`): each header of each request is looked up,
/// and a search of the sorted list cost a hundred instructions a name.
static STANDARD: LazyLock<Names<()>> = LazyLock::new(|| {
    let names = STANDARD_HEADERS.iter().map(|h| (h.as_bytes().into(), ()));
    Names::new(names.collect())
});

/// Whether `lower` (a header name in lowercase) is a standard request header.
fn is_standard(lower: &[u8]) -> bool {
    STANDARD.get(lower).is_some()
        || STANDARD_PREFIXES
            .iter()
            .any(|prefix| lower.starts_with(prefix.as_bytes()))
}

/// The operation's parameters and its path item's (the operation's win on a location and name).
fn parameters<'d>(document: &'d Document, operation: &Operation<'d>) -> Vec<Param<'d>> {
    let mut params: Vec<Param<'d>> = Vec::new();
    let lists = [
        operation.value().get("parameters"),
        operation.path_item().get("parameters"),
    ];
    for list in lists.into_iter().flatten().filter_map(Value::as_array) {
        for raw in list {
            let param = document.resolve(raw);
            let (Some(name), Some(location)) = (
                param.get("name").and_then(Value::as_str),
                param.get("in").and_then(Value::as_str),
            ) else {
                continue;
            };
            let same = |p: &Param<'_>| {
                p.location == location
                    && (p.name == name || location == "header" && p.name.eq_ignore_ascii_case(name))
            };
            if params.iter().any(same) {
                continue;
            }
            params.push(Param {
                location,
                name,
                required: param.get("required").and_then(Value::as_bool) == Some(true),
                spread: spread(document, param),
            });
        }
    }
    params
}

/// The names an exploded form-style object query parameter puts in the query.
fn spread<'d>(document: &'d Document, param: &'d Value) -> Option<Option<Vec<&'d str>>> {
    let style = param.get("style").and_then(Value::as_str).unwrap_or("form");
    let explode = param
        .get("explode")
        .and_then(Value::as_bool)
        .unwrap_or(style == "form");
    if style != "form" || !explode {
        return None;
    }
    let view = SchemaView::of(document.as_value(), param.get("schema")?);
    if view.types != TypeSet::OBJECT {
        return None;
    }
    if view.properties.is_empty() {
        let closed = view.other_keys == Some(false);
        return Some(if closed { Some(Vec::new()) } else { None });
    }
    Some(Some(view.properties.keys().copied().collect()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn issues(query: &str, headers: &[&str]) -> Vec<String> {
        let doc = Document::from_value(json!({
            "openapi": "3.0.3",
            "paths": {"/items": {
                "parameters": [{"name": "X-Tenant", "in": "header", "required": true}],
                "get": {"parameters": [
                    {"name": "q", "in": "query", "required": true},
                    {"name": "filter", "in": "query", "style": "deepObject"},
                    {"name": "page", "in": "query", "schema": {"type": "object",
                        "properties": {"offset": {}, "limit": {}}}},
                    {"$ref": "#/components/parameters/Ids"}
                ]}
            }},
            "components": {
                "parameters": {"Ids": {"name": "ids", "in": "query"}},
                "securitySchemes": {"key": {"type": "apiKey", "in": "query", "name": "api_key"},
                                    "hdr": {"type": "apiKey", "in": "header", "name": "X-Key"}}
            }
        }))
        .unwrap();
        let operation = &doc.operations()[0];
        let credentials = Credentials::of(&doc);
        let documented = Documented::of(&doc, operation, &credentials);
        check(&documented, query, headers, &credentials)
            .into_iter()
            .map(|i| format!("{} {:?} {}", i.kind.id(), i.location, i.name))
            .collect()
    }

    #[test]
    fn documented_names_in_every_spelling_pass() {
        assert_eq!(
            issues(
                "q=a+b&filter[status]=open&ids[]=1&ids[]=2&offset=10&limit=5&api_key=k",
                &[
                    "Host",
                    "Accept",
                    "x-tenant",
                    "X-KEY",
                    "Sec-Fetch-Mode",
                    "User-Agent",
                    &format!("Sec-Ch-{}", "X".repeat(LOWERED_BYTES)),
                ]
            ),
            Vec::<String>::new()
        );
        assert!(STANDARD_HEADERS.windows(2).all(|w| w[0] < w[1]), "sorted");
        assert!(
            STANDARD_HEADERS
                .iter()
                .all(|h| *h == h.to_ascii_lowercase())
        );
    }

    #[test]
    fn a_standard_header_is_known_in_any_case() {
        let by_search = |name: &str| {
            let lower = name.to_ascii_lowercase();
            STANDARD_HEADERS.binary_search(&lower.as_str()).is_ok()
                || STANDARD_PREFIXES.iter().any(|p| lower.starts_with(p))
        };
        let mut names: Vec<String> = STANDARD_HEADERS
            .iter()
            .flat_map(|h| [h.to_ascii_uppercase(), format!("{h}x"), h[1..].to_owned()])
            .collect();
        names.extend(
            [
                "",
                "Host",
                "hOsT",
                "Sec-Fetch-Mode",
                "SEC-",
                "sec",
                "Proxy-Authorization",
                ":authority",
                ":",
                "X-Forwarded-Port",
                "x-forwarded",
                "X-Client",
                "zzz",
                "\u{e9}tag",
                "Ümlaut",
            ]
            .map(str::to_owned),
        );
        for name in &names {
            let lower = name.to_ascii_lowercase();
            assert_eq!(is_standard(lower.as_bytes()), by_search(name), "{name}");
        }
    }

    #[test]
    fn undocumented_and_missing_parameters() {
        let long = "x-".repeat(LOWERED_BYTES);
        assert_eq!(
            issues(
                "sort=asc&q=&my%20name=1",
                &[
                    "X-Client-Version",
                    "x-client-version",
                    &long,
                    &long.to_uppercase()
                ]
            ),
            [
                "undocumented_parameter Query my name",
                "undocumented_parameter Query sort",
                "undocumented_parameter Header x-client-version",
                &format!("undocumented_parameter Header {long}"),
                "missing_required_parameter Header x-tenant",
            ]
        );
        assert_eq!(
            issues("", &["X-Tenant"]),
            ["missing_required_parameter Query q"]
        );
    }
}
