//! Prints the spec and markdown generated from one captured flow.
use ar_openapi::{Documenter, Enrichment, Options, Redactor, document};
use ar_store::scope::{Scope, ScopeConfig};
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

fn main() {
    let mut request = Request::new(
        "GET",
        "https://api.shop.test/users/42?expand=orders",
        HttpVersion::Http11,
    );
    request
        .headers
        .push("Authorization", "Bearer secret-token-value");
    let mut response = Response::new(200, HttpVersion::Http11);
    response.body = Body::from_decoded(
        Some("application/json".into()),
        br#"{"id":42,"name":"Ada"}"#.to_vec(),
    );
    let flow = Flow::new(
        FlowId(1),
        Timestamp::from_unix_micros(0),
        Client::Human,
        request,
    )
    .with_response(response);
    let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).expect("a valid scope");
    let mut store = EndpointStore::new(scope, StoreConfig::default())
        .with_evidence(Documenter::new(Redactor::new()));
    store.ingest(&flow);
    let docs = document(&store, &Enrichment::new(), &Options::default()).expect("assembles");
    println!("{}", docs.yaml().expect("yaml"));
    println!("{}", docs.markdown);
}
