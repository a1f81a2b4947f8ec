//! Templates that narrow: a fold later traffic contradicts splits the
//! endpoint it made, with counters and samples following their paths.

use std::collections::BTreeMap;

use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, Ingested, StoreConfig};

use ar_flow::testing::json_flow;

/// Eight plural words under `/categories`, each with a `settings` child: alike
/// subtrees, and with eight of them the plural-words rule no longer keeps
/// them literal, so they fold into `/categories/{…}/settings`.
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

/// Flows per word: `users` 3, `orders` 2, the others 1.
fn settings_paths() -> Vec<String> {
    let mut paths = Vec::new();
    for (i, word) in WORDS.iter().enumerate() {
        let copies = match i {
            0 => 3,
            1 => 2,
            _ => 1,
        };
        for _ in 0..copies {
            paths.push(format!("/categories/{word}/settings"));
        }
    }
    paths
}

/// Ingests a GET of each path: a path ending in a number answers a user,
/// any other a settings object.
fn ingest_all(store: &mut EndpointStore, paths: &[String], first_id: u64) -> Vec<Ingested> {
    paths
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let id = first_id + i as u64;
            let by_id = p
                .rsplit('/')
                .next()
                .is_some_and(|s| s.parse::<u64>().is_ok());
            let body = if by_id {
                format!("{{\"id\":{id},\"login\":\"ann\"}}")
            } else {
                format!("{{\"theme\":\"dark\",\"n\":{id}}}")
            };
            store.ingest(&json_flow(
                id,
                "GET",
                &format!("https://api.test{p}"),
                200,
                &body,
            ))
        })
        .collect()
}

/// Key → (flows, concrete paths).
type Summary = BTreeMap<String, (u64, Vec<String>)>;

fn summary(store: &EndpointStore) -> Summary {
    store
        .endpoints()
        .iter()
        .map(|e| {
            let paths = e.concrete_paths().keys().cloned().collect();
            (e.key().to_string(), (e.flow_count(), paths))
        })
        .collect()
}

/// Samples kept by all endpoints; panics when one holds a sample of a path it does not have.
fn samples_in_place(store: &EndpointStore) -> usize {
    let mut total = 0;
    for e in store.endpoints() {
        for s in e.samples() {
            let path = s.flow.request.url.trim_start_matches("https://api.test");
            assert!(
                e.concrete_paths().contains_key(path),
                "{} keeps a sample of {path}",
                e.key()
            );
            total += 1;
        }
    }
    total
}

#[test]
fn folded_plural_words_split_apart_once_one_has_its_own_ids() {
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    let settings = settings_paths();
    ingest_all(&mut store, &settings, 0);
    let folded = store.endpoints();
    assert_eq!(folded.len(), 1, "eight alike plural words fold");
    assert_eq!(
        folded[0].key().as_str(),
        "GET api.test/categories/{category}/settings"
    );
    assert_eq!(folded[0].flow_count(), 11);
    let folded_id = folded[0].id();
    let kept_samples = samples_in_place(&store);
    assert_eq!(kept_samples, 7, "3 first + 4 reservoir of 11 alike flows");

    // `/categories/users/42`: `users` is a collection with its own ids, the group
    // loses its evidence, and all eight words are names again.
    let ids = ingest_all(
        &mut store,
        &[
            "/categories/users/42".to_string(),
            "/categories/users/7".to_string(),
        ],
        100,
    );
    let narrowed = &ids[0];
    assert_eq!(narrowed.splits.len(), 1, "{narrowed:?}");
    let split = &narrowed.splits[0];
    assert_eq!(split.shrunk, [folded_id]);
    assert_eq!(
        split.created.len(),
        7,
        "one new endpoint per word but the biggest"
    );
    assert!(split.grown.is_empty() && split.merged.is_empty());
    assert!(ids[1].splits.is_empty(), "a second id changes nothing");

    let got = summary(&store);
    let mut want = Summary::new();
    for (i, word) in WORDS.iter().enumerate() {
        let path = format!("/categories/{word}/settings");
        let flows = [3, 2].get(i).copied().unwrap_or(1);
        want.insert(format!("GET api.test{path}"), (flows, vec![path]));
    }
    want.insert(
        "GET api.test/categories/users/{userId}".to_string(),
        (
            2,
            vec!["/categories/users/42".into(), "/categories/users/7".into()],
        ),
    );
    assert_eq!(got, want);
    // No sample is lost or misplaced: the folded endpoint's samples followed their paths.
    assert_eq!(samples_in_place(&store), kept_samples + 2);
    // The biggest group keeps the endpoint (and its id); the old key still resolves to it.
    let kept = store.endpoint(folded_id).unwrap();
    assert_eq!(
        kept.key().as_str(),
        "GET api.test/categories/users/settings"
    );
    assert_eq!(
        kept.samples().count(),
        3,
        "the first three flows were all /categories/users/settings"
    );
    assert_eq!(
        store
            .resolve_key("GET api.test/categories/{category}/settings")
            .map(|e| e.id()),
        Some(folded_id)
    );
    // Every new endpoint's template is its own literal path.
    for id in &split.created {
        let ep = store.endpoint(*id).unwrap();
        assert_eq!(ep.template().params().count(), 0, "{}", ep.key());
    }

    // The same flows with the ids first never fold: the same endpoints.
    let mut ids_first = EndpointStore::new(Scope::everything(), StoreConfig::default());
    ingest_all(
        &mut ids_first,
        &[
            "/categories/users/42".to_string(),
            "/categories/users/7".to_string(),
        ],
        100,
    );
    let folds: usize = ingest_all(&mut ids_first, &settings, 0)
        .iter()
        .map(|i| i.merged.len() + i.splits.len())
        .sum();
    assert_eq!(folds, 0);
    assert_eq!(summary(&ids_first), want);
}

#[test]
fn a_leaf_folded_by_response_shape_splits_when_its_children_differ() {
    // Three leaves under `/shop/info` (a word that names no collection) answering the same shape fold by
    // cardinality into one parameter.
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    let leaves = ["about", "contact", "privacy"];
    let paths: Vec<String> = leaves.iter().map(|l| format!("/shop/info/{l}")).collect();
    ingest_all(&mut store, &paths, 0);
    let folded: Vec<String> = store
        .endpoints()
        .iter()
        .map(|e| e.key().to_string())
        .collect();
    assert_eq!(folded.len(), 1, "{folded:?}");
    let folded_id = store.endpoints()[0].id();

    // `about` gains children: no longer a leaf, it leaves the group, and
    // the two leaves left are below the threshold: all three are literal.
    let grew = ingest_all(
        &mut store,
        &[
            "/shop/info/about/team".into(),
            "/shop/info/about/history".into(),
        ],
        10,
    );
    let splits: Vec<_> = grew.iter().flat_map(|i| &i.splits).collect();
    assert_eq!(splits.len(), 1, "{grew:?}");
    assert_eq!(splits[0].shrunk, [folded_id]);
    assert_eq!(splits[0].created.len(), 2);
    // Every concrete path is in the endpoint of its template now.
    for ep in store.endpoints() {
        for path in ep.concrete_paths().keys() {
            assert_eq!(
                store.templater().template("api.test", path).to_string(),
                ep.template().to_string(),
                "{path} is in {}",
                ep.key()
            );
        }
    }
    let keys: Vec<(String, u64)> = store
        .endpoints()
        .iter()
        .map(|e| (e.key().to_string(), e.flow_count()))
        .collect();
    let mut want: Vec<(String, u64)> = leaves
        .iter()
        .map(|l| (format!("GET api.test/shop/info/{l}"), 1))
        .chain(
            ["history", "team"]
                .iter()
                .map(|c| (format!("GET api.test/shop/info/about/{c}"), 1)),
        )
        .collect();
    want.sort();
    assert_eq!(keys, want);
}
