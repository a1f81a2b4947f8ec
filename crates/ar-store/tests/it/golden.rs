//! Golden tests: the endpoints and templates `ar` derives from each canned HAR.
//!
//! One snapshot per fixture; review changes with `INSTA_UPDATE=always cargo test`
//! and read the `.snap` diff: a changed template is a user-visible change.

use std::collections::BTreeMap;

use ar_store::scope::{Scope, ScopeConfig};
use ar_store::store::{EndpointStore, StoreConfig};
use serde::Serialize;

use crate::support::import;

#[derive(Serialize)]
struct Golden {
    creator: Option<String>,
    imported: usize,
    skipped: Vec<String>,
    replaced_invalid_utf8: u64,
    endpoints: Vec<EndpointView>,
    merges: Vec<String>,
    /// Endpoints split because a template narrowed (none in the fixtures so far).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    splits: Vec<String>,
    out_of_scope: Vec<String>,
}

#[derive(Serialize)]
struct EndpointView {
    key: String,
    scheme: String,
    flows: u64,
    statuses: BTreeMap<u16, u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    params: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    query: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    links: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    graphql: Option<String>,
    samples: usize,
}

fn golden(fixture: &str, target: Option<&str>) -> Golden {
    let har = import(fixture);
    let mut config = ScopeConfig::default();
    config.target = target.map(str::to_string);
    let mut store = EndpointStore::new(Scope::new(config).unwrap(), StoreConfig::default());
    let (mut merges, mut splits) = (Vec::new(), Vec::new());
    for flow in &har.flows {
        let ingested = store.ingest(flow);
        let key = |id| store.endpoint(id).map(|e| e.key().to_string());
        for split in &ingested.splits {
            let created: Vec<_> = split.created.iter().filter_map(|id| key(*id)).collect();
            splits.push(format!(
                "flow {}: {} split off {}",
                flow.id.0,
                split
                    .shrunk
                    .iter()
                    .filter_map(|id| key(*id))
                    .collect::<Vec<_>>()
                    .join(", "),
                created.join(", ")
            ));
        }
        for m in ingested.merged {
            merges.push(format!(
                "flow {}: {} merged into {}",
                flow.id.0, m.from_key, m.into_key
            ));
        }
    }
    let endpoints = store
        .endpoints()
        .into_iter()
        .map(|ep| EndpointView {
            key: ep.key().to_string(),
            scheme: ep.scheme().to_string(),
            flows: ep.flow_count(),
            statuses: ep.statuses().clone(),
            params: ep
                .template()
                .params()
                .map(|p| {
                    format!(
                        "{{{}}}: {} [{}]",
                        p.name,
                        p.evidence.rule,
                        p.evidence.values.join(", ")
                    )
                })
                .collect(),
            query: ep
                .query_params()
                .params
                .iter()
                .map(|(name, s)| {
                    let presence = if s.seen == ep.flow_count() {
                        "always"
                    } else {
                        "sometimes"
                    };
                    format!(
                        "{name}: {presence}, {:?}",
                        s.kinds.keys().collect::<Vec<_>>()
                    )
                })
                .collect(),
            links: ep
                .links()
                .iter()
                .map(|l| {
                    format!(
                        "{{{}}} <- {} of {}",
                        l.param,
                        l.field_path,
                        store
                            .endpoint(l.source)
                            .map_or("?".into(), |s| s.key().to_string())
                    )
                })
                .collect(),
            graphql: ep.graphql().map(|g| {
                format!(
                    "{:?} {}",
                    g.kind,
                    g.name.as_deref().unwrap_or("(anonymous)")
                )
            }),
            samples: ep.samples().count(),
        })
        .collect();
    Golden {
        creator: har.creator,
        imported: har.flows.len(),
        skipped: har.skipped.iter().map(ToString::to_string).collect(),
        replaced_invalid_utf8: har.replaced_invalid_utf8,
        endpoints,
        merges,
        splits,
        out_of_scope: store
            .out_of_scope()
            .iter()
            .map(|o| format!("{} {} x{}", o.host, o.reason.as_str(), o.count))
            .collect(),
    }
}

#[test]
fn chrome_shop() {
    insta::assert_yaml_snapshot!(golden("chrome-shop.har", Some("https://shop.test/")));
}

#[test]
fn firefox_repos() {
    insta::assert_yaml_snapshot!(golden("firefox-repos.har", Some("https://api.code.test/")));
}

#[test]
fn mitmproxy_api() {
    insta::assert_yaml_snapshot!(golden("mitmproxy-api.har", None));
}

#[test]
fn charles_proxyman() {
    insta::assert_yaml_snapshot!(golden("charles-proxyman.har", Some("pay.test")));
}

#[test]
fn malformed_keeps_good_entries() {
    insta::assert_yaml_snapshot!(golden("malformed.har", None));
}

#[test]
fn rest_collections_stay_apart() {
    insta::assert_yaml_snapshot!(golden("rest-collections.har", None));
}

/// Why each position of some endpoints of `rest-collections.har` is what it is:
/// the evidence a user sees for "collection, not a value" and for the folds.
#[test]
fn rest_collections_explained() {
    let har = import("rest-collections.har");
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    for flow in &har.flows {
        store.ingest(flow);
    }
    let wanted = [
        "GET api.store.test/v1/orders/{orderId}",
        "GET api.store.test/v1/carts",
        "GET api.store.test/v1/users/me",
        "GET api.store.test/categories/{category}/items",
        "GET api.store.test/departments/{departmentSlug}/{departmentId}/reviews",
    ];
    let explained: Vec<Vec<String>> = wanted
        .iter()
        .map(|key| {
            let ep = store
                .endpoints()
                .into_iter()
                .find(|ep| ep.key().to_string() == *key)
                .unwrap_or_else(|| panic!("no endpoint {key}"));
            store
                .explain(ep.id())
                .expect("a path endpoint")
                .to_string()
                .lines()
                .map(str::to_string)
                .collect()
        })
        .collect();
    insta::assert_yaml_snapshot!(explained);
}
