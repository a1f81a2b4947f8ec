//! `--against SPEC`: traffic held against a published spec as `ar import` reads it.
//!
//! - spec-bench APIs (`../shared/spec-bench`, or `$SPEC_BENCH_DIR`): each published spec held
//!   against its own traffic (made from it) reports no shadow endpoint, no violation and
//!   nothing undocumented; the APIs where it does, and why, are listed in ar-diff's
//!   `tests/it/drift.rs`;
//! - the same spec with 5 operations, 3 response fields and 2 required parameters removed
//!   reports exactly those, with their flows;
//! - `ar proxy --against`: DRIFT.md kept current as flows arrive, shown in the web view's
//!   Drift tab, secrets nowhere;
//! - a spec that cannot be read is refused, naming the file, before any traffic is read;
//! - `ar diff` of two `ar import` runs of a fixture HAR with a change in between (an
//!   endpoint's flows removed, a field added to a response) reports that change alone.

use crate::{ar_run as ar, text};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read as _;
use std::path::{Path, PathBuf};

use ar_diff::{Document, Lookup, Method, OperationMatcher};
use flate2::read::GzDecoder;
use serde_json::{Value, json};

fn spec_bench() -> PathBuf {
    std::env::var_os("SPEC_BENCH_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec-bench"),
        PathBuf::from,
    )
}

fn gunzip(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut text = String::new();
    GzDecoder::new(bytes.as_slice())
        .read_to_string(&mut text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text
}

/// One spec-bench API, unpacked into a temporary directory.
struct Api {
    dir: tempfile::TempDir,
    name: String,
    har: PathBuf,
    spec: Value,
    /// The HAR's entries, in order: flow `i + 1` is entry `i`.
    entries: Vec<Value>,
}

impl Api {
    fn new(name: &str) -> Api {
        let corpus = spec_bench().join("corpus").join(name);
        let dir = tempfile::tempdir().unwrap();
        let har_text = gunzip(&corpus.join(format!("{name}.har.gz")));
        let har = dir.path().join(format!("{name}.har"));
        std::fs::write(&har, &har_text).unwrap();
        let entries = serde_json::from_str::<Value>(&har_text).unwrap()["log"]["entries"]
            .as_array()
            .expect("entries")
            .clone();
        let spec = serde_json::from_str(&gunzip(&corpus.join("oracle.json.gz"))).unwrap();
        Api {
            dir,
            name: name.to_owned(),
            har,
            spec,
            entries,
        }
    }

    /// `ar import` of the traffic against `spec` (written as `file`): its drift.json.
    fn import_against(&self, spec: &Value, file: &str) -> Value {
        let spec_path = self.dir.path().join(file);
        std::fs::write(&spec_path, serde_json::to_string(spec).unwrap()).unwrap();
        let out = self.dir.path().join(format!("out-{file}"));
        let result = ar(&[
            "import".as_ref(),
            self.har.as_os_str(),
            "--against".as_ref(),
            spec_path.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        assert!(
            result.status.success(),
            "{}: {}",
            self.name,
            text(&result.stderr)
        );
        let stdout = text(&result.stdout);
        assert!(
            stdout.contains(&format!("drift from {file}: ")) && stdout.contains("DRIFT.md"),
            "{stdout}"
        );
        let api_md = std::fs::read_to_string(out.join("API.md")).unwrap();
        assert!(
            api_md.contains(&format!("- **Drift from `{file}`:** ")),
            "{api_md}"
        );
        assert!(out.join("DRIFT.md").is_file());
        serde_json::from_str(&std::fs::read_to_string(out.join("drift.json")).unwrap()).unwrap()
    }
}

/// A finding of drift.json as a line: kind, method, path (parameters as `{}`), location,
/// status, name; and its flow ids.
fn findings(drift: &Value) -> BTreeSet<(String, Vec<u64>)> {
    drift["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let field = |k: &str| f[k].as_str().map_or_else(String::new, str::to_owned);
            let status = f["status"]
                .as_u64()
                .map_or_else(String::new, |s| s.to_string());
            let line = format!(
                "{} {} {} {} {} {}",
                field("kind"),
                field("method"),
                key(&field("path")),
                field("location"),
                status,
                field("name")
            );
            let ids = f["flow_ids"]
                .as_array()
                .expect("ids")
                .iter()
                .map(|id| id.as_u64().expect("an id"))
                .collect();
            (line.trim_end().to_owned(), ids)
        })
        .collect()
}

/// `/api/dcim/devices/{id}/` → `/api/dcim/devices/{}/`: a path as a client calls it.
fn key(path: &str) -> String {
    let mut out = String::new();
    let mut in_param = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_param = true;
                out.push_str("{}");
            }
            '}' => in_param = false,
            _ if in_param => {}
            _ => out.push(c),
        }
    }
    out
}

#[test]
fn published_specs_held_against_their_own_traffic_report_no_drift() {
    // APIs whose published documents agree with the traffic made from them. (ar-diff's
    // `tests/it/drift.rs` explains the others: self-contradicting specs, mock artefacts.)
    for name in [
        "lambda",
        "launchdarkly",
        "linode",
        "netbox",
        "openai",
        "salesloft",
    ] {
        let api = Api::new(name);
        let drift = api.import_against(&api.spec, &format!("{name}.json"));
        let summary = &drift["summary"];
        assert_eq!(summary["flows"], api.entries.len(), "{name}: {summary}");
        assert_eq!(
            summary["flows_matched"],
            api.entries.len(),
            "{name}: {summary}"
        );
        for count in ["shadow_endpoints", "violations", "undocumented"] {
            assert_eq!(summary[count], 0, "{name}: {count} in {drift:#}");
        }
        // The traffic calls the operations openai's spec marks deprecated (its old engines).
        let zombies = if name == "openai" { 5 } else { 0 };
        assert_eq!(summary["zombie_endpoints"], zombies, "{name}: {drift:#}");
    }
}

/// The operations of `doc` each flow of `api` calls, by (method, full path, template).
fn flows_per_operation(api: &Api, doc: &Document) -> BTreeMap<(Method, String, String), Vec<u64>> {
    let matcher = OperationMatcher::new(doc);
    let mut per_operation: BTreeMap<_, Vec<u64>> = BTreeMap::new();
    for (id, entry) in (1..).zip(&api.entries) {
        let method = Method::parse(entry["request"]["method"].as_str().unwrap()).unwrap();
        let url = entry["request"]["url"].as_str().unwrap();
        let called = matcher
            .find(method, url)
            .expect("every flow calls the spec");
        per_operation
            .entry((method, called.path.to_owned(), called.template.to_owned()))
            .or_default()
            .push(id);
    }
    per_operation
}

fn lookup_is_operation(doc: &Document, method: Method, url: &str) -> bool {
    matches!(
        OperationMatcher::new(doc).lookup(method, url),
        Lookup::Operation(_)
    )
}

/// The object schema an operation answers `status` with, resolved (`None` unless it is a
/// plain object listing properties and no others).
fn plain_object<'a>(spec: &'a Value, schema: &'a Value) -> Option<&'a Value> {
    let mut schema = schema;
    while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        schema = spec.pointer(reference.strip_prefix('#')?)?;
    }
    let open = [
        "additionalProperties",
        "patternProperties",
        "allOf",
        "oneOf",
        "anyOf",
    ];
    let closed = schema.get("properties")?.as_object()?.len() >= 2
        && open.iter().all(|k| schema.get(k).is_none());
    closed.then_some(schema)
}

#[test]
fn a_spec_with_parts_removed_reports_exactly_those_with_their_flows() {
    let api = Api::new("netbox");
    let doc = Document::from_value(api.spec.clone()).unwrap();
    let per_operation = flows_per_operation(&api, &doc);
    let mut spec = api.spec.clone();
    let mut expected: BTreeSet<(String, Vec<u64>)> = BTreeSet::new();
    let mut touched: BTreeSet<(Method, String)> = BTreeSet::new();
    let op_key = |method: Method| method.as_str().to_ascii_lowercase();

    // Two required query parameters, taken off the operations that declare them.
    let mut params = 0;
    for ((method, path, template), ids) in &per_operation {
        let list = &mut spec["paths"][template][op_key(*method)]["parameters"];
        let Some(list) = list.as_array_mut() else {
            continue;
        };
        let mut kept = Vec::new();
        for param in list.drain(..) {
            let required_query = param["in"] == "query" && param["required"] == true;
            if required_query && params < 2 {
                params += 1;
                let name = param["name"].as_str().unwrap();
                expected.insert((
                    format!(
                        "undocumented_parameter {method} {} query  {name}",
                        key(path)
                    ),
                    ids.clone(),
                ));
                touched.insert((*method, path.clone()));
            } else {
                kept.push(param);
            }
        }
        *list = kept;
    }
    assert_eq!(params, 2, "netbox declares two required query parameters");

    // Three response fields, each off one operation's answer (a copy of its schema inlined,
    // so no other operation sharing the component changes).
    let mut fields = 0;
    for ((method, path, template), ids) in &per_operation {
        if fields == 3 || touched.contains(&(*method, path.clone())) {
            continue;
        }
        let entry = &api.entries[ids[0] as usize - 1];
        let status = entry["response"]["status"].as_u64().unwrap().to_string();
        let media = &api.spec["paths"][template][op_key(*method)]["responses"][&status]["content"]
            ["application/json"];
        let Some(schema) = plain_object(&api.spec, &media["schema"]) else {
            continue;
        };
        // The first property (by name) that every one of its flows answered with.
        let bodies: Vec<Value> = ids
            .iter()
            .map(|id| {
                let entry = &api.entries[*id as usize - 1];
                serde_json::from_str(
                    entry["response"]["content"]["text"]
                        .as_str()
                        .unwrap_or("null"),
                )
                .unwrap_or(Value::Null)
            })
            .collect();
        let same_status = ids.iter().all(|id| {
            api.entries[*id as usize - 1]["response"]["status"]
                .as_u64()
                .unwrap()
                .to_string()
                == status
        });
        let Some(name) = schema["properties"]
            .as_object()
            .unwrap()
            .keys()
            .find(|name| same_status && bodies.iter().all(|b| b.get(name.as_str()).is_some()))
        else {
            continue;
        };
        let mut inlined = schema.clone();
        inlined["properties"].as_object_mut().unwrap().remove(name);
        if let Some(required) = inlined["required"].as_array_mut() {
            required.retain(|r| r != name);
        }
        spec["paths"][template][op_key(*method)]["responses"][&status]["content"]["application/json"]
            ["schema"] = inlined;
        expected.insert((
            format!(
                "undocumented_field {method} {} response {status} $.{name}",
                key(path)
            ),
            ids.clone(),
        ));
        touched.insert((*method, path.clone()));
        fields += 1;
    }
    assert_eq!(fields, 3);

    // Five operations, spread over the spec, whose calls then match no other operation.
    let candidates: Vec<_> = per_operation
        .iter()
        .filter(|((method, path, _), _)| !touched.contains(&(*method, path.clone())))
        .collect();
    let stride = candidates.len() / 5;
    let mut removed = 0;
    for ((method, path, template), ids) in candidates.iter().step_by(stride.max(1)) {
        if removed == 5 {
            break;
        }
        let mut trial = spec.clone();
        let item = trial["paths"][template.as_str()].as_object_mut().unwrap();
        item.remove(&op_key(*method));
        if !item.keys().any(|k| Method::parse(k).is_some()) {
            trial["paths"]
                .as_object_mut()
                .unwrap()
                .remove(template.as_str());
        }
        let trial_doc = Document::from_value(trial.clone()).unwrap();
        let unmatched = ids.iter().all(|id| {
            let url = api.entries[*id as usize - 1]["request"]["url"]
                .as_str()
                .unwrap();
            !lookup_is_operation(&trial_doc, *method, url)
        });
        if unmatched {
            spec = trial;
            expected.insert((
                format!("shadow_endpoint {method} {}", key(path)),
                ids.to_vec(),
            ));
            removed += 1;
        }
    }
    assert_eq!(removed, 5);

    let drift = api.import_against(&spec, "netbox-cut.json");
    let found = findings(&drift);
    let missing: Vec<_> = expected.difference(&found).collect();
    let extra: Vec<_> = found.difference(&expected).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "missing: {missing:#?}\nextra: {extra:#?}"
    );
    let summary = &drift["summary"];
    assert_eq!(
        (
            &summary["shadow_endpoints"],
            &summary["violations"],
            &summary["undocumented"]
        ),
        (&json!(5), &json!(0), &json!(5)),
        "{summary}"
    );
}

#[test]
fn a_spec_that_cannot_be_read_is_refused_before_the_traffic_is() {
    let dir = tempfile::tempdir().unwrap();
    let har = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/har/chrome-shop.har");
    let swagger = dir.path().join("swagger.json");
    std::fs::write(&swagger, r#"{"swagger": "2.0", "paths": {}}"#).unwrap();
    let broken = dir.path().join("broken.yaml");
    std::fs::write(&broken, "openapi: [3\n").unwrap();
    let cases: [(PathBuf, &str); 4] = [
        (dir.path().join("missing.yaml"), "cannot read"),
        (swagger, "Swagger 2, not OpenAPI 3"),
        (broken, "is not valid YAML"),
        (har.clone(), "is traffic, not a spec"),
    ];
    for (spec, why) in cases {
        let out = dir.path().join("out");
        let result = ar(&[
            "import".as_ref(),
            har.as_os_str(),
            "--against".as_ref(),
            spec.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        let stderr = text(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "{stderr}");
        let file = spec.file_name().unwrap().to_string_lossy();
        assert!(
            stderr.contains("--against") && stderr.contains(file.as_ref()) && stderr.contains(why),
            "{stderr}"
        );
        assert!(!out.exists(), "nothing written for {file}");
    }
}

#[test]
fn ar_diff_of_two_imports_reports_the_change_between_them_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let har = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/har/chrome-shop.har");
    let mut next: Value = serde_json::from_str(&std::fs::read_to_string(&har).unwrap()).unwrap();
    let entries = next["log"]["entries"].as_array_mut().unwrap();
    // The invoice endpoint's flows go; the user answers gain a field.
    entries.retain(|e| !e["request"]["url"].as_str().unwrap().ends_with("/invoice"));
    let mut patched = 0;
    for entry in entries.iter_mut() {
        let url = entry["request"]["url"].as_str().unwrap().to_owned();
        let last = url.rsplit('/').next().unwrap();
        if url.contains("/api/v1/users/") && last.chars().all(|c| c.is_ascii_digit()) {
            let content = &mut entry["response"]["content"];
            let mut body: Value = serde_json::from_str(content["text"].as_str().unwrap()).unwrap();
            body["nickname"] = json!("sam");
            content["text"] = json!(body.to_string());
            patched += 1;
        }
    }
    assert_eq!(patched, 2);
    let next_har = dir.path().join("chrome-shop-next.har");
    std::fs::write(&next_har, next.to_string()).unwrap();
    let (before, after) = (dir.path().join("before"), dir.path().join("after"));
    for (input, out) in [(&har, &before), (&next_har, &after)] {
        let result = ar(&[
            "import".as_ref(),
            input.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        assert!(result.status.success(), "{}", text(&result.stderr));
    }
    let result = ar(&[
        "diff".as_ref(),
        before.as_os_str(),
        after.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    assert_eq!(result.status.code(), Some(0), "{}", text(&result.stderr));
    let report: Value = serde_json::from_slice(&result.stdout).unwrap();
    let changes: Vec<String> = report["operations"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|op| {
            op["changes"].as_array().unwrap().iter().map(move |c| {
                format!(
                    "{} {} ({}): {} [{}]",
                    op["method"].as_str().unwrap(),
                    op["path"].as_str().unwrap(),
                    op["status"].as_str().unwrap(),
                    c["message"].as_str().unwrap(),
                    c["rule"].as_str().unwrap()
                )
            })
        })
        .collect();
    assert_eq!(
        changes,
        [
            "GET /api/v1/orders/{orderId}/invoice (removed): operation removed \
             [api-removed-without-deprecation]",
            "GET /api/v1/users/{userId} (changed): response 200 property `nickname` \
             (application/json) added (optional) [response-optional-property-added]",
        ]
    );
    assert_eq!(report["global"], json!([]));
}

#[test]
fn ar_proxy_keeps_drift_md_current_and_shows_it_in_the_web_view() {
    let (port, dir) = (crate::proxy::origin(), tempfile::tempdir().unwrap());
    let spec = dir.path().join("users.json");
    let document = json!({
        "openapi": "3.0.3",
        "info": {"title": "Users", "version": "1"},
        "servers": [{"url": format!("http://api.test:{port}")}],
        "paths": {"/users/{id}": {"get": {
            "parameters": [{"name": "id", "in": "path", "required": true}],
            "responses": {"200": {"content": {"application/json": {"schema": {
                "type": "object", "properties": {"id": {"type": "integer"}}}}}}}}}}
    });
    std::fs::write(&spec, document.to_string()).unwrap();
    let proxy = crate::proxy::RunningProxy::offline(
        dir.path(),
        port,
        &["--scope", "api.test", "--against", spec.to_str().unwrap()],
    );
    let (authority, token) = proxy.ui();
    proxy.wait_for("  against  users.json (drift kept current in ");
    for path in ["/users/1?token=hunter2", "/users/2", "/admin/stats"] {
        proxy.fetch(&format!("http://api.test:{port}{path}"));
    }
    // The origin answers `{"path": ...}`: a field the spec does not list.
    let drift_md = dir.path().join("out/DRIFT.md");
    let live = crate::settled(
        std::time::Duration::from_secs(10),
        || std::fs::read_to_string(&drift_md).unwrap_or_default(),
        |md| !md.contains("/admin/stats"),
    );
    for finding in [
        "| `GET /admin/stats` |",
        "query parameter `token` sent, not documented | 1 | 1 |",
        "response 200 field `$.path` not documented | 2 | 1, 2 |",
    ] {
        assert!(live.contains(finding), "{finding} in {live}");
    }
    let tab = crate::web::raw(
        &authority,
        &authority,
        "GET",
        &format!("/api/drift?token={token}"),
    );
    assert!(tab.starts_with("HTTP/1.1 200"), "{tab}");
    assert!(tab.contains("field `$.path` not documented"), "{tab}");
    let (rest, status) = proxy.stop();
    assert!(status.success(), "exit status {status}");
    assert!(
        rest.iter()
            .any(|l| l.starts_with("drift: 1 shadow endpoint")),
        "{rest:?}"
    );
    for file in ["DRIFT.md", "drift.json", "API.md"] {
        let text = std::fs::read_to_string(dir.path().join("out").join(file)).unwrap();
        assert!(!text.contains("hunter2"), "{file}: {text}");
    }
    assert!(!tab.contains("hunter2"), "{tab}");
}
