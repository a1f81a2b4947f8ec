//! Shared helpers for the LLM provider tests.

use std::sync::Arc;
use std::time::Duration;

use ar_agent::llm::{
    ApiKey, LlmError, Message, Provider, ProviderConfig, ProviderKind, Request, Response,
    RetryPolicy, StreamEvent, ToolDefinition,
};
use ar_mock_llm::MockLlm;
use serde_json::json;

pub(crate) const ANTHROPIC_KEY: &str = "sk-ant-api03-TESTSECRET-aaaaaaaaaaaaaaaa";
pub(crate) const OPENAI_KEY: &str = "sk-proj-TESTSECRET-bbbbbbbbbbbbbbbb";

/// Retries with tiny backoffs so tests do not wait (retry-after is honoured as sent).
pub(crate) fn fast_retry(max_attempts: u32) -> RetryPolicy {
    RetryPolicy {
        max_attempts,
        initial_backoff: Duration::from_millis(5),
        max_backoff: Duration::from_secs(5),
        max_elapsed: Duration::from_secs(60),
    }
}

pub(crate) fn config(kind: ProviderKind, mock: &MockLlm) -> ProviderConfig {
    let (base, key) = match kind {
        ProviderKind::Anthropic => (mock.base_url(), ANTHROPIC_KEY),
        ProviderKind::OpenAi => (mock.openai_base_url(), OPENAI_KEY),
    };
    ProviderConfig::new(kind)
        .with_base_url(base)
        .with_api_key(ApiKey::new(key))
        .with_model("test-model")
        .with_retry(fast_retry(4))
}

pub(crate) fn provider(kind: ProviderKind, mock: &MockLlm) -> Arc<dyn Provider> {
    config(kind, mock).build(|_| None).expect("provider builds")
}

pub(crate) fn tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition {
            name: "browser_navigate".into(),
            description: "Open a URL in the browser.".into(),
            input_schema: json!({"type": "object", "properties": {"url": {"type": "string"}},
                                 "required": ["url"]}),
        },
        ToolDefinition {
            name: "browser_click".into(),
            description: "Click the element with this ref from the last snapshot.".into(),
            input_schema: json!({"type": "object", "properties": {"ref": {"type": "string"}},
                                 "required": ["ref"]}),
        },
    ]
}

pub(crate) fn request(text: &str) -> Request {
    Request::new(vec![Message::user_text(text)])
        .with_system("You map the HTTP API of web sites by browsing them.")
        .with_tools(tools())
}

/// Runs one call, collecting the streamed events.
pub(crate) async fn run(
    provider: &dyn Provider,
    request: &Request,
) -> (Result<Response, LlmError>, Vec<StreamEvent>) {
    let mut events = Vec::new();
    let result = {
        let mut sink = |e: StreamEvent| events.push(e);
        provider.stream(request, &mut sink).await
    };
    (result, events)
}

/// The concatenated text deltas.
pub(crate) fn streamed_text(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// How many `Retrying` events were seen.
pub(crate) fn retries(events: &[StreamEvent]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, StreamEvent::Retrying { .. }))
        .count()
}

pub(crate) const BOTH: [ProviderKind; 2] = [ProviderKind::Anthropic, ProviderKind::OpenAi];
