//! `--rewrite-urls` in bodies: an origin's JSON or HTML answer to a client
//! of the reverse proxy, with the routed origins' absolute URLs pointing at
//! the proxy (a page's `next` link, an `<a href>`), so a client following
//! them stays on it. This runs on the client's side of the tap: the flow
//! keeps what the origin sent.
//!
//! Only a whole body of at most [`REWRITE_MAX`] bytes, in no encoding or
//! one [`crate::decode`] reads, is rewritten; it goes to the client decoded,
//! with its new length. Everything else passes as it came: a larger body
//! (the bytes read so far, then the rest), one with trailers, other media
//! types, the answer to a HEAD, and a body with no URL to rewrite.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Response, header};
use http_body::{Frame, SizeHint};
use http_body_util::{BodyExt as _, Full};

use crate::decode;
use crate::proxy::{BoxError, ProxyBody};
use crate::reverse::ReverseRoutes;

/// The largest body rewritten; a larger one is relayed as it is.
pub(crate) const REWRITE_MAX: usize = 8 << 20;

/// `response` with its body's URLs pointing at `local` where
/// [`ReverseRoutes::rewrite_text`] finds any (see the module's limits).
pub(crate) async fn body(
    routes: &ReverseRoutes,
    local: &str,
    head: bool,
    max_ratio: usize,
    response: Response<ProxyBody>,
) -> Response<ProxyBody> {
    let (mut parts, mut body) = response.into_parts();
    let declared = (parts.headers.get(header::CONTENT_LENGTH))
        .and_then(|v| v.to_str().ok()?.parse::<usize>().ok());
    if head || !is_document(&parts.headers) || declared.is_some_and(|n| n > REWRITE_MAX) {
        return Response::from_parts(parts, body);
    }
    let mut read: VecDeque<Frame<Bytes>> = VecDeque::new();
    let mut total = 0;
    loop {
        match body.frame().await {
            None => break,
            Some(Ok(frame)) => {
                let trailers = !frame.is_data();
                total += frame.data_ref().map_or(0, Bytes::len);
                read.push_back(frame);
                if trailers || total > REWRITE_MAX {
                    return Response::from_parts(parts, Resumed::boxed(read, Some(body), None));
                }
            }
            // Cut short: the client gets what came, then the same end.
            Some(Err(error)) => {
                return Response::from_parts(parts, Resumed::boxed(read, None, Some(error)));
            }
        }
    }
    let mut raw = Vec::with_capacity(total);
    for data in read.iter().filter_map(Frame::data_ref) {
        raw.extend_from_slice(data);
    }
    let encoding = (parts.headers.get(header::CONTENT_ENCODING))
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let decoded = match &encoding {
        Some(encoding) => {
            let decoded = decode::decode(encoding, &raw, true, REWRITE_MAX, max_ratio);
            (!decoded.failed && !decoded.truncated).then_some(decoded.bytes)
        }
        None => Some(raw),
    };
    let Some(rewritten) = decoded.and_then(|text| routes.rewrite_text(&text, local)) else {
        return Response::from_parts(parts, Resumed::boxed(read, None, None));
    };
    parts.headers.remove(header::CONTENT_ENCODING);
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(rewritten.len()));
    let body = Full::new(Bytes::from(rewritten))
        .map_err(|never| match never {})
        .boxed_unsync();
    Response::from_parts(parts, body)
}

/// Whether a body of this type is a JSON or HTML document.
fn is_document(headers: &HeaderMap) -> bool {
    let Some(media) = (headers.get(header::CONTENT_TYPE)).and_then(|v| v.to_str().ok()) else {
        return false;
    };
    let media = media
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    media == "application/json" || media.ends_with("+json") || media == "text/html"
}

/// The frames already read, then the rest of the body, or the error it ended with.
struct Resumed {
    read: VecDeque<Frame<Bytes>>,
    rest: Option<ProxyBody>,
    error: Option<BoxError>,
}

impl Resumed {
    fn boxed(
        read: VecDeque<Frame<Bytes>>,
        rest: Option<ProxyBody>,
        error: Option<BoxError>,
    ) -> ProxyBody {
        Self { read, rest, error }.boxed_unsync()
    }
}

impl http_body::Body for Resumed {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        if let Some(frame) = self.read.pop_front() {
            return Poll::Ready(Some(Ok(frame)));
        }
        if let Some(error) = self.error.take() {
            return Poll::Ready(Some(Err(error)));
        }
        match self.rest.as_mut() {
            Some(rest) => Pin::new(rest).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.read.is_empty()
            && self.error.is_none()
            && self.rest.as_ref().is_none_or(|rest| rest.is_end_stream())
    }

    fn size_hint(&self) -> SizeHint {
        let read: usize = (self.read.iter().filter_map(Frame::data_ref))
            .map(Bytes::len)
            .sum();
        let read = read as u64;
        let rest =
            (self.rest.as_ref()).map_or_else(|| SizeHint::with_exact(0), |rest| rest.size_hint());
        let mut hint = SizeHint::new();
        hint.set_lower(rest.lower() + read);
        if let Some(upper) = rest.upper() {
            hint.set_upper(upper + read);
        }
        hint
    }
}

#[cfg(test)]
mod tests {
    use http_body::Body as _;

    use super::*;

    fn routes() -> ReverseRoutes {
        let routes = vec![
            "/api=https://api.test".parse().unwrap(),
            "http://web.test:8080".parse().unwrap(),
        ];
        ReverseRoutes::new(routes).unwrap().rewrite_urls(true)
    }

    fn response(content_type: &str, encoding: Option<&str>, body: Vec<u8>) -> Response<ProxyBody> {
        let mut response = Response::new(
            Full::new(Bytes::from(body))
                .map_err(|n| match n {})
                .boxed_unsync(),
        );
        let headers = response.headers_mut();
        headers.insert(header::CONTENT_TYPE, content_type.parse().unwrap());
        if let Some(encoding) = encoding {
            headers.insert(header::CONTENT_ENCODING, encoding.parse().unwrap());
        }
        response
    }

    async fn text(response: Response<ProxyBody>) -> (HeaderMap, String) {
        let (parts, body) = response.into_parts();
        let bytes = body.collect().await.unwrap().to_bytes();
        (parts.headers, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[test]
    fn urls_of_routed_origins_point_at_the_proxy_plain_or_json_escaped() {
        let routes = routes();
        let local = "http://127.0.0.1:9000";
        let body = br#"{"next":"https://api.test/api/items?page=2","self":"https:\/\/api.test\/api\/items",
            "home":"http://web.test:8080/","login":"https://api.test/login",
            "other":"https://api.test.example/api","port":"https://api.test:8443/api","x":"https://elsewhere.test/api"}"#;
        let rewritten = String::from_utf8(routes.rewrite_text(body, local).unwrap()).unwrap();
        assert!(
            rewritten.contains(r#""next":"http://127.0.0.1:9000/api/items?page=2""#),
            "{rewritten}"
        );
        assert!(
            rewritten.contains(r#""self":"http:\/\/127.0.0.1:9000\/api\/items""#),
            "{rewritten}"
        );
        assert!(
            rewritten.contains(r#""home":"http://127.0.0.1:9000/""#),
            "{rewritten}"
        );
        // Left alone: a path the proxy would send elsewhere, other hosts and ports.
        for kept in [
            r#""login":"https://api.test/login""#,
            r#""other":"https://api.test.example/api""#,
            r#""port":"https://api.test:8443/api""#,
            r#""x":"https://elsewhere.test/api""#,
        ] {
            assert!(rewritten.contains(kept), "{kept} in {rewritten}");
        }
        let html = br#"<a href="https://api.test/api/a">a</a> <a href='http://web.test:8080/b'>"#;
        assert_eq!(
            String::from_utf8(routes.rewrite_text(html, local).unwrap()).unwrap(),
            r#"<a href="http://127.0.0.1:9000/api/a">a</a> <a href='http://127.0.0.1:9000/b'>"#
        );
        assert_eq!(routes.rewrite_text(b"{\"a\":1}", local), None);
        // Another host that starts with an origin's name is another host.
        let only: ReverseRoutes =
            ReverseRoutes::new(vec!["https://api.test".parse().unwrap()]).unwrap();
        let other =
            br#"["https://api.test.example/a","https://api.test:8443/b","https://api.test"]"#;
        assert_eq!(
            String::from_utf8(only.rewrite_text(other, local).unwrap()).unwrap(),
            r#"["https://api.test.example/a","https://api.test:8443/b","http://127.0.0.1:9000/"]"#
        );
    }

    #[tokio::test]
    async fn a_compressed_document_comes_decoded_with_its_new_length() {
        use std::io::Write as _;
        let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gzip.write_all(br#"{"next":"https://api.test/api/items?page=2"}"#)
            .unwrap();
        let gzipped = gzip.finish().unwrap();
        let answer = response("application/json; charset=utf-8", Some("gzip"), gzipped);
        let (headers, body) =
            text(super::body(&routes(), "http://127.0.0.1:9000", false, 100, answer).await).await;
        assert_eq!(body, r#"{"next":"http://127.0.0.1:9000/api/items?page=2"}"#);
        assert!(!headers.contains_key(header::CONTENT_ENCODING));
        assert_eq!(headers[header::CONTENT_LENGTH], body.len().to_string());
    }

    #[tokio::test]
    async fn other_answers_pass_as_they_came() {
        let link = br#"{"next":"https://api.test/api/items"}"#.to_vec();
        let cases = [
            (response("text/event-stream", None, link.clone()), false),
            (response("application/json", None, link.clone()), true),
            (
                response("application/json", Some("gzip"), link.clone()),
                false,
            ),
            (response("application/json", None, b"{}".to_vec()), false),
        ];
        for (answer, head) in cases {
            let before = answer.headers().clone();
            let size = answer.body().size_hint().exact();
            let answer = super::body(&routes(), "http://127.0.0.1:9000", head, 100, answer).await;
            // Read whole to be looked at, it is still announced at its length.
            assert_eq!(answer.body().size_hint().exact(), size);
            let (headers, body) = text(answer).await;
            assert_eq!(headers, before);
            assert!(body.as_bytes() == link || body == "{}", "{body}");
        }
        let big = format!(
            r#"{{"next":"https://api.test/api/items","pad":"{}"}}"#,
            "x".repeat(REWRITE_MAX)
        );
        let (_, body) = text(
            super::body(
                &routes(),
                "l",
                false,
                100,
                response("application/json", None, big.clone().into_bytes()),
            )
            .await,
        )
        .await;
        assert_eq!(body, big, "over the bound: relayed whole, as it came");
    }
}
