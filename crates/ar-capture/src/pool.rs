//! Keep-alive connections to origins, reused across requests and client
//! connections.
//!
//! hyper-util's pooled client did this before, at about 6k instructions a
//! request more than this pool: its key (scheme and authority) was SipHashed
//! byte by byte twice, every checkout raced a lazy connect, and a readiness
//! future was spawned to put each HTTP/1.1 connection back. Here a
//! connection is lent to one exchange and given back by the exchange itself
//! once its response was read to the end ([`Lease`]); HTTP/2 connections are
//! shared. Idle connections older than [`IDLE_TIMEOUT`] are closed by a
//! sweeper that runs only while some are idle, so an idle proxy is never woken.
//!
//! A page's first burst to a new origin sends many requests before any
//! connection to it is up, and whether the origin speaks HTTP/2 is known
//! only once one is. Each request dials; when one of them sets up an HTTP/2
//! connection, the others drop their dials and share it ([`Dialing`]), so
//! the origin sees one connection, as it would from a browser.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http::uri::Authority;
use http::{HeaderValue, Request, Response, Uri, header};
use http_body::Body as _;
use http_body_util::BodyExt as _;
use hyper::body::Incoming;
use hyper::client::conn::{http1, http2};
use hyper_util::rt::{TokioExecutor, TokioTimer};
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::proxy::ProxyBody;
use crate::server::MAX_HEADER_LIST_SIZE;
use crate::upstream::{Dialer, RequestForm, UpstreamError, UpstreamInfo};

/// An idle connection is closed after this long (origins time theirs out too).
pub(crate) const IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// Idle HTTP/1.1 connections kept per origin.
const MAX_IDLE_PER_ORIGIN: usize = 1024;

/// How often idle connections are looked at, so origins never asked again do
/// not keep sockets open.
const SWEEP_EVERY: Duration = Duration::from_secs(10);

/// An origin: `https` or not, and its authority (compared case-insensitively,
/// as `Authority` does).
#[derive(Clone, Eq)]
struct Key {
    https: bool,
    authority: Authority,
}

impl PartialEq for Key {
    /// Byte equality first (clients nearly always write an origin the same
    /// way), then `Authority`'s own case-insensitive comparison, which goes
    /// byte by byte.
    fn eq(&self, other: &Self) -> bool {
        self.https == other.https
            && (self.authority.as_str() == other.authority.as_str()
                || self.authority == other.authority)
    }
}

impl Hash for Key {
    /// The authority's bytes in one write (`Authority` itself hashes byte by
    /// byte), lowercased first only when a client wrote capitals.
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u8(u8::from(self.https));
        let text = self.authority.as_str();
        if text.bytes().any(|b| b.is_ascii_uppercase()) {
            state.write(text.to_ascii_lowercase().as_bytes());
        } else {
            state.write(text.as_bytes());
        }
    }
}

/// Connections to origins; one per proxy, shared by every client connection.
pub(crate) struct Pool {
    dialer: Arc<Dialer>,
    idle: Arc<Mutex<Idle>>,
}

#[derive(Default)]
struct Idle {
    origins: HashMap<Key, Origin, foldhash::fast::RandomState>,
    /// Origins some request is dialing, while it dials.
    dialing: HashMap<Key, Dialing, foldhash::fast::RandomState>,
    /// A sweeper task is scheduled.
    sweeping: bool,
}

/// Requests dialing one origin, and how they hear that an HTTP/2 connection
/// to it is up (then they share it instead of finishing their own dial).
struct Dialing {
    requests: usize,
    h2_up: Arc<Notify>,
}

/// One request's place among an origin's [`Dialing`] requests; the entry
/// goes when the last of them is done, whether it finished or was dropped.
struct DialTicket<'a> {
    idle: &'a Mutex<Idle>,
    key: &'a Key,
}

impl<'a> DialTicket<'a> {
    /// Joins `key`'s dialing requests; returns the ticket and the signal of an HTTP/2 connection.
    fn take(idle: &'a Mutex<Idle>, key: &'a Key) -> (Self, Arc<Notify>) {
        let mut guard = lock(idle);
        let dialing = guard.dialing.entry(key.clone()).or_insert_with(|| Dialing {
            requests: 0,
            h2_up: Arc::default(),
        });
        dialing.requests += 1;
        let h2_up = Arc::clone(&dialing.h2_up);
        (Self { idle, key }, h2_up)
    }
}

impl Drop for DialTicket<'_> {
    fn drop(&mut self) {
        let mut idle = lock(self.idle);
        if let Some(dialing) = idle.dialing.get_mut(self.key) {
            dialing.requests -= 1;
            if dialing.requests == 0 {
                idle.dialing.remove(self.key);
            }
        }
    }
}

/// What is kept for one origin.
#[derive(Default)]
struct Origin {
    /// HTTP/1.1 connections whose last exchange was read to the end, oldest first.
    h1: Vec<IdleH1>,
    /// The HTTP/2 connection every request to this origin shares.
    h2: Option<SharedH2>,
}

impl Origin {
    /// The shared HTTP/2 connection for one more request, if it takes one
    /// (forgotten once it closed).
    fn share_h2(&mut self) -> Option<(Checked, UpstreamInfo)> {
        let shared = self.h2.as_mut()?;
        if shared.sender.is_ready() {
            shared.since = Instant::now();
            return Some((Checked::H2(shared.sender.clone()), shared.info.clone()));
        }
        if shared.sender.is_closed() {
            self.h2 = None;
        }
        None
    }
}

struct SharedH2 {
    /// When a request last started on it.
    since: Instant,
    sender: http2::SendRequest<ProxyBody>,
    info: UpstreamInfo,
}

struct IdleH1 {
    since: Instant,
    sender: http1::SendRequest<ProxyBody>,
    info: UpstreamInfo,
}

/// A response from an origin, and what it came over.
pub(crate) struct Sent {
    pub(crate) response: Response<Incoming>,
    pub(crate) info: UpstreamInfo,
    /// Give back with [`Pool::give_back`] once the exchange ended cleanly.
    pub(crate) lease: Lease,
}

/// An HTTP/1.1 connection lent to one exchange (HTTP/2 ones are shared: nothing to give back).
pub(crate) struct Lease(Option<(Key, http1::SendRequest<ProxyBody>)>);

/// Why a request got no response.
pub(crate) enum SendError {
    /// The origin could not be reached.
    Dial(UpstreamError),
    /// The connection failed during the exchange.
    Http(hyper::Error),
}

/// A connection ready to carry one request.
enum Checked {
    H1(http1::SendRequest<ProxyBody>),
    H2(http2::SendRequest<ProxyBody>),
}

impl Pool {
    pub(crate) fn new(dialer: Arc<Dialer>) -> Self {
        Self {
            dialer,
            idle: Arc::default(),
        }
    }

    /// Sends `req` (absolute URI) to its origin over an idle connection or a
    /// new one. A request that an idle connection closed under before it was
    /// sent goes out again on another, and so does one without a body that an
    /// HTTP/2 origin refused unprocessed ([`unprocessed`]: nginx ends its
    /// connections after 1,000 requests so), up to [`MAX_REFUSED`] times.
    pub(crate) async fn send(&self, mut req: Request<ProxyBody>) -> Result<Sent, SendError> {
        let uri = req.uri().clone();
        let (Some(authority), https) =
            (uri.authority().cloned(), uri.scheme_str() == Some("https"))
        else {
            return Err(SendError::Dial(UpstreamError::new(
                ar_flow::ErrorKind::Protocol,
                format!("no host in {uri}"),
            )));
        };
        let key = Key { https, authority };
        let mut refused = 0;
        loop {
            let (conn, info, reused) = match self.take_idle(&key).await {
                Some((conn, info)) => (conn, info, true),
                // Boxed: dialing (DNS, TCP, TLS, HTTP/2 setup) is most of this
                // future's size, and every request would otherwise carry and move it.
                None => Box::pin(self.dial_or_share(&key, &uri)).await?,
            };
            // What sends a bodiless request again, should an HTTP/2 origin
            // refuse it unprocessed.
            let mut again = None;
            let (result, lease) = match conn {
                // HTTP/2 carries the origin in `:authority`; the URI stays absolute.
                Checked::H2(mut sender) => {
                    prepare_h2(&mut req);
                    if req.body().is_end_stream() && refused < MAX_REFUSED {
                        again = Some(head_of(&req, &uri));
                    }
                    (sender.try_send_request(req).await, Lease(None))
                }
                Checked::H1(mut sender) => {
                    prepare_h1(&mut req, &uri, &info.form);
                    let result = sender.try_send_request(req).await;
                    (result, Lease(Some((key.clone(), sender))))
                }
            };
            match result {
                Ok(response) => {
                    return Ok(Sent {
                        response,
                        info,
                        lease,
                    });
                }
                Err(mut error) => match error.take_message() {
                    // Never written: safe to send again on another connection.
                    Some(mut unsent) if reused => {
                        // Back to absolute form after HTTP/1.1's origin form.
                        if unsent.uri().authority().is_none() {
                            *unsent.uri_mut() = uri.clone();
                        }
                        req = unsent;
                    }
                    _ => {
                        let error = error.into_error();
                        match again {
                            Some(head) if unprocessed(&error) => {
                                refused += 1;
                                self.forget_h2(&key, &info);
                                req = head;
                            }
                            _ => return Err(SendError::Http(error)),
                        }
                    }
                },
            }
        }
    }

    /// Forgets `key`'s shared HTTP/2 connection if it is the one `info`
    /// came over: it is going away, and new requests need a new one.
    fn forget_h2(&self, key: &Key, info: &UpstreamInfo) {
        let mut idle = lock(&self.idle);
        if let Some(origin) = idle.origins.get_mut(key)
            && (origin.h2.as_ref()).is_some_and(|h2| h2.info.same_connection(info))
        {
            origin.h2 = None;
        }
    }

    /// Takes back a connection whose exchange was read to the end.
    pub(crate) fn give_back(&self, lease: Lease, info: UpstreamInfo) {
        let Some((key, sender)) = lease.0 else { return };
        if sender.is_closed() {
            return;
        }
        let mut idle = lock(&self.idle);
        let origin = idle.origins.entry(key).or_default();
        if origin.h1.len() < MAX_IDLE_PER_ORIGIN {
            origin.h1.push(IdleH1 {
                since: Instant::now(),
                sender,
                info,
            });
        }
        if !idle.sweeping {
            idle.sweeping = sweep_while_idle(Arc::clone(&self.idle));
        }
    }

    /// The most recently used idle connection to `key` that is still open and ready.
    async fn take_idle(&self, key: &Key) -> Option<(Checked, UpstreamInfo)> {
        loop {
            let candidate = {
                let mut idle = lock(&self.idle);
                let origin = idle.origins.get_mut(key)?;
                if let Some(shared) = origin.share_h2() {
                    return Some(shared);
                }
                origin.h1.pop()?
            };
            if !is_fresh(&candidate, Instant::now()) {
                continue;
            }
            let IdleH1 {
                mut sender, info, ..
            } = candidate;
            // Given back once its response was read: ready as soon as its
            // connection task has seen the end of that message.
            if sender.ready().await.is_ok() {
                return Some((Checked::H1(sender), info));
            }
        }
    }

    /// Dials `key`'s origin, unless another request sets up an HTTP/2
    /// connection to it meanwhile: then this dial is dropped and the request
    /// shares that one (`true`: a connection that was already in use).
    async fn dial_or_share(
        &self,
        key: &Key,
        uri: &Uri,
    ) -> Result<(Checked, UpstreamInfo, bool), SendError> {
        let (_ticket, h2_up) = DialTicket::take(&self.idle, key);
        let notified = h2_up.notified();
        tokio::pin!(notified);
        notified.as_mut().enable();
        // One may have come up since `take_idle` looked, before the signal was armed.
        if let Some((conn, info)) = self.shared_h2(key) {
            return Ok((conn, info, true));
        }
        tokio::select! {
            biased;
            () = &mut notified => {}
            dialed = self.connect(key, uri) => return dialed.map(|(conn, info)| (conn, info, false)),
        }
        match self.shared_h2(key) {
            Some((conn, info)) => Ok((conn, info, true)),
            // Gone again already (closed, or at its stream limit): dial after all.
            None => (self.connect(key, uri).await).map(|(conn, info)| (conn, info, false)),
        }
    }

    /// `key`'s shared HTTP/2 connection, if it is up and takes a request.
    fn shared_h2(&self, key: &Key) -> Option<(Checked, UpstreamInfo)> {
        lock(&self.idle).origins.get_mut(key)?.share_h2()
    }

    /// Dials `key`'s origin and starts hyper on the new connection.
    async fn connect(&self, key: &Key, uri: &Uri) -> Result<(Checked, UpstreamInfo), SendError> {
        let conn = self
            .dialer
            .open(uri, false)
            .await
            .map_err(SendError::Dial)?;
        let info = conn.info.clone();
        if conn.h2 {
            let (sender, connection) =
                h2_client().handshake(conn).await.map_err(SendError::Http)?;
            tokio::spawn(connection);
            let shared = SharedH2 {
                since: Instant::now(),
                sender: sender.clone(),
                info: info.clone(),
            };
            let mut idle = lock(&self.idle);
            idle.origins.entry(key.clone()).or_default().h2 = Some(shared);
            if let Some(dialing) = idle.dialing.get(key) {
                dialing.h2_up.notify_waiters();
            }
            if !idle.sweeping {
                idle.sweeping = sweep_while_idle(Arc::clone(&self.idle));
            }
            Ok((Checked::H2(sender), info))
        } else {
            let (sender, connection) = http1::handshake(conn).await.map_err(SendError::Http)?;
            tokio::spawn(connection);
            Ok((Checked::H1(sender), info))
        }
    }
}

/// Drops stale idle connections every [`SWEEP_EVERY`] until none is left.
/// Returns whether the sweeper runs (it needs a tokio runtime).
fn sweep_while_idle(idle: Arc<Mutex<Idle>>) -> bool {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return false;
    };
    runtime.spawn(async move {
        loop {
            tokio::time::sleep(SWEEP_EVERY).await;
            let mut idle = lock(&idle);
            let now = Instant::now();
            idle.origins.retain(|_, origin| {
                origin.h1.retain(|c| is_fresh(c, now));
                // Dropping the pool's handle ends the connection once its streams are done.
                if (origin.h2.as_ref())
                    .is_some_and(|h2| h2.sender.is_closed() || now - h2.since >= IDLE_TIMEOUT)
                {
                    origin.h2 = None;
                }
                origin.h2.is_some() || !origin.h1.is_empty()
            });
            if idle.origins.is_empty() {
                idle.sweeping = false;
                return;
            }
        }
    });
    true
}

fn is_fresh(conn: &IdleH1, now: Instant) -> bool {
    now.duration_since(conn.since) < IDLE_TIMEOUT && !conn.sender.is_closed()
}

/// HTTP/2 to an origin: the authority goes in `:authority` and nowhere
/// else (RFC 9113 §8.3.1; nginx answers a `Host` beside it with 400, "client
/// sent duplicate host header"). An HTTP/1.1 client's `Host` is how it named
/// the origin, so it becomes the URI's authority, which hyper sends as
/// `:authority`.
fn prepare_h2(req: &mut Request<ProxyBody>) {
    let Some(host) = req.headers_mut().remove(header::HOST) else {
        return;
    };
    let Some(authority) = host.to_str().ok().and_then(|h| h.parse::<Authority>().ok()) else {
        return;
    };
    let mut parts = req.uri().clone().into_parts();
    if parts.scheme.is_some() {
        parts.authority = Some(authority);
        if let Ok(uri) = Uri::from_parts(parts) {
            *req.uri_mut() = uri;
        }
    }
}

/// HTTP/1.1 to an origin: a `Host` header (HTTP/2 clients send `:authority`
/// instead), one `Cookie` line where an HTTP/2 client may send several
/// (RFC 9113 §8.2.3: joined with `; `), and the origin-form target
/// (`/path?query`); to an upstream proxy, the absolute-form target and its
/// `Proxy-Authorization` (added here, after the flow recorded the request).
fn prepare_h1(req: &mut Request<ProxyBody>, uri: &Uri, form: &RequestForm) {
    join_cookies(req.headers_mut());
    if !req.headers().contains_key(header::HOST)
        && let Some(authority) = uri.authority()
        && let Ok(value) = HeaderValue::from_str(host_header(uri, authority))
    {
        req.headers_mut().insert(header::HOST, value);
    }
    if let RequestForm::Absolute(authorization) = form {
        if let Some(authorization) = authorization {
            (req.headers_mut()).insert(header::PROXY_AUTHORIZATION, authorization.clone());
        }
        return;
    }
    let origin_form = uri
        .path_and_query()
        .map_or("/", http::uri::PathAndQuery::as_str);
    if let Ok(target) = origin_form.parse() {
        *req.uri_mut() = target;
    }
}

/// Several `Cookie` fields as the one HTTP/1.1 allows, in their order.
fn join_cookies(headers: &mut http::HeaderMap) {
    let mut cookies = headers.get_all(header::COOKIE).iter();
    if cookies.nth(1).is_none() {
        return;
    }
    let joined: Vec<&[u8]> = (headers.get_all(header::COOKIE).iter())
        .map(HeaderValue::as_bytes)
        .collect();
    if let Ok(value) = HeaderValue::from_bytes(&joined.join(&b"; "[..])) {
        headers.insert(header::COOKIE, value);
    }
}

/// The authority without the scheme's default port, as clients write `Host`.
fn host_header<'a>(uri: &Uri, authority: &'a Authority) -> &'a str {
    let default = match uri.scheme_str() {
        Some("https") => 443,
        _ => 80,
    };
    if authority.port_u16() == Some(default) {
        authority.host()
    } else {
        authority.as_str()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The HTTP/2 client for origins.
fn h2_client() -> http2::Builder<TokioExecutor> {
    let mut builder = http2::Builder::new(TokioExecutor::new());
    builder
        .timer(TokioTimer::new())
        .max_header_list_size(MAX_HEADER_LIST_SIZE);
    builder
}

/// How often one request is sent again after HTTP/2 origins refused it
/// unprocessed, each time on a new connection: a refused request is always
/// safe to send again, so this only stops an origin that refuses every
/// stream (requests racing for a connection nginx ends after a few may be
/// refused several times).
const MAX_REFUSED: u32 = 10;

fn empty() -> ProxyBody {
    http_body_util::Empty::new()
        .map_err(Into::into)
        .boxed_unsync()
}

/// A bodiless copy of `req`'s head, for sending it again (absolute `uri`).
fn head_of(req: &Request<ProxyBody>, uri: &Uri) -> Request<ProxyBody> {
    let mut again = Request::new(empty());
    *again.method_mut() = req.method().clone();
    *again.uri_mut() = uri.clone();
    *again.version_mut() = req.version();
    *again.headers_mut() = req.headers().clone();
    again
}

/// Whether an HTTP/2 origin refused the request before processing it: a
/// GOAWAY that did not cover its stream (a graceful close, `NO_ERROR`) or
/// `REFUSED_STREAM`. RFC 9113 §8.7: such a request may be sent again.
fn unprocessed(error: &hyper::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(h2) = cause.downcast_ref::<h2::Error>() {
            return match h2.reason() {
                Some(h2::Reason::NO_ERROR) => h2.is_go_away(),
                Some(h2::Reason::REFUSED_STREAM) => true,
                _ => false,
            };
        }
        source = cause.source();
    }
    false
}

#[cfg(test)]
mod tests {

    use super::*;

    #[tokio::test]
    async fn an_http2_origin_may_answer_with_a_header_as_big_as_browsers_take() {
        use hyper_util::rt::TokioIo;
        let (client_io, server_io) = tokio::io::duplex(1 << 20);
        let service = hyper::service::service_fn(|_req: Request<Incoming>| async {
            let response = Response::builder()
                .header("set-cookie", "a".repeat(64 * 1024))
                .body(http_body_util::Empty::<bytes::Bytes>::new());
            Ok::<_, http::Error>(response.unwrap())
        });
        let server = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
        tokio::spawn(server.serve_connection(TokioIo::new(server_io), service));
        let (mut sender, connection) = h2_client()
            .handshake(TokioIo::new(client_io))
            .await
            .unwrap();
        tokio::spawn(connection);
        let request = Request::get("https://shop.test/").body(empty()).unwrap();
        let response = sender.send_request(request).await.unwrap();
        assert_eq!(response.headers()["set-cookie"].len(), 64 * 1024);
    }

    #[tokio::test]
    async fn a_refused_stream_was_not_processed_a_cancelled_one_may_have_been() {
        use hyper_util::rt::TokioIo;
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        // Refuses `/refused` unprocessed (RFC 9113 §8.7) and cancels the rest.
        tokio::spawn(async move {
            let mut conn = h2::server::handshake(server_io).await.unwrap();
            while let Some(Ok((request, mut respond))) = conn.accept().await {
                let reason = match request.uri().path() {
                    "/refused" => h2::Reason::REFUSED_STREAM,
                    _ => h2::Reason::CANCEL,
                };
                respond.send_reset(reason);
            }
        });
        let (sender, connection) = h2_client()
            .handshake(TokioIo::new(client_io))
            .await
            .unwrap();
        tokio::spawn(connection);
        let send = |path: &'static str| {
            let mut sender = sender.clone();
            async move {
                let uri = format!("https://shop.test{path}");
                let request = Request::get(uri).body(empty()).unwrap();
                sender.send_request(request).await.map(|_| ())
            }
        };
        let refused = send("/refused").await.unwrap_err();
        assert!(unprocessed(&refused));
        assert!(!unprocessed(&send("/cancelled").await.unwrap_err()));
        // The flow's message names the cause, not only hyper's "http2 error".
        let recorded = crate::upstream::classify_hyper(&refused, "shop.test:443").message;
        assert!(recorded.contains("refused stream"), "{recorded}");
    }

    #[test]
    fn origins_get_a_host_header_and_an_origin_form_target() {
        for (url, host) in [
            ("https://shop.test/api/items?page=2", "shop.test"),
            ("https://shop.test:443/api/items?page=2", "shop.test"),
            ("http://shop.test:8080/api/items?page=2", "shop.test:8080"),
            ("http://[::1]:80/api/items?page=2", "[::1]"),
        ] {
            let uri: Uri = url.parse().unwrap();
            let mut req = Request::builder().uri(uri.clone()).body(empty()).unwrap();
            prepare_h1(&mut req, &uri, &RequestForm::Origin);
            assert_eq!(req.headers()[header::HOST], host, "{url}");
            assert_eq!(req.uri().to_string(), "/api/items?page=2", "{url}");
        }
    }

    #[test]
    fn http2_origins_get_the_clients_host_as_authority_and_no_host_header() {
        let uri: Uri = "https://shop.test:443/api/items?page=2".parse().unwrap();
        let mut req = Request::builder()
            .uri(uri)
            .header(header::HOST, "shop.test")
            .body(empty())
            .unwrap();
        prepare_h2(&mut req);
        assert!(!req.headers().contains_key(header::HOST));
        assert_eq!(req.uri().to_string(), "https://shop.test/api/items?page=2");
        // An HTTP/2 client's request (no `Host`) goes as it came.
        let uri: Uri = "https://shop.test:8443/a".parse().unwrap();
        let mut req = Request::builder().uri(uri.clone()).body(empty()).unwrap();
        prepare_h2(&mut req);
        assert_eq!(req.uri(), &uri);
    }

    #[test]
    fn cookies_split_over_http2_are_one_line_for_http1_origins() {
        let uri: Uri = "https://shop.test/a".parse().unwrap();
        let mut req = Request::builder()
            .uri(uri.clone())
            .header(header::COOKIE, "a=1")
            .header(header::COOKIE, "b=2; c=3")
            .body(empty())
            .unwrap();
        prepare_h1(&mut req, &uri, &RequestForm::Origin);
        let cookies: Vec<_> = req.headers().get_all(header::COOKIE).iter().collect();
        assert_eq!(cookies, ["a=1; b=2; c=3"]);
    }

    #[tokio::test(start_paused = true)]
    async fn idle_connections_close_after_the_timeout_and_then_nothing_wakes() {
        use tokio::io::AsyncReadExt as _;

        let (ours, mut theirs) = tokio::io::duplex(1024);
        let (sender, connection) = http1::handshake(hyper_util::rt::TokioIo::new(ours))
            .await
            .unwrap();
        tokio::spawn(connection);
        let dialer = Dialer::new(
            HashMap::new(),
            true,
            Duration::from_secs(1),
            "127.0.0.1:9".parse().unwrap(),
            rustls::RootCertStore::empty(),
            None,
        );
        let pool = Pool::new(Arc::new(dialer));
        let key = Key {
            https: false,
            authority: "shop.test".parse().unwrap(),
        };
        let info = UpstreamInfo::new("127.0.0.1:80".parse().unwrap(), 0.0, None);
        pool.give_back(Lease(Some((key.clone(), sender))), info);
        assert!(lock(&pool.idle).sweeping);

        tokio::time::sleep(IDLE_TIMEOUT - SWEEP_EVERY / 2).await;
        let kept = lock(&pool.idle).origins.get(&key).map(|o| o.h1.len());
        assert_eq!(kept, Some(1), "still within the idle timeout");

        tokio::time::sleep(SWEEP_EVERY * 2).await;
        assert!(lock(&pool.idle).origins.is_empty(), "swept");
        assert!(
            !lock(&pool.idle).sweeping,
            "nothing idle: the sweeper stopped"
        );
        let mut byte = [0u8; 1];
        let read = theirs.read(&mut byte).await.unwrap();
        assert_eq!(read, 0, "the origin sees the connection closed");
    }

    #[test]
    fn an_origin_is_one_key_however_its_name_is_capitalised() {
        let key = |https, authority: &str| Key {
            https,
            authority: authority.parse().unwrap(),
        };
        let mut origins: HashMap<Key, u8, foldhash::fast::RandomState> = HashMap::default();
        origins.insert(key(true, "shop.test:8443"), 1);
        assert_eq!(origins.get(&key(true, "Shop.TEST:8443")), Some(&1));
        assert_eq!(origins.get(&key(false, "shop.test:8443")), None);
        assert_eq!(origins.get(&key(true, "shop.test:9443")), None);
    }

    #[test]
    fn an_origin_is_forgotten_once_no_request_dials_it() {
        let idle = Mutex::new(Idle::default());
        let key = Key {
            https: true,
            authority: "shop.test".parse().unwrap(),
        };
        let (first, signal) = DialTicket::take(&idle, &key);
        let (second, same) = DialTicket::take(&idle, &key);
        assert!(Arc::ptr_eq(&signal, &same), "one signal per origin");
        assert_eq!(lock(&idle).dialing[&key].requests, 2);
        drop(first);
        assert_eq!(lock(&idle).dialing[&key].requests, 1);
        drop(second);
        assert!(lock(&idle).dialing.is_empty());
    }

    #[test]
    fn an_upstream_proxy_gets_the_absolute_target_and_its_credentials() {
        let uri: Uri = "http://shop.test:8080/api/items?page=2".parse().unwrap();
        let mut req = Request::builder().uri(uri.clone()).body(empty()).unwrap();
        let credentials = HeaderValue::from_static("Basic bWU6cHc=");
        prepare_h1(&mut req, &uri, &RequestForm::Absolute(Some(credentials)));
        assert_eq!(req.uri(), &uri);
        assert_eq!(req.headers()[header::HOST], "shop.test:8080");
        assert_eq!(req.headers()[header::PROXY_AUTHORIZATION], "Basic bWU6cHc=");
    }

    #[test]
    fn a_host_header_the_client_sent_is_kept() {
        let uri: Uri = "http://127.0.0.1:9/x".parse().unwrap();
        let mut req = Request::builder()
            .uri(uri.clone())
            .header(header::HOST, "shop.test")
            .body(empty())
            .unwrap();
        prepare_h1(&mut req, &uri, &RequestForm::Origin);
        assert_eq!(req.headers()[header::HOST], "shop.test");
        assert_eq!(req.uri().to_string(), "/x");
    }
}
