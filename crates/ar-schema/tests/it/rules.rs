//! One test per inference rule, each with a golden of the JSON Schema it writes, and each
//! checking that every sample validates against the result.

use serde_json::{Value, json};

use crate::{assert_all_validate, build, plain, plain_openapi};

fn golden(name: &str, samples: &[Value]) -> ar_schema::Schema {
    let schema = build(samples);
    assert_all_validate(&schema, samples);
    insta::assert_json_snapshot!(name, plain(&schema));
    schema
}

#[test]
fn required_means_present_in_every_object_of_enough() {
    // Fourteen objects; `name` is left out of three: an optional key as
    // common as it (11 in 14) would be in all fourteen by chance 3% of the
    // time, so `id`, in every one, is required.
    let objects: Vec<Value> = (1..=14)
        .map(|id| match id % 4 {
            0 => json!({"id": id}),
            _ => json!({"id": id, "name": format!("n{id}")}),
        })
        .collect();
    let s = golden("required", &objects);
    assert_eq!(plain(&s)["required"], json!(["id"]));
    // The first five objects, `name` left out once: a key present four
    // times in five is in all five a third of the time, so `id` may be
    // such a key too, and nothing is required yet.
    let five = build(&objects[..5]);
    assert_eq!(plain(&five).get("required"), None);
    // An API that writes every key every time shows it in five objects...
    let whole: Vec<Value> = (1..=5)
        .map(|id| json!({"id": id, "name": format!("n{id}")}))
        .collect();
    assert_eq!(plain(&build(&whole))["required"], json!(["id", "name"]));
    // ...but four objects with every key are too few to tell a required key
    // from an optional one that happened to be there.
    assert_eq!(plain(&build(&whole[..4])).get("required"), None);
}

#[test]
fn integer_widens_to_number() {
    let s = golden(
        "widening",
        &[json!({"n": 1}), json!({"n": 2.5}), json!({"n": 3})],
    );
    assert_eq!(plain(&s)["properties"]["n"]["type"], "number");
    assert_eq!(
        plain(&build(&[json!(1.0)]))["type"],
        "number",
        "1.0 is written as a fraction"
    );
}

#[test]
fn null_in_one_sample_makes_the_field_nullable_not_a_branch() {
    let samples = [
        json!({"deleted_at": null}),
        json!({"deleted_at": "2024-05-01T10:00:00Z"}),
    ];
    let s = golden("nullable", &samples);
    assert_eq!(
        plain(&s)["properties"]["deleted_at"],
        json!({"type": ["string", "null"], "format": "date-time"})
    );
    assert_eq!(
        plain_openapi(&s)["properties"]["deleted_at"],
        json!({"type": "string", "format": "date-time", "nullable": true})
    );
}

#[test]
fn union_members_of_one_type_merge_inside_the_union() {
    let samples = [
        json!({"v": {"a": 1}}),
        json!({"v": "text"}),
        json!({"v": {"b": true}}),
        json!({"v": null}),
        json!({"v": 7}),
    ];
    let s = golden("union", &samples);
    let any_of = plain(&s)["properties"]["v"]["anyOf"]
        .as_array()
        .cloned()
        .expect("anyOf");
    assert_eq!(
        any_of.len(),
        4,
        "object, string, integer, null: one member each"
    );
    assert_eq!(
        any_of[0]["properties"],
        json!({"a": {"type": "integer"}, "b": {"type": "boolean"}})
    );
}

#[test]
fn array_items_merge_across_elements_and_samples() {
    let samples = [
        json!([{"id": 1}, {"id": 2, "x": "y"}, {"id": 4}]),
        json!([{"id": 3}, {"id": 5}]),
        json!([]),
    ];
    let s = golden("array_items", &samples);
    assert_eq!(plain(&s)["items"]["required"], json!(["id"]));
    assert_eq!(
        plain(&s)["items"]["properties"]["x"],
        json!({"type": "string"})
    );
}

#[test]
fn empty_arrays_say_nothing_about_items() {
    let s = golden("empty_arrays", &[json!({"tags": []}), json!({"tags": []})]);
    assert_eq!(plain(&s)["properties"]["tags"], json!({"type": "array"}));
    let s = s.merge(&build(&[json!({"tags": ["a"]})]));
    assert_eq!(
        plain(&s)["properties"]["tags"]["items"],
        json!({"type": "string"})
    );
}

#[test]
fn each_string_format_is_detected() {
    let sample = json!({
        "created": "2024-02-29T23:59:59.5+01:00",
        "day": "2024-02-29",
        "at": "08:30:00Z",
        "id": "123e4567-e89b-12d3-a456-426614174000",
        "email": "ada@example.com",
        "url": "https://example.com/a/b?c=d#e",
        "v4": "10.0.0.1",
        "v6": "fe80::1",
        "numeric_id": "12345678901234567890",
        "text": "hello world"
    });
    golden("formats", &[sample]);
}

#[test]
fn digits_in_strings_need_several_strings_before_a_pattern() {
    // A few short strings are digits by chance (`"42"` as a label) as
    // often as by type: a pattern from them would reject the next label.
    let few: Vec<Value> = ["7", "42", "1234", "99"]
        .iter()
        .map(|n| json!({"ref": n}))
        .collect();
    assert_eq!(
        plain(&build(&few))["properties"]["ref"],
        json!({"type": "string"})
    );
    let mut many = few.clone();
    many.push(json!({"ref": "5150"}));
    assert_eq!(
        plain(&build(&many))["properties"]["ref"]["pattern"],
        "^-?[0-9]+$"
    );
}

#[test]
fn a_format_is_dropped_when_one_sample_disagrees() {
    let mut samples: Vec<Value> = (1..=99)
        .map(|d| json!({"when": format!("2024-01-{:02}", d % 28 + 1)}))
        .collect();
    samples.push(json!({"when": "next tuesday"}));
    let s = build(&samples);
    assert_all_validate(&s, &samples);
    assert_eq!(plain(&s)["properties"]["when"], json!({"type": "string"}));
    let s99 = build(&samples[..99]);
    assert_eq!(plain(&s99)["properties"]["when"]["format"], "date");
}

#[test]
fn enums_need_enough_evidence() {
    let few = [json!({"status": "open"}), json!({"status": "closed"})];
    assert_eq!(
        plain(&build(&few))["properties"]["status"],
        json!({"type": "string"})
    );
    let many: Vec<Value> = (0..30)
        .map(|i| json!({"status": (["open", "closed", "merged"][i % 3])}))
        .collect();
    let s = golden("enum", &many);
    assert_eq!(
        plain(&s)["properties"]["status"]["enum"],
        json!(["closed", "merged", "open"])
    );
    let open_set: Vec<Value> = (0..30)
        .map(|i| json!({"status": format!("s{i}")}))
        .collect();
    assert!(
        plain(&build(&open_set))["properties"]["status"]
            .get("enum")
            .is_none()
    );
}

#[test]
fn a_value_seen_only_once_or_twice_says_the_set_is_not_closed() {
    // 40 samples, four values common and one rare: a product's category
    // where one category shows up once. The average is ample, but a value
    // this rare says others as rare were missed, and an enum of what was
    // seen would make a typed client reject the first one.
    let categories = ["kitchen", "home", "audio", "stationery"];
    let mut rare: Vec<Value> = (0..39)
        .map(|i| json!({"category": categories[i % 4]}))
        .collect();
    rare.push(json!({"category": "bags"}));
    assert_eq!(
        plain(&build(&rare))["properties"]["category"],
        json!({"type": "string"})
    );
    // Once the rarest value has been seen four times, the set is taken as
    // closed.
    rare.extend((0..3).map(|_| json!({"category": "bags"})));
    assert_eq!(
        plain(&build(&rare))["properties"]["category"]["enum"],
        json!(["audio", "bags", "home", "kitchen", "stationery"])
    );
}

#[test]
fn values_that_differ_only_in_case_or_punctuation_are_no_enum() {
    // Typed clients name members by folding case and punctuation: `Ut` and
    // `ut` would be one name (openapi-python-client and progenitor stop).
    let clash: Vec<Value> = (0..30)
        .map(|i| json!({"word": (["Ut", "ut", "sed"][i % 3])}))
        .collect();
    assert_eq!(
        plain_openapi(&build(&clash))["properties"]["word"],
        json!({"type": "string"})
    );
    let dashes: Vec<Value> = (0..30)
        .map(|i| json!({"stock": (["in-stock", "in_stock", "out"][i % 3])}))
        .collect();
    assert!(
        plain(&build(&dashes))["properties"]["stock"]
            .get("enum")
            .is_none()
    );
}

#[test]
fn nullable_enum_includes_null() {
    let mut samples: Vec<Value> = (0..20).map(|i| json!(["a", "b"][i % 2])).collect();
    samples.push(Value::Null);
    let s = build(&samples);
    assert_all_validate(&s, &samples);
    assert_eq!(plain(&s)["enum"], json!(["a", "b", null]));
    assert_eq!(plain_openapi(&s)["enum"], json!(["a", "b", null]));
}

#[test]
fn id_keyed_objects_become_maps() {
    let samples = [
        json!({"users": {"1001": {"name": "ada", "age": 36}, "1002": {"name": "grace"}}}),
        json!({"users": {"123e4567-e89b-12d3-a456-426614174000": {"name": "alan", "age": 41}}}),
    ];
    let s = golden("id_map", &samples);
    assert!(plain(&s)["properties"]["users"].get("properties").is_none());
}

#[test]
fn many_keys_with_one_value_shape_become_a_map() {
    let rates: serde_json::Map<String, Value> = (0..40)
        .map(|i| (format!("C{:02}X", i), json!(1.0 + f64::from(i) / 7.0)))
        .collect();
    let s = golden("rates_map", &[json!({"base": "EUR", "rates": rates})]);
    assert_eq!(
        plain(&s)["properties"]["rates"]["additionalProperties"],
        json!({"type": "number"})
    );
}

#[test]
fn objects_stay_open() {
    let s = build(&[json!({"a": 1})]);
    let text = s.to_json_schema().to_string();
    assert!(!text.contains("\"additionalProperties\":false"));
    assert_all_validate(&s, &[json!({"a": 2, "b": "new"})]);
}

#[test]
fn integers_beyond_64_bits_stay_integers() {
    let mut b = ar_schema::SchemaBuilder::new();
    b.add_json_slice(b"[123456789012345678901234567890, -98765432109876543210987654321]")
        .expect("valid JSON");
    assert_eq!(plain(&b.finish())["items"]["type"], "integer");
    let parsed: Value = serde_json::from_str("123456789012345678901234567890").expect("valid JSON");
    assert_eq!(plain(&build(&[parsed]))["type"], "integer");
}

#[test]
fn sample_counts_are_evidence_per_field() {
    let samples = [
        json!({"a": 1, "b": null}),
        json!({"a": 2}),
        json!({"a": "x"}),
    ];
    let s = build(&samples);
    insta::assert_json_snapshot!("counts", s.to_json_schema());
    let out = s.to_json_schema();
    assert_eq!(out["x-ar-samples"], 3);
    assert_eq!(out["properties"]["a"]["x-ar-samples"], 3);
    assert_eq!(out["properties"]["b"]["x-ar-samples"], 1);
}

#[test]
fn realistic_api_response_golden() {
    let page = |n: u64, next: Value| {
        json!({
            "data": (0..3).map(|i| json!({
                "id": n * 10 + i,
                "uuid": format!("123e4567-e89b-12d3-a456-4266141740{:02}", n * 10 + i),
                "name": format!("user {n}-{i}"),
                "email": format!("u{i}@example.com"),
                "created_at": "2024-05-01T10:00:00Z",
                "role": (["admin", "member", "member"][i as usize]),
                "avatar": if i == 1 { Value::Null } else { json!("https://cdn.example.com/a.png") },
                "tags": if i == 0 { json!([]) } else { json!(["x", "y"]) },
                "score": if i == 2 { json!(4.5) } else { json!(4) }
            })).collect::<Vec<_>>(),
            "meta": {"page": n, "per_page": 3, "total": 42},
            "next": next
        })
    };
    let samples: Vec<Value> = (1..=5)
        .map(|n| {
            page(
                n,
                if n == 5 {
                    Value::Null
                } else {
                    json!(format!("https://api.example.com/users?page={}", n + 1))
                },
            )
        })
        .collect();
    let s = build(&samples);
    assert_all_validate(&s, &samples);
    insta::assert_json_snapshot!("api_json_schema", s.to_json_schema());
    insta::assert_json_snapshot!("api_openapi", s.to_openapi());
}
