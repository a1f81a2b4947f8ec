//! Which operation of a document a concrete request calls: `GET /api/v2/users/42` is
//! `GET /api/v2/users/{id}`.
//!
//! The templates go into a trie of segments. A request walks it segment by segment trying, at
//! each step, the literal segment first, then segments that mix text and parameters (the most
//! text first), then a whole-segment parameter, and backs up when a branch ends without the
//! method: so `/users/me` is `/users/me` when the document has it, and `DELETE /users/me` is
//! `DELETE /users/{id}` when only `GET /users/me` is literal. This is OpenAPI's rule that
//! concrete paths match before templated ones, applied from the left. Each operation is
//! reachable under the base path of every server it lists.

use std::collections::BTreeMap;

use crate::document::Document;
use crate::method::Method;
use crate::refs::percent_decode;
use crate::template::{PathTemplate, Piece, Segment, join, match_pieces};

/// Matches concrete requests to the operations of one document. Owns its data: build it
/// once per document and keep it.
#[derive(Clone, Debug, Default)]
pub struct OperationMatcher {
    nodes: Vec<Node>,
}

/// The operation a request calls, and the values its path parameters took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteMatch<'m> {
    /// The method.
    pub method: Method,
    /// The full path template (server base path included), as [`crate::Operation::path`].
    pub path: &'m str,
    /// The template as the document's `paths` writes it.
    pub template: &'m str,
    /// Each path parameter's name and its percent-decoded value, left to right.
    pub params: Vec<(&'m str, String)>,
}

/// What a request is to a document: one of its operations, a documented path called with an
/// undocumented method, or a path the document does not have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup<'m> {
    /// The operation called.
    Operation(RouteMatch<'m>),
    /// The path is documented (the first template that matched), the method is not.
    MethodNotDocumented {
        /// The full path template that matched.
        path: &'m str,
        /// The methods it documents.
        methods: Vec<Method>,
    },
    /// No template matches the path.
    NotFound,
}

#[derive(Clone, Debug, Default)]
struct Node {
    literals: BTreeMap<String, usize>,
    mixed: Vec<(Vec<Piece>, usize)>,
    param: Option<usize>,
    operations: BTreeMap<Method, Entry>,
}

#[derive(Clone, Debug)]
struct Entry {
    path: String,
    template: String,
    param_names: Vec<String>,
}

impl OperationMatcher {
    /// The matcher of every operation of `document`.
    pub fn new(document: &Document) -> OperationMatcher {
        let mut matcher = OperationMatcher {
            nodes: vec![Node::default()],
        };
        for operation in document.operations() {
            for base in document.server_base_paths(&operation) {
                let full = join(&base, operation.template());
                let template = PathTemplate::parse(&full);
                let node = matcher.insert(&template);
                matcher.nodes[node]
                    .operations
                    .entry(operation.method())
                    .or_insert_with(|| Entry {
                        path: operation.path().to_owned(),
                        template: operation.template().to_owned(),
                        param_names: template
                            .param_names()
                            .iter()
                            .map(|&n| n.to_owned())
                            .collect(),
                    });
            }
        }
        for node in &mut matcher.nodes {
            node.mixed.sort_by(|(a, _), (b, _)| {
                literal_len(b)
                    .cmp(&literal_len(a))
                    .then_with(|| format!("{a:?}").cmp(&format!("{b:?}")))
            });
        }
        matcher
    }

    /// The operation `method path` calls, if the document has one. `path` may carry a query
    /// (ignored) or be a whole URL.
    pub fn find(&self, method: Method, path: &str) -> Option<RouteMatch<'_>> {
        match self.lookup(method, path) {
            Lookup::Operation(found) => Some(found),
            _ => None,
        }
    }

    /// What `method path` is to the document; see [`Lookup`]. A path that calls no operation
    /// is tried again with its trailing `/` taken off, or with one added.
    pub fn lookup(&self, method: Method, path: &str) -> Lookup<'_> {
        let path = request_path(path);
        let exact = self.lookup_exact(method, path);
        if matches!(exact, Lookup::Operation(_)) || path == "/" {
            return exact;
        }
        let toggled = match path.strip_suffix('/') {
            Some(trimmed) => self.lookup_exact(method, trimmed),
            None => self.lookup_exact(method, &format!("{path}/")),
        };
        match (exact, toggled) {
            (_, found @ Lookup::Operation(_)) | (Lookup::NotFound, found) => found,
            (exact, _) => exact,
        }
    }

    fn lookup_exact(&self, method: Method, path: &str) -> Lookup<'_> {
        let segments: Vec<&str> = match path.strip_prefix('/') {
            Some("") => Vec::new(),
            Some(rest) => rest.split('/').collect(),
            None => return Lookup::NotFound,
        };
        let mut walk = Walk {
            method,
            values: Vec::new(),
            first_path: None,
        };
        if let Some(node) = self.walk(0, &segments, &mut walk) {
            let entry = &self.nodes[node].operations[&method];
            let params = entry
                .param_names
                .iter()
                .map(String::as_str)
                .zip(walk.values)
                .collect();
            return Lookup::Operation(RouteMatch {
                method,
                path: &entry.path,
                template: &entry.template,
                params,
            });
        }
        match walk.first_path {
            Some(node) => {
                let operations = &self.nodes[node].operations;
                Lookup::MethodNotDocumented {
                    path: operations.values().next().map_or("", |e| e.path.as_str()),
                    methods: operations.keys().copied().collect(),
                }
            }
            None => Lookup::NotFound,
        }
    }

    fn walk(&self, node: usize, segments: &[&str], walk: &mut Walk) -> Option<usize> {
        let here = &self.nodes[node];
        let Some((segment, rest)) = segments.split_first() else {
            if !here.operations.is_empty() && walk.first_path.is_none() {
                walk.first_path = Some(node);
            }
            return here.operations.contains_key(&walk.method).then_some(node);
        };
        let decoded = percent_decode(segment);
        let literal = here
            .literals
            .get(decoded.as_ref())
            .or_else(|| here.literals.get(*segment));
        if let Some(found) = literal.and_then(|&child| self.walk(child, rest, walk)) {
            return Some(found);
        }
        for (pieces, child) in &here.mixed {
            let Some(values) = match_pieces(pieces, &decoded) else {
                continue;
            };
            let mark = walk.values.len();
            walk.values.extend(values.into_iter().map(str::to_owned));
            if let Some(found) = self.walk(*child, rest, walk) {
                return Some(found);
            }
            walk.values.truncate(mark);
        }
        if let Some(child) = here.param.filter(|_| !segment.is_empty()) {
            walk.values.push(decoded.into_owned());
            if let Some(found) = self.walk(child, rest, walk) {
                return Some(found);
            }
            walk.values.pop();
        }
        None
    }

    fn insert(&mut self, template: &PathTemplate) -> usize {
        let mut node = 0;
        for segment in &template.segments {
            let existing = match segment {
                Segment::Literal(text) => self.nodes[node].literals.get(text).copied(),
                Segment::Param(_) => self.nodes[node].param,
                Segment::Mixed(pieces) => self.nodes[node]
                    .mixed
                    .iter()
                    .find(|(p, _)| same_shape(p, pieces))
                    .map(|&(_, child)| child),
            };
            node = match existing {
                Some(child) => child,
                None => {
                    let child = self.nodes.len();
                    self.nodes.push(Node::default());
                    let parent = &mut self.nodes[node];
                    match segment {
                        Segment::Literal(text) => {
                            parent.literals.insert(text.clone(), child);
                        }
                        Segment::Param(_) => parent.param = Some(child),
                        Segment::Mixed(pieces) => parent.mixed.push((pieces.clone(), child)),
                    }
                    child
                }
            };
        }
        node
    }
}

struct Walk {
    method: Method,
    values: Vec<String>,
    first_path: Option<usize>,
}

/// The path of a request target: a whole URL loses its scheme and host, any target its query
/// and fragment.
pub(crate) fn request_path(target: &str) -> &str {
    let target = match after_scheme(target) {
        Some(rest) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => target,
    };
    let end = target
        .bytes()
        .position(|b| matches!(b, b'?' | b'#'))
        .unwrap_or(target.len());
    &target[..end]
}

/// What follows `scheme://` in a whole URL (`https://shop.test/a` → `shop.test/a`), or `None`
/// for a target with no scheme (`/a?next=https://b.test`).
pub(crate) fn after_scheme(url: &str) -> Option<&str> {
    let bytes = url.as_bytes();
    let scheme = bytes
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (scheme > 0 && bytes[0].is_ascii_alphabetic())
        .then(|| url[scheme..].strip_prefix("://"))
        .flatten()
}

fn literal_len(pieces: &[Piece]) -> usize {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Literal(text) => text.len(),
            Piece::Param(_) => 0,
        })
        .sum()
}

fn same_shape(a: &[Piece], b: &[Piece]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|pair| match pair {
            (Piece::Literal(x), Piece::Literal(y)) => x == y,
            (Piece::Param(_), Piece::Param(_)) => true,
            _ => false,
        })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn matcher() -> OperationMatcher {
        let doc = Document::from_value(json!({
            "openapi": "3.0.0",
            "servers": [{"url": "https://x.test/api/v2"}, {"url": "https://sandbox.x.test/"}],
            "paths": {
                "/users/{id}": {"get": {}, "delete": {}},
                "/users/me": {"get": {}},
                "/users/{userId}/files/{name}.{ext}": {"get": {}},
                "/users/{userId}/files/{name}": {"get": {}},
                "/instances/{id}:start": {"post": {}},
                "/": {"get": {}}
            }
        }))
        .unwrap();
        OperationMatcher::new(&doc)
    }

    fn found(
        m: &OperationMatcher,
        method: Method,
        path: &str,
    ) -> Option<(String, Vec<(String, String)>)> {
        m.find(method, path).map(|r| {
            (
                r.path.to_owned(),
                r.params
                    .into_iter()
                    .map(|(n, v)| (n.to_owned(), v))
                    .collect(),
            )
        })
    }

    #[test]
    fn templates_match_concrete_paths_under_every_server() {
        let m = matcher();
        let (path, params) = found(&m, Method::Get, "/api/v2/users/42").unwrap();
        assert_eq!(path, "/api/v2/users/{id}");
        assert_eq!(params, [("id".to_owned(), "42".to_owned())]);
        assert_eq!(
            found(&m, Method::Get, "/users/42").unwrap().0,
            "/api/v2/users/{id}"
        );
        assert_eq!(
            found(&m, Method::Get, "https://x.test/api/v2/users/7?x=1")
                .unwrap()
                .0,
            "/api/v2/users/{id}"
        );
        assert_eq!(found(&m, Method::Get, "/api/v2").unwrap().0, "/api/v2/");
        assert_eq!(found(&m, Method::Get, "/api/v3/users/1"), None);
    }

    #[test]
    fn a_target_is_a_whole_url_only_when_it_starts_with_a_scheme() {
        assert_eq!(request_path("https://x.test/a/b?c=1#d"), "/a/b");
        assert_eq!(request_path("http://x.test"), "/");
        assert_eq!(request_path("/login?next=https://x.test/a"), "/login");
        assert_eq!(request_path("/a:b//c"), "/a:b//c");
        assert_eq!(after_scheme("svn+ssh://x.test/r"), Some("x.test/r"));
        assert_eq!(after_scheme("1http://x.test"), None);
    }

    #[test]
    fn literals_beat_parameters_unless_the_method_differs() {
        let m = matcher();
        assert_eq!(
            found(&m, Method::Get, "/users/me").unwrap().0,
            "/api/v2/users/me"
        );
        assert_eq!(
            found(&m, Method::Delete, "/users/me").unwrap().0,
            "/api/v2/users/{id}"
        );
        let (path, params) = found(&m, Method::Get, "/users/u1/files/a.tar.gz").unwrap();
        assert_eq!(path, "/api/v2/users/{userId}/files/{name}.{ext}");
        assert_eq!(params[1], ("name".to_owned(), "a".to_owned()));
        assert_eq!(
            found(&m, Method::Get, "/users/u1/files/readme").unwrap().0,
            "/api/v2/users/{userId}/files/{name}"
        );
        assert_eq!(
            found(&m, Method::Post, "/instances/i%2D1:start").unwrap().1[0].1,
            "i-1"
        );
    }

    #[test]
    fn undocumented_methods_and_paths() {
        let m = matcher();
        assert_eq!(
            m.lookup(Method::Put, "/users/me"),
            Lookup::MethodNotDocumented {
                path: "/api/v2/users/me",
                methods: vec![Method::Get]
            }
        );
        assert_eq!(m.lookup(Method::Get, "/nothing/here"), Lookup::NotFound);
        let doc = Document::from_value(json!({"openapi": "3.0.0", "paths": {
            "/old/{id}": {"get": {"deprecated": true}}}}))
        .unwrap();
        let old = OperationMatcher::new(&doc);
        let called = old.find(Method::Get, "/old/1").unwrap();
        let operation = doc.operation(called.method, called.template).unwrap();
        assert!(operation.deprecated());
        assert_eq!(m.lookup(Method::Get, "no-slash"), Lookup::NotFound);
        assert_eq!(
            found(&m, Method::Get, "/users/42/").unwrap().0,
            "/api/v2/users/{id}"
        );
        assert_eq!(m.lookup(Method::Get, "/users//files/x"), Lookup::NotFound);
    }
}
