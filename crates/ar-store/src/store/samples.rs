//! Bounded samples per endpoint: the first few, a deterministic reservoir,
//! and the structurally different ones.
//!
//! The first flows show what the endpoint looked like when found; the
//! reservoir (Vitter's algorithm R with a seeded PRNG, so runs repeat) is a
//! uniform picture of everything seen since; the diverse set keeps one flow
//! per body shape not yet represented (an error body, an empty list, an
//! optional field), which is what a schema or an example needs. Sample
//! bodies are capped so memory stays bounded however large the bodies.

use serde::{Deserialize, Serialize};

use crate::Flow;

/// Why a sample was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SampleReason {
    /// One of the first flows of the endpoint.
    First,
    /// Chosen uniformly at random by the reservoir.
    Reservoir,
    /// Its body shape was new among the kept samples.
    Diverse,
}

/// One kept flow (bodies capped to the store's sample cap).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The flow, with bodies possibly truncated (see `Body::truncated`).
    pub flow: Flow,
    /// Why it was kept.
    pub reason: SampleReason,
    /// Fingerprint of its body shapes (equal shapes, equal fingerprints).
    pub shape: u64,
}

/// Limits for [`Samples`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SampleLimits {
    pub(crate) first: usize,
    pub(crate) reservoir: usize,
    pub(crate) diverse: usize,
    pub(crate) body_cap: usize,
}

/// SplitMix64: tiny, fast, and good enough to pick reservoir slots.
#[derive(Debug, Clone)]
pub(crate) struct Prng(u64);

impl Prng {
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by multiply-shift.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// The kept samples of one endpoint.
#[derive(Debug, Clone)]
pub(crate) struct Samples {
    pub(crate) first: Vec<Sample>,
    pub(crate) reservoir: Vec<Sample>,
    pub(crate) diverse: Vec<Sample>,
    /// Flows offered after the first ones (the reservoir's stream length).
    offered: u64,
    rng: Prng,
}

impl Samples {
    pub(crate) fn new(seed: u64) -> Self {
        Self {
            first: Vec::new(),
            reservoir: Vec::new(),
            diverse: Vec::new(),
            offered: 0,
            rng: Prng::new(seed),
        }
    }

    /// Offers one flow; clones it only when it is kept.
    pub(crate) fn offer(&mut self, flow: &Flow, shape: u64, limits: SampleLimits) {
        let known_shape = self.iter().any(|s| s.shape == shape);
        if self.first.len() < limits.first {
            self.first
                .push(capped(flow, SampleReason::First, shape, limits.body_cap));
            return;
        }
        if !known_shape && self.diverse.len() < limits.diverse {
            self.diverse
                .push(capped(flow, SampleReason::Diverse, shape, limits.body_cap));
            return;
        }
        self.offered += 1;
        if self.reservoir.len() < limits.reservoir {
            self.reservoir.push(capped(
                flow,
                SampleReason::Reservoir,
                shape,
                limits.body_cap,
            ));
        } else if limits.reservoir > 0 {
            let slot = self.rng.below(self.offered);
            if (slot as usize) < limits.reservoir {
                let kept = &mut self.reservoir[slot as usize];
                refill(&mut kept.flow, flow, limits.body_cap);
                kept.reason = SampleReason::Reservoir;
                kept.shape = shape;
            }
        }
    }

    /// Every kept sample: first, diverse, then reservoir.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &Sample> {
        self.first
            .iter()
            .chain(&self.diverse)
            .chain(&self.reservoir)
    }

    /// Folds another endpoint's samples in (deterministically, by flow order).
    pub(crate) fn merge(&mut self, other: Samples, limits: SampleLimits) {
        let mut firsts: Vec<Sample> = self.first.drain(..).chain(other.first).collect();
        firsts.sort_by_key(|s| (s.flow.started, s.flow.id));
        let rest = firsts.split_off(firsts.len().min(limits.first));
        self.first = firsts;
        let mut candidates: Vec<Sample> = rest
            .into_iter()
            .chain(self.diverse.drain(..))
            .chain(other.diverse)
            .collect();
        candidates.sort_by_key(|s| (s.flow.started, s.flow.id));
        let mut leftovers = Vec::new();
        for mut sample in candidates {
            if self.diverse.len() < limits.diverse && !self.iter().any(|s| s.shape == sample.shape)
            {
                sample.reason = SampleReason::Diverse;
                self.diverse.push(sample);
            } else {
                sample.reason = SampleReason::Reservoir;
                leftovers.push(sample);
            }
        }
        let mut reservoir: Vec<Sample> = self
            .reservoir
            .drain(..)
            .chain(other.reservoir)
            .chain(leftovers)
            .collect();
        reservoir.sort_by_key(|s| (s.flow.started, s.flow.id));
        reservoir.truncate(limits.reservoir);
        self.reservoir = reservoir;
        self.offered += other.offered;
    }

    /// Removes and returns the samples for which `keep` is false.
    pub(crate) fn take_where(&mut self, mut moves: impl FnMut(&Sample) -> bool) -> Vec<Sample> {
        let mut out = Vec::new();
        for list in [&mut self.first, &mut self.diverse, &mut self.reservoir] {
            let (moving, staying): (Vec<Sample>, Vec<Sample>) =
                list.drain(..).partition(&mut moves);
            *list = staying;
            out.extend(moving);
        }
        out
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        self.iter()
            .map(|s| flow_bytes(&s.flow) + std::mem::size_of::<Sample>())
            .sum()
    }
}

pub(crate) fn flow_bytes(flow: &Flow) -> usize {
    let headers = |h: &crate::Headers| {
        h.iter()
            .map(|x| x.name.len() + x.value.len() + 48)
            .sum::<usize>()
    };
    flow.request.url.len()
        + flow.request.method.len()
        + headers(&flow.request.headers)
        + flow.request.body.bytes.capacity()
        + flow.response.as_ref().map_or(0, |r| {
            headers(&r.headers) + r.body.bytes.capacity() + r.reason.len()
        })
        + flow
            .websocket
            .as_ref()
            .map_or(0, |w| w.frames.iter().map(|f| f.payload.len() + 48).sum())
}

/// `*dst = capped copy of src`, reusing the strings and buffers `dst`
/// already holds: a reservoir replacement would otherwise free one copy of
/// a flow (a dozen allocations) and allocate another. The destructuring is
/// exhaustive, so a field added to the model cannot be forgotten here.
fn refill(dst: &mut Flow, src: &Flow, cap: usize) {
    let Flow {
        id,
        started,
        ended,
        client,
        request,
        response,
        error,
        timings,
        server_addr,
        websocket,
    } = src;
    dst.id = *id;
    dst.started = *started;
    dst.ended = *ended;
    dst.client = *client;
    let crate::Request {
        method,
        url,
        http_version,
        headers,
        body,
    } = request;
    dst.request.method.clone_from(method);
    dst.request.url.clone_from(url);
    dst.request.http_version.clone_from(http_version);
    refill_headers(&mut dst.request.headers, headers);
    refill_body(&mut dst.request.body, body, cap);
    match response {
        Some(from) => {
            let crate::Response {
                status,
                reason,
                http_version,
                headers,
                body,
            } = from;
            let to = dst
                .response
                .get_or_insert_with(|| crate::Response::new(*status, http_version.clone()));
            to.status = *status;
            to.reason.clone_from(reason);
            to.http_version.clone_from(http_version);
            refill_headers(&mut to.headers, headers);
            refill_body(&mut to.body, body, cap);
        }
        None => dst.response = None,
    }
    dst.error.clone_from(error);
    dst.timings = *timings;
    dst.server_addr.clone_from(server_addr);
    dst.websocket.clone_from(websocket);
    if let Some(ws) = dst.websocket.as_mut() {
        cut_frames(ws, cap);
    }
}

fn refill_headers(dst: &mut crate::Headers, src: &crate::Headers) {
    dst.0.truncate(src.0.len());
    let reused = dst.0.len();
    for (to, from) in dst.0.iter_mut().zip(&src.0) {
        to.name.clone_from(&from.name);
        to.value.clone_from(&from.value);
    }
    dst.0.extend_from_slice(&src.0[reused..]);
}

/// `*dst = src` with at most `cap` bytes kept (`truncated` when some were left out).
fn refill_body(dst: &mut crate::Body, src: &crate::Body, cap: usize) {
    let crate::Body {
        content_type,
        encoding,
        bytes,
        size,
        wire_size,
        truncated,
        decode_error,
    } = src;
    dst.content_type.clone_from(content_type);
    dst.encoding.clone_from(encoding);
    let keep = bytes.len().min(cap);
    dst.bytes.clear();
    // Exact: a reused buffer never grows past what a fresh capped copy holds.
    dst.bytes.reserve_exact(keep);
    dst.bytes.extend_from_slice(&bytes[..keep]);
    dst.size = *size;
    dst.wire_size = *wire_size;
    dst.truncated = *truncated || bytes.len() > cap;
    dst.decode_error.clone_from(decode_error);
}

fn cut_frames(ws: &mut crate::WebSocketLog, cap: usize) {
    let dropped = ws.frames.len().saturating_sub(32);
    ws.frames.truncate(32);
    ws.frames_dropped += dropped as u64;
    for frame in &mut ws.frames {
        if frame.payload.len() > cap {
            frame.payload.truncate(cap);
            frame.truncated = true;
        }
    }
}

/// A capped copy of `flow`: only the kept bytes of a large body are copied.
fn capped(flow: &Flow, reason: SampleReason, shape: u64, cap: usize) -> Sample {
    let empty = crate::Request::new("", "", flow.request.http_version.clone());
    let mut copy = Flow::new(flow.id, flow.started, flow.client, empty);
    refill(&mut copy, flow, cap);
    Sample {
        flow: copy,
        reason,
        shape,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Client, FlowId, HttpVersion, Request, Timestamp};

    fn flow(id: u64) -> Flow {
        Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(id as i64),
            Client::Unknown,
            Request::new("GET", "https://x.test/", HttpVersion::Http11),
        )
    }

    const LIMITS: SampleLimits = SampleLimits {
        first: 2,
        reservoir: 3,
        diverse: 2,
        body_cap: 8,
    };

    /// A flow unlike `flow(id)` in every part a refill touches.
    fn rich(id: u64, body: &str, headers: usize, response: bool) -> Flow {
        let mut request = Request::new("POST", format!("https://y.test/{id}"), HttpVersion::Http2);
        for i in 0..headers {
            request
                .headers
                .push(format!("x-h{i}"), format!("v{id}-{i}"));
        }
        request.body =
            crate::Body::from_decoded(Some("text/plain".into()), body.as_bytes().to_vec());
        let mut flow = Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(3),
            Client::Agent,
            request,
        );
        if response {
            let mut r = crate::Response::new(201, HttpVersion::Http2);
            r.body = crate::Body::from_decoded(None, body.repeat(2).into_bytes());
            r.headers.push("content-type", "text/plain");
            flow = flow.with_response(r);
        }
        flow.server_addr = Some(format!("127.0.0.1:{id}"));
        flow
    }

    #[test]
    fn a_refilled_sample_equals_a_fresh_capped_copy() {
        let flows = [
            flow(1),
            rich(2, "short", 3, true),
            rich(3, "a body longer than the cap", 1, false),
            rich(4, "", 5, true),
            flow(5),
            rich(6, "0123456789", 0, true),
        ];
        for from in &flows {
            for to in &flows {
                let mut kept = capped(from, SampleReason::First, 1, LIMITS.body_cap);
                refill(&mut kept.flow, to, LIMITS.body_cap);
                let fresh = capped(to, SampleReason::First, 1, LIMITS.body_cap);
                assert_eq!(kept, fresh, "{} over {}", to.id.0, from.id.0);
                assert!(kept.flow.request.body.bytes.capacity() <= LIMITS.body_cap.max(26));
            }
        }
    }

    #[test]
    fn a_capped_copy_is_the_flow_with_its_bodies_cut() {
        for f in [
            flow(1),
            rich(2, "short", 3, true),
            rich(3, "a body longer than the cap", 1, true),
            rich(4, "a body longer than the cap", 2, false),
        ] {
            let mut expected = f.clone();
            let response = expected.response.as_mut().map(|r| &mut r.body);
            for body in std::iter::once(&mut expected.request.body).chain(response) {
                if body.bytes.len() > LIMITS.body_cap {
                    body.bytes.truncate(LIMITS.body_cap);
                    body.truncated = true;
                }
            }
            let kept = capped(&f, SampleReason::First, 1, LIMITS.body_cap);
            assert_eq!(kept.flow, expected, "flow {}", f.id.0);
        }
    }

    #[test]
    fn keeps_first_diverse_and_a_bounded_reservoir() {
        let mut samples = Samples::new(7);
        for id in 0..10_000 {
            let shape = if id == 500 { 99 } else { 1 };
            samples.offer(&flow(id), shape, LIMITS);
        }
        assert_eq!(
            samples
                .first
                .iter()
                .map(|s| s.flow.id.0)
                .collect::<Vec<_>>(),
            [0, 1]
        );
        assert_eq!(
            samples
                .diverse
                .iter()
                .map(|s| s.flow.id.0)
                .collect::<Vec<_>>(),
            [500]
        );
        assert_eq!(samples.reservoir.len(), 3);
        // The same seed and stream give the same reservoir.
        let mut again = Samples::new(7);
        for id in 0..10_000 {
            again.offer(&flow(id), if id == 500 { 99 } else { 1 }, LIMITS);
        }
        let ids = |s: &Samples| s.reservoir.iter().map(|x| x.flow.id).collect::<Vec<_>>();
        assert_eq!(ids(&samples), ids(&again));
    }

    #[test]
    fn sample_bodies_are_capped() {
        let mut f = flow(1);
        f.request.body = crate::Body::from_decoded(None, vec![b'x'; 100]);
        let mut samples = Samples::new(1);
        samples.offer(&f, 1, LIMITS);
        let kept = &samples.first[0].flow.request.body;
        assert_eq!(
            (kept.bytes.len(), kept.size, kept.truncated),
            (8, 100, true)
        );
    }

    #[test]
    fn prng_is_uniform_enough() {
        let mut rng = Prng::new(1);
        let mut buckets = [0u32; 4];
        for _ in 0..40_000 {
            buckets[rng.below(4) as usize] += 1;
        }
        assert!(
            buckets.iter().all(|b| (9_000..11_000).contains(b)),
            "{buckets:?}"
        );
    }
}
