//! The live stream (Server-Sent Events): one task per open page turns the
//! feed's changes into `event:` lines, keeping only the flows its filter
//! wants. It starts with `hello` (how many rows matched when it began);
//! a page that falls too far behind gets `reset` and starts over.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::Frame;
use tokio::sync::{broadcast, mpsc};

use crate::live::{Change, Live};
use crate::row::Filter;

/// Events queued for one page before its task waits.
const QUEUE: usize = 256;
/// A comment line this often keeps proxies and the browser from timing out.
const KEEPALIVE: Duration = Duration::from_secs(15);

/// A response body fed by a channel.
pub(crate) struct ChannelBody(mpsc::Receiver<Bytes>);

impl http_body::Body for ChannelBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        self.0
            .poll_recv(cx)
            .map(|next| next.map(|b| Ok(Frame::data(b))))
    }
}

/// Starts the stream of `live`'s changes for a page filtered by `filter`.
pub(crate) fn stream(live: &Live, filter: Filter) -> ChannelBody {
    let (total, changes) = live.subscribe(&filter);
    let (tx, rx) = mpsc::channel(QUEUE);
    tokio::spawn(forward(total, filter, changes, tx));
    ChannelBody(rx)
}

async fn forward(
    total: usize,
    filter: Filter,
    mut changes: broadcast::Receiver<Change>,
    tx: mpsc::Sender<Bytes>,
) {
    if tx
        .send(event("hello", &format!("{{\"total\":{total}}}")))
        .await
        .is_err()
    {
        return;
    }
    let mut keepalive = tokio::time::interval(KEEPALIVE);
    keepalive.tick().await;
    loop {
        let line = tokio::select! {
            change = changes.recv() => match change {
                Ok(Change::Flow(row)) if filter.matches(&row) => {
                    event("flow", &serde_json::to_string(&*row).unwrap_or_default())
                }
                Ok(Change::Flow(_)) => continue,
                Ok(Change::Session) => event("session", "{}"),
                Ok(Change::Spec) => event("spec", "{}"),
                Ok(Change::Rows) => {
                    // Rows changed in place: the page lists them again.
                    let _ = tx.send(event("reset", "{}")).await;
                    return;
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    // The page starts over from the list; this stream ends.
                    let _ = tx.send(event("reset", "{}")).await;
                    return;
                }
                Err(broadcast::error::RecvError::Closed) => return,
            },
            _ = keepalive.tick() => Bytes::from_static(b": keepalive\n\n"),
            () = tx.closed() => return,
        };
        if tx.send(line).await.is_err() {
            return;
        }
    }
}

/// One `event:` block.
fn event(name: &str, data: &str) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}
