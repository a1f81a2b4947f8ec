//! Shared helpers: fixture paths and small flow builders.

use std::path::PathBuf;

use ar_flow::har::{HarImport, ImportOptions, import_har};
use ar_flow::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

pub(crate) fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/har")
        .join(name)
}

pub(crate) fn import(name: &str) -> HarImport {
    let file = std::fs::File::open(fixture(name)).expect("fixture exists");
    import_har(std::io::BufReader::new(file), &ImportOptions::lenient()).expect("fixture imports")
}

/// A GET with a JSON response body.
pub(crate) fn json_flow(id: u64, method: &str, url: &str, status: u16, body: &str) -> Flow {
    let mut response = Response::new(status, HttpVersion::Http11);
    response.headers.push("content-type", "application/json");
    response.body = Body::from_decoded(Some("application/json".into()), body.as_bytes().to_vec());
    Flow::new(
        FlowId(id),
        Timestamp::from_unix_micros(1_700_000_000_000_000 + id as i64),
        Client::Agent,
        Request::new(method, url, HttpVersion::Http11),
    )
    .with_response(response)
}
