//! Laws of templating: deterministic, independent of arrival order, bounded.

use std::collections::BTreeMap;

use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::template::Templater;
use proptest::prelude::*;

use ar_flow::testing::json_flow;

/// Paths drawn from the shapes the templater must handle: ids, slugs that
/// only vary across samples, `me`, versions, closed vocabularies, and
/// templates that narrow: eight plural words with a literal child fold into
/// `/sections/{section}/settings` until one shows its own ids
/// (`/sections/users/7`), which makes them names again, so an endpoint made
/// earlier must split.
fn path() -> impl Strategy<Value = String> {
    let owner = prop::sample::select(vec!["rust-lang", "tokio-rs", "serde-rs", "hyperium", "me"]);
    let repo = prop::sample::select(vec!["cargo", "tokio", "serde", "hyper"]);
    let leaf = prop::sample::select(vec!["search", "settings", "profile"]);
    let version = prop::sample::select(vec!["v1", "v2"]);
    let shapes = prop_oneof![
        (
            owner.clone(),
            repo,
            prop::sample::select(vec!["issues", "pulls"])
        )
            .prop_map(|(o, r, l)| format!("/repos/{o}/{r}/{l}")),
        (0u32..50).prop_map(|id| format!("/users/{id}")),
        Just("/users/me".to_string()),
        (0u32..50, 0u32..9).prop_map(|(u, o)| format!("/users/{u}/orders/{o}")),
        (version, leaf).prop_map(|(v, l)| format!("/{v}/{l}")),
        owner.prop_map(|o| format!("/orgs/{o}/members")),
        prop::sample::select(vec![
            "red-shoes",
            "blue-hat",
            "green-scarf",
            "black-belt",
            "white-socks",
            "pink-tie"
        ])
        .prop_map(|s| format!("/products/{s}")),
        (collection(), 1u32..30, 0u8..3).prop_map(|(c, id, form)| match form {
            0 => format!("/v1/{c}"),
            1 => format!("/v1/{c}/{id}"),
            _ => format!("/v1/{c}/{id}/events"),
        }),
        collection().prop_map(|c| format!("/categories/{c}/items")),
    ];
    // Drawn often enough that eight distinct words usually appear.
    let narrowing = (collection(), 0u8..8).prop_map(|(c, form)| match form {
        0 => format!("/sections/{c}/7"),
        _ => format!("/sections/{c}/settings"),
    });
    prop_oneof![9 => shapes, 6 => narrowing]
}

/// Plural words: REST collections under `/v1`, category values under `/categories`.
fn collection() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "users", "orders", "carts", "reviews", "stores", "coupons", "invoices", "shoes", "hats",
    ])
}

/// Singular resource names, each answering in a shape of its own, beside
/// organisation slugs that answer alike: `(path, response shape)`.
fn singular_path() -> impl Strategy<Value = (String, u64)> {
    let word = prop::sample::select(vec![
        "user", "order", "product", "invoice", "acme", "globex", "initech",
    ]);
    (word, 1u32..20, any::<bool>()).prop_map(|(word, id, details)| {
        let slug = ["acme", "globex", "initech"].contains(&word);
        let shape = if slug {
            1
        } else {
            u64::from(word.as_bytes()[0])
        };
        let tail = if details { "/details" } else { "" };
        (format!("/api/{word}/{id}{tail}"), shape)
    })
}

/// `items` in an order drawn from `seed` (a deterministic Fisher-Yates).
fn shuffle<T: Clone>(items: &[T], seed: u64) -> Vec<T> {
    let mut shuffled = items.to_vec();
    let mut state = seed | 1;
    for i in (1..shuffled.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        shuffled.swap(i, (state % (i as u64 + 1)) as usize);
    }
    shuffled
}

fn shaped_templates(paths: &[(String, u64)]) -> BTreeMap<String, String> {
    let mut t = Templater::default();
    for (p, shape) in paths {
        t.observe("h.test", p, Some(*shape));
    }
    paths
        .iter()
        .map(|(p, _)| (p.clone(), t.template("h.test", p).to_string()))
        .collect()
}

fn templates(paths: &[String]) -> BTreeMap<String, String> {
    let mut t = Templater::default();
    for p in paths {
        t.observe("h.test", p, Some(1));
    }
    paths
        .iter()
        .map(|p| (p.clone(), t.template("h.test", p).to_string()))
        .collect()
}

fn store_keys(paths: &[String]) -> Vec<(String, u64)> {
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    for (i, p) in paths.iter().enumerate() {
        store.ingest(&json_flow(
            i as u64,
            "GET",
            &format!("https://h.test{p}"),
            200,
            "{\"a\":1}",
        ));
    }
    store
        .endpoints()
        .iter()
        .map(|e| (e.key().to_string(), e.flow_count()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn final_templates_do_not_depend_on_arrival_order(paths in prop::collection::vec(path(), 1..60), seed in any::<u64>()) {
        let shuffled = shuffle(&paths, seed);
        prop_assert_eq!(templates(&paths), templates(&shuffled));
        prop_assert_eq!(store_keys(&paths), store_keys(&shuffled), "endpoints (after merges) and their flow counts");
    }

    #[test]
    fn singular_names_do_not_depend_on_arrival_order(paths in prop::collection::vec(singular_path(), 1..40), seed in any::<u64>()) {
        let templates = shaped_templates(&paths);
        prop_assert_eq!(&templates, &shaped_templates(&shuffle(&paths, seed)));
    }

    #[test]
    fn templating_is_deterministic(paths in prop::collection::vec(path(), 1..30)) {
        prop_assert_eq!(templates(&paths), templates(&paths));
    }

    #[test]
    fn copies_of_a_flow_never_grow_memory_past_the_sample_bound(copies in 1usize..3_000, body_len in 0usize..5_000) {
        let body = format!("{{\"pad\":\"{}\"}}", "x".repeat(body_len));
        let config = StoreConfig::default();
        let saturation = config.first_samples + config.reservoir_samples + config.diverse_samples + 1;
        let measure = |n: usize| {
            let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
            for i in 0..n {
                store.ingest(&json_flow(i as u64, "POST", "https://h.test/api/items/42?x=1", 200, &body));
            }
            store.approx_heap_bytes()
        };
        prop_assert!(measure(copies) <= measure(saturation), "{} copies use more than {} copies", copies, saturation);
    }
}
