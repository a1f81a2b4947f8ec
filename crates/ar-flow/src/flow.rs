//! The captured-exchange model shared by every `ar` crate.
//!
//! A [`Flow`] owns all its data so it can cross threads and be archived
//! without borrowing from the proxy's buffers. Bodies keep the *decoded*
//! bytes (what a schema is inferred from) next to the facts about how they
//! were sent (content encoding, full size, whether the copy was capped).

use serde::{Deserialize, Serialize};

/// Identifier of a flow, unique within one capture session or archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FlowId(pub u64);

/// A point in time, in microseconds since the Unix epoch (UTC).
///
/// Pure crates never read a clock; callers pass time in as this value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Timestamp(i64);

impl Timestamp {
    /// A timestamp from microseconds since the Unix epoch.
    pub const fn from_unix_micros(micros: i64) -> Self {
        Self(micros)
    }

    /// Microseconds since the Unix epoch.
    pub const fn unix_micros(self) -> i64 {
        self.0
    }

    /// Milliseconds elapsed from `earlier` to `self` (negative if `earlier` is later).
    pub fn millis_since(self, earlier: Timestamp) -> f64 {
        // Widened: two far-apart timestamps (from a damaged archive line) must not overflow.
        (i128::from(self.0) - i128::from(earlier.0)) as f64 / 1000.0
    }
}

/// Who was driving the browser (or client) when a flow was captured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Client {
    /// The LLM agent.
    Agent,
    /// The deterministic no-LLM explorer.
    Explorer,
    /// A person (after `/take`, or any client of `ar proxy`).
    Human,
    /// A captured request edited and sent again from the live web view.
    Replay,
    /// Unknown, e.g. traffic imported from a HAR file.
    #[default]
    Unknown,
}

/// The HTTP version of a request or response as seen on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum HttpVersion {
    /// HTTP/1.0
    #[serde(rename = "HTTP/1.0")]
    Http10,
    /// HTTP/1.1
    #[default]
    #[serde(rename = "HTTP/1.1")]
    Http11,
    /// HTTP/2
    #[serde(rename = "HTTP/2")]
    Http2,
    /// HTTP/3
    #[serde(rename = "HTTP/3")]
    Http3,
    /// Anything else a HAR file may say (`h2c`, `unknown`, ...), kept verbatim.
    #[serde(untagged)]
    Other(String),
}

impl HttpVersion {
    /// Parses the spellings found in HAR files (`HTTP/1.1`, `http/2.0`, `h2`, `h3`, ...).
    pub fn parse(text: &str) -> Self {
        match text.trim().to_ascii_lowercase().as_str() {
            "http/1.0" => Self::Http10,
            "http/1.1" | "" => Self::Http11,
            "http/2" | "http/2.0" | "h2" | "h2c" => Self::Http2,
            "http/3" | "http/3.0" | "h3" => Self::Http3,
            _ => Self::Other(text.to_string()),
        }
    }

    /// The HAR spelling of this version.
    pub fn as_str(&self) -> &str {
        match self {
            Self::Http10 => "HTTP/1.0",
            Self::Http11 => "HTTP/1.1",
            Self::Http2 => "HTTP/2",
            Self::Http3 => "HTTP/3",
            Self::Other(text) => text,
        }
    }
}

/// One header line. Names keep the case they were sent with.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Header {
    /// Header name as sent (HTTP/2 names are lowercase; pseudo-headers start with `:`).
    pub name: String,
    /// Header value; bytes that are not UTF-8 are replaced (lossy), as in HAR.
    pub value: String,
}

/// Headers in the order they were sent; names may repeat.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Headers(pub Vec<Header>);

impl Headers {
    /// An empty header list.
    pub fn new() -> Self {
        Self(Vec::new())
    }

    /// Appends a header, keeping any existing one with the same name.
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.push(Header {
            name: name.into(),
            value: value.into(),
        });
    }

    /// The first value of a header, matched case-insensitively.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.iter()
            .find(|h| names_match(&h.name, name))
            .map(|h| h.value.as_str())
    }

    /// Every value of a header, matched case-insensitively, in order.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.iter()
            .filter(move |h| names_match(&h.name, name))
            .map(|h| h.value.as_str())
    }

    /// Iterates over the headers in order.
    pub fn iter(&self) -> std::slice::Iter<'_, Header> {
        self.0.iter()
    }

    /// Number of header lines.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no headers.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// `a.eq_ignore_ascii_case(b)`, eight bytes at a time: the store asks for
/// `content-type` on every flow.
fn names_match(a: &str, b: &str) -> bool {
    crate::url::eq_ignore_ascii_case_words(a.as_bytes(), b.as_bytes())
}

impl<'a> IntoIterator for &'a Headers {
    type Item = &'a Header;
    type IntoIter = std::slice::Iter<'a, Header>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// A request or response body as captured.
///
/// `bytes` holds the decoded content (after removing any content encoding),
/// capped by the capturer; `size` is the full decoded size when it is known,
/// so `truncated` is `bytes.len() < size`, or true when decoding stopped early
/// (for example at a decompression-bomb bound).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Body {
    /// The `Content-Type` of the body, if any.
    pub content_type: Option<String>,
    /// The `Content-Encoding` as sent (`gzip`, `br`, ...); `bytes` are already decoded.
    pub encoding: Option<String>,
    /// The decoded bytes, possibly capped.
    #[serde(with = "base64_bytes")]
    pub bytes: Vec<u8>,
    /// The full decoded size in bytes, even when `bytes` was capped.
    pub size: u64,
    /// Size on the wire (before decoding), when known.
    pub wire_size: Option<u64>,
    /// Whether `bytes` is incomplete (capped, or decoding bounded).
    pub truncated: bool,
    /// Why the body could not be decoded, when it could not (`bytes` then holds the raw bytes).
    pub decode_error: Option<String>,
}

impl Body {
    /// An empty body (no content).
    pub fn empty() -> Self {
        Self::default()
    }

    /// A complete, already decoded body.
    pub fn from_decoded(content_type: Option<String>, bytes: Vec<u8>) -> Self {
        let size = bytes.len() as u64;
        Self {
            content_type,
            encoding: None,
            bytes,
            size,
            wire_size: None,
            truncated: false,
            decode_error: None,
        }
    }

    /// Whether the body carries no bytes and claims no size.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty() && self.size == 0
    }

    /// The body as UTF-8 text, when it is valid UTF-8.
    pub fn text(&self) -> Option<&str> {
        std::str::from_utf8(&self.bytes).ok()
    }

    /// The media type without parameters, lowercased (`application/json` from
    /// `Application/JSON; charset=utf-8`).
    pub fn media_type(&self) -> Option<String> {
        self.media_type_as_sent().map(str::to_ascii_lowercase)
    }

    /// The media type without parameters, in the case it was sent: what
    /// [`Body::media_type`] lowercases, borrowed. For per-flow paths that
    /// compare case-insensitively or lowercase only when the sender used
    /// capitals, instead of allocating a copy for every body.
    ///
    /// ```
    /// use ar_flow::Body;
    ///
    /// let body = Body::from_decoded(Some("Application/JSON; charset=utf-8".into()), Vec::new());
    /// assert_eq!(body.media_type_as_sent(), Some("Application/JSON"));
    /// assert!(body.media_type_as_sent().unwrap().eq_ignore_ascii_case("application/json"));
    /// ```
    pub fn media_type_as_sent(&self) -> Option<&str> {
        self.content_type.as_deref().map(media_type)
    }
}

/// The media type of a `Content-Type` value: parameters dropped, trimmed,
/// case as sent (`Application/JSON` of `Application/JSON; charset=utf-8`).
/// Every flow's content types pass here (several times), so: a search for
/// `;` eight bytes at a time, and no Unicode whitespace search when both
/// ends are visible ASCII.
pub fn media_type(content_type: &str) -> &str {
    let end = find_semicolon(content_type.as_bytes()).unwrap_or(content_type.len());
    let media = &content_type[..end];
    match (media.as_bytes().first(), media.as_bytes().last()) {
        (Some(first), Some(last)) if first.is_ascii_graphic() && last.is_ascii_graphic() => media,
        _ => media.trim(),
    }
}

/// The offset of the first `;` in `bytes`. Content types are short: a word
/// test (no call, unlike a vector search) finds it in one or two steps.
fn find_semicolon(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut chunks = bytes.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        // Bytes equal to `;` become zero; the lowest flagged byte is the
        // first zero (flags above a zero may be false, below it never).
        let y = u64::from_le_bytes(word) ^ (ONES * u64::from(b';'));
        let zeros = y.wrapping_sub(ONES) & !y & HIGH;
        if zeros != 0 {
            return Some(at + zeros.trailing_zeros() as usize / 8);
        }
        at += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b';')
        .map(|i| at + i)
}

/// An HTTP request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// The method, uppercase as sent (`GET`, `POST`, ...).
    pub method: String,
    /// The absolute URL, including scheme, host, optional port, path and query.
    pub url: String,
    /// The HTTP version on the client side.
    pub http_version: HttpVersion,
    /// Headers in order.
    pub headers: Headers,
    /// The request body (empty for most GETs).
    pub body: Body,
}

impl Request {
    /// A request with no headers and no body.
    pub fn new(
        method: impl Into<String>,
        url: impl Into<String>,
        http_version: HttpVersion,
    ) -> Self {
        Self {
            method: method.into(),
            url: url.into(),
            http_version,
            headers: Headers::new(),
            body: Body::empty(),
        }
    }
}

/// An HTTP response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Reason phrase, if the server sent one (HTTP/1.x only).
    pub reason: String,
    /// The HTTP version the response came with.
    pub http_version: HttpVersion,
    /// Headers in order.
    pub headers: Headers,
    /// The response body.
    pub body: Body,
}

impl Response {
    /// A response with no headers and no body.
    pub fn new(status: u16, http_version: HttpVersion) -> Self {
        Self {
            status,
            reason: String::new(),
            http_version,
            headers: Headers::new(),
            body: Body::empty(),
        }
    }
}

/// What went wrong with an exchange that did not complete normally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// The host name could not be resolved.
    Dns,
    /// The TCP connection was refused or could not be made.
    Connect,
    /// The TLS handshake failed (certificate rejected, protocol mismatch, ...).
    Tls,
    /// A deadline passed.
    Timeout,
    /// The connection was reset or closed mid-exchange.
    Reset,
    /// The client went away before the exchange finished.
    ClientAborted,
    /// The peer spoke malformed HTTP.
    Protocol,
    /// Refused by the proxy itself (e.g. a request looping back to the proxy).
    Refused,
    /// Anything else.
    Other,
}

/// An error that ended (or cut short) an exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlowError {
    /// The class of failure.
    pub kind: ErrorKind,
    /// A human-readable reason, e.g. `certificate expired for bad.test`.
    pub message: String,
}

/// Phase timings in milliseconds, as HAR defines them; `None` when not applicable.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Timings {
    /// Waiting for a connection slot.
    pub blocked: Option<f64>,
    /// DNS resolution.
    pub dns: Option<f64>,
    /// TCP connect (includes `ssl` in HAR's convention).
    pub connect: Option<f64>,
    /// TLS handshake.
    pub ssl: Option<f64>,
    /// Sending the request.
    pub send: Option<f64>,
    /// Waiting for the first response byte.
    pub wait: Option<f64>,
    /// Receiving the response.
    pub receive: Option<f64>,
}

/// Direction of a WebSocket frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Sent by the client (browser) to the server.
    ClientToServer,
    /// Sent by the server to the client.
    ServerToClient,
}

/// WebSocket frame opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WsOpcode {
    /// Continuation of a fragmented message.
    Continuation,
    /// UTF-8 text.
    Text,
    /// Binary data.
    Binary,
    /// Close.
    Close,
    /// Ping.
    Ping,
    /// Pong.
    Pong,
}

/// One recorded WebSocket frame (payload unmasked, possibly capped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebSocketFrame {
    /// Who sent it.
    pub direction: Direction,
    /// When it was seen.
    pub at: Timestamp,
    /// The frame's opcode.
    pub opcode: WsOpcode,
    /// The payload, unmasked.
    #[serde(with = "base64_bytes")]
    pub payload: Vec<u8>,
    /// Whether `payload` was capped.
    pub truncated: bool,
}

/// The frames of a WebSocket connection, recorded up to a cap.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WebSocketLog {
    /// Frames in the order they were relayed.
    pub frames: Vec<WebSocketFrame>,
    /// Frames relayed but not recorded because the cap was reached.
    pub frames_dropped: u64,
}

/// One captured HTTP exchange: a request, its response or error, and context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Flow {
    /// Unique within a session or archive.
    pub id: FlowId,
    /// When the request started.
    pub started: Timestamp,
    /// When the exchange ended (last response byte, or the error), if it did.
    pub ended: Option<Timestamp>,
    /// Who was driving.
    pub client: Client,
    /// The request.
    pub request: Request,
    /// The response, if one (or its head) arrived.
    pub response: Option<Response>,
    /// Why the exchange failed or was cut short, if it was.
    pub error: Option<FlowError>,
    /// Phase timings.
    pub timings: Timings,
    /// The upstream server's address (`127.0.0.1:8443`), when known.
    pub server_addr: Option<String>,
    /// Frames of a WebSocket upgrade, when the exchange was one.
    pub websocket: Option<WebSocketLog>,
}

impl Flow {
    /// A flow with only a request; add the outcome with [`Flow::with_response`] or [`Flow::with_error`].
    pub fn new(id: FlowId, started: Timestamp, client: Client, request: Request) -> Self {
        Self {
            id,
            started,
            ended: None,
            client,
            request,
            response: None,
            error: None,
            timings: Timings::default(),
            server_addr: None,
            websocket: None,
        }
    }

    /// Sets the response.
    pub fn with_response(mut self, response: Response) -> Self {
        self.response = Some(response);
        self
    }

    /// Sets the error.
    pub fn with_error(mut self, kind: ErrorKind, message: impl Into<String>) -> Self {
        self.error = Some(FlowError {
            kind,
            message: message.into(),
        });
        self
    }

    /// Total duration in milliseconds, when the flow has ended.
    pub fn duration_ms(&self) -> Option<f64> {
        self.ended.map(|end| end.millis_since(self.started))
    }

    /// The response status, if a response arrived.
    pub fn status(&self) -> Option<u16> {
        self.response.as_ref().map(|r| r.status)
    }
}

/// Serde adapter: bytes as a base64 string, so serialized flows stay compact text.
mod base64_bytes {
    use base64::Engine as _;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub(crate) fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(bytes))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(deserializer)?;
        STANDARD
            .decode(text.as_bytes())
            .map_err(serde::de::Error::custom)
    }
}

/// Which body of a flow a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BodySide {
    /// The request body.
    Request,
    /// The response body.
    Response,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_are_trimmed_like_str_trim() {
        for ct in [
            "application/json",
            " a ; charset=x",
            "",
            ";",
            "x\u{a0}",
            "\u{2003}y",
            "a\t",
            "\u{b}text/plain",
            "Text/HTML ",
        ] {
            let expected = ct.split(';').next().unwrap_or_default().trim();
            assert_eq!(media_type(ct), expected, "{ct:?}");
        }
    }

    #[test]
    fn durations_between_far_apart_timestamps_do_not_overflow() {
        let (first, last) = (Timestamp(i64::MIN), Timestamp(i64::MAX));
        assert!(last.millis_since(first) > 1.8e16);
        assert!(first.millis_since(last) < -1.8e16);
        assert_eq!(Timestamp(2_500).millis_since(Timestamp(1_000)), 1.5);
    }

    #[test]
    fn headers_match_case_insensitively_and_keep_order() {
        let mut headers = Headers::new();
        headers.push("Set-Cookie", "a=1");
        headers.push("content-type", "text/plain");
        headers.push("set-cookie", "b=2");
        assert_eq!(headers.get("SET-COOKIE"), Some("a=1"));
        assert_eq!(
            headers.get_all("set-cookie").collect::<Vec<_>>(),
            ["a=1", "b=2"]
        );
        assert_eq!(
            headers.iter().map(|h| h.name.as_str()).collect::<Vec<_>>(),
            ["Set-Cookie", "content-type", "set-cookie"]
        );
    }

    #[test]
    fn flow_round_trips_through_json_with_binary_body() {
        let mut request = Request::new("POST", "https://shop.test/upload", HttpVersion::Http2);
        request.body =
            Body::from_decoded(Some("application/octet-stream".into()), vec![0, 159, 255]);
        let flow = Flow::new(
            FlowId(7),
            Timestamp::from_unix_micros(5),
            Client::Agent,
            request,
        )
        .with_error(ErrorKind::Reset, "connection reset by peer");
        let json = serde_json::to_string(&flow).unwrap();
        let back: Flow = serde_json::from_str(&json).unwrap();
        assert_eq!(back, flow);
        assert!(json.contains("\"client\":\"agent\""));
    }

    #[test]
    fn semicolons_are_found_like_a_byte_search() {
        let base = b"application/vnd.api+json\xc3\xa9;x;y";
        for len in 0..=base.len() {
            for at in 0..=len {
                let mut bytes = base[..len].to_vec();
                if at < len {
                    bytes[at] = b';';
                }
                for b in [&bytes[..], &base[..len]] {
                    assert_eq!(
                        find_semicolon(b),
                        b.iter().position(|&c| c == b';'),
                        "{b:?}"
                    );
                }
            }
        }
        assert_eq!(find_semicolon(b";;;;;;;;;"), Some(0));
        assert_eq!(
            find_semicolon(b"\xbb\xbb\xbb\xbb\xbb\xbb\xbb\xbb;"),
            Some(8)
        );
    }

    #[test]
    fn media_type_drops_parameters_and_case() {
        let body = Body::from_decoded(Some("Application/JSON; charset=utf-8".into()), Vec::new());
        assert_eq!(body.media_type().as_deref(), Some("application/json"));
    }
}
