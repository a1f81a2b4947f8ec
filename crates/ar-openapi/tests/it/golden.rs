//! Golden files of the YAML and markdown for each canned HAR, and determinism.

use ar_openapi::{Annotation, Documenter, Enrichment, Options, Redactor, document};
use ar_store::scope::{Scope, ScopeConfig};
use ar_store::store::{EndpointStore, StoreConfig};

use ar_flow::testing::json_flow;
use ar_store::Body;

use crate::{HARS, document_flows, everything, flows, import};

#[test]
fn yaml_and_markdown_match_the_golden_files() {
    for name in HARS {
        let imported = import(name, everything());
        let yaml = imported.docs.yaml().unwrap();
        insta::assert_snapshot!(format!("{name}_yaml"), yaml);
        insta::assert_snapshot!(format!("{name}_markdown"), imported.docs.markdown);
    }
}

#[test]
fn the_same_input_gives_byte_identical_output() {
    for name in HARS {
        let a = import(name, everything());
        let b = import(name, everything());
        assert_eq!(a.docs.yaml().unwrap(), b.docs.yaml().unwrap(), "{name}");
        assert_eq!(a.docs.json().unwrap(), b.docs.json().unwrap(), "{name}");
        assert_eq!(a.docs.markdown, b.docs.markdown, "{name}");
    }
}

#[test]
fn rest_paths_have_typed_parameters_and_literals_stay_literal() {
    let yaml = import("rest", everything()).docs.yaml().unwrap();
    for expected in [
        "/users/{userId}:",
        "/users/me:",
        "/products/{product}:",
        "/orders/{orderId}:",
        "/users/{userId}/orders:",
    ] {
        assert!(yaml.contains(expected), "{expected} missing:\n{yaml}");
    }
    let spec: serde_json::Value =
        serde_json::from_str(&import("rest", everything()).docs.json().unwrap()).unwrap();
    let user_id = &spec["paths"]["/users/{userId}"]["get"]["parameters"][0];
    assert_eq!(user_id["schema"]["type"], "integer", "{user_id}");
    let order_id = &spec["paths"]["/orders/{orderId}"]["get"]["parameters"][0];
    assert_eq!(order_id["schema"]["format"], "uuid", "{order_id}");
    // The order id came from the order list: a link and a "where it comes from".
    let links = &spec["paths"]["/users/{userId}/orders"]["get"]["responses"]["200"]["links"];
    assert!(links.to_string().contains("getOrder"), "{links}");
    let page = spec["paths"]["/users"]["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "page")
        .cloned()
        .unwrap();
    assert_eq!(
        (
            page["in"].as_str(),
            page["required"].as_bool(),
            page["schema"]["type"].as_str()
        ),
        (Some("query"), Some(true), Some("integer"))
    );
    // The user shape repeats across endpoints: one component, referenced.
    assert!(
        spec["components"]["schemas"]["User"].is_object(),
        "{}",
        spec["components"]
    );
}

#[test]
fn response_headers_that_describe_the_api_are_documented_and_server_noise_is_not() {
    let spec: serde_json::Value =
        serde_json::from_str(&import("rest", everything()).docs.json().unwrap()).unwrap();
    let headers = &spec["paths"]["/users"]["get"]["responses"]["200"]["headers"];
    let names: Vec<&str> = headers
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    // Date, Server, Cache-Control, Strict-Transport-Security and cf-ray were sent too.
    assert_eq!(
        names,
        [
            "Link",
            "X-RateLimit-Remaining",
            "X-Request-Id",
            "X-Total-Count"
        ]
    );
    assert_eq!(headers["X-Total-Count"]["schema"]["type"], "integer");
    assert_eq!(headers["X-Total-Count"]["required"], true);
    assert_eq!(headers["X-Request-Id"]["schema"]["format"], "uuid");
    // The last page has no `Link`: documented, not required.
    assert!(headers["Link"].get("required").is_none(), "{headers}");
    let created = &spec["paths"]["/users"]["post"]["responses"]["201"]["headers"]["Location"];
    assert_eq!(created["example"], "https://api.shop.test/api/v1/users/44");
}

#[test]
fn graphql_operations_are_documented_by_name() {
    let imported = import("graphql", everything());
    let spec: serde_json::Value = serde_json::from_str(&imported.docs.json().unwrap()).unwrap();
    let ops = spec["paths"]["/graphql"]["post"]["x-graphql-operations"]
        .as_array()
        .expect("x-graphql-operations");
    let names: Vec<&str> = ops.iter().map(|op| op["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["AddToCart", "Feed", "GetUser"]);
    assert_eq!(ops[0]["type"], "mutation");
    assert!(imported.docs.markdown.contains("## GraphQL operations"));
    assert!(imported.docs.markdown.contains("### `GetUser` (query)"));
}

/// An operation's answer is read as the rest of a JSON body is, from its
/// bytes (the store's one read of it): a literal with an exponent is a
/// `number` however large; a batch's answer gives each call its item.
#[test]
fn graphql_answers_are_typed_by_their_literals() {
    let call = |id, body: &str, answer: &str| {
        let mut flow = json_flow(id, "POST", "https://api.shop.test/graphql", 200, answer);
        flow.request.body =
            Body::from_decoded(Some("application/json".into()), body.as_bytes().to_vec());
        flow
    };
    let rating = r#"{"query":"query Rating { rating }"}"#;
    let user = r#"{"query":"query GetUser { user { id } }"}"#;
    let flows = [
        call(1, rating, r#"{"data":{"rating":3.158e+38}}"#),
        call(
            2,
            &format!("[{rating},{user}]"),
            r#"[{"data":{"rating":2.5}},{"data":{"user":{"id":7}}}]"#,
        ),
    ];
    let store = EndpointStore::new(Scope::new(everything()).unwrap(), StoreConfig::default());
    let (_, docs) = document_flows(store, &flows, &ar_openapi::Options::default());
    let spec: serde_json::Value = serde_json::from_str(&docs.json().unwrap()).unwrap();
    let ops = spec["paths"]["/graphql"]["post"]["x-graphql-operations"]
        .as_array()
        .expect("x-graphql-operations");
    let response = |name: &str| {
        let op = ops.iter().find(|op| op["name"] == name).expect(name);
        op["response"]["properties"]["data"]["properties"].clone()
    };
    assert_eq!(response("Rating")["rating"]["type"], "number", "{ops:?}");
    assert_eq!(
        response("GetUser")["user"]["properties"]["id"]["type"],
        "integer"
    );
}

/// Apollo's persisted queries: a GET with `operationName`, `variables` and
/// a hash, or a POST with a name and a hash, no document. The store keys
/// each operation; the documentation documents the same ones.
#[test]
fn persisted_queries_are_documented_as_the_operations_the_store_keys() {
    let extensions = "extensions=%7B%22persistedQuery%22%3A%7B%22sha256Hash%22%3A%22ab%22%7D%7D";
    let get = |id, op: &str, variables: &str| {
        let url = format!(
            "https://api.shop.test/graphql?operationName={op}&variables={variables}&{extensions}"
        );
        json_flow(id, "GET", &url, 200, r#"{"data":{"user":{"id":1}}}"#)
    };
    let post = |id, body: &str| {
        let mut flow = json_flow(
            id,
            "POST",
            "https://api.shop.test/graphql",
            200,
            r#"{"data":{"addToCart":{"id":3}}}"#,
        );
        flow.request.body =
            Body::from_decoded(Some("application/json".into()), body.as_bytes().to_vec());
        flow
    };
    let flows = [
        get(1, "GetUser", "%7B%22id%22%3A1%7D"),
        get(2, "ListOrders", "%7B%22first%22%3A10%7D"),
        post(
            3,
            r#"{"operationName":"AddToCart","variables":{"id":3},"extensions":{"persistedQuery":{"sha256Hash":"cd"}}}"#,
        ),
        post(
            4,
            r#"{"query":"mutation AddToCart($id: ID!) { addToCart(id: $id) { id } }","variables":{"id":4}}"#,
        ),
    ];
    let store = EndpointStore::new(Scope::new(everything()).unwrap(), StoreConfig::default());
    let (store, docs) = document_flows(store, &flows, &ar_openapi::Options::default());
    let keyed: Vec<String> = store
        .endpoints()
        .into_iter()
        .filter_map(|e| e.graphql().and_then(|op| op.name.clone()))
        .collect();
    assert_eq!(keyed, ["AddToCart", "GetUser", "ListOrders"]);
    let spec = serde_json::to_value(&docs.openapi).unwrap();
    let get_ops = spec["paths"]["/graphql"]["get"]["x-graphql-operations"]
        .as_array()
        .unwrap();
    let names: Vec<&str> = get_ops
        .iter()
        .map(|op| op["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["GetUser", "ListOrders"]);
    assert_eq!(
        get_ops[1]["variables"]["properties"]["first"]["type"], "integer",
        "{get_ops:?}"
    );
    assert_eq!(
        get_ops[0]["type"], "unknown",
        "a persisted query sends no document"
    );
    // The first call was persisted (no kind sent); the second sends the document.
    let post_ops = &spec["paths"]["/graphql"]["post"]["x-graphql-operations"];
    assert_eq!(post_ops[0]["type"], "mutation", "{post_ops}");
    assert_eq!(post_ops[0]["calls"], 2);
    assert!(
        docs.markdown
            .contains("### `GetUser` (persisted: no document sent)"),
        "{}",
        docs.markdown
    );
    assert!(docs.markdown.contains("### `AddToCart` (mutation)"));
}

#[test]
fn every_auth_kind_becomes_a_scheme_on_the_operations_that_use_it() {
    let spec: serde_json::Value =
        serde_json::from_str(&import("auth", everything()).docs.json().unwrap()).unwrap();
    let schemes = &spec["components"]["securitySchemes"];
    assert_eq!(schemes["bearerAuth"]["bearerFormat"], "JWT");
    assert_eq!(schemes["basicAuth"]["scheme"], "basic");
    assert_eq!(
        (
            schemes["xApiKeyHeader"]["in"].as_str(),
            schemes["xApiKeyHeader"]["name"].as_str()
        ),
        (Some("header"), Some("X-API-Key"))
    );
    assert_eq!(schemes["apiKeyQuery"]["in"], "query");
    assert_eq!(
        (
            schemes["sessionidCookie"]["in"].as_str(),
            schemes["sessionidCookie"]["name"].as_str()
        ),
        (Some("cookie"), Some("sessionid"))
    );
    // `/me` was called with and without a token: auth is optional there.
    assert_eq!(
        spec["paths"]["/me"]["get"]["security"],
        serde_json::json!([{}, {"bearerAuth": []}])
    );
    assert!(
        spec["paths"]["/public/status"]["get"]
            .get("security")
            .is_none()
    );
    // The API key in the query is a security scheme, not a parameter.
    let tiles = spec["paths"]["/maps/tiles"]["get"]["parameters"].to_string();
    assert!(
        !tiles.contains("api_key") && tiles.contains("\"z\""),
        "{tiles}"
    );
}

#[test]
fn forms_and_multipart_document_their_fields() {
    let spec: serde_json::Value =
        serde_json::from_str(&import("forms", everything()).docs.json().unwrap()).unwrap();
    let login = &spec["paths"]["/login"]["post"]["requestBody"]["content"]["application/x-www-form-urlencoded"];
    assert_eq!(
        login["schema"]["properties"]["remember"]["type"], "string",
        "{login}"
    );
    assert_eq!(login["example"]["password"], "REDACTED");
    let photo = &spec["paths"]["/photos"]["post"]["requestBody"]["content"]["multipart/form-data"]
        ["schema"];
    assert_eq!(photo["properties"]["photo"]["format"], "binary", "{photo}");
    assert_eq!(photo["properties"]["caption"]["type"], "string");
    assert_eq!(
        spec["paths"]["/notes"]["post"]["requestBody"]["content"]["text/plain"]["schema"]["type"],
        "string"
    );
    assert_eq!(
        spec["paths"]["/avatar"]["put"]["requestBody"]["content"]["application/octet-stream"]["schema"]
            ["format"],
        "binary"
    );
}

#[test]
fn enrichment_names_operations_and_the_store_merges_are_followed() {
    // Slugs widen into one template only after several samples: the documenter
    // must follow the store's merges so nothing seen before is lost.
    let mut store = EndpointStore::new(
        Scope::new(ScopeConfig::default()).unwrap(),
        StoreConfig::default(),
    )
    .with_evidence(Documenter::new(Redactor::new()));
    for flow in flows("rest") {
        store.ingest(&flow);
    }
    let key = store
        .endpoints()
        .iter()
        .find(|e| e.template().to_string() == "/api/v1/products/{product}")
        .map(|e| e.key().as_str().to_string())
        .expect("slugs merged");
    let mut enrichment = Enrichment::new();
    enrichment.insert(
        key,
        Annotation {
            operation_id: Some("showProduct".into()),
            summary: Some("One product by slug".into()),
            tag: Some("catalog".into()),
            description: None,
        },
    );
    let docs = document(&store, &enrichment, &Options::default()).unwrap();
    let spec: serde_json::Value = serde_json::from_str(&docs.json().unwrap()).unwrap();
    let op = &spec["paths"]["/products/{product}"]["get"];
    assert_eq!(
        (
            op["operationId"].as_str(),
            op["summary"].as_str(),
            op["tags"][0].as_str()
        ),
        (
            Some("showProduct"),
            Some("One product by slug"),
            Some("catalog")
        )
    );
    assert_eq!(
        op["x-ar-flows"], 5,
        "all five slug flows are in the merged endpoint"
    );
}

#[test]
fn a_split_in_the_store_splits_the_documentation() {
    let mut store = EndpointStore::new(
        Scope::new(ScopeConfig::default()).unwrap(),
        StoreConfig::default(),
    )
    .with_evidence(Documenter::new(Redactor::new()));
    for flow in flows("rest") {
        store.ingest(&flow);
    }
    let merged = store
        .endpoints()
        .iter()
        .find(|e| e.template().to_string() == "/api/v1/products/{product}")
        .map(|e| e.id())
        .expect("slugs merged");
    store.split(merged, 3).unwrap();
    let spec: serde_json::Value = serde_json::from_str(
        &document(&store, &Enrichment::new(), &Options::default())
            .unwrap()
            .json()
            .unwrap(),
    )
    .unwrap();
    let paths: Vec<&String> = spec["paths"]
        .as_object()
        .unwrap()
        .keys()
        .filter(|p| p.starts_with("/products"))
        .collect();
    assert_eq!(
        paths,
        [
            "/products/black-belt",
            "/products/blue-hat",
            "/products/green-scarf",
            "/products/red-shoes",
            "/products/yellow-socks"
        ]
    );
    for path in paths {
        assert_eq!(
            spec["paths"][path]["get"]["x-ar-flows"], 1,
            "{path}: evidence rebuilt from its own samples"
        );
    }
}
