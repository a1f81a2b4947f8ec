//! Hostile input: deep nesting, huge arrays, huge keys, too many keys, bad bytes.

use ar_schema::limits::{MAX_DEPTH, MAX_KEY_BYTES, MAX_PROPERTIES, MAX_RENDER_DEPTH};
use ar_schema::{Error, SchemaBuilder};
use serde_json::json;

use crate::plain;

#[test]
fn nesting_100_000_deep_is_capped_and_reported() {
    let depth = 100_000;
    let text = format!("{}{}", "{\"a\":[".repeat(depth), "]}".repeat(depth));
    let mut b = SchemaBuilder::new();
    b.add_json_slice(text.as_bytes()).expect("valid JSON");
    let schema = b.finish();
    assert_eq!(schema.limits().depth_truncated, 1);
    // The rendered schema stops at the (lower) render cap and says so, so the
    // document reads back with serde_json's default recursion limit.
    let text = serde_json::to_string(&schema.to_openapi()).unwrap();
    serde_json::from_str::<serde_json::Value>(&text).expect("the schema reads back");
    let mut node = plain(&schema);
    let mut levels = 0;
    loop {
        let next = node
            .get("properties")
            .map(|p| p["a"].clone())
            .or_else(|| node.get("items").cloned());
        match next {
            Some(n) => {
                node = n;
                levels += 1;
            }
            None => break,
        }
    }
    const { assert!(MAX_RENDER_DEPTH < MAX_DEPTH) };
    assert_eq!(levels, MAX_RENDER_DEPTH);
    assert_eq!(node["x-ar-truncated"], "depth");
}

#[test]
fn deep_invalid_json_is_still_an_error() {
    let text = format!("{}{}", "[".repeat(200_000), "]".repeat(199_999));
    let err = SchemaBuilder::new()
        .add_json_slice(text.as_bytes())
        .expect_err("unbalanced");
    assert!(matches!(err, Error::Syntax { line: 1, .. }), "{err}");
}

#[test]
fn ten_million_element_array_streams_into_one_item_schema() {
    let mut text = String::with_capacity(20_000_010);
    text.push('[');
    for i in 0..10_000_000u32 {
        if i > 0 {
            text.push(',');
        }
        text.push(if i % 2 == 0 { '1' } else { '0' });
    }
    text.push(']');
    let mut b = SchemaBuilder::new();
    b.add_json_slice(text.as_bytes()).expect("valid JSON");
    let schema = b.finish();
    assert_eq!(schema.to_json_schema()["items"]["x-ar-samples"], 10_000_000);
    assert!(schema.limits().is_clean());
}

#[test]
fn megabyte_keys_are_not_stored_and_are_reported() {
    let key = "k".repeat(1 << 20);
    let text = format!("{{\"{key}\": 1, \"ok\": true}}");
    let mut b = SchemaBuilder::new();
    b.add_json_slice(text.as_bytes()).expect("valid JSON");
    let schema = b.finish();
    let out = plain(&schema);
    assert_eq!(out["x-ar-long-keys"], 1);
    assert_eq!(out["additionalProperties"], json!({"type": "integer"}));
    assert_eq!(out["properties"], json!({"ok": {"type": "boolean"}}));
    assert_eq!(schema.limits().long_keys, 1);
    assert!(schema.to_json_schema().to_string().len() < 1000);
    assert!(MAX_KEY_BYTES < key.len());
}

#[test]
fn too_many_distinct_keys_collapse_into_a_map() {
    let obj: serde_json::Map<String, serde_json::Value> = (0..MAX_PROPERTIES * 3)
        .map(|i| (format!("key_{i}"), json!({"n": i})))
        .collect();
    let schema = ar_schema::infer(&json!(obj));
    let out = plain(&schema);
    assert!(out.get("properties").is_none());
    assert_eq!(
        out["additionalProperties"]["properties"]["n"]["type"],
        "integer"
    );
    assert_eq!(schema.limits().collapsed_objects, 1);
}

#[test]
fn invalid_bytes_are_errors_with_positions() {
    let cases: &[(&[u8], usize, usize)] = &[
        (b"{\"a\": 1,\n \"b\": }", 2, 7),
        (b"[1, 2", 1, 6),
        (b"\"\xff\"", 1, 2),
        (b"{} x", 1, 4),
        (b"", 1, 1),
    ];
    for (text, line, column) in cases {
        let err = SchemaBuilder::new()
            .add_json_slice(text)
            .expect_err("invalid");
        match err {
            Error::Syntax {
                line: l, column: c, ..
            } => {
                assert_eq!(
                    (l, c),
                    (*line, *column),
                    "{}: {err}",
                    String::from_utf8_lossy(text)
                )
            }
            other => panic!("{other}"),
        }
    }
}

#[test]
fn a_failing_document_adds_nothing() {
    let mut b = SchemaBuilder::new();
    let err = b
        .add_json_stream(b"{\"a\": 1}\n{\"a\": \"x\", \"b\": [1, }\n")
        .expect_err("line 2 is bad");
    assert_eq!(err.line(), Some(2));
    assert_eq!(b.samples(), 1);
    assert_eq!(
        plain(b.schema())["properties"],
        json!({"a": {"type": "integer"}})
    );
}

#[test]
fn trailing_garbage_adds_nothing_either() {
    let mut b = SchemaBuilder::new();
    b.add_json_slice(b"{\"a\": 1}").expect("valid");
    let before = b.schema().clone();
    assert!(b.add_json_slice(b"{\"a\": \"x\"} trailing").is_err());
    assert_eq!(b.schema(), &before);
    let mut empty = SchemaBuilder::new();
    assert!(empty.add_json_slice(b"[1] 2").is_err());
    assert!(empty.schema().is_empty());
}

#[test]
fn a_failing_document_late_in_a_stream_keeps_exactly_the_ones_before() {
    // Into an empty and into a non-empty schema; the bad document first, in the middle, last.
    let good = [
        &b"{\"a\": 1, \"s\": \"2024-01-01\"}"[..],
        b"{\"a\": \"x\", \"b\": [1, 2.5]}",
        b"[{\"c\": null}]",
    ];
    for prior in [&b""[..], b"{\"a\": true, \"z\": {}}"] {
        for bad_at in 0..=good.len() {
            let mut stream = Vec::new();
            let mut expected = SchemaBuilder::new();
            if !prior.is_empty() {
                expected.add_json_slice(prior).expect("valid");
            }
            let mut b = expected.clone();
            for doc in &good[..bad_at] {
                stream.extend_from_slice(doc);
                stream.push(b'\n');
                expected.add_json_slice(doc).expect("valid");
            }
            stream.extend_from_slice(b"{\"a\": [1, {\"b\": tru}]}\n");
            for doc in &good[bad_at..] {
                stream.extend_from_slice(doc);
                stream.push(b'\n');
            }
            let err = b.add_json_stream(&stream).expect_err("one bad document");
            assert_eq!(err.line(), Some(bad_at + 1));
            assert_eq!(
                b.schema(),
                expected.schema(),
                "prior {prior:?}, bad at {bad_at}"
            );
            // Counts and scratch state are whole again: later samples add normally.
            b.add_json_slice(good[0]).expect("valid");
            expected.add_json_slice(good[0]).expect("valid");
            assert_eq!(b.finish(), expected.finish());
        }
    }
}
