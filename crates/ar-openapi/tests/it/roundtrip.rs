//! A round trip: the spec generated from a HAR validates that HAR's own
//! responses. Every 2xx JSON body must validate against its operation's
//! response schema (OpenAPI 3.0 `nullable` turned into JSON Schema types,
//! `$ref`s resolved against the spec's components).

use serde_json::{Value, json};

use crate::{everything, import};

/// OpenAPI 3.0 schema → JSON Schema 2020-12 (the differences that matter for validation).
fn to_json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (key, value) in map {
                match key.as_str() {
                    "nullable" | "example" => {}
                    "$ref" => {
                        out.insert(key.clone(), value.clone());
                    }
                    "properties" => {
                        let props = value
                            .as_object()
                            .unwrap()
                            .iter()
                            .map(|(k, v)| (k.clone(), to_json_schema(v)))
                            .collect();
                        out.insert(key.clone(), Value::Object(props));
                    }
                    _ => {
                        out.insert(key.clone(), to_json_schema(value));
                    }
                }
            }
            if map.get("nullable") == Some(&Value::Bool(true)) {
                if let Some(Value::String(kind)) = map.get("type") {
                    out.insert("type".into(), json!([kind, "null"]));
                } else if map.contains_key("anyOf") || map.contains_key("$ref") {
                    let inner = Value::Object(out);
                    return json!({"anyOf": [inner, {"type": "null"}]});
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(to_json_schema).collect()),
        other => other.clone(),
    }
}

#[test]
fn every_2xx_json_response_validates_against_its_operations_schema() {
    let mut checked = 0;
    for name in ["rest", "auth", "forms", "graphql"] {
        let imported = import(name, everything());
        let spec: Value = serde_json::from_str(&imported.docs.json().unwrap()).unwrap();
        let components = to_json_schema(&spec["components"]);
        for flow in &imported.flows {
            let Some(response) = &flow.response else {
                continue;
            };
            if !(200..300).contains(&response.status)
                || response.body.media_type().as_deref() != Some("application/json")
            {
                continue;
            }
            let ingested = imported.store.scope().decide(flow);
            if !ingested.is_in() {
                continue;
            }
            // Find the operation: the store's endpoint for this URL and method.
            let after_scheme = flow
                .request
                .url
                .split_once("://")
                .map_or("", |(_, rest)| rest);
            let url_path = after_scheme.find('/').map_or("/", |i| &after_scheme[i..]);
            let url_path = url_path.split(['?', '#']).next().unwrap_or("/");
            let endpoint = imported
                .store
                .endpoints()
                .into_iter()
                .find(|e| {
                    e.method() == flow.request.method && e.concrete_paths().contains_key(url_path)
                })
                .unwrap_or_else(|| panic!("{name}: no endpoint for {}", flow.request.url));
            let template = endpoint.template().to_string();
            let server_base = spec["servers"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|s| s["url"].as_str())
                .find_map(|url| {
                    let path = url
                        .splitn(4, '/')
                        .nth(3)
                        .map(|p| format!("/{p}"))
                        .unwrap_or_default();
                    template.starts_with(&path).then_some(path)
                });
            let path = template
                .strip_prefix(server_base.as_deref().unwrap_or(""))
                .unwrap_or(&template);
            let path = if path.is_empty() { "/" } else { path };
            let operation = &spec["paths"][path][flow.request.method.to_ascii_lowercase()];
            let schema = &operation["responses"][response.status.to_string()]["content"]["application/json"]
                ["schema"];
            assert!(
                schema.is_object(),
                "{name}: no schema for {} {path} {}",
                flow.request.method,
                response.status
            );
            let mut root = to_json_schema(schema);
            root.as_object_mut()
                .unwrap()
                .insert("components".into(), components.clone());
            let validator = jsonschema::validator_for(&root)
                .unwrap_or_else(|e| panic!("{name}: bad schema for {path}: {e}\n{root}"));
            let body: Value = serde_json::from_slice(&response.body.bytes).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&body)
                .map(|e| e.to_string())
                .collect();
            assert!(
                errors.is_empty(),
                "{name}: {} {path} body {body} fails its schema {root}: {errors:?}",
                flow.request.method
            );
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} responses checked");
}
