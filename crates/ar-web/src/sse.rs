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
        let first = tokio::select! {
            change = changes.recv() => change,
            _ = keepalive.tick() => {
                if tx.send(Bytes::from_static(b": keepalive\n\n")).await.is_err() {
                    return;
                }
                continue;
            }
            () = tx.closed() => return,
        };
        // With whatever else has queued by now, in one write: under load a
        // page gets thousands of flows a second, and a write each cost the
        // proxy more than the rows themselves.
        let mut out = Vec::new();
        let mut next = Some(first);
        let mut taken = 0;
        let mut ended = false;
        while let Some(change) = next.take() {
            if !append(&mut out, change, &filter) {
                ended = true;
                break;
            }
            taken += 1;
            if taken < BATCH_EVENTS && out.len() < BATCH_BYTES {
                next = match changes.try_recv() {
                    Ok(change) => Some(Ok(change)),
                    Err(broadcast::error::TryRecvError::Empty) => None,
                    Err(broadcast::error::TryRecvError::Lagged(n)) => {
                        Some(Err(broadcast::error::RecvError::Lagged(n)))
                    }
                    Err(broadcast::error::TryRecvError::Closed) => {
                        Some(Err(broadcast::error::RecvError::Closed))
                    }
                };
            }
        }
        if !out.is_empty() && tx.send(Bytes::from(out)).await.is_err() {
            return;
        }
        if ended {
            return;
        }
    }
}

/// Changes written in one chunk at most.
const BATCH_EVENTS: usize = 512;
/// Bytes of events written in one chunk at most.
const BATCH_BYTES: usize = 256 * 1024;

/// Writes what `change` tells the page into `out`; false when the stream
/// ends with it (rows changed in place or the page fell behind: `reset`,
/// and the page lists them again; or the feed is gone).
fn append(
    out: &mut Vec<u8>,
    change: Result<Change, broadcast::error::RecvError>,
    filter: &Filter,
) -> bool {
    match change {
        Ok(Change::Flow(row)) if filter.matches(&row) => {
            out.extend_from_slice(b"event: flow\ndata: ");
            // A row always serializes; a failure would only lose its data line.
            let _ = serde_json::to_writer(&mut *out, &*row);
            out.extend_from_slice(b"\n\n");
            true
        }
        Ok(Change::Flow(_)) => true,
        Ok(Change::Session) => {
            out.extend_from_slice(&event("session", "{}"));
            true
        }
        Ok(Change::Spec) => {
            out.extend_from_slice(&event("spec", "{}"));
            true
        }
        Ok(Change::Rows) | Err(broadcast::error::RecvError::Lagged(_)) => {
            out.extend_from_slice(&event("reset", "{}"));
            false
        }
        Err(broadcast::error::RecvError::Closed) => false,
    }
}

/// One `event:` block.
fn event(name: &str, data: &str) -> Bytes {
    Bytes::from(format!("event: {name}\ndata: {data}\n\n"))
}

#[cfg(test)]
mod tests {
    use http_body_util::BodyExt as _;

    use super::*;
    use crate::live::SessionView;
    use crate::row::Placement;
    use crate::testing::get;

    /// The next chunk of the stream, as text.
    async fn chunk(body: &mut ChannelBody) -> String {
        let frame = body.frame().await.expect("a chunk").expect("no error");
        String::from_utf8(frame.into_data().expect("data").to_vec()).expect("text")
    }

    #[tokio::test]
    async fn flows_queued_together_go_out_in_one_chunk_in_order_and_filtered() {
        let live = Live::new(SessionView::new("https://shop.test/"));
        let mut body = stream(&live, Filter::from_query("q=items"));
        assert_eq!(
            chunk(&mut body).await,
            "event: hello\ndata: {\"total\":0}\n\n"
        );
        // Recorded while the stream's task waits (one thread): all queued at once.
        for id in 0..100 {
            let path = if id % 2 == 0 {
                format!("/items/{id}")
            } else {
                format!("/other/{id}")
            };
            live.record(&get(id, &path), &Placement::default());
        }
        let text = chunk(&mut body).await;
        let shown: Vec<&str> = text.split("\n\n").filter(|e| !e.is_empty()).collect();
        assert!(
            shown.iter().all(|e| e.starts_with("event: flow\ndata: {")),
            "{text}"
        );
        assert_eq!(shown.len(), 50, "the matching half, in one chunk");
        assert!(shown[0].contains("/items/0") && shown[49].contains("/items/98"));
    }
}
