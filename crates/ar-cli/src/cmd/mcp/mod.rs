//! `ar mcp`: other agents (Claude Code, Cursor, any MCP client) drive ar's
//! browser and read its growing spec over the Model Context Protocol.
//!
//! ```text
//!  MCP client ──stdio or HTTP──► server (ArMcp) ──► Sites ──► Site: a whole `ar <url>` Session
//!                                   │ tools: ar-agent's registry (ToolBox per site) + site/spec/explore
//!                                   │ resources: ar://<site>/openapi.yaml, API.md, endpoints.json
//!                                   ▼ notifications/resources/updated when the documents are rewritten
//! ```
//!
//! - `catalog`: the tool list, read from ar-agent's registry (the agent's
//!   model sees the same tools) plus the server's own.
//! - `sites`: the open sites, each a [`ar_session::session::Session`] reused as is.
//! - `server`: the MCP handler (tools, resources, subscriptions).
//! - `docs`: the spec, API.md and the endpoint list with evidence.
//! - `human`: `ask_human` through the client (elicitation, else `human_done`).
//! - `http`: the streamable HTTP transport on 127.0.0.1.
//!
//! Stdout is the stdio transport: nothing else may write there. Logs go to
//! stderr (`RUST_LOG` filters them), and every site writes its files into its
//! own output directory as a session does.

mod catalog;
mod docs;
mod http;
mod human;
mod server;
mod sites;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use rmcp::ServiceExt as _;

use server::ArMcp;
use sites::{Defaults, Sites};

/// `ar mcp`: serve ar's browser, capture and spec as MCP tools and resources.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct Args {
    /// Serve the streamable HTTP transport on 127.0.0.1:PORT (path /mcp) instead of stdio.
    #[arg(long, value_name = "PORT")]
    http: Option<u16>,
    /// Where ar's CA lives, for every site opened [default: the user's data dir].
    #[arg(long, value_name = "DIR")]
    ca_dir: Option<PathBuf>,
    /// Use this WebDriver server instead of starting chromedriver.
    #[arg(long, value_name = "URL")]
    webdriver: Option<String>,
}

/// Serves until the client goes (stdio: end of input) or a signal; then
/// closes every site, writing its files.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = runtime.block_on(serve(args));
    // A read of stdin may still be pending: do not wait for it.
    runtime.shutdown_timeout(Duration::from_millis(200));
    result
}

async fn serve(args: Args) -> anyhow::Result<ExitCode> {
    let sites = Arc::new(Sites::new(Defaults {
        ca_dir: args.ca_dir,
        webdriver: args.webdriver,
    }));
    let served = match args.http {
        None => stdio(Arc::clone(&sites)).await,
        Some(port) => http::serve(port, Arc::clone(&sites), stopped()).await,
    };
    sites.close_all().await;
    served?;
    Ok(ExitCode::SUCCESS)
}

/// One client on stdin/stdout, until it closes them or a signal comes.
async fn stdio(sites: Arc<Sites>) -> anyhow::Result<()> {
    let running = ArMcp::new(sites)
        .serve(rmcp::transport::stdio())
        .await
        .context("the MCP client did not complete the handshake on stdin")?;
    tracing::info!("serving MCP on stdio");
    let cancel = running.cancellation_token();
    tokio::select! {
        quit = running.waiting() => {
            tracing::info!("the client went: {quit:?}");
        }
        () = stopped() => {
            tracing::info!("signalled: closing the sites");
            cancel.cancel();
        }
    }
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM.
async fn stopped() {
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = term => {}
    }
}

/// Logs to stderr: stdout carries the protocol.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,ar=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}
