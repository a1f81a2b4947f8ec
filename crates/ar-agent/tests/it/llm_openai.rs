//! The OpenAI-compatible provider against the mock: streaming, tool calls
//! assembled by index, cached-token usage, invalid arguments, keyless local use.

use ar_agent::llm::{
    LlmError, Message, ProviderConfig, ProviderKind, StopReason, StreamEvent, ToolInput,
    ToolResult, Usage,
};
use ar_mock_llm::{MockLlm, Reply};
use serde_json::json;

use crate::llm_support::{config, provider, request, run, streamed_text};

const KIND: ProviderKind = ProviderKind::OpenAi;

#[tokio::test]
async fn streams_text_and_sends_the_chat_completions_shape() {
    let mock = MockLlm::start().await;
    mock.push(Reply::text("Found 3 endpoints under /api/cart.").piece_chars(2));
    let p = provider(KIND, &mock);
    let (result, events) = run(p.as_ref(), &request("map the cart")).await;
    let r = result.unwrap();
    assert_eq!(r.message.text(), "Found 3 endpoints under /api/cart.");
    assert_eq!(streamed_text(&events), "Found 3 endpoints under /api/cart.");
    assert_eq!(r.stop_reason, StopReason::EndTurn);

    let sent = &mock.requests()[0];
    assert_eq!(sent.path, "/v1/chat/completions");
    let body = sent.json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "map the cart"})
    );
    assert_eq!(body["tools"][0]["type"], "function");
    assert_eq!(body["tools"][0]["function"]["name"], "browser_navigate");
    assert_eq!(
        body["tools"][0]["function"]["parameters"]["required"],
        json!(["url"])
    );
}

#[tokio::test]
async fn assembles_interleaved_tool_calls_by_index() {
    let mock = MockLlm::start().await;
    let a = json!({"url": "https://shop.test/cart?step=1&coupon=%22X%22"});
    let b = json!({"ref": "e12"});
    let c = json!({});
    mock.push(
        Reply::text("Three things at once.")
            .tool_call("call_a", "browser_navigate", a.clone())
            .tool_call("call_b", "browser_click", b.clone())
            .tool_call("call_c", "browser_snapshot", c.clone())
            .piece_chars(3),
    );
    let p = provider(KIND, &mock);
    let (result, events) = run(p.as_ref(), &request("go")).await;
    let r = result.unwrap();
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    let calls: Vec<_> = r
        .message
        .tool_uses()
        .map(|t| (t.id.as_str(), t.name.as_str(), &t.input))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_a", "browser_navigate", &ToolInput::Parsed(a)),
            ("call_b", "browser_click", &ToolInput::Parsed(b)),
            ("call_c", "browser_snapshot", &ToolInput::Parsed(c)),
        ]
    );
    let completes = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::ToolUseComplete { .. }))
        .count();
    assert_eq!(completes, 3);
    // The mock interleaves fragments of the calls; deltas must alternate indices.
    let delta_indices: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolUseInputDelta { index, .. } => Some(*index),
            _ => None,
        })
        .collect();
    assert!(
        delta_indices.windows(2).any(|w| w[0] != w[1]),
        "{delta_indices:?}"
    );
}

#[tokio::test]
async fn usage_subtracts_cached_tokens_from_the_prompt() {
    let mock = MockLlm::start().await;
    // Mock reports prompt_tokens = 300 + 1700 and cached_tokens = 1700.
    mock.push(Reply::text("ok").usage(300, 1700, 0, 25));
    let p = provider(KIND, &mock);
    let (result, events) = run(p.as_ref(), &request("hi")).await;
    let expected = Usage {
        input: 300,
        cache_read: 1700,
        cache_write: 0,
        output: 25,
    };
    assert_eq!(result.unwrap().usage, expected);
    assert!(events.contains(&StreamEvent::Usage(expected)));
}

#[tokio::test]
async fn invalid_argument_json_is_answered_as_a_tool_error() {
    let mock = MockLlm::start().await;
    mock.push_all([
        Reply::turn()
            .raw_tool_call("call_bad", "browser_click", "{\"ref\": e4}")
            .tool_call("call_ok", "browser_snapshot", json!({})),
        Reply::text("Sorry, fixed."),
    ]);
    let p = provider(KIND, &mock);
    let mut req = request("go");
    let (result, _) = run(p.as_ref(), &req).await;
    let r = result.unwrap();
    let calls: Vec<_> = r.message.tool_uses().cloned().collect();
    assert!(matches!(&calls[0].input, ToolInput::Invalid { raw, .. } if raw == "{\"ref\": e4}"));
    assert_eq!(calls[1].input, ToolInput::Parsed(json!({})));

    req.messages.push(r.message.clone());
    req.messages.push(Message::tool_results([
        ToolResult::error(
            "call_bad",
            "arguments are not valid JSON; send {\"ref\": \"e4\"}",
        ),
        ToolResult::ok("call_ok", "- button \"Checkout\" [ref=e4]"),
    ]));
    let (second, _) = run(p.as_ref(), &req).await;
    assert_eq!(second.unwrap().message.text(), "Sorry, fixed.");
    let body = mock.requests()[1].json();
    let msgs = body["messages"].as_array().unwrap();
    assert_eq!(
        msgs[2]["tool_calls"][0]["function"]["arguments"],
        "{\"ref\": e4}"
    );
    assert_eq!(msgs[3]["role"], "tool");
    assert_eq!(msgs[3]["tool_call_id"], "call_bad");
    assert!(msgs[3]["content"].as_str().unwrap().starts_with("Error: "));
    assert_eq!(msgs[4]["tool_call_id"], "call_ok");
}

#[tokio::test]
async fn a_local_server_needs_no_key_and_gets_no_authorization_header() {
    let mock = MockLlm::start().await;
    mock.push(Reply::text("local model here"));
    let p = ProviderConfig::new(KIND)
        .with_base_url(mock.openai_base_url())
        .with_model("llama3.1:8b")
        .build(|_| None)
        .unwrap();
    let (result, _) = run(p.as_ref(), &request("hi")).await;
    assert_eq!(result.unwrap().message.text(), "local model here");
    let sent = &mock.requests()[0];
    assert_eq!(sent.header("authorization"), None);
    assert_eq!(sent.json()["model"], "llama3.1:8b");
}

#[tokio::test]
async fn sends_the_key_as_a_bearer_token() {
    let mock = MockLlm::start().await;
    mock.push(Reply::text("ok"));
    let p = provider(KIND, &mock);
    run(p.as_ref(), &request("hi")).await.0.unwrap();
    let expected = format!("Bearer {}", crate::llm_support::OPENAI_KEY);
    assert_eq!(
        mock.requests()[0].header("authorization"),
        Some(expected.as_str())
    );
}

#[tokio::test]
async fn a_stream_cut_mid_way() {
    let mock = MockLlm::start().await;
    // role chunk + 3 text chunks, then the connection breaks.
    mock.push(Reply::text("abcdefghijkl").piece_chars(2).cut_after(4));
    let p = config(KIND, &mock).build(|_| None).unwrap();
    let (result, events) = run(p.as_ref(), &request("go")).await;
    let err = result.unwrap_err();
    assert!(
        matches!(
            &err,
            LlmError::StreamCut {
                emitted_output: true,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(streamed_text(&events), "abcdef");
    assert_eq!(mock.request_count(), 1);
}

#[tokio::test]
async fn an_html_page_instead_of_a_stream_is_a_clear_protocol_error() {
    let mock = MockLlm::start().await;
    mock.push(Reply::raw(
        200,
        "text/html",
        "<html><body>Please log in to the proxy</body></html>",
    ));
    let p = provider(KIND, &mock);
    let err = run(p.as_ref(), &request("go")).await.0.unwrap_err();
    assert!(matches!(err, LlmError::Protocol { .. }), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("text/html") && text.contains("Please log in"),
        "{text}"
    );
    assert_eq!(mock.request_count(), 1, "not retried");
}

#[tokio::test]
async fn accepts_a_non_streaming_json_answer() {
    let mock = MockLlm::start().await;
    mock.push(
        Reply::turn()
            .tool_call("call_1", "browser_click", json!({"ref": "e2"}))
            .tool_call("call_2", "browser_click", json!({"ref": "e3"}))
            .usage(50, 10, 0, 8)
            .as_json(),
    );
    let p = provider(KIND, &mock);
    let (result, _) = run(p.as_ref(), &request("go")).await;
    let r = result.unwrap();
    assert_eq!(r.message.tool_uses().count(), 2);
    assert_eq!(
        r.usage,
        Usage {
            input: 50,
            cache_read: 10,
            cache_write: 0,
            output: 8
        }
    );
}
