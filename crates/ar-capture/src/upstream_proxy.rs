//! An upstream HTTP proxy (`--upstream-proxy`), for networks where origins
//! are reached only through one: the proxy opens a tunnel with `CONNECT`
//! for HTTPS origins (and WebSockets), and takes plain-HTTP requests in
//! absolute form. Loopback addresses, `localhost`, hosts mapped with
//! `--resolve` and the hosts it is told to leave alone are dialed directly.
//!
//! Its credentials are a secret: the type prints them masked, they travel
//! only in `Proxy-Authorization` to the proxy, added after the flow's
//! request was recorded, and no message names more than `host:port`.

use std::io;
use std::str::FromStr;
use std::time::Duration;

use ar_flow::ErrorKind;
use base64::Engine as _;
use http::{HeaderValue, StatusCode};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::CaptureError;
use crate::upstream::UpstreamError;

/// The longest answer head to a CONNECT read.
const MAX_ANSWER_HEAD: usize = 64 << 10;

/// `http://[USER:PASSWORD@]HOST:PORT`, and the hosts reached without it.
///
/// ```
/// let proxy: ar_capture::UpstreamProxy = "http://me:s%40cret@proxy.corp:3128".parse()?;
/// assert_eq!(proxy.to_string(), "http://me:****@proxy.corp:3128");
/// assert!(!format!("{proxy:?}").contains("cret"));
/// # Ok::<(), ar_capture::CaptureError>(())
/// ```
#[derive(Clone)]
pub struct UpstreamProxy {
    /// `host:port` (IPv6 bracketed): what messages name.
    authority: String,
    /// The host to dial (no brackets).
    host: String,
    port: u16,
    user: Option<String>,
    /// `Basic base64(user:password)`, marked sensitive.
    authorization: Option<HeaderValue>,
    /// Hosts reached directly, lowercase (`example.com` covers its subdomains).
    direct: Vec<String>,
}

impl UpstreamProxy {
    /// Reaches `hosts` directly, not through the proxy (NO_PROXY-style:
    /// `example.com` and `.example.com` cover `example.com` and its
    /// subdomains, `*` every host).
    #[must_use]
    pub fn direct_to<'a>(mut self, hosts: impl IntoIterator<Item = &'a str>) -> Self {
        self.direct.extend(hosts.into_iter().filter_map(|host| {
            let host = host.trim().trim_start_matches("*.").trim_start_matches('.');
            (!host.is_empty()).then(|| host.to_ascii_lowercase())
        }));
        self
    }

    /// The hosts given to [`UpstreamProxy::direct_to`], lowercase, a leading
    /// `*.` or `.` dropped (loopback and resolved hosts go direct besides).
    pub fn direct(&self) -> &[String] {
        &self.direct
    }

    /// Whether `host` (no brackets, any case) goes through the proxy.
    /// Loopback never does.
    pub(crate) fn takes(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        let loopback = match host.parse::<std::net::IpAddr>() {
            Ok(ip) => ip.to_canonical().is_loopback(),
            Err(_) => host == "localhost" || host.ends_with(".localhost"),
        };
        !loopback
            && !self.direct.iter().any(|pattern| {
                pattern == "*"
                    || host == *pattern
                    || host
                        .strip_suffix(pattern.as_str())
                        .is_some_and(|rest| rest.ends_with('.'))
            })
    }

    /// Where the proxy listens.
    pub(crate) fn host_port(&self) -> (&str, u16) {
        (&self.host, self.port)
    }

    /// The `Proxy-Authorization` every request to it carries, if it has credentials.
    pub(crate) fn authorization(&self) -> Option<&HeaderValue> {
        self.authorization.as_ref()
    }

    /// Asks the proxy, on `tcp`, for a tunnel to `target` (`host:port`);
    /// the socket is the tunnel once it answered 2xx.
    pub(crate) async fn tunnel(
        &self,
        mut tcp: TcpStream,
        target: &str,
        deadline: Duration,
    ) -> Result<TcpStream, UpstreamError> {
        let answer = tokio::time::timeout(deadline, self.ask_connect(&mut tcp, target)).await;
        let status = match answer {
            Err(_) => {
                let error = format!("no answer to CONNECT within {deadline:?}");
                return Err(self.failed(target, UpstreamError::new(ErrorKind::Timeout, error)));
            }
            Ok(Err(error)) => {
                let error =
                    UpstreamError::new(ErrorKind::Reset, format!("CONNECT failed: {error}"));
                return Err(self.failed(target, error));
            }
            Ok(Ok(status)) => status,
        };
        match status {
            407 => Err(self.refused(target)),
            200..=299 => Ok(tcp),
            _ => {
                let error = format!("it answered CONNECT with {status}");
                Err(self.failed(target, UpstreamError::new(ErrorKind::Connect, error)))
            }
        }
    }

    /// Sends `CONNECT target` and reads the answer's head; its status.
    async fn ask_connect(&self, tcp: &mut TcpStream, target: &str) -> io::Result<u16> {
        let mut head = format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n").into_bytes();
        if let Some(authorization) = &self.authorization {
            head.extend_from_slice(b"Proxy-Authorization: ");
            head.extend_from_slice(authorization.as_bytes());
            head.extend_from_slice(b"\r\n");
        }
        head.extend_from_slice(b"\r\n");
        tcp.write_all(&head).await?;
        let mut answer = Vec::with_capacity(256);
        let mut chunk = [0u8; 1024];
        loop {
            let n = tcp.read(&mut chunk).await?;
            if n == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the proxy closed the connection before answering",
                ));
            }
            answer.extend_from_slice(&chunk[..n]);
            if let Some(end) = answer.windows(4).position(|w| w == b"\r\n\r\n") {
                let line = String::from_utf8_lossy(&answer[..end]);
                let status = (line.split_whitespace().nth(1))
                    .and_then(|code| code.parse::<u16>().ok())
                    .ok_or_else(|| {
                        io::Error::new(io::ErrorKind::InvalidData, "the answer is not HTTP")
                    })?;
                if (200..300).contains(&status) && end + 4 < answer.len() {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        "the proxy sent bytes of its own into the tunnel",
                    ));
                }
                return Ok(status);
            }
            if answer.len() > MAX_ANSWER_HEAD {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the answer's head is over 64 KiB",
                ));
            }
        }
    }

    /// What the client gets when the proxy answered `407`: that status, and
    /// what to do about it.
    pub(crate) fn refused(&self, target: &str) -> UpstreamError {
        let advice = match &self.user {
            Some(user) => format!("it refused the credentials of {user}"),
            None => format!(
                "give it credentials: --upstream-proxy http://USER:PASSWORD@{}",
                self.authority
            ),
        };
        UpstreamError::new(
            ErrorKind::Connect,
            format!(
                "the upstream proxy {} answered 407 Proxy Authentication Required for {target}; \
                 {advice}",
                self.authority
            ),
        )
        .with_status(StatusCode::PROXY_AUTHENTICATION_REQUIRED)
    }

    /// An error on the way to `target` through the proxy, naming it.
    pub(crate) fn failed(&self, target: &str, error: UpstreamError) -> UpstreamError {
        UpstreamError::new(
            error.kind,
            format!(
                "through the upstream proxy {} to {target}: {}",
                self.authority, error.message
            ),
        )
    }
}

impl FromStr for UpstreamProxy {
    type Err = CaptureError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let bad = |reason: &str| CaptureError::UpstreamProxy {
            // Never the password, even in an error.
            value: mask(value),
            reason: reason.to_string(),
        };
        let rest = value
            .strip_prefix("http://")
            .ok_or_else(|| bad("the scheme is http:// (the proxy is spoken to in the clear)"))?;
        let rest = rest.trim_end_matches('/');
        if rest.contains(['/', '?', '#']) {
            return Err(bad("the proxy has no path"));
        }
        let (userinfo, hostport) = match rest.rsplit_once('@') {
            Some((userinfo, hostport)) => (Some(userinfo), hostport),
            None => (None, rest),
        };
        let authority: http::uri::Authority = hostport
            .parse()
            .map_err(|_| bad("HOST:PORT is not valid"))?;
        let port = authority
            .port_u16()
            .ok_or_else(|| bad("the port is missing"))?;
        let host = authority.host();
        if host.is_empty() {
            return Err(bad("the host is missing"));
        }
        let (user, authorization) = match userinfo {
            Some(userinfo) => {
                let (user, password) = userinfo.split_once(':').unwrap_or((userinfo, ""));
                let (user, password) = (
                    percent_decode(user).ok_or_else(|| bad("the user is not valid"))?,
                    percent_decode(password).ok_or_else(|| bad("the password is not valid"))?,
                );
                let token =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                let mut header = HeaderValue::from_str(&format!("Basic {token}"))
                    .map_err(|_| bad("the credentials are not valid"))?;
                header.set_sensitive(true);
                (Some(user), Some(header))
            }
            None => (None, None),
        };
        Ok(Self {
            authority: authority.as_str().to_ascii_lowercase(),
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_ascii_lowercase(),
            port,
            user,
            authorization,
            direct: Vec::new(),
        })
    }
}

impl std::fmt::Display for UpstreamProxy {
    /// The proxy's URL, its password masked.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.user {
            Some(user) => write!(f, "http://{user}:****@{}", self.authority),
            None => write!(f, "http://{}", self.authority),
        }
    }
}

impl std::fmt::Debug for UpstreamProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamProxy")
            .field("url", &self.to_string())
            .field("direct", &self.direct)
            .finish()
    }
}

/// `value` with whatever stands between `://` and `@` masked.
fn mask(value: &str) -> String {
    match (value.find("://"), value.rfind('@')) {
        (Some(start), Some(at)) if start + 3 < at => {
            format!("{}****{}", &value[..start + 3], &value[at..])
        }
        _ => value.to_string(),
    }
}

/// `%XX` escapes decoded (RFC 3986 userinfo), as UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut rest = text.as_bytes();
    while let Some((&byte, tail)) = rest.split_first() {
        if byte == b'%' {
            let hex = std::str::from_utf8(tail.get(..2)?).ok()?;
            bytes.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &tail[2..];
        } else {
            bytes.push(byte);
            rest = tail;
        }
    }
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proxy_url_reads_with_its_credentials_which_never_print() {
        let proxy: UpstreamProxy = "http://me:p%40ss%3Aword@Proxy.Corp:3128/".parse().unwrap();
        assert_eq!(proxy.host_port(), ("proxy.corp", 3128));
        assert_eq!(proxy.to_string(), "http://me:****@proxy.corp:3128");
        let header = proxy.authorization().unwrap();
        assert!(header.is_sensitive());
        let token = header.to_str().unwrap().strip_prefix("Basic ").unwrap();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(token)
            .unwrap();
        assert_eq!(decoded, b"me:p@ss:word");
        assert!(!format!("{proxy:?}").contains("word"));
        let v6: UpstreamProxy = "http://[::1]:8888".parse().unwrap();
        assert_eq!(v6.host_port(), ("::1", 8888));
        assert!(v6.authorization().is_none());
        for (bad, why) in [
            ("https://proxy.corp:3128", "scheme"),
            ("proxy.corp:3128", "scheme"),
            ("http://proxy.corp", "port"),
            ("http://proxy.corp:3128/path", "no path"),
            ("http://me:hunter2@proxy.corp", "port"),
        ] {
            let error = bad.parse::<UpstreamProxy>().unwrap_err().to_string();
            assert!(error.contains(why), "{bad}: {error}");
            assert!(!error.contains("hunter2"), "{error}");
            assert!(
                error.contains("http://[USER:PASSWORD@]HOST:PORT"),
                "{error}"
            );
        }
    }

    #[test]
    fn loopback_and_the_hosts_left_alone_are_reached_directly() {
        let proxy: UpstreamProxy = "http://proxy.corp:3128".parse().unwrap();
        let proxy = proxy.direct_to(["internal.corp", ".svc.local", "*.dev.test", " "]);
        for direct in [
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "::ffff:127.0.0.1",
            "localhost",
            "app.localhost",
            "internal.corp",
            "API.Internal.Corp",
            "svc.local",
            "a.svc.local",
            "x.dev.test",
        ] {
            assert!(!proxy.takes(direct), "{direct}");
        }
        for through in [
            "api.example.com",
            "notinternal.corp",
            "10.0.0.1",
            "dev.testing",
        ] {
            assert!(proxy.takes(through), "{through}");
        }
        let everything = proxy.clone().direct_to(["*"]);
        assert!(!everything.takes("api.example.com"));
    }
}
