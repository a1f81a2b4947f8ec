//! `shape`: the outline agents read instead of a body.

use ar_schema::{ShapeOptions, shape};
use serde_json::json;

fn body() -> serde_json::Value {
    json!({
        "data": {
            "items": [
                {"id": 1, "name": "a", "created": "2024-05-01T10:00:00Z", "tags": [], "owner": {"login": "x"}},
                {"id": 2, "name": "b", "created": "2024-05-02T10:00:00Z", "tags": ["t"], "meta": null}
            ],
            "by_id": {"1": {"ok": true}, "2": {"ok": false}}
        },
        "next": "https://api.example.com/items?page=2",
        "weird key": 1
    })
}

#[test]
fn outline_golden() {
    insta::assert_snapshot!("shape_default", shape(&body(), &ShapeOptions::default()));
}

#[test]
fn depth_cap_marks_hidden_levels() {
    let out = shape(&body(), &ShapeOptions::default().max_depth(2));
    insta::assert_snapshot!("shape_depth_2", out);
    assert!(
        out.lines()
            .all(|l| l.matches('.').count() + l.matches('[').count() <= 3),
        "{out}"
    );
}

#[test]
fn byte_budget_is_respected() {
    let out = shape(&body(), &ShapeOptions::default().max_bytes(80));
    let (kept, last) = out.trim_end().rsplit_once('\n').expect("several lines");
    assert!(kept.len() < 80, "{out}");
    assert!(
        last.starts_with("… ") && last.ends_with(" more paths"),
        "{out}"
    );
}
