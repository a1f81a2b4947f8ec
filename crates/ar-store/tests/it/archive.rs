//! The archive rebuilds every flow exactly (property test), and survives crashes.

use ar_store::archive::{ArchiveWarning, ArchiveWriter, MemoryBodyStore, read_archive};
use ar_store::{
    Body, Client, Direction, ErrorKind, Flow, FlowError, FlowId, Header, Headers, HttpVersion,
    Request, Response, Timestamp, Timings, WebSocketFrame, WebSocketLog, WsOpcode,
};
use proptest::prelude::*;

fn version() -> impl Strategy<Value = HttpVersion> {
    prop_oneof![
        Just(HttpVersion::Http10),
        Just(HttpVersion::Http11),
        Just(HttpVersion::Http2),
        Just(HttpVersion::Http3),
        "[a-z0-9]{1,5}(/[0-9])?".prop_map(HttpVersion::Other),
    ]
}

fn headers() -> impl Strategy<Value = Headers> {
    prop::collection::vec(("[:a-zA-Z-]{0,12}", "\\PC{0,20}"), 0..5).prop_map(|pairs| {
        Headers(
            pairs
                .into_iter()
                .map(|(name, value)| Header { name, value })
                .collect(),
        )
    })
}

fn body() -> impl Strategy<Value = Body> {
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

fn timing() -> impl Strategy<Value = Option<f64>> {
    prop::option::of(prop_oneof![-1.0e9..1.0e9f64, Just(0.1 + 0.2), Just(-1.0)])
}

pub(crate) fn flow() -> impl Strategy<Value = Flow> {
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn archive_round_trips_every_flow(flows in prop::collection::vec(flow(), 1..6), threshold in prop_oneof![Just(0usize), Just(256), Just(1 << 20)]) {
        let mut bodies = MemoryBodyStore::default();
        let mut writer = ArchiveWriter::new(Vec::new()).with_spill_threshold(threshold);
        for f in &flows {
            writer.append(f, &mut bodies).unwrap();
        }
        let bytes = writer.into_inner();
        prop_assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), flows.len(), "one line per flow");
        let contents = read_archive(&bytes[..], &bodies).unwrap();
        prop_assert!(contents.warnings.is_empty(), "{:?}", contents.warnings);
        prop_assert_eq!(contents.flows, flows);
    }

    #[test]
    fn a_torn_tail_loses_only_the_last_flow(flows in prop::collection::vec(flow(), 2..5), cut in 1usize..200) {
        let mut bodies = MemoryBodyStore::default();
        let mut writer = ArchiveWriter::new(Vec::new());
        for f in &flows {
            writer.append(f, &mut bodies).unwrap();
        }
        let mut bytes = writer.into_inner();
        let last_start = bytes[..bytes.len() - 1].iter().rposition(|b| *b == b'\n').unwrap() + 1;
        let last_len = bytes.len() - last_start;
        bytes.truncate(bytes.len() - cut.min(last_len - 1).max(2));
        let contents = read_archive(&bytes[..], &bodies).unwrap();
        prop_assert_eq!(&contents.flows[..], &flows[..flows.len() - 1]);
        let torn = matches!(contents.warnings[..], [ArchiveWarning::TornLastLine { .. }]);
        prop_assert!(torn, "{:?}", contents.warnings);
    }
}

#[test]
fn archive_lines_are_har_entries_readable_by_the_har_importer() {
    let flow = crate::support::json_flow(
        9,
        "GET",
        "https://shop.test/api/x?y=1",
        200,
        "{\"ok\":true}",
    );
    let mut writer = ArchiveWriter::new(Vec::new());
    writer
        .append(&flow, &mut MemoryBodyStore::default())
        .unwrap();
    let line = String::from_utf8(writer.into_inner()).unwrap();
    let har = format!(
        "{{\"log\":{{\"version\":\"1.2\",\"entries\":[{}]}}}}",
        line.trim()
    );
    let imported =
        ar_store::har::import_har(har.as_bytes(), &ar_store::har::ImportOptions::strict()).unwrap();
    assert_eq!(imported.flows[0].request.url, flow.request.url);
    assert_eq!(
        imported.flows[0].response.as_ref().unwrap().body.bytes,
        b"{\"ok\":true}"
    );
}
