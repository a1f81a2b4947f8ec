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
    /// `ar <url> [flags]`: the session (see `cmd/session/args.rs`).
    #[command(flatten)]
    session: cmd::session::SessionArgs,
}

#[derive(Debug, Subcommand)]
enum Command {
    // One line per subcommand; the arguments and the logic live in `cmd/`.
    /// Capture-only: run the proxy for any client and archive every flow to --out.
    // Boxed: its flags are the most of any command's.
    Proxy(Box<cmd::proxy::Args>),
    /// Show, create or export the interception CA, and how to trust it.
    Ca(cmd::ca::Args),
    /// JSON/JSONL samples → one merged JSON Schema (or OpenAPI 3.0 schema with --openapi).
    InferSchema(cmd::infer_schema::Args),
    /// HAR files / flows.jsonl archives → openapi.yaml, openapi.json and API.md.
    Import(cmd::import::Args),
    /// Serve ar's browser, capture and growing spec to other agents over MCP (stdio, or --http PORT).
    Mcp(cmd::mcp::Args),
    /// A typed client (Python, TypeScript, Rust) for the API in a session's openapi.yaml.
    GenClient(cmd::gen_client::Args),
    /// What changed between two versions of an API, and what breaks a client.
    Diff(cmd::diff::Args),
    /// Explore a built-in demo shop end to end, headless (no network, no API key).
    #[cfg(feature = "demo")]
    Demo(cmd::demo::Args),
}

/// Our subcommand names (and `help`), as clap knows them: an archiver-style
/// check must never take one of these for an archiver key.
pub(crate) fn subcommand_names() -> Vec<String> {
    use clap::CommandFactory as _;
    let mut names: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    names.push("help".to_owned());
    names
}

impl Cli {
    /// Runs the chosen command.
    pub(crate) fn run(self) -> anyhow::Result<ExitCode> {
        let mut stdout = std::io::stdout().lock();
        match self.command {
            None if self.session.url.is_some() || self.session.resume.is_some() => {
                // The session prints from several threads: no lock held here.
                drop(stdout);
                cmd::session::run(self.session)
            }
            None => {
                use clap::CommandFactory as _;
                Cli::command().print_help()?;
                Ok(ExitCode::from(2))
            }
            Some(Command::InferSchema(args)) => cmd::infer_schema::run(args, &mut stdout),
            Some(Command::Proxy(args)) => {
                // The capture thread prints a line per flow: no lock held here.
                drop(stdout);
                cmd::proxy::run(*args)
            }
            Some(Command::Ca(args)) => cmd::ca::run(args, &mut stdout),
            Some(Command::Import(args)) => cmd::import::run(args, &mut stdout),
            Some(Command::Mcp(args)) => {
                // Stdout is the protocol's from here on.
                drop(stdout);
                cmd::mcp::run(args)
            }
            Some(Command::GenClient(args)) => cmd::gen_client::run(args, &mut stdout),
            Some(Command::Diff(args)) => cmd::diff::run(args, &mut stdout),
            #[cfg(feature = "demo")]
            Some(Command::Demo(args)) => {
                drop(stdout);
                cmd::demo::run(args, &mut std::io::stdout())
            }
        }
    }
}

/// An error that ends `ar` with its own exit status instead of 1: `ar diff` keeps 1 for
/// "breaking changes found", so input it cannot compare exits 2.
#[derive(Debug)]
pub(crate) struct Failure {
    /// The exit status.
    pub(crate) status: u8,
    /// What went wrong, printed as any other error.
    pub(crate) error: anyhow::Error,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error)
    }
}

/// The cause chain is the inner error's: `{:#}` prints it as for any other error.
impl std::error::Error for Failure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.error.source()
    }
}
