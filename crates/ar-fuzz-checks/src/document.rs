//! Request bodies the documenter parses: GraphQL operations, form-urlencoded
//! and multipart forms, taken through the whole pipeline (store, documenter,
//! OpenAPI).

use ar_openapi::{Documenter, Enrichment, Options, Redactor, document};
use ar_store::Flow;
use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};

use crate::templating::json_flow;

/// `data` as a GraphQL request: a JSON POST body, the same text as a
/// `query` parameter of a GET, and as an `application/graphql` body.
pub fn check_graphql(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let mut query = String::from("https://api.test/graphql?query=");
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() {
            query.push(b as char);
        } else {
            query.push_str(&format!("%{b:02X}"));
        }
    }
    spec_of(&[
        json_flow(
            1,
            "POST",
            "https://api.test/graphql",
            Some(("application/json", data)),
        ),
        json_flow(2, "GET", &query, None),
        json_flow(
            3,
            "POST",
            "https://api.test/graphql",
            Some(("application/graphql", data)),
        ),
    ]);
}

/// `data` as a form body: form-urlencoded, and multipart with the first
/// line of `data` as the boundary.
pub fn check_forms(data: &[u8]) {
    let boundary = data
        .split(|b| *b == b'\n')
        .next()
        .map(|line| String::from_utf8_lossy(line).trim().to_string())
        .unwrap_or_default();
    let multipart = format!("multipart/form-data; boundary={boundary}");
    spec_of(&[
        json_flow(
            1,
            "POST",
            "https://api.test/forms",
            Some(("application/x-www-form-urlencoded", data)),
        ),
        json_flow(
            2,
            "POST",
            "https://api.test/uploads",
            Some((&multipart, data)),
        ),
    ]);
}

/// Documents `flows` and renders the spec as YAML and JSON; the JSON reads
/// back as a 3.0 document.
pub fn spec_of(flows: &[Flow]) {
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default())
        .with_evidence(Documenter::new(Redactor::new()));
    for flow in flows {
        store.ingest(flow);
    }
    let docs =
        document(&store, &Enrichment::new(), &Options::default()).expect("any flows document");
    docs.yaml().expect("the spec renders as YAML");
    let json: serde_json::Value =
        serde_json::from_str(&docs.json().expect("the spec renders as JSON")).expect("valid JSON");
    assert_eq!(json["openapi"], "3.0.3");
}
