//! Parameters that share their segment with a format suffix (`/t/{tId}.json`)
//! are declared and described from the value alone.

use ar_openapi::Options;
use ar_store::Flow;
use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};

use crate::document_flows;

fn flow(id: u64, path: &str) -> Flow {
    crate::json_get(
        id,
        &format!("https://forum.test{path}"),
        r#"{"id":1,"title":"Hello"}"#,
    )
}

#[test]
fn an_id_before_a_format_suffix_is_a_declared_parameter() {
    let store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    let paths = [
        "/t/27176.json",
        "/t/35860.json",
        "/t/40452.json",
        "/latest.json",
    ];
    let flows: Vec<Flow> = (paths.iter().enumerate())
        .map(|(i, path)| flow(i as u64, path))
        .collect();
    let (_, docs) = document_flows(store, &flows, &Options::default());
    let spec: serde_json::Value = serde_json::from_str(&docs.json().unwrap()).unwrap();
    let paths: Vec<&String> = spec["paths"].as_object().unwrap().keys().collect();
    assert_eq!(paths, ["/latest.json", "/t/{tId}.json"]);
    let params = &spec["paths"]["/t/{tId}.json"]["get"]["parameters"];
    assert_eq!(params[0]["name"], "tId");
    assert_eq!(params[0]["in"], "path");
    assert_eq!(params[0]["schema"]["type"], "integer", "{params}");
    assert!(docs.yaml().unwrap().contains("/t/{tId}.json:"));
}
