//! Prints the spec and markdown generated from one captured flow.
use ar_openapi::{Documenter, EndpointInfo, Enrichment, Options, Redactor, document};
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
    let mut documenter = Documenter::new(Redactor::new());
    let info = EndpointInfo {
        id: 1,
        key: "GET api.shop.test/users/{userId}".into(),
        method: "GET".into(),
        host: "api.shop.test".into(),
        template: "/users/{userId}".into(),
        sources: vec![],
        rest_param: None,
    };
    documenter.observe(&flow, &info);
    let docs = document(&documenter, &Enrichment::new(), &Options::default()).expect("assembles");
    println!("{}", docs.yaml().expect("yaml"));
    println!("{}", docs.markdown);
}
