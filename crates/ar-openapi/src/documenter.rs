//! The documenter: the evidence the store keeps per endpoint for the spec
//! and the markdown, and the ledger of what was left out.

use std::collections::BTreeMap;

use ar_store::Flow;
use ar_store::scope::OutReason;
use ar_store::store::{Endpoint, EndpointEvidence, EndpointId, LeftOut, Observation, Seen};

use crate::endpoint::EndpointDoc;
use crate::header_roles::HeaderRoles;
use crate::redact::Redactor;

/// Why a flow did not make it into the spec, as the ledger in `API.md`
/// groups it for a reader: the store's reasons, where several read as one
/// line (a deny list, a path glob), and the documenter's own (page loads).
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

impl From<LeftOut> for SkipReason {
    fn from(why: LeftOut) -> Self {
        match why {
            LeftOut::Scope(OutReason::OutOfScopeHost) => Self::OutOfScopeHost,
            LeftOut::Scope(OutReason::StaticAsset) => Self::StaticAsset,
            LeftOut::Scope(OutReason::Tracker) => Self::Tracker,
            LeftOut::Scope(OutReason::HtmlPage) => Self::HtmlPage,
            LeftOut::Scope(OutReason::Preflight) => Self::Preflight,
            LeftOut::Scope(OutReason::Refused) => Self::Refused,
            LeftOut::Scope(
                OutReason::UserDeniedHost | OutReason::UserDeniedPath | OutReason::NotAllowedPath,
            ) => Self::UserRule,
            LeftOut::OverCapacity => Self::OverCapacity,
        }
    }
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

/// The documentation evidence of every endpoint: held by the store (as its
/// [`EndpointEvidence`]), which shows it each flow under the endpoint the
/// flow landed in and carries it through merges and splits; read back by
/// [`crate::document`].
///
/// ```
/// use ar_openapi::{Documenter, Redactor};
/// use ar_store::scope::{Scope, ScopeConfig};
/// use ar_store::store::{EndpointStore, StoreConfig};
/// use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};
///
/// let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
/// let mut store = EndpointStore::new(scope, StoreConfig::default())
///     .with_evidence(Documenter::new(Redactor::new()));
/// let mut response = Response::new(200, HttpVersion::Http11);
/// response.body = Body::from_decoded(Some("application/json".into()), br#"{"id":42}"#.to_vec());
/// let request = Request::new("GET", "https://api.shop.test/users/42", HttpVersion::Http11);
/// store.ingest(&Flow::new(FlowId(1), Timestamp::from_unix_micros(0), Client::Human, request).with_response(response));
///
/// let documenter = store.evidence::<Documenter>().unwrap();
/// assert_eq!(documenter.endpoint_count(), 1);
/// assert_eq!(documenter.ledger().documented, 1);
/// ```
#[derive(Debug, Clone)]
pub struct Documenter {
    redactor: Redactor,
    /// What each header name means, under `redactor`'s rules.
    roles: HeaderRoles,
    pub(crate) endpoints: BTreeMap<EndpointId, EndpointDoc>,
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

    /// Adds `flow` to the evidence of `endpoint`, under its current template,
    /// with what the store tells of it.
    fn learn(&mut self, flow: &Flow, endpoint: &Endpoint, observation: Observation<'_>) {
        let doc = self.endpoints.entry(endpoint.id()).or_default();
        let before = doc.undecodable;
        let template = endpoint.template();
        doc.observe(flow, template, observation, &self.redactor, &mut self.roles);
        self.ledger.undecodable_bodies += doc.undecodable - before;
    }

    /// Counts a flow that was left out, and its host when the host was the reason.
    fn skip(&mut self, flow: &Flow, reason: SkipReason) {
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

    /// Number of documented endpoints.
    pub fn endpoint_count(&self) -> usize {
        self.endpoints.len()
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
        for doc in self.endpoints.values() {
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

impl EndpointEvidence for Documenter {
    /// HTML page loads are not API calls: a fresh one is counted in the
    /// ledger as skipped, and none is documented.
    fn observe(&mut self, flow: &Flow, endpoint: &Endpoint, observation: Observation<'_>) {
        let api_call = match observation.seen {
            Seen::Fresh => self.count_observed(flow),
            Seen::Resampled => !is_html_page(flow),
        };
        if api_call {
            self.learn(flow, endpoint, observation);
        }
    }

    fn merge(&mut self, from: EndpointId, into: EndpointId) {
        if from == into {
            return;
        }
        let Some(absorbed) = self.endpoints.remove(&from) else {
            return;
        };
        if let Some(survivor) = self.endpoints.get_mut(&into) {
            survivor.merge(&absorbed);
        }
    }

    fn forget(&mut self, endpoint: EndpointId) {
        self.endpoints.remove(&endpoint);
    }

    /// A split can leave an endpoint without a sample of its own (the
    /// reservoir kept other paths' flows): it stays documented rather than
    /// vanishing from the spec, with its flows counted and no evidence.
    fn resampled(&mut self, endpoint: &Endpoint, unsampled: u64) {
        self.endpoints.entry(endpoint.id()).or_default().unsampled = unsampled;
    }

    fn left_out(&mut self, flow: &Flow, why: LeftOut) {
        self.skip(flow, SkipReason::from(why));
    }
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

/// The host (and port) of an absolute URL, without userinfo.
pub(crate) fn host_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    authority.rsplit('@').next().unwrap_or(authority)
}

#[cfg(test)]
mod tests {
    use ar_store::scope::{Scope, ScopeConfig};
    use ar_store::store::{EndpointStore, StoreConfig};
    use ar_store::{Body, Client, Flow, FlowId, HttpVersion, Request, Response, Timestamp};

    use super::*;
    use crate::{Enrichment, Options, document};

    /// A store of `shop.test` that keeps documentation evidence.
    fn documented_store() -> EndpointStore {
        let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
        EndpointStore::new(scope, StoreConfig::default())
            .with_evidence(Documenter::new(Redactor::new()))
    }

    fn documenter(store: &EndpointStore) -> &Documenter {
        store.evidence().expect("the store keeps a documenter")
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

    #[test]
    fn requests_the_proxy_refused_are_listed_in_the_ledger_not_documented() {
        let mut store = documented_store();
        let flows = [
            ("DELETE", "https://shop.test/api/carts/3", Client::Explorer),
            (
                "DELETE",
                "https://shop.test/api/carts/3?force=1",
                Client::Explorer,
            ),
            ("POST", "https://shop.test/api/demo/clear", Client::Explorer),
            ("POST", "https://other.test/api/wipe", Client::Explorer),
            // Refused for another reason (a loop, --offline): not the lock's doing.
            ("GET", "https://shop.test/api/cart", Client::Explorer),
            ("DELETE", "https://shop.test/api/carts/4", Client::Human),
        ];
        for (n, (method, url, client)) in flows.into_iter().enumerate() {
            let request = Request::new(method, url, HttpVersion::Http11);
            let flow = Flow::new(
                FlowId(n as u64),
                Timestamp::from_unix_micros(0),
                client,
                request,
            )
            .with_error(ar_store::ErrorKind::Refused, "refused");
            store.ingest(&flow);
        }
        assert!(
            store.endpoints().is_empty(),
            "refused flows are no evidence"
        );
        let ledger = documenter(&store).ledger();
        assert_eq!(ledger.skipped.get(&SkipReason::Refused), Some(&5));
        assert_eq!(ledger.other_hosts.get("other.test"), Some(&1));
        assert_eq!(ledger.refused_destructive, 4);
        assert_eq!(
            ledger.refused_destructive_first,
            [
                ("DELETE /api/carts/3".to_string(), 2),
                ("POST /api/demo/clear".to_string(), 1),
                ("POST /api/wipe".to_string(), 1),
            ]
        );
    }

    /// Issue #31: a body the capture stopped decoding (a decompression bomb)
    /// is documented without it, and the ledger says so.
    #[test]
    fn a_body_cut_short_at_capture_is_named_in_the_ledger() {
        let mut store = documented_store();
        for (id, cut) in [(1, false), (2, true)] {
            let url = format!("https://api.shop.test/blobs/{id}");
            let (flow, mut response) = json_get(id, &url, br#"{"id":1}"#.to_vec());
            if cut {
                response.body.bytes = vec![0; 1024];
                response.body.truncated = true;
                response.body.decode_error = Some("possible decompression bomb".into());
            }
            store.ingest(&flow.with_response(response));
        }
        assert_eq!(documenter(&store).ledger().truncated_bodies, 1);
        let docs = document(&store, &Enrichment::new(), &Options::default()).unwrap();
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
        let mut store = documented_store();
        let kinds = ["bug", "docs", "feature"];
        for page in 0..12u64 {
            let items: Vec<String> = (0..6)
                .map(|i| format!(r#"{{"state":"open","kind":"{}"}}"#, kinds[i % 3]))
                .collect();
            let body = format!(r#"{{"page":{page},"data":[{}]}}"#, items.join(","));
            let url = format!("https://api.shop.test/issues?state=open&page={page}");
            let (flow, response) = json_get(page, &url, body.into_bytes());
            store.ingest(&flow.with_response(response));
        }
        let docs = document(&store, &Enrichment::new(), &Options::default()).unwrap();
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
