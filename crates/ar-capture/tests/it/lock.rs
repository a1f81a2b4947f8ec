//! The lock on destructive requests (issue #26): while it is on, a `DELETE`
//! or a write whose path ends in a destructive verb gets a 403 from the
//! proxy and is recorded as a refused flow, and the origin never sees it;
//! everything else passes. Switched off at run time, the same request goes
//! through.

use ar_flow::ErrorKind;
use http::{Request, StatusCode};

use crate::support::*;

const H2_AND_H1: &[&[u8]] = &[b"h2", b"http/1.1"];

fn delete(uri: &str) -> Request<TestBody> {
    let mut request = get(uri);
    *request.method_mut() = http::Method::DELETE;
    request
}

#[tokio::test]
async fn while_locked_destructive_requests_are_refused_and_recorded_and_never_sent() {
    let test_ca = TestCa::new();
    let origin = origin(Some(test_ca.server_config(&["shop.test"], H2_AND_H1))).await;
    let port = origin.addr.port();
    let mut h = Harness::start(|b| {
        b.upstream_root(test_ca.cert.clone())
            .resolve("shop.test", port, origin.addr.ip())
            .destructive_lock(true)
    })
    .await;
    let base = format!("https://shop.test:{port}");
    // A browser speaks HTTP/2 to the proxy; over HTTP/1.1 the connection
    // must stay usable after a refusal (the refused body was read).
    for want_h2 in [true, false] {
        let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, want_h2).await;
        let tag = if want_h2 { "h2" } else { "h1" };

        let response = client
            .send(delete(&format!("{base}/api/carts/3?{tag}")))
            .await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{tag}");
        assert_eq!(response.headers()["x-ar-proxy-error"], "refused");
        let text = String::from_utf8(body_bytes(response).await.to_vec()).unwrap();
        assert!(
            text.starts_with("ar refused DELETE /api/carts/3:"),
            "{text}"
        );
        assert!(text.contains("--explore-unsafe"), "{text}");

        let response = client
            .send(post(
                &format!("{base}/api/2.0/mlflow/experiments/delete?{tag}"),
                "application/json",
                br#"{"experiment_id":"7"}"#,
            ))
            .await;
        assert_eq!(response.status(), StatusCode::FORBIDDEN, "{tag}");

        // What reads as harmless goes through on the same connection.
        let response = client.send(get(&format!("{base}/hello?{tag}"))).await;
        assert_eq!(response.status(), StatusCode::OK, "{tag}");
        assert_eq!(body_bytes(response).await, "hello");
        let response = client
            .send(post(
                &format!("{base}/echo?{tag}"),
                "text/plain",
                b"an order",
            ))
            .await;
        assert_eq!(body_bytes(response).await, "an order");

        let flows = h
            .flows_for(&[
                format!("/api/carts/3?{tag}"),
                format!("/experiments/delete?{tag}"),
                format!("/hello?{tag}"),
            ])
            .await;
        let (deleted, posted, read) = (&flows[0], &flows[1], &flows[2]);
        for refused in [deleted, posted] {
            let error = refused.error.as_ref().expect("an error flow");
            assert_eq!(error.kind, ErrorKind::Refused);
            assert!(error.message.contains("--explore-unsafe"), "{error:?}");
            assert!(refused.response.is_none(), "no origin answered");
            assert!(refused.server_addr.is_none());
        }
        assert_eq!(deleted.request.method, "DELETE");
        assert_eq!(
            posted.request.body.text(),
            Some(r#"{"experiment_id":"7"}"#),
            "the refused request is archived whole"
        );
        assert!(read.error.is_none());
    }
    let received = origin.state.received();
    assert!(
        received.iter().all(|r| !r.contains("/api/")),
        "the origin saw a refused request: {received:?}"
    );
    assert_eq!(
        received.iter().filter(|r| *r == "GET /hello").count(),
        2,
        "{received:?}"
    );
    let refusals = h.handle.take_refusals();
    assert_eq!(refusals.count, 4);
    let named: Vec<String> = refusals.first.iter().map(ToString::to_string).collect();
    assert_eq!(
        named,
        [
            "DELETE /api/carts/3",
            "POST /api/2.0/mlflow/experiments/delete",
            "DELETE /api/carts/3",
            "POST /api/2.0/mlflow/experiments/delete",
        ]
    );

    // Unlocked (the human or the agent drives): the same DELETE reaches the origin.
    h.handle.set_destructive_lock(false);
    let mut client = TunnelClient::open(h.addr(), &h.ca, "shop.test", port, true).await;
    let response = client
        .send(delete(&format!("{base}/api/carts/3?unlocked")))
        .await;
    assert_eq!(
        response.status(),
        StatusCode::NOT_FOUND,
        "the origin's answer"
    );
    let flow = h.flow_for("/api/carts/3?unlocked").await;
    assert!(flow.error.is_none());
    assert_eq!(flow.status(), Some(404));
    assert!(
        origin
            .state
            .received()
            .contains(&"DELETE /api/carts/3".to_string())
    );
    assert_eq!(h.handle.take_refusals().count, 0);
}

#[tokio::test]
async fn the_lock_holds_for_plain_http_proxy_requests_too() {
    let origin = origin(None).await;
    let port = origin.addr.port();
    let h = Harness::start(|b| {
        b.resolve("plain.test", port, origin.addr.ip())
            .destructive_lock(true)
    })
    .await;
    let proxy = format!("http://{}", h.addr());
    let (stdout, _, ok) = curl(&[
        "--proxy",
        &proxy,
        "-X",
        "POST",
        "-d",
        "{}",
        "-w",
        "\n%{http_code}",
        &format!("http://plain.test:{port}/users/me/signOut"),
    ])
    .await;
    assert!(ok);
    let text = String::from_utf8_lossy(&stdout);
    assert!(text.ends_with("\n403"), "{text}");
    assert!(text.contains("ar refused POST /users/me/signOut"), "{text}");
    assert!(origin.state.received().is_empty());
}
