//! Byte-level plumbing for tunnels: replaying peeked bytes, and relaying
//! two sockets both ways while observers watch each direction.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::{Buf as _, Bytes};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWrite, AsyncWriteExt as _, ReadBuf};

/// A stream whose first bytes were already read (peeked); they are
/// replayed before the rest.
pub(crate) struct Rewind<T> {
    prefix: Bytes,
    inner: T,
}

impl<T> Rewind<T> {
    pub(crate) fn new(prefix: Bytes, inner: T) -> Self {
        Self { prefix, inner }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Rewind<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if !this.prefix.is_empty() {
            let n = this.prefix.len().min(buf.remaining());
            buf.put_slice(&this.prefix[..n]);
            this.prefix.advance(n);
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.inner).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Rewind<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write(cx, buf)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_flush(cx)
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.get_mut().inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// Watches the bytes relayed in one direction.
pub(crate) trait Observer: Send {
    fn observe(&mut self, chunk: &[u8]);

    /// When this direction's sender has finished: what to wait for before
    /// passing its end on (shutting down the other socket's write half).
    /// By default nothing: a half-close goes through at once.
    fn before_end(&mut self) -> Option<Pin<Box<dyn Future<Output = ()> + Send>>> {
        None
    }
}

/// Keeps the first `cap` bytes and counts the rest.
#[derive(Debug, Default)]
pub(crate) struct CappedCopy {
    pub(crate) bytes: Vec<u8>,
    pub(crate) total: u64,
    pub(crate) cap: usize,
}

impl CappedCopy {
    pub(crate) fn new(cap: usize) -> Self {
        Self {
            bytes: Vec::new(),
            total: 0,
            cap,
        }
    }
}

impl Observer for CappedCopy {
    fn observe(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let room = self.cap.saturating_sub(self.bytes.len());
        self.bytes
            .extend_from_slice(&chunk[..chunk.len().min(room)]);
    }
}

/// How a relay ended, per direction: `None` when that side closed cleanly.
#[derive(Debug, Default)]
pub(crate) struct RelayEnd {
    pub(crate) client_error: Option<String>,
    pub(crate) server_error: Option<String>,
}

/// After the origin has finished sending, how long the client may keep its
/// side open before the tunnel is closed (clients that never hang up must
/// not keep a finished tunnel, and its flow, open forever).
const CLIENT_LINGER: std::time::Duration = std::time::Duration::from_secs(5);

/// Copies `client → server` and `server → client` until both sides are
/// done, feeding each direction's bytes to its observer. When one side
/// finishes sending, the other side's write half is shut down (half-close).
pub(crate) async fn relay<C, S, O1, O2>(
    client: C,
    server: S,
    up: &mut O1,
    down: &mut O2,
) -> RelayEnd
where
    C: AsyncRead + AsyncWrite + Unpin,
    S: AsyncRead + AsyncWrite + Unpin,
    O1: Observer,
    O2: Observer,
{
    let (mut client_read, mut client_write) = tokio::io::split(client);
    let (mut server_read, mut server_write) = tokio::io::split(server);
    let upstream = pump(&mut client_read, &mut server_write, up);
    let downstream = pump(&mut server_read, &mut client_write, down);
    tokio::pin!(upstream, downstream);
    let mut up_result = None;
    let down_result = tokio::select! {
        result = &mut downstream => result,
        result = &mut upstream => {
            up_result = Some(result);
            downstream.await
        }
    };
    let up_result = match up_result {
        Some(result) => result,
        None => tokio::time::timeout(CLIENT_LINGER, upstream)
            .await
            .unwrap_or(Ok(())),
    };
    RelayEnd {
        client_error: up_result.err(),
        server_error: down_result.err(),
    }
}

async fn pump<R, W, O>(from: &mut R, to: &mut W, observer: &mut O) -> Result<(), String>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
    O: Observer,
{
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) => {
                let _ = to.shutdown().await;
                return Err(e.to_string());
            }
        };
        observer.observe(&buf[..n]);
        if let Err(e) = to.write_all(&buf[..n]).await {
            return Err(e.to_string());
        }
    }
    if let Some(wait) = observer.before_end() {
        wait.await;
    }
    let _ = to.shutdown().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn rewind_replays_the_prefix_first() {
        let (mut a, b) = tokio::io::duplex(64);
        a.write_all(b" world").await.unwrap();
        drop(a);
        let mut rewound = Rewind::new(Bytes::from_static(b"hello"), b);
        let mut out = String::new();
        rewound.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, "hello world");
    }

    #[tokio::test]
    async fn relay_copies_both_ways_and_observes() {
        let (client_far, client_near) = tokio::io::duplex(1024);
        let (server_near, server_far) = tokio::io::duplex(1024);
        let relay_task = tokio::spawn(async move {
            let mut up = CappedCopy::new(4);
            let mut down = CappedCopy::new(100);
            let end = relay(client_near, server_near, &mut up, &mut down).await;
            (up, down, end)
        });
        let (mut cr, mut cw) = tokio::io::split(client_far);
        let (mut sr, mut sw) = tokio::io::split(server_far);
        cw.write_all(b"ping-ping").await.unwrap();
        cw.shutdown().await.unwrap();
        let mut got = Vec::new();
        sr.read_to_end(&mut got).await.unwrap();
        assert_eq!(got, b"ping-ping");
        sw.write_all(b"pong").await.unwrap();
        sw.shutdown().await.unwrap();
        let mut back = Vec::new();
        cr.read_to_end(&mut back).await.unwrap();
        assert_eq!(back, b"pong");
        let (up, down, end) = relay_task.await.unwrap();
        assert_eq!((up.bytes.as_slice(), up.total), (&b"ping"[..], 9));
        assert_eq!(down.bytes, b"pong");
        assert!(end.client_error.is_none() && end.server_error.is_none());
    }
}
