//! Error responses of both APIs → [`LlmError`] variants: who is to blame
//! (key, billing, request, server) decides what is retried.

use std::time::Duration;

use super::config::ProviderKind;
use super::error::LlmError;

/// The error parts found in an API error body (both providers nest them
/// under `error`: `{type, message}` / `{message, type, code}`).
pub(crate) struct ErrorBody {
    pub(crate) kind: String,
    pub(crate) message: String,
}

impl ErrorBody {
    pub(crate) fn parse(body: &[u8]) -> Self {
        let json: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
        let err = json.get("error").unwrap_or(&json);
        let text = |k: &str| {
            err.get(k)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_owned()
        };
        let mut kind = text("type");
        let code = text("code");
        if kind.is_empty() || (kind == "error" && !code.is_empty()) {
            kind = code;
        } else if !code.is_empty() && code != kind {
            kind = format!("{kind}/{code}");
        }
        let mut message = text("message");
        if message.is_empty() {
            message = String::from_utf8_lossy(&body[..body.len().min(300)])
                .trim()
                .to_owned();
        }
        Self { kind, message }
    }

    /// Billing / spend-limit errors, which no retry can fix.
    pub(crate) fn is_billing(&self, status: u16) -> bool {
        let kind = self.kind.to_ascii_lowercase();
        let msg = self.message.to_ascii_lowercase();
        status == 402
            || kind.contains("billing")
            || kind.contains("insufficient_quota")
            || [
                "credit balance",
                "spend limit",
                "billing",
                "insufficient_quota",
                "payment required",
            ]
            .iter()
            .any(|needle| msg.contains(needle))
    }
}

/// Maps a non-2xx status and body to the error variant (shared by both wires).
pub(crate) fn classify_error(provider: ProviderKind, status: u16, body: &[u8]) -> LlmError {
    let env_var = provider.key_env();
    let parsed = ErrorBody::parse(body);
    if parsed.is_billing(status) {
        return LlmError::SpendLimit {
            provider,
            status,
            message: parsed.message,
        };
    }
    if matches!(status, 401 | 403) {
        return LlmError::Unauthorized {
            provider,
            status,
            message: parsed.message,
            env_var,
        };
    }
    LlmError::Api {
        provider,
        status,
        kind: parsed.kind,
        message: parsed.message,
        retry_after: None::<Duration>,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_bodies_of_both_providers() {
        let a = ErrorBody::parse(
            br#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(
            (a.kind.as_str(), a.message.as_str()),
            ("overloaded_error", "Overloaded")
        );
        let o = ErrorBody::parse(
            br#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#,
        );
        assert!(o.is_billing(429));
        let plain = ErrorBody::parse(b"upstream connect error");
        assert_eq!(plain.message, "upstream connect error");
        assert!(!plain.is_billing(503));
    }

    #[test]
    fn classify() {
        let p = ProviderKind::Anthropic;
        let credit = br#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}"#;
        assert!(matches!(
            classify_error(p, 400, credit),
            LlmError::SpendLimit { .. }
        ));
        assert!(matches!(
            classify_error(p, 401, b"{}"),
            LlmError::Unauthorized { .. }
        ));
        assert!(matches!(
            classify_error(p, 529, b"{}"),
            LlmError::Api { status: 529, .. }
        ));
    }
}
