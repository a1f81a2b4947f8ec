//! Every spec `ar` writes is valid, whatever the traffic: generated traffic
//! (version segments, ids, slugs, suffixes, YAML 1.1 words, secrets in every
//! place, bodies with awkward keys) goes through the real store and
//! documenter. A proptest checks in Rust the rules a reader relies on; a
//! batch of the same traffic goes through openapi-spec-validator.

use std::collections::BTreeSet;

use ar_openapi::{Documentation, Options};
use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use serde_json::{Map, Value};

use crate::document_flows;
use crate::validator::assert_all_valid;

/// Words a path, a query or a body may hold: names, YAML 1.1 booleans and
/// nulls, words the redactor knows, and what is left of a spec's syntax.
const WORDS: &[&str] = &[
    "users",
    "orders",
    "me",
    "search",
    "on",
    "off",
    "yes",
    "no",
    "null",
    "true",
    "y",
    "~",
    "items",
    "token",
    "password",
    "api_key",
    "REDACTED",
    "$ref",
    "files.list",
    "v1",
    "v2",
    "1",
    "2.0",
    "2015-03-31",
    "default",
    "a b",
    "x:y",
    "#",
    "'q'",
];

fn word() -> impl Strategy<Value = String> {
    prop::sample::select(WORDS).prop_map(str::to_string)
}

/// One path segment: a word, an id of some kind, a slug, a value with a
/// format suffix, or a percent-encoded value.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => word().prop_map(|w| w.replace(' ', "%20").replace('#', "%23")),
        2 => (1u64..100_000).prop_map(|n| n.to_string()),
        1 => "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}",
        1 => "[0-9a-f]{24}",
        1 => "[a-z]{3,8}-[a-z]{3,8}",
        1 => (1u64..1000).prop_map(|n| format!("{n}.json")),
        1 => "[a-z]{2,6}%2F[a-z]{2,6}",
        1 => "[a-z]{3,6}_[A-Za-z0-9]{10}",
    ]
}

/// One JSON value, with awkward keys and strings.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        word().prop_map(Value::String),
        "[ -~]{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec((word(), inner), 0..5)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// One exchange, as the proxy would capture it.
#[derive(Debug, Clone)]
struct Exchange {
    method: &'static str,
    path: Vec<String>,
    query: Vec<(String, String)>,
    status: u16,
    request: Option<Value>,
    response: Option<Value>,
    secret: String,
}

fn exchange() -> impl Strategy<Value = Exchange> {
    (
        prop::sample::select(&["GET", "GET", "POST", "PUT", "PATCH", "DELETE"][..]),
        prop::collection::vec(segment(), 1..5),
        prop::collection::vec((word(), word()), 0..3),
        prop::sample::select(&[200u16, 200, 201, 204, 400, 404, 500][..]),
        prop::option::of(json()),
        prop::option::of(json()),
        "[A-Za-z0-9]{24}",
    )
        .prop_map(
            |(method, path, query, status, request, response, secret)| Exchange {
                method,
                path,
                query,
                status,
                request,
                response,
                secret,
            },
        )
}

fn traffic() -> impl Strategy<Value = Vec<Exchange>> {
    prop::collection::vec(exchange(), 1..24)
}

fn flow(id: u64, x: &Exchange) -> Flow {
    let query: Vec<String> = (x.query.iter())
        .map(|(k, v)| {
            format!(
                "{}={}",
                k.replace(['#', ' '], "_"),
                v.replace(['#', ' '], "_")
            )
        })
        .chain([format!("access_token={}", x.secret)])
        .collect();
    let url = format!(
        "https://api.gen.test/{}?{}",
        x.path.join("/"),
        query.join("&")
    );
    let mut request = Request::new(x.method, url, HttpVersion::Http11);
    request
        .headers
        .push("Authorization", format!("Bearer {}", x.secret));
    if let Some(body) = &x.request {
        request.headers.push("content-type", "application/json");
        request.body = Body::from_decoded(
            Some("application/json".into()),
            body.to_string().into_bytes(),
        );
    }
    let mut response = Response::new(x.status, HttpVersion::Http11);
    if let Some(body) = &x.response {
        response.headers.push("content-type", "application/json");
        response.body = Body::from_decoded(
            Some("application/json".into()),
            body.to_string().into_bytes(),
        );
    }
    Flow::new(
        FlowId(id),
        Timestamp::from_unix_micros(1_700_000_000_000_000 + id as i64),
        Client::Agent,
        request,
    )
    .with_response(response)
}

/// The spec of `traffic`, through the real store and documenter.
fn documented(traffic: &[Exchange]) -> Documentation {
    let store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    let flows: Vec<Flow> = (traffic.iter().enumerate())
        .map(|(id, x)| flow(id as u64, x))
        .collect();
    document_flows(store, &flows, &Options::default()).1
}

/// Every `$ref` in `v`, examples (which are data) left out.
fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref") {
                out.push(r);
            }
            (m.iter())
                .filter(|(k, _)| !matches!(k.as_str(), "example" | "value"))
                .for_each(|(_, c)| refs(c, out));
        }
        Value::Array(a) => a.iter().for_each(|c| refs(c, out)),
        _ => {}
    }
}

/// The rules a reader of the spec relies on, or what broke one.
fn check(docs: &Documentation, secrets: &BTreeSet<&str>) -> Result<(), String> {
    let json_text = docs.json().map_err(|e| e.to_string())?;
    let yaml_text = docs.yaml().map_err(|e| e.to_string())?;
    let spec: Value = serde_json::from_str(&json_text).map_err(|e| e.to_string())?;
    let from_yaml: Value = serde_norway::from_str(&yaml_text).map_err(|e| e.to_string())?;
    if from_yaml != spec {
        return Err("the YAML and the JSON say different things".into());
    }
    for secret in secrets {
        if json_text.contains(secret) || yaml_text.contains(secret) {
            return Err(format!("the secret {secret} reached the spec"));
        }
    }
    let mut operation_ids = BTreeSet::new();
    let paths = spec["paths"].as_object().ok_or("no paths")?;
    for (path, item) in paths {
        let in_path: Vec<&str> = path
            .split('{')
            .skip(1)
            .filter_map(|s| s.split('}').next())
            .collect();
        let unique: BTreeSet<&str> = in_path.iter().copied().collect();
        if unique.len() != in_path.len() {
            return Err(format!("{path}: a parameter name twice"));
        }
        for (method, op) in item.as_object().ok_or("a path item is no object")? {
            let Some(id) = op.get("operationId").and_then(Value::as_str) else {
                return Err(format!("{method} {path}: no operationId"));
            };
            if !operation_ids.insert(id.to_string()) {
                return Err(format!("operationId {id} twice"));
            }
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            let mut seen = BTreeSet::new();
            let mut declared = BTreeSet::new();
            for p in &params {
                let (name, at) = (
                    p["name"].as_str().unwrap_or(""),
                    p["in"].as_str().unwrap_or(""),
                );
                if !seen.insert((name.to_string(), at.to_string())) {
                    return Err(format!("{method} {path}: parameter {name} in {at} twice"));
                }
                if at == "path" {
                    if p["required"] != Value::Bool(true) {
                        return Err(format!(
                            "{method} {path}: path parameter {name} not required"
                        ));
                    }
                    declared.insert(name.to_string());
                }
            }
            let wanted: BTreeSet<String> = unique.iter().map(|s| s.to_string()).collect();
            if declared != wanted {
                return Err(format!(
                    "{method} {path}: path parameters {declared:?}, template has {wanted:?}"
                ));
            }
            let responses = op["responses"].as_object().ok_or("no responses")?;
            if responses.is_empty() {
                return Err(format!("{method} {path}: no responses"));
            }
        }
    }
    let mut all = Vec::new();
    refs(&spec, &mut all);
    for r in all {
        let target = r
            .strip_prefix("#/")
            .ok_or_else(|| format!("$ref {r} is not local"))?
            .split('/')
            .try_fold(&spec, |v, key| v.get(key))
            .ok_or_else(|| format!("$ref {r} points nowhere"))?;
        if !target.is_object() {
            return Err(format!("$ref {r} points at no object"));
        }
    }
    Ok(())
}

fn secrets(traffic: &[Exchange]) -> BTreeSet<&str> {
    traffic.iter().map(|x| x.secret.as_str()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Unique operationIds, path parameters that match their template,
    /// `$ref`s that resolve, YAML and JSON that agree, no secret anywhere.
    #[test]
    fn every_spec_keeps_the_rules_a_reader_relies_on(traffic in traffic()) {
        let docs = documented(&traffic);
        if let Err(broken) = check(&docs, &secrets(&traffic)) {
            prop_assert!(false, "{}", broken);
        }
    }
}

/// Traffic sets drawn as the proptest draws them, from a fixed seed, each
/// written as YAML and JSON and read by openapi-spec-validator in one run.
#[test]
fn specs_of_generated_traffic_pass_openapi_spec_validator() {
    let dir = tempfile::tempdir().unwrap();
    let mut runner = TestRunner::deterministic();
    let mut files = Vec::new();
    for n in 0..32 {
        let traffic = traffic().new_tree(&mut runner).unwrap().current();
        let docs = documented(&traffic);
        for (ext, text) in [
            ("yaml", docs.yaml().unwrap()),
            ("json", docs.json().unwrap()),
        ] {
            let file = dir.path().join(format!("gen{n}.{ext}"));
            std::fs::write(&file, text).unwrap();
            files.push(file);
        }
    }
    assert_all_valid(&files);
}
