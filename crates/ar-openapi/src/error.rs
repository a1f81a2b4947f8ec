//! The one error type of ar-openapi.

/// What can go wrong when assembling or writing a spec.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The store given to [`crate::document`] keeps no [`crate::Documenter`].
    #[error(
        "the endpoint store keeps no documentation evidence: build it with `.with_evidence(Documenter::new(..))` before the first flow"
    )]
    NoDocumenter,
    /// The assembled document did not fit the OpenAPI 3.0 types (a bug in ar-openapi).
    #[error("the assembled document is not valid OpenAPI 3.0: {reason}")]
    Typing {
        /// What the OpenAPI types rejected.
        reason: String,
    },
    /// Serialising the document failed.
    #[error("cannot serialise the spec as {format}: {reason}")]
    Serialise {
        /// `YAML` or `JSON`.
        format: &'static str,
        /// Why.
        reason: String,
    },
}
