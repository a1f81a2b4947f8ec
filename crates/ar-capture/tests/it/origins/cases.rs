//! The matrix's cases: what each request is, what a client must see through
//! the proxy (what it sees without one: the same status, the headers that
//! matter, the same body, and a stream that still arrives in pieces), and
//! what the archived flow must hold (method, URL, status, the decoded body).
//! A case's expectations of the direct answer only check the setup, so that
//! no cell passes because the server did something else.

use ar_flow::{Direction, Flow, HttpVersion, WsOpcode};
use sha2::Digest as _;

use super::servers::{AFTER_DOC_MODIFIED, Kind, Server};
use crate::support::{json_doc, json_string};

/// One feature a cell exercises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Case {
    Hello,
    Host,
    Gzip,
    Brotli,
    Zstd,
    Chunked,
    Upload,
    Head,
    NoContent,
    NotModified,
    Moved,
    Found,
    BigHeader,
    Events,
    WebSocket,
}

pub(crate) const CASES: [Case; 15] = [
    Case::Hello,
    Case::Host,
    Case::Gzip,
    Case::Brotli,
    Case::Zstd,
    Case::Chunked,
    Case::Upload,
    Case::Head,
    Case::NoContent,
    Case::NotModified,
    Case::Moved,
    Case::Found,
    Case::BigHeader,
    Case::Events,
    Case::WebSocket,
];

/// The body the upload case sends: 1 MiB of the alphabet, over and over
/// (the clients make the same bytes).
pub(crate) const UPLOAD_LEN: usize = 1 << 20;
pub(crate) fn upload_body() -> Vec<u8> {
    b"abcdefghijklmnopqrstuvwxyz"
        .iter()
        .copied()
        .cycle()
        .take(UPLOAD_LEN)
        .collect()
}

/// The value of the big-header case's `X-Big`: 16 KiB.
fn big_header() -> String {
    "0123456789abcdef".repeat(1024)
}

/// What the backend's event stream sends, in two pieces 250 ms apart.
const EVENTS: &str = "data: first\n\ndata: second\n\n";
/// A stream arrived in pieces when its first and last bytes came at least
/// this far apart.
const PIECES_APART_MS: f64 = 150.0;

/// One request as the clients get it (as JSON).
#[derive(Clone, Debug)]
pub(crate) struct Request {
    /// Unique in a client's run: the server's port and the case.
    pub(crate) id: String,
    pub(crate) case: Case,
    pub(crate) port: u16,
    pub(crate) method: &'static str,
    pub(crate) url: String,
    /// The path and query of `url`.
    pub(crate) target: String,
    pub(crate) headers: Vec<(&'static str, String)>,
    /// Bytes of [`upload_body`] to send.
    pub(crate) upload: usize,
    /// A WebSocket: send [`Request::MESSAGE`], read the echo, close.
    pub(crate) websocket: bool,
}

impl Request {
    pub(crate) const MESSAGE: &'static str = "ping through the proxy";

    /// `requests` as a JSON array, for the scripts.
    pub(crate) fn json(requests: &[&Request]) -> String {
        let items: Vec<String> = requests
            .iter()
            .map(|r| {
                let headers: Vec<String> = r
                    .headers
                    .iter()
                    .map(|(n, v)| format!("[{},{}]", json_string(n), json_string(v)))
                    .collect();
                format!(
                    r#"{{"id":{},"method":"{}","url":{},"headers":[{}],"upload":{},"ws":{},"message":{}}}"#,
                    json_string(&r.id),
                    r.method,
                    json_string(&r.url),
                    headers.join(","),
                    r.upload,
                    r.websocket,
                    json_string(Self::MESSAGE)
                )
            })
            .collect();
        format!("[{}]", items.join(","))
    }
}

/// What a client saw of one answer.
#[derive(Clone, Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) status: u16,
    /// `HTTP/1.1`, `HTTP/2`, or `?` when the client does not tell.
    pub(crate) version: String,
    /// When the first body bytes arrived, in ms after the request began
    /// (negative: no body).
    pub(crate) first_ms: f64,
    pub(crate) end_ms: f64,
    /// Names lowercased.
    pub(crate) headers: Vec<(String, String)>,
    /// As the client delivers it: some decode content encodings, some do not.
    pub(crate) body: Vec<u8>,
}

impl Outcome {
    /// One line of a client's output (`client.py` describes it): the
    /// request's id, and what it saw or why it failed.
    pub(crate) fn parse(line: &str) -> (String, Result<Self, String>) {
        let fields: Vec<&str> = line.split(' ').collect();
        let id = fields[0].to_owned();
        let outcome = match fields[1..] {
            ["ERR", message] => Err(String::from_utf8_lossy(&unhex(message)).into_owned()),
            [status, version, first, end, headers, body] => Ok(Self {
                status: status.parse().unwrap_or(999),
                version: version.to_owned(),
                first_ms: first.parse().unwrap_or(-1.0),
                end_ms: end.parse().unwrap_or(-1.0),
                headers: String::from_utf8_lossy(&unhex(headers))
                    .lines()
                    .filter_map(|l| l.split_once(": "))
                    .map(|(n, v)| (n.to_ascii_lowercase(), v.to_owned()))
                    .collect(),
                body: unhex(body),
            }),
            _ => Err(format!("unreadable output line: {line}")),
        };
        (id, outcome)
    }

    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    fn arrived_in_pieces(&self) -> bool {
        self.first_ms >= 0.0 && self.end_ms - self.first_ms >= PIECES_APART_MS
    }
}

fn unhex(hex: &str) -> Vec<u8> {
    (0..hex.len() / 2)
        .filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok())
        .collect()
}

fn sha256_hex(bytes: &[u8]) -> String {
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The headers a client acts on, compared between the direct and the
/// proxied answer; `close` is a WebSocket's close code.
const HEADERS_THAT_MATTER: [&str; 5] = [
    "content-type",
    "content-encoding",
    "content-length",
    "location",
    "close",
];

/// What a client can do, as the cases need to know it.
#[derive(Clone, Debug)]
pub(crate) struct ClientTraits {
    /// Sends the `Accept-Encoding` a case asks for (a browser sends its own).
    pub(crate) sets_accept_encoding: bool,
    /// Shows a redirect's status and `Location` (a browser's fetch shows an
    /// unfollowed redirect as status 0).
    pub(crate) sees_redirects: bool,
    /// Closes its WebSockets itself. Python's websockets client does not:
    /// when it closed, nginx dropped its backend's Close frame about once in
    /// 15 runs, with or without the proxy, so the server closes first.
    pub(crate) closes_websockets: bool,
    /// The protocol the proxy records for this client.
    pub(crate) version: HttpVersion,
}

impl Case {
    /// Its column in the printed matrix.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Hello => "hello",
            Self::Host => "host",
            Self::Gzip => "gzip",
            Self::Brotli => "br",
            Self::Zstd => "zstd",
            Self::Chunked => "chunked",
            Self::Upload => "upload",
            Self::Head => "HEAD",
            Self::NoContent => "204",
            Self::NotModified => "304",
            Self::Moved => "301",
            Self::Found => "302",
            Self::BigHeader => "16k-hdr",
            Self::Events => "sse",
            Self::WebSocket => "ws",
        }
    }

    /// Whether `server` can do this at all: only Apache compresses with
    /// brotli (mod_brotli) and only Caddy with zstd (`encode zstd`).
    pub(crate) fn served_by(self, server: Kind) -> bool {
        match self {
            Self::Brotli => matches!(server, Kind::Apache { .. }),
            Self::Zstd => server == Kind::Caddy,
            _ => true,
        }
    }

    fn path(self) -> &'static str {
        match self {
            Self::Hello => "/hello",
            Self::Host => "/host",
            Self::Gzip | Self::Brotli | Self::Zstd | Self::Head | Self::NotModified => {
                "/static/doc.json"
            }
            Self::Chunked => "/backend/chunked",
            Self::Upload => "/backend/upload",
            Self::NoContent => "/no-content",
            Self::Moved => "/moved",
            Self::Found => "/found",
            Self::BigHeader => "/big-header",
            Self::Events => "/backend/events",
            Self::WebSocket => "/backend/ws",
        }
    }

    fn status(self) -> u16 {
        match self {
            Self::NoContent => 204,
            Self::NotModified => 304,
            Self::Moved => 301,
            Self::Found => 302,
            Self::WebSocket => 101,
            _ => 200,
        }
    }

    fn encoding(self) -> Option<&'static str> {
        match self {
            Self::Gzip => Some("gzip"),
            Self::Brotli => Some("br"),
            Self::Zstd => Some("zstd"),
            _ => None,
        }
    }

    /// The request to `server`, tagged `?via=<client>&case=<case>` so that
    /// its flow is found among every client's.
    pub(crate) fn request(self, server: &Server, via: &str, client: &ClientTraits) -> Request {
        let mut target = format!("{}?via={via}&case={}", self.path(), self.name());
        if self == Self::WebSocket && !client.closes_websockets {
            target.push_str("&close=server");
        }
        let mut headers = Vec::new();
        if let Some(encoding) = self.encoding() {
            headers.push(("accept-encoding", encoding.to_owned()));
        }
        match self {
            Self::NotModified => headers.push(("if-modified-since", AFTER_DOC_MODIFIED.into())),
            Self::BigHeader => headers.push(("x-big", big_header())),
            Self::Upload => headers.push(("content-type", "application/octet-stream".into())),
            _ => {}
        }
        let url = match self {
            Self::WebSocket => format!("wss://shop.test:{}{target}", server.port),
            _ => server.url(&target),
        };
        Request {
            id: format!("{}-{}", server.port, self.name()),
            case: self,
            port: server.port,
            method: match self {
                Self::Head => "HEAD",
                Self::Upload => "POST",
                _ => "GET",
            },
            url,
            target,
            headers,
            upload: if self == Self::Upload { UPLOAD_LEN } else { 0 },
            websocket: self == Self::WebSocket,
        }
    }

    /// The decoded response body every client and the archive must end up
    /// with, when the case knows it (a redirect's page is the server's own).
    fn body(self, port: u16) -> Option<Vec<u8>> {
        Some(match self {
            Self::Hello => b"hello".to_vec(),
            Self::Host => format!("shop.test:{port}").into_bytes(),
            Self::Gzip | Self::Brotli | Self::Zstd => json_doc(),
            Self::Chunked => b"one,two,three".to_vec(),
            Self::Upload => format!("{} {UPLOAD_LEN}", sha256_hex(&upload_body())).into_bytes(),
            Self::Head | Self::NoContent | Self::NotModified => Vec::new(),
            Self::Moved | Self::Found => return None,
            Self::BigHeader => big_header().into_bytes(),
            Self::Events => EVENTS.as_bytes().to_vec(),
            Self::WebSocket => Request::MESSAGE.as_bytes().to_vec(),
        })
    }

    /// The setup works: the direct answer is what this case is about.
    pub(crate) fn check_direct(
        self,
        seen: &Outcome,
        port: u16,
        client: &ClientTraits,
    ) -> Result<(), String> {
        let redirect = matches!(self, Self::Moved | Self::Found);
        let status_ok = seen.status == self.status() || (redirect && !client.sees_redirects);
        if !status_ok {
            return Err(format!("direct: status {}", seen.status));
        }
        let encoding = seen.header("content-encoding");
        if client.sets_accept_encoding && self.encoding().is_some() && encoding != self.encoding() {
            return Err(format!("direct: content-encoding {encoding:?}"));
        }
        if let Some(body) = self.body(port)
            && encoding.is_none()
            && seen.body != body
        {
            return Err(format!("direct: body {}", preview(&seen.body)));
        }
        if redirect && client.sees_redirects && !seen.header("location").is_some_and(is_hello) {
            return Err(format!("direct: location {:?}", seen.header("location")));
        }
        if self == Self::WebSocket && seen.header("close").is_some_and(|code| code != "1000") {
            return Err(format!("direct: closed with {:?}", seen.header("close")));
        }
        if self == Self::Events && !seen.arrived_in_pieces() {
            return Err(format!("direct: the stream came at once: {seen:?}"));
        }
        Ok(())
    }

    /// A client cannot tell the proxied answer from the direct one. With
    /// `own_encodings`, the client chose what encodings to offer by itself,
    /// and did not offer the same to the proxy (browsers and undici offer
    /// `br` and `zstd` over HTTPS only): the encoding and length may differ.
    pub(crate) fn compare(
        direct: &Outcome,
        proxied: &Outcome,
        own_encodings: bool,
    ) -> Result<(), String> {
        if direct.status != proxied.status {
            return Err(format!(
                "status {} through the proxy, {} direct",
                proxied.status, direct.status
            ));
        }
        let negotiated = ["content-encoding", "content-length"];
        for name in HEADERS_THAT_MATTER {
            if own_encodings && negotiated.contains(&name) {
                continue;
            }
            let (d, p) = (direct.header(name), proxied.header(name));
            if d != p {
                return Err(format!("{name} {p:?} through the proxy, {d:?} direct"));
            }
        }
        if direct.body != proxied.body {
            return Err(format!(
                "body {} through the proxy, {} direct",
                preview(&proxied.body),
                preview(&direct.body)
            ));
        }
        if direct.arrived_in_pieces() && !proxied.arrived_in_pieces() {
            return Err(format!(
                "the body came at once through the proxy (first byte at {} ms, last at {} ms)",
                proxied.first_ms, proxied.end_ms
            ));
        }
        Ok(())
    }

    /// The archived flow of `request` is what went over the wire.
    pub(crate) fn check_flow(
        self,
        flow: &Flow,
        request: &Request,
        seen: &Outcome,
        client: &ClientTraits,
    ) -> Result<(), String> {
        let url_tail = format!("shop.test:{}{}", request.port, request.target);
        // A WebSocket over HTTP/2 is a CONNECT (RFC 8441), and archived so.
        let method = match (self, &client.version) {
            (Self::WebSocket, HttpVersion::Http2) => "CONNECT",
            _ => request.method,
        };
        if flow.request.method != method || !flow.request.url.ends_with(&url_tail) {
            return Err(format!(
                "archived {} {}",
                flow.request.method, flow.request.url
            ));
        }
        if flow.request.http_version != client.version {
            return Err(format!(
                "archived as {:?} from the client",
                flow.request.http_version
            ));
        }
        if let Some(error) = &flow.error {
            return Err(format!("archived error: {error:?}"));
        }
        let Some(response) = &flow.response else {
            return Err("archived without a response".into());
        };
        if response.status != self.status() {
            return Err(format!("archived status {}", response.status));
        }
        if request.websocket {
            return flow
                .websocket
                .as_ref()
                .ok_or_else(|| "archived without WebSocket frames".to_owned())
                .and_then(check_frames);
        }
        let seen_encoding = seen.header("content-encoding");
        if response.body.encoding.as_deref() != seen_encoding {
            return Err(format!(
                "archived encoding {:?}, the client saw {seen_encoding:?}",
                response.body.encoding
            ));
        }
        if let Some(decode) = &response.body.decode_error {
            return Err(format!("archived body not decoded: {decode}"));
        }
        let body = &response.body.bytes;
        let expected = match self.body(request.port) {
            Some(expected) => Some(expected),
            None if seen_encoding.is_none() && seen.status != 0 => Some(seen.body.clone()),
            None => None,
        };
        if let Some(expected) = expected
            && (*body != expected || response.body.truncated)
        {
            return Err(format!(
                "archived body {}, expected {}",
                preview(body),
                preview(&expected)
            ));
        }
        let location = response.headers.get("location");
        if matches!(self, Self::Moved | Self::Found)
            && (!location.is_some_and(is_hello)
                || (client.sees_redirects && location != seen.header("location")))
        {
            return Err(format!("archived location {location:?}"));
        }
        match self {
            Self::Upload if flow.request.body.bytes != upload_body() => Err(format!(
                "archived upload of {} bytes (size {}, truncated {})",
                flow.request.body.bytes.len(),
                flow.request.body.size,
                flow.request.body.truncated
            )),
            Self::BigHeader if flow.request.headers.get("x-big") != Some(big_header().as_str()) => {
                Err("archived without the whole X-Big".into())
            }
            _ => Ok(()),
        }
    }
}

/// A redirect's `Location`: `/hello`, relative or absolute, with or without
/// the query (Apache keeps it).
fn is_hello(location: &str) -> bool {
    location
        .split('?')
        .next()
        .is_some_and(|l| l.ends_with("/hello"))
}

/// The message went out and came back, as text frames.
fn check_frames(log: &ar_flow::WebSocketLog) -> Result<(), String> {
    let sent = |direction| {
        log.frames.iter().any(|f| {
            f.direction == direction
                && f.opcode == WsOpcode::Text
                && f.payload == Request::MESSAGE.as_bytes()
        })
    };
    if sent(Direction::ClientToServer) && sent(Direction::ServerToClient) {
        Ok(())
    } else {
        Err(format!("archived frames {:?}", log.frames))
    }
}

/// The start of `body`, for messages.
pub(crate) fn preview(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(&body[..body.len().min(80)]).into_owned();
    format!("{text:?} ({} bytes)", body.len())
}
