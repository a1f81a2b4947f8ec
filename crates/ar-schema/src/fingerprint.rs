//! A stable structural fingerprint of a rendered schema, to spot repeated shapes.
//!
//! Two schemas that accept the same shapes (same types, properties, required keys, items,
//! formats, enums) get the same fingerprint, whatever their sample counts, descriptions or
//! examples. The hash is FNV-1a over a canonical walk with object keys sorted, so it is the same
//! on every platform and every run, and can name a component (`User_3f2a…`) or key a cache.

use std::fmt;

use serde_json::Value;

/// A 64-bit structural hash of a schema; see [`fingerprint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fingerprint(u64);

impl Fingerprint {
    /// The hash as a number.
    pub fn as_u64(self) -> u64 {
        self.0
    }
}

impl fmt::Display for Fingerprint {
    /// Sixteen lowercase hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Keys that describe a schema without changing what it accepts; ignored by [`fingerprint`].
fn is_annotation(key: &str) -> bool {
    key.starts_with("x-")
        || matches!(
            key,
            "$schema" | "title" | "description" | "example" | "examples" | "default"
        )
}

/// Fingerprints a schema in either flavor (JSON Schema or OpenAPI 3.0 JSON), ignoring
/// annotations (`x-*`, `title`, `description`, `example(s)`, `default`, `$schema`).
///
/// Works on any subschema too, which is how a spec assembler finds the same object shape used
/// by several endpoints:
///
/// ```
/// use serde_json::json;
/// let a = ar_schema::infer(&json!({"id": 1, "name": "Ada"})).to_openapi();
/// let b = ar_schema::infer(&json!({"name": "Grace", "id": 2})).to_openapi();
/// assert_eq!(ar_schema::fingerprint(&a), ar_schema::fingerprint(&b));
/// ```
pub fn fingerprint(schema: &Value) -> Fingerprint {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    walk(schema, &mut h, Keys::Keywords);
    Fingerprint(h.0)
}

struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, b: &[u8]) {
        for &c in b {
            self.0 ^= u64::from(c);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn tag(&mut self, t: u8, len: usize) {
        self.bytes(&[t]);
        self.bytes(&(len as u64).to_le_bytes());
    }
}

/// What the keys of an object are: schema keywords (annotations among them are skipped), or
/// names (of properties, definitions), every one of which counts: a property named
/// `description` or `title` is part of the shape.
#[derive(Clone, Copy)]
enum Keys {
    Keywords,
    Names,
}

/// Keywords whose value is an object keyed by names, each naming a schema.
fn holds_names(keyword: &str) -> bool {
    matches!(
        keyword,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
    )
}

fn walk(v: &Value, h: &mut Fnv, keys: Keys) {
    match v {
        Value::Null => h.tag(0, 0),
        Value::Bool(b) => h.tag(1, usize::from(*b)),
        Value::Number(n) => {
            let s = n.to_string();
            h.tag(2, s.len());
            h.bytes(s.as_bytes());
        }
        Value::String(s) => {
            h.tag(3, s.len());
            h.bytes(s.as_bytes());
        }
        Value::Array(items) => {
            h.tag(4, items.len());
            items.iter().for_each(|i| walk(i, h, Keys::Keywords));
        }
        Value::Object(map) => {
            let names = matches!(keys, Keys::Names);
            let mut kept: Vec<&String> =
                map.keys().filter(|k| names || !is_annotation(k)).collect();
            kept.sort();
            h.tag(5, kept.len());
            for k in kept {
                h.tag(3, k.len());
                h.bytes(k.as_bytes());
                let inner = if !names && holds_names(k) {
                    Keys::Names
                } else {
                    Keys::Keywords
                };
                walk(&map[k.as_str()], h, inner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ignores_annotations_and_key_order() {
        let a =
            json!({"type": "object", "x-ar-samples": 3, "properties": {"a": {"type": "string"}}});
        let b =
            json!({"properties": {"a": {"type": "string", "description": "x"}}, "type": "object"});
        assert_eq!(fingerprint(&a), fingerprint(&b));
        assert_ne!(fingerprint(&a), fingerprint(&json!({"type": "object"})));
    }

    #[test]
    fn properties_named_like_annotations_count() {
        let with = |description: Value| json!({"type": "object", "properties": {"description": description, "id": {"type": "integer"}}});
        let plain = with(json!({"type": "string"}));
        let nullable = with(json!({"type": "string", "nullable": true}));
        assert_ne!(fingerprint(&plain), fingerprint(&nullable));
        let without = json!({"type": "object", "properties": {"id": {"type": "integer"}}});
        assert_ne!(fingerprint(&plain), fingerprint(&without));
        // The annotation keyword itself is still ignored, inside a property too.
        let described = with(json!({"type": "string", "description": "what it is"}));
        assert_eq!(fingerprint(&plain), fingerprint(&described));
    }

    #[test]
    fn is_stable_across_runs() {
        assert_eq!(
            fingerprint(&json!({"type": "string"})).to_string(),
            "2c4c8b5b9b98f658"
        );
    }
}
