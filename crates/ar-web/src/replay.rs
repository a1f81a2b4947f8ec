//! Replay: a captured request, edited on the page, sent again through ar's
//! own proxy (by the [`crate::Backend`]) so its answer is captured like any
//! other flow, stamped `replay`.
//!
//! The page only ever saw redacted values, so what it sends back is read
//! against the original: a URL, header or body still equal to its redacted
//! rendering means "unchanged" and the captured value goes out; anything
//! the user typed goes out as typed.

use ar_openapi::Redactor;
use ar_store::{Body, Flow, Headers, Request};
use serde::Deserialize;

/// Bytes of an edited request body the page may send.
pub(crate) const MAX_BODY: usize = 1024 * 1024;

/// The edited request, as the page posts it.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Edited {
    /// The flow it was edited from.
    pub(crate) from: u64,
    pub(crate) method: String,
    pub(crate) url: String,
    /// `(name, value)` in order.
    pub(crate) headers: Vec<(String, String)>,
    /// The body as text (empty for none).
    #[serde(default)]
    pub(crate) body: String,
}

impl Edited {
    /// The request to send: the edits, with each value left as its redacted
    /// rendering replaced by the captured one.
    pub(crate) fn resolve(&self, flow: &Flow, redactor: &Redactor) -> Request {
        let original = &flow.request;
        let url = if self.url == redactor.url(&original.url) {
            original.url.clone()
        } else {
            self.url.clone()
        };
        let mut headers = Headers::new();
        for (name, value) in &self.headers {
            let captured = original.headers.iter().find(|h| {
                h.name.eq_ignore_ascii_case(name)
                    && redactor.header_value(&h.name, &h.value) == *value
            });
            headers.push(
                name.clone(),
                captured.map_or_else(|| value.clone(), |h| h.value.clone()),
            );
        }
        let shown = shown_body(&original.body, redactor);
        let body = if shown.as_deref() == Some(self.body.as_str()) {
            original.body.clone()
        } else {
            Body::from_decoded(
                original.body.content_type.clone(),
                self.body.clone().into_bytes(),
            )
        };
        let mut request = Request::new(
            self.method.trim().to_ascii_uppercase(),
            url,
            original.http_version.clone(),
        );
        request.headers = headers;
        request.body = body;
        request
    }
}

/// The request body as the replay form shows it: text, redacted.
pub(crate) fn shown_body(body: &Body, redactor: &Redactor) -> Option<String> {
    let text = std::str::from_utf8(&body.bytes).ok()?;
    if let Ok(mut value) = serde_json::from_str::<serde_json::Value>(text) {
        redactor.json(&mut value);
        return serde_json::to_string(&value).ok();
    }
    Some(redactor.text(text).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::{Client, FlowId, Timestamp};

    #[test]
    fn values_left_redacted_go_out_as_captured_and_edits_as_typed() {
        let request = crate::testing::request_with_secrets(
            "/api/cart",
            r#"{"sku":"A","password":"hunter2"}"#,
        );
        let flow = Flow::new(
            FlowId(1),
            Timestamp::from_unix_micros(0),
            Client::Human,
            request,
        );
        let redactor = Redactor::new();
        let shown = shown_body(&flow.request.body, &redactor).unwrap();
        assert!(!shown.contains("hunter2"));
        let edited = Edited {
            from: 1,
            method: "put".into(),
            url: redactor.url(&flow.request.url),
            headers: vec![
                ("Authorization".into(), "Bearer REDACTED".into()),
                ("Accept".into(), "text/plain".into()),
            ],
            body: shown,
        };
        let sent = edited.resolve(&flow, &redactor);
        assert_eq!(sent.method, "PUT");
        assert!(sent.url.ends_with("api_key=sk_live_abcdefgh1234"));
        assert_eq!(
            sent.headers.get("authorization"),
            Some("Bearer abcdefgh.ijkl")
        );
        assert_eq!(sent.headers.get("accept"), Some("text/plain"));
        assert!(sent.body.text().unwrap().contains("hunter2"));

        let typed = Edited {
            body: r#"{"sku":"B"}"#.into(),
            url: "https://shop.test/api/cart".into(),
            ..edited
        };
        let sent = typed.resolve(&flow, &redactor);
        assert_eq!(sent.url, "https://shop.test/api/cart");
        assert_eq!(sent.body.text(), Some(r#"{"sku":"B"}"#));
    }
}
