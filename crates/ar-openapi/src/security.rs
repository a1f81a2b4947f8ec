//! Security schemes detected from traffic.
//!
//! Each request is inspected for credentials: an `Authorization` header
//! (bearer, basic, digest, or a custom scheme), API-key headers, API keys in
//! the query string, and session cookies. The *names* of what carried the
//! credential become OpenAPI security schemes; values are never kept.

use ar_store::{Header, Request};

use crate::fold::{has_part, with_lowercase, with_normalised};
use crate::naming::camel;
use crate::redact::Redactor;
use ar_flow::url::query_of;

/// Where an API key travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyLocation {
    /// In a request header.
    Header,
    /// In the query string.
    Query,
    /// In a cookie.
    Cookie,
}

impl KeyLocation {
    /// The OpenAPI spelling (`header`, `query`, `cookie`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Header => "header",
            Self::Query => "query",
            Self::Cookie => "cookie",
        }
    }
}

/// One kind of credential seen in traffic, identified by what carried it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SecurityKind {
    /// `Authorization: Bearer ...`
    Bearer,
    /// `Authorization: Basic ...`
    Basic,
    /// `Authorization: Digest ...`
    Digest,
    /// A key in a header, the query string or a cookie; `name` as first seen.
    ApiKey {
        /// Where the key travels.
        location: KeyLocation,
        /// The header, parameter or cookie name.
        name: String,
    },
    /// A cookie that identifies a logged-in session (`session`, `sid`, `PHPSESSID`, ...).
    SessionCookie {
        /// The cookie name.
        name: String,
    },
}

impl SecurityKind {
    /// The name of the scheme under `components.securitySchemes`
    /// (`bearerAuth`, `xApiKeyHeader`, `sessionIdCookie`, ...).
    pub fn scheme_name(&self) -> String {
        match self {
            Self::Bearer => "bearerAuth".into(),
            Self::Basic => "basicAuth".into(),
            Self::Digest => "digestAuth".into(),
            Self::ApiKey {
                location: KeyLocation::Header,
                name,
            } => format!("{}Header", camel(name)),
            Self::ApiKey {
                location: KeyLocation::Query,
                name,
            } => format!("{}Query", camel(name)),
            Self::ApiKey {
                location: KeyLocation::Cookie,
                name,
            }
            | Self::SessionCookie { name } => format!("{}Cookie", camel(name)),
        }
    }

    /// A one-line human description, for the markdown and the scheme's `description`.
    pub fn describe(&self) -> String {
        match self {
            Self::Bearer => "HTTP bearer token in the `Authorization` header".into(),
            Self::Basic => "HTTP basic authentication (`Authorization: Basic ...`)".into(),
            Self::Digest => "HTTP digest authentication".into(),
            Self::ApiKey { location, name } => {
                format!("API key in the `{name}` {}", location.as_str())
            }
            Self::SessionCookie { name } => format!("session cookie `{name}`"),
        }
    }
}

/// A credential found on one request.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Credential {
    /// What kind of credential it is.
    pub kind: SecurityKind,
    /// Whether the value was a JWT (for `bearerFormat: JWT`).
    pub jwt: bool,
}

/// Finds the credentials a request carries, sorted and without duplicates.
///
/// ```
/// use ar_openapi::{detect_credentials, Redactor, SecurityKind};
/// use ar_store::{HttpVersion, Request};
///
/// let mut request = Request::new("GET", "https://api.shop.test/me?api_key=k1", HttpVersion::Http11);
/// request.headers.push("Authorization", "Bearer abc");
/// let found = detect_credentials(&request, &Redactor::new());
/// assert_eq!(found[0].kind, SecurityKind::Bearer);
/// assert_eq!(found[1].kind.scheme_name(), "apiKeyQuery");
/// ```
pub fn detect_credentials(request: &Request, redactor: &Redactor) -> Vec<Credential> {
    let header_credentials = request.headers.iter().map(|header| {
        let credential = with_lowercase(&header.name, |lower| {
            HeaderCredential::of(lower, redactor.is_secret_lowercase_header(lower))
        });
        (header, credential)
    });
    credentials_in(header_credentials, query_of(&request.url))
}

/// [`detect_credentials`] from the request headers with what their names
/// carry (headers that carry nothing may be left out) and the URL's query
/// string ([`query_of`]).
pub(crate) fn credentials_in<'a>(
    header_credentials: impl IntoIterator<Item = (&'a Header, HeaderCredential)>,
    query: Option<&str>,
) -> Vec<Credential> {
    let mut found = Vec::new();
    for (header, credential) in header_credentials {
        match credential {
            HeaderCredential::Authorization => found.push(authorization(&header.value)),
            HeaderCredential::Cookie => {
                for pair in header.value.split(';') {
                    let name = pair.split_once('=').map_or(pair, |(name, _)| name).trim();
                    if is_session_cookie(name) {
                        found.push(Credential {
                            kind: SecurityKind::SessionCookie {
                                name: name.to_string(),
                            },
                            jwt: false,
                        });
                    }
                }
            }
            HeaderCredential::Key => found.push(Credential {
                kind: SecurityKind::ApiKey {
                    location: KeyLocation::Header,
                    name: header.name.clone(),
                },
                jwt: false,
            }),
            HeaderCredential::None => {}
        }
    }
    if let Some(query) = query {
        for (name, _) in crate::form::parse_urlencoded(query) {
            if is_query_key(&name) {
                found.push(Credential {
                    kind: SecurityKind::ApiKey {
                        location: KeyLocation::Query,
                        name,
                    },
                    jwt: false,
                });
            }
        }
    }
    found.sort();
    found.dedup_by(|a, b| a.kind == b.kind);
    found
}

/// What a request header carries as a credential, by its name alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeaderCredential {
    /// `Authorization`: the scheme in the value says which kind.
    Authorization,
    /// `Cookie`: session cookies among the pairs in the value.
    Cookie,
    /// An API key (`X-Api-Key`, `X-Auth-Token`, ...).
    Key,
    /// Nothing (CSRF tokens, `Set-Cookie`, ordinary headers).
    None,
}

impl HeaderCredential {
    /// For a header called `lower` (lowercased), which the redactor
    /// treats as `secret` or not.
    pub(crate) fn of(lower: &str, secret: bool) -> Self {
        match lower {
            "authorization" => Self::Authorization,
            "cookie" => Self::Cookie,
            "proxy-authorization" | "set-cookie" => Self::None,
            _ if secret
                && !lower.starts_with(':')
                && !has_part(lower, "csrf")
                && !has_part(lower, "xsrf") =>
            {
                Self::Key
            }
            _ => Self::None,
        }
    }
}

fn authorization(value: &str) -> Credential {
    let mut words = value.split_whitespace();
    let scheme = words.next().unwrap_or("").to_ascii_lowercase();
    let rest = words.next().unwrap_or("");
    let kind = match scheme.as_str() {
        "bearer" => SecurityKind::Bearer,
        "basic" => SecurityKind::Basic,
        "digest" => SecurityKind::Digest,
        _ => SecurityKind::ApiKey {
            location: KeyLocation::Header,
            name: "Authorization".into(),
        },
    };
    let jwt =
        kind == SecurityKind::Bearer && rest.starts_with("eyJ") && rest.matches('.').count() == 2;
    Credential { kind, jwt }
}

fn is_session_cookie(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    matches!(
        lower.as_str(),
        "sid" | "jwt" | "token" | "auth" | "phpsessid" | "jsessionid" | "connect.sid"
    ) || lower.contains("session")
        || lower.contains("sess_")
        || lower.ends_with("_sid")
        || lower.ends_with("-sid")
        || lower.contains("auth_token")
        || lower.contains("access_token")
        || lower.ends_with("_auth")
        || lower.starts_with("auth_")
        || lower.starts_with("remember_")
}

fn is_query_key(name: &str) -> bool {
    with_normalised(name, |norm| {
        matches!(
            norm,
            "apikey"
                | "key"
                | "apitoken"
                | "accesstoken"
                | "token"
                | "authtoken"
                | "auth"
                | "accesskey"
                | "subscriptionkey"
                | "appkey"
                | "appid"
                | "clientsecret"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ar_store::HttpVersion;

    fn request(url: &str, headers: &[(&str, &str)]) -> Request {
        let mut request = Request::new("GET", url, HttpVersion::Http11);
        for (name, value) in headers {
            request.headers.push(*name, *value);
        }
        request
    }

    fn kinds(request: &Request) -> Vec<String> {
        detect_credentials(request, &Redactor::new())
            .iter()
            .map(|c| c.kind.scheme_name())
            .collect()
    }

    #[test]
    fn browser_protocol_headers_are_not_credentials() {
        let handshake = request(
            "https://a.test/ws",
            &[
                ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                ("Sec-Fetch-Mode", "websocket"),
                ("Sec-CH-UA", "\"Chromium\";v=\"156\""),
            ],
        );
        assert!(kinds(&handshake).is_empty(), "{:?}", kinds(&handshake));
    }

    #[test]
    fn each_kind_of_credential_is_found() {
        assert_eq!(
            kinds(&request(
                "https://a.test/",
                &[("Authorization", "Basic dTpw")]
            )),
            ["basicAuth"]
        );
        assert_eq!(
            kinds(&request("https://a.test/", &[("X-API-Key", "k")])),
            ["xApiKeyHeader"]
        );
        assert_eq!(
            kinds(&request("https://a.test/?api_key=k&page=1", &[])),
            ["apiKeyQuery"]
        );
        assert_eq!(
            kinds(&request(
                "https://a.test/",
                &[("Cookie", "theme=dark; sessionid=abc; _ga=1")]
            )),
            ["sessionidCookie"]
        );
        assert_eq!(
            kinds(&request(
                "https://a.test/",
                &[("Authorization", "Token abc")]
            )),
            ["authorizationHeader"]
        );
    }

    #[test]
    fn jwt_bearer_is_flagged_and_csrf_is_not_auth() {
        let found = detect_credentials(
            &request(
                "https://a.test/",
                &[
                    ("authorization", "Bearer eyJa.eyJb.c"),
                    ("X-CSRF-Token", "t"),
                ],
            ),
            &Redactor::new(),
        );
        assert_eq!(
            found,
            vec![Credential {
                kind: SecurityKind::Bearer,
                jwt: true
            }]
        );
    }

    #[test]
    fn credential_headers_are_found_whatever_their_case() {
        for (name, value, scheme) in [
            ("Authorization", "Bearer abc", "bearerAuth"),
            ("AUTHORIZATION", "basic dTpw", "basicAuth"),
            ("aUtHoRiZaTiOn", "Digest x", "digestAuth"),
            ("X-Api-Key", "k", "xApiKeyHeader"),
            ("x-api-key", "k", "xApiKeyHeader"),
            ("X-API-KEY", "k", "xApiKeyHeader"),
            ("x-auth-token", "t", "xAuthTokenHeader"),
            ("X-Auth-Token", "t", "xAuthTokenHeader"),
            ("Cookie", "theme=dark; sid=1", "sidCookie"),
            ("COOKIE", "sid=1", "sidCookie"),
        ] {
            assert_eq!(
                kinds(&request("https://a.test/", &[(name, value)])),
                [scheme],
                "{name}"
            );
        }
        for name in ["X-CSRF-Token", "x-xsrf-token", "Sec-WebSocket-Key", "Host"] {
            assert!(
                kinds(&request("https://a.test/", &[(name, "v")])).is_empty(),
                "{name}"
            );
        }
    }

    #[test]
    fn plain_requests_carry_nothing() {
        let plain = request(
            "https://a.test/items?page=2",
            &[("Accept", "application/json"), ("Cookie", "theme=dark")],
        );
        assert!(kinds(&plain).is_empty());
    }
}
