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

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::document::Document;
use crate::method::Method;
use crate::names::Names;
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
    /// The operation's place in [`Document::operations`]: what a drift keeps what it read of
    /// the operation by, with no look-up of its template.
    pub(crate) operation: usize,
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
    /// The children under literal segments, by the segment (`names.rs`: a segment of each
    /// request is looked up in each node it goes through).
    literals: Names<usize>,
    mixed: Vec<(Vec<Piece>, usize)>,
    param: Option<usize>,
    /// The operations of the template that ends here, in method order: a node has a few, and
    /// a list finds one with no tree to descend.
    operations: Vec<(Method, Entry)>,
}

impl Node {
    /// The child under the literal segment `segment`.
    fn literal(&self, segment: &str) -> Option<usize> {
        self.literals.get(segment.as_bytes()).copied()
    }
}

/// The segments of a path not walked yet, cut off one at a time as the walk goes down (no
/// list of them is built): `None` when none is left, else the text after a `/` (`a/b` is `a`
/// then `b`, an empty text is one empty segment).
#[derive(Clone, Copy, Debug)]
struct Segments<'p>(Option<&'p str>);

impl<'p> Segments<'p> {
    /// The next segment, and those after it.
    fn split_first(self) -> Option<(&'p str, Segments<'p>)> {
        let rest = self.0?;
        // A byte loop: segments are short, and `find` sets up a `memchr` for each.
        Some(match rest.bytes().position(|b| b == b'/') {
            Some(at) => (&rest[..at], Segments(Some(&rest[at + 1..]))),
            None => (rest, Segments(None)),
        })
    }
}

#[derive(Clone, Debug)]
struct Entry {
    /// As [`RouteMatch::operation`].
    operation: usize,
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
        // Each node's literal children while the templates go in, made its table after.
        let mut literals = vec![BTreeMap::new()];
        for (ordinal, operation) in document.operations().into_iter().enumerate() {
            for base in document.server_base_paths(&operation) {
                let full = join(&base, operation.template());
                let template = PathTemplate::parse(&full);
                let node = matcher.insert(&template, &mut literals);
                let operations = &mut matcher.nodes[node].operations;
                let method = operation.method();
                // The first operation a node meets for a method keeps it.
                if let Err(at) = operations.binary_search_by_key(&method, |&(m, _)| m) {
                    let entry = Entry {
                        operation: ordinal,
                        path: operation.path().to_owned(),
                        template: operation.template().to_owned(),
                        param_names: template
                            .param_names()
                            .iter()
                            .map(|&n| n.to_owned())
                            .collect(),
                    };
                    operations.insert(at, (method, entry));
                }
            }
        }
        for (node, literals) in matcher.nodes.iter_mut().zip(literals) {
            let literals = literals
                .into_iter()
                .map(|(text, child)| (text.into_bytes().into_boxed_slice(), child));
            node.literals = Names::new(literals.collect());
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
        self.lookup_path(method, request_path(path))
    }

    /// [`lookup`](Self::lookup) of a path already cut out of its target (what
    /// [`request_path`] gives): a caller that cut it does not pay for finding it again.
    pub(crate) fn lookup_path(&self, method: Method, path: &str) -> Lookup<'_> {
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
        let segments = match path.strip_prefix('/') {
            Some("") => Segments(None),
            Some(rest) => Segments(Some(rest)),
            None => return Lookup::NotFound,
        };
        let mut walk = Walk {
            method,
            values: Vec::new(),
            first_path: None,
        };
        if let Some(entry) = self.walk(0, segments, &mut walk) {
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
                operation: entry.operation,
            });
        }
        match walk.first_path {
            Some(node) => {
                let operations = &self.nodes[node].operations;
                Lookup::MethodNotDocumented {
                    path: operations.first().map_or("", |(_, e)| e.path.as_str()),
                    methods: operations.iter().map(|&(m, _)| m).collect(),
                }
            }
            None => Lookup::NotFound,
        }
    }

    fn walk<'m>(
        &'m self,
        node: usize,
        segments: Segments<'_>,
        walk: &mut Walk,
    ) -> Option<&'m Entry> {
        let here = &self.nodes[node];
        let Some((segment, rest)) = segments.split_first() else {
            if !here.operations.is_empty() && walk.first_path.is_none() {
                walk.first_path = Some(node);
            }
            let entry = here.operations.iter().find(|(m, _)| *m == walk.method);
            return entry.map(|(_, entry)| entry);
        };
        // Most segments have no escape: a byte loop tells, where `percent_decode`'s search for
        // one is a `memchr` call.
        let decoded = if segment.bytes().any(|b| b == b'%') {
            percent_decode(segment)
        } else {
            Cow::Borrowed(segment)
        };
        let literal = here.literal(&decoded).or_else(|| match decoded {
            // A segment with no escape is its own decoding: looked for once.
            Cow::Borrowed(_) => None,
            Cow::Owned(_) => here.literal(segment),
        });
        if let Some(found) = literal.and_then(|child| self.walk(child, rest, walk)) {
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

    /// The node `template` ends at, made with those above it when new; `literals` holds
    /// each node's literal children meanwhile.
    fn insert(
        &mut self,
        template: &PathTemplate,
        literals: &mut Vec<BTreeMap<String, usize>>,
    ) -> usize {
        let mut node = 0;
        for segment in &template.segments {
            let existing = match segment {
                Segment::Literal(text) => literals[node].get(text).copied(),
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
                    literals.push(BTreeMap::new());
                    let parent = &mut self.nodes[node];
                    match segment {
                        Segment::Literal(text) => {
                            literals[node].insert(text.clone(), child);
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
    fn segments_are_cut_as_split_cuts_them() {
        for path in [
            "/", "/a", "/a/", "/a//b", "//", "/a/b/c", "/%2F/x", "/a/b//",
        ] {
            let rest = path.strip_prefix('/').unwrap();
            let expected: Vec<&str> = match rest {
                "" => Vec::new(),
                rest => rest.split('/').collect(),
            };
            let mut segments = Segments((!rest.is_empty()).then_some(rest));
            let mut cut = Vec::new();
            while let Some((segment, rest)) = segments.split_first() {
                cut.push(segment);
                segments = rest;
            }
            assert_eq!(cut, expected, "{path}");
        }
    }

    #[test]
    fn escapes_slashes_and_ties_match_as_before() {
        let m = matcher();
        let params = |path: &str| found(&m, Method::Get, path).map(|(p, v)| (p, v.len()));
        // An escaped literal is the literal; an escaped `/` stays in its segment.
        assert_eq!(params("/users/m%65").unwrap().0, "/api/v2/users/me");
        let (path, values) = found(&m, Method::Get, "/api/v2/users/me%2Fx").unwrap();
        assert_eq!(path, "/api/v2/users/{id}");
        assert_eq!(values, [("id".to_owned(), "me/x".to_owned())]);
        // A trailing `/` is tried off, and a root under each server's base path.
        assert_eq!(params("/api/v2/users/me/").unwrap().0, "/api/v2/users/me");
        assert_eq!(params("/").unwrap().0, "/api/v2/");
        assert_eq!(params("/api/v2/").unwrap().0, "/api/v2/");
        assert_eq!(m.lookup(Method::Get, "/users/"), Lookup::NotFound);
        assert_eq!(
            m.lookup(Method::Put, "/users/me/"),
            Lookup::MethodNotDocumented {
                path: "/api/v2/users/me",
                methods: vec![Method::Get]
            }
        );
        assert_eq!(
            found(&m, Method::Delete, "/api/v2/users/me").unwrap().0,
            "/api/v2/users/{id}"
        );
        // Ties: the segment with the most text wins, then a whole-segment parameter.
        let (path, values) = found(&m, Method::Get, "/users/u1/files/a.b").unwrap();
        assert_eq!(path, "/api/v2/users/{userId}/files/{name}.{ext}");
        assert_eq!(values.len(), 3);
        assert_eq!(
            params("/users/u1/files/ab").unwrap(),
            ("/api/v2/users/{userId}/files/{name}".to_owned(), 2)
        );
        assert_eq!(m.lookup(Method::Post, "/instances/x"), Lookup::NotFound);
        // The operation's place in the document, the same under every server.
        let under = |path| m.find(Method::Get, path).unwrap().operation;
        assert_eq!(under("/api/v2/users/1"), under("/users/1"));
        assert_ne!(under("/users/1"), under("/users/me"));
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
