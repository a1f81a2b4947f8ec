//! The retry policy, for both providers: what is retried, how often, and
//! what the user sees when we give up. Assertions count requests the mock
//! received and the waits we announced, never elapsed time.

use std::error::Error as _;
use std::time::Duration;

use ar_agent::llm::{LlmError, ProviderConfig, ProviderKind, StreamEvent};
use ar_mock_llm::{MockLlm, Reply};

use crate::llm_support::{BOTH, config, fast_retry, provider, request, retries, run};

#[tokio::test]
async fn rate_limit_is_retried_after_the_servers_retry_after() {
    for kind in BOTH {
        let mock = MockLlm::start().await;
        mock.push_all([Reply::rate_limited(1), Reply::text("after the wait")]);
        let p = provider(kind, &mock);
        let (result, events) = run(p.as_ref(), &request("go")).await;
        assert_eq!(result.unwrap().message.text(), "after the wait", "{kind}");
        assert_eq!(mock.request_count(), 2, "{kind}");
        let waits: Vec<Duration> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::Retrying {
                    delay,
                    reason,
                    attempt: 1,
                } => {
                    assert!(reason.contains("429"), "{reason}");
                    Some(*delay)
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            waits,
            [Duration::from_secs(1)],
            "{kind}: retry-after honoured exactly"
        );
    }
}

#[tokio::test]
async fn retry_after_as_an_http_date_is_honoured() {
    let mock = MockLlm::start().await;
    // A date in the past means "now".
    mock.push_all([
        Reply::status(503, "api_error", "busy")
            .header("retry-after", "Sun, 06 Nov 1994 08:49:37 GMT"),
        Reply::text("ok"),
    ]);
    let p = provider(ProviderKind::Anthropic, &mock);
    let (result, events) = run(p.as_ref(), &request("go")).await;
    assert!(result.is_ok());
    assert!(events.contains(&StreamEvent::Retrying {
        attempt: 1,
        delay: Duration::ZERO,
        reason: "HTTP 503 api_error".into()
    }));
}

#[tokio::test]
async fn overloaded_then_success() {
    for kind in BOTH {
        let mock = MockLlm::start().await;
        mock.push_all([
            Reply::overloaded(),
            Reply::server_error(),
            Reply::text("finally"),
        ]);
        let p = provider(kind, &mock);
        let (result, events) = run(p.as_ref(), &request("go")).await;
        assert_eq!(result.unwrap().message.text(), "finally");
        assert_eq!(mock.request_count(), 3, "{kind}");
        assert_eq!(retries(&events), 2);
    }
}

#[tokio::test]
async fn gives_up_after_max_attempts_with_the_last_error_as_cause() {
    for kind in BOTH {
        let mock = MockLlm::start().await;
        mock.push_all((0..5).map(|_| Reply::overloaded()));
        let p = config(kind, &mock)
            .with_retry(fast_retry(3))
            .build(|_| None)
            .unwrap();
        let (result, events) = run(p.as_ref(), &request("go")).await;
        let err = result.unwrap_err();
        assert!(
            matches!(err, LlmError::GaveUp { attempts: 3, .. }),
            "{err:?}"
        );
        assert!(
            err.to_string().starts_with("gave up after 3 attempts"),
            "{err}"
        );
        let cause = err
            .source()
            .expect("the last failure is the cause")
            .to_string();
        assert!(
            cause.contains("HTTP 529") && cause.contains("Overloaded"),
            "{cause}"
        );
        assert_eq!(mock.request_count(), 3, "{kind}");
        assert_eq!(mock.remaining(), 2);
        assert_eq!(retries(&events), 2);
    }
}

#[tokio::test]
async fn gives_up_when_the_time_budget_would_be_exceeded() {
    let mock = MockLlm::start().await;
    mock.push_all([Reply::rate_limited(30), Reply::text("never reached")]);
    let mut retry = fast_retry(5);
    retry.max_backoff = Duration::from_secs(60);
    retry.max_elapsed = Duration::from_secs(10);
    let p = config(ProviderKind::Anthropic, &mock)
        .with_retry(retry)
        .build(|_| None)
        .unwrap();
    let (result, _) = run(p.as_ref(), &request("go")).await;
    // The first attempt alone failed, so the 429 itself is reported.
    let err = result.unwrap_err();
    assert!(matches!(err, LlmError::Api { status: 429, .. }), "{err:?}");
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn no_retry_on_unauthorized() {
    for kind in BOTH {
        let mock = MockLlm::start().await;
        mock.push_all([Reply::unauthorized(), Reply::text("must not be used")]);
        let p = provider(kind, &mock);
        let (result, events) = run(p.as_ref(), &request("go")).await;
        let err = result.unwrap_err();
        assert!(
            matches!(err, LlmError::Unauthorized { status: 401, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains(kind.key_env()), "{err}");
        assert_eq!(mock.request_count(), 1, "{kind}");
        assert_eq!(retries(&events), 0);
    }
}

#[tokio::test]
async fn no_retry_on_bad_request_or_not_found() {
    for (status, kind) in [(400, "invalid_request_error"), (404, "not_found_error")] {
        let mock = MockLlm::start().await;
        mock.push_all([
            Reply::status(status, kind, "model: unknown"),
            Reply::text("unused"),
        ]);
        let p = provider(ProviderKind::Anthropic, &mock);
        let err = run(p.as_ref(), &request("go")).await.0.unwrap_err();
        assert!(
            matches!(&err, LlmError::Api { status: s, .. } if *s == status),
            "{err:?}"
        );
        assert!(err.to_string().contains("model: unknown"), "{err}");
        assert_eq!(mock.request_count(), 1);
    }
}

#[tokio::test]
async fn no_retry_on_spend_limits_even_as_429() {
    let mock = MockLlm::start().await;
    mock.push_all([
        Reply::status(
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API.",
        ),
        Reply::text("unused"),
    ]);
    let p = provider(ProviderKind::Anthropic, &mock);
    let err = run(p.as_ref(), &request("go")).await.0.unwrap_err();
    assert!(
        matches!(err, LlmError::SpendLimit { status: 400, .. }),
        "{err:?}"
    );
    assert_eq!(mock.request_count(), 1);

    let mock = MockLlm::start().await;
    mock.push_all([
        Reply::status(
            429,
            "insufficient_quota",
            "You exceeded your current quota, please check your plan and billing details.",
        ),
        Reply::text("unused"),
    ]);
    let p = provider(ProviderKind::OpenAi, &mock);
    let err = run(p.as_ref(), &request("go")).await.0.unwrap_err();
    assert!(
        matches!(err, LlmError::SpendLimit { status: 429, .. }),
        "{err:?}"
    );
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn the_servers_should_retry_false_is_respected() {
    let mock = MockLlm::start().await;
    // An empty script: the mock answers 500 with `x-should-retry: false`.
    let p = provider(ProviderKind::OpenAi, &mock);
    let err = run(p.as_ref(), &request("go")).await.0.unwrap_err();
    assert!(err.to_string().contains("script exhausted"), "{err}");
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn connection_errors_are_retried_then_reported() {
    // A port that was just free: connecting is refused.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let p = ProviderConfig::new(ProviderKind::OpenAi)
        .with_base_url(format!("http://127.0.0.1:{port}/v1"))
        .with_retry(fast_retry(3))
        .build(|_| None)
        .unwrap();
    let (result, events) = run(p.as_ref(), &request("go")).await;
    let err = result.unwrap_err();
    assert!(
        matches!(err, LlmError::GaveUp { attempts: 3, .. }),
        "{err:?}"
    );
    let cause = err.source().unwrap().to_string();
    assert!(cause.contains(&format!("127.0.0.1:{port}")), "{cause}");
    assert_eq!(retries(&events), 2);
}

#[tokio::test]
async fn a_stalled_stream_times_out_and_is_retried_when_nothing_was_shown() {
    let mock = MockLlm::start().await;
    mock.push_all([Reply::text("x").stall_after(2), Reply::text("recovered")]);
    let mut cfg = config(ProviderKind::Anthropic, &mock);
    cfg.idle_timeout = Duration::from_millis(300);
    let p = cfg.build(|_| None).unwrap();
    let (result, events) = run(p.as_ref(), &request("go")).await;
    assert_eq!(result.unwrap().message.text(), "recovered");
    assert_eq!(mock.request_count(), 2);
    assert_eq!(retries(&events), 1);
}
