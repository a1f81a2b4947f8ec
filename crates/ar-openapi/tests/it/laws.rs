//! Properties that hold for any input (proptest).

use ar_openapi::{Documenter, Enrichment, Options, Redactor, document};
use ar_store::scope::{Scope, ScopeConfig};
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
use proptest::prelude::*;

fn flow(id: u64, secret: &str, user: u32) -> Flow {
    let mut request = Request::new(
        "GET",
        format!("https://api.shop.test/users/{user}?access_token={secret}&page=2"),
        HttpVersion::Http11,
    );
    request
        .headers
        .push("Authorization", format!("Bearer {secret}"));
    request.headers.push("X-Api-Key", secret);
    request
        .headers
        .push("Cookie", format!("session={secret}; theme=dark"));
    let mut response = Response::new(200, HttpVersion::Http11);
    response
        .headers
        .push("Set-Cookie", format!("session={secret}; HttpOnly"));
    let body =
        serde_json::json!({"id": user, "password": secret, "nested": {"refresh_token": secret}});
    response.body = Body::from_decoded(
        Some("application/json".into()),
        body.to_string().into_bytes(),
    );
    Flow::new(
        FlowId(id),
        Timestamp::from_unix_micros(0),
        Client::Human,
        request,
    )
    .with_response(response)
}

/// `flows` through a store that keeps a documenter, documented.
fn documented(flows: impl IntoIterator<Item = Flow>) -> ar_openapi::Documentation {
    let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
    let mut store = EndpointStore::new(scope, StoreConfig::default())
        .with_evidence(Documenter::new(Redactor::new()));
    for flow in flows {
        store.ingest(&flow);
    }
    document(&store, &Enrichment::new(), &Options::default()).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// A credential sent in any of the usual places never reaches the outputs,
    /// whatever it looks like.
    #[test]
    fn credentials_never_reach_the_outputs(secret in "[A-Za-z0-9_-]{12,40}", users in proptest::collection::vec(1u32..100_000, 1..4)) {
        let docs = documented(users.iter().enumerate().map(|(n, user)| flow(n as u64, &secret, *user)));
        for output in [docs.yaml().unwrap(), docs.json().unwrap(), docs.markdown.clone()] {
            prop_assert!(!output.contains(&secret), "{} leaked", secret);
        }
    }

    /// The spec depends on what was seen, not on the order it was seen in
    /// (examples aside: the first sample is the example).
    #[test]
    fn schemas_and_parameters_do_not_depend_on_arrival_order(users in proptest::collection::vec(1u32..100_000, 2..6)) {
        let build = |order: &[u32]| {
            let json = documented(order.iter().enumerate().map(|(n, user)| flow(n as u64, "tok_abcdefghijkl", *user)))
                .json()
                .unwrap();
            let mut spec: serde_json::Value = serde_json::from_str(&json).unwrap();
            let op = &mut spec["paths"]["/users/{userId}"]["get"];
            op["responses"]["200"]["content"]["application/json"].as_object_mut().unwrap().remove("example");
            for param in op["parameters"].as_array_mut().unwrap() {
                param.as_object_mut().unwrap().remove("example");
            }
            spec
        };
        let mut reversed = users.clone();
        reversed.reverse();
        prop_assert_eq!(build(&users), build(&reversed));
    }
}
