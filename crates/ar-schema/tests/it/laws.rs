//! Algebraic laws of merging, and validity of every sample, over generated JSON.

use ar_schema::{Schema, SchemaBuilder, infer};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

use crate::{assert_all_validate, build};

/// Strings that exercise every format detector, plus near misses and free text.
const STRINGS: &[&str] = &[
    "",
    "hello",
    "open",
    "closed",
    "2024-05-01",
    "2024-02-30",
    "2024-05-01T10:00:00Z",
    "2024-05-01T10:00:00",
    "10:00:00Z",
    "123e4567-e89b-12d3-a456-426614174000",
    "ada@example.com",
    "https://example.com/x?y=1",
    "http://a b",
    "10.0.0.1",
    "::1",
    "1234",
    "-17",
    "007",
];

/// Keys shared across samples (so merges overlap), id-like keys, and odd ones.
const KEYS: &[&str] = &[
    "id", "name", "data", "items", "next", "1001", "1002", "a b", "", "é",
];

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<u64>().prop_map(|n| json!(n)),
        (-1.0e6f64..1.0e6).prop_map(|f| json!(f)),
        prop::sample::select(STRINGS).prop_map(|s| json!(s)),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|kv| {
                Value::Object(
                    kv.into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

fn samples() -> impl Strategy<Value = Vec<Value>> {
    prop::collection::vec(value(), 1..8)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn merge_is_commutative(a in value(), b in value()) {
        let (a, b) = (infer(&a), infer(&b));
        prop_assert_eq!(a.merge(&b), b.merge(&a));
        prop_assert_eq!(a.merge(&b).to_json_schema(), b.merge(&a).to_json_schema());
    }

    #[test]
    fn merge_is_associative(a in value(), b in value(), c in value()) {
        let (a, b, c) = (infer(&a), infer(&b), infer(&c));
        let left = a.merge(&b).merge(&c);
        let right = a.merge(&b.merge(&c));
        prop_assert_eq!(left.to_json_schema(), right.to_json_schema());
        prop_assert_eq!(left, right);
    }

    #[test]
    fn empty_schema_is_the_identity(a in value()) {
        let a = infer(&a);
        prop_assert_eq!(a.merge(&Schema::new()), a.clone());
        prop_assert_eq!(Schema::new().merge(&a), a);
    }

    #[test]
    fn inference_is_independent_of_order(samples in samples(), seed in any::<u64>()) {
        let mut shuffled = samples.clone();
        // A deterministic shuffle driven by the generated seed.
        let mut state = seed | 1;
        for i in (1..shuffled.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            shuffled.swap(i, (state % (i as u64 + 1)) as usize);
        }
        prop_assert_eq!(build(&samples), build(&shuffled));
        let folded = samples.iter().map(infer).fold(Schema::new(), |acc, s| acc.merge(&s));
        prop_assert_eq!(folded, build(&samples));
    }

    #[test]
    fn every_sample_validates(samples in samples()) {
        assert_all_validate(&build(&samples), &samples);
    }

    #[test]
    fn bytes_path_equals_value_path(samples in samples()) {
        let mut from_bytes = SchemaBuilder::new();
        let text: String = samples.iter().map(|s| format!("{s}\n")).collect();
        prop_assert_eq!(from_bytes.add_json_stream(text.as_bytes()).ok(), Some(samples.len() as u64));
        prop_assert_eq!(from_bytes.finish(), build(&samples));
    }

    #[test]
    fn openapiv3_conversion_round_trips(samples in samples()) {
        let schema = build(&samples);
        let typed = serde_json::to_value(schema.to_openapiv3()).expect("serializable");
        prop_assert_eq!(typed, schema.to_openapi());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn saved_evidence_round_trips_and_keeps_merging(a in samples(), b in samples()) {
        let saved = serde_json::to_string(&build(&a)).expect("serializable");
        let restored: Schema = serde_json::from_str(&saved).expect("deserializable");
        prop_assert_eq!(&restored, &build(&a));
        let mut builder = SchemaBuilder::new();
        builder.add_schema(&restored);
        for v in &b {
            builder.add_value(v);
        }
        let all: Vec<Value> = a.iter().chain(&b).cloned().collect();
        prop_assert_eq!(builder.finish(), build(&all));
    }
}

/// Any text, with the characters JSON escapes and non-ASCII ones made common, at lengths on both
/// sides of the scanner's eight-byte steps.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            4 => prop::char::range('a', 'z'),
            1 => prop::sample::select(vec!['"', '\\', '\n', '\t', '\u{1}', '\u{1f}', '/', 'é', '日', '😀']),
            1 => any::<char>(),
        ],
        0..40,
    )
    .prop_map(|chars| chars.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The bytes path decodes strings and keys exactly as serde_json does (escapes, surrogate
    /// pairs, multi-byte UTF-8), whether or not a position still keeps string content.
    #[test]
    fn bytes_path_decodes_any_text_like_serde_json(
        rows in prop::collection::vec((text(), text(), text()), 1..24)
    ) {
        let samples: Vec<Value> = rows
            .into_iter()
            .map(|(key, short, long)| json!({ key: 1, "v": short, "t": long.repeat(3) }))
            .collect();
        let mut from_bytes = SchemaBuilder::new();
        let text: String = samples.iter().map(|s| format!("{s}\n")).collect();
        prop_assert_eq!(from_bytes.add_json_stream(text.as_bytes()).ok(), Some(samples.len() as u64));
        prop_assert_eq!(from_bytes.finish(), build(&samples));
    }
}
