//! Provider configuration: environment conventions, explicit overrides,
//! defaults, and the missing-key message.

use std::collections::HashMap;

use ar_agent::llm::{ApiKey, LlmError, ProviderConfig, ProviderKind};
use ar_mock_llm::{MockLlm, Reply};

use crate::llm_support::{fast_retry, request, run};

fn env(pairs: &[(&str, String)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect();
    move |k| map.get(k).cloned()
}

#[test]
fn a_missing_key_says_how_to_set_it_and_offers_the_explorer() {
    for kind in [ProviderKind::Anthropic, ProviderKind::OpenAi] {
        let err = ProviderConfig::new(kind).build(|_| None).unwrap_err();
        assert!(matches!(err, LlmError::MissingApiKey { .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.contains(&format!("export {}=", kind.key_env())),
            "{text}"
        );
        assert!(text.contains("--provider openai --base-url"), "{text}");
        assert!(text.contains("--explore"), "{text}");
    }
    // An empty variable counts as missing.
    let err = ProviderConfig::new(ProviderKind::Anthropic)
        .build(env(&[("ANTHROPIC_API_KEY", "  ".into())]))
        .unwrap_err();
    assert!(matches!(
        err,
        LlmError::MissingApiKey {
            env_var: "ANTHROPIC_API_KEY",
            ..
        }
    ));
}

#[tokio::test]
async fn key_and_base_url_come_from_the_sdk_environment_variables() {
    let mock = MockLlm::start().await;
    mock.push(Reply::text("via env"));
    let p = ProviderConfig::new(ProviderKind::Anthropic)
        .build(env(&[
            ("ANTHROPIC_API_KEY", "sk-ant-from-env".into()),
            ("ANTHROPIC_BASE_URL", format!("{}/", mock.base_url())),
        ]))
        .unwrap();
    assert_eq!(p.model(), ProviderKind::Anthropic.default_model());
    assert_eq!(
        run(p.as_ref(), &request("hi"))
            .await
            .0
            .unwrap()
            .message
            .text(),
        "via env"
    );
    let sent = &mock.requests()[0];
    assert_eq!(sent.header("x-api-key"), Some("sk-ant-from-env"));
    assert_eq!(sent.json()["model"], "claude-sonnet-4-5");
}

#[tokio::test]
async fn explicit_settings_override_the_environment() {
    let mock = MockLlm::start().await;
    mock.push(Reply::text("explicit"));
    let p = ProviderConfig::new(ProviderKind::OpenAi)
        .with_base_url(mock.openai_base_url())
        .with_api_key(ApiKey::new("sk-explicit"))
        .with_model("qwen2.5-coder")
        .with_retry(fast_retry(1))
        .build(env(&[
            ("OPENAI_API_KEY", "sk-from-env".into()),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1".into()),
        ]))
        .unwrap();
    assert_eq!(
        run(p.as_ref(), &request("hi"))
            .await
            .0
            .unwrap()
            .message
            .text(),
        "explicit"
    );
    let sent = &mock.requests()[0];
    assert_eq!(sent.header("authorization"), Some("Bearer sk-explicit"));
    assert_eq!(sent.json()["model"], "qwen2.5-coder");
}

#[test]
fn a_bad_base_url_is_reported_with_the_url() {
    let err = ProviderConfig::new(ProviderKind::OpenAi)
        .with_base_url("localhost:8000")
        .build(|_| None)
        .unwrap_err();
    assert!(matches!(err, LlmError::InvalidBaseUrl { .. }), "{err:?}");
    assert!(err.to_string().contains("localhost:8000"), "{err}");
}
