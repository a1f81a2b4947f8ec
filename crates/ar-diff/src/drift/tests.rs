use serde_json::{Value, json};

use super::*;

fn baseline() -> Baseline {
    let document = Document::from_value(json!({
        "openapi": "3.0.3",
        "info": {"title": "Shop", "version": "2.1"},
        "servers": [{"url": "https://api.shop.test/v1"}],
        "paths": {
            "/users/{id}": {
                "get": {
                    "parameters": [{"name": "id", "in": "path", "required": true},
                                   {"name": "fields", "in": "query"}],
                    "responses": {
                        "200": {"content": {"application/json": {"schema": {
                            "$ref": "#/components/schemas/User"}}}},
                        "4XX": {"description": "client error"}
                    }
                },
                "put": {
                    "requestBody": {"content": {"application/json": {"schema": {
                        "$ref": "#/components/schemas/User"}}}},
                    "responses": {"204": {"description": "saved"}}
                }
            },
            "/legacy/report": {"get": {"deprecated": true, "responses": {"default": {}}}}
        },
        "components": {"schemas": {"User": {
            "type": "object",
            "required": ["id", "name"],
            "properties": {"id": {"type": "integer", "readOnly": true}, "name": {"type": "string"}}
        }}}
    }))
    .expect("a document");
    Baseline::new(document, "shop.yaml")
}

fn lines(report: &DriftReport) -> Vec<String> {
    report
        .findings()
        .iter()
        .map(|f| {
            format!(
                "{} {} {}: {} {:?}",
                f.kind.id(),
                f.method,
                f.path,
                f.message,
                f.flow_ids
            )
        })
        .collect()
}

#[test]
fn traffic_that_keeps_to_the_spec_reports_nothing() {
    let mut drift = Drift::new(baseline());
    let user = json!({"id": 7, "name": "Ada"}).to_string();
    drift.observe(
        &Exchange::new(1, "GET", "https://api.shop.test/v1/users/7?fields=name")
            .headers(&["Host", "Accept", "User-Agent"])
            .response(
                200,
                Some(Payload::new(
                    Some("application/json; charset=utf-8"),
                    Some(user.as_bytes()),
                )),
            ),
    );
    let sent = json!({"name": "Ada"}).to_string();
    drift.observe(
        &Exchange::new(2, "put", "/v1/users/7")
            .request_body(Payload::new(
                Some("application/json"),
                Some(sent.as_bytes()),
            ))
            .response(204, None),
    );
    drift.observe(&Exchange::new(3, "GET", "/v1/users/8").response(404, None));
    drift.observe(&Exchange::new(4, "GET", "/v1/users/8").response(304, None));
    let report = drift.report();
    assert!(report.is_empty(), "{:#?}", lines(&report));
    assert_eq!(report.headline(), "no drift");
    let summary = report.summary();
    assert_eq!(
        (
            summary.flows,
            summary.flows_matched,
            summary.operations_called
        ),
        (4, 4, 2)
    );
    assert_eq!(summary.operations_documented, 3);
    assert!(report.to_markdown().contains("No drift"));
}

/// Flows that show each kind of drift.
fn observe_each_kind(drift: &mut Drift) {
    let odd = json!({"id": "7", "nickname": "A"}).to_string();
    for id in [10, 11] {
        drift.observe(
            &Exchange::new(id, "GET", "https://api.shop.test/v1/users/7?sort=asc")
                .headers(&["X-Client-Version"])
                .response(
                    200,
                    Some(Payload::new(Some("application/json"), Some(odd.as_bytes()))),
                ),
        );
    }
    drift.observe(
        &Exchange::new(12, "GET", "/v1/users/7")
            .response(500, Some(Payload::new(Some("text/html"), None))),
    );
    drift.observe(
        &Exchange::new(13, "PUT", "/v1/users/7")
            .request_body(Payload::new(Some("application/xml"), None))
            .response(
                204,
                Some(Payload::new(Some("application/json"), Some(odd.as_bytes()))),
            ),
    );
    drift.observe(&Exchange::new(14, "DELETE", "/v1/users/7").response(204, None));
    drift.observe(&Exchange::new(15, "GET", "/v1/admin/users").endpoint("k"));
    drift.observe(&Exchange::new(16, "GET", "/v1/legacy/report").response(200, None));
}

#[test]
fn each_kind_of_drift_is_found_with_its_flows() {
    let mut drift = Drift::new(baseline());
    observe_each_kind(&mut drift);
    let report = drift.report();
    assert_eq!(
        lines(&report),
        [
            "shadow_endpoint GET /v1/admin/users: called, but the spec has no such path [15]",
            "shadow_endpoint DELETE /v1/users/7: called, but the spec documents this path for \
             GET, PUT only [14]",
            "zombie_endpoint GET /v1/legacy/report: called, though the spec marks it deprecated [16]",
            "undocumented_status GET /v1/users/{id}: answered 500, not a documented status \
             (200, 4XX) [12]",
            "wrong_type GET /v1/users/{id}: response 200 field `$.id` is string; documented \
             integer [10, 11]",
            "missing_required_field GET /v1/users/{id}: response 200 lacks required field \
             `$.name` [10, 11]",
            "undocumented_media_type PUT /v1/users/{id}: request body in application/xml, not a \
             documented media type (application/json) [13]",
            "undocumented_media_type PUT /v1/users/{id}: response 204 body in \
             application/json, where the spec documents no body [13]",
            "undocumented_parameter GET /v1/users/{id}: query parameter `sort` sent, not \
             documented [10, 11]",
            "undocumented_parameter GET /v1/users/{id}: header `x-client-version` sent, not \
             documented [10, 11]",
            "undocumented_field GET /v1/users/{id}: response 200 field `$.nickname` not \
             documented [10, 11]",
        ]
    );
    assert_eq!(
        report.headline(),
        "2 shadow endpoints, 1 zombie endpoint, 5 violations, 3 undocumented"
    );
    let shadow = &report.findings()[1];
    assert_eq!(shadow.expected.as_deref(), Some("GET, PUT"));
    assert_eq!(shadow.host, None);
}

#[test]
fn shadow_calls_group_by_the_callers_endpoint_and_regroup_when_it_learns() {
    let mut drift = Drift::new(baseline());
    let calls = [
        (
            1,
            "https://api.shop.test/v1/carts/41",
            "GET api.shop.test/v1/carts/41",
        ),
        (
            2,
            "https://api.shop.test/v1/carts/42",
            "GET api.shop.test/v1/carts/{id}",
        ),
        (
            3,
            "https://api.shop.test/v1/carts/43",
            "GET api.shop.test/v1/carts/{id}",
        ),
    ];
    for (id, url, key) in calls {
        drift.observe(&Exchange::new(id, "GET", url).endpoint(key));
    }
    let paths: Vec<String> = drift
        .report()
        .findings()
        .iter()
        .map(|f| f.path.clone())
        .collect();
    assert_eq!(paths, ["/v1/carts/41", "/v1/carts/42"]);
    let report = drift.report_regrouped(|key| {
        key.starts_with("GET api.shop.test/v1/carts/")
            .then(|| "/v1/carts/{id}".to_owned())
    });
    let [shadow] = report.findings() else {
        panic!("{:#?}", lines(&report))
    };
    assert_eq!(
        (
            shadow.path.as_str(),
            shadow.host.as_deref(),
            shadow.flows,
            shadow.flow_ids.clone()
        ),
        ("/v1/carts/{id}", Some("api.shop.test"), 3, vec![1, 2, 3])
    );
}

#[test]
fn findings_are_bounded() {
    let mut drift = Drift::new(baseline());
    for id in 0..(MAX_FINDINGS as u64 + 5) {
        drift.observe(&Exchange::new(id, "GET", &format!("/nowhere/{id}")));
    }
    let report = drift.report();
    assert_eq!(report.findings().len(), MAX_FINDINGS);
    assert_eq!(report.summary().findings_not_listed, 5);
    assert!(!report.is_empty());
    let json: Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["summary"]["findings_not_listed"], 5);
}

#[test]
fn schemas_compiled_by_earlier_flows_change_no_finding() {
    let baseline = baseline();
    let mut cold = Drift::new(baseline.clone());
    observe_each_kind(&mut cold);
    let compiled = cold.contracts.shapes.len();
    assert!(compiled > 0);
    let mut warm = Drift::new(baseline);
    warm.contracts = cold.contracts.clone();
    observe_each_kind(&mut warm);
    assert_eq!(warm.report().to_json(), cold.report().to_json());
    assert_eq!(
        warm.contracts.shapes.len(),
        compiled,
        "no schema compiled twice"
    );
}

#[test]
fn a_body_sent_again_names_every_flow_that_sent_it_and_on_each_side_its_own_issues() {
    let mut drift = Drift::new(baseline());
    let user = json!({"id": "7", "name": "Ada"}).to_string();
    for id in [1, 2, 3] {
        drift.observe(
            &Exchange::new(id, "GET", "https://api.shop.test/v1/users/7").response(
                200,
                Some(Payload::new(
                    Some("application/json"),
                    Some(user.as_bytes()),
                )),
            ),
        );
    }
    // The same bytes as a request body: `id` is readOnly there, so another issue.
    drift.observe(
        &Exchange::new(4, "PUT", "https://api.shop.test/v1/users/7")
            .request_body(Payload::new(
                Some("application/json"),
                Some(user.as_bytes()),
            ))
            .response(204, None),
    );
    let report = drift.report();
    let found = lines(&report);
    assert!(
        found
            .iter()
            .any(|l| l.starts_with("wrong_type GET") && l.ends_with("[1, 2, 3]")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|l| l.contains("PUT") && l.ends_with("[4]")),
        "{found:#?}"
    );
}

#[test]
fn a_target_is_cut_as_each_part_was_looked_for_on_its_own() {
    // The parts as they were found before they were found in one pass.
    fn authority(url: &str) -> Option<&str> {
        let rest = crate::matcher::after_scheme(url)?;
        let end = rest
            .bytes()
            .position(|b| matches!(b, b'/' | b'?' | b'#'))
            .unwrap_or(rest.len());
        let host = &rest[..end];
        let host = host.rfind('@').map_or(host, |at| &host[at + 1..]);
        (!host.is_empty()).then_some(host)
    }
    // Targets made of the bytes that delimit its parts.
    let mut n = 1_u64;
    let odd: Vec<String> = (0..4000)
        .map(|i| {
            let mut url = if i % 2 == 0 { "h://" } else { "" }.to_owned();
            for _ in 0..10 {
                n = n.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                url.push(['/', '?', '#', '@', ':', 'a', '.'][(n >> 59) as usize % 7]);
            }
            url
        })
        .collect();
    fn query(url: &str) -> &str {
        let query = url.split_once('?').map_or("", |(_, q)| q);
        query.split('#').next().unwrap_or_default()
    }
    for url in [
        "http://localhost:18480/varied",
        "https://User:pw@Shop.test:8443/a/b?c=1&d=%20#frag",
        "https://x.test",
        "https://x.test?a=1",
        "https://x.test?a=/b#c",
        "https://x.test#f/g?h",
        "https://@/p",
        "https://a@b@c.test/p?q",
        "/v1/users/7?fields=name",
        "/a#x?y",
        "/a?b?c#d#e",
        "/login?next=https://x.test/a",
        "/a:b//c",
        "no-slash",
        "mailto:x?y",
        "svn+ssh://h/r",
        "",
        "?",
        "http://",
        "http://?",
        "https://é.test/ü?ö=1",
    ]
    .into_iter()
    .chain(odd.iter().map(String::as_str))
    {
        let target = Target::of(url);
        assert_eq!(
            target,
            Target {
                authority: authority(url),
                path: crate::matcher::request_path(url),
                query: query(url),
            },
            "{url}"
        );
        assert_eq!(crate::matcher::request_path(target.path), target.path);
    }
}
