//! The one error type of this crate.

/// Why samples could not be read. Inference itself cannot fail: only reading JSON text can.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The input is not valid JSON (or JSON Lines); nothing of the failing document was added.
    #[error("invalid JSON at line {line}, column {column}: {reason} (near {near:?})")]
    Syntax {
        /// 1-based line of the error in the input given to this call.
        line: usize,
        /// 1-based column (in bytes) on that line.
        column: usize,
        /// 0-based byte offset in the input given to this call.
        offset: usize,
        /// What was wrong.
        reason: &'static str,
        /// Up to 32 bytes of the input from the error on (lossy UTF-8), to show the user.
        near: String,
    },
    /// The reader failed before all input was read.
    #[error("reading JSON input failed")]
    Read(#[source] std::io::Error),
    /// A [`crate::Tape`] was asked to read a document longer than it can point into.
    #[error("a JSON document of {len} bytes is longer than a tape reads (4 GiB)")]
    TooLong {
        /// The document's length in bytes.
        len: usize,
    },
}

impl Error {
    /// Builds a syntax error for byte `offset` of `input`.
    pub(crate) fn syntax(input: &[u8], offset: usize, reason: &'static str) -> Self {
        let offset = offset.min(input.len());
        let before = &input[..offset];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        let end = (offset + 32).min(input.len());
        Error::Syntax {
            line,
            column: offset - line_start + 1,
            offset,
            reason,
            near: String::from_utf8_lossy(&input[offset..end]).into_owned(),
        }
    }

    /// The 1-based line of a syntax error, if this is one.
    pub fn line(&self) -> Option<usize> {
        match self {
            Error::Syntax { line, .. } => Some(*line),
            Error::Read(_) | Error::TooLong { .. } => None,
        }
    }
}
