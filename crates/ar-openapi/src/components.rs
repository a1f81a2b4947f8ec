//! Component schemas: object shapes that repeat across the document are
//! written once under `components.schemas` and referenced, with names taken
//! from where they appear (`/users/{id}` → `User`, a `shippingAddress`
//! property → `ShippingAddress`).

use std::collections::{BTreeMap, BTreeSet};

use ar_schema::{Fingerprint, fingerprint};
use serde_json::{Value, json};

use crate::model::Model;
use crate::naming;

/// Property names that wrap a list of the resource itself (`{"items": [...]}`).
const WRAPPERS: &[&str] = &[
    "items", "data", "results", "records", "entries", "nodes", "edges", "list", "rows", "content",
    "hits", "objects",
];

struct Candidate {
    /// Appearances in total.
    uses: usize,
    /// The first name suggested for it.
    name: String,
    schema: Value,
}

/// Moves repeated object shapes into `model.components` and replaces them with `$ref`s.
pub(crate) fn extract(model: &mut Model, min_uses: usize) {
    let min_uses = min_uses.max(2);
    let mut candidates: BTreeMap<Fingerprint, Candidate> = BTreeMap::new();
    let mut order: Vec<Fingerprint> = Vec::new();
    for operation in &model.operations {
        let noun = naming::resource_noun(&operation.path)
            .map(|n| naming::schema_name(&n))
            .unwrap_or_else(|| "Resource".into());
        for content in &operation.request {
            collect(
                &content.schema,
                &format!("{noun}Input"),
                &mut candidates,
                &mut order,
                0,
            );
        }
        for response in &operation.responses {
            let name = if (200..300).contains(&response.status) {
                noun.clone()
            } else {
                "Error".to_string()
            };
            for content in &response.content {
                collect(&content.schema, &name, &mut candidates, &mut order, 0);
            }
        }
        for op in &operation.graphql {
            let name = naming::schema_name(&op.name);
            if let Some(schema) = &op.response {
                collect(
                    schema,
                    &format!("{name}Response"),
                    &mut candidates,
                    &mut order,
                    0,
                );
            }
        }
    }

    // Name the chosen shapes in first-seen order; a name taken by another shape gets a number.
    let mut chosen: BTreeMap<Fingerprint, String> = BTreeMap::new();
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for print in &order {
        let candidate = &candidates[print];
        if candidate.uses < min_uses {
            continue;
        }
        let mut name = candidate.name.clone();
        let mut n = 2;
        while taken.contains(&name) {
            name = format!("{}{n}", candidate.name);
            n += 1;
        }
        taken.insert(name.clone());
        chosen.insert(*print, name);
    }
    if chosen.is_empty() {
        return;
    }
    for (print, name) in &chosen {
        let mut schema = candidates[print].schema.clone();
        replace_children(&mut schema, &chosen);
        model.components.insert(name.clone(), schema);
    }
    for operation in &mut model.operations {
        for content in &mut operation.request {
            replace(&mut content.schema, &chosen);
        }
        for response in &mut operation.responses {
            for content in &mut response.content {
                replace(&mut content.schema, &chosen);
            }
        }
        for op in &mut operation.graphql {
            if let Some(schema) = &mut op.response {
                replace(schema, &chosen);
            }
        }
    }
}

/// An object with at least two properties that is never `null`: what
/// becomes a component. A place that may hold `null` keeps its shape inline
/// (`type: object, nullable: true`): OpenAPI 3.0's `nullable` has no effect
/// without a `type` beside it, and `allOf` cannot relax the schema it
/// refers to, so the common `{nullable: true, allOf: [{$ref}]}` is rejected
/// by 3.0 validators for the very `null` it means to allow; and a nullable
/// component would make every use of it nullable.
fn is_shape(schema: &Value) -> bool {
    schema.get("nullable") != Some(&Value::Bool(true))
        && schema.get("type").and_then(Value::as_str) == Some("object")
        && schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|p| p.len() >= 2)
}

fn collect(
    schema: &Value,
    name: &str,
    candidates: &mut BTreeMap<Fingerprint, Candidate>,
    order: &mut Vec<Fingerprint>,
    depth: usize,
) {
    if depth > 32 {
        return;
    }
    if is_shape(schema) {
        let print = fingerprint(schema);
        let candidate = candidates.entry(print).or_insert_with(|| {
            order.push(print);
            Candidate {
                uses: 0,
                name: name.to_string(),
                schema: schema.clone(),
            }
        });
        candidate.uses += 1;
    }
    if let Some(items) = schema.get("items") {
        collect(items, name, candidates, order, depth + 1);
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (property, child) in properties {
            let child_name = if WRAPPERS.contains(&property.as_str()) {
                name.to_string()
            } else {
                naming::schema_name(property)
            };
            let child_name = if child_name.is_empty() {
                "Item".to_string()
            } else {
                child_name
            };
            collect(child, &child_name, candidates, order, depth + 1);
        }
    }
    if let Some(extra) = schema.get("additionalProperties").filter(|v| v.is_object()) {
        collect(extra, &format!("{name}Entry"), candidates, order, depth + 1);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(members) = schema.get(key).and_then(Value::as_array) {
            for member in members {
                collect(member, name, candidates, order, depth + 1);
            }
        }
    }
}

/// Replaces the schema itself (if chosen) or, failing that, its children.
fn replace(schema: &mut Value, chosen: &BTreeMap<Fingerprint, String>) {
    if is_shape(schema)
        && let Some(name) = chosen.get(&fingerprint(schema))
    {
        *schema = json!({"$ref": format!("#/components/schemas/{name}")});
        return;
    }
    replace_children(schema, chosen);
}

fn replace_children(schema: &mut Value, chosen: &BTreeMap<Fingerprint, String>) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(items) = object.get_mut("items") {
        replace(items, chosen);
    }
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for child in properties.values_mut() {
            replace(child, chosen);
        }
    }
    if let Some(extra) = object
        .get_mut("additionalProperties")
        .filter(|v| v.is_object())
    {
        replace(extra, chosen);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(members)) = object.get_mut(key) {
            for member in members {
                replace(member, chosen);
            }
        }
    }
}
