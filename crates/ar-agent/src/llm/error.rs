//! The one error type of the LLM layer.

use std::time::Duration;

use super::config::ProviderKind;
use super::message::Message;

/// Why a model call failed. Variants carry what a user needs to fix it; none
/// carries an API key.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// No API key was configured for a provider that needs one.
    #[error(
        "no API key for {provider}: set it with `export {env_var}=...`, or use a local \
         OpenAI-compatible server with `--provider openai --base-url http://127.0.0.1:8000/v1`; \
         or run without an LLM using `--explore` (the built-in explorer)"
    )]
    MissingApiKey {
        /// The provider that lacks a key.
        provider: ProviderKind,
        /// The environment variable to set.
        env_var: &'static str,
    },

    /// The base URL is not a usable `http(s)://host[:port][/path]` URL.
    #[error("invalid base URL {url:?}: {reason}")]
    InvalidBaseUrl {
        /// The URL as given.
        url: String,
        /// What is wrong with it.
        reason: String,
    },

    /// The server rejected the key (HTTP 401/403). Never retried.
    #[error(
        "{provider} rejected the API key (HTTP {status}): {message}; check {env_var} or --base-url"
    )]
    Unauthorized {
        /// The provider.
        provider: ProviderKind,
        /// 401 or 403.
        status: u16,
        /// The server's message.
        message: String,
        /// Where the key came from by default.
        env_var: &'static str,
    },

    /// The account is out of credit or hit its spend limit. Never retried.
    #[error("{provider} refused the call for billing reasons (HTTP {status}): {message}")]
    SpendLimit {
        /// The provider.
        provider: ProviderKind,
        /// HTTP status.
        status: u16,
        /// The server's message.
        message: String,
    },

    /// The server answered with an error status.
    #[error("{provider} returned HTTP {status} {kind}: {message}")]
    Api {
        /// The provider.
        provider: ProviderKind,
        /// HTTP status.
        status: u16,
        /// The error type from the body (`overloaded_error`), or empty.
        kind: String,
        /// The server's message (or the start of the body).
        message: String,
        /// The server's `retry-after`, when it sent one.
        retry_after: Option<Duration>,
    },

    /// The server sent an error event inside a stream.
    #[error("{provider} reported an error mid-stream: {kind}: {message}")]
    StreamError {
        /// The provider.
        provider: ProviderKind,
        /// The error type (`overloaded_error`).
        kind: String,
        /// The message.
        message: String,
    },

    /// The stream ended before the response was complete.
    #[error(
        "the response stream from {provider} was cut after {received_bytes} bytes ({reason}){}",
        if *.emitted_output { " (partial output was already shown, so it was not retried)" } else { "" }
    )]
    StreamCut {
        /// The provider.
        provider: ProviderKind,
        /// What ended it (connection error, idle timeout, early end of body).
        reason: String,
        /// Bytes of body received before the cut.
        received_bytes: u64,
        /// Whether output reached the user (then we do not retry).
        emitted_output: bool,
        /// Whatever complete content arrived (text so far, finished tool calls).
        partial: Box<Message>,
    },

    /// The server sent something that is not the protocol (bad JSON in an event).
    #[error("unexpected data from {provider}: {detail}: {data:?}")]
    Protocol {
        /// The provider.
        provider: ProviderKind,
        /// What was wrong.
        detail: String,
        /// The offending data (truncated).
        data: String,
    },

    /// Could not connect or the connection failed before a response arrived.
    #[error("could not reach {url}: {reason}")]
    Connect {
        /// The endpoint URL.
        url: String,
        /// The I/O or TLS error text.
        reason: String,
    },

    /// No data arrived for too long.
    #[error("no data from {url} for {after:?}")]
    Timeout {
        /// The endpoint URL.
        url: String,
        /// The idle limit that was hit.
        after: Duration,
    },

    /// Retries were exhausted; the last failure is the source.
    #[error("gave up after {attempts} attempts over {elapsed:.1?}")]
    GaveUp {
        /// Attempts made.
        attempts: u32,
        /// Time spent including waits.
        elapsed: Duration,
        /// The last failure.
        #[source]
        last: Box<LlmError>,
    },
}

impl LlmError {
    /// Whether sending the same request again may succeed.
    pub(crate) fn is_retryable(&self) -> bool {
        match self {
            Self::Api { status, .. } => matches!(status, 408 | 409 | 429) || *status >= 500,
            Self::StreamError { kind, .. } => {
                matches!(
                    kind.as_str(),
                    "overloaded_error" | "api_error" | "rate_limit_error"
                )
            }
            Self::StreamCut { emitted_output, .. } => !emitted_output,
            Self::Connect { .. } | Self::Timeout { .. } => true,
            _ => false,
        }
    }

    /// The server's requested wait, if any.
    pub(crate) fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Api { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// A short reason for a status line.
    pub(crate) fn short(&self) -> String {
        match self {
            Self::Api { status, kind, .. } if kind.is_empty() => format!("HTTP {status}"),
            Self::Api { status, kind, .. } => format!("HTTP {status} {kind}"),
            Self::StreamError { kind, .. } => format!("stream error {kind}"),
            Self::StreamCut { .. } => "stream cut".to_owned(),
            Self::Connect { reason, .. } => format!("connection failed: {reason}"),
            Self::Timeout { .. } => "timed out".to_owned(),
            other => other.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_key_says_how_to_fix_it() {
        let e = LlmError::MissingApiKey {
            provider: ProviderKind::Anthropic,
            env_var: "ANTHROPIC_API_KEY",
        };
        let text = e.to_string();
        assert!(text.contains("export ANTHROPIC_API_KEY="), "{text}");
        assert!(text.contains("--provider openai --base-url"), "{text}");
        assert!(text.contains("--explore"), "{text}");
    }

    #[test]
    fn retry_classes() {
        let api = |status| LlmError::Api {
            provider: ProviderKind::OpenAi,
            status,
            kind: String::new(),
            message: String::new(),
            retry_after: None,
        };
        for s in [408, 429, 500, 502, 503, 529] {
            assert!(api(s).is_retryable(), "{s}");
        }
        for s in [400, 401, 403, 404, 413, 422] {
            assert!(!api(s).is_retryable(), "{s}");
        }
    }
}
