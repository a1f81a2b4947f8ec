//! Helpers for the tests of this crate and of the crates that build on it
//! (feature `testing`): `proptest` strategies for arbitrary flows (what the
//! archive's round trip and the store's laws are tested on) and a builder
//! of small JSON flows.

use proptest::prelude::*;

use crate::{
    Body, Client, Direction, ErrorKind, Flow, FlowError, FlowId, Header, Headers, HttpVersion,
    Request, Response, Timestamp, Timings, WebSocketFrame, WebSocketLog, WsOpcode,
};

/// Any HTTP version, the named ones and odd ones as written.
pub fn version() -> impl Strategy<Value = HttpVersion> {
    prop_oneof![
        Just(HttpVersion::Http10),
        Just(HttpVersion::Http11),
        Just(HttpVersion::Http2),
        Just(HttpVersion::Http3),
        "[a-z0-9]{1,5}(/[0-9])?".prop_map(HttpVersion::Other),
    ]
}

/// Up to four headers, names and values of any printable text.
pub fn headers() -> impl Strategy<Value = Headers> {
    prop::collection::vec(("[:a-zA-Z-]{0,12}", "\\PC{0,20}"), 0..5).prop_map(|pairs| {
        Headers(
            pairs
                .into_iter()
                .map(|(name, value)| Header { name, value })
                .collect(),
        )
    })
}

/// A body of any bytes (binary, text, long runs), with any of the facts of the wire.
pub fn body() -> impl Strategy<Value = Body> {
    let bytes = prop_oneof![
        3 => prop::collection::vec(any::<u8>(), 0..64),
        1 => "\\PC{0,80}".prop_map(String::into_bytes),
        1 => (any::<u8>(), 300..2_000usize).prop_map(|(b, n)| vec![b; n]),
    ];
    (
        bytes,
        prop::option::of("[a-z]+/[a-z+]+(; charset=utf-8)?"),
        prop::option::of("gzip|br|zstd"),
        any::<u64>(),
        prop::option::of(any::<u64>()),
        any::<bool>(),
        prop::option::of("\\PC{0,20}"),
    )
        .prop_map(
            |(bytes, content_type, encoding, size, wire_size, truncated, decode_error)| Body {
                content_type,
                encoding,
                bytes,
                size,
                wire_size,
                truncated,
                decode_error,
            },
        )
}

/// A phase's time: none, any milliseconds, `-1` (HAR's "not applicable").
pub fn timing() -> impl Strategy<Value = Option<f64>> {
    prop::option::of(prop_oneof![-1.0e9..1.0e9f64, Just(0.1 + 0.2), Just(-1.0)])
}

/// Any flow: request, maybe a response or an error, WebSocket frames,
/// timings, times and the client that sent it.
pub fn flow() -> impl Strategy<Value = Flow> {
    let request = (
        "[A-Z]{1,7}",
        "(https?|wss?)://[a-z.]{1,12}(:[0-9]{1,5})?(/\\PC{0,20})?",
        version(),
        headers(),
        body(),
    )
        .prop_map(|(method, url, http_version, headers, body)| Request {
            method,
            url,
            http_version,
            headers,
            body,
        });
    let response = prop::option::of(
        (0u16..1000, "\\PC{0,12}", version(), headers(), body()).prop_map(
            |(status, reason, http_version, headers, body)| Response {
                status,
                reason,
                http_version,
                headers,
                body,
            },
        ),
    );
    let error = prop::option::of(
        (
            prop::sample::select(vec![
                ErrorKind::Dns,
                ErrorKind::Tls,
                ErrorKind::Reset,
                ErrorKind::Other,
            ]),
            "\\PC{0,30}",
        )
            .prop_map(|(kind, message)| FlowError { kind, message }),
    );
    let frames = prop::option::of(
        (
            prop::collection::vec(
                (
                    any::<bool>(),
                    -1_000_000i64..4_000_000_000_000_000,
                    prop::sample::select(vec![WsOpcode::Text, WsOpcode::Binary, WsOpcode::Ping]),
                    prop::collection::vec(any::<u8>(), 0..16),
                    any::<bool>(),
                ),
                0..4,
            ),
            any::<u64>(),
        )
            .prop_map(|(frames, dropped)| WebSocketLog {
                frames: frames
                    .into_iter()
                    .map(|(up, at, opcode, payload, truncated)| WebSocketFrame {
                        direction: if up {
                            Direction::ClientToServer
                        } else {
                            Direction::ServerToClient
                        },
                        at: Timestamp::from_unix_micros(at),
                        opcode,
                        payload,
                        truncated,
                    })
                    .collect(),
                frames_dropped: dropped,
            }),
    );
    let timings = (
        timing(),
        timing(),
        timing(),
        timing(),
        timing(),
        timing(),
        timing(),
    )
        .prop_map(
            |(blocked, dns, connect, ssl, send, wait, receive)| Timings {
                blocked,
                dns,
                connect,
                ssl,
                send,
                wait,
                receive,
            },
        );
    let meta = (
        any::<u64>(),
        -1_000_000_000_000_000i64..4_000_000_000_000_000,
        prop::option::of(-1_000_000_000_000_000i64..4_000_000_000_000_000),
        prop::sample::select(vec![
            Client::Agent,
            Client::Explorer,
            Client::Human,
            Client::Unknown,
        ]),
        prop::option::of("[0-9.:\\[\\]a-f]{3,20}"),
    );
    (meta, request, response, error, timings, frames).prop_map(
        |(
            (id, started, ended, client, server_addr),
            request,
            response,
            error,
            timings,
            websocket,
        )| Flow {
            id: FlowId(id),
            started: Timestamp::from_unix_micros(started),
            ended: ended.map(Timestamp::from_unix_micros),
            client,
            request,
            response,
            error,
            timings,
            server_addr,
            websocket,
        },
    )
}

/// A flow of `method url` answered `status` with the JSON `body`, sent by
/// the agent, started `id` microseconds after a fixed instant.
pub fn json_flow(id: u64, method: &str, url: &str, status: u16, body: &str) -> Flow {
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
