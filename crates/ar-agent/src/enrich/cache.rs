//! `enrichment.json`: the names the model gave, by stable key, plus the keys
//! whose call failed (retried later). Written atomically by the caller;
//! read back on `--resume` so no endpoint is paid for twice.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use ar_openapi::{Annotation, Enrichment};
use serde::{Deserialize, Serialize};

use super::EnrichError;

/// The file's name in the output directory.
pub const ENRICHMENT_FILE: &str = "enrichment.json";

/// Names by stable key, and keys still to retry.
///
/// ```
/// use ar_agent::enrich::EnrichmentCache;
/// use ar_openapi::Annotation;
/// let mut cache = EnrichmentCache::default();
/// cache.insert("GET shop.test/api/products", Annotation { operation_id: Some("listProducts".into()), ..Default::default() });
/// let json = cache.to_json();
/// let back = EnrichmentCache::from_json(&json).unwrap();
/// assert_eq!(back.enrichment()["GET shop.test/api/products"].operation_id.as_deref(), Some("listProducts"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnrichmentCache {
    /// Format version.
    #[serde(default = "version")]
    version: u32,
    /// Names by key.
    #[serde(default)]
    names: BTreeMap<String, Annotation>,
    /// Keys whose call failed: they keep their deterministic names for now.
    #[serde(default)]
    failed: BTreeSet<String>,
}

fn version() -> u32 {
    1
}

impl Default for EnrichmentCache {
    fn default() -> Self {
        Self {
            version: version(),
            names: BTreeMap::new(),
            failed: BTreeSet::new(),
        }
    }
}

impl EnrichmentCache {
    /// Reads `dir/enrichment.json`; a missing file is an empty cache.
    ///
    /// # Errors
    /// When the file exists but cannot be read or parsed.
    pub fn load(dir: &Path) -> Result<Self, EnrichError> {
        let path = dir.join(ENRICHMENT_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Self::from_json(&text).map_err(|reason| EnrichError::Cache {
                action: "read",
                path: path.display().to_string(),
                reason,
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(e) => Err(EnrichError::Cache {
                action: "read",
                path: path.display().to_string(),
                reason: e.to_string(),
            }),
        }
    }

    /// Parses the JSON form.
    ///
    /// # Errors
    /// The parser's message.
    pub fn from_json(text: &str) -> Result<Self, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// The JSON form (pretty, stable order).
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// The name of `key`, if known.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&Annotation> {
        self.names.get(key)
    }

    /// Records a name (and clears an earlier failure).
    pub fn insert(&mut self, key: impl Into<String>, annotation: Annotation) {
        let key = key.into();
        self.failed.remove(&key);
        self.names.insert(key, annotation);
    }

    /// Moves a name to an endpoint's new key (its template widened).
    pub fn rekey(&mut self, old: &str, new: &str) {
        if let Some(annotation) = self.names.remove(old) {
            self.names.entry(new.to_owned()).or_insert(annotation);
        }
    }

    /// Records a failed call.
    pub fn mark_failed(&mut self, key: impl Into<String>) {
        self.failed.insert(key.into());
    }

    /// Keys whose call failed and that have no name yet.
    #[must_use]
    pub fn failed(&self) -> &BTreeSet<String> {
        &self.failed
    }

    /// Every name, for the documenter.
    #[must_use]
    pub fn enrichment(&self) -> Enrichment {
        self.names.clone()
    }

    /// How many endpoints are named.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether nothing is named.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}
