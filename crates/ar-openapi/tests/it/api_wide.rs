//! What the API's other answers say about one operation's answer: a key
//! nullable in one answer is nullable wherever it holds the same type, and a
//! host whose 204 bodies disagree in type documents each 204 with all of them.

use ar_openapi::Options;
use ar_store::Flow;
use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};
use serde_json::Value;

use crate::document_flows;

fn spec_of(flows: &[Flow]) -> Value {
    let store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    let (_, docs) = document_flows(store, flows, &Options::default());
    serde_json::from_str(&docs.json().unwrap()).unwrap()
}

fn answer<'a>(spec: &'a Value, path: &str, method: &str, status: &str) -> &'a Value {
    &spec["paths"][path][method]["responses"][status]["content"]["application/json"]["schema"]
}

#[test]
fn a_key_null_in_one_answer_is_nullable_wherever_it_holds_that_type() {
    let mut flows = Vec::new();
    for id in 1..=6u64 {
        let pictures = if id % 2 == 0 {
            "null"
        } else {
            r#"{"link":"a.png"}"#
        };
        flows.push(crate::json_get(
            id,
            &format!("https://video.test/videos/{id}"),
            &format!(r#"{{"id":{id},"pictures":{pictures},"title":"t"}}"#),
        ));
    }
    for id in 11..=16u64 {
        flows.push(crate::json_get(
            id,
            &format!("https://video.test/categories/{id}"),
            &format!(r#"{{"id":{id},"pictures":{{"link":"b.png"}},"title":"c","rank":3}}"#),
        ));
    }
    // Another API on another host: its `pictures` is its own.
    for id in 21..=26u64 {
        flows.push(crate::json_get(
            id,
            &format!("https://other.test/albums/{id}"),
            &format!(r#"{{"id":{id},"pictures":{{"link":"c.png"}}}}"#),
        ));
    }
    let spec = spec_of(&flows);
    let schema_at = |path: &str| -> Value {
        let schema = answer(&spec, path, "get", "200");
        match schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let name = reference.trim_start_matches("#/components/schemas/");
                spec["components"]["schemas"][name].clone()
            }
            None => schema.clone(),
        }
    };
    let videos = schema_at("/videos/{videoId}");
    assert_eq!(
        videos["properties"]["pictures"]["nullable"], true,
        "{videos}"
    );
    let categories = schema_at("/categories/{categoryId}");
    assert_eq!(
        categories["properties"]["pictures"]["nullable"], true,
        "categories never answered null, but videos did: {categories}"
    );
    // `title` is a string in both and never null: untouched.
    assert_eq!(categories["properties"]["title"].get("nullable"), None);
    let albums = schema_at("/albums/{albumId}");
    assert_eq!(
        albums["properties"]["pictures"].get("nullable"),
        None,
        "{albums}"
    );
}

#[test]
fn a_host_whose_204_bodies_disagree_documents_each_with_all_their_types() {
    let mut flows = Vec::new();
    for (id, (path, body)) in [
        ("/rooms/101", "{}"),
        ("/rooms/102", "{}"),
        ("/lines/201", r#""done""#),
        ("/lines/202", "null"),
    ]
    .into_iter()
    .enumerate()
    {
        let url = format!("https://voice.test{path}");
        flows.push(ar_flow::testing::json_flow(
            id as u64, "DELETE", &url, 204, body,
        ));
    }
    // A host that always sends `{}` with its 204s keeps that.
    for id in 10..14u64 {
        let url = format!("https://mail.test/lists/{id}");
        flows.push(ar_flow::testing::json_flow(id, "DELETE", &url, 204, "{}"));
    }
    let spec = spec_of(&flows);
    for path in ["/rooms/{roomId}", "/lines/{lineId}"] {
        let schema = answer(&spec, path, "delete", "204");
        let branches = schema["anyOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{path}: {schema}"));
        let types: Vec<&str> = branches.iter().filter_map(|b| b["type"].as_str()).collect();
        assert_eq!(types, ["object", "string"], "{path}: {schema}");
        assert!(branches.iter().all(|b| b["nullable"] == true), "{schema}");
    }
    let kept = answer(&spec, "/lists/{listId}", "delete", "204");
    assert_eq!(kept["type"], "object", "{kept}");
    assert_eq!(kept.get("anyOf"), None);
}
