//! One HAR entry (as a JSON value) to a [`Flow`].
//!
//! Tolerant of what real tools write: base64 bodies, missing `postData` or
//! `content.text`, numbers where strings belong, negative timings (`-1` = not
//! applicable), HTTP/2 pseudo-headers (a relative `url` is rebuilt from
//! `:scheme` and `:authority`), Chrome's `_error` and `_webSocketMessages`.
//! Strict about what makes a flow meaningless: a missing method or URL, a body
//! that claims base64 and is not. Errors name the field. What HAR 1.2 requires
//! but many exporters leave out (a start time, a response with a status) is
//! refused by a strict read and repaired by a lenient one ([`Leniency`]), which
//! names each repair as an [`EntryIssue`].

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use super::EntryIssue;
use super::UNTIMED;
use super::base64_body::base64_in_place;
use super::time::parse_iso8601;
use crate::{
    Body, Client, Direction, Error, ErrorKind, Flow, FlowError, FlowId, Headers, HttpVersion,
    Request, Response, Timestamp, Timings, WebSocketFrame, WebSocketLog, WsOpcode,
};

/// How much an entry is normalised on the way in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// A foreign HAR: fix relative URLs, rebuild form bodies from `params`,
    /// turn status 0 into "no response".
    Foreign,
    /// An `ar` archive line: take fields verbatim (`_ar` fills in the rest).
    Archive,
}

/// What a read does about an entry that lacks what HAR 1.2 requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Leniency {
    /// Refuses it, naming the field (a strict import, archive lines).
    Strict,
    /// Repairs it, since load-test tools and hand-written files leave out what
    /// browsers write: an entry without `startedDateTime` starts when the entry
    /// read before it did (`previous_start`), and one whose response has no
    /// status keeps its request side.
    Lenient {
        /// The start of the entry read before (the epoch for the first), so
        /// that a repaired time keeps the file's order and never reads a clock.
        previous_start: Timestamp,
    },
}

pub(crate) struct Ctx {
    pub(crate) index: usize,
}

impl Ctx {
    pub(crate) fn err(&self, field: impl Into<String>, problem: impl Into<String>) -> Error {
        Error::HarEntry {
            index: self.index,
            field: field.into(),
            problem: problem.into(),
        }
    }

    fn object<'a>(
        &self,
        value: Option<&'a Value>,
        field: &str,
    ) -> Result<&'a Map<String, Value>, Error> {
        match value {
            Some(Value::Object(map)) => Ok(map),
            None | Some(Value::Null) => Err(self.err(field, "missing")),
            Some(other) => {
                Err(self.err(field, format!("expected an object, found {}", kind(other))))
            }
        }
    }

    fn string<'a>(
        &self,
        map: &'a Map<String, Value>,
        key: &str,
        field: &str,
    ) -> Result<&'a str, Error> {
        match map.get(key) {
            Some(Value::String(s)) => Ok(s),
            None | Some(Value::Null) => Err(self.err(field, "missing")),
            Some(other) => {
                Err(self.err(field, format!("expected a string, found {}", kind(other))))
            }
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A string-ish field: strings as is, numbers and booleans printed, else `None`.
fn loose_str(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn number(value: Option<&Value>) -> Option<f64> {
    match value? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A timing: negative means "not applicable".
fn timing(map: Option<&Map<String, Value>>, key: &str) -> Option<f64> {
    let map = map?;
    number(map.get(key)).filter(|t| *t >= 0.0 && t.is_finite() && !untimed(Some(map), key))
}

/// Whether ar's own export named `key` as a value it wrote without having
/// timed it (see `export::keep_exact`).
fn untimed(timings: Option<&Map<String, Value>>, key: &str) -> bool {
    timings
        .and_then(|map| map.get(UNTIMED))
        .and_then(Value::as_array)
        .is_some_and(|names| names.iter().any(|name| name.as_str() == Some(key)))
}

/// Reads an entry strictly: what it lacks is an error. The body texts are
/// taken out of `entry` (decoded in their own buffers, not copied).
pub(crate) fn entry_to_flow(ctx: &Ctx, entry: &mut Value, flavor: Flavor) -> Result<Flow, Error> {
    read_entry(ctx, entry, flavor, Leniency::Strict).map(|(flow, _)| flow)
}

/// Reads an entry into a flow, with what was repaired or left out on the way.
/// The body texts are taken out of `entry`, so a body of hundreds of MB is
/// held once as text and decoded in place ([`body_text`]).
pub(crate) fn read_entry(
    ctx: &Ctx,
    entry: &mut Value,
    flavor: Flavor,
    leniency: Leniency,
) -> Result<(Flow, Vec<EntryIssue>), Error> {
    let request_text = take_text(entry, "request", "postData");
    let response_text = take_text(entry, "response", "content");
    let entry = ctx.object(Some(entry), "entry")?;
    let mut issues = Vec::new();
    let started = match (start_time(ctx, entry, leniency)?, leniency) {
        (Some(started), _) => started,
        (None, Leniency::Lenient { previous_start }) => {
            issues.push(EntryIssue::NoStartTime);
            previous_start
        }
        (None, Leniency::Strict) => return Err(ctx.err("startedDateTime", "missing")),
    };
    let request = parse_request(
        ctx,
        ctx.object(entry.get("request"), "request")?,
        flavor,
        request_text,
    )?;
    let mut flow = Flow::new(
        FlowId(ctx.index as u64 + 1),
        started,
        Client::Unknown,
        request,
    );
    let timings = entry.get("timings").and_then(Value::as_object);
    let time = number(entry.get("time"))
        .filter(|t| *t >= 0.0 && t.is_finite() && !untimed(timings, "time"));
    flow.ended = time.map(|ms| {
        Timestamp::from_unix_micros(
            started
                .unix_micros()
                .saturating_add((ms * 1000.0).round() as i64),
        )
    });
    flow.timings = Timings {
        blocked: timing(timings, "blocked"),
        dns: timing(timings, "dns"),
        connect: timing(timings, "connect"),
        ssl: timing(timings, "ssl"),
        send: timing(timings, "send"),
        wait: timing(timings, "wait"),
        receive: timing(timings, "receive"),
    };
    flow.server_addr = loose_str(entry.get("serverIPAddress")).filter(|s| !s.is_empty());
    read_outcome(
        ctx,
        entry.get("response"),
        (flavor, leniency),
        response_text,
        &mut flow,
    )?;
    if flow.response.is_none() {
        issues.push(EntryIssue::NoResponse);
    }
    if let Some(messages) = entry.get("_webSocketMessages").and_then(Value::as_array) {
        flow.websocket = Some(websocket(ctx, messages)?);
    }
    Ok((flow, issues))
}

/// `startedDateTime`; `None` when it is missing (absent, `null`, or, in a
/// lenient read, blank, as some generators write it).
fn start_time(
    ctx: &Ctx,
    entry: &Map<String, Value>,
    leniency: Leniency,
) -> Result<Option<Timestamp>, Error> {
    let text = match entry.get("startedDateTime") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(text))
            if text.trim().is_empty() && matches!(leniency, Leniency::Lenient { .. }) =>
        {
            return Ok(None);
        }
        Some(_) => ctx.string(entry, "startedDateTime", "startedDateTime")?,
    };
    parse_iso8601(text).map(Some).ok_or_else(|| {
        ctx.err(
            "startedDateTime",
            format!("not an ISO 8601 date-time: {text:?}"),
        )
    })
}

/// Sets the flow's response, or the error that stands for its absence: a
/// foreign entry may have none (a request still pending or failed when the
/// file was written: no `response`, `null`, or status 0), and a lenient read
/// takes a response without a status as none too.
fn read_outcome(
    ctx: &Ctx,
    value: Option<&Value>,
    (flavor, leniency): (Flavor, Leniency),
    text: Option<String>,
    flow: &mut Flow,
) -> Result<(), Error> {
    let missing = match value {
        None | Some(Value::Null) => flavor == Flavor::Foreign,
        Some(Value::Object(response)) => {
            matches!(leniency, Leniency::Lenient { .. })
                && matches!(response.get("status"), None | Some(Value::Null))
        }
        Some(_) => false,
    };
    if missing {
        flow.error = Some(FlowError {
            kind: ErrorKind::Other,
            message: "no response recorded".into(),
        });
        return Ok(());
    }
    let response = ctx.object(value, "response")?;
    let status = response.get("status");
    let status = match status.and_then(|s| number(Some(s))) {
        Some(s) if (0.0..=999.0).contains(&s) && s.fract() == 0.0 => s as u16,
        Some(_) | None if status.is_some() => {
            return Err(ctx.err(
                "response.status",
                format!(
                    "not a status code: {}",
                    status.map_or(String::new(), ToString::to_string)
                ),
            ));
        }
        _ => return Err(ctx.err("response.status", "missing")),
    };
    let error_text = loose_str(response.get("_error")).filter(|e| !e.is_empty());
    if status == 0 && flavor == Flavor::Foreign {
        let message = error_text.unwrap_or_else(|| "no response (status 0)".into());
        flow.error = Some(FlowError {
            kind: error_kind(&message),
            message,
        });
    } else {
        flow.response = Some(parse_response(ctx, response, status, text)?);
        if let Some(message) = error_text {
            flow.error = Some(FlowError {
                kind: error_kind(&message),
                message,
            });
        }
    }
    Ok(())
}

fn parse_request(
    ctx: &Ctx,
    map: &Map<String, Value>,
    flavor: Flavor,
    text: Option<String>,
) -> Result<Request, Error> {
    let method = ctx.string(map, "method", "request.method")?;
    if method.is_empty() && flavor == Flavor::Foreign {
        return Err(ctx.err("request.method", "empty"));
    }
    let mut url = ctx.string(map, "url", "request.url")?.to_string();
    let version = HttpVersion::parse(loose_str(map.get("httpVersion")).as_deref().unwrap_or(""));
    let headers = headers(ctx, map.get("headers"), "request.headers")?;
    if flavor == Flavor::Foreign && !url.contains("://") {
        let authority = headers.get(":authority").or_else(|| headers.get("host"));
        let Some(authority) = authority else {
            return Err(ctx.err(
                "request.url",
                format!("not absolute and no :authority or Host header: {url:?}"),
            ));
        };
        let scheme = headers.get(":scheme").unwrap_or("https");
        let path = if url.is_empty() {
            headers.get(":path").unwrap_or("/").to_string()
        } else {
            url.clone()
        };
        url = format!(
            "{scheme}://{authority}{}{path}",
            if path.starts_with('/') { "" } else { "/" }
        );
    }
    let mut request = Request {
        method: method.to_string(),
        url,
        http_version: version,
        headers,
        body: Body::empty(),
    };
    let content_type_header = request.headers.get("content-type").map(str::to_string);
    if let Some(post) = map.get("postData").filter(|v| !v.is_null()) {
        let post = ctx.object(Some(post), "request.postData")?;
        let mime = loose_str(post.get("mimeType"))
            .filter(|m| !m.is_empty())
            .or(content_type_header);
        let mut bytes = body_bytes(ctx, post, text, "request.postData")?;
        if bytes.is_none() && flavor == Flavor::Foreign {
            bytes = form_from_params(post.get("params"));
        }
        let bytes = bytes.unwrap_or_default();
        request.body = Body {
            size: bytes.len() as u64,
            bytes,
            content_type: mime,
            ..Body::default()
        };
    }
    request.body.encoding = request.headers.get("content-encoding").map(str::to_string);
    if let Some(size) = number(map.get("bodySize")).filter(|s| *s >= 0.0) {
        request.body.wire_size = Some(size as u64);
    }
    Ok(request)
}

fn parse_response(
    ctx: &Ctx,
    map: &Map<String, Value>,
    status: u16,
    text: Option<String>,
) -> Result<Response, Error> {
    let mut response = Response::new(
        status,
        HttpVersion::parse(loose_str(map.get("httpVersion")).as_deref().unwrap_or("")),
    );
    response.reason = loose_str(map.get("statusText")).unwrap_or_default();
    response.headers = headers(ctx, map.get("headers"), "response.headers")?;
    let header_type = response.headers.get("content-type").map(str::to_string);
    if let Some(content) = map.get("content").filter(|v| !v.is_null()) {
        let content = ctx.object(Some(content), "response.content")?;
        let text = body_bytes(ctx, content, text, "response.content")?;
        let declared = number(content.get("size"))
            .filter(|s| *s >= 0.0)
            .map(|s| s as u64);
        let mime = loose_str(content.get("mimeType"))
            .filter(|m| !m.is_empty() && m != "x-unknown")
            .or(header_type);
        let missing = text.is_none();
        let bytes = text.unwrap_or_default();
        let size = declared.unwrap_or(0).max(bytes.len() as u64);
        response.body = Body {
            truncated: missing && size > 0,
            size,
            bytes,
            content_type: mime,
            ..Body::default()
        };
    } else {
        response.body.content_type = header_type;
    }
    response.body.encoding = response.headers.get("content-encoding").map(str::to_string);
    if let Some(size) = number(map.get("bodySize")).filter(|s| *s >= 0.0) {
        response.body.wire_size = Some(size as u64);
    }
    Ok(response)
}

fn headers(ctx: &Ctx, value: Option<&Value>, field: &str) -> Result<Headers, Error> {
    let mut headers = Headers::new();
    let items = match value {
        None | Some(Value::Null) => return Ok(headers),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(ctx.err(field, format!("expected an array, found {}", kind(other))));
        }
    };
    for (i, item) in items.iter().enumerate() {
        let at = format!("{field}[{i}]");
        let item = ctx.object(Some(item), &at)?;
        let name = ctx.string(item, "name", &format!("{at}.name"))?;
        headers.push(name, loose_str(item.get("value")).unwrap_or_default());
    }
    Ok(headers)
}

/// Takes `entry[side][part].text` out of the entry when it is a string, so
/// its buffer becomes the body's ([`body_bytes`]) instead of being copied.
fn take_text(entry: &mut Value, side: &str, part: &str) -> Option<String> {
    let holder = entry.get_mut(side)?.get_mut(part)?.as_object_mut()?;
    match holder.get("text") {
        Some(Value::String(_)) => match holder.remove("text") {
            Some(Value::String(text)) => Some(text),
            _ => None,
        },
        _ => None,
    }
}

/// The body from `text` (taken out of `map` by [`take_text`]) decoded per
/// `map.encoding`, or `None` when there is no text; a `text` left in `map`
/// is not a string, an error.
fn body_bytes(
    ctx: &Ctx,
    map: &Map<String, Value>,
    text: Option<String>,
    field: &str,
) -> Result<Option<Vec<u8>>, Error> {
    let Some(text) = text else {
        return match map.get("text").filter(|t| !t.is_null()) {
            None => Ok(None),
            Some(other) => Err(ctx.err(
                format!("{field}.text"),
                format!("expected a string, found {}", kind(other)),
            )),
        };
    };
    let encoding = loose_str(map.get("encoding")).unwrap_or_default();
    if encoding.eq_ignore_ascii_case("base64") {
        let bytes = base64_in_place(text.into_bytes())
            .map_err(|e| ctx.err(format!("{field}.text"), format!("invalid base64: {e}")))?;
        return Ok(Some(bytes));
    }
    Ok(Some(text.into_bytes()))
}

/// `application/x-www-form-urlencoded` text rebuilt from `postData.params`.
fn form_from_params(params: Option<&Value>) -> Option<Vec<u8>> {
    let params = params?.as_array().filter(|p| !p.is_empty())?;
    let encode = |s: &str| -> String {
        s.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'*' => {
                    (b as char).to_string()
                }
                b' ' => "+".to_string(),
                _ => format!("%{b:02X}"),
            })
            .collect()
    };
    let pairs: Vec<String> = params
        .iter()
        .filter_map(|p| {
            let name = loose_str(p.get("name"))?;
            Some(format!(
                "{}={}",
                encode(&name),
                encode(&loose_str(p.get("value")).unwrap_or_default())
            ))
        })
        .collect();
    Some(pairs.join("&").into_bytes())
}

fn websocket(ctx: &Ctx, messages: &[Value]) -> Result<WebSocketLog, Error> {
    let mut log = WebSocketLog::default();
    for (i, m) in messages.iter().enumerate() {
        let at = format!("_webSocketMessages[{i}]");
        let m = ctx.object(Some(m), &at)?;
        let direction = match loose_str(m.get("type")).as_deref() {
            Some("send") => Direction::ClientToServer,
            Some("receive") => Direction::ServerToClient,
            other => {
                return Err(ctx.err(
                    format!("{at}.type"),
                    format!("expected \"send\" or \"receive\", found {other:?}"),
                ));
            }
        };
        let opcode = match number(m.get("opcode")).map(|o| o as u8) {
            Some(0) => WsOpcode::Continuation,
            Some(2) => WsOpcode::Binary,
            Some(8) => WsOpcode::Close,
            Some(9) => WsOpcode::Ping,
            Some(10) => WsOpcode::Pong,
            _ => WsOpcode::Text,
        };
        let data = loose_str(m.get("data")).unwrap_or_default();
        let payload = match opcode {
            WsOpcode::Binary => STANDARD
                .decode(data.as_bytes())
                .unwrap_or_else(|_| data.into_bytes()),
            _ => data.into_bytes(),
        };
        let at = number(m.get("time")).map_or(0, |s| (s * 1_000_000.0).round() as i64);
        log.frames.push(WebSocketFrame {
            direction,
            at: Timestamp::from_unix_micros(at),
            opcode,
            payload,
            truncated: false,
        });
    }
    Ok(log)
}

/// Maps browser error strings (`net::ERR_NAME_NOT_RESOLVED`, ...) to a kind.
fn error_kind(message: &str) -> ErrorKind {
    let m = message.to_ascii_uppercase();
    if m.contains("NAME_NOT_RESOLVED") || m.contains("DNS") {
        ErrorKind::Dns
    } else if m.contains("CERT") || m.contains("SSL") || m.contains("TLS") {
        ErrorKind::Tls
    } else if m.contains("TIMED_OUT") || m.contains("TIMEOUT") {
        ErrorKind::Timeout
    } else if m.contains("CONNECTION_REFUSED")
        || m.contains("ADDRESS_UNREACHABLE")
        || m.contains("CONNECTION_FAILED")
    {
        ErrorKind::Connect
    } else if m.contains("RESET") || m.contains("CONNECTION_CLOSED") || m.contains("EMPTY_RESPONSE")
    {
        ErrorKind::Reset
    } else if m.contains("ABORTED") || m.contains("CANCELED") || m.contains("CANCELLED") {
        ErrorKind::ClientAborted
    } else if m.contains("BLOCKED") {
        ErrorKind::Refused
    } else {
        ErrorKind::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn import(mut entry: Value) -> Result<Flow, Error> {
        entry_to_flow(&Ctx { index: 3 }, &mut entry, Flavor::Foreign)
    }

    const PREVIOUS: Timestamp = Timestamp::from_unix_micros(1_700_000_000_000_000);

    fn lenient(mut entry: Value) -> Result<(Flow, Vec<EntryIssue>), Error> {
        let leniency = Leniency::Lenient {
            previous_start: PREVIOUS,
        };
        read_entry(&Ctx { index: 3 }, &mut entry, Flavor::Foreign, leniency)
    }

    #[test]
    fn a_lenient_read_dates_an_undated_entry_like_the_one_before() {
        let request = json!({"method": "GET", "url": "https://x.test/a"});
        let response = json!({"status": 200});
        for time in [None, Some(Value::Null), Some(json!("")), Some(json!("  "))] {
            let mut entry = json!({"request": request, "response": response, "time": 5});
            if let Some(time) = time {
                entry["startedDateTime"] = time;
            }
            let (flow, issues) = lenient(entry.clone()).unwrap();
            assert_eq!(flow.started, PREVIOUS, "{entry}");
            assert_eq!(flow.ended.unwrap().millis_since(PREVIOUS), 5.0);
            assert_eq!(issues, [EntryIssue::NoStartTime], "{entry}");
        }
        let undated = json!({"request": request, "response": response});
        assert_eq!(
            import(undated).unwrap_err().to_string(),
            "entry 3: startedDateTime: missing"
        );
        let unreadable =
            json!({"startedDateTime": "noon", "request": request, "response": response});
        let e = lenient(unreadable).unwrap_err().to_string();
        assert!(
            e.starts_with("entry 3: startedDateTime: not an ISO 8601"),
            "a time written wrong is no time left out: {e}"
        );
    }

    #[test]
    fn an_entry_without_a_response_keeps_its_request_side() {
        let entry = |response: Option<Value>| {
            let mut entry = json!({"startedDateTime": "2024-01-01T00:00:00Z",
                "request": {"method": "POST", "url": "https://x.test/login",
                    "postData": {"mimeType": "application/json", "text": "{}"}}});
            if let Some(response) = response {
                entry["response"] = response;
            }
            entry
        };
        for response in [
            None,
            Some(Value::Null),
            Some(json!({})),
            Some(json!({"status": null, "content": {"size": 0}})),
            Some(json!({"status": 0})),
        ] {
            let (flow, issues) = lenient(entry(response.clone())).unwrap();
            assert!(flow.response.is_none(), "{response:?}");
            assert_eq!(flow.request.body.bytes, b"{}");
            assert_eq!(issues, [EntryIssue::NoResponse], "{response:?}");
        }
        assert!(import(entry(None)).unwrap().response.is_none());
        assert_eq!(
            import(entry(Some(json!({})))).unwrap_err().to_string(),
            "entry 3: response.status: missing",
            "strict: a response without a status is refused"
        );
    }

    #[test]
    fn what_other_exporters_leave_out_takes_defaults() {
        let (flow, issues) = lenient(json!({
            "index": 0, "checks": [], "variables": {"x": 1},
            "startedDateTime": "2024-01-01T00:00:00Z", "cache": {},
            "request": {"method": "GET", "url": "https://x.test/a", "comment": ""},
            "response": {"status": 204, "httpVersion": "HTTP/1.1 (fiddler)"},
            "timings": {"wait": 3}
        }))
        .unwrap();
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(flow.request.http_version, HttpVersion::Http11);
        assert!(flow.request.headers.is_empty() && flow.request.body.bytes.is_empty());
        let response = flow.response.unwrap();
        assert_eq!(response.status, 204);
        assert_eq!(
            response.http_version,
            HttpVersion::Other("HTTP/1.1 (fiddler)".into())
        );
        assert!(response.body.bytes.is_empty() && !response.body.truncated);
        assert_eq!((flow.timings.wait, flow.timings.send), (Some(3.0), None));
        assert_eq!(flow.ended, None);
    }

    #[test]
    fn errors_name_entry_and_field() {
        let e = import(json!({"startedDateTime": "2024-01-01T00:00:00Z", "request": {"method": "GET"}, "response": {"status": 200}})).unwrap_err();
        assert_eq!(e.to_string(), "entry 3: request.url: missing");
        let e = import(json!({"startedDateTime": "2024-01-01T00:00:00Z", "request": {"method": "GET", "url": "https://x.test/", "headers": [{"value": "1"}]}, "response": {"status": 200}})).unwrap_err();
        assert_eq!(e.to_string(), "entry 3: request.headers[0].name: missing");
        let e = import(json!({"startedDateTime": "2024-01-01T00:00:00Z", "request": {"method": "GET", "url": "https://x.test/"}, "response": {"status": "abc"}})).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("entry 3: response.status: not a status code"),
            "{e}"
        );
        let e = import(json!({"startedDateTime": "noon", "request": {}})).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("entry 3: startedDateTime: not an ISO 8601"),
            "{e}"
        );
    }

    #[test]
    fn quirks_are_accepted() {
        let flow = import(json!({
            "startedDateTime": "2024-01-01T00:00:00.000+00:00", "time": 12.5,
            "request": {"method": "POST", "url": "/api/login", "httpVersion": "h2",
                "headers": [{"name": ":authority", "value": "shop.test"}, {"name": ":scheme", "value": "https"}],
                "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "user", "value": "ann b"}]}},
            "response": {"status": 200, "httpVersion": "http/2.0", "headers": [],
                "content": {"size": 3, "mimeType": "application/octet-stream", "text": "AP8B", "encoding": "base64"}},
            "timings": {"blocked": -1, "dns": -1, "send": 0.1, "wait": 10, "receive": 2.4}
        }))
        .unwrap();
        assert_eq!(flow.request.url, "https://shop.test/api/login");
        assert_eq!(flow.request.body.bytes, b"user=ann+b");
        assert_eq!(flow.request.http_version, HttpVersion::Http2);
        let response = flow.response.unwrap();
        assert_eq!(response.body.bytes, [0, 255, 1]);
        assert_eq!((flow.timings.dns, flow.timings.wait), (None, Some(10.0)));
        assert_eq!(
            flow.ended.unwrap().unix_micros() - flow.started.unix_micros(),
            12_500
        );
    }

    #[test]
    fn failed_requests_become_errors() {
        let flow = import(json!({"startedDateTime": "2024-01-01T00:00:00Z", "request": {"method": "GET", "url": "https://gone.test/"},
            "response": {"status": 0, "_error": "net::ERR_NAME_NOT_RESOLVED", "content": {"size": 0}}})).unwrap();
        assert!(flow.response.is_none());
        assert_eq!(flow.error.unwrap().kind, ErrorKind::Dns);
        let flow = import(json!({"startedDateTime": "2024-01-01T00:00:00Z", "request": {"method": "GET", "url": "https://x.test/"},
            "response": {"status": 200, "content": {"size": 5000, "mimeType": "text/html"}}})).unwrap();
        let body = flow.response.unwrap().body;
        assert!(body.truncated && body.bytes.is_empty() && body.size == 5000);
    }
}
