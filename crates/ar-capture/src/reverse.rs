//! Reverse mode: the listener also takes plain origin-form requests
//! (`GET /v1/users`) from clients that cannot be pointed at a proxy, and
//! sends each to the origin its path routes to.
//!
//! Nothing here relays or records: a routed request gets the origin's
//! `Host` and goes on exactly as a request inside an intercepted tunnel to
//! that origin does ([`crate::forward::handle`] with the origin as its
//! [`Target`]), through the same pool, dialer, taps and WebSocket relay.
//! So the archive holds `https://api.example.com/v1/users`, as it would
//! had the client used the proxy as its HTTPS proxy, and the spec is the
//! same. Absolute-form requests and CONNECT still work as in forward mode.
//!
//! With [`ReverseRoutes::rewrite_urls`], a `Location` or `Content-Location`
//! the origin answers with that names a routed origin is rewritten to the
//! proxy's own address as the client wrote it (its `Host`), so a redirect
//! keeps the client on the proxy, and so are such URLs in JSON and HTML
//! bodies ([`crate::rewrite`]); the archive keeps what the origin sent.

use std::str::FromStr;
use std::sync::Arc;

use http::{HeaderMap, HeaderValue, Request, Response, StatusCode, header};
use hyper::body::Incoming;

use crate::CaptureError;
use crate::forward;
use crate::proxy::{ProxyBody, Shared};
use crate::rewrite;
use crate::server::{Target, text_response};

/// One origin a reverse proxy sends requests to, and the path prefix that
/// chooses it: `https://api.example.com` (every path) or
/// `/api=https://api.example.com` (`/api` and below). Requests keep their
/// path: `/api/users` goes to `https://api.example.com/api/users`.
///
/// ```
/// let route: ar_capture::ReverseRoute = "/api=https://API.example.com:443/".parse()?;
/// assert_eq!((route.prefix(), route.origin()), ("/api", "https://api.example.com"));
/// assert!("ftp://example.com".parse::<ar_capture::ReverseRoute>().is_err());
/// # Ok::<(), ar_capture::CaptureError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ReverseRoute {
    /// `/` for every path, else `/segment[/segment...]` without a trailing slash.
    prefix: String,
    /// `scheme://host[:port]`, lowercase, the scheme's default port left out.
    origin: String,
    /// The origin as forwarding takes it.
    target: Target,
    /// The `Host` the origin gets.
    host: HeaderValue,
}

impl ReverseRoute {
    /// The path prefix (`/` for every path).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The origin, `scheme://host[:port]` (the default port left out).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Whether `path` is this route's: the prefix itself or below it, whole segments.
    fn takes(&self, path: &str) -> bool {
        self.prefix == "/"
            || path
                .strip_prefix(self.prefix.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }
}

impl FromStr for ReverseRoute {
    type Err = CaptureError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let bad = |reason: &str| CaptureError::Reverse {
            value: value.to_string(),
            reason: reason.to_string(),
        };
        let (prefix, url) = match value.strip_prefix('/') {
            Some(_) => value
                .split_once('=')
                .ok_or_else(|| bad("a path prefix is followed by =URL"))?,
            None => ("/", value),
        };
        let prefix = prefix.trim_end_matches('/');
        let prefix = if prefix.is_empty() { "/" } else { prefix };
        if prefix.contains(['?', '#', '{', '}']) || prefix.chars().any(char::is_whitespace) {
            return Err(bad("a path prefix is a plain path"));
        }
        let uri: http::Uri = url.parse().map_err(|_| bad("the origin is not a URL"))?;
        let scheme = match uri.scheme_str().map(str::to_ascii_lowercase).as_deref() {
            Some("https") => "https",
            Some("http") => "http",
            _ => return Err(bad("the origin's scheme is http or https")),
        };
        let authority = uri
            .authority()
            .ok_or_else(|| bad("the origin has no host"))?;
        if authority.as_str().contains('@') {
            return Err(bad("the origin carries no user or password"));
        }
        if authority.host().is_empty() {
            return Err(bad("the origin has no host"));
        }
        if !matches!(uri.path(), "" | "/") || uri.query().is_some() {
            return Err(bad(
                "the origin has no path (requests keep theirs; route a path with /PREFIX=URL)",
            ));
        }
        let default = if scheme == "https" { 443 } else { 80 };
        let port = uri.port_u16().unwrap_or(default);
        let host = authority
            .host()
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_ascii_lowercase();
        let target = Target::origin_of(scheme, &host, port);
        let host = target
            .host_header()
            .ok_or_else(|| bad("the origin's host is not a valid name"))?;
        let origin = format!("{scheme}://{}", host.to_str().unwrap_or_default());
        Ok(Self {
            prefix: prefix.to_string(),
            origin,
            target,
            host,
        })
    }
}

/// Where a reverse proxy sends origin-form requests: its routes, the
/// longest prefix first (see [`crate::ProxyBuilder::reverse`]).
///
/// ```
/// use ar_capture::ReverseRoutes;
/// let routes = ReverseRoutes::new(vec![
///     "https://web.example.com".parse()?,
///     "/api=https://api.example.com".parse()?,
/// ])?
/// .rewrite_urls(true);
/// assert_eq!(routes.routes()[0].prefix(), "/api");
/// assert!(ReverseRoutes::new(vec![]).is_err());
/// # Ok::<(), ar_capture::CaptureError>(())
/// ```
#[derive(Debug, Clone)]
pub struct ReverseRoutes {
    routes: Arc<[ReverseRoute]>,
    rewrite_urls: bool,
}

impl ReverseRoutes {
    /// At least one route, and one origin per prefix.
    pub fn new(mut routes: Vec<ReverseRoute>) -> Result<Self, CaptureError> {
        if routes.is_empty() {
            return Err(CaptureError::Reverse {
                value: String::new(),
                reason: "no route given".into(),
            });
        }
        // Longest first; equal prefixes side by side.
        routes.sort_by(|a, b| (b.prefix.len(), &a.prefix).cmp(&(a.prefix.len(), &b.prefix)));
        for pair in routes.windows(2) {
            if pair[0].prefix == pair[1].prefix {
                return Err(CaptureError::Reverse {
                    value: pair[1].prefix.clone(),
                    reason: format!(
                        "two origins for one prefix ({} and {})",
                        pair[0].origin, pair[1].origin
                    ),
                });
            }
        }
        Ok(Self {
            routes: routes.into(),
            rewrite_urls: false,
        })
    }

    /// Rewrites the routed origins' absolute URLs in `Location` and
    /// `Content-Location` answers, and in JSON and HTML bodies of up to
    /// 8 MiB, to the proxy's address (default off).
    #[must_use]
    pub fn rewrite_urls(mut self, on: bool) -> Self {
        self.rewrite_urls = on;
        self
    }

    /// Whether answers' URLs are rewritten (see [`ReverseRoutes::rewrite_urls`]).
    pub fn rewrites_urls(&self) -> bool {
        self.rewrite_urls
    }

    /// The routes, the longest prefix first (the order they are tried in).
    pub fn routes(&self) -> &[ReverseRoute] {
        &self.routes
    }

    /// The route `path` takes, if any.
    fn route(&self, path: &str) -> Option<&ReverseRoute> {
        self.routes.iter().find(|route| route.takes(path))
    }

    /// The origin an origin-form request target (`/path?query`) goes to, if
    /// routed: where a request refused before it was read is recorded.
    pub(crate) fn target_of(&self, request_target: &str) -> Option<&Target> {
        let path = request_target.split(['?', '#']).next()?;
        path.starts_with('/')
            .then(|| self.route(path))
            .flatten()
            .map(|route| &route.target)
    }

    /// `url` with the proxy's base URL as the client used it (`local`,
    /// `http://host[:port]` or `https://...`) in place of its origin, when that origin is routed and the URL's path routes back
    /// to it; `None` for any other URL (relative ones included).
    fn local_url(&self, url: &str, local: &str) -> Option<String> {
        let (scheme, rest) = url.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        let authority = authority.to_ascii_lowercase();
        let authority = match (scheme.as_str(), authority.rsplit_once(':')) {
            ("https", Some((host, "443"))) | ("http", Some((host, "80"))) => host,
            _ => authority.as_str(),
        };
        let origin = format!("{scheme}://{authority}");
        let path = match &tail[..tail.find(['?', '#']).unwrap_or(tail.len())] {
            "" => "/",
            path => path,
        };
        if self.route(path)?.origin != origin {
            return None;
        }
        let slash = if tail.starts_with('/') { "" } else { "/" };
        Some(format!("{local}{slash}{tail}"))
    }

    /// `text` (a JSON or HTML body) with each routed origin's absolute URL
    /// that [`local_url`](Self::local_url) takes pointing at `local`, spelled
    /// plain or with JSON's escaped slashes (`https:\/\/api.test\/v1`);
    /// `None` when there is none.
    pub(crate) fn rewrite_text(&self, text: &[u8], local: &str) -> Option<Vec<u8>> {
        let mut origins: Vec<&str> = self.routes.iter().map(|r| r.origin.as_str()).collect();
        origins.sort_unstable();
        origins.dedup();
        let spellings: Vec<(Vec<u8>, bool)> = (origins.iter())
            .flat_map(|o| {
                [
                    (o.as_bytes().to_vec(), false),
                    (o.replace('/', "\\/").into_bytes(), true),
                ]
            })
            .collect();
        let mut out = Vec::new();
        let (mut copied, mut at, mut changed) = (0, 0, false);
        while at < text.len() {
            let found = (text[at] == b'h')
                .then(|| spellings.iter().find(|(s, _)| text[at..].starts_with(s)))
                .flatten();
            let Some((spelling, escaped)) = found else {
                at += 1;
                continue;
            };
            let Some(len) = url_len(&text[at..], spelling.len(), *escaped) else {
                at += spelling.len();
                continue;
            };
            let end = at + len;
            let url = String::from_utf8_lossy(&text[at..end]);
            let plain = if *escaped {
                url.replace("\\/", "/")
            } else {
                url.to_string()
            };
            if let Some(rewritten) = self.local_url(&plain, local) {
                out.extend_from_slice(&text[copied..at]);
                let rewritten = if *escaped {
                    rewritten.replace('/', "\\/")
                } else {
                    rewritten
                };
                out.extend_from_slice(rewritten.as_bytes());
                (copied, changed) = (end, true);
            }
            at = end.max(at + 1);
        }
        if !changed {
            return None;
        }
        out.extend_from_slice(&text[copied..]);
        Some(out)
    }

    /// Rewrites `Location` and `Content-Location` in an origin's answer.
    fn rewrite_headers(&self, headers: &mut HeaderMap, local: &str) {
        for name in [header::LOCATION, header::CONTENT_LOCATION] {
            let rewritten = (headers.get(&name))
                .and_then(|value| value.to_str().ok())
                .and_then(|url| self.local_url(url, local))
                .and_then(|url| HeaderValue::from_str(&url).ok());
            if let Some(value) = rewritten {
                headers.insert(name, value);
            }
        }
    }
}

/// How many bytes of `text`, which starts with an origin's spelling
/// `origin_len` bytes long, are its URL: up to a quote, a bracket, a space
/// or a backslash that escapes no slash; `None` when a name or a port goes
/// on after the origin (`https://api.test.example`, `https://api.test:8443`).
fn url_len(text: &[u8], origin_len: usize, escaped: bool) -> Option<usize> {
    if (text.get(origin_len))
        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'_'))
    {
        return None;
    }
    let mut len = origin_len;
    while let Some(&b) = text.get(len) {
        let slash = escaped && b == b'\\' && text.get(len + 1) == Some(&b'/');
        if !slash
            && (b.is_ascii_whitespace() || b"\"'<>`()[]{}\\".contains(&b) || b.is_ascii_control())
        {
            break;
        }
        len += if slash { 2 } else { 1 };
    }
    Some(len)
}

/// Sends a request on the listener (origin-form, over h2c, or any over
/// the listener's TLS, `tls`) to its route's origin.
pub(crate) async fn handle(
    shared: Arc<Shared>,
    routes: ReverseRoutes,
    mut req: Request<Incoming>,
    tls: bool,
) -> Response<ProxyBody> {
    let Some(route) = routes.route(req.uri().path()) else {
        let known: Vec<String> = (routes.routes.iter())
            .map(|r| format!("{} → {}", r.prefix, r.origin))
            .collect();
        let message = format!(
            "ar proxy: no reverse route takes {} (routes: {})\n",
            req.uri().path(),
            known.join(", ")
        );
        return text_response(StatusCode::NOT_FOUND, &message);
    };
    if req.method() == http::Method::CONNECT && !crate::record::is_h2_websocket(&req) {
        return text_response(
            StatusCode::METHOD_NOT_ALLOWED,
            "ar proxy: CONNECT to the reverse proxy itself is not supported\n",
        );
    }
    // How the client named the proxy (`Host`, or h2's `:authority`) and
    // whether it came over TLS: where rewritten URLs point.
    let authority = (req.headers().get(header::HOST))
        .and_then(|host| host.to_str().ok())
        .filter(|host| host.parse::<http::uri::Authority>().is_ok())
        .map(str::to_string)
        .or_else(|| req.uri().authority().map(ToString::to_string))
        .unwrap_or_else(|| shared.local_addr.to_string());
    let local = format!("{}://{authority}", if tls { "https" } else { "http" });
    let head = req.method() == http::Method::HEAD;
    req.headers_mut().insert(header::HOST, route.host.clone());
    let mut response = forward::handle(Arc::clone(&shared), req, route.target.clone()).await;
    if !routes.rewrite_urls {
        return response;
    }
    routes.rewrite_headers(response.headers_mut(), &local);
    let max_ratio = shared.opts.limits.max_ratio;
    rewrite::body(&routes, &local, head, max_ratio, response).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routes(values: &[&str]) -> ReverseRoutes {
        let routes = values.iter().map(|v| v.parse().unwrap()).collect();
        ReverseRoutes::new(routes).unwrap().rewrite_urls(true)
    }

    #[test]
    fn routes_read_a_prefix_and_an_origin_without_a_path() {
        let route = |value: &str| {
            let route: ReverseRoute = value.parse().unwrap();
            (route.prefix, route.origin, route.host)
        };
        assert_eq!(
            route("https://api.example.com"),
            (
                "/".into(),
                "https://api.example.com".into(),
                "api.example.com".parse().unwrap()
            )
        );
        assert_eq!(
            route("/api/=HTTP://Api.Test:8080/"),
            (
                "/api".into(),
                "http://api.test:8080".into(),
                "api.test:8080".parse().unwrap()
            )
        );
        assert_eq!(route("/=http://[::1]:80").1, "http://[::1]");
        for (bad, why) in [
            ("api.example.com", "scheme"),
            ("ftp://api.example.com", "scheme"),
            ("https://", "not a URL"),
            ("https://api.example.com/v1", "no path"),
            ("https://api.example.com/?a=1", "no path"),
            ("https://user:pw@api.example.com", "no user"),
            ("/api", "followed by =URL"),
            ("/a?b=https://x.test", "plain path"),
        ] {
            let error = bad.parse::<ReverseRoute>().unwrap_err().to_string();
            assert!(error.contains(why), "{bad}: {error}");
            assert!(error.contains("[/PREFIX=]http(s)://HOST[:PORT]"), "{error}");
        }
    }

    #[test]
    fn the_longest_prefix_takes_a_path_by_whole_segments() {
        let routes = routes(&[
            "https://web.test",
            "/api=https://api.test",
            "/api/v2=https://v2.test",
        ]);
        let origin = |path| routes.route(path).map(|r| r.origin.as_str());
        assert_eq!(origin("/api/v2/users"), Some("https://v2.test"));
        assert_eq!(origin("/api"), Some("https://api.test"));
        assert_eq!(origin("/api/v20"), Some("https://api.test"));
        assert_eq!(origin("/apis"), Some("https://web.test"));
        assert_eq!(origin("/"), Some("https://web.test"));
        let only_api = self::routes(&["/api=https://api.test"]);
        assert!(only_api.route("/login").is_none());
        let twice = [
            "/api=https://a.test",
            "/web=https://w.test",
            "/api/=https://b.test",
        ]
        .iter()
        .map(|v| v.parse().unwrap())
        .collect();
        let error = ReverseRoutes::new(twice).unwrap_err().to_string();
        assert!(error.contains("two origins for one prefix"), "{error}");
    }

    #[test]
    fn redirects_to_a_routed_origin_come_back_to_the_proxy() {
        let routes = routes(&["/api=https://api.test", "http://web.test:8080"]);
        let mut headers = HeaderMap::new();
        let mut rewrite = |name: header::HeaderName, url: &str| {
            headers.insert(name.clone(), url.parse().unwrap());
            routes.rewrite_headers(&mut headers, "http://127.0.0.1:9000");
            headers[&name].to_str().unwrap().to_string()
        };
        let location = header::LOCATION;
        assert_eq!(
            rewrite(location.clone(), "https://API.test:443/api/v1?x=1#top"),
            "http://127.0.0.1:9000/api/v1?x=1#top"
        );
        assert_eq!(
            rewrite(location.clone(), "http://web.test:8080"),
            "http://127.0.0.1:9000/"
        );
        assert_eq!(
            rewrite(header::CONTENT_LOCATION, "http://web.test:8080/items/3"),
            "http://127.0.0.1:9000/items/3"
        );
        // A client on the listener's TLS is kept on it.
        headers.insert(location.clone(), "http://web.test:8080/a".parse().unwrap());
        routes.rewrite_headers(&mut headers, "https://localhost:9443");
        assert_eq!(headers[&location], "https://localhost:9443/a");
        let mut rewrite = |name: header::HeaderName, url: &str| {
            headers.insert(name.clone(), url.parse().unwrap());
            routes.rewrite_headers(&mut headers, "http://127.0.0.1:9000");
            headers[&name].to_str().unwrap().to_string()
        };
        for kept in [
            "/api/relative",
            "https://elsewhere.test/api",
            "http://api.test/api",
            // Back at the proxy this path would reach web.test, not api.test.
            "https://api.test/login",
        ] {
            assert_eq!(rewrite(location.clone(), kept), kept);
        }
    }
}
