//! Body analysis for the store: shape fingerprints and the provenance index.
//!
//! A *shape fingerprint* hashes the set of key paths of a JSON body (to a
//! bounded depth), so two bodies with the same structure and different
//! values hash alike. The *provenance index* remembers identifier-like values
//! seen in JSON bodies (`$.orders[].id = 17`) so that a later path segment
//! with that value becomes a parameter named after the field.

use std::collections::{HashMap, VecDeque};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::EndpointId;
use crate::Body;
use crate::template::{classify_segment, is_generic_field, is_version_like, name_from_field};

/// Which body of a flow a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodySide {
    /// The request body.
    Request,
    /// The response body.
    Response,
}

/// Parses a body as JSON when it claims (or looks) to be JSON and is small enough.
pub(crate) fn parse_json(body: &Body, max_bytes: usize) -> Option<Value> {
    if body.bytes.is_empty() || body.bytes.len() > max_bytes {
        return None;
    }
    let media = body.media_type();
    let claims = media
        .as_deref()
        .is_some_and(|m| m.ends_with("json") || m.ends_with("+json"));
    let first = body.bytes.iter().find(|b| !b.is_ascii_whitespace())?;
    if !claims && !matches!(first, b'{' | b'[') {
        return None;
    }
    serde_json::from_slice(&body.bytes).ok()
}

/// FNV-1a, stable across Rust versions (fingerprints appear in outputs).
pub(crate) struct Fnv(u64);

impl Fnv {
    pub(crate) fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

const SHAPE_DEPTH: usize = 3;
const SHAPE_KEYS: usize = 256;

/// The fingerprint of a JSON value's structure: order-insensitive hash of
/// its key paths and leaf types, to depth 3.
pub(crate) fn shape_of(value: &Value) -> u64 {
    let mut paths: Vec<String> = Vec::new();
    collect_paths(value, &mut String::from("$"), 0, &mut paths);
    paths.sort_unstable();
    paths.dedup();
    let mut h = Fnv::new();
    for p in &paths {
        h.write(p.as_bytes());
        h.write(&[0]);
    }
    h.finish()
}

fn collect_paths(value: &Value, prefix: &mut String, depth: usize, out: &mut Vec<String>) {
    if out.len() >= SHAPE_KEYS {
        return;
    }
    let leaf = match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(items) => {
            if depth < SHAPE_DEPTH {
                let len = prefix.len();
                prefix.push_str("[]");
                for item in items.iter().take(4) {
                    collect_paths(item, prefix, depth + 1, out);
                }
                prefix.truncate(len);
            }
            "array"
        }
        Value::Object(map) => {
            if depth < SHAPE_DEPTH {
                for (k, v) in map.iter().take(64) {
                    let len = prefix.len();
                    prefix.push('.');
                    prefix.push_str(k);
                    collect_paths(v, prefix, depth + 1, out);
                    prefix.truncate(len);
                }
            }
            "object"
        }
    };
    out.push(format!("{prefix}:{leaf}"));
}

/// A value seen in a body, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SeenValue {
    pub(crate) source: EndpointId,
    pub(crate) side: BodySide,
    pub(crate) field_path: String,
    pub(crate) name: String,
    /// The parent key when the field is generic (`id`, `name`): the name then
    /// only fits a path whose collection matches it.
    pub(crate) generic_parent: Option<String>,
}

/// Bounded map from identifier-like values to where they were first seen.
#[derive(Debug, Default)]
pub(crate) struct ValueIndex {
    map: HashMap<String, SeenValue>,
    order: VecDeque<String>,
    capacity: usize,
}

const MAX_VALUES_PER_BODY: usize = 256;

impl ValueIndex {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            map: HashMap::new(),
            order: VecDeque::new(),
            capacity,
        }
    }

    pub(crate) fn get(&self, value: &str) -> Option<&SeenValue> {
        self.map.get(value)
    }

    /// Remembers the identifier-like values of one body (first sighting wins).
    pub(crate) fn harvest(&mut self, value: &Value, source: EndpointId, side: BodySide) {
        if self.capacity == 0 {
            return;
        }
        let mut found = Vec::new();
        walk(value, &mut String::from("$"), None, 0, &mut found);
        for Found {
            text,
            field_path,
            name,
            generic_parent,
        } in found
        {
            if self.map.contains_key(&text) {
                continue;
            }
            if self.map.len() >= self.capacity
                && let Some(old) = self.order.pop_front()
            {
                self.map.remove(&old);
            }
            self.order.push_back(text.clone());
            self.map.insert(
                text,
                SeenValue {
                    source,
                    side,
                    field_path,
                    name,
                    generic_parent,
                },
            );
        }
    }

    /// Points entries of a merged-away endpoint at the survivor.
    pub(crate) fn redirect(&mut self, from: EndpointId, into: EndpointId) {
        for seen in self.map.values_mut() {
            if seen.source == from {
                seen.source = into;
            }
        }
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.map
            .iter()
            .map(|(k, v)| 2 * k.len() + v.field_path.len() + v.name.len() + 128)
            .sum()
    }
}

struct Found {
    text: String,
    field_path: String,
    name: String,
    generic_parent: Option<String>,
}

impl Found {
    fn new(text: String, field_path: &str, parent: Option<&str>, key: &str) -> Self {
        let generic_parent = is_generic_field(key).then(|| parent.unwrap_or("").to_string());
        Self {
            text,
            field_path: field_path.to_string(),
            name: name_from_field(parent, key),
            generic_parent,
        }
    }
}

fn walk(
    value: &Value,
    path: &mut String,
    parent: Option<&str>,
    depth: usize,
    out: &mut Vec<Found>,
) {
    if depth > 8 || out.len() >= MAX_VALUES_PER_BODY {
        return;
    }
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let len = path.len();
                path.push('.');
                path.push_str(key);
                match v {
                    Value::String(s) if is_identifier_value(key, s) => {
                        out.push(Found::new(s.clone(), path, parent, key))
                    }
                    Value::Number(n) if n.is_u64() && is_id_key(key) => {
                        out.push(Found::new(n.to_string(), path, parent, key))
                    }
                    _ => walk(v, path, Some(key), depth + 1, out),
                }
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            let len = path.len();
            path.push_str("[]");
            for item in items.iter().take(64) {
                walk(item, path, parent, depth + 1, out);
            }
            path.truncate(len);
        }
        _ => {}
    }
}

fn is_id_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k == "id"
        || k == "_id"
        || k == "uuid"
        || k.ends_with("_id")
        || key.ends_with("Id")
        || key.ends_with("ID")
}

fn is_identifier_value(key: &str, value: &str) -> bool {
    if value.len() < 2
        || value.len() > 128
        || value.contains(['/', ' ', '?', '#'])
        || is_version_like(value)
    {
        return false;
    }
    let k = key.to_ascii_lowercase();
    is_id_key(key)
        || matches!(
            k.as_str(),
            "slug" | "login" | "handle" | "username" | "sku" | "key" | "code" | "name" | "number"
        )
        || classify_segment(value).is_some_and(|kind| kind.is_id_like())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shapes_ignore_values_and_key_order() {
        let a = shape_of(&json!({"id": 1, "name": "x", "tags": ["a"]}));
        let b = shape_of(&json!({"tags": ["b", "c"], "name": "y", "id": 2}));
        let c = shape_of(&json!({"id": 1, "name": "x"}));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn harvests_ids_with_field_names() {
        let mut index = ValueIndex::new(16);
        let body = json!({"orders": [{"id": 17, "total": 3}, {"id": "ord_8Hq2LmZ"}], "user": {"login": "octocat", "bio": "hi there"}, "page": 2});
        index.harvest(&body, EndpointId(1), BodySide::Response);
        let seen = index.get("17").unwrap();
        assert_eq!(
            (seen.field_path.as_str(), seen.name.as_str()),
            ("$.orders[].id", "orderId")
        );
        assert_eq!(index.get("ord_8Hq2LmZ").unwrap().name, "orderId");
        assert_eq!(index.get("octocat").unwrap().name, "login");
        assert!(index.get("2").is_none() && index.get("hi there").is_none());
    }

    #[test]
    fn index_is_bounded() {
        let mut index = ValueIndex::new(2);
        for i in 0..10 {
            index.harvest(&json!({"id": i}), EndpointId(1), BodySide::Response);
        }
        assert_eq!(index.map.len(), 2);
        assert!(index.get("9").is_some() && index.get("0").is_none());
    }
}
