//! Subcommands: each module holds its clap `Args` and a `run` function.

pub(crate) mod ca;
#[cfg(feature = "demo")]
pub(crate) mod demo;
pub(crate) mod diff;
pub(crate) mod gen_client;
pub(crate) mod import;
pub(crate) mod infer_schema;
pub(crate) mod mcp;
pub(crate) mod proxy;
pub(crate) mod session;
