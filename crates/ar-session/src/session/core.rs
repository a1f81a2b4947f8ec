//! [`Session`]: the running parts of `ar <url>` (CA, proxy, capture
//! pipeline, browser) and the commands that act on them. It prints nothing
//! itself: every method writes to the `&mut dyn Write` it is given, so the
//! REPL, scripts and tests drive it the same way.

use std::io::Write;
use std::sync::Arc;

use anyhow::Context as _;
use ar_agent::browser::{Browser, Wait};
use ar_agent::llm::Provider;
use ar_capture::{CertificateAuthority, Proxy, ProxyHandle, Refusals};
use ar_store::Client;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::agent::AgentSlot;
use super::capture::Capture;
use super::commands::{Command, HELP};
use super::config::SessionConfig;
use super::driver::{Driver, DriverContext, PageVisits, TurnReport};
use super::event::Event;
use super::explore::Explorer;
use super::handles::SessionHandles;
use super::manifest::Manifest;
use super::status::{Counters, Style, status_line};
use crate::web::{PipelineBackend, Replayer};
use ar_browser::{BrowserConfig, ChromeBrowser};
use ar_web::{Live, SessionView, WebConfig, WebUi};

/// Least time between two status lines that only count more flows.
const STATUS_QUIET: std::time::Duration = std::time::Duration::from_secs(5);

/// What the caller should do after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Keep reading input.
    Continue,
    /// Flush everything and exit.
    Quit,
}

/// A driver's turn in progress.
struct Turn {
    name: String,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<()>,
    before: Counters,
}

/// A finished turn, for the caller to report.
#[derive(Debug)]
pub struct TurnOutcome {
    /// The driver's name.
    pub name: String,
    /// Its report, or why it failed.
    pub result: anyhow::Result<TurnReport>,
    /// What the turn added.
    pub added: Counters,
    /// What the proxy's lock on destructive requests refused during the turn.
    pub refused: Refusals,
}

/// Whether the proxy refuses destructive requests while `explorer` (or
/// another driver) drives: only for the explorer, unless `--explore-unsafe`.
fn locks_destructive(config: &SessionConfig, explorer: bool) -> bool {
    explorer && !config.explore_unsafe
}

/// The running session.
pub struct Session {
    config: SessionConfig,
    style: Style,
    manifest: Manifest,
    capture: Capture,
    proxy: Option<ProxyHandle>,
    browser: Option<Arc<ChromeBrowser>>,
    turn: Option<Turn>,
    events: mpsc::UnboundedSender<Event>,
    /// Counters when the user took the browser (`/take`), until `/done`.
    taken: Option<Counters>,
    /// Counters last shown on a status line, and when.
    shown: Counters,
    shown_at: std::time::Instant,
    /// The LLM agent and the enrichment worker.
    agent: AgentSlot,
    /// The live web view and its feed.
    ui: Option<(WebUi, Live)>,
    /// Sends requests again through the proxy (the web view's and the agent's replay).
    replayer: Replayer,
}

impl Session {
    /// Starts everything: output dir, CA, pipeline (re-ingesting the archive
    /// on resume), proxy, browser on the target page.
    /// Events (progress, new endpoints, turn ends) arrive on the returned receiver.
    pub async fn start(
        config: SessionConfig,
        style: Style,
        out: &mut (dyn Write + Send),
    ) -> anyhow::Result<(Self, mpsc::UnboundedReceiver<Event>)> {
        std::fs::create_dir_all(&config.out_dir).with_context(|| {
            format!(
                "cannot create the output directory {}",
                config.out_dir.display()
            )
        })?;
        let previous = if config.resume {
            Some(Manifest::load(&config.out_dir)?)
        } else {
            None
        };
        let mut manifest = config.manifest(previous, time::OffsetDateTime::now_utc());

        let ca_dir = match &config.ca_dir {
            Some(dir) => dir.clone(),
            None => CertificateAuthority::default_dir()?,
        };
        let ca = Arc::new(
            CertificateAuthority::load_or_create(&ca_dir).with_context(|| {
                format!("cannot load or create ar's CA in {}", ca_dir.display())
            })?,
        );

        let (events, events_rx) = mpsc::unbounded_channel();
        let (flows_tx, flows_rx) = mpsc::channel(crate::pipeline::capture_threads::BATCH_QUEUE);
        let live = config
            .ui_port
            .map(|_| Live::new(SessionView::new(config.target.as_str())));
        let capture = Capture::start(&config, flows_rx, events.clone(), live.clone(), out)?;
        let first_id = capture.next_flow_id();

        let mut builder = Proxy::builder(Arc::clone(&ca))
            .port(config.proxy_port)
            .batch_sink(flows_tx)
            .client(if config.explore {
                Client::Explorer
            } else {
                Client::Human
            })
            // The explorer's first page loads while the session starts.
            .destructive_lock(locks_destructive(&config, config.explore))
            .first_flow_id(first_id)
            .offline(config.offline);
        for entry in &config.resolve {
            builder = builder.resolve_entry(entry)?;
        }
        if let Some(path) = &config.upstream_ca {
            builder = builder.upstream_roots_pem(path)?;
        }
        if let Some(upstream) = &config.upstream_proxy {
            builder = builder.upstream_proxy(upstream.clone());
        }
        let proxy = builder
            .bind()
            .await
            .context("cannot start the capture proxy")?;
        let proxy_addr = proxy.local_addr();
        let proxy = proxy.spawn();
        let replayer = Replayer::new(proxy_addr, ca.cert_der().clone())?;
        let ui = match (live, config.ui_port) {
            (Some(live), Some(port)) => {
                let backend = PipelineBackend::new(
                    capture.runner(),
                    capture.templater(),
                    replayer.clone(),
                    config.out_dir.clone(),
                );
                let said = events.clone();
                let config = WebConfig::port(port).on_refusal(move |line| {
                    let _ = said.send(Event::Message(format!("warning: {line}")));
                });
                let ui = WebUi::start(config, live.clone(), backend)
                    .await
                    .context("cannot start the live web view (--no-ui goes without it)")?;
                Some((ui, live))
            }
            _ => None,
        };
        manifest.save(
            &config.out_dir,
            capture.counters(),
            time::OffsetDateTime::now_utc(),
        )?;

        writeln!(out, "{} {}", style.bold("ar:"), config.target)?;
        writeln!(out, "  output   {}", config.out_dir.display())?;
        writeln!(
            out,
            "  proxy    http://{proxy_addr} (CA {})",
            ca_dir.display()
        )?;
        if let Some(upstream) = &config.upstream_proxy {
            writeln!(out, "{}", super::upstream_line(upstream))?;
        }
        if let Some((ui, _)) = &ui {
            writeln!(out, "  ui       {}", ui.url())?;
        }
        if let Some(against) = &config.against {
            writeln!(
                out,
                "  against  {} (drift in {})",
                against.name(),
                config
                    .out_dir
                    .join(crate::pipeline::drift::DRIFT_MD)
                    .display()
            )?;
        }

        let agent = AgentSlot::start(&config, capture.runner(), &events, out)?;
        let browser_config = BrowserConfig {
            headless: config.headless,
            proxy: Some(proxy_addr.to_string()),
            spki_hashes: vec![ca.spki_sha256_base64()],
            profile: config.profile.clone(),
            webdriver: config.webdriver.clone(),
            ..BrowserConfig::default()
        };
        let mut session = Self {
            config,
            style,
            manifest,
            capture,
            proxy: Some(proxy),
            browser: None,
            turn: None,
            events,
            taken: None,
            shown: Counters::default(),
            shown_at: std::time::Instant::now(),
            agent,
            ui,
            replayer,
        };
        session.drive_as(if session.config.explore {
            Client::Explorer
        } else {
            Client::Human
        });
        let browser = match ChromeBrowser::launch(&browser_config).await {
            Ok(browser) => Arc::new(browser),
            Err(error) => {
                // Keep what was captured (nothing yet, or a resumed archive) consistent.
                let _ = session.shutdown(&mut std::io::sink()).await;
                return Err(anyhow::Error::new(error).context("cannot start the browser"));
            }
        };
        writeln!(
            out,
            "  browser  Chromium{}",
            if session.config.headless {
                " (headless)"
            } else {
                ""
            }
        )?;
        let target = session.config.target.to_string();
        match browser.navigate(&target).await {
            Ok(page) => writeln!(out, "  opened   {} — {}", page.url, page.title)?,
            Err(error) => writeln!(
                out,
                "  {}",
                style.warn(&format!("cannot open {target}: {error}"))
            )?,
        }
        let _ = browser.wait(Wait::network_idle()).await;
        session.browser = Some(browser);
        Ok((session, events_rx))
    }

    /// The session's config.
    pub fn config(&self) -> &SessionConfig {
        &self.config
    }

    /// The agent's state.
    pub fn agent_slot(&self) -> &AgentSlot {
        &self.agent
    }

    /// The handles a driver's tools get to the running session.
    pub fn handles(&self) -> SessionHandles {
        SessionHandles {
            run: self.capture.runner(),
            scoper: self.capture.scoper(),
            replayer: self.replayer.clone(),
            counters: self.capture.counters_watch(),
            events: self.events.clone(),
        }
    }

    /// The browser, while it runs.
    pub fn browser(&self) -> Option<Arc<dyn Browser>> {
        self.browser
            .as_ref()
            .map(|b| Arc::clone(b) as Arc<dyn Browser>)
    }

    /// Runs closures on the capture pipeline (the agent's tools).
    pub fn runner(&self) -> crate::pipeline::enrich::Runner {
        self.capture.runner()
    }

    /// The counters as a watch.
    pub fn counters_watch(&self) -> tokio::sync::watch::Receiver<Counters> {
        self.capture.counters_watch()
    }

    /// Bumped each time the documents are rewritten.
    pub fn written_watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.capture.written_watch()
    }

    /// What has been captured and documented so far.
    pub fn counters(&self) -> Counters {
        self.capture.counters()
    }

    /// Adds a line the user was shown to the web view's Session panel.
    pub fn show_progress(&self, line: &str) {
        if let Some((_, live)) = &self.ui {
            live.progress(line);
        }
    }

    /// The live web view's URL (token included), when it runs.
    pub fn ui_url(&self) -> Option<&str> {
        self.ui.as_ref().map(|(ui, _)| ui.url())
    }

    /// Whether a driver's turn is running.
    pub fn turn_running(&self) -> bool {
        self.turn.is_some()
    }

    /// A status line when the counters changed: at once for a new endpoint
    /// or host, at most every few seconds for more flows (no scrolling flood).
    pub fn status_update(&mut self) -> Option<String> {
        let now = self.counters();
        let news = now.endpoints != self.shown.endpoints || now.hosts != self.shown.hosts;
        let more = now != self.shown && self.shown_at.elapsed() >= STATUS_QUIET;
        (news || more).then(|| {
            self.shown = now;
            self.shown_at = std::time::Instant::now();
            status_line(self.style, now)
        })
    }

    /// Closes the books on the turn that just sent [`Event::TurnEnded`].
    pub fn end_turn(&mut self, result: anyhow::Result<TurnReport>) -> TurnOutcome {
        self.drive_as(Client::Human);
        let (name, before) = match self.turn.take() {
            Some(turn) => (turn.name, turn.before),
            None => ("driver".to_owned(), self.counters()),
        };
        let added = self.counters().since(before);
        // Since the last turn ended: the lock is on only while the explorer
        // drives, from the page `--explore` opens at start-up to here.
        let refused = (self.proxy.as_ref()).map_or_else(Refusals::default, |p| p.take_refusals());
        TurnOutcome {
            name,
            result,
            added,
            refused,
        }
    }

    /// Tells the proxy who drives from now on: it stamps their flows, and
    /// locks out destructive requests while the explorer drives (unless
    /// `--explore-unsafe`).
    pub fn drive_as(&self, client: Client) {
        if let Some((_, live)) = &self.ui {
            live.set_driver(match client {
                Client::Explorer => "explorer",
                Client::Agent => "agent",
                Client::Replay => "replay",
                Client::Human | Client::Unknown => "human",
            });
        }
        if let Some(proxy) = &self.proxy {
            proxy.set_client(client);
            proxy.set_destructive_lock(locks_destructive(&self.config, client == Client::Explorer));
        }
    }

    /// Hands the browser to `driver` for a turn; false (with a message) when busy.
    pub fn start_turn(
        &mut self,
        mut driver: Box<dyn Driver>,
        out: &mut (dyn Write + Send),
    ) -> anyhow::Result<bool> {
        if let Some(turn) = &self.turn {
            writeln!(out, "the {} is still running: /stop it first", turn.name)?;
            return Ok(false);
        }
        if self.taken.is_some() && driver.client() != Client::Human {
            writeln!(out, "you have the browser: /done gives it back first")?;
            return Ok(false);
        }
        let Some(browser) = &self.browser else {
            writeln!(out, "the browser is not running")?;
            return Ok(false);
        };
        self.drive_as(driver.client());
        let cancel = CancellationToken::new();
        let (progress, mut progress_rx) = mpsc::unbounded_channel::<String>();
        let ctx = DriverContext {
            browser: Arc::clone(browser) as Arc<dyn Browser>,
            cancel: cancel.clone(),
            progress,
        };
        let name = driver.name().to_owned();
        let events = self.events.clone();
        let task = tokio::spawn(async move {
            let turn = tokio::spawn(async move { driver.run(ctx).await });
            // Progress lines reach the user in order, before the turn's end.
            while let Some(line) = progress_rx.recv().await {
                let _ = events.send(Event::Message(line));
            }
            let result = turn.await.unwrap_or_else(|join_error| {
                Err(anyhow::anyhow!(
                    "the driver stopped unexpectedly: {join_error}"
                ))
            });
            let _ = events.send(Event::TurnEnded(result));
        });
        self.turn = Some(Turn {
            name,
            cancel,
            task,
            before: self.counters(),
        });
        Ok(true)
    }

    /// Runs the user's `/open` while the agent's turn waits for them
    /// (`ask_human` then `/take`): the pages load now, outside the turn, and
    /// their flows are the user's (the proxy was switched at `/take`).
    fn visit_beside_turn(
        &mut self,
        mut visits: Box<dyn Driver>,
        out: &mut (dyn Write + Send),
    ) -> anyhow::Result<()> {
        let Some(browser) = &self.browser else {
            writeln!(out, "the browser is not running")?;
            return Ok(());
        };
        let (progress, mut progress_rx) = mpsc::unbounded_channel::<String>();
        let ctx = DriverContext {
            browser: Arc::clone(browser) as Arc<dyn Browser>,
            cancel: CancellationToken::new(),
            progress,
        };
        let events = self.events.clone();
        tokio::spawn(async move {
            let visit = tokio::spawn(async move { visits.run(ctx).await });
            while let Some(line) = progress_rx.recv().await {
                let _ = events.send(Event::Message(line));
            }
            let line = match visit.await {
                Ok(Ok(report)) => report.summary,
                Ok(Err(error)) => format!("error: {error:#}"),
                Err(error) => format!("error: the page visits stopped: {error}"),
            };
            let _ = events.send(Event::Message(line));
        });
        Ok(())
    }

    /// Asks the running turn to stop; false when none runs.
    pub fn stop_turn(&mut self) -> bool {
        match &self.turn {
            Some(turn) => {
                turn.cancel.cancel();
                true
            }
            None => false,
        }
    }

    /// The name of the running driver.
    pub fn turn_name(&self) -> Option<&str> {
        self.turn.as_ref().map(|t| t.name.as_str())
    }

    /// Runs one command.
    pub async fn handle(
        &mut self,
        command: Command,
        out: &mut (dyn Write + Send),
    ) -> anyhow::Result<Next> {
        match command {
            Command::Quit => return Ok(Next::Quit),
            Command::Help => writeln!(out, "{HELP}")?,
            Command::Status => writeln!(out, "{}", status_line(self.style, self.counters()))?,
            Command::Ui => match self.ui_url() {
                Some(url) => writeln!(out, "live web view: {url}")?,
                None => writeln!(out, "the live web view is off (--no-ui)")?,
            },
            Command::Stop => {
                if self.stop_turn() {
                    writeln!(
                        out,
                        "stopping the {}…",
                        self.turn_name().unwrap_or("driver")
                    )?;
                } else {
                    writeln!(out, "nothing is running")?;
                }
            }
            Command::Take => self.take(out)?,
            Command::Done => self.done(out)?,
            Command::Flows(query) => self.capture.list_endpoints(query.as_deref(), out).await?,
            Command::Spec => self.capture.describe_spec(out).await?,
            Command::Scope { host, add } => self.change_scope(&host, add, out).await?,
            Command::Save => self.save(out).await?,
            Command::Explore => self.explore(out)?,
            Command::Open(urls) => {
                let urls = urls
                    .iter()
                    .map(|u| self.resolve_url(u))
                    .collect::<anyhow::Result<Vec<_>>>()?;
                // The user asked for these pages, so their flows are the user's.
                let visits = Box::new(PageVisits::new(urls, Client::Human));
                if self.taken.is_some() && self.agent.waiting_for_human() {
                    // The agent's turn is parked in ask_human and the browser is the user's.
                    self.visit_beside_turn(visits, out)?;
                } else {
                    self.start_turn(visits, out)?;
                }
            }
            Command::Intent(text) => self.intent(text, out)?,
            Command::Unknown(word) => writeln!(out, "unknown command /{word}: /help lists them")?,
            Command::Usage(usage) => writeln!(out, "usage: {usage}")?,
        }
        Ok(Next::Continue)
    }

    /// `/take`: stop any driver, stamp flows as human, remember the counters.
    fn take(&mut self, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
        if self.taken.is_some() {
            writeln!(out, "you already have the browser: /done gives it back")?;
            return Ok(());
        }
        if self.agent.waiting_for_human() {
            // The agent asked for this: it keeps waiting until /done.
            self.drive_as(Client::Human);
            self.taken = Some(self.counters());
            writeln!(
                out,
                "the browser is yours (the agent is waiting for you); /done hands it back"
            )?;
            return Ok(());
        }
        if self.turn_name() == Some("agent") {
            self.agent.pause();
        }
        if self.stop_turn() {
            writeln!(out, "stopped the {}", self.turn_name().unwrap_or("driver"))?;
        }
        self.drive_as(Client::Human);
        self.taken = Some(self.counters());
        writeln!(
            out,
            "the browser is yours: capture continues and your flows are marked as yours; /done when finished"
        )?;
        if self.config.headless {
            writeln!(out, "(it is headless: /open URL... loads pages for you)")?;
        }
        Ok(())
    }

    /// `/done`: summarise what the user's browsing added.
    fn done(&mut self, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
        if let Some(added) = self.agent.human_done(self.counters()) {
            if self.taken.take().is_some() {
                self.drive_as(Client::Agent);
            }
            writeln!(
                out,
                "thanks: your browsing added {} flows ({} in scope) and {} new endpoints; the agent carries on",
                added.flows, added.in_scope_flows, added.endpoints
            )?;
            return Ok(());
        }
        let Some(before) = self.taken.take() else {
            writeln!(out, "you do not have the browser (/take takes it)")?;
            return Ok(());
        };
        let added = self.counters().since(before);
        writeln!(
            out,
            "thanks: your browsing added {} flows ({} in scope) and {} new endpoints",
            added.flows, added.in_scope_flows, added.endpoints
        )?;
        if self.agent.take_paused() {
            self.resume_agent(added, out)?;
        }
        Ok(())
    }

    /// Starts the explorer's turn on the session's target.
    fn explore(&mut self, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
        let explorer = Explorer::for_session(&self.config);
        if self.start_turn(Box::new(explorer), out)? {
            writeln!(
                out,
                "exploring {} (no LLM; /stop or Ctrl-C ends it)",
                self.config.target
            )?;
        }
        Ok(())
    }

    /// Plain text or `--intent`: an agent turn, a queued follow-up, or the
    /// explorer without a key.
    pub fn intent(&mut self, text: String, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
        let provider = match self.agent.provider() {
            Ok(provider) => provider,
            Err(message) => {
                if self.turn_running() {
                    writeln!(
                        out,
                        "no agent (no API key); the {} is running",
                        self.turn_name().unwrap_or("driver")
                    )?;
                    return Ok(());
                }
                if self.agent.first_warning() {
                    writeln!(out, "{message}")?;
                }
                writeln!(
                    out,
                    "falling back to the built-in explorer (no LLM) for \"{text}\""
                )?;
                return self.explore(out);
            }
        };
        if self.turn_name() == Some("agent") && self.agent.queue(text.clone()) {
            writeln!(
                out,
                "queued: the agent takes it up after the current intent"
            )?;
            return Ok(());
        }
        self.start_agent_turn(provider, text, out)
    }

    /// Starts an agent turn on `text` (creating the agent on first use).
    fn start_agent_turn(
        &mut self,
        provider: Arc<dyn Provider>,
        text: String,
        out: &mut (dyn Write + Send),
    ) -> anyhow::Result<()> {
        let Some(browser) = self.browser() else {
            writeln!(out, "the browser is not running")?;
            return Ok(());
        };
        let workspace = self.agent.workspace(self.handles(), None);
        let driver = self.agent.turn(provider, browser, workspace, text);
        if self.start_turn(driver, out)? {
            writeln!(
                out,
                "the agent is on it (/stop or Ctrl-C ends the turn, /take pauses it)"
            )?;
        }
        Ok(())
    }

    /// `/done` after `/take` paused the agent: resume with what the user added.
    fn resume_agent(
        &mut self,
        added: Counters,
        out: &mut (dyn Write + Send),
    ) -> anyhow::Result<()> {
        let Ok(provider) = self.agent.provider() else {
            return Ok(());
        };
        let text = format!(
            "{} Carry on with the intent.",
            super::agent::summary_for_agent(added)
        );
        self.start_agent_turn(provider, text, out)
    }

    /// `/open` accepts paths relative to the target (`/products`).
    fn resolve_url(&self, text: &str) -> anyhow::Result<String> {
        let url = self
            .config
            .target
            .join(text)
            .with_context(|| format!("`{text}` is not a URL"))?;
        Ok(url.to_string())
    }

    /// Keeps `session.json`'s scope in step with the capture task's.
    fn record_scope(&mut self, hosts: super::capture::ScopeHosts) {
        self.manifest.scope = hosts.extra;
        self.manifest.out_of_scope = hosts.out;
        // Corrections made in the web view are templates too.
        self.manifest.settings.templates = self.capture.templates();
    }

    /// Changes the scope (`/scope add|remove HOST`, the agent's tools):
    /// everything captured is documented again under the new scope.
    pub async fn change_scope(
        &mut self,
        host: &str,
        add: bool,
        out: &mut (dyn Write + Send),
    ) -> anyhow::Result<()> {
        match self.capture.change_scope(host, add).await {
            Ok(line) => {
                self.record_scope(self.capture.scope_hosts());
                writeln!(out, "{line}")?;
            }
            Err(error) => writeln!(out, "{} {error:#}", self.style.warn("error:"))?,
        }
        Ok(())
    }

    /// `/save`: spec and docs, `capture.har`, `session.json`.
    pub async fn save(&mut self, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
        let report = self.capture.save().await?;
        self.record_scope(self.capture.scope_hosts());
        self.manifest.save(
            &self.config.out_dir,
            self.counters(),
            time::OffsetDateTime::now_utc(),
        )?;
        writeln!(
            out,
            "saved {report} and session.json in {}",
            self.config.out_dir.display()
        )?;
        Ok(())
    }

    /// Stops the driver, the browser and the proxy, drains every captured
    /// flow into the archive and the spec, writes everything, and reports.
    pub async fn shutdown(mut self, out: &mut (dyn Write + Send)) -> anyhow::Result<Counters> {
        if let Some(turn) = self.turn.take() {
            turn.cancel.cancel();
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), turn.task).await;
        }
        if let Some(browser) = self.browser.take() {
            match Arc::try_unwrap(browser) {
                Ok(browser) => browser.close().await,
                // A driver still holds it: dropping the last clone kills the process group.
                Err(shared) => drop(shared),
            }
        }
        if let Some(proxy) = self.proxy.take() {
            let stats = proxy.stats();
            proxy.shutdown().await;
            // The proxy never waits for the archive; say so when it had to drop.
            if stats.dropped_archive > 0 {
                writeln!(
                    out,
                    "{} {} flows were not archived: the capture could not keep up with the traffic",
                    self.style.warn("warning:"),
                    stats.dropped_archive
                )?;
            }
        }
        self.agent.shutdown(out).await?;
        self.record_scope(self.capture.scope_hosts());
        let report = self.capture.finish().await?;
        let counters = report.counters;
        self.manifest.save(
            &self.config.out_dir,
            counters,
            time::OffsetDateTime::now_utc(),
        )?;
        writeln!(out, "{}", status_line(self.style, counters))?;
        writeln!(
            out,
            "wrote {report} and session.json in {}",
            self.config.out_dir.display()
        )?;
        Ok(counters)
    }
}
