//! Integration tests of ar-diff: one binary, one module per concern.

#![expect(
    clippy::disallowed_methods,
    reason = "tests read their fixtures and the spec-bench corpus; the crate stays pure"
)]

mod corpus;
mod drift;
mod golden;
mod laws;
mod matching;

use ar_diff::Document;
use serde_json::Value;

/// A fixture of `tests/it/fixtures/`, parsed from YAML.
pub(crate) fn fixture(name: &str) -> Document {
    let path = format!("{}/tests/it/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let value: Value = serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    Document::from_value(value).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A document from a JSON value, which must be valid.
pub(crate) fn doc(value: Value) -> Document {
    Document::from_value(value).expect("a valid document")
}
