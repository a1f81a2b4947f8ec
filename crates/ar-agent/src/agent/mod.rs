//! The tool-use loop: the LLM agent that drives the browser toward the
//! user's intent, reads what traffic surfaced, and reports.
//!
//! One [`Agent`] holds one conversation for a whole session; each intent (or
//! follow-up) is a [`Agent::turn`]. A turn alternates model calls and tool
//! calls until the model stops calling tools (its report), a budget runs out
//! ([`AgentConfig::max_steps`], [`AgentConfig::max_tokens`]), the model
//! cannot be reached after retries, or the turn is cancelled (`/stop`,
//! Ctrl-C). Everything is streamed to the caller as [`AgentEvent`]s.
//!
//! What keeps the context small and the model on track:
//! - after an action the model sees a snapshot *diff* and the endpoints the
//!   action made fire, not the page again;
//! - only the latest full snapshot stays in the history; older ones are
//!   replaced by a one-line stub before each call;
//! - a loop detector adds a nudge when the same call repeats;
//! - every tool result passes through ar-openapi's [`Redactor`] before it is
//!   sent, so headers, cookies, URL tokens and JWTs never reach the provider.
//!
//! ```no_run
//! # async fn demo(
//! #     provider: std::sync::Arc<dyn ar_agent::llm::Provider>,
//! #     browser: std::sync::Arc<dyn ar_agent::browser::Browser>,
//! #     workspace: std::sync::Arc<dyn ar_agent::agent::Workspace>,
//! # ) {
//! use ar_agent::agent::{Agent, AgentConfig, AgentEvent};
//! let mut agent = Agent::new(provider, browser, workspace, AgentConfig::default());
//! let cancel = tokio_util::sync::CancellationToken::new();
//! let summary = agent
//!     .turn("map the checkout flow", &cancel, &mut |event| {
//!         if let AgentEvent::Text(text) = event { print!("{text}") }
//!     })
//!     .await;
//! println!("\n{}", summary.end);
//! # }
//! ```

mod flows;
mod guard;
mod history;
mod prompt;
mod registry;
mod replay;
mod tools;
mod workspace;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ar_openapi::Redactor;
use tokio_util::sync::CancellationToken;

pub use prompt::{COVERED_MARKER, system_prompt};
pub use registry::{ToolKind, ToolSpec, find, registry, tool_definitions};
pub use tools::{ToolBox, ToolError};
pub use workspace::{MemoryWorkspace, StoreFn, Workspace, WorkspaceError, query};

use crate::browser::{Browser, Wait};
use crate::llm::{
    ContentBlock, LlmError, Message, Provider, Request, StreamEvent, ToolInput, ToolResult,
    ToolUse, Usage,
};

/// Limits of one turn and of each model call.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct AgentConfig {
    /// Model calls per turn (each answer with tool calls is one step).
    pub max_steps: usize,
    /// Tokens (prompt + output, cached included) per turn.
    pub max_tokens: u64,
    /// Output tokens per model call.
    pub max_output_tokens: u32,
    /// How long to let the page settle after an action.
    pub settle: Wait,
}

impl Default for AgentConfig {
    fn default() -> Self {
        Self {
            max_steps: 40,
            max_tokens: 2_000_000,
            max_output_tokens: 4096,
            settle: Wait::NetworkIdle {
                quiet: Duration::from_millis(400),
                timeout: Duration::from_secs(8),
            },
        }
    }
}

impl AgentConfig {
    /// Sets the step budget per turn.
    #[must_use]
    pub fn with_max_steps(mut self, steps: usize) -> Self {
        self.max_steps = steps.max(1);
        self
    }

    /// Sets the token budget per turn.
    #[must_use]
    pub fn with_max_tokens(mut self, tokens: u64) -> Self {
        self.max_tokens = tokens;
        self
    }

    /// Sets how the page is let settle after an action.
    #[must_use]
    pub fn with_settle(mut self, settle: Wait) -> Self {
        self.settle = settle;
        self
    }
}

/// Something to show while a turn runs.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AgentEvent {
    /// Model text, as it streams.
    Text(String),
    /// The model called a tool (arguments as compact JSON).
    ToolCall {
        /// Tool name.
        name: String,
        /// Its arguments.
        input: String,
    },
    /// A tool answered.
    ToolResult {
        /// Tool name.
        name: String,
        /// Bytes of the result sent to the model.
        bytes: usize,
        /// The error code, when the tool failed.
        error: Option<String>,
    },
    /// The loop detector nudged the model.
    Nudge(String),
    /// The provider failed transiently and will retry.
    Retrying {
        /// Failed attempt (1-based).
        attempt: u32,
        /// Wait before the next.
        delay: Duration,
        /// What failed.
        reason: String,
    },
    /// One model call's token usage.
    Usage(Usage),
}

/// Why a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TurnEnd {
    /// The model stopped calling tools and reported; `covered` when it said
    /// the intent is covered ([`COVERED_MARKER`]).
    Reported {
        /// Whether the intent is covered.
        covered: bool,
    },
    /// [`AgentConfig::max_steps`] model calls were made.
    StepBudget,
    /// [`AgentConfig::max_tokens`] were used.
    TokenBudget,
    /// `/stop`, Ctrl-C or `/take`.
    Cancelled,
    /// The model could not be reached (after the provider's retries).
    LlmFailed(String),
    /// The browser crashed or closed.
    BrowserGone(String),
}

impl fmt::Display for TurnEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Reported { covered: true } => f.write_str("the agent reports the intent covered"),
            Self::Reported { covered: false } => f.write_str("the agent reported"),
            Self::StepBudget => f.write_str("step budget used up (--max-steps)"),
            Self::TokenBudget => f.write_str("token budget used up (--max-tokens)"),
            Self::Cancelled => f.write_str("stopped"),
            Self::LlmFailed(why) => write!(f, "the model could not be reached: {why}"),
            Self::BrowserGone(why) => write!(f, "the browser is gone: {why}"),
        }
    }
}

/// What a turn did.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnSummary {
    /// Why it ended.
    pub end: TurnEnd,
    /// The model's last text (its report).
    pub report: String,
    /// Model calls made.
    pub steps: usize,
    /// Tool calls made.
    pub tool_calls: usize,
    /// Tokens used by the turn.
    pub usage: Usage,
    /// Per tool call: its name and the bytes of its result (token accounting).
    pub tool_result_bytes: Vec<(String, usize)>,
}

/// The conversational agent (see the [module docs](self)).
pub struct Agent {
    provider: Arc<dyn Provider>,
    tools: ToolBox,
    redactor: Redactor,
    config: AgentConfig,
    system: String,
    messages: Vec<Message>,
    detector: guard::LoopDetector,
    total: Usage,
}

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Agent")
            .field("model", &self.provider.model())
            .field("messages", &self.messages.len())
            .field("total", &self.total)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// An agent with an empty conversation.
    pub fn new(
        provider: Arc<dyn Provider>,
        browser: Arc<dyn Browser>,
        workspace: Arc<dyn Workspace>,
        config: AgentConfig,
    ) -> Self {
        Self {
            provider,
            tools: ToolBox::new(browser, workspace, config.settle),
            redactor: Redactor::new(),
            config,
            system: system_prompt(),
            messages: Vec::new(),
            detector: guard::LoopDetector::default(),
            total: Usage::default(),
        }
    }

    /// Tokens used by every turn so far.
    #[must_use]
    pub fn total_usage(&self) -> Usage {
        self.total
    }

    /// The conversation so far.
    #[must_use]
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Runs one turn on `intent` (a new goal or a follow-up from the user).
    pub async fn turn(
        &mut self,
        intent: &str,
        cancel: &CancellationToken,
        on_event: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> TurnSummary {
        let intent = ContentBlock::Text(self.redactor.text(intent).into_owned());
        // A turn that ended without a report leaves the user side last: add
        // to it, so roles keep alternating.
        match self.messages.last_mut() {
            Some(last) if last.role == crate::llm::Role::User => last.content.push(intent),
            _ => self.messages.push(Message {
                role: crate::llm::Role::User,
                content: vec![intent],
            }),
        }
        let mut summary = TurnSummary {
            end: TurnEnd::StepBudget,
            report: String::new(),
            steps: 0,
            tool_calls: 0,
            usage: Usage::default(),
            tool_result_bytes: Vec::new(),
        };
        let tools = tool_definitions();
        while summary.steps < self.config.max_steps {
            if cancel.is_cancelled() {
                summary.end = TurnEnd::Cancelled;
                break;
            }
            if total_tokens(&summary.usage) >= self.config.max_tokens {
                summary.end = TurnEnd::TokenBudget;
                break;
            }
            history::prune(&mut self.messages);
            let mut request = Request::new(self.messages.clone())
                .with_system(self.system.clone())
                .with_tools(tools.clone());
            request.max_tokens = self.config.max_output_tokens;
            summary.steps += 1;
            let response = {
                let mut sink = |event: StreamEvent| match event {
                    StreamEvent::TextDelta { text, .. } => on_event(AgentEvent::Text(text)),
                    StreamEvent::Retrying {
                        attempt,
                        delay,
                        reason,
                    } => on_event(AgentEvent::Retrying {
                        attempt,
                        delay,
                        reason,
                    }),
                    _ => {}
                };
                tokio::select! {
                    () = cancel.cancelled() => None,
                    result = self.provider.stream(&request, &mut sink) => Some(result),
                }
            };
            let response = match response {
                None => {
                    summary.end = TurnEnd::Cancelled;
                    break;
                }
                Some(Err(error)) => {
                    summary.end = TurnEnd::LlmFailed(describe(&error));
                    break;
                }
                Some(Ok(response)) => response,
            };
            summary.usage.add(&response.usage);
            self.total.add(&response.usage);
            on_event(AgentEvent::Usage(response.usage));
            let text = response.message.text();
            if !text.trim().is_empty() {
                summary.report = text.clone();
            }
            let calls: Vec<ToolUse> = response.message.tool_uses().cloned().collect();
            self.messages.push(response.message);
            if calls.is_empty() {
                summary.end = TurnEnd::Reported {
                    covered: text.to_uppercase().contains(COVERED_MARKER),
                };
                return summary;
            }
            let (results, fatal) = self.run_tools(&calls, cancel, on_event, &mut summary).await;
            self.messages.push(results);
            if let Some(end) = fatal {
                summary.end = end;
                return summary;
            }
            summary.end = TurnEnd::StepBudget;
        }
        // Ended without a report (budget, cancel, failure): the conversation
        // must still alternate properly for the next turn.
        summary
    }

    /// Runs a response's tool calls in order; every call gets a result.
    async fn run_tools(
        &mut self,
        calls: &[ToolUse],
        cancel: &CancellationToken,
        on_event: &mut (dyn FnMut(AgentEvent) + Send),
        summary: &mut TurnSummary,
    ) -> (Message, Option<TurnEnd>) {
        let mut content = Vec::with_capacity(calls.len());
        let mut nudges = Vec::new();
        let mut fatal = None;
        for call in calls {
            let args_text = match &call.input {
                ToolInput::Parsed(v) => v.to_string(),
                ToolInput::Invalid { raw, .. } => raw.clone(),
            };
            on_event(AgentEvent::ToolCall {
                name: call.name.clone(),
                input: self.redactor.text(&args_text).into_owned(),
            });
            let outcome = if fatal.is_some() || cancel.is_cancelled() {
                Err(ToolError {
                    code: "skipped".into(),
                    message: "not run: the turn is ending".into(),
                })
            } else {
                match &call.input {
                    ToolInput::Invalid { error, .. } => Err(ToolError {
                        code: "invalid_arguments".into(),
                        message: format!(
                            "the arguments are not a JSON object ({error}); send valid JSON matching the tool's schema"
                        ),
                    }),
                    ToolInput::Parsed(args) => {
                        if let Some(nudge) = self.detector.record(&call.name, args) {
                            nudges.push(nudge);
                        }
                        tokio::select! {
                            () = cancel.cancelled() => Err(ToolError {
                                code: "cancelled".into(),
                                message: "the user stopped the turn".into(),
                            }),
                            result = self.tools.call(&call.name, args) => result,
                        }
                    }
                }
            };
            if let Err(error) = &outcome
                && error.code == "browser_gone"
            {
                fatal = Some(TurnEnd::BrowserGone(error.message.clone()));
            }
            // The tool box redacted its answers; errors made here are redacted too.
            let result = match outcome {
                Ok(text) => ToolResult::ok(&call.id, text),
                Err(error) => {
                    ToolResult::error(&call.id, self.redactor.text(&error.to_json()).into_owned())
                }
            };
            summary.tool_calls += 1;
            summary
                .tool_result_bytes
                .push((call.name.clone(), result.content.len()));
            on_event(AgentEvent::ToolResult {
                name: call.name.clone(),
                bytes: result.content.len(),
                error: result.is_error.then(|| error_code(&result.content)),
            });
            content.push(ContentBlock::ToolResult(result));
        }
        if cancel.is_cancelled() && fatal.is_none() {
            fatal = Some(TurnEnd::Cancelled);
        }
        for nudge in nudges {
            on_event(AgentEvent::Nudge(nudge.clone()));
            content.push(ContentBlock::Text(nudge));
        }
        (
            Message {
                role: crate::llm::Role::User,
                content,
            },
            fatal,
        )
    }
}

fn error_code(json: &str) -> String {
    serde_json::from_str::<serde_json::Value>(json)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned))
        .unwrap_or_else(|| "error".to_owned())
}

fn total_tokens(usage: &Usage) -> u64 {
    usage.prompt_total() + usage.output
}

fn describe(error: &LlmError) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
