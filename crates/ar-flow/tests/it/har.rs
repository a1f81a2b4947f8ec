//! HAR import quirks of real tools, strict vs lenient, streaming, export.

use std::io::{self, Read};

use ar_flow::har::{HarCreator, ImportOptions, export_har, import_har, stream_har};
use ar_flow::{Direction, Error, ErrorKind, HttpVersion, WsOpcode};

use ar_flow::testing::json_flow;

use crate::support::{fixture, import};

#[test]
fn chrome_quirks() {
    let har = import("chrome-shop.har");
    assert_eq!(har.creator.as_deref(), Some("WebInspector 537.36"));
    let me = har
        .flows
        .iter()
        .find(|f| f.request.url.ends_with("/users/me"))
        .unwrap();
    assert_eq!(me.request.http_version, HttpVersion::Http2, "`h2` spelling");
    assert_eq!(
        me.request.headers.get(":authority"),
        Some("api.shop.test"),
        "pseudo-headers are kept in order"
    );
    assert_eq!(
        (me.timings.dns, me.timings.wait),
        (None, Some(40.1)),
        "-1 timings are n/a"
    );
    assert_eq!(me.server_addr.as_deref(), Some("10.0.0.5"));
    let png = har
        .flows
        .iter()
        .find(|f| f.request.url.ends_with("logo.png"))
        .unwrap();
    assert_eq!(
        png.response.as_ref().unwrap().body.bytes,
        b"\x89PNG\r\n\x1a\n"
    );
    let failed = har
        .flows
        .iter()
        .find(|f| f.request.url.ends_with("/recommendations"))
        .unwrap();
    assert!(failed.response.is_none());
    let error = failed.error.as_ref().unwrap();
    assert_eq!(
        (error.kind, error.message.as_str()),
        (ErrorKind::Connect, "net::ERR_CONNECTION_REFUSED")
    );
    let ws = har.flows.iter().find_map(|f| f.websocket.as_ref()).unwrap();
    assert_eq!(ws.frames.len(), 3);
    assert_eq!(ws.frames[0].direction, Direction::ClientToServer);
    assert_eq!(ws.frames[2].opcode, WsOpcode::Binary);
    assert_eq!(ws.frames[2].payload, b"\x00\x01binary");
    assert_eq!(ws.frames[1].at.unix_micros(), 1_714_557_600_456_000);
}

#[test]
fn firefox_quirks() {
    let har = import("firefox-repos.har");
    let readme = har
        .flows
        .iter()
        .find(|f| f.request.url.ends_with("/readme"))
        .unwrap();
    let body = &readme.response.as_ref().unwrap().body;
    assert!(
        body.bytes.is_empty() && body.truncated && body.size > 0,
        "missing content.text is an empty, truncated body"
    );
    let login = har
        .flows
        .iter()
        .find(|f| f.request.method == "POST")
        .unwrap();
    assert_eq!(
        login.request.body.text(),
        Some("login=ann&password=hunter2+%21"),
        "form params without text are rebuilt"
    );
    assert_eq!(
        login.response.as_ref().unwrap().headers.get("location"),
        Some("/dashboard")
    );
}

#[test]
fn mitmproxy_quirks_including_invalid_utf8() {
    let har = import("mitmproxy-api.har");
    assert_eq!(har.replaced_invalid_utf8, 2);
    let legacy = har
        .flows
        .iter()
        .find(|f| f.request.url.ends_with("/legacy/greeting"))
        .unwrap();
    assert_eq!(
        legacy.response.as_ref().unwrap().body.text(),
        Some("caf\u{FFFD} cr\u{FFFD}me")
    );
    let file = har
        .flows
        .iter()
        .find(|f| f.request.url.ends_with("/download"))
        .unwrap();
    assert_eq!(
        file.response.as_ref().unwrap().body.bytes,
        (0..=255).collect::<Vec<u8>>()
    );
    assert_eq!(
        file.started.unix_micros() % 1_000_000,
        104_000,
        "`+00:00` offsets and milliseconds"
    );
}

#[test]
fn charles_and_proxyman_quirks() {
    let har = import("charles-proxyman.har");
    assert_eq!(
        har.flows.len(),
        3,
        "a UTF-8 BOM and a string status are accepted"
    );
    assert_eq!(har.flows[0].status(), Some(200));
    assert_eq!(
        har.flows[0].request.headers.get("content-length"),
        Some("27"),
        "numeric header values"
    );
    assert_eq!(
        har.flows[0].started.unix_micros(),
        1_714_564_800_500_000,
        "+02:00 offset"
    );
    assert_eq!(
        har.flows[2].response.as_ref().unwrap().body.text(),
        Some("{\"data\":[]}")
    );
}

#[test]
fn strict_stops_lenient_keeps_good_entries() {
    let open = || std::fs::File::open(fixture("malformed.har")).unwrap();
    let err = import_har(open(), &ImportOptions::strict()).unwrap_err();
    assert_eq!(err.to_string(), "entry 1: request.url: missing");
    assert!(matches!(err, Error::HarEntry { index: 1, .. }));
    let har = import_har(open(), &ImportOptions::lenient().with_first_id(100)).unwrap();
    assert_eq!(
        har.flows.iter().map(|f| f.id.0).collect::<Vec<_>>(),
        [100, 101, 102]
    );
    let skipped: Vec<String> = har.skipped.iter().map(ToString::to_string).collect();
    assert_eq!(skipped.len(), 3);
    assert!(
        skipped[1].starts_with("entry 3: response.content.text: invalid base64"),
        "{skipped:?}"
    );
}

#[test]
fn invalid_json_names_line_and_column() {
    let err = import_har(
        &b"{\"log\": {\"entries\": [\n  {\"startedDateTime\": }\n]}}"[..],
        &ImportOptions::lenient(),
    )
    .unwrap_err();
    assert!(matches!(err, Error::HarSyntax { line: 2, .. }), "{err}");
    let err = import_har(&b"{\"json\": true}"[..], &ImportOptions::lenient()).unwrap_err();
    assert_eq!(err.to_string(), "not a HAR file: no `log.entries` array");
}

/// Serves a HAR of `n` entries, generated on the fly, then fails: flows must
/// arrive before the end of the input, i.e. the import streams.
struct EndlessHar {
    entries: usize,
    served: usize,
    buf: Vec<u8>,
    pos: usize,
}

impl Read for EndlessHar {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.buf.len() {
            if self.served == self.entries {
                return Err(io::Error::other("disk unplugged"));
            }
            let flow = json_flow(
                self.served as u64,
                "GET",
                &format!("https://api.test/items/{}", self.served),
                200,
                "{\"id\":1}",
            );
            let one = export_har(Vec::new(), [&flow], &HarCreator::default()).unwrap();
            let text = String::from_utf8(one).unwrap();
            let entry = &text[text.find("\"entries\":[").unwrap() + 11..text.rfind("]}}").unwrap()];
            let prefix = if self.served == 0 {
                "{\"log\":{\"version\":\"1.2\",\"entries\":["
            } else {
                ","
            };
            self.buf = format!("{prefix}{}", entry.trim()).into_bytes();
            self.pos = 0;
            self.served += 1;
        }
        let n = out.len().min(self.buf.len() - self.pos);
        out[..n].copy_from_slice(&self.buf[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

#[test]
fn import_streams_entries_before_the_end_of_input() {
    let mut seen = 0;
    let err = stream_har(
        EndlessHar {
            entries: 5_000,
            served: 0,
            buf: Vec::new(),
            pos: 0,
        },
        &ImportOptions::strict(),
        |_| seen += 1,
    )
    .unwrap_err();
    assert!(seen >= 4_990, "flows were delivered while reading: {seen}");
    assert!(err.to_string().contains("reading HAR"), "{err}");
}

#[test]
fn export_then_import_keeps_what_har_can_say() {
    let original = import("chrome-shop.har").flows;
    let bytes = export_har(Vec::new(), &original, &HarCreator::default()).unwrap();
    let back = import_har(&bytes[..], &ImportOptions::strict()).unwrap();
    assert_eq!(
        back.creator.as_deref(),
        Some(&*format!("ar {}", env!("CARGO_PKG_VERSION")))
    );
    assert_eq!(back.flows.len(), original.len());
    for (a, b) in original.iter().zip(&back.flows) {
        assert_eq!(
            a, b,
            "flow {} changed in an export/import round trip",
            a.id.0
        );
    }
}

mod robustness {
    use ar_flow::har::{ImportOptions, import_har};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Damaged HAR files give errors or fewer flows, never a panic.
        #[test]
        fn damaged_hars_never_panic(edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..20)) {
            let mut bytes = std::fs::read(crate::support::fixture("chrome-shop.har")).unwrap();
            for (at, byte) in edits {
                let i = at.index(bytes.len());
                bytes[i] = byte;
            }
            let _ = import_har(&bytes[..], &ImportOptions::lenient());
            let _ = import_har(&bytes[..], &ImportOptions::strict());
        }
    }
}
