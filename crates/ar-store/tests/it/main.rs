//! Integration tests of ar-store: one binary, one module per area.

mod archive;
mod golden;
mod har;
mod narrowing;
mod store;
mod support;
mod templating;
