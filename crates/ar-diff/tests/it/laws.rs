//! Laws over generated documents: a document has no change against itself, and what one
//! direction adds the other removes.

use std::collections::BTreeSet;

use ar_diff::{Method, OperationStatus, Report};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::doc;

const PATHS: &[&str] = &["/a", "/a/{id}", "/b", "/b/{bId}/c", "/files/{name}.json"];
const METHODS: &[&str] = &["get", "post", "delete", "patch"];
const NAMES: &[&str] = &["id", "name", "tags", "owner", "kind", "total"];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "integer"})),
        Just(json!({"type": "number", "nullable": true})),
        Just(json!({"type": ["boolean", "null"]})),
        Just(json!({"type": "string", "enum": ["a", "b"]})),
        Just(json!({"type": "string", "format": "date-time"})),
        Just(json!({"$ref": "#/components/schemas/Shared"})),
    ]
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                prop::collection::btree_map(prop::sample::select(NAMES), inner.clone(), 0..4),
                prop::collection::btree_set(prop::sample::select(NAMES), 0..3),
            )
                .prop_map(|(properties, required)| {
                    let properties: Map<String, Value> = properties
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect();
                    let required: Vec<&str> = required
                        .into_iter()
                        .filter(|name| properties.contains_key(*name))
                        .collect();
                    json!({"type": "object", "properties": properties, "required": required})
                }),
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            prop::collection::vec(inner, 2..4).prop_map(|branches| json!({"oneOf": branches})),
        ]
    })
}

fn parameter() -> impl Strategy<Value = Value> {
    (
        prop::sample::select(&["limit", "q", "X-Trace"][..]),
        any::<bool>(),
        leaf(),
    )
        .prop_map(|(name, required, schema)| {
            let location = if name.starts_with('X') {
                "header"
            } else {
                "query"
            };
            json!({"name": name, "in": location, "required": required, "schema": schema})
        })
}

fn operation() -> impl Strategy<Value = Value> {
    (
        prop::collection::vec(parameter(), 0..3),
        prop::option::of(schema()),
        prop::collection::btree_map(prop::sample::select(&["200", "201", "404"][..]), schema(), 1..3),
        any::<bool>(),
        prop::option::of(prop::sample::select(&["key", "oauth"][..])),
    )
        .prop_map(|(parameters, body, responses, deprecated, security)| {
            let mut operation = json!({"parameters": parameters, "deprecated": deprecated});
            if let Some(schema) = body {
                operation["requestBody"] = json!({"content": {"application/json": {"schema": schema}}});
            }
            let responses: Map<String, Value> = responses
                .into_iter()
                .map(|(status, schema)| {
                    (status.to_owned(), json!({"description": "", "content": {"application/json": {"schema": schema}}}))
                })
                .collect();
            operation["responses"] = Value::Object(responses);
            if let Some(scheme) = security {
                operation["security"] = json!([{scheme: []}]);
            }
            operation
        })
}

fn document() -> impl Strategy<Value = Value> {
    (
        prop::collection::btree_map((0..PATHS.len(), 0..METHODS.len()), operation(), 0..7),
        leaf(),
        prop::sample::select(&["https://x.test", "https://x.test/api", "/v2"][..]),
    )
        .prop_map(|(operations, shared, server)| {
            let shared = if shared.get("$ref").is_some() {
                json!({"type": "object"})
            } else {
                shared
            };
            let mut paths = Map::new();
            for ((path, method), operation) in operations {
                let item = paths.entry(PATHS[path]).or_insert_with(|| json!({}));
                item[METHODS[method]] = operation;
            }
            json!({
                "openapi": "3.0.3",
                "servers": [{"url": server}],
                "paths": paths,
                "components": {"schemas": {"Shared": shared}}
            })
        })
}

fn with_status(report: &Report, status: OperationStatus) -> BTreeSet<(Method, String)> {
    report
        .operations()
        .iter()
        .filter(|o| o.status == status)
        .map(|o| (o.method, o.path.clone()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_document_against_itself_has_no_change(a in document()) {
        let a = doc(a);
        let report = ar_diff::diff(&a, &a);
        prop_assert!(report.is_empty(), "{}", report.render(ar_diff::Format::Text));
    }

    #[test]
    fn what_one_direction_adds_the_other_removes(a in document(), b in document()) {
        let (a, b) = (doc(a), doc(b));
        let forwards = ar_diff::diff(&a, &b);
        let backwards = ar_diff::diff(&b, &a);
        prop_assert_eq!(
            with_status(&forwards, OperationStatus::Added),
            with_status(&backwards, OperationStatus::Removed)
        );
        prop_assert_eq!(
            with_status(&forwards, OperationStatus::Removed),
            with_status(&backwards, OperationStatus::Added)
        );
        let changed = |r: &Report| r.operations().iter().filter(|o| o.status == OperationStatus::Changed).count();
        prop_assert_eq!(changed(&forwards), changed(&backwards));
    }

    #[test]
    fn reports_are_deterministic(a in document(), b in document()) {
        let (a, b) = (doc(a), doc(b));
        prop_assert_eq!(ar_diff::diff(&a, &b).to_json(), ar_diff::diff(&a, &b).to_json());
    }
}
