//! The Anthropic Messages provider against the mock: streaming, tool calls,
//! usage, prompt caching, invalid arguments, broken streams.

use ar_agent::llm::{
    ContentBlock, LlmError, Message, ProviderKind, Role, StopReason, StreamEvent, ToolInput,
    ToolResult, Usage,
};
use ar_mock_llm::{MockLlm, Reply};
use serde_json::json;

use crate::llm_support::{provider, request, run, streamed_text};

const KIND: ProviderKind = ProviderKind::Anthropic;

#[tokio::test]
async fn streams_text_in_pieces_and_assembles_the_message() {
    let mock = MockLlm::start().await;
    let text = "I will open the cart page — it should call /api/cart. ✓";
    mock.push(Reply::text(text).piece_chars(3));
    let p = provider(KIND, &mock);
    let (result, events) = run(p.as_ref(), &request("map the checkout flow")).await;
    let response = result.unwrap();

    assert_eq!(response.message.role, Role::Assistant);
    assert_eq!(response.message.text(), text);
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(response.model, "test-model");
    let deltas = events
        .iter()
        .filter(|e| matches!(e, StreamEvent::TextDelta { .. }))
        .count();
    assert!(deltas > 10, "text arrives as many deltas, got {deltas}");
    assert_eq!(streamed_text(&events), text);
    assert!(
        matches!(events.last(), Some(StreamEvent::Usage(_))),
        "{events:?}"
    );

    let sent = &mock.requests()[0];
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.path, "/v1/messages");
    assert_eq!(sent.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(sent.header("content-type"), Some("application/json"));
    let body = sent.json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["model"], "test-model");
    assert_eq!(
        body["messages"][0]["content"][0]["text"],
        "map the checkout flow"
    );
    assert_eq!(body["tools"][1]["name"], "browser_click");
}

#[tokio::test]
async fn assembles_a_tool_call_from_streamed_json_fragments() {
    let mock = MockLlm::start().await;
    let args = json!({"ref": "e4", "note": "the \"Checkout\" button", "n": [1, 2, {"x": null}]});
    mock.push(Reply::text("Clicking checkout.").tool_call(
        "toolu_01",
        "browser_click",
        args.clone(),
    ));
    let p = provider(KIND, &mock);
    let (result, events) = run(p.as_ref(), &request("go")).await;
    let response = result.unwrap();

    assert_eq!(response.stop_reason, StopReason::ToolUse);
    let calls: Vec<_> = response.message.tool_uses().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, "toolu_01");
    assert_eq!(calls[0].name, "browser_click");
    assert_eq!(calls[0].input, ToolInput::Parsed(args.clone()));

    let fragments: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolUseInputDelta {
                index: 1,
                partial_json,
            } => Some(partial_json.as_str()),
            _ => None,
        })
        .collect();
    assert!(
        fragments.len() > 5,
        "arguments stream in fragments: {fragments:?}"
    );
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&fragments.concat()).unwrap(),
        args
    );
    let order: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolUseStart { index: 1, name, .. } => Some(name.as_str()),
            StreamEvent::ToolUseComplete { index: 1, .. } => Some("complete"),
            StreamEvent::Stop { .. } => Some("stop"),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["browser_click", "complete", "stop"]);
}

#[tokio::test]
async fn reports_usage_including_cache_reads_and_writes() {
    let mock = MockLlm::start().await;
    mock.push(Reply::text("ok").usage(120, 4000, 350, 42));
    let p = provider(KIND, &mock);
    let (result, events) = run(p.as_ref(), &request("hi")).await;
    let expected = Usage {
        input: 120,
        cache_read: 4000,
        cache_write: 350,
        output: 42,
    };
    assert_eq!(result.unwrap().usage, expected);
    assert!(events.contains(&StreamEvent::Usage(expected)));
    assert_eq!(expected.prompt_total(), 4470);
}

#[tokio::test]
async fn marks_tools_system_and_conversation_end_for_prompt_caching() {
    let mock = MockLlm::start().await;
    mock.push_all([Reply::text("a"), Reply::text("b")]);
    let p = provider(KIND, &mock);
    let mut req = request("first");
    run(p.as_ref(), &req).await.0.unwrap();
    req.cache_conversation = false;
    run(p.as_ref(), &req).await.0.unwrap();

    let body = mock.requests()[0].json();
    let ephemeral = json!({"type": "ephemeral"});
    assert_eq!(
        body["tools"][1]["cache_control"], ephemeral,
        "last tool cached"
    );
    assert!(
        body["tools"][0].get("cache_control").is_none(),
        "one breakpoint for all tools"
    );
    assert_eq!(body["system"][0]["cache_control"], ephemeral);
    assert_eq!(
        body["messages"][0]["content"][0]["cache_control"],
        ephemeral
    );
    let body = mock.requests()[1].json();
    assert_eq!(body["system"][0]["cache_control"], ephemeral);
    assert!(
        body["messages"][0]["content"][0]
            .get("cache_control")
            .is_none()
    );
}

#[tokio::test]
async fn invalid_tool_json_becomes_an_answerable_tool_error() {
    let mock = MockLlm::start().await;
    mock.push_all([
        Reply::turn().raw_tool_call("toolu_9", "browser_click", r#"{"ref": "e4""#),
        Reply::text("Retrying with valid arguments."),
    ]);
    let p = provider(KIND, &mock);
    let mut req = request("go");
    let (result, events) = run(p.as_ref(), &req).await;
    let response = result.unwrap();
    let call = response.message.tool_uses().next().unwrap().clone();
    let ToolInput::Invalid { raw, error } = &call.input else {
        panic!("arguments should be invalid: {call:?}");
    };
    assert_eq!(raw, r#"{"ref": "e4""#);
    assert!(!error.is_empty());
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::ToolUseComplete { .. }))
    );

    // The loop answers with an error result and the conversation goes on.
    req.messages.push(response.message);
    req.messages.push(Message::tool_results([ToolResult::error(
        &call.id,
        format!("invalid arguments: {error}"),
    )]));
    let (second, _) = run(p.as_ref(), &req).await;
    assert_eq!(
        second.unwrap().message.text(),
        "Retrying with valid arguments."
    );
    let body = mock.requests()[1].json();
    assert_eq!(body["messages"][1]["content"][0]["input"], json!({}));
    let answer = &body["messages"][2]["content"][0];
    assert_eq!(answer["type"], "tool_result");
    assert_eq!(answer["tool_use_id"], "toolu_9");
    assert_eq!(answer["is_error"], true);
}

#[tokio::test]
async fn a_stream_cut_after_output_is_an_error_and_not_retried() {
    let mock = MockLlm::start().await;
    // message_start, ping, block start, 2 deltas, then the connection breaks.
    mock.push_all([Reply::text("Partial answer that never ends")
        .piece_chars(5)
        .cut_after(5)]);
    let p = provider(KIND, &mock);
    let (result, events) = run(p.as_ref(), &request("go")).await;
    let err = result.unwrap_err();
    let LlmError::StreamCut {
        emitted_output,
        partial,
        ..
    } = &err
    else {
        panic!("expected a stream cut, got {err:?}");
    };
    assert!(*emitted_output);
    assert_eq!(partial.text(), "Partial an");
    assert_eq!(streamed_text(&events), "Partial an");
    assert_eq!(mock.request_count(), 1, "output was shown, so no retry");
    assert!(err.to_string().contains("not retried"), "{err}");
}

#[tokio::test]
async fn a_stream_cut_before_any_output_is_retried() {
    let mock = MockLlm::start().await;
    mock.push_all([Reply::text("lost").cut_after(2), Reply::text("second try")]);
    let p = provider(KIND, &mock);
    let (result, events) = run(p.as_ref(), &request("go")).await;
    assert_eq!(result.unwrap().message.text(), "second try");
    assert_eq!(
        streamed_text(&events),
        "second try",
        "nothing of the first attempt shown"
    );
    assert_eq!(mock.request_count(), 2);
}

#[tokio::test]
async fn an_error_event_mid_stream() {
    let mock = MockLlm::start().await;
    mock.push_all([
        // Before output: overloaded is transient, so it is retried.
        Reply::text("x").error_event_after(2, "overloaded_error", "Overloaded"),
        Reply::text("fine"),
        // After output: reported.
        Reply::text("abcdefgh").error_event_after(4, "overloaded_error", "Overloaded"),
    ]);
    let p = provider(KIND, &mock);
    let (first, _) = run(p.as_ref(), &request("go")).await;
    assert_eq!(first.unwrap().message.text(), "fine");
    let (second, _) = run(p.as_ref(), &request("go")).await;
    let err = second.unwrap_err();
    assert!(
        matches!(&err, LlmError::StreamError { kind, .. } if kind == "overloaded_error"),
        "{err:?}"
    );
    assert_eq!(mock.request_count(), 3);
}

#[tokio::test]
async fn accepts_a_non_streaming_json_answer() {
    let mock = MockLlm::start().await;
    mock.push(
        Reply::text("From JSON.")
            .tool_call(
                "toolu_2",
                "browser_navigate",
                json!({"url": "https://shop.test/"}),
            )
            .usage(7, 0, 0, 9)
            .as_json(),
    );
    let p = provider(KIND, &mock);
    let (result, events) = run(p.as_ref(), &request("go")).await;
    let r = result.unwrap();
    assert_eq!(r.message.text(), "From JSON.");
    assert_eq!(r.stop_reason, StopReason::ToolUse);
    assert_eq!(r.usage.output, 9);
    assert!(matches!(&r.message.content[1], ContentBlock::ToolUse(t)
        if t.input == ToolInput::Parsed(json!({"url": "https://shop.test/"}))));
    assert_eq!(streamed_text(&events), "From JSON.");
}
