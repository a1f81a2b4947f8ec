//! The OpenAPI 3.0 flavor and its `openapiv3` form.

use openapiv3::{ReferenceOr, SchemaKind, Type};
use serde_json::json;

use crate::{build, plain_openapi};

#[test]
fn no_type_arrays_and_no_null_type() {
    let samples = [
        json!({"a": null, "b": 1, "c": [1, "x"]}),
        json!({"a": null, "b": "s", "c": [null]}),
    ];
    let s = build(&samples);
    let out = plain_openapi(&s);
    insta::assert_json_snapshot!("openapi_unions", out);
    let text = out.to_string();
    assert!(!text.contains("\"null\""), "{text}");
    assert!(!text.contains("\"type\":["), "{text}");
    assert_eq!(out["properties"]["a"], json!({"nullable": true}));
}

#[test]
fn an_array_seen_only_empty_has_items_of_any_value() {
    // OpenAPI 3.0 requires `items` on every array; JSON Schema does not.
    let s = build(&[json!({"tags": []}), json!({"tags": []})]);
    assert_eq!(
        plain_openapi(&s)["properties"]["tags"],
        json!({"type": "array", "items": {}})
    );
    assert_eq!(
        crate::plain(&s)["properties"]["tags"],
        json!({"type": "array"})
    );
}

#[test]
fn converts_to_openapiv3_types() {
    // Five samples: enough for keys present in all of them to be required.
    let s = build(&vec![
        json!({"id": 1, "tags": ["a"], "when": "2024-01-01", "owner": {"name": null}});
        5
    ]);
    let typed = s.to_openapiv3();
    let SchemaKind::Type(Type::Object(obj)) = &typed.schema_kind else {
        panic!("an object schema: {typed:?}");
    };
    assert_eq!(obj.required, vec!["id", "owner", "tags", "when"]);
    let Some(ReferenceOr::Item(when)) = obj.properties.get("when") else {
        panic!("when")
    };
    assert!(matches!(
        &when.schema_kind,
        SchemaKind::Type(Type::String(_))
    ));
    assert_eq!(
        typed.schema_data.extensions.get("x-ar-samples"),
        Some(&json!(5))
    );
    assert_eq!(
        serde_json::to_value(&typed).expect("serialize"),
        s.to_openapi()
    );
}

#[test]
fn fingerprint_spots_the_same_shape_in_different_places() {
    let user = |n: u64| json!({"id": n, "name": format!("u{n}")});
    let a = build(&[json!({"owner": user(1)})]);
    let b = build(&[json!({"items": [user(2), user(3)]})]);
    let fa = ar_schema::fingerprint(&a.to_openapi()["properties"]["owner"]);
    let fb = ar_schema::fingerprint(&b.to_openapi()["properties"]["items"]["items"]);
    assert_eq!(fa, fb);
    assert_ne!(a.fingerprint(), b.fingerprint());
    assert_eq!(build(&[user(1)]).fingerprint(), fa);
}
