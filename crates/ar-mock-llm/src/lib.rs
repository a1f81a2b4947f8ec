//! A scripted mock LLM server for tests: a real HTTP server on `127.0.0.1:0`
//! that speaks the Anthropic Messages API (`POST /v1/messages`) and OpenAI
//! chat completions (`POST /v1/chat/completions`), streaming (SSE) or not,
//! following `"stream"` in the request body.
//!
//! Tests queue [`Reply`]s (text, tool calls, usage, HTTP errors with
//! `retry-after`, a stream cut mid-way, a stall, an error event, invalid tool
//! JSON) and may install a responder that answers by looking at the request,
//! for calls that arrive in any order (e.g. enrichment). Every request is
//! recorded, so tests can assert what was sent: headers, bodies, that no
//! secret leaked, that `cache_control` was set.
//!
//! It is its own crate, not a feature of `ar-agent`, so that it shares no
//! code with the clients it tests (a protocol misunderstanding cannot cancel
//! itself out) and any crate's tests can use it as a plain dev-dependency.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use ar_mock_llm::{MockLlm, Reply};
//! let mock = MockLlm::start().await;
//! mock.push(Reply::text("hello"));
//! assert!(mock.base_url().starts_with("http://127.0.0.1:"));
//! assert_eq!(mock.remaining(), 1);
//! # }
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod record;
mod render;
mod reply;
mod server;

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};

pub use record::RecordedRequest;
pub use reply::{MockUsage, Reply};

/// Which API a request used (by its path).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFormat {
    /// `POST /v1/messages`.
    Anthropic,
    /// `POST .../chat/completions`.
    OpenAi,
}

type Responder = dyn Fn(&RecordedRequest) -> Option<Reply> + Send + Sync;

#[derive(Default)]
struct State {
    queue: VecDeque<Reply>,
    responder: Option<Arc<Responder>>,
    requests: Vec<RecordedRequest>,
}

/// The running mock server; stops when dropped.
pub struct MockLlm {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for MockLlm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockLlm")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl MockLlm {
    /// Binds `127.0.0.1:0` and serves in a background task.
    ///
    /// # Panics
    /// If no loopback port can be bound (a test environment problem).
    pub async fn start() -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind a loopback port for the mock LLM");
        let addr = listener
            .local_addr()
            .expect("a bound listener has an address");
        let state = Arc::new(Mutex::new(State::default()));
        let task = tokio::spawn(server::serve(listener, Arc::clone(&state)));
        Self { addr, state, task }
    }

    /// The Anthropic-style base URL (`http://127.0.0.1:PORT`, no `/v1`).
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The OpenAI-style base URL (`http://127.0.0.1:PORT/v1`).
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Queues a reply; replies are used in order, one per request.
    pub fn push(&self, reply: Reply) {
        self.lock().queue.push_back(reply);
    }

    /// Queues several replies.
    pub fn push_all(&self, replies: impl IntoIterator<Item = Reply>) {
        self.lock().queue.extend(replies);
    }

    /// Installs a responder consulted before the queue; when it returns
    /// `None` the next queued reply is used.
    pub fn respond_with(
        &self,
        responder: impl Fn(&RecordedRequest) -> Option<Reply> + Send + Sync + 'static,
    ) {
        self.lock().responder = Some(Arc::new(responder));
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.lock().requests.clone()
    }

    /// How many requests arrived.
    pub fn request_count(&self) -> usize {
        self.lock().requests.len()
    }

    /// Queued replies not used yet.
    pub fn remaining(&self) -> usize {
        self.lock().queue.len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for MockLlm {
    fn drop(&mut self) {
        self.task.abort();
    }
}
