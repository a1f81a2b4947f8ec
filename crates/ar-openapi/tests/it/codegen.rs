//! What client generators read (`ar gen-client` runs openapi-python-client,
//! openapi-typescript and progenitor on these specs): each rule here is a
//! warning one of them printed about a spec of ours.

use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};
use serde_json::{Value, json};

use crate::{document_flows, everything, json_get};

fn spec_of(flows: &[ar_store::Flow]) -> Value {
    let store = EndpointStore::new(Scope::new(everything()).unwrap(), StoreConfig::default());
    let (_, docs) = document_flows(store, flows, &ar_openapi::Options::default());
    serde_json::to_value(&docs.openapi).unwrap()
}

#[test]
fn a_place_that_held_null_keeps_its_shape_inline_and_no_component_is_nullable() {
    // openapi-python-client named a nullable component's inline objects
    // twice ("duplicate models") and dropped the component; and
    // `{nullable: true, allOf: [{$ref}]}` is rejected for `null` by OpenAPI
    // 3.0 validators (`nullable` needs a `type` beside it, and `allOf`
    // cannot relax the schema it refers to). The place that held `null`
    // keeps the shape inline, typed `object` and nullable.
    let flows = [
        json_get(
            1,
            "https://q.test/questions/1",
            r#"{"id": 1, "answer": {"text": "a", "by": {"name": "x", "karma": 1}}}"#,
        ),
        json_get(
            2,
            "https://q.test/questions/2",
            r#"{"id": 2, "answer": null}"#,
        ),
        json_get(
            3,
            "https://q.test/answers/latest",
            r#"{"text": "b", "by": {"name": "y", "karma": 2}}"#,
        ),
        json_get(
            4,
            "https://q.test/answers/first",
            r#"{"text": "c", "by": {"name": "z", "karma": 3}}"#,
        ),
    ];
    let spec = spec_of(&flows);
    let components = spec["components"]["schemas"]
        .as_object()
        .expect("components");
    for (name, schema) in components {
        assert!(schema.get("nullable").is_none(), "{name}: {schema}");
    }
    assert!(!spec.to_string().contains("allOf"), "{spec}");
    let question = &spec["paths"]["/questions/{questionId}"]["get"]["responses"]["200"]["content"]
        ["application/json"]["schema"];
    let answer = &question["properties"]["answer"];
    assert_eq!(answer["type"], "object", "{question}");
    assert_eq!(answer["nullable"], json!(true), "{question}");
    // What is inside the nullable place is shared as usual: the author.
    let author = answer["properties"]["by"]["$ref"]
        .as_str()
        .expect("a reference");
    let (_, answers) = spec["paths"]
        .as_object()
        .unwrap()
        .iter()
        .find(|(path, _)| path.starts_with("/answers"))
        .expect("the answers' path");
    let latest = &answers["get"]["responses"]["200"]["content"]["application/json"]["schema"];
    let latest = match latest.get("$ref").and_then(Value::as_str) {
        Some(reference) => &spec["components"]["schemas"][reference.rsplit('/').next().unwrap()],
        None => latest,
    };
    assert_eq!(
        latest["properties"]["by"]["$ref"].as_str(),
        Some(author),
        "one component for the author"
    );
}

#[test]
fn every_array_has_items() {
    // OpenAPI 3.0 requires them; openapi-python-client left out every
    // operation whose answer held an array seen only empty.
    let flows = [
        json_get(1, "https://q.test/tags", r#"{"tags": [], "count": 0}"#),
        json_get(2, "https://q.test/tags", r#"{"tags": [], "count": 0}"#),
    ];
    let spec = spec_of(&flows);
    let schema =
        &spec["paths"]["/tags"]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
    assert_eq!(
        schema["properties"]["tags"],
        json!({"type": "array", "items": {}})
    );
}

#[test]
fn a_date_in_a_request_header_is_a_plain_string() {
    // `Plaid-Version: 2020-09-14` names an API version; openapi-python-client
    // refuses date-typed headers and left out every such operation.
    let mut flow = json_get(1, "https://q.test/accounts", r#"{"ok": true}"#);
    flow.request.headers.push("Plaid-Version", "2020-09-14");
    let spec = spec_of(&[flow]);
    let parameters = spec["paths"]["/accounts"]["get"]["parameters"]
        .as_array()
        .expect("parameters");
    let version = (parameters.iter())
        .find(|p| p["name"] == "Plaid-Version")
        .expect("the header is a parameter");
    assert_eq!(version["schema"], json!({"type": "string"}));
    assert_eq!(version["example"], json!("2020-09-14"));
}

#[test]
fn a_path_of_methods_openapi_cannot_express_is_not_an_empty_path_item() {
    // A WebSocket over HTTP/2 is a CONNECT: it was an empty `/ws: {}`.
    let mut connect = json_get(1, "https://q.test/ws", "{}");
    connect.request.method = "CONNECT".into();
    let flows = [
        connect,
        json_get(2, "https://q.test/status", r#"{"up": true}"#),
    ];
    let spec = spec_of(&flows);
    assert!(spec["paths"].get("/ws").is_none(), "{}", spec["paths"]);
    assert_eq!(
        spec["x-ar-not-shown"],
        json!(["CONNECT /ws (method not expressible in OpenAPI 3.0)"])
    );
}
