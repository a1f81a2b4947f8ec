//! The routes, after the guard let a request in: the page and its assets
//! (embedded, no build step), the live stream, and the JSON API the page
//! reads. The only route that changes or discloses anything, `reveal`,
//! takes POST.

use std::sync::Arc;

use http::{HeaderValue, Response, StatusCode, header};
use http_body_util::BodyExt as _;
use serde::Serialize;

use crate::correction::{Correction, SegmentAs};
use crate::detail::{FlowDetail, Part};
use crate::rejoin::Joined;
use crate::replay::Edited;
use crate::row::{Filter, FlowRow};
use crate::server::{Body, Shared, json, text, whole};
use crate::sse;

const INDEX: &str = include_str!("../assets/index.html");
const SCRIPT: &str = include_str!("../assets/app.js");
const STYLE: &str = include_str!("../assets/app.css");

/// Rows one list request may ask for.
const MAX_PAGE: usize = 1000;

/// Answers a GET.
pub(crate) async fn get(shared: &Shared, path: &str, query: &str) -> Response<Body> {
    match path {
        "/" => whole(
            StatusCode::OK,
            "text/html; charset=utf-8",
            // The token is hex: safe inside an attribute.
            INDEX.replace("{{TOKEN}}", shared.token.expose()),
        ),
        "/app.js" => whole(StatusCode::OK, "text/javascript; charset=utf-8", SCRIPT),
        "/app.css" => whole(StatusCode::OK, "text/css; charset=utf-8", STYLE),
        "/api/events" => events(shared, query),
        "/api/flows" => flows(shared, query).await,
        "/api/flow" => match flow(shared, query).await {
            Some((flow, row)) => json(&FlowDetail::new(&flow, row, shared.live.redactor())),
            None => text(StatusCode::NOT_FOUND, "no such flow\n"),
        },
        "/api/endpoints" => json(&shared.backend.endpoints().await),
        "/api/explain" => {
            let key = param(query, "key").unwrap_or_default();
            match shared.backend.explain(&key).await {
                Some(text) => json(&Explained { text }),
                None => text(StatusCode::NOT_FOUND, "no such endpoint\n"),
            }
        }
        "/api/spec" => match shared.backend.documents().await {
            Some(docs) => json(&Spec {
                markdown: docs.markdown,
                yaml: docs.yaml,
            }),
            None => text(StatusCode::NOT_FOUND, "no spec here\n"),
        },
        "/api/drift" => match shared.backend.drift().await {
            Some(markdown) => json(&Drift { markdown }),
            None => text(
                StatusCode::NOT_FOUND,
                "no published spec to drift from: start with --against SPEC\n",
            ),
        },
        "/openapi.yaml" | "/openapi.json" => download(shared, path).await,
        "/api/session" => json(&shared.live.session()),
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
    }
}

/// Answers a POST.
pub(crate) async fn post(shared: &Shared, path: &str, query: &str, body: &[u8]) -> Response<Body> {
    match path {
        "/api/replay" => replay(shared, body).await,
        "/api/reveal" => {
            let Some(part) = param(query, "part").and_then(|p| Part::parse(&p)) else {
                return text(
                    StatusCode::BAD_REQUEST,
                    "part: url, req.h.N, res.h.N, req.body or res.body\n",
                );
            };
            let value = flow(shared, query)
                .await
                .and_then(|(flow, _)| part.reveal(&flow));
            match value {
                Some(value) => {
                    tracing::info!(
                        "web view: revealed a value of flow {}",
                        param(query, "id").unwrap_or_default()
                    );
                    json(&Revealed { value })
                }
                None => text(StatusCode::NOT_FOUND, "no such value\n"),
            }
        }
        "/api/correct" => correct(shared, query).await,
        _ => text(StatusCode::NOT_FOUND, "not found\n"),
    }
}

/// `POST /api/correct?key=K&` then `segment=N&as=literal|parameter|rest`,
/// `as=merge&with=K2[&template=/a/{x}]` or `as=split&segment=N&value=V`.
async fn correct(shared: &Shared, query: &str) -> Response<Body> {
    let Some(correction) = correction(query) else {
        return text(
            StatusCode::BAD_REQUEST,
            "key, then segment and as=literal|parameter|rest, as=merge and with, or as=split, segment and value\n",
        );
    };
    match shared.backend.correct(correction).await {
        Ok(line) => {
            tracing::info!("web view: {line}");
            json(&Outcome { ok: true, line })
        }
        Err(line) => {
            let mut response = json(&Outcome { ok: false, line });
            *response.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
            response
        }
    }
}

/// `POST /api/replay` with the edited request as JSON.
async fn replay(shared: &Shared, body: &[u8]) -> Response<Body> {
    let Ok(edited) = serde_json::from_slice::<Edited>(body) else {
        return text(
            StatusCode::BAD_REQUEST,
            "from, method, url, headers, body\n",
        );
    };
    let Some((flow, _)) = flow(shared, &format!("id={}", edited.from)).await else {
        return text(StatusCode::NOT_FOUND, "no such flow\n");
    };
    let request = edited.resolve(&flow, shared.live.redactor());
    let (ok, line) = match shared.backend.replay(request).await {
        Ok(line) => (true, line),
        Err(line) => (false, line),
    };
    let mut response = json(&Outcome { ok, line });
    if !ok {
        *response.status_mut() = StatusCode::BAD_GATEWAY;
    }
    response
}

/// What a state-changing call did, in a line.
#[derive(Serialize)]
struct Outcome {
    ok: bool,
    line: String,
}

#[derive(Serialize)]
struct Explained {
    text: String,
}

#[derive(Serialize)]
struct Spec {
    markdown: String,
    yaml: String,
}

#[derive(Serialize)]
struct Drift {
    markdown: String,
}

#[derive(Serialize)]
struct Revealed {
    value: String,
}

#[derive(Serialize)]
struct Page {
    total: usize,
    offset: usize,
    rows: Vec<FlowRow>,
}

/// The correction a `POST /api/correct` query asks for.
fn correction(query: &str) -> Option<Correction> {
    let key = param(query, "key")?;
    let kind = param(query, "as")?;
    Some(match kind.as_str() {
        "merge" => Correction::Merge {
            key,
            with: param(query, "with")?,
            template: param(query, "template").filter(|t| !t.trim().is_empty()),
        },
        "split" => Correction::Split {
            key,
            segment: number(query, "segment")?,
            value: param(query, "value")?,
        },
        other => Correction::Segment {
            key,
            segment: number(query, "segment")?,
            make: SegmentAs::parse(other)?,
        },
    })
}

fn param(query: &str, name: &str) -> Option<String> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.into_owned())
}

fn number(query: &str, name: &str) -> Option<usize> {
    param(query, name).and_then(|v| v.parse().ok())
}

fn events(shared: &Shared, query: &str) -> Response<Body> {
    let body = sse::stream(&shared.live, Filter::from_query(query));
    let mut response = Response::new(body.boxed());
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    response
}

async fn flows(shared: &Shared, query: &str) -> Response<Body> {
    let filter = Filter::from_query(query);
    let offset = number(query, "offset").unwrap_or(0);
    let limit = number(query, "limit").unwrap_or(100).min(MAX_PAGE);
    let (total, rows) = shared.live.rows(&filter, offset, limit);
    let rows = rows.iter().map(|r| (**r).clone()).collect();
    json(&Page {
        total,
        offset,
        rows: rejoined(shared, rows).await,
    })
}

/// The flow `id` of the query and its row: recent ones from memory,
/// older ones from the backend's archive.
async fn flow(shared: &Shared, query: &str) -> Option<(Arc<ar_store::Flow>, FlowRow)> {
    let id = param(query, "id")?.parse().ok()?;
    let row = shared.live.row(id)?;
    let flow = match shared.live.recent_flow(id) {
        Some(flow) => flow,
        None => Arc::new(shared.backend.archived_flow(id).await?),
    };
    let row = rejoined(shared, vec![(*row).clone()]).await.pop()?;
    Some((flow, row))
}

/// `rows` naming the endpoint each flow belongs to now rather than the one
/// it joined when captured, when the backend has a store to ask.
async fn rejoined(shared: &Shared, mut rows: Vec<FlowRow>) -> Vec<FlowRow> {
    let (at, asked): (Vec<usize>, Vec<Joined>) = rows
        .iter()
        .enumerate()
        .filter_map(|(i, row)| {
            let joined = Joined {
                method: row.method.clone(),
                path: url::Url::parse(&row.url).ok()?.path().to_owned(),
                endpoint: row.endpoint.clone()?,
            };
            Some((i, joined))
        })
        .unzip();
    if asked.is_empty() {
        return rows;
    }
    if let Some(now) = shared.backend.endpoints_now(asked).await {
        for (i, endpoint) in at.into_iter().zip(now) {
            rows[i].endpoint = endpoint;
        }
    }
    rows
}

async fn download(shared: &Shared, path: &str) -> Response<Body> {
    let Some(docs) = shared.backend.documents().await else {
        return text(StatusCode::NOT_FOUND, "no spec here\n");
    };
    let (name, content_type, body) = if path.ends_with(".yaml") {
        ("openapi.yaml", "application/yaml", docs.yaml)
    } else {
        ("openapi.json", "application/json", docs.json)
    };
    let mut response = whole(StatusCode::OK, content_type, body);
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        response
            .headers_mut()
            .insert(header::CONTENT_DISPOSITION, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use std::io::{Read as _, Write as _};
    use std::sync::Arc;

    use crate::{Backend, Live, SessionView, WebConfig, WebUi};

    struct Drifting(Option<&'static str>);

    #[async_trait::async_trait]
    impl Backend for Drifting {
        async fn drift(&self) -> Option<String> {
            self.0.map(str::to_owned)
        }
    }

    /// `GET path` on the web view of `backend`: the status line and the body.
    async fn get(backend: Drifting, path: &str) -> (String, String) {
        let live = Live::new(SessionView::new("https://shop.test/"));
        let ui = WebUi::start(WebConfig::port(0), live, Arc::new(backend))
            .await
            .unwrap();
        let url = ui.url().to_owned();
        let (authority, token) = url
            .trim_start_matches("http://")
            .split_once("/?token=")
            .unwrap();
        let (authority, token) = (authority.to_owned(), token.to_owned());
        let path = format!("{path}?token={token}");
        tokio::task::spawn_blocking(move || {
            let mut stream = std::net::TcpStream::connect(&authority).unwrap();
            write!(
                stream,
                "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
            )
            .unwrap();
            let mut answer = String::new();
            stream.read_to_string(&mut answer).unwrap();
            let (head, body) = answer.split_once("\r\n\r\n").unwrap();
            (head.lines().next().unwrap().to_owned(), body.to_owned())
        })
        .await
        .unwrap()
    }

    #[tokio::test]
    async fn the_drift_tab_reads_drift_md_or_says_there_is_none() {
        let (status, body) = get(Drifting(Some("# Drift\n")), "/api/drift").await;
        assert!(status.contains("200"), "{status}");
        assert!(body.contains(r##""markdown":"# Drift\n""##), "{body}");
        let (status, body) = get(Drifting(None), "/api/drift").await;
        assert!(status.contains("404"), "{status}");
        assert!(body.contains("--against"), "{body}");
    }
}
