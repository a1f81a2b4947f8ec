//! Subcommands: each module holds its clap `Args` and a `run` function.
