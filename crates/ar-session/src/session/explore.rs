//! `/explore` and `--explore`: the built-in, no-LLM explorer
//! ([`ar_agent::explorer`]) as a session driver. Its flows are stamped
//! [`Client::Explorer`]; each thing it does is a progress line; Ctrl-C or
//! `/stop` cancels it between actions.

use ar_agent::explorer::{ExplorerConfig, StopReason, explore};
use ar_store::Client;

use super::config::SessionConfig;
use super::driver::{Driver, DriverContext, TurnReport};

/// The explorer, configured from the session's flags.
#[derive(Debug, Clone)]
pub struct Explorer {
    config: ExplorerConfig,
}

impl Explorer {
    /// The explorer for this session: from its target, within its budgets;
    /// destructive actions only with `--explore-unsafe`.
    pub fn for_session(session: &SessionConfig) -> Self {
        let mut config = ExplorerConfig::new(session.target.as_str());
        config.allow_destructive = session.explore_unsafe;
        if let Some(pages) = session.explore_pages {
            config.max_pages = pages;
        }
        if let Some(time) = session.explore_time {
            config.time_budget = time;
        }
        Self { config }
    }

    /// The same explorer with a budget of `pages` pages and, when given, `time`.
    pub fn with_budget(mut self, pages: usize, time: Option<std::time::Duration>) -> Self {
        self.config.max_pages = pages.max(1);
        if let Some(time) = time {
            self.config.time_budget = time;
        }
        self
    }
}

#[async_trait::async_trait]
impl Driver for Explorer {
    fn client(&self) -> Client {
        Client::Explorer
    }

    fn name(&self) -> &str {
        "explorer"
    }

    async fn run(&mut self, ctx: DriverContext) -> anyhow::Result<TurnReport> {
        let progress = ctx.progress.clone();
        let mut on_event = move |event: ar_agent::explorer::ExplorerEvent| {
            let _ = progress.send(format!("  {event}"));
        };
        let report = explore(&*ctx.browser, &self.config, &ctx.cancel, &mut on_event).await?;
        let mut summary = format!(
            "{} pages, {} actions, {} forms submitted, {} distinct requests; {}",
            report.pages_visited,
            report.actions,
            report.forms_submitted,
            report.request_shapes,
            report.budget_line(&self.config)
        );
        let left = report.left_out();
        if !left.is_empty() {
            summary.push_str("\nleft untried:");
            for line in left {
                summary.push_str("\n  ");
                summary.push_str(&line);
            }
        }
        Ok(TurnReport {
            summary,
            cancelled: report.stopped == StopReason::Cancelled,
        })
    }
}
