//! Settings and optional enrichment for assembling a spec.

use std::collections::BTreeMap;

/// How the spec is assembled. Every field has a sensible default.
///
/// ```
/// let options = ar_openapi::Options { title: "Shop API".into(), ..Default::default() };
/// assert_eq!(options.version, "0.1.0");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// `info.title`.
    pub title: String,
    /// `info.version`.
    pub version: String,
    /// Overrides the main server URL (`https://api.shop.test/v2`); paths under
    /// its path are written relative to it.
    pub base_url: Option<String>,
    /// Object shapes used in at least this many places become component schemas.
    pub component_min_uses: usize,
    /// Write `x-ar-samples` (how many values a schema was built from) into schemas.
    pub sample_counts: bool,
    /// More lines for API.md's overview, in markdown, each written as one bullet after the
    /// counts (the session's drift from a published spec, say).
    pub overview: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            title: "Captured API".into(),
            version: "0.1.0".into(),
            base_url: None,
            component_min_uses: 2,
            sample_counts: false,
            overview: Vec::new(),
        }
    }
}

/// Names and prose for one endpoint, e.g. from an LLM; any field may be absent.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Annotation {
    /// A camelCase operationId.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
    /// One line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// A paragraph.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The tag (group) of the operation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tag: Option<String>,
}

/// Annotations by stable endpoint key (the store's key, e.g. `GET api.shop.test/users/{userId}`).
pub type Enrichment = BTreeMap<String, Annotation>;
