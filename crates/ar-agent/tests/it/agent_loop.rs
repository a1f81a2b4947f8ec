//! The tool-use loop against the mock LLM (both wire formats) and a fake
//! browser: intent → tool calls → observations → report, re-planning after
//! errors, budgets, retries and give-up, loop nudges, and no secret in any
//! request the model server received.

use std::sync::Arc;

use ar_agent::agent::{Agent, AgentEvent, COVERED_MARKER, TurnEnd};
use ar_agent::llm::ProviderKind;
use ar_mock_llm::{MockLlm, Reply};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::agent_support::{FakeShop, SECRETS, config, tool_results, workspace};
use crate::llm_support::provider;

fn assert_no_secret(mock: &MockLlm) {
    for (i, request) in mock.requests().iter().enumerate() {
        for secret in SECRETS {
            assert!(
                !request.body.contains(secret),
                "request {i} leaks {secret}: {}",
                request.body
            );
        }
    }
}

async fn intent_to_report(kind: ProviderKind) {
    let mock = MockLlm::start().await;
    mock.push_all([
        Reply::turn()
            .and_text("Looking at the home page first.")
            .tool_call("t1", "browser_snapshot", json!({})),
        Reply::tool("t2", "browser_click", json!({"ref": "e1"})),
        Reply::tool("t3", "flows_search", json!({"query": "products"})),
        Reply::tool(
            "t4",
            "flows_get",
            json!({"key": "GET api.shop.test/products"}),
        ),
        Reply::tool(
            "t5",
            "doc_annotate",
            json!({"key": "GET api.shop.test/products", "operation_id": "listProducts",
                   "summary": "List products", "tag": "products"}),
        ),
        Reply::text(format!(
            "Found GET api.shop.test/products (paged, bearer auth).\n{COVERED_MARKER}"
        )),
    ]);
    let ws = workspace();
    let shop = FakeShop::new(Arc::clone(&ws));
    shop.navigate_home().await;
    let mut agent = Agent::new(provider(kind, &mock), shop.clone(), ws.clone(), config());
    let mut streamed = String::new();
    let mut calls = Vec::new();
    let summary = agent
        .turn(
            "map the product catalogue",
            &CancellationToken::new(),
            &mut |e| match e {
                AgentEvent::Text(t) => streamed.push_str(&t),
                AgentEvent::ToolCall { name, .. } => calls.push(name),
                _ => {}
            },
        )
        .await;

    assert_eq!(
        summary.end,
        TurnEnd::Reported { covered: true },
        "{summary:?}"
    );
    assert_eq!(summary.steps, 6);
    assert_eq!(summary.tool_calls, 5);
    assert!(
        streamed.starts_with("Looking at the home page first."),
        "{streamed}"
    );
    assert!(summary.report.contains("GET api.shop.test/products"));
    assert_eq!(
        calls,
        [
            "browser_snapshot",
            "browser_click",
            "flows_search",
            "flows_get",
            "doc_annotate"
        ]
    );
    assert_eq!(
        shop.log(),
        [
            "navigate https://shop.test/",
            "click e1",
            "navigate https://shop.test/products"
        ]
    );

    let requests = mock.requests();
    assert_eq!(requests.len(), 6);
    // Each observation reached the model in the next request.
    let snapshot = &tool_results(&requests[1])[0].0;
    assert!(
        snapshot.contains("link \"Products\" [ref=e1]"),
        "{snapshot}"
    );
    let after_click = &tool_results(&requests[2])[0].0;
    assert!(
        after_click.contains("url: https://shop.test/products"),
        "{after_click}"
    );
    assert!(
        after_click.contains("+ GET api.shop.test/products"),
        "{after_click}"
    );
    let search = &tool_results(&requests[3])[0].0;
    assert!(
        search.contains("GET api.shop.test/products  [1 flows; 200x1]"),
        "{search}"
    );
    assert!(search.contains("$.items[]"), "the shape preview: {search}");
    assert!(
        !search.contains("Red mug"),
        "no bodies in a search: {search}"
    );
    let samples = &tool_results(&requests[4])[0].0;
    assert!(samples.contains("Red mug"), "{samples}");
    assert!(
        samples.contains("Authorization: Bearer REDACTED"),
        "{samples}"
    );
    assert!(samples.contains("token=REDACTED"), "{samples}");
    assert_eq!(
        ws.enrichment()["GET api.shop.test/products"]
            .operation_id
            .as_deref(),
        Some("listProducts")
    );
    // The old full snapshot was dropped from the history once a newer one came.
    assert!(!requests[5].body.contains("link \\\"Account\\\" [ref=e2]"));
    assert_no_secret(&mock);
}

#[tokio::test]
async fn anthropic_intent_runs_tools_and_reports() {
    intent_to_report(ProviderKind::Anthropic).await;
}

#[tokio::test]
async fn openai_intent_runs_tools_and_reports() {
    intent_to_report(ProviderKind::OpenAi).await;
}

#[tokio::test]
async fn stale_ref_is_an_error_the_model_replans_from() {
    let mock = MockLlm::start().await;
    mock.push_all([
        Reply::tool("t1", "browser_click", json!({"ref": "e1"})),
        // e3 ("Red mug") lives on /products, which the click above just left... no:
        // the click went to /products; now go home and click e3 from the old page.
        Reply::tool("t2", "browser_back", json!({})),
        Reply::tool("t3", "browser_click", json!({"ref": "e3"})),
        Reply::tool("t4", "browser_snapshot", json!({})),
        Reply::tool("t5", "browser_click", json!({"ref": "e1"})),
        Reply::text("Back on products after re-planning."),
    ]);
    let ws = workspace();
    let shop = FakeShop::new(Arc::clone(&ws));
    shop.navigate_home().await;
    let mut agent = Agent::new(
        provider(ProviderKind::Anthropic, &mock),
        shop.clone(),
        ws,
        config(),
    );
    let mut errors = Vec::new();
    let summary = agent
        .turn("look at a product", &CancellationToken::new(), &mut |e| {
            if let AgentEvent::ToolResult {
                error: Some(code), ..
            } = e
            {
                errors.push(code);
            }
        })
        .await;
    assert_eq!(summary.end, TurnEnd::Reported { covered: false });
    assert_eq!(errors, ["stale_ref"]);
    let requests = mock.requests();
    let (text, is_error) = &tool_results(&requests[3])[0];
    assert!(*is_error);
    let error: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(error["error"], "stale_ref");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("take a new snapshot")
    );
    assert!(shop.log().ends_with(&[
        "click e1".to_owned(),
        "navigate https://shop.test/products".to_owned()
    ]));
}

#[tokio::test]
async fn unknown_key_lists_the_available_keys_and_bad_arguments_are_tool_errors() {
    let mock = MockLlm::start().await;
    mock.push_all([
        Reply::tool("t1", "flows_get", json!({"key": "GET shop.test/nope"})),
        Reply::turn().raw_tool_call("t2", "browser_click", "{\"ref\": "),
        Reply::tool(
            "t3",
            "browser_navigate",
            json!({"url": "https://elsewhere.test/"}),
        ),
        Reply::text("done"),
    ]);
    let ws = workspace();
    let shop = FakeShop::new(Arc::clone(&ws));
    shop.navigate_home().await;
    let mut agent = Agent::new(provider(ProviderKind::OpenAi, &mock), shop, ws, config());
    let summary = agent
        .turn("x", &CancellationToken::new(), &mut |_| {})
        .await;
    assert_eq!(summary.end, TurnEnd::Reported { covered: false });
    let requests = mock.requests();
    let missing = &tool_results(&requests[1])[0].0;
    assert!(missing.contains("key_not_found"), "{missing}");
    assert!(missing.contains("GET shop.test/api/session"), "{missing}");
    let invalid = &tool_results(&requests[2])[0].0;
    assert!(invalid.contains("invalid_arguments"), "{invalid}");
    let nav = &tool_results(&requests[3])[0].0;
    assert!(
        nav.contains("navigation_failed") && nav.contains("ERR_NAME_NOT_RESOLVED"),
        "{nav}"
    );
}

#[tokio::test]
async fn transient_failures_are_retried_and_persistent_ones_end_the_turn() {
    let mock = MockLlm::start().await;
    mock.push_all([Reply::overloaded(), Reply::text("all good")]);
    let ws = workspace();
    let shop = FakeShop::new(Arc::clone(&ws));
    let mut agent = Agent::new(
        provider(ProviderKind::Anthropic, &mock),
        shop.clone(),
        ws.clone(),
        config(),
    );
    let mut retries = 0;
    let summary = agent
        .turn("x", &CancellationToken::new(), &mut |e| {
            if matches!(e, AgentEvent::Retrying { .. }) {
                retries += 1;
            }
        })
        .await;
    assert_eq!(summary.end, TurnEnd::Reported { covered: false });
    assert_eq!(retries, 1);

    // Four attempts, four failures: the turn ends with the reason, the session lives on.
    mock.push_all([
        Reply::server_error(),
        Reply::server_error(),
        Reply::server_error(),
        Reply::server_error(),
    ]);
    let summary = agent
        .turn("again", &CancellationToken::new(), &mut |_| {})
        .await;
    let TurnEnd::LlmFailed(why) = &summary.end else {
        panic!("expected a give-up: {summary:?}");
    };
    assert!(why.contains("500"), "{why}");
    // A later turn still works and the conversation stays well-formed.
    mock.push(Reply::text("back"));
    let summary = agent
        .turn("third", &CancellationToken::new(), &mut |_| {})
        .await;
    assert_eq!(summary.report, "back");
    let last = mock.requests().last().unwrap().json();
    let roles: Vec<&str> = last["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "user"]);
}

#[tokio::test]
async fn step_and_token_budgets_end_the_turn() {
    let mock = MockLlm::start().await;
    for i in 0..10 {
        mock.push(Reply::tool(format!("s{i}"), "flows_stats", json!({})));
    }
    let ws = workspace();
    let shop = FakeShop::new(Arc::clone(&ws));
    let mut agent = Agent::new(
        provider(ProviderKind::Anthropic, &mock),
        shop.clone(),
        ws.clone(),
        config().with_max_steps(3),
    );
    let summary = agent
        .turn("x", &CancellationToken::new(), &mut |_| {})
        .await;
    assert_eq!(summary.end, TurnEnd::StepBudget);
    assert_eq!(mock.request_count(), 3);

    let mock = MockLlm::start().await;
    for i in 0..10 {
        mock.push(Reply::tool(format!("s{i}"), "flows_stats", json!({})).usage(600, 0, 0, 50));
    }
    let mut agent = Agent::new(
        provider(ProviderKind::Anthropic, &mock),
        shop,
        ws,
        config().with_max_tokens(1000),
    );
    let summary = agent
        .turn("x", &CancellationToken::new(), &mut |_| {})
        .await;
    assert_eq!(summary.end, TurnEnd::TokenBudget);
    assert_eq!(mock.request_count(), 2);
    assert_eq!(summary.usage.input, 1200);
    assert_eq!(agent.total_usage().output, 100);
}

#[tokio::test]
async fn repeating_the_same_call_gets_a_nudge() {
    let mock = MockLlm::start().await;
    for i in 0..3 {
        mock.push(Reply::tool(
            format!("r{i}"),
            "browser_scroll",
            json!({"direction": "down"}),
        ));
    }
    mock.push(Reply::text("ok, moving on"));
    let ws = workspace();
    let shop = FakeShop::new(Arc::clone(&ws));
    shop.navigate_home().await;
    let mut agent = Agent::new(provider(ProviderKind::Anthropic, &mock), shop, ws, config());
    let mut nudged = false;
    agent
        .turn("x", &CancellationToken::new(), &mut |e| {
            nudged |= matches!(e, AgentEvent::Nudge(_))
        })
        .await;
    assert!(nudged);
    let last = &mock.requests()[3];
    assert!(
        last.body.contains("same arguments 3 times"),
        "{}",
        last.body
    );
    assert!(mock.requests()[2].body.contains("the page did not change"));
}

#[tokio::test]
async fn cancelling_ends_the_turn_and_keeps_the_conversation_usable() {
    let mock = MockLlm::start().await;
    mock.push(Reply::text("never seen").stall_after(1));
    let ws = workspace();
    let shop = FakeShop::new(Arc::clone(&ws));
    let mut agent = Agent::new(provider(ProviderKind::Anthropic, &mock), shop, ws, config());
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        stopper.cancel();
    });
    let summary = agent.turn("x", &cancel, &mut |_| {}).await;
    assert_eq!(summary.end, TurnEnd::Cancelled);
    mock.push(Reply::text("hello again"));
    let summary = agent
        .turn("y", &CancellationToken::new(), &mut |_| {})
        .await;
    assert_eq!(summary.report, "hello again");
}
