//! Turning what the proxy saw into `ar-flow` values: headers, bodies
//! (decoded, capped), timestamps; and the hop-by-hop header rules of
//! RFC 9110 §7.6.1 for what is forwarded.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ar_flow::{Body, Headers, HttpVersion, Timestamp};
use http::header::{self, HeaderMap, HeaderName};

use crate::decode;
use crate::tap::{TapEnd, Tapped};

/// The current time as a flow timestamp.
pub(crate) fn now() -> Timestamp {
    let micros = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_micros())
        .unwrap_or(0);
    Timestamp::from_unix_micros(i64::try_from(micros).unwrap_or(i64::MAX))
}

/// A duration in milliseconds: the double nearest to its exact nanosecond
/// count over 10⁶ (one rounding, unlike `as_secs_f64() * 1000.0`), so the
/// archive writes it as its short decimal (`0.123456`) without generating
/// shortest round-trip digits.
pub(crate) fn millis(duration: Duration) -> f64 {
    // Exact below 2^53 ns (104 days); a longer duration loses only sub-ns digits.
    duration.as_nanos() as f64 / 1e6
}

/// Header lines in map order (values of a repeated name stay together, in order).
pub(crate) fn headers(map: &HeaderMap) -> Headers {
    let mut out = Headers(Vec::with_capacity(map.len()));
    for (name, value) in map {
        // Nearly every value is visible ASCII: checked without the lossy decoder's scan.
        let value = match value.to_str() {
            Ok(text) => text.to_owned(),
            Err(_) => String::from_utf8_lossy(value.as_bytes()).into_owned(),
        };
        out.push(name.as_str(), value);
    }
    out
}

/// The text of an absolute URI, assembled from its parts (no formatter:
/// this runs for every request).
pub(crate) fn url_text(uri: &http::Uri) -> String {
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return uri.to_string();
    };
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let mut url = String::with_capacity(scheme.len() + 3 + authority.as_str().len() + path.len());
    url.push_str(scheme);
    url.push_str("://");
    url.push_str(authority.as_str());
    url.push_str(path);
    url
}

pub(crate) fn version(v: http::Version) -> HttpVersion {
    match v {
        http::Version::HTTP_10 => HttpVersion::Http10,
        http::Version::HTTP_2 => HttpVersion::Http2,
        http::Version::HTTP_3 => HttpVersion::Http3,
        _ => HttpVersion::Http11,
    }
}

/// Headers that describe one connection, never forwarded (RFC 9110 §7.6.1),
/// plus `proxy-*` headers meant for us.
const HOP_BY_HOP: [HeaderName; 7] = [
    header::CONNECTION,
    HeaderName::from_static("keep-alive"),
    HeaderName::from_static("proxy-connection"),
    header::PROXY_AUTHORIZATION,
    header::TE,
    header::TRAILER,
    header::TRANSFER_ENCODING,
];

/// Removes hop-by-hop headers, including those `Connection` names.
/// With `keep_upgrade`, `Connection: upgrade` and `Upgrade` survive (for a
/// WebSocket handshake, which is relayed end to end).
pub(crate) fn strip_hop_by_hop(map: &mut HeaderMap, keep_upgrade: bool) {
    // Most messages carry none of these: one pass over the (few) names
    // present is cheaper than hashing the names to look for.
    let any = map
        .keys()
        .any(|name| name == header::UPGRADE || HOP_BY_HOP.contains(name));
    if !any && !keep_upgrade {
        return;
    }
    // `TE: trailers` is the one value HTTP/2 allows (RFC 9113 §8.2.2), and
    // gRPC needs it end to end.
    let te_trailers =
        (map.get(header::TE)).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"trailers"));
    let named: Vec<HeaderName> = map
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|t| HeaderName::from_bytes(t.trim().as_bytes()).ok())
        .filter(|n| !(keep_upgrade && *n == header::UPGRADE))
        .collect();
    for name in named {
        map.remove(name);
    }
    if map.keys().any(|name| HOP_BY_HOP.contains(name)) {
        for name in &HOP_BY_HOP {
            map.remove(name);
        }
    }
    if te_trailers {
        map.insert(header::TE, http::HeaderValue::from_static("trailers"));
    }
    if keep_upgrade {
        map.insert(
            header::CONNECTION,
            http::HeaderValue::from_static("upgrade"),
        );
    } else {
        map.remove(header::UPGRADE);
    }
}

/// Whether a request asks to switch protocols (WebSocket over HTTP/1.1).
/// An upgrade to `h2c` alone (`curl --http2 http://...`) is not one: the
/// proxy, as servers may (RFC 9110 §7.8), answers it in HTTP/1.1, and its
/// `Upgrade` goes no further, as any hop-by-hop header.
pub(crate) fn is_upgrade(map: &HeaderMap) -> bool {
    let to_other_than_h2c = (map.get_all(header::UPGRADE).iter())
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|protocol| !protocol.trim().eq_ignore_ascii_case("h2c"));
    to_other_than_h2c
        && map
            .get_all(header::CONNECTION)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .any(|v| {
                v.split(',')
                    .any(|t| t.trim().eq_ignore_ascii_case("upgrade"))
            })
}

/// Whether a request opens a WebSocket over HTTP/2 (RFC 8441: an extended
/// CONNECT whose `:protocol` is `websocket`).
pub(crate) fn is_h2_websocket<B>(req: &http::Request<B>) -> bool {
    req.method() == http::Method::CONNECT
        && req.version() == http::Version::HTTP_2
        && req
            .extensions()
            .get::<hyper::ext::Protocol>()
            .is_some_and(|p| p.as_str().eq_ignore_ascii_case("websocket"))
}

/// Capture limits for bodies.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BodyLimits {
    pub(crate) cap: usize,
    pub(crate) max_ratio: usize,
}

/// What a body's headers say about it: kept before the headers are forwarded.
#[derive(Debug, Clone, Default)]
pub(crate) struct BodyMeta {
    content_type: Option<String>,
    encoding: Option<String>,
}

impl BodyMeta {
    pub(crate) fn of(map: &HeaderMap) -> Self {
        let content_type = map
            .get(header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let encoding = map
            .get(header::CONTENT_ENCODING)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string())
            .filter(|e| !e.is_empty() && !e.eq_ignore_ascii_case("identity"));
        Self {
            content_type,
            encoding,
        }
    }

    /// Whether decoding the captured copy is worth moving off the I/O threads.
    pub(crate) fn is_heavy(&self, tapped: &Tapped) -> bool {
        self.encoding.is_some() && tapped.raw.len() > 64 * 1024
    }
}

/// Builds the captured body from a tap and the message's headers (both
/// consumed: an identity body's bytes move into the flow, never copied).
pub(crate) fn body(meta: BodyMeta, tapped: Tapped, limits: BodyLimits) -> Body {
    let BodyMeta {
        content_type,
        encoding,
    } = meta;
    let complete = tapped.end == TapEnd::Complete && !tapped.capped();
    let Some(encoding) = encoding else {
        return Body {
            content_type,
            encoding: None,
            bytes: tapped.raw,
            size: tapped.wire_size,
            wire_size: Some(tapped.wire_size),
            truncated: !complete,
            decode_error: None,
        };
    };
    if tapped.raw.is_empty() {
        return Body {
            content_type,
            encoding: Some(encoding),
            bytes: Vec::new(),
            size: 0,
            wire_size: Some(tapped.wire_size),
            truncated: tapped.wire_size > 0 || tapped.end != TapEnd::Complete,
            decode_error: None,
        };
    }
    let decoded = decode::decode(
        &encoding,
        &tapped.raw,
        complete,
        limits.cap,
        limits.max_ratio,
    );
    let size = if decoded.failed {
        tapped.wire_size
    } else {
        decoded.bytes.len() as u64
    };
    Body {
        content_type,
        encoding: Some(encoding),
        size,
        wire_size: Some(tapped.wire_size),
        truncated: decoded.truncated || !complete,
        decode_error: decoded.note,
        bytes: decoded.bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http::HeaderValue;

    #[test]
    fn durations_become_the_milliseconds_their_nanoseconds_spell() {
        // What a user reads in the archive is the measured nanoseconds, not a
        // product's rounding noise (`as_secs_f64() * 1000.0` turns 13 ns into
        // 0.000013000000000000001).
        for (nanos, text) in [
            (1_112, "0.001112"),
            (5_100, "0.0051"),
            (13, "0.000013"),
            (1_561_584, "1.561584"),
            (86_400_000_000_000, "86400000"),
        ] {
            let ms = millis(Duration::from_nanos(nanos));
            assert_eq!(ms.to_string(), text);
            assert_eq!(ms, text.parse::<f64>().unwrap());
        }
    }

    #[test]
    fn hop_by_hop_headers_and_those_named_by_connection_go() {
        let mut map = HeaderMap::new();
        map.insert(
            header::CONNECTION,
            HeaderValue::from_static("keep-alive, x-secret-hop"),
        );
        map.insert("x-secret-hop", HeaderValue::from_static("1"));
        map.insert("keep-alive", HeaderValue::from_static("timeout=5"));
        map.insert(
            header::TRANSFER_ENCODING,
            HeaderValue::from_static("chunked"),
        );
        map.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        strip_hop_by_hop(&mut map, false);
        assert_eq!(map.len(), 1);
        assert!(map.contains_key(header::CONTENT_TYPE));
    }

    #[test]
    fn te_trailers_alone_survives() {
        for (te, kept) in [("trailers", true), ("Trailers", true), ("gzip", false)] {
            let mut map = HeaderMap::new();
            map.insert(header::TE, HeaderValue::from_static(te));
            strip_hop_by_hop(&mut map, false);
            let got = map.get(header::TE).map(|v| v.to_str().unwrap().to_string());
            assert_eq!(got, kept.then(|| "trailers".to_string()), "{te}");
        }
    }

    #[test]
    fn end_to_end_headers_are_kept_as_they_were() {
        let mut map = HeaderMap::new();
        map.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        map.append("x-many", HeaderValue::from_static("1"));
        map.append("x-many", HeaderValue::from_static("2"));
        let before = map.clone();
        strip_hop_by_hop(&mut map, false);
        assert_eq!(map, before);
        map.insert(header::UPGRADE, HeaderValue::from_static("h2c"));
        strip_hop_by_hop(&mut map, false);
        assert_eq!(map, before, "an Upgrade without a tunnel to carry it goes");
    }

    #[test]
    fn urls_are_assembled_like_uri_display_and_odd_header_bytes_survive() {
        for text in [
            "https://shop.test/api/items?page=2",
            "http://[::1]:8080/",
            "https://shop.test:8443/a%20b",
        ] {
            let uri: http::Uri = text.parse().unwrap();
            assert_eq!(url_text(&uri), uri.to_string());
        }
        let origin_form: http::Uri = "/only/a/path".parse().unwrap();
        assert_eq!(url_text(&origin_form), "/only/a/path");
        let mut map = HeaderMap::new();
        map.insert("x-latin1", HeaderValue::from_bytes(b"caf\xe9").unwrap());
        map.insert(header::ACCEPT, HeaderValue::from_static("*/*"));
        let recorded = headers(&map);
        assert_eq!(recorded.get("x-latin1"), Some("caf\u{fffd}"));
        assert_eq!(recorded.get("accept"), Some("*/*"));
    }

    #[test]
    fn upgrade_survives_for_websocket() {
        let mut map = HeaderMap::new();
        map.insert(
            header::CONNECTION,
            HeaderValue::from_static("keep-alive, Upgrade"),
        );
        map.insert(header::UPGRADE, HeaderValue::from_static("websocket"));
        assert!(is_upgrade(&map));
        strip_hop_by_hop(&mut map, true);
        assert_eq!(map.get(header::UPGRADE).unwrap(), "websocket");
        assert_eq!(map.get(header::CONNECTION).unwrap(), "upgrade");
    }

    #[test]
    fn an_upgrade_to_h2c_is_answered_as_a_plain_request() {
        let mut map = HeaderMap::new();
        map.insert(
            header::CONNECTION,
            HeaderValue::from_static("Upgrade, HTTP2-Settings"),
        );
        map.insert(header::UPGRADE, HeaderValue::from_static("h2c"));
        map.insert(
            "http2-settings",
            HeaderValue::from_static("AAMAAABkAAQAoAAA"),
        );
        assert!(!is_upgrade(&map));
        strip_hop_by_hop(&mut map, false);
        assert!(map.is_empty(), "{map:?}");
        map.insert(header::CONNECTION, HeaderValue::from_static("upgrade"));
        map.insert(header::UPGRADE, HeaderValue::from_static("h2c, websocket"));
        assert!(is_upgrade(&map));
    }

    #[test]
    fn identity_body_is_kept_with_sizes() {
        let mut map = HeaderMap::new();
        map.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        let tapped = Tapped {
            raw: b"{}".to_vec(),
            wire_size: 2,
            end: TapEnd::Complete,
        };
        let body = body(
            BodyMeta::of(&map),
            tapped,
            BodyLimits {
                cap: 10,
                max_ratio: 100,
            },
        );
        assert_eq!(body.bytes, b"{}");
        assert!(!body.truncated);
        assert_eq!(body.media_type().as_deref(), Some("application/json"));
    }

    #[test]
    fn aborted_body_is_truncated() {
        let map = HeaderMap::new();
        let tapped = Tapped {
            raw: b"par".to_vec(),
            wire_size: 3,
            end: TapEnd::Dropped,
        };
        assert!(
            body(
                BodyMeta::of(&map),
                tapped,
                BodyLimits {
                    cap: 10,
                    max_ratio: 100
                }
            )
            .truncated
        );
    }
}
