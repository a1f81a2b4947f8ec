//! Who may talk to the web view: a request must name a loopback `Host`
//! (a DNS-rebinding page reaches 127.0.0.1 under its own name, which this
//! refuses) and carry the session's token; the token reaches only whoever
//! could read the URL `ar` printed.

use std::fmt;

/// The random token in the page's URL.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Token(String);

impl Token {
    /// 128 random bits from the operating system, as hex.
    pub(crate) fn random() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)?;
        Ok(Self(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    /// The token, for the URL `ar` prints.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// Whether `given` is the token, in time that does not depend on where
    /// they first differ.
    pub(crate) fn admits(&self, given: &str) -> bool {
        let (a, b) = (self.0.as_bytes(), given.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

/// Masks the value so a log line cannot leak it.
impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(****)")
    }
}

/// Why a request was refused (logged; the answer is a bare 403).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// The `Host` header is missing or not a loopback address.
    Host,
    /// The token is missing or wrong.
    Token,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Host => "its Host header is not a loopback address",
            Self::Token => "its token is missing or wrong",
        })
    }
}

/// Whether a `Host` header names this machine's loopback interface
/// (`127.0.0.1:PORT`, `localhost`, `[::1]:PORT`).
pub(crate) fn loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _)| name),
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The `token` parameter of a query string.
pub(crate) fn token_in(query: &str) -> Option<String> {
    url::form_urlencoded::parse(query.as_bytes())
        .find(|(name, _)| name == "token")
        .map(|(_, value)| value.into_owned())
}

/// Checks one request's `Host` and query.
pub(crate) fn check(token: &Token, host: Option<&str>, query: &str) -> Result<(), Refusal> {
    if !host.is_some_and(loopback_host) {
        return Err(Refusal::Host);
    }
    match token_in(query) {
        Some(given) if token.admits(&given) => Ok(()),
        _ => Err(Refusal::Token),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_hosts_with_the_token_pass() {
        let token = Token::random().unwrap();
        assert_eq!(token.expose().len(), 32);
        assert_ne!(token, Token::random().unwrap());
        assert!(!format!("{token:?}").contains(token.expose()));
        let query = format!("a=1&token={}", token.expose());
        for host in [
            "127.0.0.1:8080",
            "localhost:1",
            "[::1]:9",
            "127.0.0.1",
            "LOCALHOST",
        ] {
            assert_eq!(check(&token, Some(host), &query), Ok(()), "{host}");
        }
        for host in [
            "evil.test:8080",
            "127.0.0.1.evil.test",
            "[::2]:1",
            "0.0.0.0:1",
        ] {
            assert_eq!(
                check(&token, Some(host), &query),
                Err(Refusal::Host),
                "{host}"
            );
        }
        assert_eq!(check(&token, None, &query), Err(Refusal::Host));
        assert_eq!(check(&token, Some("localhost"), "a=1"), Err(Refusal::Token));
        assert_eq!(
            check(&token, Some("localhost"), "token=00"),
            Err(Refusal::Token)
        );
    }
}
