//! The documenter: observes in-scope flows with the store's verdict and keeps,
//! per endpoint, everything the spec and the markdown need.

use std::collections::BTreeMap;

use ar_store::Flow;

use crate::endpoint::EndpointDoc;
use crate::header_roles::HeaderRoles;
use crate::redact::Redactor;

/// An endpoint as the store sees it: identity, current template, and where
/// its path parameters' values came from. The documenter is told this with
/// every flow, and again (via [`Documenter::refresh`]) when templates widen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointInfo {
    /// The store's endpoint id.
    pub id: u64,
    /// The stable key agents use (`GET api.shop.test/users/{userId}`, or a GraphQL operation name).
    pub key: String,
    /// Uppercase method.
    pub method: String,
    /// Host (with `:port` when not the default).
    pub host: String,
    /// Path template, e.g. `/users/{userId}/orders`.
    pub template: String,
    /// Where path parameter values were seen before (for OpenAPI links).
    pub sources: Vec<ValueSource>,
    /// The last path parameter when it takes the rest of the path, slashes
    /// included (a user template's `{path*}`): its values span several
    /// segments (`a/b/c.txt`), which the template text cannot say.
    pub rest_param: Option<String>,
}

/// A path parameter whose value was first seen in another endpoint's response.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ValueSource {
    /// The path parameter name (`orderId`).
    pub param: String,
    /// The endpoint id the value came from.
    pub from_endpoint: u64,
    /// Where in that endpoint's body, as a JSON path (`$.orders[].id`).
    pub json_path: String,
    /// Whether the value was in the response body (else the request body).
    pub from_response: bool,
}

/// Why a flow did not make it into the spec, for the ledger in `API.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    /// The host is not in scope.
    OutOfScopeHost,
    /// A known analytics, ads or telemetry host.
    Tracker,
    /// A static asset (script, style, image, font, ...).
    StaticAsset,
    /// An HTML page (a document navigation, not an API call).
    HtmlPage,
    /// The exchange failed or has no response.
    NoResponse,
    /// Refused by the capture proxy itself: never sent, so no evidence.
    Refused,
    /// Excluded by a user rule (path glob, deny list).
    UserRule,
    /// A CORS preflight request.
    Preflight,
    /// In scope, but the store's endpoint limit was reached.
    OverCapacity,
}

impl SkipReason {
    /// A short human label.
    pub fn label(self) -> &'static str {
        match self {
            Self::OutOfScopeHost => "out-of-scope host",
            Self::Tracker => "tracker / analytics",
            Self::StaticAsset => "static asset",
            Self::HtmlPage => "HTML page",
            Self::NoResponse => "no response (error or aborted)",
            Self::Refused => "refused by the proxy (never sent)",
            Self::UserRule => "excluded by a user rule",
            Self::Preflight => "CORS preflight",
            Self::OverCapacity => "endpoint limit reached",
        }
    }
}

/// What was left out of the spec, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ledger {
    /// Flows observed in total (documented or skipped).
    pub flows: u64,
    /// Flows documented in the spec.
    pub documented: u64,
    /// Skipped flows by reason.
    pub skipped: BTreeMap<SkipReason, u64>,
    /// Hosts seen but not documented (out of scope or trackers), with flow counts.
    pub other_hosts: BTreeMap<String, u64>,
    /// Documented flows with a body that could not be decoded as its content type claims.
    pub undecodable_bodies: u64,
    /// Documented flows with a body the capture cut short: past the body
    /// size cap, or where decoding stopped at its bound (a decompression
    /// bomb). Their schema leaves those bodies out; the archive keeps what
    /// was captured and the flow's `decode_error` says why.
    pub truncated_bodies: u64,
    /// What the input did not hold as written, before it became flows, one
    /// phrase each ("3 entries without a response: request side documented"):
    /// a spec that stands on repaired input says so.
    pub input_notes: Vec<String>,
    /// Requests the capture proxy refused while the explorer drove, because
    /// they read as destructive ([`ar_flow::destructive`]): never sent.
    pub refused_destructive: u64,
    /// The first of them as `METHOD /path` (at most 20 of them), each with
    /// how many times it was refused.
    pub refused_destructive_first: Vec<(String, u64)>,
}

/// At most this many refused requests are listed by name in the ledger.
const MAX_REFUSED_LISTED: usize = 20;

/// At most this many out-of-scope hosts are listed by name.
const MAX_OTHER_HOSTS: usize = 500;

/// Collects per-endpoint documentation evidence from flows.
///
/// ```
/// use ar_openapi::{Documenter, EndpointInfo, Redactor};
/// use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
///
/// let mut response = Response::new(200, HttpVersion::Http11);
/// response.body = Body::from_decoded(Some("application/json".into()), br#"{"id":42}"#.to_vec());
/// let request = Request::new("GET", "https://api.shop.test/users/42", HttpVersion::Http11);
/// let flow = Flow::new(FlowId(1), Timestamp::from_unix_micros(0), Client::Human, request).with_response(response);
///
/// let mut documenter = Documenter::new(Redactor::new());
/// let info = EndpointInfo {
///     id: 1, key: "GET api.shop.test/users/{userId}".into(), method: "GET".into(),
///     host: "api.shop.test".into(), template: "/users/{userId}".into(), sources: vec![],
///     rest_param: None,
/// };
/// documenter.observe(&flow, &info);
/// assert_eq!(documenter.endpoint_count(), 1);
/// assert_eq!(documenter.ledger().documented, 1);
/// ```
#[derive(Debug, Clone)]
pub struct Documenter {
    redactor: Redactor,
    /// What each header name means, under `redactor`'s rules.
    roles: HeaderRoles,
    pub(crate) endpoints: BTreeMap<u64, (EndpointInfo, EndpointDoc)>,
    ledger: Ledger,
}

impl Documenter {
    /// A documenter that redacts examples with `redactor`.
    pub fn new(redactor: Redactor) -> Self {
        Self {
            redactor,
            roles: HeaderRoles::default(),
            endpoints: BTreeMap::new(),
            ledger: Ledger::default(),
        }
    }

    /// Records that the input was repaired or partly unreadable before it
    /// became flows (`note` is a phrase such as "2 entries without
    /// startedDateTime: time of the previous entry used"), for API.md.
    pub fn note_input(&mut self, note: impl Into<String>) {
        self.ledger.input_notes.push(note.into());
    }

    /// The redactor in use.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// Learns from one in-scope flow that the store placed in `endpoint`.
    ///
    /// HTML page loads are not API calls: they are counted in the ledger
    /// and otherwise ignored.
    pub fn observe(&mut self, flow: &Flow, endpoint: &EndpointInfo) {
        if self.count_observed(flow) {
            self.learn(flow, endpoint);
        }
    }

    /// [`Documenter::observe`] for a flow of endpoint `id` whose identity the
    /// documenter already holds as the store has it: nothing to copy.
    pub(crate) fn observe_current(&mut self, flow: &Flow, id: u64) {
        if self.count_observed(flow) {
            self.learn_into(id, flow);
        }
    }

    /// Observes without counting in the ledger (for rebuilding from samples).
    pub(crate) fn observe_quietly(&mut self, flow: &Flow, endpoint: &EndpointInfo) {
        if !is_html_page(flow) {
            self.learn(flow, endpoint);
        }
    }

    /// Counts an observed flow in the ledger; `false` for an HTML page load,
    /// which is counted as skipped and not documented.
    fn count_observed(&mut self, flow: &Flow) -> bool {
        self.ledger.flows += 1;
        if is_html_page(flow) {
            *self.ledger.skipped.entry(SkipReason::HtmlPage).or_default() += 1;
            return false;
        }
        self.ledger.documented += 1;
        let cut = |body: &ar_store::Body| body.truncated;
        if cut(&flow.request.body) || flow.response.as_ref().is_some_and(|r| cut(&r.body)) {
            self.ledger.truncated_bodies += 1;
        }
        true
    }

    /// Takes `endpoint` as the endpoint's identity and learns from `flow`.
    fn learn(&mut self, flow: &Flow, endpoint: &EndpointInfo) {
        let entry = self
            .endpoints
            .entry(endpoint.id)
            .or_insert_with(|| (endpoint.clone(), EndpointDoc::default()));
        entry.0.clone_from(endpoint);
        self.learn_into(endpoint.id, flow);
    }

    /// Adds `flow` to the evidence of endpoint `id`, if documented.
    fn learn_into(&mut self, id: u64, flow: &Flow) {
        if let Some(entry) = self.endpoints.get_mut(&id) {
            learn(
                entry,
                flow,
                &self.redactor,
                &mut self.roles,
                &mut self.ledger,
            );
        }
    }

    /// Counts a flow that was left out, and its host when the host was the reason.
    pub fn skip(&mut self, flow: &Flow, reason: SkipReason) {
        self.ledger.flows += 1;
        *self.ledger.skipped.entry(reason).or_default() += 1;
        if ar_flow::destructive::refused_as_destructive(flow) {
            self.ledger.note_refused(flow);
        }
        if matches!(reason, SkipReason::OutOfScopeHost | SkipReason::Tracker) {
            let host = host_of(&flow.request.url);
            if self.ledger.other_hosts.len() < MAX_OTHER_HOSTS
                || self.ledger.other_hosts.contains_key(host)
            {
                *self.ledger.other_hosts.entry(host.to_string()).or_default() += 1;
            }
        }
    }

    /// The store merged endpoint `from` into `into`: their evidence is combined.
    pub fn merge_endpoints(&mut self, into: u64, from: u64) {
        if into == from {
            return;
        }
        let Some((_, absorbed)) = self.endpoints.remove(&from) else {
            return;
        };
        if let Some((_, survivor)) = self.endpoints.get_mut(&into) {
            survivor.merge(&absorbed);
        }
    }

    /// Forgets an endpoint the store removed.
    pub fn remove_endpoint(&mut self, id: u64) {
        self.endpoints.remove(&id);
    }

    /// Updates an endpoint's identity (its template widened, its key changed).
    pub fn refresh(&mut self, endpoint: &EndpointInfo) {
        if let Some((info, _)) = self.endpoints.get_mut(&endpoint.id) {
            info.clone_from(endpoint);
        }
    }

    /// Number of documented endpoints.
    pub fn endpoint_count(&self) -> usize {
        self.endpoints.len()
    }

    /// The identities of the documented endpoints, by id.
    pub fn endpoints(&self) -> impl Iterator<Item = &EndpointInfo> {
        self.endpoints.values().map(|(info, _)| info)
    }

    /// What was left out and why.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// Which of ar-schema's safety limits the JSON bodies documented so far
    /// hit (nesting cut at [`ar_schema::limits::MAX_DEPTH`], objects with more
    /// than [`ar_schema::limits::MAX_PROPERTIES`] keys made maps, long keys),
    /// summed over every endpoint's request and response schemas: the ledger
    /// says what the schemas leave out.
    pub fn body_limits(&self) -> ar_schema::LimitReport {
        let mut total = ar_schema::LimitReport::default();
        for (_, doc) in self.endpoints.values() {
            let responses = doc.responses.values().flat_map(|r| r.content.values());
            for stats in doc.request.values().chain(responses) {
                let report = stats.schema.schema().limits();
                total.depth_truncated += report.depth_truncated;
                total.long_keys += report.long_keys;
                total.collapsed_objects += report.collapsed_objects;
            }
        }
        total
    }
}

/// Adds `flow` to an endpoint's evidence, under the endpoint's current template.
fn learn(
    (info, doc): &mut (EndpointInfo, EndpointDoc),
    flow: &Flow,
    redactor: &Redactor,
    roles: &mut HeaderRoles,
    ledger: &mut Ledger,
) {
    let before = doc.undecodable;
    doc.observe(
        flow,
        &info.template,
        info.rest_param.as_deref(),
        redactor,
        roles,
    );
    ledger.undecodable_bodies += doc.undecodable - before;
}

/// A GET answered with an HTML document is a page load, not an API call.
fn is_html_page(flow: &Flow) -> bool {
    flow.request.method.eq_ignore_ascii_case("GET")
        && flow.response.as_ref().is_some_and(|r| {
            r.body.media_type_as_sent().is_some_and(|media| {
                media.eq_ignore_ascii_case("text/html")
                    || media.eq_ignore_ascii_case("application/xhtml+xml")
            })
        })
}

/// The host (and port) of an absolute URL, without userinfo.
impl Ledger {
    /// Counts a request the proxy refused as destructive, by name.
    fn note_refused(&mut self, flow: &Flow) {
        self.refused_destructive += 1;
        let named = format!("{} {}", flow.request.method, path_of(&flow.request.url));
        let listed = &mut self.refused_destructive_first;
        if let Some((_, times)) = listed.iter_mut().find(|(n, _)| *n == named) {
            *times += 1;
        } else if listed.len() < MAX_REFUSED_LISTED {
            listed.push((named, 1));
        }
    }
}

/// The path of `url`, without its query: `/api/carts/3`.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    match rest.find(['/', '?', '#']) {
        Some(at) if rest[at..].starts_with('/') => {
            rest[at..].split(['?', '#']).next().unwrap_or("/")
        }
        _ => "/",
    }
}

pub(crate) fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit('@').next().unwrap_or(authority)
}

#[cfg(test)]
mod tests {
    use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

    use super::*;
    use crate::{Enrichment, Options, document};

    /// The endpoint `GET api.shop.test{template}`, as the store names it.
    fn endpoint(template: &str) -> EndpointInfo {
        EndpointInfo {
            id: 1,
            key: format!("GET api.shop.test{template}"),
            method: "GET".into(),
            host: "api.shop.test".into(),
            template: template.into(),
            sources: vec![],
            rest_param: None,
        }
    }

    /// A GET of `url` answered 200 with `body` as JSON.
    fn json_get(id: u64, url: &str, body: Vec<u8>) -> (Flow, Response) {
        let mut response = Response::new(200, HttpVersion::Http11);
        response.body = Body::from_decoded(Some("application/json".into()), body);
        let request = Request::new("GET", url, HttpVersion::Http11);
        let flow = Flow::new(
            FlowId(id),
            Timestamp::from_unix_micros(0),
            Client::Human,
            request,
        );
        (flow, response)
    }

    /// Issue #31: a body the capture stopped decoding (a decompression bomb)
    /// is documented without it, and the ledger says so.
    #[test]
    fn a_body_cut_short_at_capture_is_named_in_the_ledger() {
        let mut documenter = Documenter::new(Redactor::new());
        let info = endpoint("/blobs/{blobId}");
        for (id, cut) in [(1, false), (2, true)] {
            let url = format!("https://api.shop.test/blobs/{id}");
            let (flow, mut response) = json_get(id, &url, br#"{"id":1}"#.to_vec());
            if cut {
                response.body.bytes = vec![0; 1024];
                response.body.truncated = true;
                response.body.decode_error = Some("possible decompression bomb".into());
            }
            documenter.observe(&flow.with_response(response), &info);
        }
        assert_eq!(documenter.ledger().truncated_bodies, 1);
        let docs = document(&documenter, &Enrichment::new(), &Options::default()).unwrap();
        assert!(
            docs.markdown
                .contains("decompression bomb); documented without it | 1 |"),
            "{}",
            docs.markdown
        );
    }

    /// A listing filtered by a query parameter echoes the filter in every
    /// item: that field is no enum, however often it was seen; a field the
    /// request did not choose is.
    #[test]
    fn a_field_that_echoes_a_query_filter_is_no_enum() {
        let mut documenter = Documenter::new(Redactor::new());
        let info = endpoint("/issues");
        let kinds = ["bug", "docs", "feature"];
        for page in 0..12u64 {
            let items: Vec<String> = (0..6)
                .map(|i| format!(r#"{{"state":"open","kind":"{}"}}"#, kinds[i % 3]))
                .collect();
            let body = format!(r#"{{"page":{page},"data":[{}]}}"#, items.join(","));
            let url = format!("https://api.shop.test/issues?state=open&page={page}");
            let (flow, response) = json_get(page, &url, body.into_bytes());
            documenter.observe(&flow.with_response(response), &info);
        }
        let docs = document(&documenter, &Enrichment::new(), &Options::default()).unwrap();
        let spec: serde_json::Value = serde_json::from_str(&docs.json().unwrap()).unwrap();
        let item = &spec["paths"]["/issues"]["get"]["responses"]["200"]["content"]["application/json"]
            ["schema"]["properties"]["data"]["items"]["properties"];
        assert_eq!(item["state"]["type"], "string");
        assert!(item["state"].get("enum").is_none(), "{}", item["state"]);
        assert_eq!(
            item["kind"]["enum"],
            serde_json::json!(["bug", "docs", "feature"])
        );
    }
}
