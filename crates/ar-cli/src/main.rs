//! `ar` (auto-reverse): reverse-engineer a website's HTTP API.
//!
//! The binary stays thin: it parses arguments into a config, wires the
//! library crates together (the running parts are `ar-session`) and prints.
//! Each subcommand lives in `cmd/`; `ar <url>` in `cmd/session`.

// Doc comments on clap arguments are the `--help` text, where placeholders
// such as `<host>` are meant literally, not as HTML.
#![allow(rustdoc::invalid_html_tags)]

mod archiver;
mod args;
mod cli;
mod cmd;

use std::process::ExitCode;

use clap::Parser as _;

/// mimalloc instead of glibc malloc: the proxy builds flows on the runtime
/// workers and frees them on the capture thread, a cross-thread
/// pattern glibc's per-thread caches handle poorly (≈6k fewer instructions
/// per proxied request; large downloads pay instead, see ARCHITECTURE.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let ours = cli::subcommand_names();
    let ours: Vec<&str> = ours.iter().map(String::as_str).collect();
    if archiver::is_archiver_call(&args, &ours) {
        eprintln!("{}", archiver::exec_next_archiver(&args));
        return ExitCode::from(127);
    }
    let cli = cli::Cli::parse();
    match cli.run() {
        Ok(code) => code,
        Err(error) => {
            eprintln!("ar: error: {error:#}");
            error
                .downcast_ref::<cli::Failure>()
                .map_or(ExitCode::FAILURE, |failure| ExitCode::from(failure.status))
        }
    }
}
