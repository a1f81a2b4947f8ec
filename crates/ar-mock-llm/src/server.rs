//! The HTTP side: accept connections, record requests, play replies.

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body::{Body, Frame};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::sync::mpsc;

use crate::reply::{Fault, ReplyKind, Turn};
use crate::{RecordedRequest, Reply, State, WireFormat, render};

/// Serves until the task is aborted.
pub(crate) async fn serve(listener: tokio::net::TcpListener, state: Arc<Mutex<State>>) {
    let counter = Arc::new(std::sync::atomic::AtomicU64::new(0));
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let state = Arc::clone(&state);
        let counter = Arc::clone(&counter);
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                handle(req, Arc::clone(&state), n)
            });
            // Connection errors (including the cuts we cause) end the connection only.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// A response body fed from a channel; an `Err` item aborts the connection.
pub(crate) struct ChannelBody(mpsc::Receiver<Result<Bytes, io::Error>>);

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.0
            .poll_recv(cx)
            .map(|item| item.map(|r| r.map(Frame::data)))
    }
}

fn body_of(chunks: Vec<String>, fault_end: Option<FaultEnd>) -> ChannelBody {
    let (tx, rx) = mpsc::channel(16);
    tokio::spawn(async move {
        for chunk in chunks {
            if tx.send(Ok(Bytes::from(chunk))).await.is_err() {
                return;
            }
            tokio::task::yield_now().await;
        }
        match fault_end {
            Some(FaultEnd::Cut) => {
                let _ = tx.send(Err(io::Error::other("mock LLM: stream cut"))).await;
            }
            // Keep the sender alive until the client gives up.
            Some(FaultEnd::Stall) => tx.closed().await,
            None => {}
        }
    });
    ChannelBody(rx)
}

enum FaultEnd {
    Cut,
    Stall,
}

async fn handle(
    req: Request<Incoming>,
    state: Arc<Mutex<State>>,
    n: u64,
) -> Result<Response<ChannelBody>, Infallible> {
    let (parts, body) = req.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let recorded = RecordedRequest {
        method: parts.method.to_string(),
        path: parts
            .uri
            .path_and_query()
            .map(ToString::to_string)
            .unwrap_or_default(),
        headers: parts
            .headers
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_owned(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body: String::from_utf8_lossy(&body).into_owned(),
    };
    let Some(format) = recorded.format() else {
        state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .requests
            .push(recorded);
        return Ok(error_response(
            404,
            WireFormat::OpenAi,
            "not_found_error",
            "no such endpoint",
            &[],
        ));
    };
    let reply = {
        let mut st = state.lock().unwrap_or_else(PoisonError::into_inner);
        st.requests.push(recorded.clone());
        let responder = st.responder.clone();
        drop(st);
        let by_fn = responder.and_then(|f| f(&recorded));
        by_fn.or_else(|| {
            state
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .queue
                .pop_front()
        })
    };
    let reply = reply.unwrap_or_else(|| {
        Reply::status(
            500,
            "api_error",
            "mock LLM script exhausted: no reply queued",
        )
        .header("x-should-retry", "false")
    });
    Ok(play(reply, format, &recorded, n))
}

fn error_response(
    status: u16,
    format: WireFormat,
    error_type: &str,
    message: &str,
    headers: &[(String, String)],
) -> Response<ChannelBody> {
    let body = render::error_body(format, error_type, message).to_string();
    raw_response(status, headers, "application/json", vec![body], None)
}

fn raw_response(
    status: u16,
    headers: &[(String, String)],
    content_type: &str,
    chunks: Vec<String>,
    fault: Option<FaultEnd>,
) -> Response<ChannelBody> {
    let mut builder = Response::builder()
        .status(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .header("content-type", content_type);
    for (k, v) in headers {
        builder = builder.header(k.as_str(), v.as_str());
    }
    builder
        .body(body_of(chunks, fault))
        .unwrap_or_else(|_| Response::new(body_of(Vec::new(), None)))
}

fn play(reply: Reply, format: WireFormat, req: &RecordedRequest, n: u64) -> Response<ChannelBody> {
    match reply.kind {
        ReplyKind::Status {
            status,
            headers,
            error_type,
            message,
            body,
        } => match body {
            Some(text) => raw_response(status, &headers, "application/json", vec![text], None),
            None => error_response(status, format, &error_type, &message, &headers),
        },
        ReplyKind::Raw {
            status,
            content_type,
            body,
        } => raw_response(status, &[], &content_type, vec![body], None),
        ReplyKind::Turn(turn) => play_turn(&turn, format, req, n),
    }
}

fn play_turn(
    turn: &Turn,
    format: WireFormat,
    req: &RecordedRequest,
    n: u64,
) -> Response<ChannelBody> {
    let json = req.json();
    let model = json["model"].as_str().unwrap_or("mock-model").to_owned();
    if turn.force_json || !req.wants_stream() {
        let doc = match format {
            WireFormat::Anthropic => render::anthropic_json(turn, &model, n),
            WireFormat::OpenAi => render::openai_json(turn, &model, n),
        };
        return raw_response(200, &[], "application/json", vec![doc.to_string()], None);
    }
    let mut events = match format {
        WireFormat::Anthropic => render::anthropic_events(turn, &model, n),
        WireFormat::OpenAi => {
            let usage = json["stream_options"]["include_usage"] == Value::Bool(true);
            render::openai_events(turn, &model, n, usage)
        }
    };
    let end = match &turn.fault {
        None => None,
        Some(Fault::Cut(k)) => {
            events.truncate(*k);
            Some(FaultEnd::Cut)
        }
        Some(Fault::Stall(k)) => {
            events.truncate(*k);
            Some(FaultEnd::Stall)
        }
        Some(Fault::ErrorEvent(k, kind, message)) => {
            events.truncate(*k);
            events.push(render::error_event(format, kind, message));
            None
        }
    };
    raw_response(
        200,
        &[("cache-control".into(), "no-cache".into())],
        "text/event-stream",
        events,
        end,
    )
}
