//! Query parameters as a reader of the spec sees them.

use ar_openapi::Options;
use ar_store::scope::{Scope, ScopeConfig};
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

use crate::document_flows;

fn poll(id: u64, url: &str) -> Flow {
    let mut response = Response::new(200, HttpVersion::Http11);
    response.body = Body::from_decoded(Some("application/json".into()), b"[]".to_vec());
    Flow::new(
        FlowId(id),
        Timestamp::from_unix_micros(0),
        Client::Human,
        Request::new("GET", url, HttpVersion::Http11),
    )
    .with_response(response)
}

/// An app that polls `/api/kernels?<Date.now()>` so no cache answers: each
/// poll's bare number is a value, not a parameter's name, so the spec lists
/// the parameters the API reads (`refresh`) and no thousand numbers.
#[test]
fn a_bare_number_in_the_query_is_a_cache_buster_not_a_parameter() {
    let scope = Scope::new(ScopeConfig::for_target("https://lab.test/")).unwrap();
    let store = EndpointStore::new(scope, StoreConfig::default());
    let flows: Vec<Flow> = (0..5u64)
        .map(|i| {
            poll(
                i,
                &format!("https://lab.test/api/kernels?{}", 1_795_950_405_958 + i),
            )
        })
        .chain([poll(9, "https://lab.test/api/kernels?refresh=true")])
        .collect();
    let (_, docs) = document_flows(store, &flows, &Options::default());
    let yaml = docs.yaml().unwrap();
    assert!(yaml.contains("name: refresh"), "{yaml}");
    assert!(!yaml.contains("17959504059"), "{yaml}");
}
