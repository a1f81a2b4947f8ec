//! Inference throughput on realistic bodies, next to serde_json parsing the same bytes into a
//! `Value`, and next to the `genson-rs` crate in the same harness.
//!
//! Run on one core (genson-rs parallelises with rayon; pin it):
//! `RAYON_NUM_THREADS=1 cargo bench -p ar-schema --bench infer`
//!
//! Inputs are generated deterministically (see `support/mod.rs`): twitter/citm/canada JSON
//! cannot be downloaded here, so structurally similar documents stand in for them. Note that
//! genson-rs installs mimalloc as the global allocator, so every contender in this binary runs
//! on mimalloc.

#![expect(
    clippy::disallowed_methods,
    reason = "a bench reads its corpus and times itself; the crate it measures stays pure"
)]

mod support;

use std::sync::OnceLock;

use divan::Bencher;
use divan::counter::BytesCount;

fn main() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        eprintln!("note: set RAYON_NUM_THREADS=1 to keep genson-rs on one core");
    }
    divan::main();
}

const INPUTS: &[&str] = &[
    "api-1mb.json",
    "api-50mb.json",
    "small-samples.jsonl",
    "twitter-like.json",
    "citm-like.json",
    "canada-like.json",
];

fn input(name: &str) -> &'static [u8] {
    static ALL: OnceLock<Vec<(&'static str, Vec<u8>)>> = OnceLock::new();
    let all = ALL.get_or_init(|| support::all(true));
    &all.iter().find(|(n, _)| *n == name).expect("known input").1
}

fn is_lines(name: &str) -> bool {
    name.ends_with(".jsonl")
}

/// `ar-schema` straight from bytes (no `Value`).
#[divan::bench(args = INPUTS, sample_count = 10, sample_size = 1)]
fn ar_schema_bytes(bencher: Bencher, name: &str) {
    let bytes = input(name);
    bencher.counter(BytesCount::of_slice(bytes)).bench(|| {
        let mut b = ar_schema::SchemaBuilder::new();
        b.add_json_stream(bytes).expect("valid input");
        b.finish()
    });
}

/// One small body per call into a builder that has seen such bodies before, as `ar proxy` adds
/// each flow's body to its endpoint's schema: the small-samples lines after the first 100 (which
/// warm the builder up through `add_json_stream`), one `add_json_slice` each.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn ar_schema_slice_per_body(bencher: Bencher) {
    let bytes = input("small-samples.jsonl");
    let mut lines = bytes.split(|&c| c == b'\n').filter(|l| !l.is_empty());
    let warm_up: Vec<u8> = lines
        .by_ref()
        .take(100)
        .flat_map(|l| [l, b"\n"])
        .flatten()
        .copied()
        .collect();
    let bodies: Vec<&[u8]> = lines.collect();
    bencher
        .counter(divan::counter::ItemsCount::new(bodies.len()))
        .with_inputs(|| {
            let mut b = ar_schema::SchemaBuilder::new();
            b.add_json_stream(&warm_up).expect("valid input");
            b
        })
        .bench_local_values(|mut b| {
            for body in &bodies {
                b.add_json_slice(body).expect("valid body");
            }
            b
        });
}

/// The baseline: serde_json parsing the same bytes into `Value`s (no inference at all).
#[divan::bench(args = INPUTS, sample_count = 10, sample_size = 1)]
fn serde_json_value(bencher: Bencher, name: &str) {
    let bytes = input(name);
    bencher.counter(BytesCount::of_slice(bytes)).bench(|| {
        serde_json::Deserializer::from_slice(bytes)
            .into_iter::<serde_json::Value>()
            .map(|v| v.expect("valid input"))
            .collect::<Vec<_>>()
    });
}

/// `ar-schema` the slow way: parse into `Value`, then infer from it.
#[divan::bench(args = INPUTS, sample_count = 10, sample_size = 1)]
fn ar_schema_via_value(bencher: Bencher, name: &str) {
    let bytes = input(name);
    bencher.counter(BytesCount::of_slice(bytes)).bench(|| {
        let mut b = ar_schema::SchemaBuilder::new();
        for v in serde_json::Deserializer::from_slice(bytes).into_iter::<serde_json::Value>() {
            b.add_value(&v.expect("valid input"));
        }
        b.finish()
    });
}

/// genson-rs 0.2 on the same bytes (simd-json parse + its builder), schema rendered.
#[divan::bench(args = INPUTS, sample_count = 10, sample_size = 1)]
fn genson_rs(bencher: Bencher, name: &str) {
    let bytes = input(name);
    let config = genson_rs::BuildConfig {
        delimiter: if is_lines(name) { Some(b'\n') } else { None },
        ignore_outer_array: false,
    };
    bencher
        .counter(BytesCount::of_slice(bytes))
        .with_inputs(|| bytes.to_vec())
        .bench_local_values(|mut buf| {
            let mut builder = genson_rs::get_builder(None);
            genson_rs::build_json_schema(&mut builder, &mut buf, &config)
        });
}
