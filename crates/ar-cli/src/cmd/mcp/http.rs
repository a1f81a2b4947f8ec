//! The streamable HTTP transport: rmcp's service on our own hyper (already
//! ar's HTTP stack, so no web framework is pulled in), bound to 127.0.0.1
//! only. Each MCP session gets its own handler; the sites are shared.

use std::convert::Infallible;
use std::sync::Arc;

use anyhow::Context as _;
use hyper_util::rt::{TokioExecutor, TokioIo};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::server::ArMcp;
use super::sites::Sites;

/// The path clients post to (`http://127.0.0.1:PORT/mcp`).
pub(crate) const PATH: &str = "/mcp";

/// Serves on 127.0.0.1:`port` until `stop` resolves.
pub(crate) async fn serve(
    port: u16,
    sites: Arc<Sites>,
    stop: impl Future<Output = ()>,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    let addr = listener.local_addr()?;
    let cancel = CancellationToken::new();
    // The default allows loopback Host headers only (no DNS rebinding).
    let config =
        StreamableHttpServerConfig::default().with_cancellation_token(cancel.child_token());
    let service = Arc::new(StreamableHttpService::new(
        move || Ok(ArMcp::new(Arc::clone(&sites))),
        Arc::new(LocalSessionManager::default()),
        config,
    ));
    // The one line a person starting it by hand needs, on stderr.
    eprintln!("ar mcp: serving MCP on http://{addr}{PATH}");
    tokio::pin!(stop);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => accepted.context("accepting a connection")?,
            () = &mut stop => break,
        };
        let service = Arc::clone(&service);
        let handler =
            hyper::service::service_fn(move |request: http::Request<hyper::body::Incoming>| {
                let service = Arc::clone(&service);
                async move {
                    if request.uri().path() != PATH {
                        return Ok::<_, Infallible>(not_found());
                    }
                    Ok(service.handle(request).await)
                }
            });
        let cancel = cancel.clone();
        tokio::spawn(async move {
            let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            let connection = builder.serve_connection(TokioIo::new(stream), handler);
            tokio::select! {
                result = connection => {
                    if let Err(error) = result {
                        tracing::debug!("MCP HTTP connection ended: {error}");
                    }
                }
                () = cancel.cancelled() => {}
            }
        });
    }
    cancel.cancel();
    Ok(())
}

fn not_found() -> http::Response<http_body_util::combinators::BoxBody<bytes::Bytes, Infallible>> {
    use http_body_util::BodyExt as _;
    let body = http_body_util::Full::new(bytes::Bytes::from_static(b"ar mcp serves MCP at /mcp\n"))
        .boxed();
    let mut response = http::Response::new(body);
    *response.status_mut() = http::StatusCode::NOT_FOUND;
    response
}
