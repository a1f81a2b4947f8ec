//! Choosing and configuring a provider: explicit settings (flags) win over the
//! environment (`ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`, `OPENAI_API_KEY`,
//! `OPENAI_BASE_URL`, the SDKs' conventions), which win over defaults.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use http::Uri;

use super::Provider;
use super::anthropic::AnthropicWire;
use super::error::LlmError;
use super::http::{HttpClient, HttpSettings};
use super::openai::OpenAiWire;
use super::provider::HttpProvider;
use super::retry::RetryPolicy;
use super::secret::ApiKey;

/// Which wire format to speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderKind {
    /// The Anthropic Messages API.
    Anthropic,
    /// Any OpenAI-compatible chat-completions endpoint (OpenAI, vLLM, llama.cpp, Ollama).
    OpenAi,
}

impl ProviderKind {
    /// The variable holding the key.
    pub fn key_env(self) -> &'static str {
        match self {
            Self::Anthropic => "ANTHROPIC_API_KEY",
            Self::OpenAi => "OPENAI_API_KEY",
        }
    }

    /// The variable holding the base URL.
    pub fn base_url_env(self) -> &'static str {
        match self {
            Self::Anthropic => "ANTHROPIC_BASE_URL",
            Self::OpenAi => "OPENAI_BASE_URL",
        }
    }

    /// The public endpoint. Anthropic's base has no `/v1` (the SDK appends
    /// `/v1/messages`); OpenAI's includes it (the SDK appends `/chat/completions`).
    pub fn default_base_url(self) -> &'static str {
        match self {
            Self::Anthropic => "https://api.anthropic.com",
            Self::OpenAi => "https://api.openai.com/v1",
        }
    }

    /// The model used when none is given.
    pub fn default_model(self) -> &'static str {
        match self {
            Self::Anthropic => "claude-sonnet-4-5",
            Self::OpenAi => "gpt-4.1",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Anthropic => "anthropic",
            Self::OpenAi => "openai",
        })
    }
}

impl FromStr for ProviderKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "anthropic" | "claude" => Ok(Self::Anthropic),
            "openai" | "openai-compatible" => Ok(Self::OpenAi),
            other => Err(format!(
                "unknown provider {other:?}: expected anthropic or openai"
            )),
        }
    }
}

/// How to reach a model. `None` fields are filled from the environment, then
/// from defaults, by [`ProviderConfig::build`].
///
/// ```
/// use ar_agent::llm::{ProviderConfig, ProviderKind};
/// let cfg = ProviderConfig::new(ProviderKind::OpenAi)
///     .with_base_url("http://127.0.0.1:11434/v1")
///     .with_model("llama3.1");
/// // A local server needs no key.
/// let provider = cfg.build(|_| None).unwrap();
/// assert_eq!(provider.model(), "llama3.1");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ProviderConfig {
    /// Which wire format.
    pub kind: ProviderKind,
    /// Model name (`--model`).
    pub model: Option<String>,
    /// Base URL (`--base-url`).
    pub base_url: Option<String>,
    /// API key; normally from the environment.
    pub api_key: Option<ApiKey>,
    /// Retry limits.
    pub retry: RetryPolicy,
    /// Limit on the TCP connect; the TLS handshake counts against `idle_timeout`.
    pub connect_timeout: Duration,
    /// Limit on silence: waiting for the response head or between stream chunks.
    pub idle_timeout: Duration,
    /// Extra trusted roots (DER), e.g. a corporate or test CA.
    pub extra_root_certs_der: Vec<Vec<u8>>,
}

impl ProviderConfig {
    /// Defaults for `kind`: connect timeout 10 s, idle timeout 120 s.
    pub fn new(kind: ProviderKind) -> Self {
        Self {
            kind,
            model: None,
            base_url: None,
            api_key: None,
            retry: RetryPolicy::default(),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            extra_root_certs_der: Vec::new(),
        }
    }

    /// Sets the model.
    #[must_use]
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Sets the base URL.
    #[must_use]
    pub fn with_base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Sets the key.
    #[must_use]
    pub fn with_api_key(mut self, key: ApiKey) -> Self {
        self.api_key = Some(key);
        self
    }

    /// Sets the retry limits.
    #[must_use]
    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Resolves missing settings from `env` (pass [`process_env`] in the
    /// binary, a map lookup in tests) and creates the provider.
    ///
    /// A key is required only for the provider's public endpoint; a
    /// non-default base URL (a local vLLM, llama.cpp or Ollama, or a gateway
    /// that adds credentials) may go without.
    pub fn build(
        self,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Arc<dyn Provider>, LlmError> {
        let kind = self.kind;
        let base = self
            .base_url
            .or_else(|| env(kind.base_url_env()).filter(|v| !v.trim().is_empty()))
            .unwrap_or_else(|| kind.default_base_url().to_owned());
        let base = base.trim().trim_end_matches('/').to_owned();
        let key = self
            .api_key
            .or_else(|| env(kind.key_env()).map(ApiKey::new))
            .filter(|k| !k.is_empty());
        let is_default = base == kind.default_base_url();
        let key = match key {
            Some(k) => k,
            None if is_default => {
                return Err(LlmError::MissingApiKey {
                    provider: kind,
                    env_var: kind.key_env(),
                });
            }
            None => ApiKey::new(""),
        };
        let path = match kind {
            ProviderKind::Anthropic => "/v1/messages",
            ProviderKind::OpenAi => "/chat/completions",
        };
        let url = endpoint_url(&base, path)?;
        let model = self
            .model
            .filter(|m| !m.trim().is_empty())
            .unwrap_or_else(|| kind.default_model().to_owned());
        let http = HttpClient::new(&HttpSettings {
            connect_timeout: self.connect_timeout,
            idle_timeout: self.idle_timeout,
            extra_root_certs_der: self.extra_root_certs_der,
        })?;
        let target = Target {
            url,
            model,
            key,
            http,
            retry: self.retry,
        };
        Ok(match kind {
            ProviderKind::Anthropic => Arc::new(HttpProvider::new(AnthropicWire, target)?),
            ProviderKind::OpenAi => Arc::new(HttpProvider::new(OpenAiWire, target)?),
        })
    }
}

/// Reads a process environment variable; empty counts as unset.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// Everything a provider needs once configuration is resolved.
#[derive(Debug)]
pub(crate) struct Target {
    pub(crate) url: Uri,
    pub(crate) model: String,
    pub(crate) key: ApiKey,
    pub(crate) http: HttpClient,
    pub(crate) retry: RetryPolicy,
}

fn endpoint_url(base: &str, path: &str) -> Result<Uri, LlmError> {
    let invalid = |reason: &str| LlmError::InvalidBaseUrl {
        url: base.to_owned(),
        reason: reason.to_owned(),
    };
    let uri: Uri = base.parse().map_err(|_| invalid("not a URL"))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return Err(invalid("expected http:// or https://"));
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(invalid("no host"));
    }
    if uri.query().is_some() {
        return Err(invalid("a base URL cannot have a query string"));
    }
    format!("{base}{path}")
        .parse()
        .map_err(|_| invalid("not a URL"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_urls() {
        assert_eq!(
            endpoint_url("http://127.0.0.1:8000/v1", "/chat/completions")
                .unwrap()
                .to_string(),
            "http://127.0.0.1:8000/v1/chat/completions"
        );
        assert!(endpoint_url("ftp://x", "/a").is_err());
        assert!(endpoint_url("not a url", "/a").is_err());
        assert!(endpoint_url("http://h/?a=1", "/a").is_err());
    }

    #[test]
    fn provider_names_parse() {
        assert_eq!("OpenAI".parse::<ProviderKind>(), Ok(ProviderKind::OpenAi));
        assert!("gemini".parse::<ProviderKind>().is_err());
    }
}
