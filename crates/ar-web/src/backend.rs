//! [`Backend`]: what the page asks of the process that owns the capture
//! (the `ar <url>` session, `ar proxy`). Everything pushed as it happens
//! goes through [`crate::Live`]; this trait is for what is read on demand,
//! from whoever owns the endpoint store and the archive.

use std::collections::BTreeMap;

use ar_openapi::Redactor;
use ar_schema::ShapeOptions;
use ar_store::Flow;
use ar_store::store::{Endpoint, EndpointStore};
use async_trait::async_trait;
use serde::Serialize;

use crate::correction::Correction;
use crate::rejoin::Joined;

/// The three documents as they would be written now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Documents {
    /// `openapi.yaml`.
    pub yaml: String,
    /// `openapi.json`.
    pub json: String,
    /// `API.md`.
    pub markdown: String,
}

impl Documents {
    /// The three documents.
    pub fn new(yaml: String, json: String, markdown: String) -> Self {
        Self {
            yaml,
            json,
            markdown,
        }
    }
}

/// One endpoint as the Endpoints panel lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EndpointView {
    /// The stable key (`GET shop.test/api/users/{userId}`).
    pub key: String,
    /// The method.
    pub method: String,
    /// The host.
    pub host: String,
    /// The path template.
    pub template: String,
    /// Flows that joined it.
    pub flows: u64,
    /// Flows per status.
    pub statuses: BTreeMap<u16, u64>,
    /// The first JSON response body's shape, secrets redacted.
    pub shape: Option<String>,
    /// The values each parameter segment had, to pick one to split off.
    pub values: Vec<SegmentValues>,
}

/// The values one parameter segment of an endpoint had: what the page
/// offers to split off. A value that looks like a credential is counted,
/// never sent: the page would show it to whoever looks over a shoulder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SegmentValues {
    /// The segment, counted from 0 after the leading `/`.
    pub segment: usize,
    /// Values and their flow counts, most seen first, at most [`PICK_VALUES`].
    pub values: Vec<(String, u64)>,
    /// Distinct values left out because they look like secrets.
    pub secret: usize,
    /// Distinct values beyond the first [`PICK_VALUES`].
    pub more: usize,
}

/// Values offered per parameter segment.
pub const PICK_VALUES: usize = 50;

impl SegmentValues {
    /// The values of each one-segment parameter of `endpoint`'s template.
    fn of(endpoint: &Endpoint, redactor: &Redactor) -> Vec<Self> {
        let template = endpoint.template();
        (0..template.segments.len())
            .filter(|&at| template.param_at(at).is_some_and(|p| !p.rest))
            .map(|at| {
                let mut counts: BTreeMap<&str, u64> = BTreeMap::new();
                for (path, flows) in endpoint.concrete_paths() {
                    if let Some(value) = crate::correction::segment_of(path, at) {
                        *counts.entry(value).or_default() += flows;
                    }
                }
                let (secret, shown): (Vec<_>, Vec<_>) = counts
                    .into_iter()
                    .partition(|(value, _)| redactor.is_secret_value(value));
                let mut values: Vec<(String, u64)> = shown
                    .into_iter()
                    .map(|(value, flows)| (value.to_owned(), flows))
                    .collect();
                values.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                let more = values.len().saturating_sub(PICK_VALUES);
                values.truncate(PICK_VALUES);
                Self {
                    segment: at,
                    values,
                    secret: secret.len(),
                    more,
                }
            })
            .collect()
    }
}

/// Bytes of shape preview per endpoint.
const SHAPE_BYTES: usize = 2048;

impl EndpointView {
    /// The view of one endpoint of a store.
    pub fn new(endpoint: &Endpoint, redactor: &Redactor) -> Self {
        Self {
            key: endpoint.key().as_str().to_owned(),
            method: endpoint.method().to_owned(),
            host: endpoint.host().to_owned(),
            template: endpoint.template().to_string(),
            flows: endpoint.flow_count(),
            statuses: endpoint.statuses().clone(),
            shape: response_shape(endpoint, redactor),
            values: SegmentValues::of(endpoint, redactor),
        }
    }

    /// Every endpoint of `store`, in key order.
    pub fn all(store: &EndpointStore, redactor: &Redactor) -> Vec<Self> {
        let mut views: Vec<Self> = store
            .endpoints()
            .iter()
            .map(|e| Self::new(e, redactor))
            .collect();
        views.sort_by(|a, b| a.key.cmp(&b.key));
        views
    }
}

/// The shape of the first JSON response among the samples.
fn response_shape(endpoint: &Endpoint, redactor: &Redactor) -> Option<String> {
    endpoint.samples().find_map(|sample| {
        let body = &sample.flow.response.as_ref()?.body;
        let mut value: serde_json::Value = serde_json::from_slice(&body.bytes).ok()?;
        redactor.json(&mut value);
        Some(ar_schema::shape(
            &value,
            &ShapeOptions::default().max_depth(5).max_bytes(SHAPE_BYTES),
        ))
    })
}

/// What the page reads on demand. Every method has a default that says
/// "not available here", so a caller implements only what it owns.
#[async_trait]
pub trait Backend: Send + Sync + 'static {
    /// A flow no longer among the recent ones [`crate::Live`] keeps (read
    /// back from the archive).
    async fn archived_flow(&self, id: u64) -> Option<Flow> {
        let _ = id;
        None
    }

    /// The endpoints now.
    async fn endpoints(&self) -> Vec<EndpointView> {
        Vec::new()
    }

    /// The key of the endpoint each of `flows` belongs to now (see
    /// [`crate::endpoints_now`]), in order; `None` when this backend has no
    /// store to ask, and the rows keep the endpoint they joined.
    async fn endpoints_now(&self, flows: Vec<Joined>) -> Option<Vec<Option<String>>> {
        let _ = flows;
        None
    }

    /// Why endpoint `key` has its template: one decision per segment.
    async fn explain(&self, key: &str) -> Option<String> {
        let _ = key;
        None
    }

    /// The documents as they would be written now.
    async fn documents(&self) -> Option<Documents> {
        None
    }

    /// `DRIFT.md` as it would be written now, redacted as `API.md` is; `None` when the
    /// capture is held against no published spec (`--against`).
    async fn drift(&self) -> Option<String> {
        None
    }

    /// Applies a correction of an endpoint's template (see
    /// [`crate::correction::patterns`]) and rewrites the spec; the line to
    /// show, or why it could not.
    async fn correct(&self, correction: Correction) -> Result<String, String> {
        let _ = correction;
        Err("corrections are made in an `ar <url>` session".to_owned())
    }

    /// Sends `request` again through ar's own proxy, so its answer is
    /// captured as a flow stamped [`ar_store::Client::Replay`]; the line to
    /// show, or why it could not.
    async fn replay(&self, request: ar_store::Request) -> Result<String, String> {
        let _ = request;
        Err("replay is made in an `ar <url>` session".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::correction::tests::store_with;

    #[test]
    fn a_parameters_values_are_offered_most_seen_first_and_secrets_never() {
        let token = "sk_live_9fK2xQ7vLm4RzT8bWc3NpY6hJd";
        assert!(Redactor::new().is_secret_value(token), "a token-like value");
        let paths = [
            "/v1/users/41/orders",
            "/v1/users/42/orders",
            "/v1/users/42/orders",
            &format!("/v1/users/{token}/orders"),
        ];
        // A user template, so the secret value joins the same endpoint whatever the learnt rules say.
        let store = store_with(&paths, &["api.shop.test/v1/users/{userId}/orders"]);
        let views = EndpointView::all(&store, &Redactor::new());
        let [view] = views.as_slice() else {
            panic!("{views:?}")
        };
        assert_eq!(
            view.values,
            [SegmentValues {
                segment: 2,
                values: vec![("42".to_owned(), 2), ("41".to_owned(), 1)],
                secret: 1,
                more: 0,
            }]
        );
        let json = serde_json::to_string(&views).unwrap();
        assert!(!json.contains(token), "{json}");
    }
}
