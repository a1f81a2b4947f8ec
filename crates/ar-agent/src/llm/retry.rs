//! When and how long to wait before sending a failed request again.
//!
//! Policy (shared by both providers):
//! - Retried: HTTP 408, 409, 429, 5xx (529 "overloaded" included), connection
//!   failures, idle timeouts, retryable error events in a stream, and a stream
//!   cut mid-way, but the last two only while no model output has reached the
//!   caller's [`EventSink`](super::EventSink): once text or a tool call was
//!   shown, a retry would show it twice, so the error is returned instead.
//! - Never retried: 400, 401, 403, 404, 413, 422 and billing / spend-limit
//!   errors (also when they arrive as a 429, like OpenAI's `insufficient_quota`).
//! - A server's `x-should-retry: true|false` header overrides the status rule.
//! - Wait: the server's `retry-after` (seconds or an HTTP date) when present,
//!   else exponential backoff from `initial_backoff`, doubled per attempt,
//!   capped at `max_backoff`, with "equal jitter" (half fixed, half random) so
//!   many clients do not retry in lockstep.
//! - Give up after `max_attempts` attempts or when the next wait would pass
//!   `max_elapsed`, with [`LlmError::GaveUp`](super::LlmError::GaveUp) whose
//!   source is the last failure.

use std::time::{Duration, SystemTime};

/// Retry limits. The defaults suit an interactive agent: up to 5 attempts
/// within 2 minutes.
///
/// ```
/// use std::time::Duration;
/// use ar_agent::llm::RetryPolicy;
/// let p = RetryPolicy { max_attempts: 2, ..RetryPolicy::default() };
/// assert_eq!(p.initial_backoff, Duration::from_millis(500));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Total attempts including the first (1 = never retry).
    pub max_attempts: u32,
    /// Backoff before the second attempt (before jitter).
    pub initial_backoff: Duration,
    /// Cap on one backoff or one honoured `retry-after`.
    pub max_backoff: Duration,
    /// Cap on the time spent in all attempts and waits.
    pub max_elapsed: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            initial_backoff: Duration::from_millis(500),
            max_backoff: Duration::from_secs(30),
            max_elapsed: Duration::from_secs(120),
        }
    }
}

impl RetryPolicy {
    /// The wait before attempt `failed + 1`, given the server's `retry-after`.
    pub(crate) fn delay(&self, failed: u32, retry_after: Option<Duration>) -> Duration {
        if let Some(wait) = retry_after {
            return wait.min(self.max_backoff);
        }
        let exp = self
            .initial_backoff
            .saturating_mul(1u32 << failed.saturating_sub(1).min(16))
            .min(self.max_backoff);
        let half = exp / 2;
        let jitter_ms = u64::try_from(half.as_millis()).unwrap_or(u64::MAX);
        half + Duration::from_millis(fastrand::u64(0..=jitter_ms))
    }
}

/// Parses a `retry-after` value: delta-seconds (`"3"`, `"1.5"` as some
/// gateways send) or an HTTP date, relative to `now`.
pub(crate) fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs.min(1e6)));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Reads the wait a response asks for: `retry-after-ms` (OpenAI) first, then
/// `retry-after`.
pub(crate) fn retry_after_from_headers(headers: &http::HeaderMap) -> Option<Duration> {
    if let Some(ms) = headers
        .get("retry-after-ms")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|ms| ms.is_finite() && *ms >= 0.0)
    {
        return Some(Duration::from_secs_f64(ms.min(1e9) / 1000.0));
    }
    let value = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?;
    parse_retry_after(value, SystemTime::now())
}

/// The server's explicit retry verdict (`x-should-retry`), if it gave one.
pub(crate) fn should_retry_header(headers: &http::HeaderMap) -> Option<bool> {
    match headers.get("x-should-retry")?.to_str().ok()?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_seconds_and_dates() {
        let now = httpdate::parse_http_date("Sat, 21 Nov 2026 08:00:00 GMT").unwrap();
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(
            parse_retry_after(" 0.5 ", now),
            Some(Duration::from_millis(500))
        );
        assert_eq!(
            parse_retry_after("Sat, 21 Nov 2026 08:00:07 GMT", now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            parse_retry_after("Sat, 21 Nov 2026 07:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("-1", now), None);
        assert_eq!(parse_retry_after("soon", now), None);
    }

    #[test]
    fn backoff_grows_is_capped_and_jittered() {
        let p = RetryPolicy {
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(1000),
            ..RetryPolicy::default()
        };
        for _ in 0..50 {
            let d1 = p.delay(1, None);
            assert!(
                d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100),
                "{d1:?}"
            );
            let d3 = p.delay(3, None);
            assert!(
                d3 >= Duration::from_millis(200) && d3 <= Duration::from_millis(400),
                "{d3:?}"
            );
            let d20 = p.delay(20, None);
            assert!(d20 >= Duration::from_millis(500) && d20 <= Duration::from_millis(1000));
        }
        assert_eq!(
            p.delay(1, Some(Duration::from_secs(9))),
            Duration::from_millis(1000)
        );
        assert_eq!(
            p.delay(1, Some(Duration::from_millis(7))),
            Duration::from_millis(7)
        );
    }

    #[test]
    fn headers() {
        let mut h = http::HeaderMap::new();
        h.insert("retry-after", "3".parse().unwrap());
        assert_eq!(retry_after_from_headers(&h), Some(Duration::from_secs(3)));
        h.insert("retry-after-ms", "250".parse().unwrap());
        assert_eq!(
            retry_after_from_headers(&h),
            Some(Duration::from_millis(250))
        );
        assert_eq!(should_retry_header(&h), None);
        h.insert("x-should-retry", "false".parse().unwrap());
        assert_eq!(should_retry_header(&h), Some(false));
    }
}
