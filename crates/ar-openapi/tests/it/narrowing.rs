//! A template that narrows while flows arrive: the store splits the endpoint
//! it had made, and the documentation it keeps as evidence follows.

use std::collections::BTreeMap;

use ar_openapi::{Documenter, Enrichment, Options, Redactor, document};
use ar_store::Flow;
use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};

/// Eight plural words with a `settings` child fold into `/categories/{category}/settings`
/// until `/categories/users/42` shows `users` is a collection with its own ids.
const WORDS: [&str; 8] = [
    "users",
    "orders",
    "carts",
    "reviews",
    "stores",
    "coupons",
    "invoices",
    "shipments",
];

/// A GET whose JSON answer has one field named after the path's word, so
/// each endpoint's schema shows whose evidence it holds; a path ending in
/// an id answers that id's record instead.
fn flow(id: u64, path: &str) -> Flow {
    let word = path.split('/').nth(2).unwrap_or("x");
    let last = path.rsplit('/').next().unwrap_or("");
    let body = match last.parse::<u64>() {
        Ok(n) => format!("{{\"id\":{n}}}"),
        Err(_) => format!("{{\"{word}_theme\":\"dark\"}}"),
    };
    crate::json_get(id, &format!("https://api.test{path}"), &body)
}

/// `copies` flows of each word's settings, in word order.
fn settings(copies: impl Fn(usize) -> usize) -> Vec<String> {
    WORDS
        .iter()
        .enumerate()
        .flat_map(|(i, w)| std::iter::repeat_n(format!("/categories/{w}/settings"), copies(i)))
        .collect()
}

/// The spec (as JSON) of `paths` ingested in order, and the store.
fn spec_of(paths: &[String]) -> (serde_json::Value, EndpointStore, u64) {
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default())
        .with_evidence(Documenter::new(Redactor::new()));
    let mut splits = 0;
    for (i, path) in paths.iter().enumerate() {
        let flow = flow(i as u64, path);
        splits += store.ingest(&flow).splits.len() as u64;
    }
    let documenter: &Documenter = store.evidence().unwrap();
    assert_eq!(documenter.ledger().documented, paths.len() as u64);
    let docs = document(&store, &Enrichment::new(), &Options::default()).unwrap();
    let spec = serde_json::from_str(&docs.json().unwrap()).unwrap();
    (spec, store, splits)
}

/// Path → `x-ar-flows` of its GET.
fn flows_per_path(spec: &serde_json::Value) -> BTreeMap<String, u64> {
    spec["paths"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(path, item)| (path.clone(), item["get"]["x-ar-flows"].as_u64().unwrap()))
        .collect()
}

#[test]
fn the_documentation_splits_when_the_store_splits_a_narrowed_template() {
    // Nine flows: all of them fit in the folded endpoint's samples.
    let mut paths = settings(|i| if i == 0 { 2 } else { 1 });
    let (folded, _, _) = spec_of(&paths);
    assert_eq!(
        flows_per_path(&folded),
        BTreeMap::from([("/categories/{category}/settings".to_string(), 9)])
    );

    paths.push("/categories/users/42".to_string());
    let (spec, store, splits) = spec_of(&paths);
    assert_eq!(splits, 1);
    let mut want: BTreeMap<String, u64> = WORDS
        .iter()
        .enumerate()
        .map(|(i, w)| {
            (
                format!("/categories/{w}/settings"),
                if i == 0 { 2 } else { 1 },
            )
        })
        .collect();
    want.insert("/categories/users/{userId}".to_string(), 1);
    assert_eq!(flows_per_path(&spec), want);
    // The documentation agrees with the store, endpoint by endpoint.
    for ep in store.endpoints() {
        let path = ep.template().to_string();
        assert_eq!(want[&path], ep.flow_count(), "{path}");
    }
    // Each endpoint's schema holds only its own flows' fields.
    for word in WORDS {
        let path = format!("/categories/{word}/settings");
        let schema = &spec["paths"][&path]["get"]["responses"]["200"]["content"]["application/json"]
            ["schema"];
        let text = schema.to_string();
        assert!(text.contains(&format!("{word}_theme")), "{path}: {text}");
        for other in WORDS.iter().filter(|w| **w != word) {
            assert!(
                !text.contains(&format!("\"{other}_theme\"")),
                "{path}: {text}"
            );
        }
    }

    // The same flows with the id first never fold: the same documentation.
    let mut ids_first = vec!["/categories/users/42".to_string()];
    ids_first.extend(settings(|i| if i == 0 { 2 } else { 1 }));
    let (direct, _, splits) = spec_of(&ids_first);
    assert_eq!(splits, 0);
    assert_eq!(flows_per_path(&direct), want);
}

#[test]
fn every_split_endpoint_stays_documented_even_without_samples_of_its_own() {
    // Thirty-two flows: the folded endpoint keeps ten samples, so some words
    // have none after the split; they must still be listed.
    let mut paths = settings(|i| if i < 2 { 10 } else { 2 });
    paths.push("/categories/users/42".to_string());
    let (spec, store, splits) = spec_of(&paths);
    assert_eq!(splits, 1);
    let documented = flows_per_path(&spec);
    let stored: Vec<String> = store
        .endpoints()
        .iter()
        .map(|e| e.template().to_string())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(documented.keys().cloned().collect::<Vec<_>>(), stored);
    assert_eq!(stored.len(), 9);
    assert!(
        store
            .endpoints()
            .iter()
            .any(|e| e.samples().next().is_none()),
        "the case under test: some endpoint kept no sample"
    );
    // Evidence comes from the store's samples, but the flow counts are the store's.
    for ep in store.endpoints() {
        let path = ep.template().to_string();
        assert_eq!(documented[&path], ep.flow_count(), "{path}");
    }
    assert_eq!(documented.values().sum::<u64>(), paths.len() as u64);
}
