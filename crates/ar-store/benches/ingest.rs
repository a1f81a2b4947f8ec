//! Ingest throughput of the endpoint store, and its memory over a long run.
//!
//! ```text
//! cargo bench -p ar-store --bench ingest
//! ```
//!
//! - `small_json_flows`: 10,000 realistic small JSON flows (1,000 endpoints:
//!   25 collections × 10 hosts × 4 methods; ids in paths, query params,
//!   six request headers) into a warm store. Target: ≥ 200,000 flows/s.
//! - `small_json_flows_distinct_bodies`: the same, with request bodies that
//!   never repeat (no help from the store's memo of bodies seen before).
//! - `one_mb_body_flows`: flows whose response is a 1 MB JSON array.
//! - `memory_over_1m_flows`: 1,000,000 flows of 1,000 endpoints; prints the
//!   store's own heap accounting and the process RSS every 100,000 flows
//!   (flat = bounded).
//!
//! Wall time on a shared machine is noisy; instructions per flow are not.
//! Steady state of `small_json_flows` under callgrind (the last dump holds
//! only the measured flows):
//!
//! ```text
//! valgrind --tool=callgrind --dump-after='ingest::warm_store' \
//!   --toggle-collect='ar_store::store::ingest::<impl ar_store::store::EndpointStore>::ingest' \
//!   target/release/deps/ingest-* small_json_flows --sample-count 1 --sample-size 1
//! ```

#![expect(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "a bench times itself and reads /proc; the crate it measures stays pure"
)]

use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
use divan::{Bencher, black_box};

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

const COLLECTIONS: [&str; 25] = [
    "users",
    "orders",
    "products",
    "carts",
    "invoices",
    "payments",
    "reviews",
    "comments",
    "tags",
    "categories",
    "sessions",
    "tokens",
    "webhooks",
    "events",
    "messages",
    "threads",
    "files",
    "folders",
    "teams",
    "projects",
    "issues",
    "labels",
    "releases",
    "builds",
    "deployments",
];
const METHODS: [&str; 4] = ["GET", "POST", "PUT", "DELETE"];

/// Flow `i` of the synthetic workload: endpoint `i % 1000`, a pseudo-random id.
fn small_flow(i: u64) -> Flow {
    let endpoint = (i % 1000) as usize;
    let (collection, host, method) = (
        COLLECTIONS[endpoint % 25],
        endpoint / 25 % 10,
        METHODS[endpoint / 250],
    );
    let id = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    let url = format!(
        "https://api{host}.shop.test/api/v1/{collection}/{id}?page={}&sort=asc",
        i % 7
    );
    let mut request = Request::new(method, url, HttpVersion::Http2);
    for (name, value) in [
        ("accept", "application/json"),
        ("accept-language", "en-GB,en;q=0.9"),
        ("user-agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0"),
        ("authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"),
        ("x-request-id", "4f1c2a"),
        ("referer", "https://shop.test/app"),
    ] {
        request.headers.push(name, value);
    }
    if method != "GET" {
        request.body = Body::from_decoded(
            Some("application/json".into()),
            br#"{"name":"widget","qty":2}"#.to_vec(),
        );
    }
    let mut response = Response::new(200, HttpVersion::Http2);
    response.headers.push("content-type", "application/json");
    let body = format!(
        r#"{{"id":{id},"name":"widget","price":9.5,"tags":["a","b"],"owner":{{"id":7,"login":"ann"}}}}"#
    );
    response.body = Body::from_decoded(Some("application/json".into()), body.into_bytes());
    Flow::new(
        FlowId(i),
        Timestamp::from_unix_micros(1_700_000_000_000_000 + i as i64),
        Client::Agent,
        request,
    )
    .with_response(response)
}

fn warm_store(flows: &[Flow]) -> EndpointStore {
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    for f in flows {
        store.ingest(f);
    }
    store
}

#[divan::bench(sample_count = 20)]
fn small_json_flows(bencher: Bencher) {
    ingest_into_warm_store(bencher, small_flow);
}

/// `small_json_flows` with a request body that never repeats (the store
/// answers a body it saw byte for byte from a memo; this measures without it).
#[divan::bench(sample_count = 20)]
fn small_json_flows_distinct_bodies(bencher: Bencher) {
    ingest_into_warm_store(bencher, |i| {
        let mut flow = small_flow(i);
        if !flow.request.body.bytes.is_empty() {
            flow.request.body.bytes = format!(r#"{{"name":"widget {i}","qty":2}}"#).into_bytes();
        }
        flow
    });
}

/// 10,000 flows `make(0..)` into a store warmed with 20,000 others.
fn ingest_into_warm_store(bencher: Bencher, make: impl Fn(u64) -> Flow) {
    let flows: Vec<Flow> = (0..10_000).map(&make).collect();
    let warmup: Vec<Flow> = (1_000_000..1_020_000).map(&make).collect();
    bencher
        .counter(divan::counter::ItemsCount::new(flows.len()))
        .with_inputs(|| warm_store(&warmup))
        .bench_local_values(|mut store| {
            for f in &flows {
                black_box(store.ingest(f));
            }
            store
        });
}

fn one_mb_flow(i: u64) -> Flow {
    let mut flow = small_flow(i);
    let item = r#"{"id":123456,"name":"a product with a name","price":12.5,"in_stock":true,"tags":["x","y","z"]},"#;
    let mut body = String::with_capacity(1 << 20);
    body.push('[');
    while body.len() + item.len() < (1 << 20) - 1 {
        body.push_str(item);
    }
    body.pop();
    body.push(']');
    flow.response.as_mut().expect("built with a response").body =
        Body::from_decoded(Some("application/json".into()), body.into_bytes());
    flow
}

#[divan::bench(sample_count = 10)]
fn one_mb_body_flows(bencher: Bencher) {
    let flows: Vec<Flow> = (0..20).map(one_mb_flow).collect();
    bencher
        .counter(divan::counter::ItemsCount::new(flows.len()))
        .counter(divan::counter::BytesCount::new(flows.len() << 20))
        .with_inputs(|| EndpointStore::new(Scope::everything(), StoreConfig::default()))
        .bench_local_values(|mut store| {
            for f in &flows {
                black_box(store.ingest(f));
            }
            store
        });
}

/// Resident set size of this process in bytes (Linux), for the memory report.
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// CPU time (user + system) of this process in seconds, from /proc (Linux, 100 Hz ticks).
/// On a shared machine wall time overstates cost; CPU time is what one core spent.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}

#[divan::bench(sample_count = 1, sample_size = 1)]
fn memory_over_1m_flows() {
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    let mut report = Vec::new();
    let (wall, cpu) = (std::time::Instant::now(), cpu_seconds().unwrap_or(0.0));
    for i in 0..1_000_000u64 {
        store.ingest(&small_flow(i));
        if (i + 1) % 100_000 == 0 {
            report.push(format!(
                "{:>9} flows: {:>5} endpoints, store heap ≈ {:>6} KiB, RSS {:>6} KiB",
                i + 1,
                store.stats().endpoints,
                store.approx_heap_bytes() / 1024,
                rss_bytes().unwrap_or(0) / 1024
            ));
        }
    }
    let cpu = cpu_seconds().unwrap_or(0.0) - cpu;
    let wall = wall.elapsed().as_secs_f64();
    // The same flows built and dropped without the store: what the loop
    // above spent outside `ingest`. Over 5 s of CPU this is steadier than
    // the short wall-clock samples of `small_json_flows` on a shared machine.
    let build_started = cpu_seconds().unwrap_or(0.0);
    for i in 0..1_000_000u64 {
        black_box(small_flow(i));
    }
    let build = cpu_seconds().unwrap_or(0.0) - build_started;
    eprintln!(
        "\nmemory over 1,000,000 flows of 1,000 endpoints:\n{}",
        report.join("\n")
    );
    eprintln!(
        "1,000,000 flows (built and ingested) in {wall:.2} s wall, {cpu:.2} s CPU: {:.0} flows per CPU-second",
        1_000_000.0 / cpu.max(0.01)
    );
    eprintln!(
        "building them alone: {build:.2} s CPU; ingest alone: {:.0} flows per CPU-second",
        1_000_000.0 / (cpu - build).max(0.01)
    );
    black_box(store);
}
