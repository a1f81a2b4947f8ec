//! The LLM agent ([`ar_agent::agent`]) as a session driver, and the
//! enrichment worker's place in the session.
//!
//! - Plain text in the REPL (or `--intent TEXT`) is a turn of one
//!   conversation that lasts the whole session; text typed while a turn
//!   runs is queued and taken up when the current intent is done.
//! - The model's text streams to the REPL line by line; each tool call is a
//!   dim line; token usage (input, cached, output) is printed per turn, and
//!   the session total at exit.
//! - `ask_human` hands the browser to the user until `/done`; `/take`
//!   during a turn pauses the agent and `/done` resumes it with a summary of
//!   what the user's browsing added.
//! - Without an API key, the key's message is shown once and the built-in
//!   explorer runs instead (so `ar <url> --intent ...` still maps the site).

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

use ar_agent::agent::{
    Agent, AgentConfig, AgentEvent, StoreFn, TurnEnd, Workspace, WorkspaceError,
};
use ar_agent::browser::Browser;
use ar_agent::llm::{BoxFuture, Provider, ProviderConfig, ProviderKind, Usage, process_env};
use ar_openapi::Annotation;
use ar_store::Client;
use tokio::sync::{mpsc, oneshot, watch};

use super::config::Provider as ProviderFlag;
use super::config::SessionConfig;
use super::driver::{Driver, DriverContext, TurnReport};
use super::event::Event;
use super::handles::SessionHandles;
use super::status::Counters;
use crate::pipeline::Pipeline;
use crate::pipeline::enrich::{EnrichWorker, Runner};

/// The agent's model, resolved from the flags and the environment.
pub(super) fn provider_for(
    config: &SessionConfig,
) -> Result<Arc<dyn Provider>, ar_agent::llm::LlmError> {
    let kind = match config.provider {
        Some(ProviderFlag::Anthropic) => ProviderKind::Anthropic,
        Some(ProviderFlag::Openai) => ProviderKind::OpenAi,
        None if process_env("ANTHROPIC_API_KEY").is_none()
            && process_env("OPENAI_API_KEY").is_some() =>
        {
            ProviderKind::OpenAi
        }
        None => ProviderKind::Anthropic,
    };
    let mut provider = ProviderConfig::new(kind);
    if let Some(model) = &config.model {
        provider = provider.with_model(model.clone());
    }
    if let Some(url) = &config.base_url {
        provider = provider.with_base_url(url.clone());
    }
    provider.build(process_env)
}

/// A user waiting to be asked back: who to tell, and the counters when asked.
type Waiter = (oneshot::Sender<String>, Counters);

/// The agent's part of the session state.
pub struct AgentSlot {
    provider: Result<Arc<dyn Provider>, String>,
    agent: Option<Arc<tokio::sync::Mutex<Agent>>>,
    inbox: Option<mpsc::UnboundedSender<String>>,
    human: Arc<Mutex<Option<Waiter>>>,
    paused: bool,
    warned: bool,
    config: AgentConfig,
    total: Arc<Mutex<Usage>>,
    enrich: Option<EnrichWorker>,
    /// Whether someone can answer `ask_human` (a REPL on a terminal).
    human_present: bool,
}

impl AgentSlot {
    /// Resolves the provider and, unless `--no-llm-doc`, starts enrichment.
    pub fn start(
        config: &SessionConfig,
        runner: Runner,
        events: &mpsc::UnboundedSender<Event>,
        out: &mut (dyn Write + Send),
    ) -> anyhow::Result<Self> {
        let provider = provider_for(config).map_err(|e| e.to_string());
        let mut enrich = None;
        match (&provider, config.no_llm_doc) {
            (_, true) => {}
            (Ok(provider), false) => {
                let (say, mut said) = mpsc::unbounded_channel::<String>();
                let events = events.clone();
                tokio::spawn(async move {
                    while let Some(line) = said.recv().await {
                        let _ = events.send(Event::Message(line));
                    }
                });
                enrich = Some(EnrichWorker::spawn(
                    Arc::clone(provider),
                    config.out_dir.clone(),
                    runner,
                    say,
                )?);
                writeln!(
                    out,
                    "  naming   endpoints with {} (--no-llm-doc turns it off)",
                    provider.model()
                )?;
            }
            (Err(_), false) => {
                writeln!(
                    out,
                    "  naming   off (no API key): endpoints keep their default names"
                )?;
            }
        }
        let mut agent = AgentConfig::default();
        if let Some(steps) = config.max_steps {
            agent = agent.with_max_steps(steps);
        }
        if let Some(tokens) = config.max_tokens {
            agent = agent.with_max_tokens(tokens);
        }
        Ok(Self {
            provider,
            agent: None,
            inbox: None,
            human: Arc::new(Mutex::new(None)),
            paused: false,
            warned: false,
            config: agent,
            total: Arc::new(Mutex::new(Usage::default())),
            enrich,
            human_present: std::io::IsTerminal::is_terminal(&std::io::stdin())
                && config.intents.is_empty()
                && !config.batch,
        })
    }

    /// The agent's model, or why there is none (no API key).
    pub fn provider(&self) -> Result<Arc<dyn Provider>, String> {
        self.provider.clone()
    }

    /// Whether this is the first time the agent is missing (say why once).
    pub fn first_warning(&mut self) -> bool {
        !std::mem::replace(&mut self.warned, true)
    }

    /// Hands `text` to the agent's running turn, which takes it up after
    /// its current intent; `false` when no turn takes it.
    pub fn queue(&self, text: String) -> bool {
        self.inbox
            .as_ref()
            .is_some_and(|inbox| inbox.send(text).is_ok())
    }

    /// The workspace of the agent's tools in the session `handles` reach:
    /// the store, docs and scope through its capture task; `ask_human`
    /// through `ask`, else through the REPL.
    pub fn workspace(&self, handles: SessionHandles, ask: Option<AskHuman>) -> Arc<dyn Workspace> {
        Arc::new(SessionWorkspace {
            run: handles.run,
            scoper: handles.scoper,
            replayer: handles.replayer,
            counters: handles.counters,
            events: handles.events,
            human: Arc::clone(&self.human),
            human_present: self.human_present,
            ask,
        })
    }

    /// An agent turn on `text`, driving `browser` with `workspace`'s tools
    /// (the agent is created on the first turn and kept for the next).
    pub fn turn(
        &mut self,
        provider: Arc<dyn Provider>,
        browser: Arc<dyn Browser>,
        workspace: Arc<dyn Workspace>,
        text: String,
    ) -> Box<dyn Driver> {
        let config = self.config.clone();
        let agent = Arc::clone(self.agent.get_or_insert_with(|| {
            Arc::new(tokio::sync::Mutex::new(Agent::new(
                provider, browser, workspace, config,
            )))
        }));
        let (inbox, queue) = mpsc::unbounded_channel();
        self.inbox = Some(inbox);
        Box::new(AgentDriver {
            agent,
            first: Some(text),
            queue,
            total: Arc::clone(&self.total),
        })
    }

    /// `/take` during the agent's turn: remember to resume on `/done`.
    pub fn pause(&mut self) {
        self.paused = true;
    }

    /// Whether the agent is waiting in `ask_human` for the user.
    pub fn waiting_for_human(&self) -> bool {
        self.human
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .is_some_and(|(tx, _)| !tx.is_closed())
    }

    /// `/done`: answers a pending `ask_human` with what the user added;
    /// `None` when the agent is not waiting (any more).
    pub fn human_done(&mut self, now: Counters) -> Option<Counters> {
        let (tx, before) = self
            .human
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()?;
        let added = now.since(before);
        tx.send(summary_for_agent(added)).ok()?;
        Some(added)
    }

    /// Whether the agent was paused by `/take` (and clears it).
    pub fn take_paused(&mut self) -> bool {
        std::mem::take(&mut self.paused)
    }

    /// Stops enrichment and prints the session's token totals.
    pub async fn shutdown(&mut self, out: &mut (dyn Write + Send)) -> anyhow::Result<()> {
        let naming = match self.enrich.take() {
            Some(worker) => worker.stop().await,
            None => Usage::default(),
        };
        let agent = *self.total.lock().unwrap_or_else(PoisonError::into_inner);
        if agent != Usage::default() || naming != Usage::default() {
            writeln!(
                out,
                "tokens: agent {}; naming {}",
                usage(&agent),
                usage(&naming)
            )?;
        }
        Ok(())
    }
}

/// What the agent is told when the user gives the browser back.
pub fn summary_for_agent(added: Counters) -> String {
    format!(
        "The user used the browser and gave it back: their browsing added {} flows ({} in scope) and {} new endpoints (doc_status lists them). The page may have changed: take a snapshot first.",
        added.flows, added.in_scope_flows, added.endpoints
    )
}

fn usage(u: &Usage) -> String {
    format!(
        "{} in, {} cached, {} out",
        u.input + u.cache_write,
        u.cache_read,
        u.output
    )
}

/// One turn: the first intent, then any queued while it ran.
struct AgentDriver {
    agent: Arc<tokio::sync::Mutex<Agent>>,
    first: Option<String>,
    queue: mpsc::UnboundedReceiver<String>,
    total: Arc<Mutex<Usage>>,
}

#[async_trait::async_trait]
impl Driver for AgentDriver {
    fn client(&self) -> Client {
        Client::Agent
    }

    fn name(&self) -> &str {
        "agent"
    }

    async fn run(&mut self, ctx: DriverContext) -> anyhow::Result<TurnReport> {
        let mut agent = self.agent.lock().await;
        let mut reports = Vec::new();
        let mut cancelled = false;
        let mut next = self.first.take();
        while let Some(intent) = next {
            let progress = ctx.progress.clone();
            let mut line = String::new();
            let mut on_event = move |event: AgentEvent| match event {
                AgentEvent::Text(text) => {
                    line.push_str(&text);
                    while let Some(end) = line.find('\n') {
                        let done: String = line.drain(..=end).collect();
                        let _ = progress.send(format!("agent: {}", done.trim_end()));
                    }
                }
                AgentEvent::ToolCall { name, input } => {
                    if !line.trim().is_empty() {
                        let _ = progress
                            .send(format!("agent: {}", std::mem::take(&mut line).trim_end()));
                    }
                    line.clear();
                    let mut args = input;
                    if args.len() > 120 {
                        let mut end = 120;
                        while !args.is_char_boundary(end) {
                            end -= 1;
                        }
                        args.truncate(end);
                        args.push('…');
                    }
                    let _ = progress.send(format!("  → {name} {args}"));
                }
                AgentEvent::ToolResult { name, bytes, error } => {
                    if let Some(code) = error {
                        let _ = progress.send(format!("  ✗ {name}: {code}"));
                    } else {
                        tracing::debug!(tool = %name, bytes, "tool result");
                    }
                }
                AgentEvent::Nudge(_) => {
                    let _ =
                        progress.send("  (nudged the agent: it was repeating itself)".to_owned());
                }
                AgentEvent::Retrying {
                    attempt,
                    delay,
                    reason,
                } => {
                    let _ = progress.send(format!(
                        "  model busy ({reason}); retry {attempt} in {:.1}s",
                        delay.as_secs_f64()
                    ));
                }
                _ => {}
            };
            ctx.say(format!("intent: {intent}"));
            let summary = agent.turn(&intent, &ctx.cancel, &mut on_event).await;
            // The last line of text, if it did not end with a newline.
            if !summary.report.is_empty() && !summary.report.ends_with('\n') {
                let tail = summary.report.rsplit('\n').next().unwrap_or_default();
                ctx.say(format!("agent: {tail}"));
            }
            self.total
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .add(&summary.usage);
            let total = agent.total_usage();
            ctx.say(format!(
                "  tokens this turn: {} · session: {}",
                usage(&summary.usage),
                usage(&total)
            ));
            reports.push(format!(
                "{} ({} model calls, {} tool calls)",
                summary.end, summary.steps, summary.tool_calls
            ));
            if matches!(summary.end, TurnEnd::Cancelled | TurnEnd::BrowserGone(_)) {
                cancelled = summary.end == TurnEnd::Cancelled;
                break;
            }
            next = self.queue.try_recv().ok();
        }
        Ok(TurnReport {
            summary: reports.join("; "),
            cancelled,
        })
    }
}

/// Another way to reach the person at the keyboard than the REPL (`ar mcp`
/// asks through its client): takes the reason, answers what the agent is told.
pub type AskHuman =
    Arc<dyn Fn(String) -> BoxFuture<'static, Result<String, WorkspaceError>> + Send + Sync>;

/// The agent's workspace in a session: closures run by the capture task,
/// `ask_human` through the REPL (or `ask`).
struct SessionWorkspace {
    run: Runner,
    scoper: super::capture::Scoper,
    replayer: crate::web::Replayer,
    counters: watch::Receiver<Counters>,
    events: mpsc::UnboundedSender<Event>,
    human: Arc<Mutex<Option<Waiter>>>,
    human_present: bool,
    ask: Option<AskHuman>,
}

impl SessionWorkspace {
    fn send(
        &self,
        f: impl FnOnce(&mut Pipeline) -> bool + Send + 'static,
    ) -> Result<(), WorkspaceError> {
        if (self.run)(Box::new(f)) {
            Ok(())
        } else {
            Err(WorkspaceError::Gone("the session is ending".into()))
        }
    }
}

impl Workspace for SessionWorkspace {
    fn with_store(&self, f: StoreFn) -> BoxFuture<'_, Result<(), WorkspaceError>> {
        Box::pin(async move {
            let (tx, rx) = oneshot::channel();
            self.send(move |pipeline| {
                f(pipeline.store());
                let _ = tx.send(());
                false
            })?;
            rx.await
                .map_err(|_| WorkspaceError::Gone("the capture task stopped".into()))
        })
    }

    fn annotate(
        &self,
        key: String,
        annotation: Annotation,
    ) -> BoxFuture<'_, Result<(), WorkspaceError>> {
        Box::pin(async move {
            self.send(move |pipeline| {
                pipeline.annotate(key, annotation);
                true
            })
        })
    }

    fn change_scope(
        &self,
        host: String,
        add: bool,
    ) -> BoxFuture<'_, Result<String, WorkspaceError>> {
        Box::pin(async move {
            let gone = || WorkspaceError::Gone("the capture task stopped".into());
            let reply = (self.scoper)(host.clone(), add).ok_or_else(gone)?;
            match reply.await.map_err(|_| gone())? {
                Ok(line) => {
                    let _ = self.events.send(Event::Message(format!("  scope: {line}")));
                    Ok(line)
                }
                Err(error) => Err(WorkspaceError::Failed {
                    what: format!("{} {host}", if add { "adding" } else { "removing" }),
                    reason: format!("{error:#}"),
                }),
            }
        })
    }

    fn replay(
        &self,
        request: ar_store::Request,
    ) -> BoxFuture<'_, Result<ar_store::Response, WorkspaceError>> {
        Box::pin(async move {
            let what = format!("replaying {} {}", request.method, request.url);
            let replayed = self.replayer.send(request).await;
            replayed
                .map(|r| r.response)
                .map_err(|error| WorkspaceError::Failed {
                    what,
                    reason: format!("{error:#}"),
                })
        })
    }

    fn ask_human(&self, reason: String) -> BoxFuture<'_, Result<String, WorkspaceError>> {
        Box::pin(async move {
            if let Some(ask) = &self.ask {
                return ask(reason).await;
            }
            if !self.human_present {
                let _ = self.events.send(Event::Message(format!(
                    "the agent asked for a human ({reason}), but ar runs without a REPL"
                )));
                return Err(WorkspaceError::Unsupported {
                    what: format!("asking the user ({reason})"),
                    hint: "nobody is at the keyboard (ar runs without a REPL): carry on without it, or report what blocks you".into(),
                });
            }
            let (tx, rx) = oneshot::channel();
            let before = *self.counters.borrow();
            *self.human.lock().unwrap_or_else(PoisonError::into_inner) = Some((tx, before));
            let _ = self.events.send(Event::Message(format!(
                "the agent asks for your help: {reason}\n  use the browser, then type /done to hand it back (/stop ends the turn)"
            )));
            rx.await.map_err(|_| {
                WorkspaceError::Gone("the session ended while waiting for the user".into())
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_summary_counts_what_was_added() {
        let text = summary_for_agent(Counters {
            flows: 12,
            in_scope_flows: 5,
            endpoints: 2,
            hosts: 1,
        });
        assert!(
            text.contains("12 flows (5 in scope) and 2 new endpoints"),
            "{text}"
        );
    }
}
