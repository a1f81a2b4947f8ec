//! Forwarding one HTTP request to its origin and streaming the response
//! back, with both bodies tapped, and assembling the flow when it ends.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use ar_flow::{Body, Client, ErrorKind, Flow, FlowId, Timestamp};
use http::{HeaderValue, Request, Response, StatusCode, Uri, header};
use http_body::Body as _;
use http_body_util::BodyExt as _;
use hyper::body::Incoming;

use crate::pool::{Lease, SendError, Sent};
use crate::proxy::{ProxyBody, Shared};
use crate::record::{self, BodyMeta};
use crate::server::{Target, text_response};
use crate::tap::{TapBody, TapEnd, Tapped};
use crate::upstream::{RequestForm, UpstreamError, UpstreamInfo, classify_hyper, target_of};
use crate::websocket;

/// The part of a flow known when the request head arrives.
pub(crate) struct Started {
    pub(crate) id: FlowId,
    pub(crate) at: Timestamp,
    pub(crate) clock: Instant,
    pub(crate) client: Client,
    pub(crate) request: ar_flow::Request,
    pub(crate) meta: BodyMeta,
}

impl Started {
    pub(crate) fn new<B>(shared: &Shared, req: &Request<B>, url: String) -> Self {
        let mut request =
            ar_flow::Request::new(req.method().as_str(), url, record::version(req.version()));
        request.headers = record::headers(req.headers());
        let replay = req.headers().contains_key(crate::REPLAY_HEADER);
        if replay {
            (request.headers.0).retain(|h| !h.name.eq_ignore_ascii_case(crate::REPLAY_HEADER));
        }
        Self {
            id: shared.next_id(),
            at: record::now(),
            clock: Instant::now(),
            client: if replay {
                Client::Replay
            } else {
                shared.client()
            },
            request,
            meta: BodyMeta::of(req.headers()),
        }
    }

    /// The tunnel a client asked for without an HTTP request (SOCKS5's
    /// `CONNECT`), recorded as the `CONNECT` of `host:port` an HTTP client sends.
    pub(crate) fn tunnel(shared: &Shared, host: &str, port: u16) -> Self {
        let url = format!("https://{}/", target_of(host, port));
        Self {
            id: shared.next_id(),
            at: record::now(),
            clock: Instant::now(),
            client: shared.client(),
            request: ar_flow::Request::new("CONNECT", url, ar_flow::HttpVersion::Http11),
            meta: BodyMeta::default(),
        }
    }

    /// Records a failed exchange and builds the 502 the client gets.
    pub(crate) fn fail(
        self,
        shared: &Shared,
        request_body: Body,
        kind: ErrorKind,
        message: String,
    ) -> Response<ProxyBody> {
        self.fail_upstream(shared, request_body, UpstreamError::new(kind, message))
    }

    /// Records an exchange the origin could not be reached for, and builds
    /// the answer the client gets (a 502, or the upstream proxy's 407).
    pub(crate) fn fail_upstream(
        self,
        shared: &Shared,
        request_body: Body,
        error: UpstreamError,
    ) -> Response<ProxyBody> {
        let response = error_response(error.status, error.kind, &error.message);
        self.record_error(shared, request_body, error.kind, error.message);
        response
    }

    /// Records an exchange that failed, or that the proxy refused, as an error flow.
    pub(crate) fn record_error(
        self,
        shared: &Shared,
        request_body: Body,
        kind: ErrorKind,
        message: String,
    ) {
        let mut flow =
            Flow::new(self.id, self.at, self.client, self.request).with_error(kind, message);
        flow.request.body = request_body;
        flow.ended = Some(record::now());
        shared.sinks.emit(flow);
    }
}

/// What a client gets when the proxy could not complete its request: a 502
/// (or the upstream proxy's 407) saying why.
fn error_response(status: StatusCode, kind: ErrorKind, message: &str) -> Response<ProxyBody> {
    let mut response = text_response(status, &format!("ar proxy: {message}\n"));
    let kind = serde_kind(kind);
    response
        .headers_mut()
        .insert("x-ar-proxy-error", HeaderValue::from_static(kind));
    response
}

fn serde_kind(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Dns => "dns",
        ErrorKind::Connect => "connect",
        ErrorKind::Tls => "tls",
        ErrorKind::Timeout => "timeout",
        ErrorKind::Reset => "reset",
        ErrorKind::ClientAborted => "client_aborted",
        ErrorKind::Protocol => "protocol",
        ErrorKind::Refused => "refused",
        _ => "other",
    }
}

pub(crate) async fn handle(
    shared: Arc<Shared>,
    req: Request<Incoming>,
    target: Target,
) -> Response<ProxyBody> {
    let uri = match target.absolute(req.uri()) {
        Ok(uri) => uri,
        Err(message) => {
            return text_response(StatusCode::BAD_REQUEST, &format!("ar proxy: {message}\n"));
        }
    };
    let started = Started::new(&shared, &req, record::url_text(&uri));
    if shared.lock.refuses(req.method(), &uri) {
        return crate::lock::refuse(shared, req, started).await;
    }
    if req.version() <= http::Version::HTTP_11 && record::is_upgrade(req.headers()) {
        // Boxed here and below: rare, and as large as the rest of a request's future.
        return Box::pin(websocket::handle(shared, req, uri, started)).await;
    }
    if record::is_h2_websocket(&req) {
        return Box::pin(websocket::handle_h2(shared, req, uri, started)).await;
    }
    let (mut parts, body) = req.into_parts();
    let cap = shared.opts.limits.cap;
    let (request_tap, body) = RequestTap::new(body, cap);
    record::strip_hop_by_hop(&mut parts.headers, false);
    parts.headers.remove(header::EXPECT); // answered to the client by hyper already
    parts.headers.remove(crate::REPLAY_HEADER); // the proxy's, not the origin's
    parts.uri = uri;
    parts.version = http::Version::HTTP_11;
    let upstream_req = Request::from_parts(parts, body);
    let sent = Instant::now();
    let result =
        tokio::time::timeout(shared.opts.response_timeout, shared.pool.send(upstream_req)).await;
    let Sent {
        response,
        info,
        lease,
    } = match result {
        Ok(Ok(sent)) => sent,
        Ok(Err(error)) => {
            let error = match error {
                SendError::Dial(error) => error,
                SendError::Http(error) => {
                    classify_hyper(&error, &authority_of(&started.request.url))
                }
            };
            let body = request_body(started.meta.clone(), request_tap.take(), &shared);
            return started.fail_upstream(&shared, body, error);
        }
        Err(_) => {
            let body = request_body(started.meta.clone(), request_tap.take(), &shared);
            let message = format!(
                "no response from {} within {:?}",
                authority_of(&started.request.url),
                shared.opts.response_timeout
            );
            return started.fail(&shared, body, ErrorKind::Timeout, message);
        }
    };
    if response.status() == StatusCode::PROXY_AUTHENTICATION_REQUIRED
        && let RequestForm::Absolute(_) = info.form
        && let Some(proxy) = &shared.dialer.upstream_proxy
    {
        // The upstream proxy's answer, not the origin's: no flow of the API.
        let error = proxy.refused(&authority_of(&started.request.url));
        let body = request_body(started.meta.clone(), request_tap.take(), &shared);
        return started.fail_upstream(&shared, body, error);
    }
    let (mut parts, body) = response.into_parts();
    let mut recorded =
        ar_flow::Response::new(parts.status.as_u16(), record::version(parts.version));
    recorded.reason = parts
        .extensions
        .get::<hyper::ext::ReasonPhrase>()
        .map(|r| String::from_utf8_lossy(r.as_bytes()).into_owned())
        .unwrap_or_default();
    recorded.headers = record::headers(&parts.headers);
    let pending = Pending {
        meta: BodyMeta::of(&parts.headers),
        info,
        lease,
        shared: Arc::clone(&shared),
        started,
        request_tap,
        response: recorded,
        sent,
        head: Instant::now(),
    };
    record::strip_hop_by_hop(&mut parts.headers, false);
    parts.version = http::Version::HTTP_11;
    let tap = TapBody::new(body, cap, move |tapped| pending.complete(tapped));
    Response::from_parts(parts, tap.map_err(Into::into).boxed_unsync())
}

/// Where the request body's tap leaves what it saw.
pub(crate) enum RequestTap {
    /// The request had no body (GET, HEAD, ...): nothing to tap or wait for.
    Empty,
    /// Filled in when the body has been relayed, failed or was dropped.
    Slot(Arc<Mutex<Option<Tapped>>>),
}

impl RequestTap {
    /// Taps `body` for upstream. A body that is empty from the start is not
    /// wrapped at all: most requests have none, and this spares each of them
    /// a shared slot, a boxed callback and a boxed body.
    pub(crate) fn new(body: Incoming, cap: usize) -> (Self, ProxyBody) {
        if body.is_end_stream() {
            let empty = http_body_util::Empty::new()
                .map_err(Into::into)
                .boxed_unsync();
            return (Self::Empty, empty);
        }
        let slot = Arc::new(Mutex::new(None));
        let writer = Arc::clone(&slot);
        let tap = TapBody::new(body, cap, move |tapped| *lock(&writer) = Some(tapped));
        (Self::Slot(slot), tap.map_err(Into::into).boxed_unsync())
    }

    /// What the tap saw, once the body has ended (`None` while it is still being relayed).
    pub(crate) fn take(&self) -> Option<Tapped> {
        match self {
            Self::Empty => Some(Tapped::none()),
            Self::Slot(slot) => lock(slot).take(),
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn authority_of(url: &str) -> String {
    url.parse::<Uri>()
        .ok()
        .and_then(|u| u.authority().map(ToString::to_string))
        .unwrap_or_else(|| url.to_string())
}

/// The request body as far as it was relayed.
pub(crate) fn request_body(meta: BodyMeta, tapped: Option<Tapped>, shared: &Shared) -> Body {
    match tapped {
        Some(tapped) => record::body(meta, tapped, shared.opts.limits),
        // Still being relayed when the exchange ended: nothing complete to show.
        None => Body {
            truncated: true,
            ..record::body(meta, Tapped::none(), shared.opts.limits)
        },
    }
}

/// A response being streamed; becomes a flow when its body ends.
struct Pending {
    shared: Arc<Shared>,
    started: Started,
    request_tap: RequestTap,
    response: ar_flow::Response,
    meta: BodyMeta,
    info: UpstreamInfo,
    /// The upstream connection, given back to the pool if the exchange ended cleanly.
    lease: Lease,
    sent: Instant,
    head: Instant,
}

impl Pending {
    fn complete(self, tapped: Tapped) {
        // Decoding megabytes of gzip is CPU work: keep it off the I/O threads.
        if self.meta.is_heavy(&tapped)
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn_blocking(move || self.finish(tapped));
        } else {
            self.finish(tapped);
        }
    }

    fn finish(self, tapped: Tapped) {
        let Self {
            shared,
            started,
            request_tap,
            mut response,
            meta,
            info,
            lease,
            sent,
            head,
        } = self;
        let ended = Instant::now();
        let limits = shared.opts.limits;
        let Started {
            id,
            at,
            client,
            request,
            meta: request_meta,
            clock,
        } = started;
        let tap_end = tapped.end.clone();
        let wire_size = tapped.wire_size;
        response.body = record::body(meta, tapped, limits);
        let tapped_request = request_tap.take();
        let request_sent =
            (tapped_request.as_ref()).is_some_and(|t| matches!(t.end, TapEnd::Complete));
        let request_body = request_body(request_meta, tapped_request, &shared);
        let mut flow = Flow::new(id, at, client, request).with_response(response);
        flow.request.body = request_body;
        flow.ended = Some(record::now());
        flow.timings.wait = Some(record::millis(head - sent));
        flow.timings.receive = Some(record::millis(ended - head));
        flow.timings.send = Some(record::millis(sent - clock));
        flow.server_addr = Some(info.addr_text.to_string());
        if let Some((connect, ssl)) = info.setup_timings() {
            flow.timings.connect = Some(connect + ssl.unwrap_or(0.0)); // HAR: connect includes ssl
            flow.timings.ssl = ssl;
        }
        match tap_end {
            // Both messages went through whole: the connection can carry the next exchange.
            TapEnd::Complete if request_sent => shared.pool.give_back(lease, info),
            TapEnd::Complete => {}
            TapEnd::Failed(reason) => {
                flow = flow.with_error(
                    ErrorKind::Reset,
                    format!(
                        "the origin's response broke off after {wire_size} body bytes: {reason}"
                    ),
                );
            }
            TapEnd::Dropped => {
                flow = flow.with_error(
                    ErrorKind::ClientAborted,
                    format!("the client went away after {wire_size} response body bytes"),
                );
            }
        }
        shared.sinks.emit(flow);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn authority_is_taken_from_urls() {
        assert_eq!(authority_of("https://shop.test:8443/a?b"), "shop.test:8443");
        assert_eq!(authority_of("not a url"), "not a url");
    }

    #[test]
    fn bad_gateway_says_why_and_tags_the_kind() {
        let response = error_response(
            StatusCode::BAD_GATEWAY,
            ErrorKind::Tls,
            "TLS handshake with bad.test:443 failed: invalid peer certificate",
        );
        assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
        assert_eq!(response.headers()["x-ar-proxy-error"], "tls");
    }
}
