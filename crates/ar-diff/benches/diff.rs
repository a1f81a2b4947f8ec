//! Two synthetic 5,000-operation documents compared, and requests matched against one.
//!
//! `cargo bench -p ar-diff --bench diff`
//!
//! Each document has 1,000 paths with 5 operations each: two query parameters and a path
//! parameter, a JSON request body on writes, a 200 answer with an inline object of a dozen
//! properties (one of them a shared component, one an array of another), and a 404 answer
//! referencing a shared error. 200 shared components, each with nested properties and a
//! reference to a parent component. Two new documents: a release (1% of the operations
//! removed, 1% added, 2% of the components and 1% of the operations' own schemas and
//! parameters changed) and an overhaul (every operation changed). Both move every path from
//! the server URL into the paths (`/api/v1`) and rename the path parameter, which the
//! comparison must see through.

use std::sync::OnceLock;

use ar_diff::{Document, Method, OperationMatcher};
use divan::Bencher;
use serde_json::{Map, Value, json};

fn main() {
    divan::main();
}

const PATHS: usize = 1_000;
const COMPONENTS: usize = 200;
const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

fn component(i: usize, changed: bool) -> Value {
    let mut properties = Map::new();
    for p in 0..8 {
        let kind = if changed && p == 3 {
            "string"
        } else {
            ["integer", "string", "boolean"][p % 3]
        };
        properties.insert(format!("field{p}"), json!({"type": kind}));
    }
    properties.insert(
        "nested".into(),
        json!({"type": "object", "properties": {"a": {"type": "string", "enum": ["x", "y", "z"]}, "b": {"type": "number", "nullable": true}}}),
    );
    if i > 0 {
        properties.insert(
            "parent".into(),
            json!({"$ref": format!("#/components/schemas/C{}", i / 2)}),
        );
    }
    if changed {
        properties.remove("field5");
        properties.insert("added".into(), json!({"type": "string"}));
    }
    json!({"type": "object", "required": ["field0", "field1"], "properties": properties})
}

/// Which side, and how much the new side changed.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Old,
    /// 2% of the components (each met by the operations below it) and 1% of the
    /// operations' own schemas and parameters changed.
    Release,
    /// 10% of the components changed, the root one among them, which every component
    /// nests: every operation changes, 55,000 changes in all.
    Overhaul,
}

impl Side {
    fn is_new(self) -> bool {
        self != Side::Old
    }

    fn component_changed(self, i: usize) -> bool {
        match self {
            Side::Old => false,
            Side::Release => i % 50 == 7,
            Side::Overhaul => i.is_multiple_of(10),
        }
    }

    fn operation_changed(self, n: usize) -> bool {
        match self {
            Side::Old => false,
            Side::Release => n % 100 == 5,
            Side::Overhaul => n.is_multiple_of(10),
        }
    }
}

fn operation(path: usize, method: usize, side: Side) -> Value {
    let n = path * METHODS.len() + method;
    let changed = side.operation_changed(n);
    let mut properties = Map::new();
    for p in 0..10 {
        let kind = ["string", "integer"][p % 2];
        properties.insert(
            format!("p{p}"),
            json!({"type": kind, "description": "a field"}),
        );
    }
    properties.insert(
        "item".into(),
        json!({"$ref": format!("#/components/schemas/C{}", n % COMPONENTS)}),
    );
    properties.insert(
        "list".into(),
        json!({"type": "array", "items": {"$ref": format!("#/components/schemas/C{}", (n * 7) % COMPONENTS)}}),
    );
    if changed {
        properties.remove("p4");
    }
    let mut op = json!({
        "operationId": format!("op{n}"),
        "parameters": [
            {"name": "limit", "in": "query", "required": changed, "schema": {"type": "integer"}},
            {"name": "cursor", "in": "query", "schema": {"type": "string"}},
        ],
        "responses": {
            "200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object", "required": ["p0", "item"], "properties": properties}}}},
            "404": {"description": "missing", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
        }
    });
    if METHODS[method] != "get" && METHODS[method] != "delete" {
        op["requestBody"] = json!({"required": true, "content": {"application/json": {"schema":
            {"$ref": format!("#/components/schemas/C{}", (n * 3) % COMPONENTS)}}}});
    }
    op
}

fn document(side: Side) -> Value {
    let new = side.is_new();
    let mut paths = Map::new();
    for path in 0..PATHS {
        let mut item = Map::new();
        item.insert("parameters".into(), json!([{"name": if new { "id" } else { "itemId" }, "in": "path", "required": true, "schema": {"type": "string"}}]));
        for (method, name) in METHODS.iter().enumerate() {
            let n = path * METHODS.len() + method;
            if n % 100 == (if new { 1 } else { 2 }) {
                continue; // 1% of the operations only on one side
            }
            item.insert((*name).to_owned(), operation(path, method, side));
        }
        let template = format!(
            "/resource{}/{{{}}}/items",
            path,
            if new { "id" } else { "itemId" }
        );
        let key = if new {
            format!("/api/v1{template}")
        } else {
            template
        };
        paths.insert(key, Value::Object(item));
    }
    let mut schemas = Map::new();
    for i in 0..COMPONENTS {
        schemas.insert(format!("C{i}"), component(i, side.component_changed(i)));
    }
    schemas.insert(
        "Error".into(),
        json!({"type": "object", "properties": {"message": {"type": "string"}}}),
    );
    json!({
        "openapi": "3.0.3",
        "info": {"title": "synthetic", "version": "1"},
        "servers": [{"url": if new { "https://api.test" } else { "https://api.test/api/v1" }}],
        "paths": paths,
        "components": {"schemas": schemas}
    })
}

/// The old document, the release and the overhaul.
fn documents() -> &'static (Document, Document, Document) {
    static DOCUMENTS: OnceLock<(Document, Document, Document)> = OnceLock::new();
    DOCUMENTS.get_or_init(|| {
        let [old, release, overhaul] = [Side::Old, Side::Release, Side::Overhaul]
            .map(|side| Document::from_value(document(side)).expect("valid"));
        for document in [&old, &release, &overhaul] {
            assert_eq!(document.operations().len(), 4_950);
        }
        (old, release, overhaul)
    })
}

/// Two 5,000-operation documents that differ as a release does.
#[divan::bench(sample_count = 20)]
fn diff_5000_operations(bencher: Bencher) {
    let (old, new, _) = documents();
    let report = ar_diff::diff(old, new);
    assert!(report.has_breaking());
    assert_eq!(report.summary().operations_added, 50);
    eprintln!("release: {:?}", report.summary());
    bencher.bench(|| ar_diff::diff(divan::black_box(old), divan::black_box(new)));
}

/// Two 5,000-operation documents where every operation changed.
#[divan::bench(sample_count = 20)]
fn diff_5000_operations_all_changed(bencher: Bencher) {
    let (old, _, new) = documents();
    let report = ar_diff::diff(old, new);
    assert_eq!(report.summary().operations_changed, 4_900);
    eprintln!("overhaul: {:?}", report.summary());
    bencher.bench(|| ar_diff::diff(divan::black_box(old), divan::black_box(new)));
}

/// A 5,000-operation document against itself: every schema walked, nothing found.
#[divan::bench(sample_count = 20)]
fn diff_5000_identical(bencher: Bencher) {
    let (old, _, _) = documents();
    assert!(ar_diff::diff(old, old).is_empty());
    bencher.bench(|| ar_diff::diff(divan::black_box(old), divan::black_box(old)));
}

/// Rendering the release's report in the three formats.
#[divan::bench(sample_count = 20)]
fn render_all_formats(bencher: Bencher) {
    let (old, new, _) = documents();
    let report = ar_diff::diff(old, new);
    bencher.bench(|| {
        [
            ar_diff::Format::Text,
            ar_diff::Format::Markdown,
            ar_diff::Format::Json,
        ]
        .map(|format| divan::black_box(&report).render(format).len())
    });
}

/// Building the request matcher of a 5,000-operation document.
#[divan::bench(sample_count = 20)]
fn matcher_build(bencher: Bencher) {
    let (_, new, _) = documents();
    bencher.bench(|| OperationMatcher::new(divan::black_box(new)));
}

/// One request matched against 5,000 operations.
#[divan::bench]
fn match_one_request(bencher: Bencher) {
    let (_, new, _) = documents();
    let matcher = OperationMatcher::new(new);
    assert!(
        matcher
            .find(Method::Patch, "/api/v1/resource777/abc/items")
            .is_some()
    );
    bencher.bench(|| {
        matcher
            .find(
                Method::Patch,
                divan::black_box("/api/v1/resource777/abc/items?x=1"),
            )
            .is_some()
    });
}
