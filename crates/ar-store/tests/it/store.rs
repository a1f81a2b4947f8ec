//! The endpoint store as a consumer sees it: merges, splits, keys, search, scope.

use ar_store::scope::{OutReason, Scope, ScopeConfig, ScopeDecision};
use ar_store::store::{EndpointStore, Query, StoreConfig, ValueKind};
use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Timestamp};

use ar_flow::testing::json_flow;

fn store() -> EndpointStore {
    EndpointStore::new(
        Scope::new(ScopeConfig::for_target("https://shop.test")).unwrap(),
        StoreConfig::default(),
    )
}

#[test]
fn widening_merges_endpoints_and_keeps_everything() {
    let mut s = store();
    // Below a word that names no collection, three alike leaves make a parameter.
    let slugs = ["red-shoe", "blue-hat"];
    for (i, slug) in slugs.iter().enumerate() {
        let hit = s.ingest(&json_flow(
            i as u64,
            "GET",
            &format!("https://api.shop.test/shop/{slug}?lang=en"),
            200,
            "{\"id\":1,\"name\":\"x\"}",
        ));
        assert!(
            hit.endpoint.unwrap().is_new,
            "{slug} is its own endpoint until there is evidence"
        );
    }
    assert_eq!(s.endpoints().len(), 2);
    let third = s.ingest(&json_flow(
        9,
        "GET",
        "https://api.shop.test/shop/white-sock",
        404,
        "{\"id\":2,\"name\":\"y\"}",
    ));
    // The 404 has a different body shape only by values; same keys, so it joins.
    assert_eq!(
        s.endpoints().len(),
        1,
        "{:?}",
        s.endpoints()
            .iter()
            .map(|e| e.key().to_string())
            .collect::<Vec<_>>()
    );
    let ep = s.endpoints()[0];
    assert_eq!(ep.key().as_str(), "GET api.shop.test/shop/{shop}");
    assert_eq!(ep.flow_count(), 3);
    assert_eq!(ep.statuses().get(&404), Some(&1));
    assert_eq!(ep.query_params().params["lang"].seen, 2, "params merge too");
    assert_eq!(
        third.merged.len(),
        1,
        "the other endpoint folded into the oldest"
    );
    assert!(third.merged.iter().all(|m| m.into == ep.id()));
    assert!(ep.merged_from().len() == 1);
    // Old keys still resolve to the survivor.
    assert_eq!(
        s.resolve_key("GET api.shop.test/shop/blue-hat")
            .unwrap()
            .id(),
        ep.id()
    );
    assert_eq!(ep.samples().count(), 3);
}

#[test]
fn a_wrong_merge_can_be_split_back() {
    let mut s = store();
    s.ingest(&json_flow(
        1,
        "GET",
        "https://api.shop.test/repos/rust-lang/cargo/issues",
        200,
        "[]",
    ));
    s.ingest(&json_flow(
        2,
        "GET",
        "https://api.shop.test/repos/tokio-rs/tokio/issues",
        200,
        "[]",
    ));
    s.ingest(&json_flow(
        3,
        "GET",
        "https://api.shop.test/repos/tokio-rs/tokio/issues",
        200,
        "[]",
    ));
    let ep = s.endpoints()[0];
    assert_eq!(
        ep.key().as_str(),
        "GET api.shop.test/repos/{owner}/{repo}/issues"
    );
    let explanation = s.explain(ep.id()).unwrap().to_string();
    assert!(
        explanation.contains("[1] {owner}: distinct literals whose subtrees end alike at `issues`"),
        "{explanation}"
    );
    let outcome = s.split(ep.id(), 1).unwrap();
    assert_eq!(outcome.created.len(), 1);
    let keys: Vec<(String, u64)> = s
        .endpoints()
        .iter()
        .map(|e| (e.key().to_string(), e.flow_count()))
        .collect();
    assert_eq!(
        keys,
        [
            (
                "GET api.shop.test/repos/rust-lang/cargo/issues".to_string(),
                1
            ),
            (
                "GET api.shop.test/repos/tokio-rs/tokio/issues".to_string(),
                2
            )
        ]
    );
    assert!(
        s.split(outcome.created[0], 0).is_err(),
        "a literal segment cannot be split"
    );
}

#[test]
fn provenance_names_parameters_and_links_endpoints() {
    let mut s = store();
    s.ingest(&json_flow(
        1,
        "GET",
        "https://api.shop.test/api/orders",
        200,
        "{\"orders\":[{\"id\":\"A1B2C3\"},{\"id\":\"Z9Y8X7\"}]}",
    ));
    let hit = s
        .ingest(&json_flow(
            2,
            "GET",
            "https://api.shop.test/api/orders/A1B2C3",
            200,
            "{\"id\":\"A1B2C3\"}",
        ))
        .endpoint
        .unwrap();
    assert_eq!(
        hit.key.as_str(),
        "GET api.shop.test/api/orders/{orderId}",
        "a single sample suffices"
    );
    let ep = s.endpoint(hit.id).unwrap();
    let link = &ep.links()[0];
    assert_eq!(
        (link.param.as_str(), link.field_path.as_str(), link.position),
        ("orderId", "$.orders[].id", 2)
    );
    assert_eq!(
        s.endpoint(link.source).unwrap().key().as_str(),
        "GET api.shop.test/api/orders"
    );
}

#[test]
fn graphql_is_keyed_by_operation_and_collisions_get_suffixes() {
    let mut s = store();
    let mut post = Request::new("POST", "https://api.shop.test/graphql", HttpVersion::Http2);
    post.body = Body::from_decoded(
        Some("application/json".into()),
        br#"{"operationName":"Cart","query":"query Cart { cart { id } }"}"#.to_vec(),
    );
    let a = s
        .ingest(&Flow::new(
            FlowId(1),
            Timestamp::from_unix_micros(0),
            Client::Human,
            post,
        ))
        .endpoint
        .unwrap();
    let get = Request::new(
        "GET",
        "https://api.shop.test/graphql?operationName=Cart&query=query%20Cart%20%7B%20cart%20%7B%20id%20%7D%20%7D",
        HttpVersion::Http2,
    );
    let b = s
        .ingest(&Flow::new(
            FlowId(2),
            Timestamp::from_unix_micros(1),
            Client::Human,
            get,
        ))
        .endpoint
        .unwrap();
    assert_eq!((a.key.as_str(), b.key.as_str()), ("Cart", "Cart#2"));
    assert_eq!(s.resolve_key("Cart#2").unwrap().method(), "GET");
}

#[test]
fn params_statuses_and_search() {
    let mut s = store();
    for (i, q) in ["?page=1&sort=new", "?page=2", "?page=3&sort=old"]
        .iter()
        .enumerate()
    {
        let mut f = json_flow(
            i as u64,
            "GET",
            &format!("https://api.shop.test/api/v1/items{q}"),
            if i == 2 { 500 } else { 200 },
            "[]",
        );
        f.request.headers.push("Authorization", "Bearer abc.def");
        f.request.headers.push(":authority", "api.shop.test");
        s.ingest(&f);
    }
    s.ingest(&json_flow(
        7,
        "DELETE",
        "https://api.shop.test/api/v1/items/5",
        204,
        "",
    ));
    let ep = s.resolve_key("GET api.shop.test/api/v1/items").unwrap();
    let page = &ep.query_params().params["page"];
    assert_eq!(
        (page.seen, page.kinds.keys().copied().collect::<Vec<_>>()),
        (3, vec![ValueKind::Integer]),
        "always present"
    );
    assert_eq!(ep.query_params().params["sort"].seen, 2);
    let auth = &ep.header_params().params["authorization"];
    assert!(
        auth.sensitive && auth.examples.is_empty(),
        "secrets are never kept"
    );
    assert!(!ep.header_params().params.contains_key(":authority"));
    assert_eq!(s.search(&Query::text("ITEMS")).len(), 2);
    assert_eq!(s.search(&Query::all().with_method("delete")).len(), 1);
    assert_eq!(s.search(&Query::all().with_status(5)).len(), 1);
    assert_eq!(
        s.search(&Query::all().with_host("shop.test").with_status(204))[0].method(),
        "DELETE"
    );
    assert!(
        s.search(&Query::text("sort"))
            .iter()
            .all(|e| e.method() == "GET")
    );
}

#[test]
fn out_of_scope_flows_are_counted_not_stored() {
    let mut s = store();
    let tracker = s.ingest(&json_flow(
        1,
        "POST",
        "https://metrics.test/v1/events",
        202,
        "{}",
    ));
    assert_eq!(tracker.scope, ScopeDecision::Out(OutReason::Tracker));
    assert!(tracker.endpoint.is_none());
    s.ingest(&json_flow(
        2,
        "GET",
        "https://cdn.other.test/lib.js",
        200,
        "",
    ));
    s.ingest(&json_flow(3, "GET", "https://cdn.other.test/x", 200, "{}"));
    let out: Vec<String> = s
        .out_of_scope()
        .iter()
        .map(|o| format!("{} {} {}", o.host, o.reason.as_str(), o.count))
        .collect();
    assert_eq!(
        out,
        [
            "cdn.other.test out_of_scope_host 2",
            "metrics.test tracker 1"
        ]
    );
    assert_eq!(s.stats().out_of_scope, 3);
    assert!(s.endpoints().is_empty());
}

#[test]
fn endpoint_cap_bounds_memory() {
    let mut config = StoreConfig::default();
    config.max_endpoints = 3;
    let mut s = EndpointStore::new(Scope::everything(), config);
    for (i, m) in ["GET", "POST", "PUT", "PATCH", "DELETE"].iter().enumerate() {
        s.ingest(&json_flow(
            i as u64,
            m,
            "https://api.test/things",
            200,
            "{}",
        ));
    }
    assert_eq!(s.endpoints().len(), 3);
    assert_eq!(s.stats().over_endpoint_cap, 2);
}

mod robustness {
    use ar_store::scope::Scope;
    use ar_store::store::{EndpointStore, StoreConfig};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Arbitrary flows (odd URLs, binary bodies, no response) never panic the store,
        /// and every flow is counted exactly once.
        #[test]
        fn arbitrary_flows_are_counted_and_never_panic(flows in prop::collection::vec(ar_flow::testing::flow(), 1..20)) {
            let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
            for f in &flows {
                store.ingest(f);
            }
            let stats = store.stats();
            prop_assert_eq!(stats.flows, flows.len() as u64);
            prop_assert_eq!(stats.in_scope + stats.out_of_scope, stats.flows);
            let stored: u64 = store.endpoints().iter().map(|e| e.flow_count()).sum();
            prop_assert_eq!(stored + stats.over_endpoint_cap, stats.in_scope);
        }
    }
}

/// Issue #31: 10^5 distinct ids under one prefix, a crawler's or a hostile
/// client's worth, fold into one endpoint, and the store's memory stays that
/// of a few endpoints (the templater keeps a bounded number of literals per
/// position and folds past it), not of 10^5 paths.
#[test]
fn a_hundred_thousand_distinct_paths_under_one_prefix_fold_in_bounded_memory() {
    const PATHS: u64 = 100_000;
    let mut s = store();
    for i in 0..PATHS {
        let url = format!("https://api.shop.test/v1/things/{:x}q{i}", i * 7919);
        s.ingest(&json_flow(i, "GET", &url, 200, "{\"id\":1}"));
    }
    let endpoints = s.endpoints();
    let keys: Vec<&str> = endpoints.iter().map(|e| e.key().as_str()).collect();
    assert_eq!(keys, ["GET api.shop.test/v1/things/{thing}"]);
    assert_eq!(s.stats().in_scope, PATHS);
    assert!(
        s.approx_heap_bytes() < 4 << 20,
        "the store holds {} bytes",
        s.approx_heap_bytes()
    );
}
