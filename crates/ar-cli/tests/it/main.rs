//! Integration tests of the `ar` binary: one test binary, one module per capability.

mod agent;
mod archiver;
mod browser;
mod import;
mod infer_schema;
mod proxy;
mod scope;
mod session;
mod shop;
mod take;
