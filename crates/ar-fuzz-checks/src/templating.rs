//! URL splitting and templating of an arbitrary set of URLs.

use ar_store::scope::Scope;
use ar_store::store::{EndpointStore, StoreConfig};
use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

/// Takes each line of `data` as a request URL (at most 32 of them: the store re-templates on each ingest, so a longer list only slows the fuzzer), and
/// ingests them into an endpoint store in file order and in reverse: the
/// endpoints and their flow counts are the same either way.
pub fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let urls: Vec<&str> = text.lines().take(32).collect();
    let forward = without_suffixes(endpoints(urls.iter().copied()));
    let backward = without_suffixes(endpoints(urls.iter().rev().copied()));
    assert_eq!(forward, backward, "endpoints depend on arrival order");
}

/// The endpoints with each key's `#n` suffix taken off, sorted. A key is
/// given once and kept (the web view, `session.json` and the agent refer to
/// it), so when two endpoints would have the same key (one GraphQL
/// operation name on two hosts) the one seen first keeps it and the other
/// gets `#2`: which one depends on arrival, by design. The templating does
/// not: the same endpoints with the same flows, whatever the order.
fn without_suffixes(mut endpoints: Vec<(String, u64)>) -> Vec<(String, u64)> {
    for (key, _) in &mut endpoints {
        if let Some((base, n)) = key.rsplit_once('#')
            && n.parse::<u32>().is_ok()
        {
            key.truncate(base.len());
        }
    }
    endpoints.sort();
    endpoints
}

/// The store's endpoints (key, flows) after ingesting a GET of each URL,
/// answered by the same JSON body.
pub fn endpoints<'a>(urls: impl Iterator<Item = &'a str>) -> Vec<(String, u64)> {
    let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
    for (n, url) in urls.enumerate() {
        store.ingest(&json_flow(n as u64, "GET", url, None));
    }
    store
        .endpoints()
        .iter()
        .map(|e| (e.key().to_string(), e.flow_count()))
        .collect()
}

/// A `method` request to `url` (with a request body, if any, as
/// `(content type, bytes)`) answered `200` with `{"ok":true}`.
pub fn json_flow(id: u64, method: &str, url: &str, body: Option<(&str, &[u8])>) -> Flow {
    let mut request = Request::new(method, url, HttpVersion::Http11);
    if let Some((content_type, bytes)) = body {
        request.headers.push("content-type", content_type);
        request.body = Body::from_decoded(Some(content_type.to_string()), bytes.to_vec());
    }
    let mut response = Response::new(200, HttpVersion::Http11);
    response.headers.push("content-type", "application/json");
    response.body = Body::from_decoded(Some("application/json".into()), br#"{"ok":true}"#.to_vec());
    Flow::new(
        FlowId(id),
        Timestamp::from_unix_micros(1_700_000_000_000_000 + id as i64),
        Client::Agent,
        request,
    )
    .with_response(response)
}
