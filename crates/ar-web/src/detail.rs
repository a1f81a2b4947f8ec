//! One flow as the detail pane shows it: headers and bodies redacted, each
//! redacted value named by a [`Part`] the page can ask to reveal (a POST
//! with the token, one value at a time), bodies classified for display
//! (JSON pretty, text, image, binary as hex) with truncation said.

use ar_openapi::Redactor;
use ar_store::{Body, Flow, Headers};
use base64::Engine as _;
use serde::Serialize;

use crate::row::FlowRow;

/// Bytes of a binary body shown as hex.
const HEX_BYTES: usize = 4096;
/// Bytes of a text body shown.
const TEXT_BYTES: usize = 512 * 1024;

/// One value of a flow that may be a secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// The request URL.
    Url,
    /// The request header at this index.
    RequestHeader(usize),
    /// The response header at this index.
    ResponseHeader(usize),
    /// The request body.
    RequestBody,
    /// The response body.
    ResponseBody,
}

impl Part {
    /// `url`, `req.h.3`, `res.h.0`, `req.body`, `res.body`.
    pub(crate) fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "url" => Self::Url,
            "req.body" => Self::RequestBody,
            "res.body" => Self::ResponseBody,
            _ => {
                if let Some(i) = text.strip_prefix("req.h.") {
                    Self::RequestHeader(i.parse().ok()?)
                } else {
                    Self::ResponseHeader(text.strip_prefix("res.h.")?.parse().ok()?)
                }
            }
        })
    }

    /// The value as captured, unredacted.
    pub(crate) fn reveal(self, flow: &Flow) -> Option<String> {
        let header = |headers: &Headers, i: usize| headers.iter().nth(i).map(|h| h.value.clone());
        let response = flow.response.as_ref();
        match self {
            Self::Url => Some(flow.request.url.clone()),
            Self::RequestHeader(i) => header(&flow.request.headers, i),
            Self::ResponseHeader(i) => response.and_then(|r| header(&r.headers, i)),
            Self::RequestBody => Some(lossy(&flow.request.body.bytes)),
            Self::ResponseBody => response.map(|r| lossy(&r.body.bytes)),
        }
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(TEXT_BYTES)]).into_owned()
}

/// A header, redacted; `secret` names the part to reveal when it was.
#[derive(Debug, Serialize)]
struct HeaderView {
    name: String,
    value: String,
    secret: Option<String>,
}

/// How a body is shown.
#[derive(Debug, Serialize)]
#[serde(rename_all = "lowercase", tag = "kind")]
enum Content {
    /// No bytes.
    Empty,
    /// JSON, pretty-printed and redacted.
    Json { text: String },
    /// Text, redacted.
    Text { text: String },
    /// An image, as a data URL.
    Image { data_url: String },
    /// Anything else: the first bytes as a hex dump.
    Binary { hex: String },
}

#[derive(Debug, Serialize)]
struct BodyView {
    content_type: Option<String>,
    encoding: Option<String>,
    /// The full decoded size.
    size: u64,
    /// Bytes captured.
    captured: usize,
    /// Whether the capture holds less than the whole body.
    truncated: bool,
    /// Whether the page shows less than what was captured.
    clipped: bool,
    decode_error: Option<String>,
    /// Set when redaction changed the body: the part to reveal.
    secret: Option<String>,
    #[serde(flatten)]
    content: Content,
}

#[derive(Debug, Serialize)]
struct MessageView {
    headers: Vec<HeaderView>,
    body: BodyView,
}

/// The detail pane's JSON for one flow.
#[derive(Debug, Serialize)]
pub(crate) struct FlowDetail {
    row: FlowRow,
    url_secret: Option<String>,
    http_version: String,
    request: MessageView,
    status: Option<u16>,
    reason: Option<String>,
    response: Option<MessageView>,
    timings: ar_store::Timings,
    server_addr: Option<String>,
    error: Option<String>,
    websocket_frames: usize,
    /// The request body as the replay form starts from (redacted text).
    replay_body: Option<String>,
}

impl FlowDetail {
    /// The detail of `flow`, listed as `row`.
    pub(crate) fn new(flow: &Flow, row: FlowRow, redactor: &Redactor) -> Self {
        let url_secret =
            (redactor.url(&flow.request.url) != flow.request.url).then(|| "url".into());
        let response = flow.response.as_ref();
        Self {
            row,
            url_secret,
            http_version: flow.request.http_version.as_str().to_owned(),
            request: MessageView {
                headers: headers(&flow.request.headers, "req", redactor),
                body: body(&flow.request.body, "req.body", redactor),
            },
            status: response.map(|r| r.status),
            reason: response.map(|r| r.reason.clone()),
            response: response.map(|r| MessageView {
                headers: headers(&r.headers, "res", redactor),
                body: body(&r.body, "res.body", redactor),
            }),
            timings: flow.timings,
            server_addr: flow.server_addr.clone(),
            error: flow
                .error
                .as_ref()
                .map(|e| format!("{:?}: {}", e.kind, e.message)),
            websocket_frames: flow.websocket.as_ref().map_or(0, |w| w.frames.len()),
            replay_body: crate::replay::shown_body(&flow.request.body, redactor),
        }
    }
}

fn headers(headers: &Headers, side: &str, redactor: &Redactor) -> Vec<HeaderView> {
    headers
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let value = redactor.header_value(&h.name, &h.value);
            HeaderView {
                name: h.name.clone(),
                secret: (value != h.value).then(|| format!("{side}.h.{i}")),
                value: value.into_owned(),
            }
        })
        .collect()
}

fn body(body: &Body, part: &str, redactor: &Redactor) -> BodyView {
    let bytes = &body.bytes;
    let media = body.media_type().unwrap_or_default();
    let mut clipped = false;
    let mut secret = false;
    let content = if bytes.is_empty() {
        Content::Empty
    } else if let Some(mut value) = (media.contains("json") || bytes.first() == Some(&b'{'))
        .then(|| serde_json::from_slice::<serde_json::Value>(bytes).ok())
        .flatten()
    {
        let before = value.clone();
        redactor.json(&mut value);
        secret = before != value;
        Content::Json {
            text: serde_json::to_string_pretty(&value).unwrap_or_default(),
        }
    } else if media.starts_with("image/") && !media.contains("svg") {
        Content::Image {
            data_url: format!(
                "data:{media};base64,{}",
                base64::engine::general_purpose::STANDARD.encode(bytes)
            ),
        }
    } else if let Some(text) = text_prefix(bytes) {
        clipped = text.len() < bytes.len();
        let shown = redactor.text(text);
        secret = shown != text;
        Content::Text {
            text: shown.into_owned(),
        }
    } else {
        clipped = bytes.len() > HEX_BYTES;
        Content::Binary {
            hex: hex_dump(&bytes[..bytes.len().min(HEX_BYTES)]),
        }
    };
    BodyView {
        content_type: body.content_type.clone(),
        encoding: body.encoding.clone(),
        size: body.size,
        captured: bytes.len(),
        truncated: body.truncated,
        clipped,
        decode_error: body.decode_error.clone(),
        secret: secret.then(|| part.to_owned()),
        content,
    }
}

/// The first [`TEXT_BYTES`] of `bytes` when they are UTF-8 text (a
/// character cut by that bound is dropped); none for binary.
fn text_prefix(bytes: &[u8]) -> Option<&str> {
    let head = &bytes[..bytes.len().min(TEXT_BYTES)];
    match std::str::from_utf8(head) {
        Ok(text) => Some(text),
        // Only the end is incomplete: a character the bound cut in two.
        Err(error) if error.error_len().is_none() && error.valid_up_to() > 0 => {
            std::str::from_utf8(&head[..error.valid_up_to()]).ok()
        }
        Err(_) => None,
    }
}

/// `00000000  89 50 4e 47 ...  .PNG....` lines of 16 bytes.
fn hex_dump(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(bytes.len() * 4 + bytes.len() / 16 * 12);
    for (line, chunk) in bytes.chunks(16).enumerate() {
        let _ = write!(out, "{:08x} ", line * 16);
        for b in chunk {
            let _ = write!(out, " {b:02x}");
        }
        out.push_str(&"   ".repeat(16 - chunk.len()));
        out.push_str("  ");
        out.extend(chunk.iter().map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '.'
            }
        }));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::row::{Driver, Placement};
    use ar_store::{Client, FlowId, HttpVersion, Response, Timestamp};

    fn flow() -> Flow {
        let request = crate::testing::request_with_secrets(
            "/api/login",
            r#"{"user":"ada","password":"hunter2"}"#,
        );
        let mut response = Response::new(200, HttpVersion::Http11);
        response.body =
            Body::from_decoded(Some("application/octet-stream".into()), vec![0, 1, 2, 0xff]);
        Flow::new(
            FlowId(3),
            Timestamp::from_unix_micros(0),
            Client::Human,
            request,
        )
        .with_response(response)
    }

    #[test]
    fn secrets_are_redacted_and_each_can_be_revealed_by_its_part() {
        let flow = flow();
        let redactor = Redactor::new();
        let row = FlowRow::new(&flow, &Placement::default(), Driver::Human, &redactor);
        let json = serde_json::to_value(FlowDetail::new(&flow, row, &redactor)).unwrap();
        let text = json.to_string();
        assert!(
            !text.contains("hunter2") && !text.contains("abcdefgh.ijkl"),
            "{text}"
        );
        assert!(!text.contains("sk_live_abcdefgh1234"), "{text}");
        assert_eq!(json["request"]["headers"][0]["secret"], "req.h.0");
        assert!(json["request"]["headers"][1]["secret"].is_null());
        assert_eq!(json["request"]["body"]["secret"], "req.body");
        assert_eq!(json["url_secret"], "url");
        assert_eq!(json["response"]["body"]["kind"], "binary");
        assert!(
            json["response"]["body"]["hex"]
                .as_str()
                .unwrap()
                .starts_with("00000000  00 01 02 ff")
        );

        let reveal = |part: &str| Part::parse(part).and_then(|p| p.reveal(&flow));
        assert_eq!(reveal("req.h.0").as_deref(), Some("Bearer abcdefgh.ijkl"));
        assert!(reveal("req.body").unwrap().contains("hunter2"));
        assert!(reveal("url").unwrap().contains("sk_live_abcdefgh1234"));
        assert_eq!(reveal("res.h.9"), None);
        assert_eq!(Part::parse("cookie"), None);
    }
}
