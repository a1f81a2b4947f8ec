//! A [`Flow`] to a HAR 1.2 entry.
//!
//! Bodies that are valid UTF-8 are written as `text`; others as base64 with
//! `"encoding": "base64"` (for request bodies too, as mitmproxy does). A flow
//! without a response gets HAR's required response object with status 0
//! and Chrome's `_error`, so DevTools and other importers accept it.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use super::UNTIMED;
use super::time::{format_iso8601, format_iso8601_exact};
use crate::BodySide;
use crate::url::{UrlParts, query_pairs};
use crate::{Body, Direction, Error, Flow, Headers, WsOpcode};

/// What to do with one body: inline it, or leave `text` out (the archive
/// spilled it to a body store).
pub(crate) type BodyHook<'a> = dyn FnMut(BodySide, &Body) -> Result<bool, Error> + 'a;

fn headers_json(headers: &Headers) -> Value {
    Value::Array(
        headers
            .iter()
            .map(|h| json!({"name": h.name, "value": h.value}))
            .collect(),
    )
}

/// Inserts `text` (and `encoding`) for `body` into `map`.
fn put_text(map: &mut Map<String, Value>, body: &Body) {
    match std::str::from_utf8(&body.bytes) {
        Ok(text) => {
            map.insert("text".into(), Value::String(text.to_string()));
        }
        Err(_) => {
            map.insert("text".into(), Value::String(STANDARD.encode(&body.bytes)));
            map.insert("encoding".into(), Value::String("base64".into()));
        }
    }
}

/// What a HAR export adds to `entry` so that an import of the file gives
/// `flow` back exactly (the archive keeps these in its `_ar` part instead):
/// - the start to the microsecond, not the millisecond;
/// - in `timings`, the names of the phases HAR requires (`send`, `wait`,
///   `receive`, no -1 allowed) that `flow` has no time for, written as 0,
///   and `"time"` when the flow has no end (the entry's required `time` is
///   then the sum of its phases); an import reads those as unknown again.
pub(crate) fn keep_exact(entry: &mut Value, flow: &Flow) {
    entry["startedDateTime"] = Value::String(format_iso8601_exact(flow.started));
    let t = &flow.timings;
    let untimed: Vec<&str> = [
        ("send", t.send.is_some()),
        ("wait", t.wait.is_some()),
        ("receive", t.receive.is_some()),
        ("time", flow.ended.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, timed)| (!timed).then_some(name))
    .collect();
    if !untimed.is_empty() {
        entry["timings"][UNTIMED] = json!(untimed);
    }
}

fn ms(value: Option<f64>) -> Value {
    json!(value.unwrap_or(-1.0))
}

/// The entry for `flow`. `inline(side, body)` returns whether to write the body's text.
pub(crate) fn entry_value(
    flow: &Flow,
    inline: &mut BodyHook<'_>,
    websocket_messages: bool,
) -> Result<Value, Error> {
    let req = &flow.request;
    let url = UrlParts::split(&req.url);
    let query: Vec<Value> = url
        .query
        .map(|q| {
            query_pairs(q)
                .map(|(n, v)| json!({"name": n, "value": v}))
                .collect()
        })
        .unwrap_or_default();
    let mut request = json!({
        "method": req.method,
        "url": req.url,
        "httpVersion": req.http_version.as_str(),
        "cookies": [],
        "headers": headers_json(&req.headers),
        "queryString": query,
        "headersSize": -1,
        "bodySize": req.body.wire_size.map_or(-1, |s| s as i64),
    });
    if !req.body.bytes.is_empty() || req.body.content_type.is_some() {
        let mut post = Map::new();
        post.insert(
            "mimeType".into(),
            Value::String(req.body.content_type.clone().unwrap_or_default()),
        );
        if inline(BodySide::Request, &req.body)? {
            put_text(&mut post, &req.body);
        }
        request["postData"] = Value::Object(post);
    }
    let response = match &flow.response {
        Some(res) => {
            let mut content = Map::new();
            content.insert(
                "size".into(),
                json!(res.body.size.max(res.body.bytes.len() as u64)),
            );
            content.insert(
                "mimeType".into(),
                Value::String(
                    res.body
                        .content_type
                        .clone()
                        .unwrap_or_else(|| "x-unknown".into()),
                ),
            );
            if !res.body.bytes.is_empty() && inline(BodySide::Response, &res.body)? {
                put_text(&mut content, &res.body);
            }
            let mut value = json!({
                "status": res.status,
                "statusText": res.reason,
                "httpVersion": res.http_version.as_str(),
                "cookies": [],
                "headers": headers_json(&res.headers),
                "content": content,
                "redirectURL": res.headers.get("location").unwrap_or(""),
                "headersSize": -1,
                "bodySize": res.body.wire_size.map_or(-1, |s| s as i64),
            });
            if let Some(error) = &flow.error {
                value["_error"] = Value::String(error.message.clone());
            }
            value
        }
        None => json!({
            "status": 0, "statusText": "", "httpVersion": req.http_version.as_str(), "cookies": [], "headers": [],
            "content": {"size": 0, "mimeType": "x-unknown"}, "redirectURL": "", "headersSize": -1, "bodySize": -1,
            "_error": flow.error.as_ref().map_or("no response", |e| e.message.as_str()),
        }),
    };
    let t = &flow.timings;
    let total = flow.duration_ms().or_else(|| {
        let parts = [t.blocked, t.dns, t.connect, t.send, t.wait, t.receive];
        parts
            .iter()
            .any(Option::is_some)
            .then(|| parts.iter().flatten().sum())
    });
    let mut entry = json!({
        "startedDateTime": format_iso8601(flow.started),
        "time": total.unwrap_or(0.0).max(0.0),
        "request": request,
        "response": response,
        "cache": {},
        "timings": {
            "blocked": ms(t.blocked), "dns": ms(t.dns), "connect": ms(t.connect), "ssl": ms(t.ssl),
            "send": t.send.unwrap_or(0.0), "wait": t.wait.unwrap_or(0.0), "receive": t.receive.unwrap_or(0.0),
        },
    });
    if let Some(addr) = &flow.server_addr {
        entry["serverIPAddress"] = Value::String(server_ip(addr).to_string());
    }
    if let (Some(ws), true) = (&flow.websocket, websocket_messages) {
        let messages: Vec<Value> = ws
            .frames
            .iter()
            .map(|f| {
                let (opcode, data) = match f.opcode {
                    WsOpcode::Text => (1, String::from_utf8_lossy(&f.payload).into_owned()),
                    WsOpcode::Continuation => (0, String::from_utf8_lossy(&f.payload).into_owned()),
                    WsOpcode::Binary => (2, STANDARD.encode(&f.payload)),
                    WsOpcode::Close => (8, String::from_utf8_lossy(&f.payload).into_owned()),
                    WsOpcode::Ping => (9, String::from_utf8_lossy(&f.payload).into_owned()),
                    WsOpcode::Pong => (10, String::from_utf8_lossy(&f.payload).into_owned()),
                };
                let kind = if f.direction == Direction::ClientToServer { "send" } else { "receive" };
                json!({"type": kind, "time": f.at.unix_micros() as f64 / 1e6, "opcode": opcode, "data": data})
            })
            .collect();
        entry["_webSocketMessages"] = Value::Array(messages);
    }
    Ok(entry)
}

/// HAR's `serverIPAddress`: the address without its port and IPv6 brackets.
pub(crate) fn server_ip(addr: &str) -> &str {
    let ip = addr
        .rsplit_once(':')
        .filter(|(h, p)| {
            !p.is_empty()
                && p.bytes().all(|b| b.is_ascii_digit())
                && (!h.contains(':') || h.ends_with(']'))
        })
        .map_or(addr, |(h, _)| h);
    ip.trim_start_matches('[').trim_end_matches(']')
}
