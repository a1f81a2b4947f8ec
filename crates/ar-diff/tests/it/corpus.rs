//! Real published specs (`../shared/spec-bench/corpus/*/oracle.json.gz`, or `$SPEC_BENCH_DIR`):
//! each against itself, against the same contract spelled otherwise, and against a copy with
//! known breaking edits.

use std::io::Read;
use std::path::PathBuf;

use ar_diff::{Document, Method, Report, Rule};
use flate2::read::GzDecoder;
use serde_json::{Map, Value, json};

use crate::doc;

/// Every corpus spec, by API name, sorted.
pub(crate) fn corpus() -> Vec<(String, Value)> {
    let root = std::env::var_os("SPEC_BENCH_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/spec-bench"),
        PathBuf::from,
    );
    let dir = root.join("corpus");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (set SPEC_BENCH_DIR to a spec-bench checkout)",
            dir.display()
        )
    });
    let mut specs = Vec::new();
    for entry in entries {
        let path = entry
            .expect("a directory entry")
            .path()
            .join("oracle.json.gz");
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let mut text = String::new();
        GzDecoder::new(bytes.as_slice())
            .read_to_string(&mut text)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let value: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path.parent().and_then(|p| p.file_name()).expect("a name");
        specs.push((name.to_string_lossy().into_owned(), value));
    }
    specs.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(
        specs.len() >= 10,
        "only {} specs in {}",
        specs.len(),
        dir.display()
    );
    specs
}

fn summary_of(report: &Report) -> String {
    report
        .changes()
        .map(|(op, c)| {
            format!(
                "{} {}: {} [{}]",
                op.map_or("", |o| o.method.as_str()),
                op.map_or("", |o| o.path.as_str()),
                c.message,
                c.rule.id()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_spec_against_itself_has_no_change() {
    for (name, value) in corpus() {
        let document = doc(value);
        let report = ar_diff::diff(&document, &document);
        assert!(report.is_empty(), "{name}:\n{}", summary_of(&report));
        assert_eq!(report.render(ar_diff::Format::Text), "No changes.\n");
    }
}

/// 3.0's `nullable: true` written as 3.1's `type: [x, "null"]`, and the server's base path
/// moved into every path: the same contract, so no change.
#[test]
fn the_same_contract_spelled_otherwise_has_no_change() {
    for (name, value) in corpus() {
        let mut rewritten = value.clone();
        to_3_1(&mut rewritten);
        rewritten["openapi"] = json!("3.1.0");
        move_base_path_into_paths(&mut rewritten);
        let report = ar_diff::diff(&doc(value), &doc(rewritten));
        assert!(report.is_empty(), "{name}:\n{}", summary_of(&report));
    }
}

fn to_3_1(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("nullable") == Some(&json!(true))
                && let Some(Value::String(kind)) = map.get("type").cloned()
            {
                map.remove("nullable");
                map.insert("type".into(), json!([kind, "null"]));
            }
            map.values_mut().for_each(to_3_1);
        }
        Value::Array(items) => items.iter_mut().for_each(to_3_1),
        _ => {}
    }
}

fn move_base_path_into_paths(value: &mut Value) {
    let Some(url) = value
        .pointer("/servers/0/url")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return;
    };
    let after_scheme = url.split_once("://").map_or(url.as_str(), |(_, rest)| rest);
    let Some(slash) = after_scheme.find('/') else {
        return;
    };
    let base = after_scheme[slash..].trim_end_matches('/').to_owned();
    let host = url[..url.len() - after_scheme.len() + slash].to_owned();
    value["servers"][0]["url"] = json!(host);
    let paths = value["paths"].as_object_mut().expect("paths");
    // Path items and operations naming the same server move with it.
    for item in paths.values_mut() {
        if let Some(server) = item.pointer_mut("/servers/0/url")
            && *server == json!(url)
        {
            *server = json!(host);
        }
        for operation in item
            .as_object_mut()
            .into_iter()
            .flat_map(|m| m.values_mut())
        {
            if let Some(server) = operation.pointer_mut("/servers/0/url")
                && *server == json!(url)
            {
                *server = json!(host);
            }
        }
    }
    let moved: Map<String, Value> = std::mem::take(paths)
        .into_iter()
        .map(|(path, item)| (format!("{base}{path}"), item))
        .collect();
    *paths = moved;
}

/// An operation of a raw document: its path key and method key.
type Site = (String, String);

fn operations(value: &Value) -> Vec<Site> {
    let mut sites = Vec::new();
    for (path, item) in value["paths"].as_object().expect("paths") {
        for method in Method::ALL {
            let key = method.as_str().to_ascii_lowercase();
            if item.get(&key).is_some_and(Value::is_object) {
                sites.push((path.clone(), key));
            }
        }
    }
    sites
}

fn resolve<'a>(root: &'a Value, value: &'a Value) -> &'a Value {
    let mut current = value;
    for _ in 0..8 {
        match current.get("$ref").and_then(Value::as_str) {
            Some(reference) => match root.pointer(reference.trim_start_matches('#')) {
                Some(target) => current = target,
                None => return current,
            },
            None => return current,
        }
    }
    current
}

/// The edits made to one spec, with the changes they must give.
#[derive(Default)]
struct Edits {
    removed_operations: usize,
    removed_fields: usize,
    required_parameters: usize,
}

/// Removes 5 operations, 3 fields of (other operations') JSON success responses, and makes 2
/// optional operation parameters required; each edit inlines what it touches, so nothing
/// shared with another operation changes.
fn edit(value: &mut Value) -> Edits {
    let original = value.clone();
    let sites = operations(&original);
    let mut edits = Edits::default();
    let mut touched: Vec<&Site> = Vec::new();
    for site in sites
        .iter()
        .step_by(3)
        .filter(|(p, m)| original["paths"][p][m]["deprecated"] != json!(true))
        .take(5)
    {
        value["paths"][&site.0]
            .as_object_mut()
            .expect("a path item")
            .remove(&site.1);
        touched.push(site);
        edits.removed_operations += 1;
    }
    for site in &sites {
        if edits.removed_fields == 3 {
            break;
        }
        if touched.contains(&site) {
            continue;
        }
        let operation = &original["paths"][&site.0][&site.1];
        let Some(responses) = operation.get("responses").and_then(Value::as_object) else {
            continue;
        };
        let Some((status, response)) = responses.iter().find(|(s, _)| s.starts_with('2')) else {
            continue;
        };
        let mut response = resolve(&original, response).clone();
        let Some(schema) = response.pointer("/content/application~1json/schema") else {
            continue;
        };
        let mut schema = resolve(&original, schema).clone();
        let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) else {
            continue;
        };
        let Some(field) = properties.keys().next().cloned() else {
            continue;
        };
        properties.remove(&field);
        if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
            required.retain(|name| name != &json!(field));
        }
        response["content"]["application/json"]["schema"] = schema;
        value["paths"][&site.0][&site.1]["responses"][status] = response;
        touched.push(site);
        edits.removed_fields += 1;
    }
    for site in &sites {
        if edits.required_parameters == 2 {
            break;
        }
        if touched.contains(&site) {
            continue;
        }
        let Some(parameters) = original["paths"][&site.0][&site.1]
            .get("parameters")
            .and_then(Value::as_array)
        else {
            continue;
        };
        let found = parameters.iter().enumerate().find(|(_, p)| {
            let p = resolve(&original, p);
            p.get("in").and_then(Value::as_str).is_some_and(|l| l != "path")
                && p.get("required") != Some(&json!(true))
                && !matches!(p["name"].as_str(), Some(n) if ["accept", "content-type", "authorization"].contains(&n.to_ascii_lowercase().as_str()))
        });
        let Some((index, parameter)) = found else {
            continue;
        };
        let mut parameter = resolve(&original, parameter).clone();
        parameter["required"] = json!(true);
        value["paths"][&site.0][&site.1]["parameters"][index] = parameter;
        touched.push(site);
        edits.required_parameters += 1;
    }
    edits
}

#[test]
fn known_breaking_edits_are_reported_exactly() {
    let mut fully_edited = Vec::new();
    for (name, value) in corpus() {
        let mut edited = value.clone();
        let edits = edit(&mut edited);
        let report = ar_diff::diff(&Document::from_value(value).expect("valid"), &doc(edited));
        let rules: Vec<Rule> = report.changes().map(|(_, c)| c.rule).collect();
        let count = |wanted: &[Rule]| rules.iter().filter(|r| wanted.contains(r)).count();
        let context = summary_of(&report);
        assert_eq!(
            count(&[Rule::ApiRemovedWithoutDeprecation]),
            edits.removed_operations,
            "{name}:\n{context}"
        );
        assert_eq!(
            count(&[
                Rule::ResponseRequiredPropertyRemoved,
                Rule::ResponseOptionalPropertyRemoved
            ]),
            edits.removed_fields,
            "{name}:\n{context}"
        );
        assert_eq!(
            count(&[Rule::RequestParameterBecameRequired]),
            edits.required_parameters,
            "{name}:\n{context}"
        );
        assert_eq!(
            rules.len(),
            edits.removed_operations + edits.removed_fields + edits.required_parameters,
            "{name}: changes beyond the edits:\n{context}"
        );
        assert!(
            report.changes().all(|(_, c)| c.breaking),
            "{name}:\n{context}"
        );
        assert_eq!(report.summary().breaking, rules.len());
        if (
            edits.removed_operations,
            edits.removed_fields,
            edits.required_parameters,
        ) == (5, 3, 2)
        {
            fully_edited.push(name);
        }
    }
    // Every spec that has 3 JSON answers with inline-able properties and 2 optional
    // parameters got all ten edits; the rest got what they could.
    eprintln!(
        "{} specs took all ten edits: {fully_edited:?}",
        fully_edited.len()
    );
    assert!(
        fully_edited.len() >= 12,
        "only {fully_edited:?} took all edits"
    );
}
