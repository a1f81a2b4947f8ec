//! `--against SPEC`: each in-scope flow the pipeline ingests is also held against a
//! published spec ([`ar_diff::Drift`]), and `DRIFT.md` and `drift.json` are written beside
//! the documents whenever they are.
//!
//! This module only translates: a [`Flow`] into the [`Exchange`] the drift reads (header
//! names, each body's media type and, when it may be JSON, its text with the tape the store
//! read it onto, so the drift walks that instead of parsing the text again), and the drift's
//! report into the two documents, shadow endpoints named by the store's current templates and
//! the text passed through the same redactor as API.md.

use ar_diff::{Drift, DriftReport, Exchange, HeaderNames, Payload};
use ar_openapi::Redactor;
use ar_store::Flow;
use ar_store::store::{BodyTapes, EndpointStore};

/// `DRIFT.md`: the drift report for people.
pub const DRIFT_MD: &str = "DRIFT.md";
/// `drift.json`: the drift report for tools.
pub const DRIFT_JSON: &str = "drift.json";

/// Bodies larger than this are not read for the drift (their status and media type still
/// count): a 64 MiB answer would cost more to read again than the capture of it.
const MAX_JSON_BYTES: usize = 8 * 1024 * 1024;

/// The two drift documents, as they would be written now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriftDocuments {
    /// `DRIFT.md`.
    pub markdown: String,
    /// `drift.json`.
    pub json: String,
    /// The counts in a line, for the summary line.
    pub headline: String,
    /// API.md's overview line: the counts and a link to DRIFT.md.
    pub overview: String,
}

/// Holds `flow` (in scope, documented under `endpoint`, the store's key) against the spec;
/// `tapes`: its bodies as the store read them, walked rather than parsed again.
pub(super) fn observe(drift: &mut Drift, flow: &Flow, endpoint: Option<&str>, tapes: BodyTapes) {
    let request = &flow.request;
    let request_json = json(&request.body);
    let headers = Names(&request.headers);
    let mut exchange = Exchange::new(flow.id.0, &request.method, &request.url).headers(&headers);
    if !request.body.is_empty() {
        let body = Payload::new(request.body.media_type_as_sent(), request_json);
        exchange = exchange.request_body(body.tape(tapes.request));
    }
    let response_json = flow.response.as_ref().and_then(|r| json(&r.body));
    if let Some(response) = &flow.response {
        let body = (!response.body.is_empty()).then(|| {
            Payload::new(response.body.media_type_as_sent(), response_json).tape(tapes.response)
        });
        exchange = exchange.response(response.status, body);
    }
    if let Some(key) = endpoint {
        exchange = exchange.endpoint(key);
    }
    drift.observe(&exchange);
}

/// A request's headers as the drift reads them: their names, where the flow keeps them.
#[derive(Debug)]
struct Names<'f>(&'f ar_store::Headers);

impl HeaderNames for Names<'_> {
    fn count(&self) -> usize {
        self.0.len()
    }

    fn name(&self, index: usize) -> &str {
        &self.0.0[index].name
    }
}

/// The drift report now, shadow endpoints under the store's current templates.
pub(super) fn report(drift: &Drift, store: &EndpointStore) -> DriftReport {
    drift.report_regrouped(|key| store.resolve_key(key).map(|e| e.template().to_string()))
}

/// The line API.md's overview gets.
fn overview_line(report: &DriftReport) -> String {
    format!(
        "**Drift from `{}`:** {} (see [{DRIFT_MD}]({DRIFT_MD}))",
        report.spec_name(),
        report.headline()
    )
}

/// The report rendered, secrets redacted as in API.md.
pub(super) fn documents(report: &DriftReport, redactor: &Redactor) -> DriftDocuments {
    DriftDocuments {
        markdown: redactor.text(&report.to_markdown()).into_owned(),
        json: redactor.text(&report.to_json()).into_owned(),
        headline: report.headline(),
        overview: redactor.text(&overview_line(report)).into_owned(),
    }
}

/// The body's text, when it is whole and may be JSON (the drift parses it as it checks it).
fn json(body: &ar_store::Body) -> Option<&[u8]> {
    if body.bytes.is_empty()
        || body.truncated
        || body.decode_error.is_some()
        || body.bytes.len() > MAX_JSON_BYTES
    {
        return None;
    }
    let looks = body
        .bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'['));
    // Looked at first: a JSON body shows it in its first byte, where finding `json` in its
    // media type costs a hundred instructions.
    let declared = || {
        body.media_type_as_sent().is_some_and(|m| {
            m.as_bytes()
                .windows(4)
                .any(|w| w.eq_ignore_ascii_case(b"json"))
        })
    };
    (looks || declared()).then_some(&body.bytes[..])
}

#[cfg(test)]
mod tests {
    use ar_diff::{Baseline, Document};
    use ar_store::scope::{Scope, ScopeConfig};
    use ar_store::store::StoreConfig;
    use serde_json::json;

    use super::*;

    #[test]
    fn flows_are_read_for_the_drift_and_bodies_only_when_whole() {
        let spec = Document::from_value(json!({"openapi": "3.0.3", "paths": {"/items": {"get": {
            "responses": {"200": {"content": {"application/json": {"schema": {
                "type": "object", "properties": {"id": {"type": "integer"}}}}}}}}}}}))
        .unwrap();
        let mut drift = Drift::new(Baseline::new(spec, "items.yaml"));
        let flow = ar_flow::testing::json_flow(
            7,
            "GET",
            "https://api.shop.test/items",
            200,
            r#"{"id":"x","extra":1}"#,
        );
        // The answer walked on the tape the store read it onto.
        let scope = Scope::new(ScopeConfig::for_target("https://api.shop.test/")).unwrap();
        let mut store = EndpointStore::new(scope, StoreConfig::default());
        store.ingest(&flow);
        let tapes = store.body_tapes(&flow);
        assert!(tapes.response.is_some());
        observe(&mut drift, &flow, Some("GET api.shop.test/items"), tapes);
        // The same answer read afresh, and a cut one, which is not read.
        let mut again = flow.clone();
        again.id = ar_store::FlowId(9);
        observe(&mut drift, &again, None, BodyTapes::default());
        let mut cut = flow.clone();
        cut.id = ar_store::FlowId(8);
        if let Some(response) = &mut cut.response {
            response.body.truncated = true;
        }
        observe(&mut drift, &cut, None, BodyTapes::default());
        let report = drift.report();
        let ids: Vec<(&str, Vec<u64>)> = report
            .findings()
            .iter()
            .map(|f| (f.kind.id(), f.flow_ids.clone()))
            .collect();
        assert_eq!(
            ids,
            [
                ("wrong_type", vec![7, 9]),
                ("undocumented_field", vec![7, 9])
            ]
        );
        let docs = documents(&report, &Redactor::new());
        assert!(docs.markdown.contains("`$.extra`"), "{}", docs.markdown);
        assert_eq!(
            docs.overview,
            "**Drift from `items.yaml`:** 0 shadow endpoints, 0 zombie endpoints, 1 violation, \
             1 undocumented (see [DRIFT.md](DRIFT.md))"
        );
    }
}
