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

/// A store that ingested `flows` (method, path, JSON answer) on `h.test`, in order.
fn store_of<'a>(flows: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>) -> EndpointStore {
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    for (i, (method, path, body)) in flows.into_iter().enumerate() {
        let url = format!("https://h.test{path}");
        store.ingest(&json_flow(i as u64, method, &url, 200, body));
    }
    store
}

fn store_keys(paths: &[String]) -> Vec<(String, u64)> {
    let store = store_of(paths.iter().map(|p| ("GET", p.as_str(), "{\"a\":1}")));
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

/// A key suffixed while another endpoint held its base (`GET h/v1/{name}#2`)
/// takes the base once it is free: the keys a capture ends with do not
/// depend on the order its flows came in (a case proptest found).
#[test]
fn suffixed_keys_give_way_once_their_base_is_free() {
    let paths: Vec<String> = [
        "/categories/users/items",
        "/repos/rust-lang/cargo/issues",
        "/repos/rust-lang/cargo/issues",
        "/orgs/rust-lang/members",
        "/repos/rust-lang/cargo/issues",
        "/v1/orders/1",
        "/repos/rust-lang/cargo/issues",
        "/repos/rust-lang/cargo/issues",
        "/repos/rust-lang/cargo/issues",
        "/sections/reviews/settings",
        "/repos/rust-lang/cargo/issues",
        "/repos/rust-lang/cargo/issues",
        "/repos/rust-lang/cargo/issues",
        "/sections/users/7",
        "/repos/rust-lang/cargo/issues",
        "/categories/users/items",
        "/repos/rust-lang/cargo/issues",
        "/repos/rust-lang/cargo/issues",
        "/sections/shoes/settings",
        "/sections/stores/settings",
        "/repos/rust-lang/cargo/issues",
        "/sections/hats/settings",
        "/repos/rust-lang/cargo/issues",
        "/repos/rust-lang/cargo/issues",
        "/users/2",
        "/categories/stores/items",
        "/users/me",
        "/v1/users",
        "/v1/settings",
        "/sections/coupons/settings",
        "/sections/carts/settings",
        "/sections/users/settings",
        "/sections/carts/settings",
        "/sections/invoices/settings",
        "/users/17",
        "/sections/orders/settings",
        "/users/me",
        "/users/29/orders/3",
        "/sections/carts/settings",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let shuffled = shuffle(&paths, 6760125235797618964);
    assert_eq!(store_keys(&paths), store_keys(&shuffled));
}

/// The store that ingested `flows` (method, path, body), and its endpoint keys.
fn keys_of(flows: &[(&str, String, String)]) -> (EndpointStore, Vec<String>) {
    let store = store_of(flows.iter().map(|(m, p, b)| (*m, p.as_str(), b.as_str())));
    let keys = store
        .endpoints()
        .iter()
        .map(|e| e.key().to_string())
        .collect();
    (store, keys)
}

/// Class: values that answer alike, not equal. An API leaves out what is
/// unset, so the timers of one service answer with different subsets of
/// one set of fields: they are values all the same, while names whose
/// answers share only an envelope stay names.
#[test]
fn values_whose_answers_leave_out_unset_fields_answer_alike() {
    let fields = [
        "description",
        "frequency",
        "namespace",
        "repeats",
        "service_name",
        "start_time",
        "system_key",
        "system_secret",
        "timer_key",
        "user_id",
        "user_token",
    ];
    let left_out = [[1, 3, 8], [0, 5, 8], [4, 6, 10], [2, 7, 9]];
    let mut flows = Vec::new();
    for (timer, out) in [
        "alpha-cedar",
        "beta-cobalt",
        "sierra-orion",
        "vertex-vertex",
    ]
    .into_iter()
    .zip(left_out)
    {
        let body: Vec<String> = (fields.iter().enumerate())
            .filter(|(i, _)| !out.contains(i))
            .map(|(_, f)| format!("\"{f}\":\"x\""))
            .collect();
        let path = format!("/api/code/lumen/timer/{timer}");
        flows.push(("GET", path, format!("{{{}}}", body.join(","))));
    }
    let (store, keys) = keys_of(&flows);
    assert_eq!(keys, ["GET h.test/api/code/lumen/timer/{timer}"]);
    let explained = store
        .explain(store.endpoints()[0].id())
        .unwrap()
        .to_string();
    assert!(
        explained.contains("{timer}: 4 distinct leaf literals that answered alike"),
        "{explained}"
    );

    // One envelope around every answer, each with a payload of its own:
    // the envelope is no evidence, and three operations stay operations.
    let mut flows = Vec::new();
    for (i, op) in [
        "Pending",
        "ApproveAll",
        "Banned",
        "Invited",
        "Kicked",
        "Muted",
        "Owners",
        "Admins",
    ]
    .into_iter()
    .enumerate()
    {
        let body = format!(
            "{{\"ErrorCode\":1,\"ErrorStatus\":\"ok\",\"Message\":\"m\",\"MessageData\":{{}},\"ThrottleSeconds\":0,\"Response\":{{\"only_{i}\":1,\"also_{i}\":2}}}}"
        );
        flows.push(("GET", format!("/Platform/Members/{op}/"), body));
    }
    let (_, keys) = keys_of(&flows);
    assert_eq!(keys.len(), 8, "{keys:?}");
    assert!(
        keys.contains(&"GET h.test/Platform/Members/Pending/".to_string()),
        "{keys:?}"
    );
}
