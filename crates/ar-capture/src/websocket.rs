//! WebSocket upgrades: the handshake is relayed on a dedicated HTTP/1.1
//! origin connection, then bytes flow both ways untouched while a frame
//! parser per direction records frames (payloads unmasked and capped).
//! Clients on HTTP/1.1 upgrade with `Upgrade: websocket`; clients on an h2
//! connection (browsers, when the site negotiated h2) use RFC 8441's
//! extended CONNECT, which is turned into the HTTP/1.1 handshake upstream.
//!
//! `Sec-WebSocket-Extensions` is not forwarded, so no compression is
//! negotiated and recorded payloads are readable; both ends still speak
//! plain RFC 6455.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use ar_flow::{Body, Direction, ErrorKind, Flow, WebSocketFrame, WebSocketLog, WsOpcode};
use bytes::Bytes;
use http::{Request, Response, StatusCode, Uri, header};
use http_body_util::{BodyExt as _, Empty, Full, Limited};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::sync::Notify;

use crate::forward::Started;
use crate::proxy::{ProxyBody, Shared};
use crate::record::{self, BodyMeta};
use crate::relay::{Observer, relay};
use crate::tap::{TapEnd, Tapped};
use crate::upstream::classify_hyper;

/// A WebSocket handshake from an HTTP/1.1 client (`Upgrade: websocket`).
pub(crate) async fn handle(
    shared: Arc<Shared>,
    mut req: Request<Incoming>,
    uri: Uri,
    started: Started,
) -> Response<ProxyBody> {
    let client_upgrade = hyper::upgrade::on(&mut req);
    let (mut parts, _body) = req.into_parts();
    record::strip_hop_by_hop(&mut parts.headers, true);
    relay_handshake(shared, parts, uri, started, client_upgrade, false).await
}

/// A WebSocket opened by an HTTP/2 client with an extended CONNECT (RFC 8441),
/// as browsers do on an h2 connection. The origin gets the HTTP/1.1 form of
/// the handshake (a GET with `Upgrade: websocket` and a fresh
/// `Sec-WebSocket-Key`), since any WebSocket server speaks that; the client
/// gets the h2 form of the answer (`200`, no `Sec-WebSocket-Accept`). The
/// frames are the same RFC 6455 frames on both sides, relayed untouched.
pub(crate) async fn handle_h2(
    shared: Arc<Shared>,
    mut req: Request<Incoming>,
    uri: Uri,
    started: Started,
) -> Response<ProxyBody> {
    let client_upgrade = hyper::upgrade::on(&mut req);
    let (mut parts, _body) = req.into_parts();
    record::strip_hop_by_hop(&mut parts.headers, false);
    parts.method = http::Method::GET;
    parts.extensions = http::Extensions::new();
    parts.headers.insert(
        header::CONNECTION,
        http::HeaderValue::from_static("upgrade"),
    );
    parts
        .headers
        .insert(header::UPGRADE, http::HeaderValue::from_static("websocket"));
    match websocket_key() {
        Some(key) => {
            parts.headers.insert(header::SEC_WEBSOCKET_KEY, key);
        }
        None => {
            let message = "no randomness for a WebSocket key".to_string();
            return started.fail(&shared, Body::empty(), ErrorKind::Other, message);
        }
    }
    relay_handshake(shared, parts, uri, started, client_upgrade, true).await
}

/// A fresh `Sec-WebSocket-Key`: 16 random bytes, base64 (RFC 6455 §4.1).
fn websocket_key() -> Option<http::HeaderValue> {
    use base64::Engine as _;
    let mut nonce = [0u8; 16];
    rustls::crypto::ring::default_provider()
        .secure_random
        .fill(&mut nonce)
        .ok()?;
    let key = base64::engine::general_purpose::STANDARD.encode(nonce);
    http::HeaderValue::from_str(&key).ok()
}

/// The origin's `101` headers as an h2 client may see them: no
/// connection-specific headers and no `Sec-WebSocket-Accept` (RFC 8441 §5).
fn h2_accept_headers(upstream: &http::HeaderMap) -> http::HeaderMap {
    let mut headers = upstream.clone();
    record::strip_hop_by_hop(&mut headers, false);
    headers.remove(header::SEC_WEBSOCKET_ACCEPT);
    headers.remove(header::CONTENT_LENGTH);
    headers
}

/// Relays a handshake (already in HTTP/1.1 form in `parts`) to the origin
/// on a dedicated connection, answers the client (`101`, or `200` for an h2
/// client), and relays the frames both ways once both sides have upgraded.
async fn relay_handshake(
    shared: Arc<Shared>,
    mut parts: http::request::Parts,
    uri: Uri,
    started: Started,
    client_upgrade: hyper::upgrade::OnUpgrade,
    h2_client: bool,
) -> Response<ProxyBody> {
    parts.headers.remove(header::SEC_WEBSOCKET_EXTENSIONS);
    if !parts.headers.contains_key(header::HOST)
        && let Some(authority) = uri.authority()
        && let Ok(value) = http::HeaderValue::from_str(authority.as_str())
    {
        parts.headers.insert(header::HOST, value);
    }
    let conn = match shared.dialer.open(&uri, true).await {
        Ok(conn) => conn,
        Err(error) => return started.fail_upstream(&shared, Body::empty(), error),
    };
    let server_addr = conn.info.addr;
    let origin = uri
        .authority()
        .map_or_else(String::new, ToString::to_string);
    let (mut sender, connection) = match hyper::client::conn::http1::handshake(conn).await {
        Ok(pair) => pair,
        Err(error) => {
            let error = classify_hyper(&error, &origin);
            return started.fail(&shared, Body::empty(), error.kind, error.message);
        }
    };
    tokio::spawn(async move {
        if let Err(error) = connection.with_upgrades().await {
            tracing::debug!(%error, "WebSocket origin connection ended with an error");
        }
    });
    parts.uri = uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .parse()
        .unwrap_or_default();
    parts.version = http::Version::HTTP_11;
    let upstream_req = Request::from_parts(
        parts,
        Empty::<Bytes>::new()
            .map_err(|never| match never {})
            .boxed_unsync(),
    );
    let mut response = match tokio::time::timeout(
        shared.opts.response_timeout,
        sender.send_request(upstream_req),
    )
    .await
    {
        Ok(Ok(response)) => response,
        Ok(Err(error)) => {
            let error = classify_hyper(&error, &origin);
            return started.fail(&shared, Body::empty(), error.kind, error.message);
        }
        Err(_) => {
            let message = format!(
                "no WebSocket handshake answer from {origin} within {:?}",
                shared.opts.response_timeout
            );
            return started.fail(&shared, Body::empty(), ErrorKind::Timeout, message);
        }
    };
    let mut recorded = ar_flow::Response::new(
        response.status().as_u16(),
        record::version(response.version()),
    );
    recorded.headers = record::headers(response.headers());
    if response.status() != StatusCode::SWITCHING_PROTOCOLS {
        return refused(shared, started, response, recorded, server_addr).await;
    }
    let server_upgrade = hyper::upgrade::on(&mut response);
    let (mut parts, _) = response.into_parts();
    if h2_client {
        parts.headers = h2_accept_headers(&parts.headers);
        parts.status = StatusCode::OK;
        parts.version = http::Version::HTTP_2;
    }
    let caps = (shared.opts.ws_frame_cap, shared.opts.ws_max_frames);
    tokio::spawn(async move {
        let (client_io, server_io) = tokio::join!(client_upgrade, server_upgrade);
        let mut flow = Flow::new(started.id, started.at, started.client, started.request)
            .with_response(recorded);
        flow.server_addr = Some(server_addr.to_string());
        let (client_io, server_io) = match (client_io, server_io) {
            (Ok(c), Ok(s)) => (c, s),
            (Err(e), _) | (_, Err(e)) => {
                flow.ended = Some(record::now());
                shared.sinks.emit(flow.with_error(
                    ErrorKind::Protocol,
                    format!("WebSocket upgrade did not complete: {e}"),
                ));
                return;
            }
        };
        let recorder = Arc::new(Mutex::new(Recorder {
            log: WebSocketLog::default(),
            max_frames: caps.1,
        }));
        let (mut up, mut down) = FrameParser::pair(&recorder, caps.0);
        let end = relay(
            TokioIo::new(client_io),
            TokioIo::new(server_io),
            &mut up,
            &mut down,
        )
        .await;
        let (client_error, server_error) = (
            after_close(end.client_error, up.closed),
            after_close(end.server_error, down.closed),
        );
        drop((up, down));
        flow.websocket = Some(std::mem::take(&mut lock(&recorder).log));
        flow.ended = Some(record::now());
        if let Some(error) = client_error {
            flow = flow.with_error(
                ErrorKind::ClientAborted,
                format!("the client's WebSocket connection failed: {error}"),
            );
        } else if let Some(error) = server_error {
            flow = flow.with_error(
                ErrorKind::Reset,
                format!("the origin's WebSocket connection failed: {error}"),
            );
        }
        shared.sinks.emit(flow);
    });
    Response::from_parts(
        parts,
        Empty::new().map_err(|never| match never {}).boxed_unsync(),
    )
}

/// A side's connection error, unless that side had sent its Close frame:
/// after it, an endpoint sends nothing more (RFC 6455 §5.5.1), so how its
/// connection then ends loses nothing. Python's `ssl` and Apache close TCP
/// without TLS's close_notify, which rustls reports as an unexpected EOF.
fn after_close(error: Option<String>, closed: bool) -> Option<String> {
    error.filter(|_| !closed)
}

/// The origin answered the handshake with something other than 101: pass that answer on.
async fn refused(
    shared: Arc<Shared>,
    started: Started,
    response: Response<Incoming>,
    mut recorded: ar_flow::Response,
    server_addr: std::net::SocketAddr,
) -> Response<ProxyBody> {
    let (mut parts, body) = response.into_parts();
    let cap = shared.opts.limits.cap;
    let (bytes, end) = match Limited::new(body, cap).collect().await {
        Ok(collected) => (collected.to_bytes(), TapEnd::Complete),
        Err(error) => (Bytes::new(), TapEnd::Failed(error.to_string())),
    };
    let tapped = Tapped {
        raw: bytes.to_vec(),
        wire_size: bytes.len() as u64,
        end,
    };
    recorded.body = record::body(BodyMeta::of(&parts.headers), tapped, shared.opts.limits);
    let mut flow =
        Flow::new(started.id, started.at, started.client, started.request).with_response(recorded);
    flow.server_addr = Some(server_addr.to_string());
    flow.ended = Some(record::now());
    shared.sinks.emit(flow);
    record::strip_hop_by_hop(&mut parts.headers, false);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(
        parts,
        Full::new(bytes)
            .map_err(|never| match never {})
            .boxed_unsync(),
    )
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Frames of one connection, both directions, in the order they completed.
struct Recorder {
    log: WebSocketLog,
    max_frames: usize,
}

/// How long a client's end, after its Close frame, waits for the origin's
/// Close before it reaches the origin.
const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// An incremental RFC 6455 frame parser for one direction; it never
/// changes the bytes, it only watches them.
struct FrameParser {
    direction: Direction,
    recorder: Arc<Mutex<Recorder>>,
    payload_cap: usize,
    header: Vec<u8>,
    payload: Option<PayloadState>,
    /// This side sent a whole Close frame.
    closed: bool,
    /// Told when the origin's Close frame has come (shared by both
    /// directions' parsers).
    origin_closed: Arc<Notify>,
}

struct PayloadState {
    opcode: u8,
    mask: Option<[u8; 4]>,
    remaining: u64,
    offset: u64,
    bytes: Vec<u8>,
    truncated: bool,
}

impl FrameParser {
    fn new(
        direction: Direction,
        recorder: Arc<Mutex<Recorder>>,
        payload_cap: usize,
        origin_closed: Arc<Notify>,
    ) -> Self {
        Self {
            direction,
            recorder,
            payload_cap,
            header: Vec::with_capacity(14),
            payload: None,
            closed: false,
            origin_closed,
        }
    }

    /// The parsers of one connection: client to server, server to client.
    fn pair(recorder: &Arc<Mutex<Recorder>>, payload_cap: usize) -> (Self, Self) {
        let origin_closed = Arc::new(Notify::new());
        let parser = |direction| {
            let (recorder, closed) = (Arc::clone(recorder), Arc::clone(&origin_closed));
            Self::new(direction, recorder, payload_cap, closed)
        };
        (
            parser(Direction::ClientToServer),
            parser(Direction::ServerToClient),
        )
    }

    /// Total header length once the first two bytes are known.
    fn header_len(&self) -> Option<usize> {
        let second = *self.header.get(1)?;
        let ext = match second & 0x7f {
            126 => 2,
            127 => 8,
            _ => 0,
        };
        Some(2 + ext + if second & 0x80 != 0 { 4 } else { 0 })
    }

    fn start_payload(&mut self) {
        let h = &self.header;
        let masked = h[1] & 0x80 != 0;
        let (len, mut at) = match h[1] & 0x7f {
            126 => (u64::from(u16::from_be_bytes([h[2], h[3]])), 4),
            127 => (
                u64::from_be_bytes(h[2..10].try_into().unwrap_or([0; 8])),
                10,
            ),
            n => (u64::from(n), 2),
        };
        let mask = masked.then(|| {
            let key = [h[at], h[at + 1], h[at + 2], h[at + 3]];
            at += 4;
            key
        });
        let _ = at;
        self.payload = Some(PayloadState {
            opcode: h[0] & 0x0f,
            mask,
            remaining: len,
            offset: 0,
            bytes: Vec::new(),
            truncated: false,
        });
        self.header.clear();
        if len == 0 {
            self.finish_frame();
        }
    }

    fn finish_frame(&mut self) {
        let Some(state) = self.payload.take() else {
            return;
        };
        let opcode = match state.opcode {
            0 => WsOpcode::Continuation,
            1 => WsOpcode::Text,
            2 => WsOpcode::Binary,
            8 => {
                self.closed = true;
                if self.direction == Direction::ServerToClient {
                    self.origin_closed.notify_one();
                }
                WsOpcode::Close
            }
            9 => WsOpcode::Ping,
            10 => WsOpcode::Pong,
            _ => {
                lock(&self.recorder).log.frames_dropped += 1;
                return;
            }
        };
        let frame = WebSocketFrame {
            direction: self.direction,
            at: record::now(),
            opcode,
            payload: state.bytes,
            truncated: state.truncated,
        };
        let mut recorder = lock(&self.recorder);
        if recorder.log.frames.len() < recorder.max_frames {
            recorder.log.frames.push(frame);
        } else {
            recorder.log.frames_dropped += 1;
        }
    }
}

impl Observer for FrameParser {
    /// A client that ends its side right after its Close frame (Chromium
    /// ends its HTTP/2 stream so) would, over HTTP/1.1, wait for the
    /// origin to close first (RFC 6455 §7.1.1). Passing its end on at once
    /// made nginx and Caddy drop the connection before their backend's
    /// Close came back, and the client saw 1006 instead of 1000. So the end
    /// waits for the origin's Close, for at most [`CLOSE_WAIT`].
    fn before_end(&mut self) -> Option<Pin<Box<dyn Future<Output = ()> + Send>>> {
        if self.direction != Direction::ClientToServer || !self.closed {
            return None;
        }
        let origin_closed = Arc::clone(&self.origin_closed);
        Some(Box::pin(async move {
            let _ = tokio::time::timeout(CLOSE_WAIT, origin_closed.notified()).await;
        }))
    }

    fn observe(&mut self, mut chunk: &[u8]) {
        while !chunk.is_empty() {
            if let Some(state) = &mut self.payload {
                let n = usize::try_from(state.remaining)
                    .unwrap_or(usize::MAX)
                    .min(chunk.len());
                let room = self.payload_cap.saturating_sub(state.bytes.len());
                let keep = n.min(room);
                for (i, byte) in chunk[..keep].iter().enumerate() {
                    let key = state
                        .mask
                        .map_or(0, |m| m[((state.offset + i as u64) % 4) as usize]);
                    state.bytes.push(byte ^ key);
                }
                if keep < n {
                    state.truncated = true;
                }
                state.offset += n as u64;
                state.remaining -= n as u64;
                chunk = &chunk[n..];
                if state.remaining == 0 {
                    self.finish_frame();
                }
                continue;
            }
            let want = self.header_len().unwrap_or(2);
            let take = (want - self.header.len()).min(chunk.len());
            self.header.extend_from_slice(&chunk[..take]);
            chunk = &chunk[take..];
            if self.header.len() >= 2 && self.header_len() == Some(self.header.len()) {
                self.start_payload();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(opcode: u8, payload: &[u8], mask: Option<[u8; 4]>) -> Vec<u8> {
        let mut out = vec![0x80 | opcode];
        let m = if mask.is_some() { 0x80 } else { 0 };
        match payload.len() {
            n if n < 126 => out.push(m | n as u8),
            n if n < 65536 => {
                out.push(m | 126);
                out.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                out.push(m | 127);
                out.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        if let Some(key) = mask {
            out.extend_from_slice(&key);
            out.extend(payload.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
        } else {
            out.extend_from_slice(payload);
        }
        out
    }

    fn parse_in_pieces(bytes: &[u8], piece: usize, cap: usize) -> WebSocketLog {
        let recorder = Arc::new(Mutex::new(Recorder {
            log: WebSocketLog::default(),
            max_frames: 10,
        }));
        let (mut parser, _) = FrameParser::pair(&recorder, cap);
        for chunk in bytes.chunks(piece) {
            parser.observe(chunk);
        }
        drop(parser);
        std::mem::take(&mut lock(&recorder).log)
    }

    #[test]
    fn frames_split_anywhere_are_reassembled_and_unmasked() {
        let mut stream = frame(1, b"hello", Some([1, 2, 3, 4]));
        stream.extend(frame(2, &vec![7u8; 300], None));
        stream.extend(frame(9, b"", None));
        stream.extend(frame(8, &[0x03, 0xe8], Some([9, 9, 9, 9])));
        for piece in [1, 2, 3, 7, 64, 4096] {
            let log = parse_in_pieces(&stream, piece, 1024);
            let ops: Vec<WsOpcode> = log.frames.iter().map(|f| f.opcode).collect();
            assert_eq!(
                ops,
                [
                    WsOpcode::Text,
                    WsOpcode::Binary,
                    WsOpcode::Ping,
                    WsOpcode::Close
                ],
                "piece {piece}"
            );
            assert_eq!(log.frames[0].payload, b"hello");
            assert_eq!(log.frames[1].payload.len(), 300);
            assert_eq!(log.frames[3].payload, [0x03, 0xe8]);
        }
    }

    #[test]
    fn an_unclean_end_after_a_close_frame_is_no_failure() {
        let recorder = Arc::new(Mutex::new(Recorder {
            log: WebSocketLog::default(),
            max_frames: 0,
        }));
        let (_, mut parser) = FrameParser::pair(&recorder, 100);
        parser.observe(&frame(1, b"bye", None));
        assert!(!parser.closed);
        let eof = || Some("peer closed connection without sending TLS close_notify".to_owned());
        assert!(after_close(eof(), parser.closed).is_some());
        // Counted even when the log is full.
        parser.observe(&frame(8, &[0x03, 0xe8], None));
        assert!(parser.closed);
        assert_eq!(after_close(eof(), parser.closed), None);
    }

    #[tokio::test]
    async fn a_clients_end_after_its_close_waits_for_the_origins_close() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let (client, client_near) = tokio::io::duplex(1024);
        let (server_near, server) = tokio::io::duplex(1024);
        tokio::spawn(async move {
            let recorder = Arc::new(Mutex::new(Recorder {
                log: WebSocketLog::default(),
                max_frames: 10,
            }));
            let (mut up, mut down) = FrameParser::pair(&recorder, 100);
            relay(client_near, server_near, &mut up, &mut down).await
        });
        let (mut client_read, mut client_write) = tokio::io::split(client);
        let (mut server_read, mut server_write) = tokio::io::split(server);
        let close = frame(8, &[0x03, 0xe8], Some([1, 2, 3, 4]));
        client_write.write_all(&close).await.unwrap();
        client_write.shutdown().await.unwrap();
        let mut got = vec![0u8; close.len()];
        server_read.read_exact(&mut got).await.unwrap();
        let mut more = [0u8; 1];
        let early = tokio::time::timeout(
            std::time::Duration::from_millis(200),
            server_read.read(&mut more),
        );
        assert!(early.await.is_err(), "the client's end waits");
        let reply = frame(8, &[0x03, 0xe8], None);
        server_write.write_all(&reply).await.unwrap();
        let end = tokio::time::timeout(CLOSE_WAIT / 2, server_read.read(&mut more));
        assert_eq!(end.await.expect("ends once the origin closed").unwrap(), 0);
        let mut back = vec![0u8; reply.len()];
        client_read.read_exact(&mut back).await.unwrap();
        assert_eq!(back, reply);
    }

    #[test]
    fn payloads_are_capped_and_frames_beyond_the_limit_counted() {
        let big = frame(2, &vec![1u8; 70_000], Some([5, 6, 7, 8]));
        let log = parse_in_pieces(&big, 1000, 100);
        assert_eq!(log.frames[0].payload, vec![1u8; 100]);
        assert!(log.frames[0].truncated);
        let many: Vec<u8> = (0..15).flat_map(|_| frame(1, b"x", None)).collect();
        let log = parse_in_pieces(&many, 5, 100);
        assert_eq!((log.frames.len(), log.frames_dropped), (10, 5));
    }
}
