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
    runner: Runner,
}

/// Where the server runs: a task of the caller's runtime, or its own thread.
enum Runner {
    Task(tokio::task::JoinHandle<()>),
    Thread(Option<tokio::sync::oneshot::Sender<()>>),
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
        Self {
            addr,
            state,
            runner: Runner::Task(task),
        }
    }

    /// Starts the server on its own thread with its own runtime, for tests
    /// that are not async (e.g. ones that run the `ar` binary and wait).
    ///
    /// # Panics
    /// If the thread, runtime or loopback port cannot be set up.
    pub fn start_in_thread() -> Self {
        let state = Arc::new(Mutex::new(State::default()));
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let thread_state = Arc::clone(&state);
        std::thread::Builder::new()
            .name("mock-llm".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime for the mock LLM");
                rt.block_on(async move {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                        .await
                        .expect("bind a loopback port for the mock LLM");
                    let _ = addr_tx.send(listener.local_addr().expect("a bound address"));
                    tokio::select! {
                        () = server::serve(listener, thread_state) => {}
                        _ = stop_rx => {}
                    }
                });
            })
            .expect("spawn the mock LLM thread");
        let addr = addr_rx
            .recv()
            .expect("the mock LLM thread reports its address");
        Self {
            addr,
            state,
            runner: Runner::Thread(Some(stop_tx)),
        }
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
        match &mut self.runner {
            Runner::Task(task) => task.abort(),
            Runner::Thread(stop) => {
                if let Some(stop) = stop.take() {
                    let _ = stop.send(());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A deliberately dumb HTTP/1.1 client, independent of any client under test.
    async fn post(mock: &MockLlm, path: &str, body: &Value) -> (u16, String, String) {
        let mut tcp = tokio::net::TcpStream::connect(mock.addr()).await.unwrap();
        let body = body.to_string();
        let head = format!(
            "POST {path} HTTP/1.1\r\nhost: mock\r\ncontent-type: application/json\r\n\
             x-api-key: k\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        tcp.write_all(head.as_bytes()).await.unwrap();
        tcp.write_all(body.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        tcp.read_to_end(&mut raw).await.unwrap();
        let text = String::from_utf8(raw).unwrap();
        let (head, rest) = text.split_once("\r\n\r\n").unwrap();
        let status = head[9..12].parse().unwrap();
        let body = if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            dechunk(rest)
        } else {
            rest.to_owned()
        };
        (status, head.to_owned(), body)
    }

    fn dechunk(mut s: &str) -> String {
        let mut out = String::new();
        while let Some((size, rest)) = s.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap();
            if n == 0 {
                break;
            }
            out.push_str(&rest[..n]);
            s = &rest[n + 2..];
        }
        out
    }

    #[tokio::test]
    async fn non_streaming_answers_in_both_formats() {
        let mock = MockLlm::start().await;
        mock.push_all([
            Reply::text("hi").tool_call("t1", "browser_click", json!({"ref": "e1"})),
            Reply::text("hello").usage(3, 4, 0, 5),
        ]);
        let (status, _, body) = post(
            &mock,
            "/v1/messages",
            &json!({"model": "m", "messages": []}),
        )
        .await;
        assert_eq!(status, 200);
        let msg: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(msg["content"][1]["input"], json!({"ref": "e1"}));
        assert_eq!(msg["stop_reason"], "tool_use");
        let (_, _, body) = post(
            &mock,
            "/v1/chat/completions",
            &json!({"model": "m", "messages": []}),
        )
        .await;
        let c: Value = serde_json::from_str(&body).unwrap();
        assert_eq!(c["choices"][0]["message"]["content"], "hello");
        assert_eq!(c["usage"]["prompt_tokens"], 7);
        assert_eq!(c["usage"]["prompt_tokens_details"]["cached_tokens"], 4);
        assert_eq!(mock.request_count(), 2);
        assert_eq!(mock.requests()[0].header("X-API-KEY"), Some("k"));
    }

    #[tokio::test]
    async fn streams_sse_with_the_anthropic_event_sequence() {
        let mock = MockLlm::start().await;
        mock.push(Reply::text("abcdef").piece_chars(3));
        let (status, head, body) = post(
            &mock,
            "/v1/messages",
            &json!({"model": "m", "stream": true}),
        )
        .await;
        assert_eq!(status, 200);
        assert!(head.contains("text/event-stream"), "{head}");
        let names: Vec<&str> = body
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(
            names,
            [
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
    }

    #[tokio::test]
    async fn a_responder_answers_by_request_and_falls_back_to_the_queue() {
        let mock = MockLlm::start().await;
        mock.respond_with(|req| {
            req.last_user_text()
                .contains("name this endpoint")
                .then(|| Reply::text(r#"{"operationId":"listOrders"}"#))
        });
        mock.push(Reply::text("from the queue"));
        let ask = |text: &str| json!({"messages": [{"role": "user", "content": text}]});
        let (_, _, a) = post(&mock, "/v1/chat/completions", &ask("explore")).await;
        let (_, _, b) = post(&mock, "/v1/chat/completions", &ask("name this endpoint")).await;
        assert!(a.contains("from the queue"), "{a}");
        assert!(b.contains("listOrders"), "{b}");
        // Queue empty and the responder declines: a clear, non-retryable error.
        let (status, head, c) = post(&mock, "/v1/chat/completions", &ask("again")).await;
        assert_eq!(status, 500);
        assert!(head.contains("x-should-retry: false"), "{head}");
        assert!(c.contains("script exhausted"), "{c}");
    }

    #[tokio::test]
    async fn unknown_paths_are_404_recorded_and_consume_no_reply() {
        let mock = MockLlm::start().await;
        mock.push(Reply::text("kept"));
        let (status, _, _) = post(&mock, "/v2/complete", &json!({})).await;
        assert_eq!(status, 404);
        assert_eq!(mock.requests()[0].path, "/v2/complete");
        assert_eq!(mock.remaining(), 1);
    }

    #[test]
    fn runs_on_its_own_thread_for_blocking_tests() {
        use std::io::{Read, Write};
        let mock = MockLlm::start_in_thread();
        mock.push(Reply::text("from a thread"));
        let body = r#"{"model":"m","messages":[]}"#;
        let mut tcp = std::net::TcpStream::connect(mock.addr()).unwrap();
        write!(
            tcp,
            "POST /v1/messages HTTP/1.1\r\nhost: m\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut out = String::new();
        tcp.read_to_string(&mut out).unwrap();
        assert!(out.contains("from a thread"), "{out}");
        assert_eq!(mock.request_count(), 1);
    }
}
