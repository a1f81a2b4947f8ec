//! Integration tests of ar-flow: one binary, one module per format.

#![expect(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "tests read fixtures from disk; the crate they test stays pure"
)]

mod archive;
mod har;
mod support;
