//! Writing one archive line straight from a [`Flow`].
//!
//! `ar proxy` archives every request it relays, so this is on the proxy's hot
//! path. Instead of building a `serde_json::Value` tree (a `BTreeMap` and an
//! owned `String` per field, a few hundred allocations per flow) and then
//! serialising it, the line is written by serde from small structs that
//! borrow from the flow, into a buffer the writer reuses. serde_json still
//! does the string escaping and number formatting, so the text is exactly
//! what the tree produced: fields are declared in the tree's (sorted) key
//! order, which a unit test checks byte for byte against the tree encoding
//! (the HAR export's `entry_value` plus the `_ar` object).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Serialize, Serializer};

use super::BodyStore;
use super::line::{ExactTimings, VERSION, sha256_hex};
use crate::har::format_iso8601;
use crate::url::{UrlParts, query_pairs};
use crate::{
    Body, Client, Error, Flow, FlowError, FlowId, Headers, HttpVersion, Timestamp, WebSocketLog,
};

/// Buffers kept between lines so that encoding a flow allocates almost nothing.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Base64 text of a non-UTF-8 request body.
    request_b64: String,
    /// Base64 text of a non-UTF-8 response body.
    response_b64: String,
}

/// Appends `flow` as one line (no newline) to `out`, spilling bodies over `threshold` bytes.
pub(super) fn encode_into(
    flow: &Flow,
    bodies: &mut dyn BodyStore,
    threshold: usize,
    scratch: &mut Scratch,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let mut spill = |body: &Body| -> Result<Option<String>, Error> {
        if body.bytes.len() <= threshold {
            return Ok(None);
        }
        let hash = sha256_hex(&body.bytes);
        bodies
            .put(&hash, &body.bytes)
            .map_err(|e| Error::io(format!("storing body {hash} of flow {}", flow.id.0), e))?;
        Ok(Some(hash))
    };
    let request_spill = spill(&flow.request.body)?;
    let response_spill = match &flow.response {
        Some(r) => spill(&r.body)?,
        None => None,
    };
    let req = &flow.request;
    let post_data = (!req.body.bytes.is_empty() || req.body.content_type.is_some()).then(|| {
        let (text, encoding) = match request_spill {
            Some(_) => (None, None),
            None => inline_text(&req.body, &mut scratch.request_b64),
        };
        PostData {
            encoding,
            mime_type: req.body.content_type.as_deref().unwrap_or(""),
            text,
        }
    });
    let response = match &flow.response {
        Some(res) => {
            let (text, encoding) = match response_spill {
                None if !res.body.bytes.is_empty() => {
                    inline_text(&res.body, &mut scratch.response_b64)
                }
                _ => (None, None),
            };
            HarResponse {
                error: flow.error.as_ref().map(|e| e.message.as_str()),
                body_size: res.body.wire_size.map_or(-1, |s| s as i64),
                content: Content {
                    encoding,
                    mime_type: res.body.content_type.as_deref().unwrap_or("x-unknown"),
                    size: res.body.size.max(res.body.bytes.len() as u64),
                    text,
                },
                cookies: &[],
                headers: &res.headers,
                headers_size: -1,
                http_version: res.http_version.as_str(),
                redirect_url: res.headers.get("location").unwrap_or(""),
                status: res.status,
                status_text: &res.reason,
            }
        }
        None => HarResponse {
            error: Some(
                flow.error
                    .as_ref()
                    .map_or("no response", |e| e.message.as_str()),
            ),
            body_size: -1,
            content: Content {
                encoding: None,
                mime_type: "x-unknown",
                size: 0,
                text: None,
            },
            cookies: &[],
            headers: &NO_HEADERS,
            headers_size: -1,
            http_version: req.http_version.as_str(),
            redirect_url: "",
            status: 0,
            status_text: "",
        },
    };
    let t = &flow.timings;
    let total = flow.duration_ms().or_else(|| {
        let parts = [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive];
        parts
            .iter()
            .any(Option::is_some)
            .then(|| parts.iter().flatten().sum())
    });
    let entry = Entry {
        ar: ArExt {
            client: flow.client,
            ended: flow.ended,
            error: flow.error.as_ref(),
            id: flow.id,
            request_body: BodyMeta::of(&req.body, request_spill.as_deref()),
            request_version: &req.http_version,
            response: flow.response.as_ref().map(|r| ResponseMeta {
                body: BodyMeta::of(&r.body, response_spill.as_deref()),
                version: &r.http_version,
            }),
            server_addr: flow.server_addr.as_deref(),
            started: flow.started,
            timings: ExactTimings::from(flow.timings),
            v: VERSION,
            websocket: flow.websocket.as_ref(),
        },
        cache: Empty {},
        request: HarRequest {
            body_size: req.body.wire_size.unwrap_or(req.body.bytes.len() as u64),
            cookies: &[],
            headers: &req.headers,
            headers_size: -1,
            http_version: req.http_version.as_str(),
            method: &req.method,
            post_data,
            query_string: Query(UrlParts::split(&req.url).query),
            url: &req.url,
        },
        response,
        server_ip_address: flow.server_addr.as_deref().map(server_ip),
        started_date_time: format_iso8601(flow.started),
        time: total.unwrap_or(0.0).max(0.0),
        timings: HarTimings {
            blocked: t.blocked.unwrap_or(-1.0),
            connect: t.connect.unwrap_or(-1.0),
            dns: t.dns.unwrap_or(-1.0),
            receive: t.receive.unwrap_or(0.0),
            send: t.send.unwrap_or(0.0),
            ssl: t.ssl.unwrap_or(-1.0),
            wait: t.wait.unwrap_or(0.0),
        },
    };
    serde_json::to_writer(out, &entry).map_err(|e| Error::ArchiveLine {
        line: 0,
        problem: e.to_string(),
    })
}

/// A body's `text` and `encoding`: the UTF-8 text itself, or base64 written into `b64`.
fn inline_text<'a>(body: &'a Body, b64: &'a mut String) -> (Option<&'a str>, Option<&'static str>) {
    match std::str::from_utf8(&body.bytes) {
        Ok(text) => (Some(text), None),
        Err(_) => {
            b64.clear();
            STANDARD.encode_string(&body.bytes, b64);
            (Some(b64.as_str()), Some("base64"))
        }
    }
}

/// HAR's `serverIPAddress`: the address without its port and IPv6 brackets.
fn server_ip(addr: &str) -> &str {
    let ip = addr
        .rsplit_once(':')
        .filter(|(h, p)| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (!h.contains(':') || h.ends_with(']'))
        })
        .map_or(addr, |(h, _)| h);
    ip.trim_start_matches('[').trim_end_matches(']')
}

static NO_HEADERS: Headers = Headers(Vec::new());

// The structs below list their fields in sorted key order: the order the
// previous `Value` (BTreeMap) encoding wrote, so old and new lines are identical.

#[derive(Serialize)]
struct Entry<'a> {
    #[serde(rename = "_ar")]
    ar: ArExt<'a>,
    cache: Empty,
    request: HarRequest<'a>,
    response: HarResponse<'a>,
    #[serde(rename = "serverIPAddress", skip_serializing_if = "Option::is_none")]
    server_ip_address: Option<&'a str>,
    #[serde(rename = "startedDateTime")]
    started_date_time: String,
    time: f64,
    timings: HarTimings,
}

#[derive(Serialize)]
struct Empty {}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HarRequest<'a> {
    body_size: u64,
    cookies: &'static [u8],
    headers: &'a Headers,
    headers_size: i64,
    http_version: &'a str,
    method: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    post_data: Option<PostData<'a>>,
    query_string: Query<'a>,
    url: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PostData<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'static str>,
    mime_type: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

/// `queryString`: the URL's query pairs, percent-decoded, written as they are split.
struct Query<'a>(Option<&'a str>);

impl Serialize for Query<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            self.0
                .into_iter()
                .flat_map(query_pairs)
                .map(|(name, value)| NameValue { name, value }),
        )
    }
}

#[derive(Serialize)]
struct NameValue<'a> {
    name: std::borrow::Cow<'a, str>,
    value: std::borrow::Cow<'a, str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HarResponse<'a> {
    #[serde(rename = "_error", skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    body_size: i64,
    content: Content<'a>,
    cookies: &'static [u8],
    headers: &'a Headers,
    headers_size: i64,
    http_version: &'a str,
    #[serde(rename = "redirectURL")]
    redirect_url: &'a str,
    status: u16,
    status_text: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Content<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'static str>,
    mime_type: &'a str,
    size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

/// HAR timings: `-1` for phases that did not apply, `0` for unknown send/wait/receive.
#[derive(Serialize)]
struct HarTimings {
    blocked: f64,
    connect: f64,
    dns: f64,
    receive: f64,
    send: f64,
    ssl: f64,
    wait: f64,
}

/// The `_ar` object (read back by `line::ArExt`).
#[derive(Serialize)]
struct ArExt<'a> {
    client: Client,
    #[serde(skip_serializing_if = "Option::is_none")]
    ended: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a FlowError>,
    id: FlowId,
    request_body: BodyMeta<'a>,
    request_version: &'a HttpVersion,
    #[serde(skip_serializing_if = "Option::is_none")]
    response: Option<ResponseMeta<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    server_addr: Option<&'a str>,
    started: Timestamp,
    timings: ExactTimings,
    v: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    websocket: Option<&'a WebSocketLog>,
}

#[derive(Serialize)]
struct ResponseMeta<'a> {
    body: BodyMeta<'a>,
    version: &'a HttpVersion,
}

/// Body facts HAR cannot carry (read back by `line::BodyMeta`).
#[derive(Serialize)]
struct BodyMeta<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    content_type: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decode_error: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    encoding: Option<&'a str>,
    size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    spilled: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    wire_size: Option<u64>,
}

impl<'a> BodyMeta<'a> {
    fn of(body: &'a Body, spilled: Option<&'a str>) -> Self {
        Self {
            content_type: body.content_type.as_deref(),
            decode_error: body.decode_error.as_deref(),
            encoding: body.encoding.as_deref(),
            size: body.size,
            spilled,
            truncated: body.truncated,
            wire_size: body.wire_size,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::archive::MemoryBodyStore;
    use crate::archive::line::{decode, encode_via_value};
    use crate::{Direction, ErrorKind, HttpVersion, Request, Response, WebSocketFrame, WsOpcode};

    /// The new line, the reference (`Value` tree) line, and both body stores.
    fn both(flow: &Flow, threshold: usize) -> (String, String, MemoryBodyStore) {
        let (mut new_store, mut old_store) =
            (MemoryBodyStore::default(), MemoryBodyStore::default());
        let mut out = Vec::new();
        encode_into(
            flow,
            &mut new_store,
            threshold,
            &mut Scratch::default(),
            &mut out,
        )
        .unwrap();
        let old = encode_via_value(flow, &mut old_store, threshold).unwrap();
        assert_eq!(new_store, old_store, "the same bodies are spilled");
        (String::from_utf8(out).unwrap(), old, new_store)
    }

    /// Byte-identical to the reference encoding, and decodes back to `flow`.
    fn check(flow: &Flow, threshold: usize) {
        let (new, old, store) = both(flow, threshold);
        assert_eq!(new, old);
        assert_eq!(decode(&new, 1, &store).unwrap(), *flow);
    }

    fn shop_flow() -> Flow {
        let mut request = Request::new(
            "POST",
            "https://shop.test/api/orders?x=1&y=%20&z=a+b&bad=%zz&&empty",
            HttpVersion::Http2,
        );
        request.headers.push(":authority", "shop.test");
        request
            .headers
            .push("X-Odd", "tab\there \"quoted\" \\ \u{1} \u{2028} café");
        request.body =
            Body::from_decoded(Some("application/octet-stream".into()), vec![0xff, 0, 0x80]);
        let mut response = Response::new(201, HttpVersion::Other("h2c".into()));
        response.reason = "Created".into();
        response.headers.push("Content-Type", "application/json");
        response.headers.push("Location", "/api/orders/7");
        response.body = Body {
            encoding: Some("gzip".into()),
            wire_size: Some(9),
            truncated: true,
            size: 1 << 20,
            decode_error: Some("gzip: bad header".into()),
            ..Body::from_decoded(Some("application/json".into()), b"{\"id\":7}".to_vec())
        };
        let mut flow = Flow::new(
            FlowId(42),
            Timestamp::from_unix_micros(1_700_000_000_123_457),
            Client::Explorer,
            request,
        )
        .with_response(response);
        flow.ended = Some(Timestamp::from_unix_micros(1_700_000_000_200_001));
        flow.timings.wait = Some(0.1 + 0.2);
        flow.timings.ssl = Some(1e-7);
        flow.server_addr = Some("[::1]:8443".into());
        flow
    }

    #[test]
    fn a_typical_flow_is_written_exactly_as_the_value_tree_wrote_it() {
        let flow = shop_flow();
        for threshold in [0, 4, 1 << 20] {
            check(&flow, threshold);
        }
    }

    #[test]
    fn flows_without_response_with_errors_or_odd_numbers_match_too() {
        let mut no_response = shop_flow();
        no_response.response = None;
        check(&no_response, 1 << 20);
        let no_reason = no_response
            .clone()
            .with_error(ErrorKind::Dns, "no such host");
        check(&no_reason, 1 << 20);
        let failed_mid_body = shop_flow().with_error(ErrorKind::Reset, "reset \"mid\" body");
        check(&failed_mid_body, 1 << 20);

        let mut odd = shop_flow();
        odd.ended = Some(Timestamp::from_unix_micros(0)); // ended before it started
        odd.timings.blocked = Some(f64::NAN);
        odd.timings.receive = Some(f64::INFINITY);
        odd.timings.dns = Some(-0.0);
        odd.server_addr = Some("shop.test".into());
        let (new, old, _) = both(&odd, 1 << 20);
        assert_eq!(new, old);

        let mut bare = Flow::new(
            FlowId(0),
            Timestamp::from_unix_micros(-1),
            Client::Unknown,
            Request::new("GET", "/relative", HttpVersion::Http11),
        );
        check(&bare, 0);
        bare.request.body.content_type = Some("text/plain".into()); // empty body with a type
        check(&bare, 0);
        check(&bare, 1 << 20);
    }

    #[test]
    fn websocket_frames_mean_the_same_even_in_another_key_order() {
        let mut flow = shop_flow();
        flow.websocket = Some(WebSocketLog {
            frames: vec![WebSocketFrame {
                direction: Direction::ServerToClient,
                at: Timestamp::from_unix_micros(1_700_000_000_300_000),
                opcode: WsOpcode::Binary,
                payload: vec![1, 2, 255],
                truncated: true,
            }],
            frames_dropped: 3,
        });
        let (new, old, store) = both(&flow, 1 << 20);
        let parse = |s: &str| serde_json::from_str::<serde_json::Value>(s).unwrap();
        assert_eq!(parse(&new), parse(&old));
        assert_eq!(decode(&new, 1, &store).unwrap(), flow);
    }

    #[test]
    fn scratch_buffers_are_reused_between_flows() {
        let mut scratch = Scratch::default();
        let mut store = MemoryBodyStore::default();
        let flow = shop_flow();
        let mut first = Vec::new();
        encode_into(&flow, &mut store, 1 << 20, &mut scratch, &mut first).unwrap();
        let capacity = scratch.request_b64.capacity();
        let mut second = Vec::new();
        encode_into(&flow, &mut store, 1 << 20, &mut scratch, &mut second).unwrap();
        assert_eq!(first, second);
        assert_eq!(scratch.request_b64.capacity(), capacity);
        assert_eq!(scratch.request_b64, "/wCA");
    }

    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-zA-Z0-9 /?&=%+._-]{0,12}",
            any::<String>(),
            Just("\"\\\u{0}\u{7f}\u{2028}é".to_string())
        ]
    }

    fn timing() -> impl Strategy<Value = Option<f64>> {
        prop_oneof![
            Just(None),
            any::<f64>().prop_map(Some),
            (0u32..5000).prop_map(|n| Some(f64::from(n) / 1000.0))
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        #[test]
        fn any_flow_is_written_exactly_as_the_value_tree_wrote_it(
            url in text(),
            headers in prop::collection::vec((text(), text()), 0..4),
            request_body in prop::collection::vec(any::<u8>(), 0..40),
            response in prop::option::of((100u16..600, text(), prop::collection::vec(any::<u8>(), 0..40), prop::option::of(any::<u64>()))),
            times in prop::collection::vec(timing(), 7),
            ended in prop::option::of(any::<i64>()),
            server_addr in prop::option::of(text()),
            threshold in prop_oneof![Just(0usize), Just(20), Just(1 << 20)],
        ) {
            let mut request = Request::new("PATCH", format!("https://h.test/p?{url}"), HttpVersion::Http11);
            for (n, v) in &headers {
                request.headers.push(n.clone(), v.clone());
            }
            request.body = Body::from_decoded(None, request_body);
            let mut flow = Flow::new(FlowId(7), Timestamp::from_unix_micros(1_700_000_000_000_000), Client::Agent, request);
            if let Some((status, reason, bytes, wire)) = response {
                let mut r = Response::new(status, HttpVersion::Http3);
                r.reason = reason;
                r.headers = flow.request.headers.clone();
                r.body = Body { wire_size: wire, ..Body::from_decoded(Some("text/plain".into()), bytes) };
                flow = flow.with_response(r);
            }
            flow.ended = ended.map(Timestamp::from_unix_micros);
            flow.timings = crate::Timings {
                blocked: times[0], dns: times[1], connect: times[2], ssl: times[3],
                send: times[4], wait: times[5], receive: times[6],
            };
            flow.server_addr = server_addr;
            let (new, old, _) = both(&flow, threshold);
            prop_assert_eq!(new, old);
        }
    }
}
