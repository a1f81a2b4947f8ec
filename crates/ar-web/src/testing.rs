//! Test helpers shared by the crate's unit tests.

use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Timestamp};

/// A `POST` to `https://shop.test{path}` carrying secrets in its query
/// (`api_key`), its `Authorization` header and its JSON `body`.
pub(crate) fn request_with_secrets(path: &str, body: &str) -> Request {
    let mut request = Request::new(
        "POST",
        format!("https://shop.test{path}?api_key=sk_live_abcdefgh1234"),
        HttpVersion::Http11,
    );
    request
        .headers
        .push("Authorization", "Bearer abcdefgh.ijkl");
    request.headers.push("Accept", "application/json");
    request.body = Body::from_decoded(Some("application/json".into()), body.as_bytes().to_vec());
    request
}

/// Flow `id`: a `GET` of `https://shop.test{path}` with no answer yet.
pub(crate) fn get(id: u64, path: &str) -> Flow {
    Flow::new(
        FlowId(id),
        Timestamp::from_unix_micros(0),
        Client::Human,
        Request::new(
            "GET",
            format!("https://shop.test{path}"),
            HttpVersion::Http11,
        ),
    )
}
