//! "Wait until the network is quiet", from Chromium's own network events.
//!
//! Choice: chromedriver's performance log (`goog:loggingPrefs.performance`
//! with `perfLoggingPrefs.enableNetwork`) records the page's CDP `Network.*`
//! events, and `POST /session/{id}/se/log` drains them. Counting
//! `requestWillBeSent` minus `loadingFinished`/`loadingFailed` gives the
//! requests really in flight, including ones that have not finished (which
//! `performance.getEntriesByType('resource')` cannot see, and whose buffer
//! stops at 250 entries), without wrapping `fetch`/XHR in the page. Streams
//! never finish, so EventSource requests are not counted and anything in
//! flight longer than [`LONG_LIVED`] is treated as a long poll.
//!
//! Some requests never finish *for the page*, and counting them held every
//! wait on such a page for [`LONG_LIVED`]:
//! - a worker's script is requested from the page's target (its
//!   `documentURL` is its own URL, as a frame's document's is), but its end is
//!   reported to the worker's own target, which this log does not follow; it
//!   is not counted;
//! - a response streamed by `fetch` sends its head and then data now and then;
//!   a request answered that shows no progress for [`STALLED`] is not counted.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ar_agent::browser::SentRequest;
use serde_json::{Value, json};

/// Requests pending longer than this are streams or long polls, not "loading".
pub(crate) const LONG_LIVED: Duration = Duration::from_secs(15);
/// An answered request with no progress for this long is a stream or a
/// worker's script, not loading (bodies arrive in `dataReceived` steps far
/// closer together than this).
pub(crate) const STALLED: Duration = Duration::from_secs(1);
/// Bound on tracked requests (a page that leaks requests must not grow `ar`).
const MAX_TRACKED: usize = 2_000;

/// The custom WebDriver command that drains the performance log.
#[derive(Debug)]
pub(crate) struct DrainPerformanceLog;

impl fantoccini::wd::WebDriverCompatibleCommand for DrainPerformanceLog {
    fn endpoint(
        &self,
        base_url: &url::Url,
        session_id: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base_url.join(&format!(
            "session/{}/se/log",
            session_id.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _request_url: &url::Url) -> (http::Method, Option<String>) {
        (
            http::Method::POST,
            Some(json!({ "type": "performance" }).to_string()),
        )
    }
}

/// One request still in flight.
#[derive(Debug)]
struct InFlight {
    /// Without its query (which may hold tokens): what a timeout names.
    url: String,
    since: Instant,
    /// When its response head or body last arrived; `None` until answered.
    progress: Option<Instant>,
}

impl InFlight {
    /// Whether the page may still be waiting on it at `now`.
    fn loading(&self, now: Instant) -> bool {
        now.duration_since(self.since) < LONG_LIVED
            && self
                .progress
                .is_none_or(|at| now.duration_since(at) < STALLED)
    }
}

/// Requests in flight, fed from drained log entries.
#[derive(Debug, Default)]
pub(crate) struct NetworkTracker {
    in_flight: HashMap<String, InFlight>,
    /// URLs of document requests by id (to name a failed navigation).
    documents: HashMap<String, String>,
    /// Document loads that failed since the last [`NetworkTracker::take_document_failures`]:
    /// `(url, net error)`. Chromium shows an error page for these and
    /// WebDriver reports success, so this is how a failed navigation is seen.
    document_failures: Vec<(String, String)>,
    /// Requests sent since the last [`NetworkTracker::take_sent`], at most
    /// [`MAX_TRACKED`] (what a page sends beyond that between two looks is
    /// not worth keeping).
    sent: Vec<SentRequest>,
}

impl NetworkTracker {
    /// Applies the entries of one drain (`[{ "message": "<json>" }, ...]`).
    pub(crate) fn ingest(&mut self, entries: &Value, now: Instant) {
        let Some(entries) = entries.as_array() else {
            return;
        };
        for entry in entries {
            let Some(message) = entry.get("message").and_then(Value::as_str) else {
                continue;
            };
            let Ok(event) = serde_json::from_str::<Value>(message) else {
                continue;
            };
            let event = event.get("message").unwrap_or(&Value::Null);
            let params = event.get("params").unwrap_or(&Value::Null);
            let Some(id) = params.get("requestId").and_then(Value::as_str) else {
                continue;
            };
            match event.get("method").and_then(Value::as_str) {
                Some("Network.requestWillBeSent") => {
                    let url = params
                        .pointer("/request/url")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let kind = params
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    if kind == "Document" && self.documents.len() < MAX_TRACKED {
                        self.documents.insert(id.to_owned(), url.to_owned());
                    }
                    let redirected = params.get("redirectResponse").is_some();
                    if url.starts_with("http") && !redirected && self.sent.len() < MAX_TRACKED {
                        let method = params.pointer("/request/method").and_then(Value::as_str);
                        self.sent.push(SentRequest {
                            method: method.unwrap_or("GET").to_owned(),
                            url: url.to_owned(),
                            kind: kind.to_owned(),
                        });
                    }
                    let worker_script = kind != "Document"
                        && params.get("documentURL").and_then(Value::as_str) == Some(url);
                    let counted =
                        url.starts_with("http") && kind != "EventSource" && !worker_script;
                    if counted && self.in_flight.len() < MAX_TRACKED {
                        // A redirect re-sends the same id: keep the first start time.
                        self.in_flight
                            .entry(id.to_owned())
                            .or_insert_with(|| InFlight {
                                url: url.split(['?', '#']).next().unwrap_or_default().to_owned(),
                                since: now,
                                progress: None,
                            });
                    }
                }
                Some(
                    "Network.responseReceived"
                    | "Network.responseReceivedExtraInfo"
                    | "Network.dataReceived",
                ) => {
                    if let Some(request) = self.in_flight.get_mut(id) {
                        request.progress = Some(now);
                    }
                }
                Some("Network.loadingFinished") => {
                    self.in_flight.remove(id);
                    self.documents.remove(id);
                }
                Some("Network.loadingFailed") => {
                    self.in_flight.remove(id);
                    let canceled = params.get("canceled").and_then(Value::as_bool) == Some(true);
                    if let Some(url) = self.documents.remove(id).filter(|_| !canceled) {
                        let reason = params.get("errorText").and_then(Value::as_str);
                        self.document_failures
                            .push((url, reason.unwrap_or("load failed").to_owned()));
                    }
                }
                _ => {}
            }
        }
        self.in_flight
            .retain(|_, request| now.duration_since(request.since) < LONG_LIVED * 4);
    }

    /// Document loads that failed since the last call, oldest first.
    pub(crate) fn take_document_failures(&mut self) -> Vec<(String, String)> {
        self.documents.clear();
        std::mem::take(&mut self.document_failures)
    }

    /// Requests sent since the last call, oldest first.
    pub(crate) fn take_sent(&mut self) -> Vec<SentRequest> {
        std::mem::take(&mut self.sent)
    }

    /// URLs (without query strings, which may hold tokens) still loading.
    pub(crate) fn pending(&self, now: Instant) -> Vec<String> {
        let mut urls: Vec<String> = self
            .in_flight
            .values()
            .filter(|request| request.loading(now))
            .map(|request| request.url.clone())
            .collect();
        urls.sort();
        urls
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(method: &str, params: &Value) -> Value {
        let message = json!({ "message": { "method": method, "params": params } });
        json!({ "level": "INFO", "message": message.to_string() })
    }

    #[test]
    fn requests_count_until_they_finish_or_fail() {
        let now = Instant::now();
        let mut tracker = NetworkTracker::default();
        tracker.ingest(
            &json!([
                entry(
                    "Network.requestWillBeSent",
                    &json!({"requestId": "1", "type": "Fetch",
                    "request": {"url": "https://shop.test/api/items?token=secret"}})
                ),
                entry(
                    "Network.requestWillBeSent",
                    &json!({"requestId": "2", "type": "XHR",
                    "request": {"url": "https://shop.test/api/cart"}})
                ),
                entry(
                    "Network.requestWillBeSent",
                    &json!({"requestId": "3", "type": "EventSource",
                    "request": {"url": "https://shop.test/events"}})
                ),
                entry("Network.loadingFailed", &json!({"requestId": "2"})),
            ]),
            now,
        );
        assert_eq!(tracker.pending(now), ["https://shop.test/api/items"]);
        let sent: Vec<(String, String)> = tracker
            .take_sent()
            .into_iter()
            .map(|r| (r.kind, r.url))
            .collect();
        assert_eq!(sent.len(), 3, "{sent:?}");
        assert_eq!(sent[1], ("XHR".into(), "https://shop.test/api/cart".into()));
        assert!(tracker.take_sent().is_empty(), "taken once");
        tracker.ingest(
            &json!([entry("Network.loadingFinished", &json!({"requestId": "1"}))]),
            now,
        );
        assert!(tracker.pending(now).is_empty());
    }

    #[test]
    fn failed_document_loads_are_reported_once() {
        let now = Instant::now();
        let mut tracker = NetworkTracker::default();
        tracker.ingest(
            &json!([
                entry(
                    "Network.requestWillBeSent",
                    &json!({"requestId": "d1", "type": "Document",
                    "request": {"url": "http://127.0.0.1:9/"}})
                ),
                entry(
                    "Network.loadingFailed",
                    &json!({"requestId": "d1", "type": "Document",
                    "errorText": "net::ERR_CONNECTION_REFUSED", "canceled": false})
                ),
                entry(
                    "Network.requestWillBeSent",
                    &json!({"requestId": "d2", "type": "Document",
                    "request": {"url": "http://127.0.0.1:9/next"}})
                ),
                entry(
                    "Network.loadingFailed",
                    &json!({"requestId": "d2", "type": "Document",
                    "errorText": "net::ERR_ABORTED", "canceled": true})
                ),
            ]),
            now,
        );
        assert_eq!(
            tracker.take_document_failures(),
            [(
                "http://127.0.0.1:9/".to_owned(),
                "net::ERR_CONNECTION_REFUSED".to_owned()
            )]
        );
        assert!(tracker.take_document_failures().is_empty());
    }

    #[test]
    fn a_long_poll_stops_counting() {
        let start = Instant::now();
        let mut tracker = NetworkTracker::default();
        tracker.ingest(
            &json!([entry(
                "Network.requestWillBeSent",
                &json!({"requestId": "9",
                "request": {"url": "https://shop.test/poll"}})
            )]),
            start,
        );
        assert_eq!(tracker.pending(start).len(), 1);
        assert!(tracker.pending(start + LONG_LIVED).is_empty());
    }

    /// A dedicated worker's script: the page's log sees the request (and at
    /// most its response head), never its end: that goes to the worker's target.
    #[test]
    fn a_workers_script_is_not_waited_for() {
        let now = Instant::now();
        let mut tracker = NetworkTracker::default();
        let script = "https://shop.test/static/telemetry.worker.js";
        tracker.ingest(
            &json!([
                entry(
                    "Network.requestWillBeSent",
                    &json!({"requestId": "W1", "type": "Script", "documentURL": script,
                    "request": {"url": script}})
                ),
                entry(
                    "Network.requestWillBeSent",
                    &json!({"requestId": "2", "type": "Script",
                    "documentURL": "https://shop.test/", "request": {"url": "https://shop.test/app.js"}})
                ),
            ]),
            now,
        );
        assert_eq!(tracker.pending(now), ["https://shop.test/app.js"]);
        assert_eq!(tracker.take_sent().len(), 2, "both were still sent");
    }

    /// A streamed `fetch` response: the head, then data now and then.
    #[test]
    fn an_answered_request_that_stalls_stops_counting() {
        let start = Instant::now();
        let mut tracker = NetworkTracker::default();
        let sent = |id: &str, url: &str| {
            entry(
                "Network.requestWillBeSent",
                &json!({"requestId": id, "type": "Script", "request": {"url": url}}),
            )
        };
        tracker.ingest(
            &json!([
                sent("w", "https://shop.test/telemetry.worker.js"),
                sent("slow", "https://shop.test/api/report"),
                entry(
                    "Network.responseReceivedExtraInfo",
                    &json!({"requestId": "w"})
                ),
            ]),
            start,
        );
        let later = start + STALLED / 2;
        tracker.ingest(
            &json!([entry("Network.dataReceived", &json!({"requestId": "slow"}))]),
            later,
        );
        assert_eq!(tracker.pending(later).len(), 2, "both just made progress");
        let stalled = start + STALLED;
        assert_eq!(
            tracker.pending(stalled),
            ["https://shop.test/api/report"],
            "the stream stalled after its head; the slow body is still arriving"
        );
        // Unanswered requests count until LONG_LIVED, however quiet.
        tracker.ingest(&json!([sent("q", "https://shop.test/api/slow")]), start);
        assert!(
            tracker
                .pending(start + STALLED * 3)
                .contains(&"https://shop.test/api/slow".to_owned())
        );
    }
}
