//! LLM providers behind one trait.
//!
//! The agent talks to a model through [`Provider::stream`]: it hands over a
//! neutral [`Request`] (system blocks, [`Message`]s with text / tool calls /
//! tool results, [`ToolDefinition`]s) and receives [`StreamEvent`]s as the
//! answer is generated, then the assembled [`Response`]. Two wire formats
//! implement it:
//!
//! - the Anthropic Messages API (`POST {base}/v1/messages`, SSE, prompt
//!   caching on the tool list, the system prompt and the conversation end);
//! - OpenAI-compatible chat completions (`POST {base}/chat/completions`), which
//!   also covers vLLM, llama.cpp and Ollama.
//!
//! Both retry transient failures (see [`RetryPolicy`] for the exact policy) and
//! never put the key anywhere but its header. Build one with [`ProviderConfig`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), ar_agent::llm::LlmError> {
//! use ar_agent::llm::{process_env, Message, ProviderConfig, ProviderKind, Request, StreamEvent};
//! let provider = ProviderConfig::new(ProviderKind::Anthropic).build(process_env)?;
//! let request = Request::new(vec![Message::user_text("Say hi")]);
//! let mut print = |e: StreamEvent| {
//!     if let StreamEvent::TextDelta { text, .. } = e { print!("{text}") }
//! };
//! let response = provider.stream(&request, &mut print).await?;
//! println!("\n{} tokens out", response.usage.output);
//! # Ok(()) }
//! ```

use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;

mod anthropic;
mod api_error;
mod assemble;
mod config;
mod error;
mod event;
mod http;
mod message;
mod openai;
mod provider;
mod response;
mod retry;
mod secret;
mod sse;
mod transport;

pub use config::{ProviderConfig, ProviderKind, process_env};
pub use error::LlmError;
pub use event::{EventSink, StreamEvent};
pub use message::{
    ContentBlock, Message, Request, Role, SystemBlock, ToolDefinition, ToolInput, ToolResult,
    ToolUse,
};
pub use response::{Response, StopReason, Usage};
pub use retry::RetryPolicy;
pub use secret::ApiKey;

/// A boxed, sendable future (keeps [`Provider`] usable as `dyn Provider`).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A model endpoint. Cheap to share (`Arc<dyn Provider>`); calls may run
/// concurrently (the agent loop and the enrichment worker).
pub trait Provider: Send + Sync + Debug {
    /// Which wire format this speaks.
    fn kind(&self) -> ProviderKind;

    /// The model name sent with each request.
    fn model(&self) -> &str;

    /// Sends `request` and streams the answer into `events`, returning the
    /// assembled response. Dropping the future cancels the call.
    ///
    /// On a failure after output reached `events`, the error is
    /// [`LlmError::StreamCut`] (or [`LlmError::StreamError`]) and nothing is
    /// retried; before that, transient failures are retried and announced
    /// with [`StreamEvent::Retrying`].
    fn stream<'a>(
        &'a self,
        request: &'a Request,
        events: &'a mut dyn EventSink,
    ) -> BoxFuture<'a, Result<Response, LlmError>>;

    /// Like [`Provider::stream`] without watching events (e.g. enrichment).
    fn complete<'a>(&'a self, request: &'a Request) -> BoxFuture<'a, Result<Response, LlmError>> {
        Box::pin(async move {
            let mut discard = ();
            self.stream(request, &mut discard).await
        })
    }
}
