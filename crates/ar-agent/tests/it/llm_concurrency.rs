//! One provider shared by concurrent callers (the agent loop and the
//! enrichment worker), answered by a function of each request.

use std::sync::Arc;

use ar_agent::llm::{Message, ProviderKind, Request};
use ar_mock_llm::{MockLlm, Reply};

use crate::llm_support::{BOTH, provider};

#[tokio::test]
async fn concurrent_calls_each_get_their_own_answer() {
    for kind in BOTH {
        let mock = MockLlm::start().await;
        mock.respond_with(|req| {
            let asked = req.last_user_text();
            let n = asked.strip_prefix("name endpoint ")?;
            Some(Reply::text(format!("{{\"operationId\":\"op{n}\"}}")).usage(40, 0, 0, 6))
        });
        let p = provider(kind, &mock);
        let calls = (0..8).map(|n| {
            let p = Arc::clone(&p);
            tokio::spawn(async move {
                let mut req = Request::new(vec![Message::user_text(format!("name endpoint {n}"))]);
                req.cache_conversation = false;
                (n, p.complete(&req).await)
            })
        });
        let mut total_output = 0;
        for call in calls.collect::<Vec<_>>() {
            let (n, result) = call.await.unwrap();
            let response = result.unwrap();
            assert_eq!(
                response.message.text(),
                format!("{{\"operationId\":\"op{n}\"}}")
            );
            total_output += response.usage.output;
        }
        assert_eq!(total_output, 48);
        assert_eq!(mock.request_count(), 8, "{kind}");
        if kind == ProviderKind::Anthropic {
            for r in mock.requests() {
                assert!(
                    !r.body.contains("cache_control"),
                    "one-shot calls set no breakpoint"
                );
            }
        }
    }
}
