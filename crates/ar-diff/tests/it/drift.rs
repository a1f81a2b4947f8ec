//! Traffic held against a published spec: every spec-bench API's HAR against its own spec
//! (the traffic was generated from it), and the goldens of the two renderings.

use std::io::Read;
use std::path::PathBuf;

use ar_diff::{Baseline, Drift, DriftReport, Exchange, FindingKind, Payload};
use flate2::read::GzDecoder;
use serde_json::{Value, json};

use crate::corpus::corpus;
use crate::doc;

/// One HAR entry, read for a drift.
struct Entry {
    method: String,
    url: String,
    headers: Vec<String>,
    request: Option<(Option<String>, Option<String>)>,
    status: u16,
    response: Option<(Option<String>, Option<String>)>,
}

fn body(mime: Option<&str>, text: Option<&str>) -> Option<(Option<String>, Option<String>)> {
    let text = text.filter(|t| !t.is_empty())?;
    Some((mime.map(str::to_owned), Some(text.to_owned())))
}

/// The entries of `api`'s HAR, in order (flow ids are their positions, from 1).
fn har(api: &str) -> Vec<Entry> {
    let root = std::env::var_os("SPEC_BENCH_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec-bench"),
        PathBuf::from,
    );
    let path = root.join("corpus").join(api).join(format!("{api}.har.gz"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    GzDecoder::new(bytes.as_slice())
        .read_to_string(&mut text)
        .expect("gzip");
    let har: Value = serde_json::from_str(&text).expect("a HAR");
    let entries = har["log"]["entries"].as_array().expect("entries");
    entries
        .iter()
        .map(|e| {
            let request = &e["request"];
            let response = &e["response"];
            Entry {
                method: request["method"].as_str().unwrap_or_default().to_owned(),
                url: request["url"].as_str().unwrap_or_default().to_owned(),
                headers: request["headers"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|h| h["name"].as_str().map(str::to_owned))
                    .collect(),
                request: body(
                    request["postData"]["mimeType"].as_str(),
                    request["postData"]["text"].as_str(),
                ),
                status: response["status"].as_u64().unwrap_or_default() as u16,
                response: body(
                    response["content"]["mimeType"].as_str(),
                    response["content"]["text"].as_str(),
                ),
            }
        })
        .collect()
}

fn payload(body: &(Option<String>, Option<String>)) -> Payload<'_> {
    Payload::new(body.0.as_deref(), body.1.as_deref().map(str::as_bytes))
}

/// `api`'s traffic held against `spec`.
fn held(api: &str, spec: Value) -> DriftReport {
    let mut drift = Drift::new(Baseline::new(doc(spec), format!("{api}.json")));
    for (id, entry) in (1..).zip(har(api).iter()) {
        let mut exchange = Exchange::new(id, &entry.method, &entry.url)
            .headers(&entry.headers)
            .response(entry.status, entry.response.as_ref().map(payload));
        if let Some(body) = &entry.request {
            exchange = exchange.request_body(payload(body));
        }
        drift.observe(&exchange);
    }
    drift.report()
}

/// Where a spec-bench API's own traffic departs from its published spec, and why: the
/// published documents contradict themselves in places, and the generator's mock answers and
/// request bodies cut recursion and depth short. Each entry is (API, finding kind, location
/// or `*`); any finding no entry explains fails the test, and so does an entry that explains
/// nothing. No API calls a shadow endpoint.
const EXPLAINED: &[(&str, FindingKind, &str)] = &[
    // The generator calls some operations the spec marks deprecated.
    ("*", FindingKind::ZombieEndpoint, "*"),
    // json-schema-faker filled `additionalProperties: {type: string}` maps with objects.
    ("asana", FindingKind::WrongType, "request_body"),
    // The spec requires `includeThumbnail` but lists the property as `includeThumbenail`.
    ("contribly", FindingKind::MissingRequiredField, "response"),
    // The oracle documents the `Api-Key` and `Api-Username` headers on 9 of the 40 operations
    // the traffic calls, and every call sends them.
    ("discourse", FindingKind::UndocumentedParameter, "header"),
    // A recursive schema cut short with `null` by the mock.
    ("docusign", FindingKind::WrongType, "response"),
    // The `apiKey` scheme names the header `PRIVATE_HEADER`; clients send `PRIVATE-TOKEN`.
    ("gitlab", FindingKind::UndocumentedParameter, "header"),
    // Recursive schemas cut short (`null`, or invented keys) and map values faked as
    // booleans by the mock; the `apiKey` scheme names `X-Emby-Authorization`, clients send
    // `X-Emby-Token`.
    ("jellyfin", FindingKind::WrongType, "response"),
    ("jellyfin", FindingKind::UndocumentedField, "response"),
    ("jellyfin", FindingKind::UndocumentedParameter, "header"),
    // Request bodies nested past the faker's depth of 4 hold `null`; maps faked as booleans.
    ("plaid", FindingKind::WrongType, "request_body"),
    ("plaid", FindingKind::WrongType, "response"),
    // The faker left out a required `url` whose `pattern` it could not satisfy.
    ("sendgrid", FindingKind::MissingRequiredField, "response"),
    // `content_filter` is `type: array` with an `enum` of strings, and the mock answers a
    // string; deep required fields cut by the mock; request bodies sent as
    // `application/json` where the spec documents `application/vnd.vimeo.*+json`.
    ("vimeo", FindingKind::WrongType, "response"),
    ("vimeo", FindingKind::MissingRequiredField, "response"),
    ("vimeo", FindingKind::UndocumentedMediaType, "request_body"),
    // Fields typed `string` whose `enum` holds integers (`enum: [Group, 61]`).
    ("zoom", FindingKind::WrongType, "response"),
];

#[test]
fn every_published_spec_held_against_its_own_traffic_departs_only_where_explained() {
    let mut unexplained = Vec::new();
    let mut used = vec![false; EXPLAINED.len()];
    for (api, spec) in corpus() {
        let report = held(&api, spec);
        let summary = report.summary();
        assert_eq!(summary.flows, summary.flows_matched, "{api}");
        assert_eq!(summary.shadow_endpoints, 0, "{api}");
        for finding in report.findings() {
            let location = finding.location.map_or("*".to_owned(), |l| {
                serde_json::to_value(l)
                    .expect("a location")
                    .as_str()
                    .unwrap_or_default()
                    .to_owned()
            });
            let explained = EXPLAINED.iter().position(|&(a, kind, at)| {
                (a == api || a == "*") && kind == finding.kind && (at == location || at == "*")
            });
            match explained {
                Some(at) => used[at] = true,
                None => unexplained.push(format!(
                    "{api}: {} {} {} {:?}",
                    finding.method, finding.path, finding.message, finding.flow_ids
                )),
            }
        }
    }
    assert!(unexplained.is_empty(), "{}", unexplained.join("\n"));
    let stale: Vec<_> = EXPLAINED
        .iter()
        .zip(used)
        .filter(|(_, used)| !used)
        .collect();
    assert!(
        stale.is_empty(),
        "explanations that explain nothing: {stale:?}"
    );
}

fn golden_report() -> DriftReport {
    let spec = json!({
        "openapi": "3.1.0",
        "info": {"title": "Pets", "version": "1.2.0"},
        "servers": [{"url": "https://pets.test/api"}],
        "paths": {
            "/pets/{petId}": {"get": {"responses": {"200": {"content": {"application/json": {
                "schema": {"type": "object", "required": ["id", "name"], "properties": {
                    "id": {"type": "integer"}, "name": {"type": "string"},
                    "tag": {"type": ["string", "null"]}}}}}}}}},
            "/pets": {"get": {
                "deprecated": true,
                "parameters": [{"name": "limit", "in": "query", "required": true}],
                "responses": {"200": {"content": {"application/json": {"schema": {
                    "type": "array", "items": {"type": "object", "properties": {
                        "id": {"type": "integer"}}}}}}}}}}
        }
    });
    let mut drift = Drift::new(Baseline::new(doc(spec), "pets.yaml"));
    let good = json!({"id": 1, "name": "Rex", "tag": null});
    let bad = json!({"id": "1", "tag": 3, "owner": {"id": 2}});
    let list = json!([{"id": 1, "color": "red"}]);
    let flows: [(u64, &str, &str, u16, Option<&Value>); 7] = [
        (1, "GET", "https://pets.test/api/pets/1", 200, Some(&good)),
        (2, "GET", "https://pets.test/api/pets/2", 200, Some(&bad)),
        (3, "GET", "https://pets.test/api/pets/3", 418, None),
        (
            4,
            "GET",
            "https://pets.test/api/pets?page=2",
            200,
            Some(&list),
        ),
        (5, "POST", "https://pets.test/api/pets", 201, None),
        (
            6,
            "GET",
            "https://pets.test/api/owners/9/pets",
            200,
            Some(&list),
        ),
        (
            7,
            "GET",
            "https://cdn.pets.test/config.json",
            200,
            Some(&good),
        ),
    ];
    for (id, method, url, status, body) in flows {
        let text = body.map(Value::to_string);
        let body = text
            .as_deref()
            .map(|b| Payload::new(Some("application/json"), Some(b.as_bytes())));
        drift.observe(
            &Exchange::new(id, method, url)
                .headers(&["Host", "X-Pets-Client"])
                .response(status, body),
        );
    }
    drift.report()
}

#[test]
fn drift_markdown() {
    insta::assert_snapshot!(golden_report().to_markdown());
}

#[test]
fn drift_json() {
    insta::assert_snapshot!(golden_report().to_json());
}
