//! Subcommands: each module holds its clap `Args` and a `run` function.

pub(crate) mod infer_schema;
