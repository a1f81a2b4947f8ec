//! Integration tests of ar-store: one binary, one module per area.

#![expect(
    clippy::disallowed_methods,
    clippy::disallowed_types,
    reason = "tests read fixtures from disk; the crate they test stays pure"
)]

mod golden;
mod narrowing;
mod store;
mod support;
mod templating;
