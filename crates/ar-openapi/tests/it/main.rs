//! Integration tests of ar-openapi: canned HARs (tests/data, made by
//! `make_hars.py`) through the real ar-store HAR importer and endpoint store.

#![expect(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "tests read fixtures from disk; the crate they test stays pure"
)]

mod api_wide;
mod codegen;
mod golden;
mod laws;
mod narrowing;
mod overrides;
mod pairs;
mod query;
mod roundtrip;
mod secrets;
mod suffix;
mod validator;
mod validity;
mod yaml11;

use std::path::{Path, PathBuf};

use ar_flow::har::{ImportOptions, import_har};
use ar_openapi::{Documentation, Documenter, Enrichment, Options, Redactor, document};
use ar_store::Flow;
use ar_store::scope::{Scope, ScopeConfig};
use ar_store::store::{EndpointStore, StoreConfig};

/// The canned HARs.
pub(crate) const HARS: [&str; 5] = ["rest", "graphql", "forms", "auth", "secrets"];

pub(crate) fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The flows of a canned HAR.
pub(crate) fn flows(name: &str) -> Vec<Flow> {
    let file = std::fs::File::open(data(&format!("{name}.har"))).expect("canned HAR exists");
    import_har(std::io::BufReader::new(file), &ImportOptions::strict())
        .expect("canned HAR imports")
        .flows
}

/// Everything the pipeline would build from a canned HAR.
pub(crate) struct Imported {
    pub(crate) flows: Vec<Flow>,
    pub(crate) store: EndpointStore,
    pub(crate) docs: Documentation,
}

pub(crate) fn import(name: &str, scope: ScopeConfig) -> Imported {
    let flows = flows(name);
    let store = EndpointStore::new(
        Scope::new(scope).expect("valid scope"),
        StoreConfig::default(),
    );
    let options = Options {
        title: format!("{name} API"),
        ..Options::default()
    };
    let (store, docs) = document_flows(store, &flows, &options);
    Imported { flows, store, docs }
}

/// `flows` ingested in order into `store` and documented as the pipeline
/// does it; the store comes back beside the documentation.
pub(crate) fn document_flows<'a>(
    store: EndpointStore,
    flows: impl IntoIterator<Item = &'a Flow>,
    options: &Options,
) -> (EndpointStore, Documentation) {
    let mut store = store.with_evidence(Documenter::new(Redactor::new()));
    for flow in flows {
        store.ingest(flow);
    }
    let docs = document(&store, &Enrichment::new(), options).expect("assembles");
    (store, docs)
}

/// A GET of `url` answered 200 with the JSON `body`, at a time set by `id`.
pub(crate) fn json_get(id: u64, url: &str, body: &str) -> Flow {
    ar_flow::testing::json_flow(id, "GET", url, 200, body)
}

/// Every host except trackers (what `ar import` does without `--scope`).
pub(crate) fn everything() -> ScopeConfig {
    ScopeConfig::default()
}
