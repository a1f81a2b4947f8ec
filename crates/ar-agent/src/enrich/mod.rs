//! Documentation enrichment: one LLM call per new endpoint that names it
//! (operationId, summary, description, tag) from a redacted shape preview.
//!
//! The parts, each testable alone:
//! - [`preview`]: what the model is shown: the stable key, statuses, query
//!   parameter names, media types and the *shape* of the bodies (paths and
//!   types, never values), run through the [`Redactor`] once more;
//! - [`Enricher`]: the single call and the parsing of its JSON answer;
//! - [`EnrichmentCache`]: what was named, by key, saved as `enrichment.json`
//!   and reused on `--resume`; failures are kept apart and retried later;
//! - [`Planner`]: which endpoints need a call now. It remembers endpoints by
//!   id, so an endpoint seen again, rekeyed, or merged into one already named
//!   never costs a second call.
//!
//! Without a name, the spec keeps its deterministic names: enrichment only
//! ever adds.

mod cache;
mod planner;

use std::fmt::Write as _;
use std::sync::Arc;

use ar_openapi::{Annotation, Redactor};
use ar_schema::ShapeOptions;
use ar_store::store::Endpoint;

pub use cache::{ENRICHMENT_FILE, EnrichmentCache};
pub use planner::{Job, MAX_ATTEMPTS, Planner};

use crate::llm::{LlmError, Message, Provider, Request, Usage};

/// Bytes of body shape in a preview (per body).
const SHAPE_BYTES: usize = 1200;

/// Why naming an endpoint failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EnrichError {
    /// The model could not be reached.
    #[error("the model call for {key} failed")]
    Llm {
        /// The endpoint.
        key: String,
        /// The provider's error.
        #[source]
        source: LlmError,
    },
    /// The answer was not the JSON asked for.
    #[error("the model's answer for {key} is not a usable name: {answer:?}")]
    BadAnswer {
        /// The endpoint.
        key: String,
        /// The answer (clipped).
        answer: String,
    },
    /// Reading or writing `enrichment.json` failed.
    #[error("cannot {action} {path}: {reason}")]
    Cache {
        /// `read` or `write`.
        action: &'static str,
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// The redacted preview of an endpoint that the model names.
///
/// ```
/// use ar_agent::enrich::preview;
/// use ar_openapi::Redactor;
/// use ar_store::scope::{Scope, ScopeConfig};
/// use ar_store::store::{EndpointStore, StoreConfig};
/// use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
/// let mut store = EndpointStore::new(Scope::everything(), StoreConfig::default());
/// let mut response = Response::new(200, HttpVersion::Http11);
/// response.body = Body::from_decoded(Some("application/json".into()), br#"{"id":7,"email":"a@b.c"}"#.to_vec());
/// let request = Request::new("GET", "https://api.shop.test/users/7", HttpVersion::Http11);
/// store.ingest(&Flow::new(FlowId(1), Timestamp::from_unix_micros(0), Client::Agent, request).with_response(response));
/// let text = preview(store.endpoints()[0], &Redactor::new());
/// assert!(text.contains("GET api.shop.test/users/{userId}"));
/// assert!(text.contains("$.email"));
/// assert!(!text.contains("a@b.c"));
/// ```
#[must_use]
pub fn preview(endpoint: &Endpoint, redactor: &Redactor) -> String {
    let mut out = format!("endpoint: {}\n", endpoint.key());
    if let Some(op) = endpoint.graphql() {
        let _ = writeln!(out, "graphql operation: {op:?}");
    }
    let statuses: Vec<String> = endpoint.statuses().keys().map(u16::to_string).collect();
    let _ = writeln!(out, "statuses: {}", statuses.join(", "));
    let params: Vec<&str> = endpoint
        .query_params()
        .params
        .keys()
        .map(String::as_str)
        .collect();
    if !params.is_empty() {
        let _ = writeln!(out, "query parameters: {}", params.join(", "));
    }
    let opts = ShapeOptions::default().max_depth(5).max_bytes(SHAPE_BYTES);
    let sample = endpoint.samples().next().map(|s| &s.flow);
    if let Some(flow) = sample {
        if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&flow.request.body.bytes) {
            let _ = writeln!(
                out,
                "request body shape:\n{}",
                ar_schema::shape(&value, &opts)
            );
        } else if let Some(media) = flow.request.body.media_type() {
            let _ = writeln!(out, "request body: {media}");
        }
        if let Some(response) = &flow.response {
            if let Ok(value) = serde_json::from_slice::<serde_json::Value>(&response.body.bytes) {
                let _ = writeln!(
                    out,
                    "response body shape:\n{}",
                    ar_schema::shape(&value, &opts)
                );
            } else if let Some(media) = response.body.media_type() {
                let _ = writeln!(out, "response body: {media}");
            }
        }
    }
    redactor.text(&out).into_owned()
}

const SYSTEM: &str = "You name HTTP API endpoints for an OpenAPI document. You get an endpoint's \
method, host and path template, its statuses, query parameter names and the shapes of its bodies. \
Answer with one JSON object and nothing else: {\"operationId\": camelCase verb+noun like \
\"listProducts\" or \"getUserById\", \"summary\": one short line, \"description\": one or two \
sentences on what it does and returns, \"tag\": one lowercase word grouping related endpoints}.";

/// Names endpoints with one model call each.
#[derive(Debug, Clone)]
pub struct Enricher {
    provider: Arc<dyn Provider>,
}

impl Enricher {
    /// An enricher calling `provider`.
    pub fn new(provider: Arc<dyn Provider>) -> Self {
        Self { provider }
    }

    /// One call: the name of the endpoint `key` described by `preview`.
    ///
    /// # Errors
    /// When the model cannot be reached or answers something unusable.
    pub async fn name(&self, key: &str, preview: &str) -> Result<(Annotation, Usage), EnrichError> {
        let mut request = Request::new(vec![Message::user_text(preview)]).with_system(SYSTEM);
        request.max_tokens = 400;
        request.temperature = Some(0.0);
        request.cache_conversation = false;
        let response =
            self.provider
                .complete(&request)
                .await
                .map_err(|source| EnrichError::Llm {
                    key: key.to_owned(),
                    source,
                })?;
        let text = response.message.text();
        parse_answer(&text)
            .map(|a| (a, response.usage))
            .ok_or_else(|| EnrichError::BadAnswer {
                key: key.to_owned(),
                answer: text.chars().take(200).collect(),
            })
    }
}

/// The JSON object in `text` (models sometimes wrap it in prose or fences).
fn parse_answer(text: &str) -> Option<Annotation> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    let value: serde_json::Value = serde_json::from_str(text.get(start..=end)?).ok()?;
    let field = |names: &[&str]| {
        names.iter().find_map(|n| {
            value
                .get(*n)
                .and_then(|v| v.as_str())
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        })
    };
    let operation_id = field(&["operationId", "operation_id"])
        .filter(|id| id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    let annotation = Annotation {
        operation_id,
        summary: field(&["summary"]),
        description: field(&["description"]),
        tag: field(&["tag"]),
    };
    (annotation.operation_id.is_some() || annotation.summary.is_some()).then_some(annotation)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_prose_or_fences_are_read() {
        let a = parse_answer("Sure:\n```json\n{\"operationId\":\"listProducts\",\"summary\":\"List products\",\"tag\":\"products\"}\n```").unwrap();
        assert_eq!(a.operation_id.as_deref(), Some("listProducts"));
        assert_eq!(a.tag.as_deref(), Some("products"));
        assert!(parse_answer("I cannot help").is_none());
        assert!(parse_answer("{\"operationId\": \"has space\"}").is_none());
    }
}
