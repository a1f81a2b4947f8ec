//! What the API's other answers say about one operation's answer.
//!
//! Each response schema is inferred from the samples of its own operation, and
//! a run sees few samples of most operations. Two facts hold across an API,
//! because its answers come from one model and one server:
//!
//! - **A key means the same wherever it holds the same type.** `pictures` of
//!   type object in a video and in a category are one field of one model; if
//!   the API answered `null` there once, it may anywhere. So a property that is
//!   nullable under some operation of a host is nullable under every operation
//!   of that host where it holds the same type.
//! - **A 204 has no content** (RFC 9110, 15.3.5). Bytes a capture finds there
//!   are the server's, not the operation's: where a host's 204 answers carry
//!   bodies of several JSON types, every 204 body of that host may be any of
//!   them, and is documented so.
//!
//! Both only widen a schema (a value the narrower one accepted is still
//! accepted), so neither can reject an answer the traffic showed.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::model::Model;

/// Applies both rules to every host's operations.
pub(crate) fn apply(model: &mut Model) {
    share_nullable_keys(model);
    widen_no_content_bodies(model);
}

/// `(property name, type)` pairs that some answer of the host showed nullable.
type NullableKeys = BTreeSet<(String, String)>;

fn share_nullable_keys(model: &mut Model) {
    let mut by_host: BTreeMap<String, NullableKeys> = BTreeMap::new();
    for operation in &model.operations {
        let keys = by_host.entry(operation.host.clone()).or_default();
        for response in &operation.responses {
            for content in &response.content {
                collect_nullable(&content.schema, keys);
            }
        }
    }
    for operation in &mut model.operations {
        let Some(keys) = by_host.get(&operation.host) else {
            continue;
        };
        for response in &mut operation.responses {
            for content in &mut response.content {
                mark_nullable(&mut content.schema, keys);
            }
        }
    }
}

/// The schemas directly below `schema`: properties, items, map values and union branches.
fn children(schema: &Value) -> impl Iterator<Item = &Value> {
    let object = schema.as_object();
    let properties = object
        .and_then(|o| o.get("properties"))
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::values);
    let single = ["items", "additionalProperties"]
        .into_iter()
        .filter_map(move |key| object.and_then(|o| o.get(key)));
    let branches = ["anyOf", "oneOf", "allOf"]
        .into_iter()
        .filter_map(move |key| object.and_then(|o| o.get(key)).and_then(Value::as_array))
        .flatten();
    properties.chain(single).chain(branches)
}

fn collect_nullable(schema: &Value, keys: &mut NullableKeys) {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            if property.get("nullable") == Some(&Value::Bool(true))
                && let Some(kind) = property.get("type").and_then(Value::as_str)
            {
                keys.insert((name.clone(), kind.to_string()));
            }
        }
    }
    children(schema).for_each(|child| collect_nullable(child, keys));
}

fn mark_nullable(schema: &mut Value, keys: &NullableKeys) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(properties) = object.get_mut("properties").and_then(Value::as_object_mut) {
        for (name, property) in properties.iter_mut() {
            let shared = property
                .get("type")
                .and_then(Value::as_str)
                .is_some_and(|kind| keys.contains(&(name.clone(), kind.to_string())));
            if shared && let Some(property) = property.as_object_mut() {
                property.insert("nullable".into(), Value::Bool(true));
            }
        }
    }
    for (key, child) in object.iter_mut() {
        match key.as_str() {
            "properties" => child
                .as_object_mut()
                .into_iter()
                .flat_map(|p| p.values_mut())
                .for_each(|property| mark_nullable(property, keys)),
            "items" | "additionalProperties" => mark_nullable(child, keys),
            "anyOf" | "oneOf" | "allOf" => child
                .as_array_mut()
                .into_iter()
                .flatten()
                .for_each(|branch| mark_nullable(branch, keys)),
            _ => {}
        }
    }
}

/// The JSON types one schema admits at its root (`integer` counted as `number`),
/// and whether it admits `null`.
fn root_types(schema: &Value, types: &mut BTreeSet<&'static str>, null: &mut bool) {
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        *null = true;
    }
    if let Some(kind) = schema.get("type").and_then(Value::as_str) {
        types.insert(match kind {
            "object" => "object",
            "array" => "array",
            "string" => "string",
            "boolean" => "boolean",
            _ => "number",
        });
    }
    for key in ["anyOf", "oneOf"] {
        for branch in schema
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            root_types(branch, types, null);
        }
    }
}

fn widen_no_content_bodies(model: &mut Model) {
    let mut by_host: BTreeMap<String, (BTreeSet<&'static str>, bool)> = BTreeMap::new();
    for operation in &model.operations {
        let (types, null) = by_host.entry(operation.host.clone()).or_default();
        for response in operation.responses.iter().filter(|r| r.status == 204) {
            for content in &response.content {
                root_types(&content.schema, types, null);
            }
        }
    }
    for operation in &mut model.operations {
        let Some((types, null)) = by_host.get(&operation.host) else {
            continue;
        };
        if types.len() + usize::from(*null) < 2 {
            continue;
        }
        for response in operation.responses.iter_mut().filter(|r| r.status == 204) {
            for content in &mut response.content {
                content.schema = any_of(types, *null);
            }
        }
    }
}

/// A schema admitting each of `types` (and `null` when `null`).
fn any_of(types: &BTreeSet<&'static str>, null: bool) -> Value {
    let branches: Vec<Value> = types
        .iter()
        .map(|kind| {
            let mut branch = json!({"type": kind});
            if *kind == "array" {
                branch["items"] = json!({});
            }
            if null {
                branch["nullable"] = Value::Bool(true);
            }
            branch
        })
        .collect();
    let mut schema = match <[Value; 1]>::try_from(branches) {
        Ok([only]) => only,
        Err(branches) => json!({"anyOf": branches}),
    };
    schema["description"] = Value::String(
        "A 204 has no content; this API's 204 answers carried bodies of these JSON types.".into(),
    );
    schema
}
