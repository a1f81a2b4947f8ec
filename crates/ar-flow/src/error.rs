//! The one error type of `ar-flow`: reading and writing flows.
//!
//! Every variant carries the input that failed (entry index and field, line
//! number, body hash) so a user can find the problem in the file without a
//! debugger.

use std::io;

/// Everything that can go wrong reading or writing flows.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// One HAR entry is malformed; `field` is a dotted path inside the entry.
    #[error("entry {index}: {field}: {problem}")]
    HarEntry {
        /// Zero-based index of the entry in `log.entries`.
        index: usize,
        /// Dotted path of the failing field (`request.url`, `response.status`).
        field: String,
        /// What is wrong (`missing`, `expected a string, found 12`, ...).
        problem: String,
    },
    /// The file is not valid JSON (or stops early).
    #[error("HAR is not valid JSON at line {line}, column {column}: {message}")]
    HarSyntax {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's description.
        message: String,
    },
    /// The JSON is well-formed but is not a HAR (no `log.entries`).
    #[error("not a HAR file: {0}")]
    NotHar(String),
    /// Reading the input or writing the output failed.
    #[error("{context}")]
    Io {
        /// What was being done (`writing HAR`, `reading archive line 12`).
        context: String,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// An archive line could not be turned back into a flow.
    #[error("archive line {line}: {problem}")]
    ArchiveLine {
        /// 1-based line number.
        line: u64,
        /// What is wrong.
        problem: String,
    },
    /// A spilled body is missing from the body store or does not match its hash.
    #[error("archive line {line}: body {sha256}: {problem}")]
    ArchiveBody {
        /// 1-based line number of the flow that references the body.
        line: u64,
        /// The content hash the line names.
        sha256: String,
        /// What is wrong (`missing`, `hash mismatch`).
        problem: String,
    },
}

impl Error {
    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }
}
