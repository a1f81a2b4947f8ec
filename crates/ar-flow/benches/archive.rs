//! Archive line encoding: `ArchiveWriter::append` per flow.
//!
//! ```text
//! cargo bench -p ar-flow --bench archive
//! ```
//!
//! - `append_small_json`: a realistic proxied exchange (HTTP/1.1, 8 request
//!   and 6 response headers, 2 query parameters, a ~300-byte JSON response,
//!   timings, a server address) appended to an in-memory archive. This is
//!   what `ar proxy` pays per request on top of relaying it.
//! - `append_tiny_body`: the same with a 13-byte `text/plain` response, like
//!   the small requests of the `ar proxy` load benchmark.
//! - `append_binary_body`: the same with a 4 KiB non-UTF-8 response body
//!   (inlined as base64).
//!
//! Instructions of the line encoding alone (one sample of 1,000 flows):
//!
//! ```text
//! cargo bench -p ar-flow --bench archive --no-run
//! valgrind --tool=callgrind --toggle-collect='*encode_into*' \
//!     target/release/deps/archive-<hash> append_small_json --sample-count 1 --sample-size 1
//! ```

use ar_flow::archive::{ArchiveWriter, MemoryBodyStore};
use ar_flow::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
use divan::counter::ItemsCount;
use divan::{Bencher, black_box};

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

/// Flows per benchmark iteration (so per-flow time is the reported time / `BATCH`).
const BATCH: u64 = 1000;

fn small_flow(i: u64, response_body: Body) -> Flow {
    let url = format!(
        "http://127.0.0.1:8080/api/v1/items/{}?page={}&sort=asc",
        i * 7919 % 100_000,
        i % 7
    );
    let mut request = Request::new("GET", url, HttpVersion::Http11);
    for (name, value) in [
        ("Host", "127.0.0.1:8080"),
        ("Accept", "application/json"),
        ("Accept-Language", "en-GB,en;q=0.9"),
        ("User-Agent", "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0"),
        ("Authorization", "Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig"),
        ("X-Request-Id", "4f1c2a"),
        ("Referer", "http://127.0.0.1:8080/app"),
        ("Connection", "keep-alive"),
    ] {
        request.headers.push(name, value);
    }
    let mut response = Response::new(200, HttpVersion::Http11);
    response.reason = "OK".into();
    for (name, value) in [
        ("content-type", "application/json"),
        ("content-length", "312"),
        ("date", "Sat, 21 Nov 2026 08:00:00 GMT"),
        ("cache-control", "no-store"),
        ("x-trace", "abc\"def\\ghi"),
        ("server", "origin/1.0"),
    ] {
        response.headers.push(name, value);
    }
    response.body = response_body;
    let started = Timestamp::from_unix_micros(1_795_000_000_000_000 + i as i64 * 137);
    let mut flow = Flow::new(FlowId(i), started, Client::Human, request).with_response(response);
    flow.ended = Some(Timestamp::from_unix_micros(started.unix_micros() + 412));
    flow.timings.send = Some(0.011);
    flow.timings.wait = Some(0.356);
    flow.timings.receive = Some(0.045);
    flow.server_addr = Some("127.0.0.1:8080".into());
    flow
}

fn json_body() -> Body {
    let text = r#"{"id":4711,"name":"Blue widget","price":{"amount":1999,"currency":"EUR"},"tags":["blue","widget","sale"],"stock":{"warehouse":"Lyon","count":17},"description":"A widget, blue, with a \"quoted\" word and unicode: café","links":{"self":"/api/v1/items/4711","reviews":"/api/v1/items/4711/reviews"}}"#;
    Body::from_decoded(Some("application/json".into()), text.as_bytes().to_vec())
}

fn run(bencher: Bencher, body: fn() -> Body) {
    let flows: Vec<Flow> = (0..BATCH).map(|i| small_flow(i, body())).collect();
    let mut bodies = MemoryBodyStore::default();
    let mut sink = Vec::with_capacity(4 << 20);
    bencher.counter(ItemsCount::new(BATCH)).bench_local(|| {
        let mut writer = ArchiveWriter::new(std::mem::take(&mut sink));
        for flow in &flows {
            writer.append(black_box(flow), &mut bodies).unwrap();
        }
        sink = black_box(writer.into_inner());
        sink.clear();
    });
}

/// Small JSON exchanges: the `ar proxy` hot path.
#[divan::bench(sample_count = 30)]
fn append_small_json(bencher: Bencher) {
    run(bencher, json_body);
}

/// A 13-byte text response: what the proxy load benchmark's origin sends.
#[divan::bench(sample_count = 30)]
fn append_tiny_body(bencher: Bencher) {
    run(bencher, || {
        Body::from_decoded(Some("text/plain".into()), b"Hello, world!".to_vec())
    });
}

/// A 4 KiB binary response body, inlined as base64.
#[divan::bench(sample_count = 30)]
fn append_binary_body(bencher: Bencher) {
    run(bencher, || {
        let bytes: Vec<u8> = (0..4096u32).map(|i| (i * 131 % 256) as u8).collect();
        Body::from_decoded(Some("application/octet-stream".into()), bytes)
    });
}
