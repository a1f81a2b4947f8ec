//! One line of the flow list ([`FlowRow`]) and the server-side filter
//! ([`Filter`]) the list and the live stream both apply, so a page showing
//! 100,000 flows never receives more than the rows it draws.

use ar_openapi::Redactor;
use ar_store::scope::ScopeDecision;
use ar_store::{Client, Flow};
use serde::Serialize;

/// Who sent a flow, as the page names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Driver {
    /// The no-LLM explorer.
    Explorer,
    /// The LLM agent.
    Agent,
    /// A person (after `/take`, or any client of `ar proxy`).
    Human,
    /// A request edited and sent again from the page.
    Replay,
    /// Not known (an imported archive).
    Unknown,
}

impl From<Client> for Driver {
    fn from(client: Client) -> Self {
        match client {
            Client::Explorer => Self::Explorer,
            Client::Agent => Self::Agent,
            Client::Human => Self::Human,
            Client::Replay => Self::Replay,
            Client::Unknown => Self::Unknown,
        }
    }
}

/// What the pipeline decided about a flow, as far as the page shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Placement {
    /// The scope verdict, when the flow reached the store.
    pub scope: Option<ScopeDecision>,
    /// The stable key of the endpoint it joined (`GET shop.test/api/users/{userId}`).
    pub endpoint: Option<String>,
}

impl Placement {
    /// A placement from the store's verdict and the endpoint joined.
    pub fn new(scope: ScopeDecision, endpoint: Option<String>) -> Self {
        Self {
            scope: Some(scope),
            endpoint,
        }
    }
}

/// One flow in the list: small, already redacted, cheap to filter.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowRow {
    /// The flow's id in the archive.
    pub id: u64,
    /// Start, in milliseconds since the Unix epoch.
    pub started_ms: i64,
    /// The request method.
    pub method: String,
    /// The URL with secrets in its query redacted.
    pub url: String,
    /// The URL's host.
    pub host: String,
    /// The status, or none when no response came.
    pub status: Option<u16>,
    /// The response body's full decoded size.
    pub size: u64,
    /// Milliseconds from start to end, when it ended.
    pub duration_ms: Option<f64>,
    /// Who sent it.
    pub driver: Driver,
    /// Whether it went into the spec.
    pub in_scope: bool,
    /// Why it is in or out (`target_site`, `static_asset`, ...).
    pub why: String,
    /// The endpoint it joined, when in scope.
    pub endpoint: Option<String>,
    /// The error, when the exchange failed.
    pub error: Option<String>,
    /// Method, URL and endpoint in ASCII lowercase: what text filters search.
    #[serde(skip)]
    search: String,
}

impl FlowRow {
    /// The row for `flow`, its URL redacted by `redactor`.
    pub fn new(flow: &Flow, placement: &Placement, driver: Driver, redactor: &Redactor) -> Self {
        let url = redactor.url(&flow.request.url);
        let host = url::Url::parse(&flow.request.url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_owned))
            .unwrap_or_default();
        let row = Self {
            id: flow.id.0,
            started_ms: flow.started.unix_micros() / 1000,
            method: flow.request.method.clone(),
            url,
            host,
            status: flow.status(),
            size: flow.response.as_ref().map_or(0, |r| r.body.size),
            duration_ms: flow.duration_ms(),
            driver,
            in_scope: false,
            why: String::new(),
            error: flow.error.as_ref().map(|e| e.message.clone()),
            search: String::new(),
            endpoint: None,
        };
        row.placed(placement)
    }

    /// This row with `placement` (the flow's scope and endpoint now).
    pub fn placed(mut self, placement: &Placement) -> Self {
        let (in_scope, why) = match placement.scope {
            Some(ScopeDecision::In(reason)) => (true, format!("{reason:?}")),
            Some(ScopeDecision::Out(reason)) => (false, reason.as_str().to_owned()),
            None => (false, "not documented".to_owned()),
        };
        self.in_scope = in_scope;
        self.why = snake(&why);
        self.search = format!(
            "{} {} {}",
            self.method,
            self.url,
            placement.endpoint.as_deref().unwrap_or_default()
        )
        .to_ascii_lowercase();
        self.endpoint.clone_from(&placement.endpoint);
        self
    }
}

/// `TargetSite` → `target_site`, so in and out reasons read alike.
fn snake(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 4);
    for (i, c) in text.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Which rows a page or stream wants; every part that is set must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Words that must all appear in the URL, method or endpoint (any case).
    words: Vec<String>,
    /// The exact host.
    host: Option<String>,
    /// The method (any case).
    method: Option<String>,
    /// A status (`404`) or class (`4xx`); `none` for flows without a response.
    status: Option<StatusMatch>,
    /// In scope (`true`) or out.
    in_scope: Option<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StatusMatch {
    Exact(u16),
    Class(u16),
    None,
}

impl Filter {
    /// The filter a query string asks for (`q`, `host`, `method`, `status`,
    /// `scope=in|out`); unknown or empty parameters are ignored.
    pub fn from_query(query: &str) -> Self {
        let mut filter = Self::default();
        for (name, value) in url::form_urlencoded::parse(query.as_bytes()) {
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            match name.as_ref() {
                "q" => {
                    filter.words = value
                        .split_whitespace()
                        .map(str::to_ascii_lowercase)
                        .collect();
                }
                "host" => filter.host = Some(value.to_ascii_lowercase()),
                "method" => filter.method = Some(value.to_ascii_uppercase()),
                "status" => filter.status = StatusMatch::parse(value),
                "scope" => filter.in_scope = Some(value == "in"),
                _ => {}
            }
        }
        filter
    }

    /// Whether `row` passes.
    pub fn matches(&self, row: &FlowRow) -> bool {
        if self.host.as_ref().is_some_and(|h| *h != row.host) {
            return false;
        }
        if self
            .method
            .as_ref()
            .is_some_and(|m| !m.eq_ignore_ascii_case(&row.method))
        {
            return false;
        }
        if self.in_scope.is_some_and(|s| s != row.in_scope) {
            return false;
        }
        if let Some(status) = self.status {
            let hit = match (status, row.status) {
                (StatusMatch::Exact(want), Some(got)) => want == got,
                (StatusMatch::Class(class), Some(got)) => got / 100 == class,
                (StatusMatch::None, None) => true,
                _ => false,
            };
            if !hit {
                return false;
            }
        }
        // SIMD substring search over one lowercase string per row: a text
        // filter over 100,000 rows is a few milliseconds.
        self.words
            .iter()
            .all(|word| memchr::memmem::find(row.search.as_bytes(), word.as_bytes()).is_some())
    }
}

impl StatusMatch {
    fn parse(text: &str) -> Option<Self> {
        let text = text.to_ascii_lowercase();
        if text == "none" {
            return Some(Self::None);
        }
        if let Some(class) = text.strip_suffix("xx") {
            return class.parse().ok().map(Self::Class);
        }
        text.parse().ok().map(Self::Exact)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::scope::{InReason, OutReason};
    use ar_store::{FlowId, HttpVersion, Request, Response, Timestamp};

    fn row(url: &str, status: Option<u16>, scope: ScopeDecision) -> FlowRow {
        let mut flow = Flow::new(
            FlowId(1),
            Timestamp::from_unix_micros(5_000),
            Client::Explorer,
            Request::new("GET", url, HttpVersion::Http11),
        );
        if let Some(status) = status {
            flow = flow.with_response(Response::new(status, HttpVersion::Http11));
        }
        let placement = Placement::new(scope, None);
        FlowRow::new(&flow, &placement, Driver::Explorer, &Redactor::new())
    }

    #[test]
    fn rows_redact_their_urls_and_say_why_they_are_in_or_out() {
        let r = row(
            "https://shop.test/api/items?access_token=s3cr3t",
            Some(200),
            ScopeDecision::In(InReason::TargetSite),
        );
        assert_eq!(r.url, "https://shop.test/api/items?access_token=REDACTED");
        assert_eq!(
            (r.host.as_str(), r.why.as_str()),
            ("shop.test", "target_site")
        );
        let out = row(
            "https://cdn.test/app.js",
            Some(200),
            ScopeDecision::Out(OutReason::StaticAsset),
        );
        assert_eq!((out.in_scope, out.why.as_str()), (false, "static_asset"));
    }

    #[test]
    fn every_part_of_a_filter_must_match() {
        let r = row(
            "https://shop.test/api/Products/7",
            Some(404),
            ScopeDecision::In(InReason::TargetSite),
        );
        let pass = |q: &str| Filter::from_query(q).matches(&r);
        assert!(pass(""));
        assert!(pass(
            "q=products+api&method=get&status=4xx&scope=in&host=shop.test"
        ));
        assert!(pass("status=404"));
        assert!(!pass("status=5xx"));
        assert!(!pass("status=none"));
        assert!(!pass("q=orders"));
        assert!(!pass("scope=out"));
        assert!(!pass("host=cdn.test"));
        assert!(!pass("method=POST"));
    }
}
