//! The API key goes into its one header and nowhere else: not in bodies,
//! paths or other headers of any request, not in errors or debug output.

use ar_agent::llm::{LlmError, Message, ProviderKind, ToolResult};
use ar_mock_llm::{MockLlm, Reply};
use serde_json::json;

use crate::llm_support::{ANTHROPIC_KEY, BOTH, OPENAI_KEY, config, request, run};

#[tokio::test]
async fn the_key_appears_only_in_its_header_across_a_whole_conversation() {
    for kind in BOTH {
        let (key, header, prefix) = match kind {
            ProviderKind::Anthropic => (ANTHROPIC_KEY, "x-api-key", ""),
            ProviderKind::OpenAi => (OPENAI_KEY, "authorization", "Bearer "),
        };
        let mock = MockLlm::start().await;
        mock.push_all([
            Reply::overloaded(),
            Reply::text("Looking.").tool_call("t1", "browser_click", json!({"ref": "e1"})),
            Reply::text("Done."),
            Reply::unauthorized(),
        ]);
        let cfg = config(kind, &mock);
        let shown = format!("{cfg:?}");
        assert!(!shown.contains(key), "config Debug leaks the key: {shown}");
        let p = cfg.build(|_| None).unwrap();
        assert!(
            !format!("{p:?}").contains(key),
            "provider Debug leaks the key"
        );

        let mut req = request("map the login flow");
        let first = run(p.as_ref(), &req).await.0.unwrap();
        req.messages.push(first.message);
        req.messages
            .push(Message::tool_results([ToolResult::ok("t1", "clicked")]));
        let second = run(p.as_ref(), &req).await.0.unwrap();
        req.messages.push(second.message);
        req.messages
            .push(Message::user_text("and the signup flow?"));
        let err: LlmError = run(p.as_ref(), &req).await.0.unwrap_err();
        assert!(!err.to_string().contains(key) && !format!("{err:?}").contains(key));

        let requests = mock.requests();
        assert_eq!(requests.len(), 4, "{kind}");
        for r in &requests {
            assert_eq!(r.header(header), Some(format!("{prefix}{key}").as_str()));
            let without_header: Vec<_> = r.headers.iter().filter(|(n, _)| n != header).collect();
            assert!(
                !format!("{without_header:?}").contains(key),
                "{kind}: key in another header"
            );
            assert!(!r.body.contains(key), "{kind}: key in a body");
            assert!(!r.path.contains(key), "{kind}: key in the path");
            assert_eq!(
                r.everything().matches(key).count(),
                1,
                "{kind}: exactly one occurrence"
            );
        }
    }
}
