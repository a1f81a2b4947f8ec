//! Drivers: whoever takes the browser for a turn (the explorer, the LLM
//! agent once it lands, or a scripted list of pages).
//!
//! The session owns the browser and the proxy; a [`Driver`] borrows the
//! browser through [`DriverContext`] for one turn. While it runs, the proxy
//! stamps every flow with [`Driver::client`], so the archive says who caused
//! each request. Ctrl-C or `/stop` cancels [`DriverContext::cancel`]; a
//! driver checks it between actions and returns what it did so far, so
//! everything captured stays (a cancelled turn is not an error).

use std::sync::Arc;

use ar_agent::browser::{Browser, Wait};
use ar_store::Client;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// What a driver gets for its turn.
pub struct DriverContext {
    /// The session's browser (already behind the capture proxy).
    pub browser: Arc<dyn Browser>,
    /// Cancelled by Ctrl-C, `/stop`, `/take` or shutdown: end the turn soon.
    pub cancel: CancellationToken,
    /// Progress lines for the user (`visited /products`), printed as they come.
    pub progress: mpsc::UnboundedSender<String>,
}

impl DriverContext {
    /// Sends a progress line; a closed receiver (session ending) is fine.
    pub fn say(&self, line: impl Into<String>) {
        let _ = self.progress.send(line.into());
    }
}

/// A driver's report at the end of its turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnReport {
    /// One line on what the turn did (`visited 12 pages, 40 actions`).
    pub summary: String,
    /// Whether the turn ended because it was cancelled.
    pub cancelled: bool,
}

/// Something that drives the browser for a turn.
#[async_trait::async_trait]
pub trait Driver: Send {
    /// Who drives: flows started during the turn carry this.
    fn client(&self) -> Client;

    /// A short name for messages (`explorer`, `agent`).
    fn name(&self) -> &str;

    /// Runs the turn until done or `ctx.cancel` fires.
    async fn run(&mut self, ctx: DriverContext) -> anyhow::Result<TurnReport>;
}

/// Opens a fixed list of pages one after another and waits for each to go
/// quiet: `/open URL` in the REPL, and the way tests drive a real browser
/// through a session without the explorer.
#[derive(Debug, Clone)]
pub struct PageVisits {
    urls: Vec<String>,
    client: Client,
}

impl PageVisits {
    /// Visits `urls` in order on behalf of `client`.
    pub fn new(urls: Vec<String>, client: Client) -> Self {
        Self { urls, client }
    }
}

#[async_trait::async_trait]
impl Driver for PageVisits {
    fn client(&self) -> Client {
        self.client
    }

    fn name(&self) -> &str {
        "open"
    }

    async fn run(&mut self, ctx: DriverContext) -> anyhow::Result<TurnReport> {
        let mut visited = 0usize;
        for url in &self.urls {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let step = async {
                let page = ctx.browser.navigate(url).await?;
                // Single-page apps fetch their data after `load`.
                ctx.browser.wait(Wait::network_idle()).await?;
                Ok::<_, ar_agent::browser::BrowserError>(page)
            };
            tokio::select! {
                () = ctx.cancel.cancelled() => break,
                result = step => match result {
                    Ok(page) => {
                        visited += 1;
                        ctx.say(format!("opened {} — {}", page.url, page.title));
                    }
                    Err(error) => ctx.say(format!("cannot open {url}: {error}")),
                },
            }
        }
        let cancelled = ctx.cancel.is_cancelled();
        Ok(TurnReport {
            summary: format!("opened {visited} of {} pages", self.urls.len()),
            cancelled,
        })
    }
}
