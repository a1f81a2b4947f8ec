//! The one error type of `ar-store`.
//!
//! Every variant carries the input that failed (glob pattern, endpoint id,
//! position) so a user can find the problem without a debugger. Reading and
//! writing flows (HAR, the archive) fail with [`ar_flow::Error`].

/// Everything that can go wrong in `ar-store`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A user-supplied path glob or host pattern does not compile.
    #[error("invalid scope pattern {pattern:?}: {problem}")]
    ScopePattern {
        /// The pattern as given.
        pattern: String,
        /// Why it was rejected.
        problem: String,
    },
    /// An endpoint id passed to the store does not exist (any more).
    #[error("no endpoint with id {0}")]
    UnknownEndpoint(u32),
    /// A split was asked at a position that holds no parameter.
    #[error("endpoint {key}: segment {position} is not a parameter, nothing to split")]
    NothingToSplit {
        /// The endpoint's stable key.
        key: String,
        /// The 0-based segment position asked for.
        position: usize,
    },
}
