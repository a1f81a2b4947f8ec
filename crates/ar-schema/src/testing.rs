//! Random JSON text for the property tests of the readers (the scanner, the tape): the same
//! keys and values in every test, so that each compares its reader with the others on the same
//! documents.

use proptest::prelude::*;

/// Keys as written in JSON: repeated ones (so later documents meet known properties),
/// escaped spellings of them, a name that needs an escape.
const KEYS: &[&str] = &[
    r#""id""#,
    r#""name""#,
    r#""tags""#,
    r#""created""#,
    r#""i\u0064""#,
    r#""a\"b""#,
    r#""""#,
    r#""1001""#,
];

/// String values as written in JSON: formats, escapes (a lone surrogate among them), non-ASCII.
const STRINGS: &[&str] = &[
    r#""open""#,
    r#""closed""#,
    r#""2024-05-01""#,
    r#""2024-05-01T10:00:00Z""#,
    r#""123e4567-e89b-12d3-a456-426614174000""#,
    r#""ada@example.com""#,
    r#""https://example.com/x""#,
    r#""1234""#,
    r#""caf\u00e9\n""#,
    r#""\ud800""#,
    r#""日本""#,
];

/// JSON text, duplicate keys and whitespace included.
pub(crate) fn text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        Just("null".to_string()),
        Just("true".to_string()),
        Just("false".to_string()),
        (-1000i64..1000).prop_map(|n| n.to_string()),
        Just("-2.5e3".to_string()),
        Just("123456789012345678901234567890".to_string()),
        prop::sample::select(STRINGS).prop_map(str::to_string),
        "[a-z]{0,12}".prop_map(|s| format!("\"{s}\"")),
    ];
    leaf.prop_recursive(4, 40, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(|v| format!("[{}]", v.join(","))),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..6).prop_map(|kv| {
                let members: Vec<String> = kv.iter().map(|(k, v)| format!("{k}: {v}")).collect();
                format!("{{ {} }}", members.join(","))
            }),
        ]
    })
}

/// Ways to damage a document: cut it short, replace, remove or insert one byte.
pub(crate) fn damage() -> impl Strategy<Value = (u8, prop::sample::Index, u8)> {
    const BYTES: &[u8] = b"}]\",:x\\ 1{[\xff\x01";
    (
        0..4u8,
        any::<prop::sample::Index>(),
        prop::sample::select(BYTES),
    )
}

/// `text` damaged as `damage` drew.
pub(crate) fn damaged(text: &str, (how, at, byte): &(u8, prop::sample::Index, u8)) -> Vec<u8> {
    let mut bytes = text.as_bytes().to_vec();
    let at = at.index(bytes.len() + 1);
    match how {
        0 => bytes.truncate(at),
        1 if at < bytes.len() => bytes[at] = *byte,
        2 if at < bytes.len() => {
            bytes.remove(at);
        }
        _ => bytes.insert(at, *byte),
    }
    bytes
}
