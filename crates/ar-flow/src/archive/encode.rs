//! Writing one archive line straight from a [`Flow`].
//!
//! `ar proxy` archives every request it relays, so this is on the proxy's hot
//! path. The line is written by hand, field by field, into a buffer the
//! writer reuses: no `serde_json::Value` tree (a `BTreeMap` and an owned
//! `String` per field) and no serde derive machinery, and strings are escaped
//! eight bytes at a time by [`super::json_out`] (numbers: [`super::json_num`]).
//! The text is exactly what the tree encoding produced: keys are written in
//! its (sorted) order and strings and numbers are spelled as serde_json
//! spells them, which unit tests and a proptest check byte for byte against
//! the tree encoding (the HAR export's `entry_value` plus the `_ar` object).
//! The rare, nested parts of `_ar` (a flow's error, WebSocket frames) still
//! go through serde.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Serialize;

use super::BodyStore;
use super::json_num::{display_f64_string, f64, i64, u64};
use super::json_out::{plain_string, string};
use super::line::{VERSION, sha256_hex};
use crate::har::write_iso8601;
use crate::url::{UrlParts, query_pairs};
use crate::{Body, Client, Error, Flow, Headers, Timings};

/// Buffers kept between lines so that encoding a flow allocates almost nothing.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    /// Base64 text of a non-UTF-8 body.
    b64: String,
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

    out.extend_from_slice(br#"{"_ar":{"client":"#);
    plain_string(out, client_name(flow.client).as_bytes());
    if let Some(ended) = flow.ended {
        out.extend_from_slice(br#","ended":"#);
        i64(out, ended.unix_micros());
    }
    if let Some(error) = &flow.error {
        out.extend_from_slice(br#","error":"#);
        serde_into(out, error)?;
    }
    out.extend_from_slice(br#","id":"#);
    u64(out, flow.id.0);
    out.extend_from_slice(br#","request_body":"#);
    body_meta(out, &req.body, request_spill.as_deref());
    out.extend_from_slice(br#","request_version":"#);
    string(out, req.http_version.as_str());
    if let Some(res) = &flow.response {
        out.extend_from_slice(br#","response":{"body":"#);
        body_meta(out, &res.body, response_spill.as_deref());
        out.extend_from_slice(br#","version":"#);
        string(out, res.http_version.as_str());
        out.push(b'}');
    }
    if let Some(addr) = &flow.server_addr {
        out.extend_from_slice(br#","server_addr":"#);
        string(out, addr);
    }
    out.extend_from_slice(br#","started":"#);
    i64(out, flow.started.unix_micros());
    out.extend_from_slice(br#","timings":"#);
    exact_timings(out, &flow.timings);
    out.extend_from_slice(br#","v":"#);
    u64(out, u64::from(VERSION));
    if let Some(websocket) = &flow.websocket {
        out.extend_from_slice(br#","websocket":"#);
        serde_into(out, websocket)?;
    }

    out.extend_from_slice(br#"},"cache":{},"request":{"bodySize":"#);
    i64(out, req.body.wire_size.map_or(-1, |s| s as i64));
    out.extend_from_slice(br#","cookies":[],"headers":"#);
    headers(out, &req.headers);
    out.extend_from_slice(br#","headersSize":-1,"httpVersion":"#);
    string(out, req.http_version.as_str());
    out.extend_from_slice(br#","method":"#);
    string(out, &req.method);
    if !req.body.bytes.is_empty() || req.body.content_type.is_some() {
        out.extend_from_slice(br#","postData":{"#);
        let text = match request_spill {
            Some(_) => None,
            None => Some(inline_text(&req.body, &mut scratch.b64)),
        };
        if let Some(Text::Base64(_)) = text {
            out.extend_from_slice(br#""encoding":"base64","#);
        }
        out.extend_from_slice(br#""mimeType":"#);
        string(out, req.body.content_type.as_deref().unwrap_or(""));
        if let Some(text) = text {
            out.extend_from_slice(br#","text":"#);
            text.write(out);
        }
        out.push(b'}');
    }
    out.extend_from_slice(br#","queryString":["#);
    // Most URLs have no query: one byte search instead of splitting the URL.
    let query = match memchr::memchr(b'?', req.url.as_bytes()) {
        Some(_) => UrlParts::split(&req.url).query,
        None => None,
    };
    if let Some(query) = query {
        for (i, (name, value)) in query_pairs(query).enumerate() {
            out.extend_from_slice(if i == 0 {
                b"{\"name\":"
            } else {
                b",{\"name\":"
            });
            string(out, &name);
            out.extend_from_slice(br#","value":"#);
            string(out, &value);
            out.push(b'}');
        }
    }
    out.extend_from_slice(br#"],"url":"#);
    string(out, &req.url);

    out.extend_from_slice(br#"},"response":{"#);
    match &flow.response {
        Some(res) => {
            if let Some(error) = &flow.error {
                out.extend_from_slice(br#""_error":"#);
                string(out, &error.message);
                out.push(b',');
            }
            out.extend_from_slice(br#""bodySize":"#);
            i64(out, res.body.wire_size.map_or(-1, |s| s as i64));
            out.extend_from_slice(br#","content":{"#);
            let text = match response_spill {
                None if !res.body.bytes.is_empty() => {
                    Some(inline_text(&res.body, &mut scratch.b64))
                }
                _ => None,
            };
            if let Some(Text::Base64(_)) = text {
                out.extend_from_slice(br#""encoding":"base64","#);
            }
            out.extend_from_slice(br#""mimeType":"#);
            string(out, res.body.content_type.as_deref().unwrap_or("x-unknown"));
            out.extend_from_slice(br#","size":"#);
            u64(out, res.body.size.max(res.body.bytes.len() as u64));
            if let Some(text) = text {
                out.extend_from_slice(br#","text":"#);
                text.write(out);
            }
            out.extend_from_slice(br#"},"cookies":[],"headers":"#);
            headers(out, &res.headers);
            out.extend_from_slice(br#","headersSize":-1,"httpVersion":"#);
            string(out, res.http_version.as_str());
            out.extend_from_slice(br#","redirectURL":"#);
            string(out, res.headers.get("location").unwrap_or(""));
            out.extend_from_slice(br#","status":"#);
            u64(out, u64::from(res.status));
            out.extend_from_slice(br#","statusText":"#);
            string(out, &res.reason);
        }
        None => {
            out.extend_from_slice(br#""_error":"#);
            string(
                out,
                flow.error
                    .as_ref()
                    .map_or("no response", |e| e.message.as_str()),
            );
            out.extend_from_slice(
                br#","bodySize":-1,"content":{"mimeType":"x-unknown","size":0},"cookies":[],"headers":[],"headersSize":-1,"httpVersion":"#,
            );
            string(out, req.http_version.as_str());
            out.extend_from_slice(br#","redirectURL":"","status":0,"statusText":"""#);
        }
    }
    out.push(b'}');

    if let Some(addr) = &flow.server_addr {
        out.extend_from_slice(br#","serverIPAddress":"#);
        string(out, crate::har::server_ip(addr));
    }
    out.extend_from_slice(br#","startedDateTime":""#);
    write_iso8601(flow.started, out);
    out.extend_from_slice(br#"","time":"#);
    let t = &flow.timings;
    let total = flow.duration_ms().or_else(|| {
        let parts = [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive];
        parts
            .iter()
            .any(Option::is_some)
            .then(|| parts.iter().flatten().sum())
    });
    f64(out, total.unwrap_or(0.0).max(0.0));
    // HAR timings: `-1` for phases that did not apply, `0` for unknown send/wait/receive.
    for (key, value) in [
        (&br#","timings":{"blocked":"#[..], t.blocked.unwrap_or(-1.0)),
        (br#","connect":"#, t.connect.unwrap_or(-1.0)),
        (br#","dns":"#, t.dns.unwrap_or(-1.0)),
        (br#","receive":"#, t.receive.unwrap_or(0.0)),
        (br#","send":"#, t.send.unwrap_or(0.0)),
        (br#","ssl":"#, t.ssl.unwrap_or(-1.0)),
        (br#","wait":"#, t.wait.unwrap_or(0.0)),
    ] {
        out.extend_from_slice(key);
        f64(out, value);
    }
    out.extend_from_slice(b"}}");
    Ok(())
}

/// A body's inline `text`: the UTF-8 text itself, or its base64 (`encoding: base64`).
enum Text<'a> {
    Utf8(&'a str),
    Base64(&'a str),
}

impl Text<'_> {
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            Self::Utf8(text) => string(out, text),
            Self::Base64(text) => plain_string(out, text.as_bytes()),
        }
    }
}

/// The body as text, base64-encoding into `b64` when it is not UTF-8.
fn inline_text<'a>(body: &'a Body, b64: &'a mut String) -> Text<'a> {
    match std::str::from_utf8(&body.bytes) {
        Ok(text) => Text::Utf8(text),
        Err(_) => {
            b64.clear();
            STANDARD.encode_string(&body.bytes, b64);
            Text::Base64(b64)
        }
    }
}

/// `[{"name":..,"value":..},..]`, the HAR (and `Headers`' serde) form.
fn headers(out: &mut Vec<u8>, headers: &Headers) {
    out.push(b'[');
    for (i, header) in headers.iter().enumerate() {
        out.extend_from_slice(if i == 0 {
            b"{\"name\":"
        } else {
            b",{\"name\":"
        });
        string(out, &header.name);
        out.extend_from_slice(br#","value":"#);
        string(out, &header.value);
        out.push(b'}');
    }
    out.push(b']');
}

/// Body facts HAR cannot carry (read back by `line::BodyMeta`), keys in sorted order.
fn body_meta(out: &mut Vec<u8>, body: &Body, spilled: Option<&str>) {
    out.push(b'{');
    if let Some(content_type) = &body.content_type {
        out.extend_from_slice(br#""content_type":"#);
        string(out, content_type);
        out.push(b',');
    }
    if let Some(decode_error) = &body.decode_error {
        out.extend_from_slice(br#""decode_error":"#);
        string(out, decode_error);
        out.push(b',');
    }
    if let Some(encoding) = &body.encoding {
        out.extend_from_slice(br#""encoding":"#);
        string(out, encoding);
        out.push(b',');
    }
    out.extend_from_slice(br#""size":"#);
    u64(out, body.size);
    if let Some(hash) = spilled {
        out.extend_from_slice(br#","spilled":"#);
        plain_string(out, hash.as_bytes());
    }
    if body.truncated {
        out.extend_from_slice(br#","truncated":true"#);
    }
    if let Some(wire_size) = body.wire_size {
        out.extend_from_slice(br#","wire_size":"#);
        u64(out, wire_size);
    }
    out.push(b'}');
}

/// `_ar.timings` (read back by `line::ExactTimings`): only the phases that
/// have a value, as `Display` strings so they read back bit-exact.
fn exact_timings(out: &mut Vec<u8>, t: &Timings) {
    let mut first = true;
    out.push(b'{');
    for (key, value) in [
        (&br#""blocked":"#[..], t.blocked),
        (br#""connect":"#, t.connect),
        (br#""dns":"#, t.dns),
        (br#""receive":"#, t.receive),
        (br#""send":"#, t.send),
        (br#""ssl":"#, t.ssl),
        (br#""wait":"#, t.wait),
    ] {
        if let Some(value) = value {
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(key);
            display_f64_string(out, value);
        }
    }
    out.push(b'}');
}

/// The serde name of a [`Client`] (`#[serde(rename_all = "lowercase")]`).
fn client_name(client: Client) -> &'static str {
    match client {
        Client::Agent => "agent",
        Client::Explorer => "explorer",
        Client::Human => "human",
        Client::Replay => "replay",
        Client::Unknown => "unknown",
    }
}

/// Appends `value` through serde, for the rare nested parts of `_ar`.
fn serde_into(out: &mut Vec<u8>, value: &impl Serialize) -> Result<(), Error> {
    serde_json::to_writer(out, value).map_err(|e| Error::ArchiveLine {
        line: 0,
        problem: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::archive::MemoryBodyStore;
    use crate::archive::line::{decode, encode_via_value};
    use crate::{
        Direction, ErrorKind, FlowError, FlowId, HttpVersion, Request, Response, Timestamp,
        WebSocketFrame, WebSocketLog, WsOpcode,
    };

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
        let capacity = scratch.b64.capacity();
        let mut second = Vec::new();
        encode_into(&flow, &mut store, 1 << 20, &mut scratch, &mut second).unwrap();
        assert_eq!(first, second);
        assert_eq!(scratch.b64.capacity(), capacity);
        assert_eq!(scratch.b64, "/wCA");
    }

    /// Text that exercises the escaper: runs longer than a word, escapes next
    /// to the bytes a SWAR borrow could flag (`#`, `]`, space), non-ASCII.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            3 => "[a-zA-Z0-9 /?&=%+._-]{1,12}",
            2 => prop::sample::select(vec![
                "\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{c}", "\u{0}", "\u{1b}", "\u{7f}",
                "#", "]", " ", "é", "\u{2028}", "😀",
            ])
            .prop_map(String::from),
            1 => any::<char>().prop_map(String::from),
        ];
        prop_oneof![
            2 => prop::collection::vec(piece, 0..12).prop_map(|p| p.concat()),
            1 => any::<String>(),
        ]
    }

    fn timing() -> impl Strategy<Value = Option<f64>> {
        prop_oneof![
            Just(None),
            any::<f64>().prop_map(Some),
            prop::sample::select(vec![-1.0, 0.0, -0.0, 1e-7, 1e21, f64::NAN, f64::INFINITY])
                .prop_map(Some),
            (0u32..5000).prop_map(|n| Some(f64::from(n) / 1000.0))
        ]
    }

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..40),
            text().prop_map(String::into_bytes),
        ]
    }

    fn version() -> impl Strategy<Value = HttpVersion> {
        prop_oneof![
            Just(HttpVersion::Http10),
            Just(HttpVersion::Http11),
            Just(HttpVersion::Http2),
            Just(HttpVersion::Http3),
            text().prop_map(HttpVersion::Other),
        ]
    }

    fn body() -> impl Strategy<Value = Body> {
        (
            prop::option::of(text()),
            prop::option::of(text()),
            bytes(),
            prop::option::of(any::<u64>()),
            any::<bool>(),
            prop::option::of(text()),
        )
            .prop_map(
                |(content_type, encoding, bytes, wire_size, truncated, decode_error)| {
                    let size = bytes.len() as u64 + u64::from(truncated);
                    Body {
                        content_type,
                        encoding,
                        bytes,
                        size,
                        wire_size,
                        truncated,
                        decode_error,
                    }
                },
            )
    }

    fn flow() -> impl Strategy<Value = Flow> {
        let request = (
            text(),
            text(),
            prop::collection::vec((text(), text()), 0..4),
            body(),
            version(),
        );
        let response = (
            100u16..600,
            text(),
            prop::collection::vec((text(), text()), 0..4),
            body(),
            version(),
        );
        let context = (
            prop::sample::select(vec![
                Client::Agent,
                Client::Explorer,
                Client::Human,
                Client::Unknown,
            ]),
            any::<u64>(),
            // Years 0000-9999: the HAR reader rejects other `startedDateTime`s.
            -62_167_219_200_000_000i64..253_402_300_800_000_000,
            // Far enough from the ends that `Flow::duration_ms` cannot overflow.
            prop::option::of(-(1i64 << 62)..(1i64 << 62)),
            prop::option::of(text()),
            prop::option::of(text()),
            prop::collection::vec(timing(), 7),
        );
        (request, prop::option::of(response), context).prop_map(
            |((method, query, req_headers, req_body, req_version), response, context)| {
                let (client, id, started, ended, error, server_addr, times) = context;
                let mut request =
                    Request::new(method, format!("https://h.test/p?{query}"), req_version);
                for (n, v) in req_headers {
                    request.headers.push(n, v);
                }
                request.body = req_body;
                let mut flow = Flow::new(
                    FlowId(id),
                    Timestamp::from_unix_micros(started),
                    client,
                    request,
                );
                if let Some((status, reason, headers, body, version)) = response {
                    let mut r = Response::new(status, version);
                    r.reason = reason;
                    for (n, v) in headers {
                        r.headers.push(n, v);
                    }
                    r.body = body;
                    flow = flow.with_response(r);
                }
                flow.ended = ended.map(Timestamp::from_unix_micros);
                flow.error = error.map(|message| FlowError {
                    kind: ErrorKind::Reset,
                    message,
                });
                flow.timings = crate::Timings {
                    blocked: times[0],
                    dns: times[1],
                    connect: times[2],
                    ssl: times[3],
                    send: times[4],
                    wait: times[5],
                    receive: times[6],
                };
                flow.server_addr = server_addr;
                flow
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// Random flows (odd header names and values, control characters,
        /// quotes, non-ASCII, non-UTF-8 bodies, odd floats, any times) are
        /// written byte for byte as the tree wrote them, and read back.
        #[test]
        fn any_flow_is_written_exactly_as_the_value_tree_wrote_it_and_reads_back(
            flow in flow(),
            threshold in prop_oneof![Just(0usize), Just(20), Just(1 << 20)],
        ) {
            let (new, old, store) = both(&flow, threshold);
            prop_assert_eq!(&new, &old);
            let back = decode(&new, 1, &store).unwrap();
            // `Debug` rather than `==`: a NaN timing reads back as NaN, which `==` rejects.
            prop_assert_eq!(format!("{back:?}"), format!("{flow:?}"));
        }
    }
}
