//! API keys as a type that cannot leak through a log line.

use std::fmt;

/// An API key. `Debug` and `Display` print `****`, so formatting a config,
/// an error or a request never reveals it; only [`ApiKey::expose`] does, and
/// only the header builders call it.
///
/// ```
/// use ar_agent::llm::ApiKey;
/// let key = ApiKey::new("sk-ant-very-secret");
/// assert_eq!(format!("{key} {key:?}"), "**** ApiKey(****)");
/// assert_eq!(key.expose(), "sk-ant-very-secret");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key. Surrounding whitespace (a common copy-paste accident) is trimmed.
    pub fn new(key: impl Into<String>) -> Self {
        let key: String = key.into();
        Self(key.trim().to_owned())
    }

    /// The key text, for building the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True for an empty key (allowed for local OpenAI-compatible servers).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(****)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("****")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting_masks_the_key_even_nested() {
        #[derive(Debug)]
        #[allow(dead_code, reason = "only formatted")]
        struct Config {
            key: Option<ApiKey>,
        }
        let c = Config {
            key: Some(ApiKey::new(" sk-123\n")),
        };
        let shown = format!("{c:?} {c:#?}");
        assert!(!shown.contains("sk-123"), "{shown}");
        assert_eq!(c.key.unwrap().expose(), "sk-123");
    }
}
