//! Command-line grammar: `ar <url> [flags]` runs a session; subcommands do
//! the other jobs. Each subcommand's arguments and logic live in `cmd/<name>.rs`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::cmd;

const ARCHIVER_NOTE: &str = "\
Note: `ar` shares its name with the binutils archiver. Archiver-style calls
(`ar rcs libfoo.a foo.o`, `ar t libfoo.a`, ...) are passed unchanged to the next
`ar` on PATH (or /usr/bin/ar), so builds keep working with this `ar` first on PATH.";

/// Reverse-engineer a website's HTTP API into an OpenAPI spec and markdown docs.
#[derive(Debug, Parser)]
#[command(name = "ar", version, after_help = ARCHIVER_NOTE, args_conflicts_with_subcommands = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    // One line per subcommand; the arguments and the logic live in `cmd/`.
    /// JSON/JSONL samples → one merged JSON Schema (or OpenAPI 3.0 schema with --openapi).
    InferSchema(cmd::infer_schema::Args),
}

impl Cli {
    /// Runs the chosen command.
    pub(crate) fn run(self) -> anyhow::Result<ExitCode> {
        let mut stdout = std::io::stdout().lock();
        match self.command {
            None => {
                use clap::CommandFactory as _;
                Cli::command().print_help()?;
                Ok(ExitCode::from(2))
            }
            Some(Command::InferSchema(args)) => cmd::infer_schema::run(args, &mut stdout),
        }
    }
}
