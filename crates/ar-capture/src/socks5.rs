//! SOCKS5 (RFC 1928) on the proxy's own port, beside HTTP proxy requests:
//! the listener tells a SOCKS5 client by its first byte (`05`, which no
//! HTTP request starts with). The handshake is small and read here; what
//! follows a `CONNECT` is [`connect::tunnel`], the same as after an HTTP
//! `CONNECT`: TLS intercepted with the proxy's CA, plain HTTP served,
//! anything else relayed and recorded.
//!
//! Only `CONNECT` is served; `BIND` and `UDP ASSOCIATE` are answered "command
//! not supported". With [`Socks5::Login`] the client must log in with that user
//! name and password (RFC 1929); the credentials are compared here and
//! never recorded or printed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;

use ar_flow::{Body, ErrorKind};
use bytes::{Buf as _, BytesMut};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::CaptureError;
use crate::connect::{self, Dialed};
use crate::forward::Started;
use crate::proxy::Shared;
use crate::relay::Rewind;
use crate::upstream::UpstreamError;

/// The first byte of every SOCKS5 message from a client.
pub(crate) const VERSION: u8 = 0x05;

/// Authentication methods (RFC 1928 §3).
const NO_AUTH: u8 = 0x00;
const USER_PASSWORD: u8 = 0x02;
const NO_ACCEPTABLE_METHOD: u8 = 0xff;
/// The version of the user name/password subnegotiation (RFC 1929).
const AUTH_VERSION: u8 = 0x01;

/// The longest handshake message (a request naming a 255-byte host).
const MAX_MESSAGE: usize = 1024;

/// Who may use SOCKS5 on the proxy's port ([`ProxyBuilder::socks5`](crate::ProxyBuilder::socks5)).
#[derive(Debug, Clone)]
pub enum Socks5 {
    /// Any client (no authentication; credentials a client offers anyway are not checked).
    Open,
    /// Clients that log in with this user name and password (RFC 1929).
    Login(Socks5Auth),
}

/// The user name and password SOCKS5 clients must log in with (RFC 1929),
/// `USER:PASSWORD`; it prints the password masked.
///
/// ```
/// let auth: ar_capture::Socks5Auth = "me:s3cret".parse()?;
/// assert_eq!(auth.to_string(), "me:****");
/// assert!(!format!("{auth:?}").contains("s3cret"));
/// # Ok::<(), ar_capture::CaptureError>(())
/// ```
#[derive(Clone)]
pub struct Socks5Auth {
    user: String,
    password: Vec<u8>,
}

impl Socks5Auth {
    /// The user name (not a secret).
    pub fn user(&self) -> &str {
        &self.user
    }

    /// Whether `login` has this user name and password, compared in time that does
    /// not depend on where they differ.
    fn admits(&self, login: &Login<'_>) -> bool {
        let same = |a: &[u8], b: &[u8]| {
            a.len() == b.len() && a.iter().zip(b).fold(0, |acc, (x, y)| acc | (x ^ y)) == 0
        };
        // Both compared, whatever the first says.
        let user_ok = same(self.user.as_bytes(), login.user);
        let password_ok = same(&self.password, login.password);
        user_ok & password_ok
    }
}

impl FromStr for Socks5Auth {
    type Err = CaptureError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        let bad = |reason: &str| CaptureError::Socks5Auth {
            reason: reason.to_string(),
        };
        let (user, password) = value
            .split_once(':')
            .ok_or_else(|| bad("expected USER:PASSWORD"))?;
        for (what, part) in [("user name", user), ("password", password)] {
            if part.is_empty() || part.len() > 255 {
                return Err(bad(&format!("the {what} must be 1 to 255 bytes")));
            }
        }
        Ok(Self {
            user: user.to_string(),
            password: password.as_bytes().to_vec(),
        })
    }
}

impl std::fmt::Display for Socks5Auth {
    /// `USER:****`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:****", self.user)
    }
}

impl std::fmt::Debug for Socks5Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Socks5Auth")
            .field(&self.to_string())
            .finish()
    }
}

/// A reply code (RFC 1928 §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reply {
    Succeeded = 0x00,
    GeneralFailure = 0x01,
    NotAllowed = 0x02,
    HostUnreachable = 0x04,
    ConnectionRefused = 0x05,
    CommandNotSupported = 0x07,
    AddressTypeNotSupported = 0x08,
}

impl Reply {
    /// The reply to a `CONNECT` whose target could not be reached.
    fn for_error(error: &UpstreamError) -> Self {
        match error.kind {
            // Offline and not mapped, this proxy itself, or an upstream proxy's 407.
            ErrorKind::Refused => Self::NotAllowed,
            _ if error.status == http::StatusCode::PROXY_AUTHENTICATION_REQUIRED => {
                Self::NotAllowed
            }
            ErrorKind::Dns | ErrorKind::Timeout => Self::HostUnreachable,
            ErrorKind::Connect => Self::ConnectionRefused,
            _ => Self::GeneralFailure,
        }
    }
}

/// A message parsed from the bytes so far: `None` while more must come,
/// else the value and how many bytes it took.
type Parsed<T> = Option<(T, usize)>;

/// The client's greeting: the method the proxy picks from those offered
/// (no authentication, or user name and password when `auth` is asked;
/// a client offering only the latter to a proxy that asks none is let in).
fn greeting(buf: &[u8], auth: bool) -> Parsed<u8> {
    let (&count, methods) = buf.get(1..)?.split_first()?;
    let methods = methods.get(..usize::from(count))?;
    let method = if auth {
        methods.contains(&USER_PASSWORD).then_some(USER_PASSWORD)
    } else if methods.contains(&NO_AUTH) {
        Some(NO_AUTH)
    } else {
        methods.contains(&USER_PASSWORD).then_some(USER_PASSWORD)
    };
    Some((method.unwrap_or(NO_ACCEPTABLE_METHOD), 2 + methods.len()))
}

/// A user name and password a client sent (RFC 1929 §2).
#[derive(Debug, PartialEq, Eq)]
struct Login<'a> {
    user: &'a [u8],
    password: &'a [u8],
}

/// A login message of another version than RFC 1929's.
#[derive(Debug, PartialEq, Eq)]
struct NotRfc1929;

/// A user name and password, borrowed from `buf`.
fn credentials(buf: &[u8]) -> Result<Parsed<Login<'_>>, NotRfc1929> {
    let Some(&version) = buf.first() else {
        return Ok(None);
    };
    if version != AUTH_VERSION {
        return Err(NotRfc1929);
    }
    let Some((user, rest)) = length_prefixed(&buf[1..]) else {
        return Ok(None);
    };
    let Some((password, _)) = length_prefixed(rest) else {
        return Ok(None);
    };
    let len = 3 + user.len() + password.len();
    Ok(Some((Login { user, password }, len)))
}

/// A byte count, that many bytes, and what follows them.
fn length_prefixed(buf: &[u8]) -> Option<(&[u8], &[u8])> {
    let (&len, rest) = buf.split_first()?;
    let len = usize::from(len);
    Some((rest.get(..len)?, rest.get(len..)?))
}

/// Where a `CONNECT` goes: a host name or an address (no brackets), and a port.
#[derive(Debug, PartialEq, Eq)]
struct Destination {
    host: String,
    port: u16,
}

/// The client's request (RFC 1928 §4): a `CONNECT` and where to, or the
/// reply that refuses it.
fn request(buf: &[u8]) -> Result<Parsed<Destination>, Reply> {
    let Some(&[version, command, _reserved, address_type]) = buf.first_chunk::<4>() else {
        return Ok(None);
    };
    if version != VERSION {
        return Err(Reply::GeneralFailure);
    }
    if command != 0x01 {
        // BIND (0x02) and UDP ASSOCIATE (0x03).
        return Err(Reply::CommandNotSupported);
    }
    let rest = &buf[4..];
    let (host, len) = match address_type {
        0x01 => match rest.first_chunk::<4>() {
            Some(octets) => (Ipv4Addr::from(*octets).to_string(), 4),
            None => return Ok(None),
        },
        0x04 => match rest.first_chunk::<16>() {
            Some(octets) => (Ipv6Addr::from(*octets).to_string(), 16),
            None => return Ok(None),
        },
        0x03 => match length_prefixed(rest) {
            Some((name, _)) => {
                let name = std::str::from_utf8(name).map_err(|_| Reply::GeneralFailure)?;
                if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == '/') {
                    return Err(Reply::GeneralFailure);
                }
                (name.to_string(), 1 + name.len())
            }
            None => return Ok(None),
        },
        _ => return Err(Reply::AddressTypeNotSupported),
    };
    let Some(port) = rest[len..].first_chunk::<2>() else {
        return Ok(None);
    };
    let destination = Destination {
        host,
        port: u16::from_be_bytes(*port),
    };
    Ok(Some((destination, 4 + len + 2)))
}

/// A reply with its bound address (`0.0.0.0:0` when none).
fn reply_bytes(reply: Reply, bound: SocketAddr) -> Vec<u8> {
    let mut bytes = vec![VERSION, reply as u8, 0x00];
    match bound.ip() {
        IpAddr::V4(ip) => {
            bytes.push(0x01);
            bytes.extend_from_slice(&ip.octets());
        }
        IpAddr::V6(ip) => {
            bytes.push(0x04);
            bytes.extend_from_slice(&ip.octets());
        }
    }
    bytes.extend_from_slice(&bound.port().to_be_bytes());
    bytes
}

const UNBOUND: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), 0);

/// A client's connection during the handshake: the bytes read and not yet
/// taken (the listener's first ones among them).
struct Handshake {
    tcp: TcpStream,
    buf: BytesMut,
}

impl Handshake {
    /// Reads until `parse` finds a whole message, and takes its bytes.
    async fn next<T, E>(
        &mut self,
        parse: impl Fn(&[u8]) -> Result<Parsed<T>, E>,
    ) -> std::io::Result<Result<T, E>> {
        loop {
            match parse(&self.buf) {
                Ok(Some((value, len))) => {
                    self.buf.advance(len);
                    return Ok(Ok(value));
                }
                Err(error) => return Ok(Err(error)),
                Ok(None) if self.buf.len() >= MAX_MESSAGE => {
                    return Err(std::io::ErrorKind::InvalidData.into());
                }
                Ok(None) => {
                    if self.tcp.read_buf(&mut self.buf).await? == 0 {
                        return Err(std::io::ErrorKind::UnexpectedEof.into());
                    }
                }
            }
        }
    }

    async fn send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.tcp.write_all(bytes).await
    }
}

/// Serves a SOCKS5 client whose first bytes (`first`) the listener read.
pub(crate) async fn serve(shared: Arc<Shared>, first: bytes::Bytes, tcp: TcpStream) {
    let mut handshake = Handshake {
        tcp,
        buf: BytesMut::from(&first[..]),
    };
    let deadline = shared.opts.handshake_timeout;
    let asked = match tokio::time::timeout(deadline, negotiate(&shared, &mut handshake)).await {
        Ok(Ok(Some(destination))) => destination,
        Ok(Ok(None)) => return,
        Ok(Err(error)) => {
            tracing::debug!(%error, "SOCKS5 handshake failed");
            return;
        }
        Err(_) => {
            tracing::debug!("SOCKS5 handshake did not finish in {deadline:?}");
            return;
        }
    };
    let started = Started::tunnel(&shared, &asked.host, asked.port);
    let dialed = match Dialed::dial(&shared, asked.host, asked.port).await {
        Ok(dialed) => dialed,
        Err(error) => {
            let reply = reply_bytes(Reply::for_error(&error), UNBOUND);
            let _ = handshake.send(&reply).await;
            started.record_error(&shared, Body::empty(), error.kind, error.message);
            return;
        }
    };
    let bound = dialed.local_addr().unwrap_or(UNBOUND);
    if let Err(error) = handshake.send(&reply_bytes(Reply::Succeeded, bound)).await {
        tracing::debug!(%error, "SOCKS5 client left before the reply");
        return;
    }
    let Handshake { tcp, buf } = handshake;
    connect::tunnel(shared, Rewind::new(buf.freeze(), tcp), dialed, started).await;
}

/// The handshake up to the request: the method, the login when asked,
/// the request. `None` when the client was refused (and told why).
async fn negotiate(
    shared: &Shared,
    handshake: &mut Handshake,
) -> std::io::Result<Option<Destination>> {
    let auth = match &shared.socks5 {
        Some(Socks5::Login(auth)) => Some(auth),
        _ => None,
    };
    let method = handshake
        .next(|buf| Ok::<_, ()>(greeting(buf, auth.is_some())))
        .await?
        .unwrap_or(NO_ACCEPTABLE_METHOD);
    handshake.send(&[VERSION, method]).await?;
    match method {
        NO_ACCEPTABLE_METHOD => return Ok(None),
        USER_PASSWORD => {
            let admitted = handshake
                .next(|buf| {
                    credentials(buf).map(|parsed| {
                        parsed.map(|(login, len)| {
                            let admitted = auth.is_none_or(|auth| auth.admits(&login));
                            (admitted, len)
                        })
                    })
                })
                .await?
                .unwrap_or(false);
            handshake
                .send(&[AUTH_VERSION, if admitted { 0x00 } else { 0x01 }])
                .await?;
            if !admitted {
                tracing::debug!("a SOCKS5 client gave the wrong user name or password");
                return Ok(None);
            }
        }
        _ => {}
    }
    match handshake.next(request).await? {
        Ok(destination) => Ok(Some(destination)),
        Err(refusal) => {
            handshake.send(&reply_bytes(refusal, UNBOUND)).await?;
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_greeting_picks_a_method_the_client_offers() {
        assert_eq!(greeting(&[5, 1, 0], false), Some((NO_AUTH, 3)));
        assert_eq!(greeting(&[5, 2, 0, 2], true), Some((USER_PASSWORD, 4)));
        assert_eq!(greeting(&[5, 1, 0], true), Some((NO_ACCEPTABLE_METHOD, 3)));
        // Credentials offered to a proxy that asks none are taken, whatever they are.
        assert_eq!(greeting(&[5, 1, 2], false), Some((USER_PASSWORD, 3)));
        assert_eq!(greeting(&[5, 1, 1], false), Some((NO_ACCEPTABLE_METHOD, 3)));
        // Bytes still to come, and what follows the greeting left alone.
        assert_eq!(greeting(&[5], false), None);
        assert_eq!(greeting(&[5, 2, 0], false), None);
        assert_eq!(greeting(&[5, 1, 0, 5, 1], false), Some((NO_AUTH, 3)));
    }

    #[test]
    fn credentials_are_read_whole_or_not_at_all() {
        let login = [1, 2, b'm', b'e', 3, b'p', b'w', b'd', 5];
        let me = Login {
            user: b"me",
            password: b"pwd",
        };
        assert_eq!(credentials(&login), Ok(Some((me, 8))));
        for end in 0..8 {
            assert_eq!(credentials(&login[..end]), Ok(None), "{end} bytes");
        }
        assert_eq!(credentials(&[5, 2, b'm', b'e']), Err(NotRfc1929));
    }

    #[test]
    fn requests_name_their_destination_in_each_address_type() {
        let domain = [&[5, 1, 0, 3, 9][..], b"shop.test", &[0x01, 0xbb]].concat();
        let v4 = [5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90];
        let v6 = [&[5, 1, 0, 4][..], &Ipv6Addr::LOCALHOST.octets(), &[0, 80]].concat();
        let destination = |host: &str, port| Destination {
            host: host.into(),
            port,
        };
        assert_eq!(
            request(&domain),
            Ok(Some((destination("shop.test", 443), 16)))
        );
        assert_eq!(request(&v4), Ok(Some((destination("127.0.0.1", 8080), 10))));
        assert_eq!(request(&v6), Ok(Some((destination("::1", 80), 22))));
        for message in [&domain[..], &v4, &v6] {
            for end in 0..message.len() {
                assert_eq!(request(&message[..end]), Ok(None), "{end} bytes");
            }
        }
    }

    #[test]
    fn requests_other_than_connect_are_refused_with_their_reply() {
        let udp_associate = [5, 3, 0, 1, 0, 0, 0, 0, 0, 0];
        assert_eq!(request(&udp_associate), Err(Reply::CommandNotSupported));
        assert_eq!(request(&[5, 2, 0, 1]), Err(Reply::CommandNotSupported));
        assert_eq!(request(&[5, 1, 0, 9]), Err(Reply::AddressTypeNotSupported));
        assert_eq!(request(&[4, 1, 0, 1]), Err(Reply::GeneralFailure));
        assert_eq!(request(&[5, 1, 0, 3, 0, 0, 80]), Err(Reply::GeneralFailure));
        assert_eq!(
            request(&[5, 1, 0, 3, 3, b'a', b'/', b'b', 0, 80]),
            Err(Reply::GeneralFailure)
        );
    }

    #[test]
    fn replies_carry_the_bound_address() {
        assert_eq!(
            reply_bytes(Reply::Succeeded, "127.0.0.1:4321".parse().unwrap()),
            [5, 0, 0, 1, 127, 0, 0, 1, 0x10, 0xe1]
        );
        let v6 = reply_bytes(Reply::HostUnreachable, "[::1]:80".parse().unwrap());
        assert_eq!(&v6[..4], [5, 4, 0, 4]);
        assert_eq!(v6.len(), 4 + 16 + 2);
        assert_eq!(
            reply_bytes(Reply::CommandNotSupported, UNBOUND),
            [5, 7, 0, 1, 0, 0, 0, 0, 0, 0]
        );
    }

    #[test]
    fn unreachable_targets_get_the_reply_that_says_why() {
        let reply = |kind| Reply::for_error(&UpstreamError::new(kind, "x"));
        assert_eq!(reply(ErrorKind::Dns), Reply::HostUnreachable);
        assert_eq!(reply(ErrorKind::Timeout), Reply::HostUnreachable);
        assert_eq!(reply(ErrorKind::Connect), Reply::ConnectionRefused);
        assert_eq!(reply(ErrorKind::Refused), Reply::NotAllowed);
        assert_eq!(reply(ErrorKind::Reset), Reply::GeneralFailure);
        let refused = UpstreamError::new(ErrorKind::Connect, "407")
            .with_status(http::StatusCode::PROXY_AUTHENTICATION_REQUIRED);
        assert_eq!(Reply::for_error(&refused), Reply::NotAllowed);
    }

    #[test]
    fn logins_are_checked_and_never_printed() {
        let auth: Socks5Auth = "me:s3cret".parse().unwrap();
        let login = |user, password| Login { user, password };
        assert!(auth.admits(&login(b"me", b"s3cret")));
        assert!(!auth.admits(&login(b"me", b"s3cre")));
        assert!(!auth.admits(&login(b"you", b"s3cret")));
        assert_eq!(
            format!("{auth} {auth:?}"),
            "me:**** Socks5Auth(\"me:****\")"
        );
        let long = format!("me:{}", "s3cret".repeat(50));
        for bad in ["me", "me:", ":s3cret", &long] {
            let error = bad.parse::<Socks5Auth>().unwrap_err().to_string();
            assert!(!error.contains("s3cret"), "{error}");
        }
    }
}
