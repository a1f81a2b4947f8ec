//! The flags of `ar <url>`, flattened into the top-level command line.
//!
//! Parsing stops at strings; [`super::config::SessionConfig::from_args`]
//! turns them into a validated config (target URL, scope hosts, resolve
//! entries), so the rest of the session never re-checks them.

use std::path::PathBuf;

use crate::pipeline::TemplateArgs;

/// The LLM provider the agent would use (issue 8 plugs the agent in).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Provider {
    /// The Anthropic Messages API (`ANTHROPIC_API_KEY`).
    Anthropic,
    /// Any OpenAI-compatible chat-completions endpoint (`OPENAI_API_KEY`).
    Openai,
}

/// `ar <url>`: browse a site through the capture proxy and grow its spec.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct SessionArgs {
    /// The site to reverse-engineer, e.g. `https://shop.example` (a bare host gets https://).
    #[arg(value_name = "URL")]
    pub(crate) url: Option<String>,
    /// Output directory [default: ./ar-out/<host>-<timestamp>/].
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
    /// Run Chromium without a window (CI, servers). Headed by default so you can watch and /take.
    #[arg(long)]
    pub(crate) headless: bool,
    /// A persistent Chromium profile directory (cookies and logins survive across runs).
    #[arg(long, value_name = "DIR")]
    pub(crate) profile: Option<PathBuf>,
    /// More hosts whose traffic belongs in the spec (the target's site is always in scope).
    #[arg(long, value_name = "HOST,...", value_delimiter = ',')]
    pub(crate) scope: Vec<String>,
    /// Path templates (kept in session.json: `--resume` and `ar import` of the
    /// session apply them).
    #[command(flatten)]
    pub(crate) templates: TemplateArgs,
    /// The model the agent uses (needs the agent, see --provider).
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
    /// The LLM provider for the agent.
    #[arg(long, value_enum)]
    pub(crate) provider: Option<Provider>,
    /// The LLM API's base URL (a proxy, vLLM, llama.cpp, Ollama) [default: the provider's, or ANTHROPIC_BASE_URL / OPENAI_BASE_URL].
    #[arg(long, value_name = "URL")]
    pub(crate) base_url: Option<String>,
    /// Model calls per agent turn before it stops [default: 40].
    #[arg(long, value_name = "N")]
    pub(crate) max_steps: Option<usize>,
    /// Tokens (prompt + output) per agent turn before it stops [default: 2000000].
    #[arg(long, value_name = "N")]
    pub(crate) max_tokens: Option<u64>,
    /// Do not ask an LLM to name and describe endpoints; the spec stays complete.
    #[arg(long)]
    pub(crate) no_llm_doc: bool,
    /// Run the built-in explorer (no LLM) right away; without a terminal, exit when it is done.
    #[arg(long)]
    pub(crate) explore: bool,
    /// Let the explorer click destructive things too (logout, delete, pay), and let the
    /// proxy send destructive requests while it drives (DELETE, POST .../delete).
    #[arg(long)]
    pub(crate) explore_unsafe: bool,
    /// The explorer's page budget [default: 40].
    #[arg(long, value_name = "N")]
    pub(crate) explore_pages: Option<usize>,
    /// The explorer's time budget in seconds [default: 180].
    #[arg(long, value_name = "SECS")]
    pub(crate) explore_time: Option<u64>,
    /// Carry on a previous session: reopen its archive and spec and keep appending.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    pub(crate) resume: Option<PathBuf>,
    /// The capture proxy's port on 127.0.0.1 [default: any free port].
    #[arg(long, value_name = "N")]
    pub(crate) proxy_port: Option<u16>,
    /// The live web view.
    #[command(flatten)]
    pub(crate) ui: crate::web::UiArgs,
    /// Use this WebDriver server instead of starting chromedriver.
    #[arg(long, value_name = "URL")]
    pub(crate) webdriver: Option<String>,
    /// Pursue this intent without a REPL and exit when done (repeatable; needs the agent).
    #[arg(long, value_name = "TEXT")]
    pub(crate) intent: Vec<String>,
    /// Send connections for HOST:PORT to ADDR (curl's meaning), e.g. shop.test:443:127.0.0.1.
    #[arg(long, value_name = "HOST:PORT:ADDR")]
    pub(crate) resolve: Vec<String>,
    /// Dial only hosts mapped with --resolve and loopback addresses; never look up a
    /// name (demos and tests on a closed network: browser background traffic stays local).
    #[arg(long)]
    pub(crate) offline: bool,
    /// Also trust the CA certificates in this PEM file for upstream TLS (test sites).
    #[arg(long, value_name = "FILE")]
    pub(crate) upstream_ca: Option<PathBuf>,
    /// Where ar's own CA lives [default: the user's data dir].
    #[arg(long, value_name = "DIR")]
    pub(crate) ca_dir: Option<PathBuf>,
    /// When the session ends, write a typed client of the API it mapped (`ar gen-client`).
    #[arg(long, value_enum, value_name = "LANG")]
    pub(crate) gen_client: Option<crate::cmd::gen_client::Lang>,
    /// Never start the REPL: run the start-up work and exit (`ar demo`); not a flag.
    #[arg(skip)]
    pub(crate) batch: bool,
}
