//! The lock on destructive requests (issue #26): while it is on, a request
//! that reads as destructive ([`ar_flow::destructive::path_is_destructive`]:
//! `DELETE`, or a write whose path ends in `delete`, `clear`, `logout`, ...)
//! is never sent. The client gets a 403 saying why, and the exchange is
//! recorded like any other the proxy refused: an error flow of kind
//! [`ErrorKind::Refused`](ar_flow::ErrorKind::Refused) with its request.
//!
//! `ar`'s sessions switch it on while the no-LLM explorer drives (unless
//! `--explore-unsafe`), and off for the agent and the human, with
//! [`crate::ProxyHandle::set_destructive_lock`]; the explorer's own lock
//! skips actions whose names read as destructive, and this one catches what
//! a harmless-looking click or a page's own script sends anyway.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use ar_flow::ErrorKind;
use http::{HeaderValue, Request, Response, StatusCode, Uri};
use http_body_util::BodyExt as _;
use hyper::body::Incoming;

use crate::forward::{RequestTap, Started, request_body};
use crate::proxy::{ProxyBody, Shared};
use crate::server::text_response;

/// Refused requests kept by name between two [`Lock::take`]s (all are counted).
const MAX_NAMED: usize = 32;

/// How long a refused request's body may take to arrive, to be recorded.
const BODY_WAIT: Duration = Duration::from_secs(2);

/// A request the lock refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusal {
    /// The method, as sent (`DELETE`).
    pub method: String,
    /// The absolute URL (`https://shop.test/api/carts/3`).
    pub url: String,
}

impl Refusal {
    /// The URL's path, without the query: `/api/carts/3`.
    pub fn path(&self) -> &str {
        let rest = self.url.split_once("://").map_or(&*self.url, |(_, r)| r);
        match rest.find(['/', '?', '#']) {
            Some(at) if rest[at..].starts_with('/') => {
                rest[at..].split(['?', '#']).next().unwrap_or("/")
            }
            _ => "/",
        }
    }
}

impl fmt::Display for Refusal {
    /// `DELETE /api/carts/3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method, self.path())
    }
}

/// What the lock refused since it was last asked
/// ([`crate::ProxyHandle::take_refusals`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Refusals {
    /// How many requests were refused.
    pub count: u64,
    /// The first of them (at most 32), in the order they came.
    pub first: Vec<Refusal>,
}

/// The lock's switch and its record, shared by every connection.
#[derive(Debug, Default)]
pub(crate) struct Lock {
    on: AtomicBool,
    refused: Mutex<Refusals>,
}

impl Lock {
    pub(crate) fn new(on: bool) -> Self {
        Self {
            on: AtomicBool::new(on),
            refused: Mutex::default(),
        }
    }

    pub(crate) fn set(&self, on: bool) {
        self.on.store(on, Ordering::Relaxed);
    }

    /// Whether a request with `method` to `uri` must not be sent now.
    pub(crate) fn refuses(&self, method: &http::Method, uri: &Uri) -> bool {
        self.on.load(Ordering::Relaxed)
            && ar_flow::destructive::path_is_destructive(method.as_str(), uri.path())
    }

    /// What was refused since the last call.
    pub(crate) fn take(&self) -> Refusals {
        std::mem::take(&mut *self.record())
    }

    fn note(&self, method: &str, url: &str) {
        let mut refused = self.record();
        refused.count += 1;
        if refused.first.len() < MAX_NAMED {
            refused.first.push(Refusal {
                method: method.to_string(),
                url: url.to_string(),
            });
        }
    }

    fn record(&self) -> std::sync::MutexGuard<'_, Refusals> {
        self.refused.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Refuses `req` (which [`Lock::refuses`]): reads what its body sends within
/// a moment, so the flow shows it, records the flow as refused, and answers
/// 403. Nothing is sent upstream.
pub(crate) async fn refuse(
    shared: Arc<Shared>,
    req: Request<Incoming>,
    started: Started,
) -> Response<ProxyBody> {
    let (parts, body) = req.into_parts();
    let (tap, mut body) = RequestTap::new(body, shared.opts.limits.cap);
    let drain = async { while let Some(Ok(_)) = body.frame().await {} };
    let _ = tokio::time::timeout(BODY_WAIT, drain).await;
    drop(body);
    let request_body = request_body(started.meta.clone(), tap.take(), &shared);
    let method = parts.method.as_str();
    shared.lock.note(method, &started.request.url);
    let message = format!(
        "ar refused {method} {}: the explorer does not send destructive requests; \
         run with --explore-unsafe to allow",
        parts.uri.path()
    );
    let mut response = text_response(StatusCode::FORBIDDEN, &format!("{message}\n"));
    response
        .headers_mut()
        .insert("x-ar-proxy-error", HeaderValue::from_static("refused"));
    started.record_error(&shared, request_body, ErrorKind::Refused, message);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lock_refuses_only_while_on_and_only_what_reads_as_destructive() {
        let lock = Lock::new(false);
        let uri = |path: &str| format!("https://shop.test{path}").parse::<Uri>().unwrap();
        assert!(!lock.refuses(&http::Method::DELETE, &uri("/api/carts/3")));
        lock.set(true);
        assert!(lock.refuses(&http::Method::DELETE, &uri("/api/carts/3")));
        assert!(lock.refuses(&http::Method::POST, &uri("/experiments/delete?x=1")));
        assert!(!lock.refuses(&http::Method::POST, &uri("/orders")));
        assert!(!lock.refuses(&http::Method::GET, &uri("/deleted-items")));
    }

    #[test]
    fn refusals_are_counted_named_and_taken() {
        let lock = Lock::new(true);
        for n in 0..40 {
            lock.note(
                "DELETE",
                &format!("https://shop.test/api/carts/{n}?force=1"),
            );
        }
        let taken = lock.take();
        assert_eq!(taken.count, 40);
        assert_eq!(taken.first.len(), MAX_NAMED);
        assert_eq!(taken.first[3].to_string(), "DELETE /api/carts/3");
        assert_eq!(lock.take(), Refusals::default(), "taken means gone");
        let bare = Refusal {
            method: "POST".into(),
            url: "https://shop.test?x=/a".into(),
        };
        assert_eq!(bare.path(), "/");
    }
}
