//! A client's request head too large to take (issue #31).
//!
//! hyper reads an HTTP/1 head into a buffer of at most [`MAX_HTTP1_HEAD`]
//! bytes; a longer one (a 1 MB cookie, a header flood) ends the connection
//! with `431 Request Header Fields Too Large` before any service sees a
//! request. Without help, nothing would say it happened: no flow, no line in
//! the ledger. [`Sampled`] keeps the first [`SAMPLE_BYTES`] a client sent on
//! the connection (where the request line is), and [`record_refused`] turns
//! hyper's verdict into a refused flow with that request line and a 431
//! response, so the archive keeps what was refused and why, and API.md counts
//! it among the requests the proxy refused. Memory stays bounded by hyper's
//! buffer plus the sample, however large the head.
//!
//! hyper closes the connection right after its 431, while the client is
//! still sending the rest of the head; the unread bytes make the kernel reset
//! the connection, and a client under load may lose the 431 to the reset
//! (curl then reports no status at all). On the listener's connections a
//! [`Spare`] handle on the socket reads out what the client still sends, for
//! at most [`LINGER_BYTES`] or [`LINGER_TIME`], so the 431 arrives first
//! (the "lingering close" of RFC 9112 §9.6).

use std::io;
use std::os::fd::{AsFd as _, OwnedFd};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use ar_flow::{ErrorKind, Flow, HttpVersion, Response};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

use crate::proxy::Shared;
use crate::record;
use crate::server::Target;

/// The largest HTTP/1 request head the proxy reads (hyper's read buffer;
/// hyper's default, set here so the bound has a name and a place).
pub(crate) const MAX_HTTP1_HEAD: usize = 400 * 1024;

/// Bytes kept from the start of a connection: enough for any request line a
/// server takes (most stop at 8 KiB).
pub(crate) const SAMPLE_BYTES: usize = 8 * 1024;

/// The most a refused client may still send before the connection closes.
pub(crate) const LINGER_BYTES: usize = 4 << 20;

/// The longest a refused connection stays open for that.
pub(crate) const LINGER_TIME: Duration = Duration::from_secs(2);

/// A second handle on a client's socket (a duplicated descriptor), kept
/// while hyper owns the first, to read out a refused head.
#[derive(Debug)]
pub(crate) struct Spare(OwnedFd);

impl Spare {
    /// A spare handle on `tcp`, or `None` when the process is out of descriptors.
    pub(crate) fn of(tcp: &TcpStream) -> Option<Self> {
        tcp.as_fd().try_clone_to_owned().ok().map(Self)
    }

    /// Reads and drops what the client still sends, up to [`LINGER_BYTES`]
    /// or [`LINGER_TIME`], then closes.
    pub(crate) async fn linger(self) {
        let socket = std::net::TcpStream::from(self.0);
        if socket.set_nonblocking(true).is_err() {
            return;
        }
        let Ok(mut tcp) = TcpStream::from_std(socket) else {
            return;
        };
        let mut buf = vec![0u8; 64 * 1024];
        let drain = async {
            let mut left = LINGER_BYTES;
            while let Ok(n @ 1..) = tcp.read(&mut buf).await {
                left = left.saturating_sub(n);
                if left == 0 {
                    return;
                }
            }
        };
        let _ = tokio::time::timeout(LINGER_TIME, drain).await;
    }
}

/// What a connection's client sent first, and how many requests hyper has
/// handed on since.
#[derive(Debug, Default)]
pub(crate) struct Sample {
    first: Mutex<Vec<u8>>,
    requests: AtomicU64,
}

impl Sample {
    /// Counts a request hyper parsed (its head fitted).
    pub(crate) fn saw_request(&self) {
        self.requests.fetch_add(1, Ordering::Relaxed);
    }
}

/// A connection that copies its first [`SAMPLE_BYTES`] read into a [`Sample`].
#[derive(Debug)]
pub(crate) struct Sampled<IO> {
    inner: IO,
    sample: Arc<Sample>,
    /// Whether the sample is full (checked without the lock).
    full: bool,
}

impl<IO> Sampled<IO> {
    pub(crate) fn new(inner: IO, sample: Arc<Sample>) -> Self {
        Self {
            inner,
            sample,
            full: false,
        }
    }
}

impl<IO: AsyncRead + Unpin> AsyncRead for Sampled<IO> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if !self.full && buf.filled().len() > before {
            let mut first = self.sample.first.lock().unwrap_or_else(|e| e.into_inner());
            let fresh = &buf.filled()[before..];
            let take = fresh.len().min(SAMPLE_BYTES - first.len());
            first.extend_from_slice(&fresh[..take]);
            let full = first.len() >= SAMPLE_BYTES;
            drop(first);
            self.full = full;
        }
        poll
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Sampled<IO> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Records the request whose head hyper refused as too large (after it
/// answered 431): a flow refused by the proxy, with the request line when it
/// was the connection's first request, else the connection's origin.
pub(crate) fn record_refused(shared: &Shared, sample: &Sample, target: &Target) {
    let first = sample.first.lock().unwrap_or_else(|e| e.into_inner());
    let line = (sample.requests.load(Ordering::Relaxed) == 0)
        .then(|| RequestLine::parse(&first))
        .flatten();
    drop(first);
    let (method, url, cut) = match &line {
        Some(line) => (
            line.method.as_str(),
            // In reverse mode a plain request on the listener names no
            // origin: its route does.
            line.url(
                (shared.reverse.as_ref())
                    .filter(|_| matches!(target, Target::Absolute | Target::TlsListener))
                    .and_then(|routes| routes.target_of(&line.target))
                    .unwrap_or(target),
            ),
            line.cut
                .then_some("; its request line is longer than 8 KiB and cut there"),
        ),
        None => ("GET", target.fallback_url(), None),
    };
    let message = format!(
        "request head over {} KiB: the proxy answered 431 Request Header Fields Too Large and \
         forwarded nothing{}",
        MAX_HTTP1_HEAD / 1024,
        cut.unwrap_or("")
    );
    let request = ar_flow::Request::new(method, url, HttpVersion::Http11);
    let mut flow = Flow::new(shared.next_id(), record::now(), shared.client(), request)
        .with_response(Response::new(431, HttpVersion::Http11))
        .with_error(ErrorKind::Refused, message);
    flow.ended = Some(record::now());
    tracing::warn!(url = %flow.request.url, "refused a request head over {} KiB", MAX_HTTP1_HEAD / 1024);
    shared.sinks.emit(flow);
}

/// The start of an HTTP/1 request: `METHOD SP target SP version CRLF`.
#[derive(Debug, PartialEq, Eq)]
struct RequestLine {
    method: String,
    target: String,
    /// Whether the line ran past the sample (the target is a prefix).
    cut: bool,
}

impl RequestLine {
    /// The request line at the start of `bytes`, if it reads as one (a
    /// token for the method, a target without spaces or controls).
    fn parse(bytes: &[u8]) -> Option<Self> {
        let (line, cut) = match bytes.windows(2).position(|w| w == b"\r\n") {
            Some(end) => (&bytes[..end], false),
            None => (bytes, true),
        };
        let mut parts = line.splitn(3, |b| *b == b' ');
        let method = parts.next()?;
        let target = parts.next()?;
        let is_token = |b: &u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(b);
        if method.is_empty() || method.len() > 32 || !method.iter().all(is_token) {
            return None;
        }
        if target.is_empty() || !target.iter().all(|b| b.is_ascii_graphic()) {
            return None;
        }
        Some(Self {
            method: String::from_utf8_lossy(method).into_owned(),
            target: String::from_utf8_lossy(target).into_owned(),
            cut: cut || parts.next().is_none(),
        })
    }

    /// The absolute URL of the request, or the connection's when the target
    /// does not read as one.
    fn url(&self, target: &Target) -> String {
        self.target
            .parse::<http::Uri>()
            .ok()
            .and_then(|uri| target.absolute(&uri).ok())
            .filter(|uri| uri.authority().is_some())
            .map_or_else(|| target.fallback_url(), |uri| record::url_text(&uri))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_lines_are_read_whole_or_cut_and_junk_is_not_one() {
        let line = RequestLine::parse(b"GET http://a.test/x HTTP/1.1\r\nX-Big: aaa").unwrap();
        assert_eq!(
            (line.method.as_str(), line.target.as_str(), line.cut),
            ("GET", "http://a.test/x", false)
        );
        let line = RequestLine::parse(b"POST /very/long/pa").unwrap();
        assert_eq!((line.target.as_str(), line.cut), ("/very/long/pa", true));
        assert_eq!(RequestLine::parse(b"\x16\x03\x01\x02\x00 x"), None);
        assert_eq!(RequestLine::parse(b"GET  HTTP/1.1\r\n"), None);
        assert_eq!(RequestLine::parse(b""), None);
    }

    #[test]
    fn a_target_that_is_no_url_falls_back_to_the_connection() {
        let line = RequestLine::parse(b"GET /a/b HTTP/1.1\r\n").unwrap();
        let tunnel = Target::origin_of("https", "shop.test", 443);
        assert_eq!(line.url(&tunnel), "https://shop.test/a/b");
        assert_eq!(line.url(&Target::Absolute), "http://unknown.invalid/");
    }
}
