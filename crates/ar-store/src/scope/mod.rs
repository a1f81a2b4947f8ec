//! Scope: which flows describe the target's API.
//!
//! In scope by default: the target's site (its registrable domain, see
//! [`registrable_domain`]) and extra hosts. Out, each with a counted
//! [`OutReason`]: other hosts, static assets (a `GET` or `HEAD` whose path
//! extension or response content type says so), HTML pages, CORS
//! preflights, a default denylist of analytics/ads/telemetry services, hosts
//! whose first label is `metrics`, `telemetry`, `analytics`, `stats`,
//! `beacon`, `tracking` or `pixel` while their traffic looks like telemetry
//! (a flow that sends credentials or answers JSON is an API's, whatever the
//! host is called), and the user's
//! deny lists of hosts and path globs, and requests the capture proxy
//! refused itself (never sent, so no evidence of the API). Without a target
//! every host is in scope except trackers. A host the user named (the
//! target's own host, an extra or allowed host) is never judged a tracker.
//! Filtering never touches the archive: it only decides what reaches the
//! endpoint store, and every flow left out is counted with its reason.
//!
//! ```
//! use ar_store::scope::{OutReason, Scope, ScopeConfig, ScopeDecision};
//!
//! let scope = Scope::new(ScopeConfig::for_target("https://shop.test/")).unwrap();
//! assert!(scope.decide_parts("api.shop.test", "/v1/cart", None).is_in());
//! assert_eq!(scope.decide_parts("metrics.test", "/collect", None), ScopeDecision::Out(OutReason::Tracker));
//! assert_eq!(scope.decide_parts("shop.test", "/app.css", None), ScopeDecision::Out(OutReason::StaticAsset));
//! assert_eq!(scope.decide_parts("cdn.other.test", "/x", None), ScopeDecision::Out(OutReason::OutOfScopeHost));
//! ```

mod domain;
mod rules;
mod verdict;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::{Error, Flow};
use ar_flow::url::UrlParts;

pub use domain::registrable_domain;
pub(crate) use verdict::HostCache;
use verdict::{HostVerdict, TypeFlags};

/// What the user asked for; compile it with [`Scope::new`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ScopeConfig {
    /// The target as a URL (`https://shop.test/`) or a host; its site is in scope.
    /// `None`: every host except trackers is in scope.
    pub target: Option<String>,
    /// More hosts in scope: exact (`api.other.test`) or `*.other.test` (the domain and its subdomains).
    pub extra_hosts: Vec<String>,
    /// Hosts in scope even when they match the tracker denylist.
    pub allow_hosts: Vec<String>,
    /// Hosts always out.
    pub deny_hosts: Vec<String>,
    /// When non-empty, only paths matching one of these globs are in scope (`/api/**`).
    pub allow_paths: Vec<String>,
    /// Paths matching these globs are out (`/admin/**`, `**/health`).
    pub deny_paths: Vec<String>,
    /// Keep static assets (scripts, styles, images, fonts, media).
    pub keep_static: bool,
    /// Keep HTML pages (server-rendered documents).
    pub keep_html: bool,
}

impl ScopeConfig {
    /// A config with only a target.
    pub fn for_target(target: impl Into<String>) -> Self {
        Self {
            target: Some(target.into()),
            ..Self::default()
        }
    }
}

/// Why a flow is in scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InReason {
    /// Same registrable domain as the target.
    TargetSite,
    /// Listed in `extra_hosts`.
    ExtraHost,
    /// Listed in `allow_hosts`.
    AllowedHost,
    /// No target was given, so any non-tracker host is in scope.
    AnyHost,
}

/// Why a flow is out of scope; counted per host for reporting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutReason {
    /// A host outside the target site and the extra hosts.
    OutOfScopeHost,
    /// A script, style, image, font or media file.
    StaticAsset,
    /// An analytics, ads or telemetry host.
    Tracker,
    /// A host on the user's deny list.
    UserDeniedHost,
    /// A path matching the user's deny globs.
    UserDeniedPath,
    /// A path outside the user's allow globs.
    NotAllowedPath,
    /// An HTML document rather than an API response.
    HtmlPage,
    /// A CORS preflight (`OPTIONS` with `Access-Control-Request-Method`).
    Preflight,
    /// Refused by the capture proxy itself, never sent: it tells nothing
    /// about the API (a host outside the scope still counts as that host).
    Refused,
}

impl OutReason {
    /// Short lowercase label for reports (`tracker`, `static_asset`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OutOfScopeHost => "out_of_scope_host",
            Self::StaticAsset => "static_asset",
            Self::Tracker => "tracker",
            Self::UserDeniedHost => "user_denied_host",
            Self::UserDeniedPath => "user_denied_path",
            Self::NotAllowedPath => "not_allowed_path",
            Self::HtmlPage => "html_page",
            Self::Preflight => "preflight",
            Self::Refused => "refused",
        }
    }
}

/// The verdict on one flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScopeDecision {
    /// Goes to the endpoint store.
    In(InReason),
    /// Counted, not stored (the archive still has it).
    Out(OutReason),
}

impl ScopeDecision {
    /// Whether the flow is in scope.
    pub fn is_in(self) -> bool {
        matches!(self, Self::In(_))
    }
}

#[derive(Debug, Clone)]
enum HostPattern {
    Exact(String),
    /// The domain itself and any subdomain.
    Domain(String),
}

impl HostPattern {
    fn parse(text: &str) -> Result<Self, Error> {
        let t = text.trim().to_ascii_lowercase();
        let host = domain::strip_port(&t);
        let bad = |problem: &str| Error::ScopePattern {
            pattern: text.to_string(),
            problem: problem.to_string(),
        };
        if host.is_empty() {
            return Err(bad("empty host"));
        }
        if let Some(rest) = host.strip_prefix("*.") {
            if rest.is_empty() || rest.contains('*') {
                return Err(bad("expected `*.domain`"));
            }
            return Ok(Self::Domain(rest.to_string()));
        }
        if host.contains(['*', '/', ' ']) {
            return Err(bad("expected a host name or `*.domain`"));
        }
        Ok(Self::Exact(host.to_string()))
    }

    fn matches(&self, host: &str) -> bool {
        match self {
            Self::Exact(h) => h == host,
            Self::Domain(d) => {
                host == d
                    || host
                        .strip_suffix(d.as_str())
                        .is_some_and(|p| p.ends_with('.'))
            }
        }
    }
}

/// A compiled scope; cheap to query for every flow.
#[derive(Debug, Clone)]
pub struct Scope {
    site: Option<String>,
    /// The target's own host (lowercase, no port): the user named it.
    target_host: Option<String>,
    extra: Vec<HostPattern>,
    allow: Vec<HostPattern>,
    deny: Vec<HostPattern>,
    allow_paths: Option<GlobSet>,
    deny_paths: Option<GlobSet>,
    keep_static: bool,
    keep_html: bool,
}

impl Default for Scope {
    fn default() -> Self {
        Self::everything()
    }
}

impl Scope {
    /// Compiles a config; fails on a malformed host pattern or glob.
    pub fn new(config: ScopeConfig) -> Result<Self, Error> {
        let patterns = |list: &[String]| {
            list.iter()
                .map(|p| HostPattern::parse(p))
                .collect::<Result<Vec<_>, _>>()
        };
        let target_host = config.target.as_deref().map(|t| {
            let parts = UrlParts::split(t);
            let host = if parts.host.is_empty() {
                t.split(['/', '?']).next().unwrap_or(t)
            } else {
                parts.host
            };
            domain::strip_port(host)
                .trim_end_matches('.')
                .to_ascii_lowercase()
        });
        Ok(Self {
            site: target_host.as_deref().map(registrable_domain),
            target_host,
            extra: patterns(&config.extra_hosts)?,
            allow: patterns(&config.allow_hosts)?,
            deny: patterns(&config.deny_hosts)?,
            allow_paths: globs(&config.allow_paths)?,
            deny_paths: globs(&config.deny_paths)?,
            keep_static: config.keep_static,
            keep_html: config.keep_html,
        })
    }

    /// No target: every host except trackers; static assets and HTML out.
    pub fn everything() -> Self {
        Self {
            site: None,
            target_host: None,
            extra: Vec::new(),
            allow: Vec::new(),
            deny: Vec::new(),
            allow_paths: None,
            deny_paths: None,
            keep_static: false,
            keep_html: false,
        }
    }

    /// The target's registrable domain, if a target was given.
    pub fn site(&self) -> Option<&str> {
        self.site.as_deref()
    }

    /// Decides on a flow (host from the URL, falling back to `:authority` / `Host`).
    pub fn decide(&self, flow: &Flow) -> ScopeDecision {
        self.decide_split(flow, &UrlParts::split(&flow.request.url))
    }

    /// [`Scope::decide`] with the request URL already split (the store splits it once per flow).
    pub(crate) fn decide_split(&self, flow: &Flow, url: &UrlParts<'_>) -> ScopeDecision {
        self.decide_flow(flow, url, |host, ct| {
            (self.host_verdict(host), ct.map(TypeFlags::of))
        })
    }

    /// [`Scope::decide_split`] with the host half of the decision taken from `cache`.
    pub(crate) fn decide_split_cached(
        &self,
        flow: &Flow,
        url: &UrlParts<'_>,
        cache: &mut HostCache,
    ) -> ScopeDecision {
        self.decide_flow(flow, url, |host, ct| {
            (cache.verdict(self, host), ct.map(|ct| cache.type_flags(ct)))
        })
    }

    fn decide_flow(
        &self,
        flow: &Flow,
        url: &UrlParts<'_>,
        verdict: impl FnOnce(&str, Option<&str>) -> (HostVerdict, Option<TypeFlags>),
    ) -> ScopeDecision {
        let host = if url.host.is_empty() {
            flow.request
                .headers
                .get(":authority")
                .or_else(|| flow.request.headers.get("host"))
                .unwrap_or("")
        } else {
            url.host
        };
        let response_type = flow.response.as_ref().and_then(|r| {
            r.headers
                .get("content-type")
                .or(r.body.content_type.as_deref())
        });
        if flow.request.method.eq_ignore_ascii_case("OPTIONS")
            && flow
                .request
                .headers
                .get("access-control-request-method")
                .is_some()
        {
            return ScopeDecision::Out(OutReason::Preflight);
        }
        let (host, types) = verdict(host, response_type);
        let reads = reads(&flow.request.method);
        let api = api_evidence(flow, types.is_some_and(|t| t.is_json));
        match self.decide_verdict(host, url.path, types, reads, api) {
            ScopeDecision::In(_) if is_refused(flow) => ScopeDecision::Out(OutReason::Refused),
            ScopeDecision::In(reason) => match browser_load(flow) {
                Some(OutReason::HtmlPage) if !self.keep_html => {
                    ScopeDecision::Out(OutReason::HtmlPage)
                }
                Some(OutReason::StaticAsset) if !self.keep_static => {
                    ScopeDecision::Out(OutReason::StaticAsset)
                }
                _ => ScopeDecision::In(reason),
            },
            out => out,
        }
    }

    /// Decides from the parts: host (port allowed), path, and the response content type if known,
    /// for a read (`GET`); [`Scope::decide`] also weighs the method and the request's credentials.
    pub fn decide_parts(
        &self,
        host: &str,
        path: &str,
        response_content_type: Option<&str>,
    ) -> ScopeDecision {
        self.decide_verdict(
            self.host_verdict(host),
            path,
            response_content_type.map(TypeFlags::of),
            true,
            false,
        )
    }
}

/// Whether `method` only reads (`GET`, `HEAD`): only a read loads a page or
/// an asset. A write (`POST`, `PUT`, `PATCH`, `DELETE`, ...) is an operation
/// of the site whatever answers it, even `application/x-javascript` (a JSONP
/// or misconfigured API) or a path ending in `.js`.
fn reads(method: &str) -> bool {
    method.eq_ignore_ascii_case("GET") || method.eq_ignore_ascii_case("HEAD")
}

/// Whether `flow` itself shows an API's traffic: its request carries
/// credentials in an `Authorization` header, or it was answered with a JSON
/// document (`json_answer`, from the content type) that holds data: a
/// non-empty list, or an object with a list or an object inside. A beacon
/// identifies its visitor by a cookie or the query and sends no credentials,
/// and it only acknowledges (no content, a pixel, `{}`, `{"ok":true}`); a
/// caller of an API sends them, and an API answers with records. On a host
/// named like a telemetry sink this, not the name, decides.
fn api_evidence(flow: &Flow, json_answer: bool) -> bool {
    let holds_data = |bytes: &[u8]| match bytes.trim_ascii() {
        [b'[', rest @ ..] => rest.trim_ascii() != b"]",
        [b'{', rest @ ..] => rest.iter().any(|b| matches!(b, b'{' | b'[')),
        _ => false,
    };
    flow.request.headers.get("authorization").is_some()
        || (json_answer
            && flow
                .response
                .as_ref()
                .is_some_and(|r| holds_data(&r.body.bytes)))
}

/// Whether the proxy refused `flow` itself (a request that would loop,
/// a host `--offline` does not dial, the explorer's lock on destructive
/// requests): the origin never saw it.
fn is_refused(flow: &Flow) -> bool {
    flow.error
        .as_ref()
        .is_some_and(|e| e.kind == crate::ErrorKind::Refused)
}

/// What a browser said it was loading, from `Sec-Fetch-Dest` (Fetch
/// standard): a page (`document`, `iframe`, ...) or a subresource (`script`,
/// `image`, `manifest`, ...) rather than a call from the page's code, which
/// sends `empty` (and `websocket` for a WebSocket). A page reloaded from the
/// cache (a 304 with no body and no content type) is still a page. Only
/// reads: a form the page submits (`POST`, destination `document`) is an
/// operation of the site, whatever answers it.
fn browser_load(flow: &Flow) -> Option<OutReason> {
    if !reads(&flow.request.method) {
        return None;
    }
    let dest = flow.request.headers.get("sec-fetch-dest")?;
    match dest.to_ascii_lowercase().as_str() {
        "empty" | "websocket" | "report" | "" => None,
        "document" | "iframe" | "frame" | "embed" | "object" | "fencedframe" => {
            Some(OutReason::HtmlPage)
        }
        _ => Some(OutReason::StaticAsset),
    }
}

fn globs(patterns: &[String]) -> Result<Option<GlobSet>, Error> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns {
        let glob = GlobBuilder::new(pattern)
            .literal_separator(true)
            .build()
            .map_err(|e| Error::ScopePattern {
                pattern: pattern.clone(),
                problem: e.kind().to_string(),
            })?;
        builder.add(glob);
    }
    builder.build().map(Some).map_err(|e| Error::ScopePattern {
        pattern: patterns.join(" "),
        problem: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_flow::testing::json_flow;

    fn scope(config: ScopeConfig) -> Scope {
        Scope::new(config).unwrap()
    }

    /// A `method` request to `url` answered with `status`.
    fn answered(method: &str, url: &str, status: u16) -> Flow {
        use crate::{Client, FlowId, HttpVersion, Request, Response, Timestamp};
        let request = Request::new(method, url, HttpVersion::Http11);
        Flow::new(
            FlowId(1),
            Timestamp::from_unix_micros(0),
            Client::Human,
            request,
        )
        .with_response(Response::new(status, HttpVersion::Http11))
    }

    #[test]
    fn a_write_is_never_a_static_asset() {
        let flow = |method: &str, path: &str, content_type: &str| {
            let mut flow = answered(method, &format!("https://app.test{path}"), 200);
            let response = flow.response.as_mut().unwrap();
            response.headers.push("content-type", content_type);
            flow
        };
        let s = Scope::everything();
        let javascript = "application/x-javascript";
        for method in ["POST", "PUT", "PATCH", "delete"] {
            for (path, content_type) in [("/add", javascript), ("/bundle.js", "application/json")] {
                assert_eq!(
                    s.decide(&flow(method, path, content_type)),
                    ScopeDecision::In(InReason::AnyHost),
                    "{method} {path} {content_type}"
                );
            }
        }
        for method in ["GET", "HEAD"] {
            for (path, content_type) in [("/add", javascript), ("/bundle.js", "application/json")] {
                assert_eq!(
                    s.decide(&flow(method, path, content_type)),
                    ScopeDecision::Out(OutReason::StaticAsset),
                    "{method} {path} {content_type}"
                );
            }
        }
    }

    #[test]
    fn a_request_the_proxy_refused_is_out_but_its_host_still_counts() {
        use crate::{Client, ErrorKind, FlowId, HttpVersion, Request, Timestamp};
        let refused = |url: &str, kind| {
            let request = Request::new("DELETE", url, HttpVersion::Http11);
            Flow::new(
                FlowId(1),
                Timestamp::from_unix_micros(0),
                Client::Explorer,
                request,
            )
            .with_error(kind, "refused")
        };
        let s = scope(ScopeConfig::for_target("https://shop.test/"));
        assert_eq!(
            s.decide(&refused(
                "https://shop.test/api/cart/items/3",
                ErrorKind::Refused
            )),
            ScopeDecision::Out(OutReason::Refused)
        );
        assert_eq!(
            s.decide(&refused("https://other.test/x", ErrorKind::Refused)),
            ScopeDecision::Out(OutReason::OutOfScopeHost)
        );
        // Sent and failed on the way: still evidence of the request side.
        assert!(
            s.decide(&refused(
                "https://shop.test/api/cart/items/3",
                ErrorKind::Reset
            ))
            .is_in()
        );
    }

    #[test]
    fn target_site_and_extra_hosts() {
        let mut cfg = ScopeConfig::for_target("https://www.shop.test:8443/home");
        cfg.extra_hosts = vec!["*.payments.test".into(), "cdn.test".into()];
        let s = scope(cfg);
        assert_eq!(s.site(), Some("shop.test"));
        assert_eq!(
            s.decide_parts("api.shop.test:8443", "/v1/x", Some("application/json")),
            ScopeDecision::In(InReason::TargetSite)
        );
        assert_eq!(
            s.decide_parts("eu.payments.test", "/pay", None),
            ScopeDecision::In(InReason::ExtraHost)
        );
        assert_eq!(
            s.decide_parts("payments.test", "/pay", None),
            ScopeDecision::In(InReason::ExtraHost)
        );
        assert_eq!(
            s.decide_parts("xpayments.test", "/pay", None),
            ScopeDecision::Out(OutReason::OutOfScopeHost)
        );
        assert_eq!(
            s.decide_parts("shop.test", "/", Some("text/html; charset=utf-8")),
            ScopeDecision::Out(OutReason::HtmlPage)
        );
        assert_eq!(
            s.decide_parts("shop.test", "/img/logo", Some("image/png")),
            ScopeDecision::Out(OutReason::StaticAsset)
        );
    }

    #[test]
    fn what_the_browser_loaded_for_itself_is_no_api_call() {
        let flow = |dest: &str, status: u16| {
            let mut flow = answered("GET", "https://app.test/", status);
            flow.request.headers.push("sec-fetch-dest", dest);
            flow
        };
        let s = Scope::everything();
        // A page revalidated from the cache: a 304 with no content type.
        assert_eq!(
            s.decide(&flow("document", 304)),
            ScopeDecision::Out(OutReason::HtmlPage)
        );
        assert_eq!(
            s.decide(&flow("manifest", 200)),
            ScopeDecision::Out(OutReason::StaticAsset)
        );
        assert_eq!(
            s.decide(&flow("empty", 200)),
            ScopeDecision::In(InReason::AnyHost)
        );
        assert_eq!(
            s.decide(&flow("websocket", 101)),
            ScopeDecision::In(InReason::AnyHost)
        );
        let keep = ScopeConfig {
            keep_html: true,
            ..ScopeConfig::default()
        };
        assert_eq!(
            scope(keep).decide(&flow("document", 304)),
            ScopeDecision::In(InReason::AnyHost)
        );
    }

    #[test]
    fn trackers_are_out_unless_allowed() {
        let s = Scope::everything();
        for host in [
            "www.google-analytics.com",
            "region1.google-analytics.com",
            "www.googletagmanager.com",
            "stats.g.doubleclick.net",
            "api.segment.io",
            "api-js.mixpanel.com",
            "o1.ingest.sentry.io",
            "connect.facebook.net",
            "metrics.test",
            "telemetry.shop.test",
            "beacon.x.test",
        ] {
            assert_eq!(
                s.decide_parts(host, "/collect", None),
                ScopeDecision::Out(OutReason::Tracker),
                "{host}"
            );
        }
        assert_eq!(
            s.decide_parts("www.facebook.com", "/tr", None),
            ScopeDecision::Out(OutReason::Tracker)
        );
        assert_eq!(
            s.decide_parts("www.facebook.com", "/api/graphql", None),
            ScopeDecision::In(InReason::AnyHost)
        );
        let cfg = ScopeConfig {
            allow_hosts: vec!["metrics.test".into()],
            ..ScopeConfig::default()
        };
        assert_eq!(
            scope(cfg).decide_parts("metrics.test", "/q", None),
            ScopeDecision::In(InReason::AllowedHost)
        );
    }

    /// A host only *named* like a telemetry sink is judged by its traffic:
    /// a beacon (no credentials, an empty or image answer) is out, an API
    /// call (credentials, a JSON answer) is in; a listed tracker service is
    /// out either way, unless the user named the host.
    #[test]
    fn a_host_named_like_telemetry_is_judged_by_its_traffic() {
        let s = Scope::everything();
        let beacon = answered("POST", "https://tracking.api.vendor.test/v2/events", 204);
        assert_eq!(s.decide(&beacon), ScopeDecision::Out(OutReason::Tracker));
        let mut call = answered(
            "DELETE",
            "https://tracking.api.vendor.test/v2/devices/7",
            204,
        );
        call.request.headers.push("Authorization", "Bearer x");
        assert_eq!(s.decide(&call), ScopeDecision::In(InReason::AnyHost));
        let mut listed = answered("POST", "https://api.segment.io/v1/t", 200);
        listed.request.headers.push("Authorization", "Basic x");
        assert_eq!(s.decide(&listed), ScopeDecision::Out(OutReason::Tracker));
        let ack = json_flow(1, "POST", "https://metrics.shop.test/v1/events", 202, "{}");
        assert_eq!(s.decide(&ack), ScopeDecision::Out(OutReason::Tracker));
        let data = r#"{"series":[{"t":1,"v":0.5}]}"#;
        let series = json_flow(2, "GET", "https://metrics.shop.test/v1/series", 200, data);
        assert_eq!(s.decide(&series), ScopeDecision::In(InReason::AnyHost));
        assert_eq!(
            s.decide_parts("pixel.shop.test", "/p.gif", Some("image/gif")),
            ScopeDecision::Out(OutReason::Tracker)
        );
        // The user's own word: the target's host, or a host given as extra.
        let target = scope(ScopeConfig::for_target(
            "https://tracking.api.vendor.test/v2",
        ));
        assert_eq!(
            target.decide(&beacon),
            ScopeDecision::In(InReason::TargetSite)
        );
        let beside = answered("GET", "https://metrics.vendor.test/q", 200);
        assert_eq!(
            target.decide(&beside),
            ScopeDecision::Out(OutReason::Tracker)
        );
        let extra = scope(ScopeConfig {
            extra_hosts: vec!["api.segment.io".into()],
            ..ScopeConfig::for_target("shop.test")
        });
        assert_eq!(
            extra.decide(&listed),
            ScopeDecision::In(InReason::ExtraHost)
        );
    }

    #[test]
    fn user_globs_and_denied_hosts() {
        let mut cfg = ScopeConfig::for_target("shop.test");
        cfg.deny_paths = vec!["/admin/**".into(), "**/health".into()];
        cfg.deny_hosts = vec!["legacy.shop.test".into()];
        cfg.allow_paths = vec!["/api/**".into(), "/admin/**".into()];
        let s = scope(cfg);
        assert_eq!(
            s.decide_parts("shop.test", "/admin/users", None),
            ScopeDecision::Out(OutReason::UserDeniedPath)
        );
        assert_eq!(
            s.decide_parts("shop.test", "/api/v1/health", None),
            ScopeDecision::Out(OutReason::UserDeniedPath)
        );
        assert_eq!(
            s.decide_parts("legacy.shop.test", "/api/x", None),
            ScopeDecision::Out(OutReason::UserDeniedHost)
        );
        assert_eq!(
            s.decide_parts("shop.test", "/other", None),
            ScopeDecision::Out(OutReason::NotAllowedPath)
        );
        assert!(s.decide_parts("shop.test", "/api/cart", None).is_in());
        let bad = Scope::new(ScopeConfig {
            deny_paths: vec!["/a/[".into()],
            ..ScopeConfig::default()
        })
        .unwrap_err();
        assert!(bad.to_string().contains("/a/["), "{bad}");
        assert!(
            Scope::new(ScopeConfig {
                extra_hosts: vec!["a*b.test".into()],
                ..ScopeConfig::default()
            })
            .is_err()
        );
    }
}
