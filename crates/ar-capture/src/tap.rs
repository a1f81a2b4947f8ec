//! A body wrapper that relays every frame untouched while keeping a capped
//! copy for capture.
//!
//! The copy never holds more than the cap, so a 1 GB download costs the
//! proxy a few MB at most, and frames are passed on as they arrive, so a
//! server-sent-events stream reaches the client event by event. When the
//! body ends, fails, or is dropped early (the client went away), the
//! completion callback runs exactly once with what was seen.

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

/// How a tapped body ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TapEnd {
    /// Every byte was relayed.
    Complete,
    /// The body failed while being read (upstream reset, malformed chunking, ...).
    Failed(String),
    /// The reader dropped the body before its end (the client went away).
    Dropped,
}

/// What a tap saw of one body.
#[derive(Debug, Clone)]
pub(crate) struct Tapped {
    /// The first bytes of the body as sent on the wire (still content-encoded).
    pub(crate) raw: Vec<u8>,
    /// Every byte relayed, including those beyond the cap.
    pub(crate) wire_size: u64,
    /// How it ended.
    pub(crate) end: TapEnd,
}

impl Tapped {
    /// A body that was never relayed (for example an error before sending).
    pub(crate) fn none() -> Self {
        Self {
            raw: Vec::new(),
            wire_size: 0,
            end: TapEnd::Complete,
        }
    }

    /// Whether `raw` holds fewer bytes than were relayed.
    pub(crate) fn capped(&self) -> bool {
        (self.raw.len() as u64) < self.wire_size
    }
}

type Done = Box<dyn FnOnce(Tapped) + Send>;

/// Relays `inner` frame by frame and reports a capped copy when done.
pub(crate) struct TapBody<B> {
    inner: B,
    raw: Vec<u8>,
    cap: usize,
    seen: u64,
    /// The length the body announced (`Content-Length`), if it did.
    announced: Option<u64>,
    done: Option<Done>,
}

impl<B: Body<Data = Bytes> + Unpin> TapBody<B>
where
    B::Error: std::fmt::Display,
{
    /// Wraps `inner`; `done` runs once when the body ends, fails or is dropped.
    /// A body that is empty from the start (GET requests, HEAD responses, 204,
    /// 304) completes at once, since hyper may drop it without polling.
    pub(crate) fn new(inner: B, cap: usize, done: impl FnOnce(Tapped) + Send + 'static) -> Self {
        // A body of known length gets its copy's buffer in one allocation:
        // growing by doubling to a cap of megabytes copied it again at every
        // step, onto fresh pages.
        let announced = inner.size_hint().exact();
        let mut tap = Self {
            raw: Vec::with_capacity(announced.unwrap_or(0).min(cap as u64) as usize),
            inner,
            cap,
            seen: 0,
            announced,
            done: Some(Box::new(done)),
        };
        if tap.inner.is_end_stream() {
            tap.finish(TapEnd::Complete);
        }
        tap
    }
}

impl<B> TapBody<B> {
    fn finish(&mut self, end: TapEnd) {
        if let Some(done) = self.done.take() {
            done(Tapped {
                raw: std::mem::take(&mut self.raw),
                wire_size: self.seen,
                end,
            });
        }
    }
}

impl<B> Body for TapBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    type Data = Bytes;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, B::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    this.seen += data.len() as u64;
                    let room = this.cap.saturating_sub(this.raw.len());
                    if room > 0 {
                        this.raw.extend_from_slice(&data[..data.len().min(room)]);
                    }
                }
                if this.inner.is_end_stream() {
                    this.finish(TapEnd::Complete);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) => {
                this.finish(TapEnd::Failed(error.to_string()));
                Poll::Ready(Some(Err(error)))
            }
            Poll::Ready(None) => {
                this.finish(TapEnd::Complete);
                Poll::Ready(None)
            }
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl<B> Drop for TapBody<B> {
    fn drop(&mut self) {
        if self.done.is_some() {
            // Bodies that reached their end finished in `poll_frame` (or in
            // `new` when empty), so the reader stopped early, unless every
            // announced byte went through: hyper's HTTP/1.1 writer drops a
            // body once it has written its `Content-Length`, without waiting
            // for an HTTP/2 origin's END_STREAM, which nginx sends in a frame
            // of its own after the data.
            let end = if self.announced == Some(self.seen) {
                TapEnd::Complete
            } else {
                TapEnd::Dropped
            };
            self.finish(end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt as _, Full, StreamBody};
    use std::sync::{Arc, Mutex};

    fn slot() -> (
        Arc<Mutex<Option<Tapped>>>,
        impl FnOnce(Tapped) + Send + 'static,
    ) {
        let slot = Arc::new(Mutex::new(None));
        let writer = Arc::clone(&slot);
        (slot, move |t| *writer.lock().unwrap() = Some(t))
    }

    #[tokio::test]
    async fn relays_everything_and_keeps_a_capped_copy() {
        let chunks: Vec<Result<Frame<Bytes>, std::convert::Infallible>> = (0..10)
            .map(|i| Ok(Frame::data(Bytes::from(vec![i as u8; 100]))))
            .collect();
        let (seen, done) = slot();
        let body = TapBody::new(
            StreamBody::new(futures_util::stream::iter(chunks)),
            250,
            done,
        );
        let all = body.collect().await.unwrap().to_bytes();
        assert_eq!(all.len(), 1000);
        let tapped = seen.lock().unwrap().take().unwrap();
        assert_eq!(tapped.raw.len(), 250);
        assert_eq!(tapped.wire_size, 1000);
        assert_eq!(tapped.end, TapEnd::Complete);
        assert!(tapped.capped());
    }

    #[tokio::test]
    async fn a_body_of_known_length_is_copied_into_one_buffer() {
        let (seen, done) = slot();
        let chunks: Vec<Result<Frame<Bytes>, std::convert::Infallible>> = (0..10)
            .map(|i| Ok(Frame::data(Bytes::from(vec![i as u8; 100]))))
            .collect();
        /// Chunks whose total length is announced, as a `content-length` does.
        struct Announced<B>(B, u64);
        impl<B: Body + Unpin> Body for Announced<B> {
            type Data = B::Data;
            type Error = B::Error;
            fn poll_frame(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
            ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
                Pin::new(&mut self.0).poll_frame(cx)
            }
            fn size_hint(&self) -> SizeHint {
                SizeHint::with_exact(self.1)
            }
        }
        let body = Announced(StreamBody::new(futures_util::stream::iter(chunks)), 1000);
        let all = TapBody::new(body, 600, done).collect().await.unwrap();
        assert_eq!(all.to_bytes().len(), 1000);
        let tapped = seen.lock().unwrap().take().unwrap();
        assert_eq!(tapped.raw.len(), 600);
        assert_eq!(tapped.raw.capacity(), 600, "sized once, never regrown");
    }

    #[tokio::test]
    async fn dropping_midway_reports_dropped() {
        let (seen, done) = slot();
        let chunks: Vec<Result<Frame<Bytes>, std::convert::Infallible>> = vec![
            Ok(Frame::data(Bytes::from_static(b"abc"))),
            Ok(Frame::data(Bytes::from_static(b"def"))),
        ];
        let mut body = TapBody::new(
            StreamBody::new(futures_util::stream::iter(chunks)),
            100,
            done,
        );
        let first = body.frame().await.unwrap().unwrap();
        assert_eq!(first.data_ref().unwrap().as_ref(), b"abc");
        drop(body);
        let tapped = seen.lock().unwrap().take().unwrap();
        assert_eq!(tapped.end, TapEnd::Dropped);
        assert_eq!(tapped.raw, b"abc");
    }

    /// Announces its length, yields its frames, then never ends (an HTTP/2
    /// body whose END_STREAM has not come yet).
    struct AnnouncedOpen {
        frames: Vec<Bytes>,
        length: u64,
    }

    impl Body for AnnouncedOpen {
        type Data = Bytes;
        type Error = std::convert::Infallible;
        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            if self.frames.is_empty() {
                Poll::Pending
            } else {
                Poll::Ready(Some(Ok(Frame::data(self.frames.remove(0)))))
            }
        }
        fn size_hint(&self) -> SizeHint {
            SizeHint::with_exact(self.length)
        }
    }

    #[tokio::test]
    async fn dropped_after_every_announced_byte_is_complete() {
        let frames = vec![Bytes::from_static(b"abc"), Bytes::from_static(b"def")];
        let (seen, done) = slot();
        let body = AnnouncedOpen { frames, length: 6 };
        let mut body = TapBody::new(body, 100, done);
        body.frame().await.unwrap().unwrap();
        body.frame().await.unwrap().unwrap();
        drop(body);
        let tapped = seen.lock().unwrap().take().unwrap();
        assert_eq!(
            (tapped.end, tapped.raw),
            (TapEnd::Complete, b"abcdef".to_vec())
        );

        let frames = vec![Bytes::from_static(b"abc")];
        let (seen, done) = slot();
        let mut body = TapBody::new(AnnouncedOpen { frames, length: 6 }, 100, done);
        body.frame().await.unwrap().unwrap();
        drop(body);
        assert_eq!(seen.lock().unwrap().take().unwrap().end, TapEnd::Dropped);
    }

    #[tokio::test]
    async fn an_empty_body_dropped_unpolled_is_complete() {
        let (seen, done) = slot();
        let body = TapBody::new(Full::new(Bytes::new()), 100, done);
        drop(body);
        assert_eq!(seen.lock().unwrap().take().unwrap().end, TapEnd::Complete);
    }
}
