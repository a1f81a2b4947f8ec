//! The bytes path: documents, JSON Lines, readers, BOMs, escapes.

use ar_schema::SchemaBuilder;
use serde_json::{Value, json};

use crate::{build, plain};

#[test]
fn json_lines_and_concatenated_documents() {
    let mut b = SchemaBuilder::new();
    let n = b
        .add_json_stream(b"{\"a\":1}\n{\"a\":2}  {\"a\":3}\r\n\n[1]\n")
        .expect("valid");
    assert_eq!(n, 4);
    assert_eq!(b.samples(), 4);
}

#[test]
fn reader_and_bom() {
    let mut b = SchemaBuilder::new();
    let n = b
        .add_reader(&b"\xEF\xBB\xBF{\"k\": \"caf\\u00e9\"}\n"[..])
        .expect("valid");
    assert_eq!(n, 1);
    let s = b.finish();
    let v: Value = json!({"k": "café"});
    assert_eq!(s, build(&[v]));
}

#[test]
fn escaped_keys_are_the_same_keys() {
    let mut b = SchemaBuilder::new();
    b.add_json_slice(br#"{"n\u0061me": 1}"#).expect("valid");
    b.add_json_slice(br#"{"name": 2}"#).expect("valid");
    let out = plain(b.schema());
    assert_eq!(out["properties"].as_object().map(|p| p.len()), Some(1));
    assert_eq!(
        b.schema().to_json_schema()["properties"]["name"]["x-ar-samples"],
        2
    );
}

#[test]
fn duplicate_keys_count_once() {
    let mut b = SchemaBuilder::new();
    b.add_json_slice(br#"{"a": 1, "a": "x"}"#).expect("valid");
    b.add_json_slice(br#"{"b": 1}"#).expect("valid");
    let out = b.schema().to_json_schema();
    assert_eq!(
        out["properties"]["a"]["x-ar-samples"], 2,
        "both values are evidence"
    );
    assert!(out.get("required").is_none(), "a was in one object of two");
}
