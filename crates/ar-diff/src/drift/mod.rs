//! Traffic held against a published spec, flow by flow: where the calls a client makes, and
//! the answers it gets, leave the documented contract.
//!
//! A [`Baseline`] is the published document with its [`OperationMatcher`], built once and
//! shared. A [`Drift`] is fed one [`Exchange`] per flow (method, URL, header names, status,
//! the bodies' media types and parsed JSON, the flow's id) and keeps one [`Finding`] per kind
//! and place with the flows that show it; [`Drift::report`] renders a [`DriftReport`] at any
//! moment (markdown for `DRIFT.md`, JSON with stable keys for `drift.json`).
//!
//! What each exchange is checked for, in order:
//!
//! 1. *Which operation.* The matcher maps the method and path onto the spec's templates,
//!    under every server's base path (`/api/v2/users/42` is `/users/{id}` under
//!    `https://x/api/v2`). No template, or a documented path with another method: a
//!    **shadow endpoint**, and nothing more is checked. A `deprecated` operation: a **zombie
//!    endpoint**, and the checks go on.
//! 2. *Parameters* (`params.rs`): query and header names the operation does not document,
//!    required ones not sent.
//! 3. *The request body*: its media type among the documented ones, its JSON against the
//!    schema (`body.rs`).
//! 4. *The response*: its status among the documented ones (the code, its `2XX` range, or
//!    `default`; a `304` is a cache's answer and is not checked), its media type, its JSON
//!    against the schema.
//!
//! A finding is keyed by kind, operation, location, status and name, so ten thousand flows
//! that miss the same field are one finding with a count and the first [`MAX_FLOW_IDS`] flow
//! ids; at most [`MAX_FINDINGS`] findings are kept, the rest counted. Shadow calls are grouped
//! by the caller's own endpoint (its template, when it gives one, else the path as sent), and
//! [`Drift::report_regrouped`] lets a caller whose templates changed since regroup them.
//!
//! Nothing here reads a clock, a file or the network, and the report is the same bytes for the
//! same flows in the same order. Hosts are not compared (a spec's servers often name
//! production while the traffic is a staging host): the caller's scope decides which hosts
//! are the API.

mod body;
mod checked;
mod contract;
mod finding;
mod markdown;
mod operations;
mod params;
mod report;
mod shape;
mod tape;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use ar_schema::Tape;

use crate::document::Document;
use crate::matcher::{Lookup, OperationMatcher, after_scheme};
use crate::method::Method;
use crate::servers;
use contract::{Contracts, OperationAt};
use finding::{Entry, FlowIds, Issue, Key};
use operations::Operations;
use params::Credentials;

pub use finding::{Category, Finding, FindingKind, Location, MAX_FLOW_IDS};
pub use report::{DriftReport, DriftSummary};

/// Distinct shadow endpoints, and distinct other findings, one [`Drift`] keeps (each); flows
/// that show any further one are only counted ([`DriftSummary::findings_not_listed`]).
pub const MAX_FINDINGS: usize = 10_000;

/// A published spec, ready to hold traffic against: the document and the matcher of its
/// operations. Cloning shares it.
#[derive(Clone)]
pub struct Baseline(Arc<Published>);

impl std::fmt::Debug for Baseline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Baseline")
            .field("name", &self.0.name)
            .field("operations", &self.0.operations)
            .finish_non_exhaustive()
    }
}

struct Published {
    document: Document,
    matcher: OperationMatcher,
    credentials: Credentials,
    /// The hosts the servers name, when every server is absolute.
    hosts: Option<BTreeSet<String>>,
    operations: usize,
    name: String,
}

impl Baseline {
    /// `document`, called `name` in reports (its file name, say).
    pub fn new(document: Document, name: impl Into<String>) -> Baseline {
        Baseline(Arc::new(Published {
            matcher: OperationMatcher::new(&document),
            credentials: Credentials::of(&document),
            hosts: servers::hosts(document.as_value()),
            operations: document.operations().len(),
            document,
            name: name.into(),
        }))
    }

    /// The document.
    pub fn document(&self) -> &Document {
        &self.0.document
    }

    /// What reports call it.
    pub fn name(&self) -> &str {
        &self.0.name
    }
}

/// A body as a drift reads it: its media type (`application/json`, parameters or not) and,
/// when it may be JSON, its text, read onto a tape as it is checked (or the tape it was read
/// onto already).
#[derive(Clone, Copy, Debug, Default)]
pub struct Payload<'a> {
    media_type: Option<&'a str>,
    json: Option<&'a [u8]>,
    tape: Option<&'a Tape>,
}

impl<'a> Payload<'a> {
    /// A body of `media_type` (from its `Content-Type`, if it had one), with its text `json`
    /// when it may be JSON (its media type says so, or it looks so). A text that does not
    /// parse as JSON is held as a body that is not JSON.
    pub fn new(media_type: Option<&'a str>, json: Option<&'a [u8]>) -> Payload<'a> {
        Payload {
            media_type,
            json,
            tape: None,
        }
    }

    /// The text read onto `tape` already (by a store that documents the same traffic): the
    /// check walks it instead of reading the text again. A tape that holds no document of
    /// the text's length is ignored (the text is read afresh); the tape must be of this text.
    #[must_use]
    pub fn tape(mut self, tape: Option<&'a Tape>) -> Payload<'a> {
        self.tape = tape.filter(|t| self.json.is_some_and(|json| t.holds(json.len())));
        self
    }
}

/// A request's header names, read where the caller keeps them (values are never read): a
/// list of them built for each flow cost more than the drift's check of them.
pub trait HeaderNames: std::fmt::Debug {
    /// How many headers the request had.
    fn count(&self) -> usize;
    /// The name of header `index` (below [`count`](Self::count)), as sent.
    fn name(&self, index: usize) -> &str;
}

impl<S: AsRef<str> + std::fmt::Debug> HeaderNames for [S] {
    fn count(&self) -> usize {
        self.len()
    }

    fn name(&self, index: usize) -> &str {
        self[index].as_ref()
    }
}

impl<S: AsRef<str> + std::fmt::Debug, const N: usize> HeaderNames for [S; N] {
    fn count(&self) -> usize {
        N
    }

    fn name(&self, index: usize) -> &str {
        self[index].as_ref()
    }
}

impl<S: AsRef<str> + std::fmt::Debug> HeaderNames for Vec<S> {
    fn count(&self) -> usize {
        self.len()
    }

    fn name(&self, index: usize) -> &str {
        self[index].as_ref()
    }
}

/// One flow, as a drift reads it. Build it with [`Exchange::new`] and the methods that add
/// what the flow had.
#[derive(Clone, Copy, Debug)]
pub struct Exchange<'a> {
    id: u64,
    method: &'a str,
    url: &'a str,
    headers: &'a dyn HeaderNames,
    request: Option<Payload<'a>>,
    response: Option<(u16, Option<Payload<'a>>)>,
    endpoint: Option<&'a str>,
}

impl<'a> Exchange<'a> {
    /// Flow `id`: `method` (any case) on `url` (a whole URL, or a path with its query).
    pub fn new(id: u64, method: &'a str, url: &'a str) -> Exchange<'a> {
        Exchange {
            id,
            method,
            url,
            headers: &[] as &[&str; 0],
            request: None,
            response: None,
            endpoint: None,
        }
    }

    /// The request's header names: `&["Host", "Accept"]`, or any list the caller keeps
    /// ([`HeaderNames`]).
    #[must_use]
    pub fn headers(mut self, names: &'a dyn HeaderNames) -> Exchange<'a> {
        self.headers = names;
        self
    }

    /// The request had a body.
    #[must_use]
    pub fn request_body(mut self, body: Payload<'a>) -> Exchange<'a> {
        self.request = Some(body);
        self
    }

    /// The answer: its status, and its body when it had one.
    #[must_use]
    pub fn response(mut self, status: u16, body: Option<Payload<'a>>) -> Exchange<'a> {
        self.response = Some((status, body));
        self
    }

    /// The caller's own name for the endpoint called (a stable key): shadow calls are grouped
    /// by it, and [`Drift::report_regrouped`] asks the caller for its path template.
    #[must_use]
    pub fn endpoint(mut self, key: &'a str) -> Exchange<'a> {
        self.endpoint = Some(key);
        self
    }
}

/// The findings of traffic held against a [`Baseline`], accumulated flow by flow.
#[derive(Clone, Debug)]
pub struct Drift {
    baseline: Baseline,
    findings: BTreeMap<Key, Entry>,
    shadows: BTreeMap<(String, String), Shadow>,
    /// The full paths of the operations called, by method.
    called: BTreeMap<Method, BTreeSet<String>>,
    /// Flows per host the spec's servers do not name (not held against it).
    elsewhere: BTreeMap<String, u64>,
    flows: u64,
    matched: u64,
    not_listed: u64,
    /// What the operations called document, worked out once (for the next flow).
    contracts: Contracts,
    /// The operations called, as their first call read them (for the next flow).
    operations: Operations,
    /// Whether the spec serves each authority met, as sent (for the next flow).
    served: HashMap<String, bool, foldhash::fast::RandomState>,
}

/// Hosts the spec does not serve that a drift counts flows of by name; the rest are counted
/// together.
const MAX_OTHER_HOSTS: usize = 100;

/// Authorities a drift remembers whether the spec serves; further ones are looked at anew.
const MAX_AUTHORITIES: usize = 1_000;

/// The calls grouped under one shadow endpoint.
#[derive(Clone, Debug)]
struct Shadow {
    /// Whether the group is the caller's endpoint key (else the path as sent).
    keyed: bool,
    /// The path of its first call, as sent.
    path: String,
    host: Option<String>,
    /// The methods the spec documents on this path, when it has the path.
    documented: Vec<Method>,
    flows: FlowIds,
}

impl Drift {
    /// An empty drift against `baseline`.
    pub fn new(baseline: Baseline) -> Drift {
        Drift {
            baseline,
            findings: BTreeMap::new(),
            shadows: BTreeMap::new(),
            called: BTreeMap::new(),
            elsewhere: BTreeMap::new(),
            flows: 0,
            matched: 0,
            not_listed: 0,
            contracts: Contracts::default(),
            operations: Operations::default(),
            served: HashMap::default(),
        }
    }

    /// The spec held against.
    pub fn baseline(&self) -> &Baseline {
        &self.baseline
    }

    /// Flows observed so far.
    pub fn flows(&self) -> u64 {
        self.flows
    }

    /// Holds one flow against the spec. A flow to a host the spec's servers do not name
    /// (when they all name one) is only counted: it calls another API.
    pub fn observe(&mut self, exchange: &Exchange<'_>) {
        self.flows += 1;
        let baseline = self.baseline.clone();
        let published = &*baseline.0;
        let target = Target::of(exchange.url);
        if let (Some(hosts), Some(authority)) = (&published.hosts, target.authority) {
            let served = match self.served.get(authority) {
                Some(&served) => served,
                None => {
                    let served = hosts.contains(&servers::host_name(authority));
                    if self.served.len() < MAX_AUTHORITIES {
                        self.served.insert(authority.to_owned(), served);
                    }
                    served
                }
            };
            if !served {
                let host = servers::host_name(authority);
                let key = if self.elsewhere.len() < MAX_OTHER_HOSTS
                    || self.elsewhere.contains_key(&host)
                {
                    host
                } else {
                    "(other hosts)".to_owned()
                };
                *self.elsewhere.entry(key).or_default() += 1;
                return;
            }
        }
        let lookup = match Method::parse(exchange.method) {
            Some(method) => published.matcher.lookup_path(method, target.path),
            None => Lookup::NotFound,
        };
        let route = match lookup {
            Lookup::Operation(route) => route,
            Lookup::MethodNotDocumented { methods, .. } => {
                return self.shadow(exchange, &target, methods);
            }
            Lookup::NotFound => return self.shadow(exchange, &target, Vec::new()),
        };
        let document = &published.document;
        let find = || document.routed(&route);
        let Some(operation) =
            self.operations
                .get_or_read(document, route.operation, &published.credentials, find)
        else {
            return self.shadow(exchange, &target, Vec::new());
        };
        self.matched += 1;
        if !std::mem::replace(&mut operation.called, true) {
            let paths = self.called.entry(route.method).or_default();
            paths.insert(route.path.to_owned());
        }
        let deprecated = operation.deprecated;
        let mut issues = params::check(
            &operation.parameters,
            target.query,
            exchange.headers,
            &published.credentials,
        );
        let operation = OperationAt {
            key: operation.key,
            find: &find,
        };
        let at = Place {
            method: route.method,
            path: route.path,
            id: exchange.id,
        };
        if deprecated {
            let key = at.key(FindingKind::ZombieEndpoint, None, None, String::new());
            self.record(key, None, BTreeSet::new(), at.id);
        }
        if let Some(body) = exchange.request {
            let body_issues = self
                .contracts
                .issues(document, &operation, None, Some(body));
            issues.extend(body_issues);
        }
        // Most flows raise nothing: an empty list is not turned into an iterator to drop.
        if !issues.is_empty() {
            for issue in issues {
                self.raise(&at, None, issue);
            }
        }
        if let Some((status, body)) = exchange.response {
            let issues = self
                .contracts
                .issues(document, &operation, Some(status), body);
            if !issues.is_empty() {
                for issue in issues {
                    self.raise(&at, Some(status), issue);
                }
            }
        }
    }

    /// The report of everything observed so far.
    pub fn report(&self) -> DriftReport {
        self.report_regrouped(|_| None)
    }

    /// The report, each shadow group of calls the caller named ([`Exchange::endpoint`]) shown
    /// under the path template `current` gives for its key (else the path of its first call).
    /// A caller that learns templates as flows come names early calls after what it knew then
    /// (`/users/41`) and answers with what it knows now (`/users/{userId}`); groups that end
    /// up with the same method, host and path are one finding.
    pub fn report_regrouped(&self, current: impl Fn(&str) -> Option<String>) -> DriftReport {
        report::build(self, &current)
    }

    fn shadow(&mut self, exchange: &Exchange<'_>, target: &Target<'_>, documented: Vec<Method>) {
        let sent = target.path;
        let (keyed, group) = match exchange.endpoint {
            Some(key) => (true, key),
            None => (false, sent),
        };
        let key = (exchange.method.to_ascii_uppercase(), group.to_owned());
        if !self.shadows.contains_key(&key) && self.shadows.len() >= MAX_FINDINGS {
            self.not_listed += 1;
            return;
        }
        let shadow = self.shadows.entry(key).or_insert_with(|| Shadow {
            keyed,
            path: sent.to_owned(),
            host: target.authority.map(str::to_ascii_lowercase),
            documented,
            flows: FlowIds::default(),
        });
        shadow.flows.add(exchange.id);
    }

    fn raise(&mut self, at: &Place<'_>, status: Option<u16>, issue: Issue) {
        let status = (issue.location == Location::Response)
            .then_some(status)
            .flatten();
        let key = at.key(issue.kind, Some(issue.location), status, issue.name);
        self.record(key, issue.expected, issue.found, at.id);
    }

    fn record(
        &mut self,
        key: Key,
        expected: Option<String>,
        found: BTreeSet<&'static str>,
        id: u64,
    ) {
        if !self.findings.contains_key(&key) && self.findings.len() >= MAX_FINDINGS {
            self.not_listed += 1;
            return;
        }
        let entry = self.findings.entry(key).or_insert_with(|| Entry {
            expected,
            ..Entry::default()
        });
        entry.found.extend(found);
        entry.flows.add(id);
    }
}

/// The operation a flow called, and the flow.
struct Place<'m> {
    method: Method,
    path: &'m str,
    id: u64,
}

impl Place<'_> {
    fn key(
        &self,
        kind: FindingKind,
        location: Option<Location>,
        status: Option<u16>,
        name: String,
    ) -> Key {
        Key {
            path: self.path.to_owned(),
            method: self.method,
            kind,
            location,
            status,
            name,
        }
    }
}

/// A request target cut into the three parts a drift reads, in one pass over it rather than
/// one a part: each part is what it was when looked for on its own (the path is what
/// [`request_path`](crate::matcher::request_path) gives, the query what follows the first `?`,
/// a malformed target's quirks included), so the findings are the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Target<'u> {
    /// The host of a whole URL as sent (`https://Shop.test:8443/x` → `Shop.test:8443`).
    authority: Option<&'u str>,
    /// The path, without query or fragment.
    path: &'u str,
    /// What follows the first `?`, up to a `#`.
    query: &'u str,
}

impl<'u> Target<'u> {
    fn of(url: &'u str) -> Target<'u> {
        // Where the path starts (`None`: a whole URL with no path, which is `/`), and from
        // where the first `?` is to be looked for (none comes before it).
        let (authority, path_start, scanned) = match after_scheme(url) {
            Some(rest) => {
                let start = url.len() - rest.len();
                // The authority's end, and where its host starts (after a userinfo's last `@`),
                // in one pass: it is a few bytes, and a `memrchr` set up costs more.
                let (mut host_start, mut end) = (start, url.len());
                for (at, b) in (start..).zip(&url.as_bytes()[start..]) {
                    match b {
                        b'/' | b'?' | b'#' => {
                            end = at;
                            break;
                        }
                        b'@' => host_start = at + 1,
                        _ => {}
                    }
                }
                let host = &url[host_start..end];
                let authority = (!host.is_empty()).then_some(host);
                match url.as_bytes().get(end) {
                    Some(b'/') => (authority, Some(end), None),
                    // `https://x?a=/b`: the first `/` anywhere after the scheme starts the path.
                    _ => (
                        authority,
                        url[end..].find('/').map(|at| end + at),
                        Some(end),
                    ),
                }
            }
            None => (None, Some(0), None),
        };
        let path_end = path_start.map_or(url.len(), |start| {
            stop(url, start, |b| matches!(b, b'?' | b'#'))
        });
        let path = path_start.map_or("/", |start| &url[start..path_end]);
        let question = stop(url, scanned.unwrap_or(path_end), |b| b == b'?');
        let query = match url.get(question + 1..) {
            Some(after) => &after[..after.find('#').unwrap_or(after.len())],
            None => "",
        };
        Target {
            authority,
            path,
            query,
        }
    }
}

/// The first byte of `url` from `from` on that `stops` (a `match`, not a set of bytes: a
/// slice's `contains` is a `memchr` call for each byte), or the end. A function generic over
/// `stops`, not a closure taking a `fn`: the test is inlined, not called for each byte.
fn stop(url: &str, from: usize, stops: impl Fn(u8) -> bool) -> usize {
    url.as_bytes()[from..]
        .iter()
        .position(|&b| stops(b))
        .map_or(url.len(), |at| from + at)
}

#[cfg(test)]
mod tests;
