//! What `ar mcp` reads out of a site's capture: the spec (whole or one path,
//! YAML or JSON), API.md, and the endpoint list with the evidence behind each
//! endpoint (the concrete paths its template stands for, the flows it kept as
//! samples, statuses, when it was seen). Tools and resources both answer
//! from here.
//!
//! Documents are rendered from the pipeline at the moment of the call, so an
//! endpoint an action just hit is there before the debounced files are.
//! The spec and API.md are redacted by ar-openapi when they are built; the
//! endpoint list passes through the tool box's redactor.

use ar_store::store::{EndpointStore, Query};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use super::sites::{Site, tool_error};
use ar_agent::agent::ToolError;

/// A spec format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// `openapi.yaml`
    Yaml,
    /// `openapi.json`
    Json,
}

impl Format {
    /// `yaml` (also the default) or `json`.
    pub(crate) fn parse(text: Option<&str>) -> Result<Self, ToolError> {
        match text.map(str::to_ascii_lowercase).as_deref() {
            None | Some("yaml" | "yml") => Ok(Self::Yaml),
            Some("json") => Ok(Self::Json),
            Some(other) => Err(tool_error(
                "invalid_arguments",
                format!("format {other:?}: use yaml or json"),
            )),
        }
    }
}

/// The spec now, or only its `path` item (`/api/products/{productId}`).
pub(crate) async fn spec(
    site: &Site,
    format: Format,
    path: Option<&str>,
) -> Result<String, ToolError> {
    let docs = site.documents().await?;
    let Some(path) = path else {
        return Ok(match format {
            Format::Yaml => docs.yaml,
            Format::Json => docs.json,
        });
    };
    let spec: Value = serde_json::from_str(&docs.json)
        .map_err(|e| tool_error("failed", format!("the spec does not parse: {e}")))?;
    let paths = spec["paths"].as_object();
    let Some(item) = paths.and_then(|p| p.get(path)) else {
        let known: Vec<&str> = paths
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default();
        return Err(tool_error(
            "path_not_found",
            format!(
                "the spec has no path {path:?}; its paths: {}",
                if known.is_empty() {
                    "none yet".to_owned()
                } else {
                    known.join(", ")
                }
            ),
        ));
    };
    let one = json!({ path: item });
    match format {
        Format::Json => {
            serde_json::to_string_pretty(&one).map_err(|e| tool_error("failed", e.to_string()))
        }
        Format::Yaml => {
            serde_norway::to_string(&one).map_err(|e| tool_error("failed", e.to_string()))
        }
    }
}

/// `API.md` now.
pub(crate) async fn markdown(site: &Site) -> Result<String, ToolError> {
    Ok(site.documents().await?.markdown)
}

/// The endpoints matching `query` (all without one) with their evidence, as
/// redacted JSON.
pub(crate) async fn endpoints(site: &Site, query: Option<String>) -> Result<String, ToolError> {
    let (tx, rx) = oneshot::channel();
    let query = query.filter(|q| !q.trim().is_empty());
    let sent = site.run_on_store(move |store| {
        let _ = tx.send(evidence(store, query.as_deref()));
    });
    if !sent {
        return Err(tool_error("site_closed", "the site's capture has stopped"));
    }
    let list = rx
        .await
        .map_err(|_| tool_error("site_closed", "the site's capture has stopped"))?;
    let text =
        serde_json::to_string_pretty(&list).map_err(|e| tool_error("failed", e.to_string()))?;
    Ok(site.tools.redactor().text(&text).into_owned())
}

/// Concrete paths listed per endpoint (the most frequent first).
const PATHS_SHOWN: usize = 10;

fn evidence(store: &EndpointStore, query: Option<&str>) -> Value {
    let query = query.map_or_else(Query::all, Query::text);
    let endpoints: Vec<Value> = store
        .search(&query)
        .into_iter()
        .map(|e| {
            let mut paths: Vec<(&String, &u64)> = e.concrete_paths().iter().collect();
            paths.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            json!({
                "key": e.key().to_string(),
                "method": e.method(),
                "host": e.host(),
                "path": e.template().to_string(),
                "flows": e.flow_count(),
                "statuses": e.statuses().iter().map(|(s, n)| (s.to_string(), json!(n))).collect::<serde_json::Map<_, _>>(),
                "no_response": e.no_response_count(),
                "query_params": e.query_params().params.keys().collect::<Vec<_>>(),
                "response_types": e.response_media_types().keys().collect::<Vec<_>>(),
                "paths_seen": paths.iter().take(PATHS_SHOWN).map(|(p, n)| json!({"path": p, "flows": n})).collect::<Vec<_>>(),
                "distinct_paths": paths.len(),
                "sample_flows": e.samples().map(|s| json!({"flow": s.flow.id.0, "by": format!("{:?}", s.flow.client), "url": s.flow.request.url})).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({"endpoints": endpoints, "count": endpoints.len()})
}
