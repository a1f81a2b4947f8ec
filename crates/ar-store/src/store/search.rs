//! Searching endpoints by text, host, method and status.

use super::{Endpoint, EndpointStore};

/// A search over endpoints; every given criterion must match.
///
/// ```
/// use ar_store::store::Query;
/// let q = Query::text("orders").with_method("GET").with_status(200);
/// assert_eq!(q.method.as_deref(), Some("GET"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Query {
    /// Case-insensitive substring of the key, template, host, GraphQL
    /// operation, parameter names or concrete paths.
    pub text: Option<String>,
    /// Host, exact or a suffix after a dot (`shop.test` matches `api.shop.test`).
    pub host: Option<String>,
    /// Method, case-insensitive.
    pub method: Option<String>,
    /// A status code seen; a value below 10 is a class (`4` = any 4xx).
    pub status: Option<u16>,
}

impl Query {
    /// Matches everything.
    pub fn all() -> Self {
        Self::default()
    }
    /// A free-text query.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: Some(text.into()),
            ..Self::default()
        }
    }
    /// Adds a host criterion.
    pub fn with_host(mut self, host: impl Into<String>) -> Self {
        self.host = Some(host.into());
        self
    }
    /// Adds a method criterion.
    pub fn with_method(mut self, method: impl Into<String>) -> Self {
        self.method = Some(method.into());
        self
    }
    /// Adds a status criterion (a code, or 1..=5 for a class).
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// Whether `ep` matches.
    pub fn matches(&self, ep: &Endpoint) -> bool {
        if let Some(m) = &self.method
            && !ep.method.eq_ignore_ascii_case(m)
        {
            return false;
        }
        if let Some(h) = &self.host {
            let h = h.to_ascii_lowercase();
            if !(ep.host == h || ep.host.ends_with(&format!(".{h}"))) {
                return false;
            }
        }
        if let Some(s) = self.status {
            let hit = if s < 10 {
                ep.statuses.keys().any(|code| code / 100 == s)
            } else {
                ep.statuses.contains_key(&s)
            };
            if !hit {
                return false;
            }
        }
        if let Some(t) = &self.text {
            let t = t.to_lowercase();
            let has = |s: &str| s.to_lowercase().contains(&t);
            let found = has(ep.key.as_str())
                || has(&ep.template.to_string())
                || ep
                    .graphql
                    .as_ref()
                    .and_then(|g| g.name.as_deref())
                    .is_some_and(has)
                || ep.template.params().flat_map(|p| p.names()).any(has)
                || ep.query.names().any(has)
                || ep.paths.paths().any(has);
            if !found {
                return false;
            }
        }
        true
    }
}

impl EndpointStore {
    /// Endpoints matching `query`, sorted by key.
    pub fn search(&self, query: &Query) -> Vec<&Endpoint> {
        self.endpoints()
            .into_iter()
            .filter(|ep| query.matches(ep))
            .collect()
    }
}
