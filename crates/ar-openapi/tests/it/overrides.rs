//! User templates (`--template '/api/files/{path*}'`): paths of any depth
//! under one rest parameter become one endpoint, whose parameter is declared
//! and says it spans several segments.

use ar_openapi::Options;
use ar_store::Flow;
use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::template::Overrides;

use crate::document_flows;

fn flow(id: u64, path: &str) -> Flow {
    crate::json_get(
        id,
        &format!("https://api.test{path}"),
        r#"{"size":12,"type":"file"}"#,
    )
}

#[test]
fn a_rest_parameter_makes_one_documented_endpoint() {
    let mut config = StoreConfig::default();
    config.template_overrides = Overrides::parse(["/api/files/{path*}"]).unwrap();
    let store = EndpointStore::new(Scope::everything(), config);
    let paths = [
        "/api/files/a/b/c.txt",
        "/api/files/x.txt",
        "/api/files/docs/readme.md",
        "/api/users/42",
    ];
    let flows: Vec<Flow> = (paths.iter().enumerate())
        .map(|(i, path)| flow(i as u64, path))
        .collect();
    let (store, docs) = document_flows(store, &flows, &Options::default());
    let keys: Vec<&str> = store
        .endpoints()
        .into_iter()
        .map(|e| e.key().as_str())
        .collect();
    assert_eq!(
        keys.iter()
            .filter(|k| k.contains("/api/files/"))
            .collect::<Vec<_>>(),
        [&"GET api.test/api/files/{path}"],
        "{keys:?}"
    );
    let endpoint = store
        .endpoints()
        .into_iter()
        .find(|e| e.key().as_str() == "GET api.test/api/files/{path}")
        .unwrap();
    assert_eq!(endpoint.flow_count(), 3);
    let explained = store.explain(endpoint.id()).unwrap().to_string();
    assert!(
        explained.contains("a user template: /api/files/{path*}"),
        "{explained}"
    );

    let spec: serde_json::Value = serde_json::from_str(&docs.json().unwrap()).unwrap();
    // The server URL takes the shared `/api`.
    assert_eq!(spec["servers"][0]["url"], "https://api.test/api");
    let operation = &spec["paths"]["/files/{path}"]["get"];
    let params = operation["parameters"].as_array().unwrap();
    assert_eq!(params.len(), 1, "{operation}");
    let param = &params[0];
    assert_eq!(param["name"], "path");
    assert_eq!(param["in"], "path");
    assert_eq!(param["required"], true);
    assert_eq!(param["schema"], serde_json::json!({"type": "string"}));
    let description = param["description"].as_str().unwrap();
    assert!(
        description.contains("spans one or more segments"),
        "{description}"
    );
    let example = param["example"].as_str().unwrap();
    assert!(
        ["a/b/c.txt", "x.txt", "docs/readme.md"].contains(&example),
        "{example}"
    );
    assert!(docs.markdown.contains("`path`: The rest of the path"));

    let dir = tempfile::tempdir().unwrap();
    let yaml = dir.path().join("files.yaml");
    std::fs::write(&yaml, docs.yaml().unwrap()).unwrap();
    let output = std::process::Command::new(crate::validator::validator())
        .arg(&yaml)
        .output()
        .expect("the validator runs");
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
