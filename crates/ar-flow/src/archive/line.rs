//! One archive line: a HAR entry plus the `_ar` object with what HAR cannot say.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::BodyStore;
use crate::har::{Ctx, Flavor, entry_to_flow};
use crate::{
    Body, Client, Error, Flow, FlowError, FlowId, HttpVersion, Timestamp, Timings, WebSocketLog,
};

/// Format version of the `_ar` object.
pub(super) const VERSION: u32 = 1;

/// Body facts HAR cannot carry, and where a spilled body went.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct BodyMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    encoding: Option<String>,
    size: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    wire_size: Option<u64>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    truncated: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    decode_error: Option<String>,
    /// SHA-256 (hex) of the bytes when they live in `bodies/` instead of the line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    spilled: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ResponseMeta {
    version: HttpVersion,
    body: BodyMeta,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ArExt {
    v: u32,
    id: FlowId,
    started: Timestamp,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ended: Option<Timestamp>,
    client: Client,
    request_version: HttpVersion,
    request_body: BodyMeta,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    response: Option<ResponseMeta>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    error: Option<FlowError>,
    timings: ExactTimings,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    server_addr: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    websocket: Option<WebSocketLog>,
}

/// Timings written as decimal strings (Rust's shortest round-trip form) so
/// they read back bit-exact whatever the JSON parser's float rounding.
/// Fields are in sorted order: the key order of the original `Value` encoding.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct ExactTimings {
    #[serde(default, skip_serializing_if = "Option::is_none", with = "exact_f64")]
    blocked: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "exact_f64")]
    connect: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "exact_f64")]
    dns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "exact_f64")]
    receive: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "exact_f64")]
    send: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "exact_f64")]
    ssl: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "exact_f64")]
    wait: Option<f64>,
}

impl From<Timings> for ExactTimings {
    fn from(t: Timings) -> Self {
        Self {
            blocked: t.blocked,
            dns: t.dns,
            connect: t.connect,
            ssl: t.ssl,
            send: t.send,
            wait: t.wait,
            receive: t.receive,
        }
    }
}

impl From<ExactTimings> for Timings {
    fn from(t: ExactTimings) -> Self {
        Self {
            blocked: t.blocked,
            dns: t.dns,
            connect: t.connect,
            ssl: t.ssl,
            send: t.send,
            wait: t.wait,
            receive: t.receive,
        }
    }
}

mod exact_f64 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(value: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            // `Display` straight into the output: no `String` per timing.
            Some(v) => s.collect_str(v),
            None => s.serialize_none(),
        }
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Repr {
        Text(String),
        Number(f64),
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
        match Option::<Repr>::deserialize(d)? {
            None => Ok(None),
            Some(Repr::Number(n)) => Ok(Some(n)),
            Some(Repr::Text(t)) => t.parse().map(Some).map_err(serde::de::Error::custom),
        }
    }
}

/// Lowercase hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
fn meta(body: &Body, spilled: Option<String>) -> BodyMeta {
    BodyMeta {
        content_type: body.content_type.clone(),
        encoding: body.encoding.clone(),
        size: body.size,
        wire_size: body.wire_size,
        truncated: body.truncated,
        decode_error: body.decode_error.clone(),
        spilled,
    }
}

/// The original encoding, through a `serde_json::Value` tree: kept as the
/// reference the direct encoder (`super::encode`) is checked against.
#[cfg(test)]
pub(super) fn encode_via_value(
    flow: &Flow,
    bodies: &mut dyn BodyStore,
    threshold: usize,
) -> Result<String, Error> {
    use crate::BodySide;
    use crate::har::entry_value;
    let mut spill = |body: &Body| -> Result<Option<String>, Error> {
        if body.bytes.len() <= threshold {
            return Ok(None);
        }
        let hash = sha256_hex(&body.bytes);
        bodies
            .put(&hash, &body.bytes)
            .map_err(|e| Error::io(format!("storing body {hash} of flow {}", flow.id.0), e))?;
        Ok(Some(hash))
    };
    let request_spill = spill(&flow.request.body)?;
    let response_spill = match &flow.response {
        Some(r) => spill(&r.body)?,
        None => None,
    };
    let ext = ArExt {
        v: VERSION,
        id: flow.id,
        started: flow.started,
        ended: flow.ended,
        client: flow.client,
        request_version: flow.request.http_version.clone(),
        request_body: meta(&flow.request.body, request_spill.clone()),
        response: flow.response.as_ref().map(|r| ResponseMeta {
            version: r.http_version.clone(),
            body: meta(&r.body, response_spill.clone()),
        }),
        error: flow.error.clone(),
        timings: ExactTimings::from(flow.timings),
        server_addr: flow.server_addr.clone(),
        websocket: flow.websocket.clone(),
    };
    let mut entry = entry_value(
        flow,
        &mut |side, _| {
            Ok(match side {
                BodySide::Request => request_spill.is_none(),
                BodySide::Response => response_spill.is_none(),
            })
        },
        false,
    )?;
    entry["_ar"] = serde_json::to_value(&ext).map_err(|e| Error::ArchiveLine {
        line: 0,
        problem: e.to_string(),
    })?;
    serde_json::to_string(&entry).map_err(|e| Error::ArchiveLine {
        line: 0,
        problem: e.to_string(),
    })
}

fn restore(
    body: &mut Body,
    meta: BodyMeta,
    bodies: &dyn BodyStore,
    line: u64,
) -> Result<(), Error> {
    if let Some(hash) = &meta.spilled {
        // The hash names a file in a body store on disk: anything but 64
        // lowercase hex digits (`../../dev/zero`) is never asked for.
        if hash.len() != 64 || !hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return Err(Error::ArchiveBody {
                line,
                sha256: hash.clone(),
                problem: "not a SHA-256 in lowercase hex".into(),
            });
        }
        let bytes = bodies.get(hash).map_err(|e| Error::ArchiveBody {
            line,
            sha256: hash.clone(),
            problem: e.to_string(),
        })?;
        if sha256_hex(&bytes) != *hash {
            return Err(Error::ArchiveBody {
                line,
                sha256: hash.clone(),
                problem: "content does not match its hash".into(),
            });
        }
        body.bytes = bytes;
    }
    body.content_type = meta.content_type;
    body.encoding = meta.encoding;
    body.size = meta.size;
    body.wire_size = meta.wire_size;
    body.truncated = meta.truncated;
    body.decode_error = meta.decode_error;
    Ok(())
}

/// Decodes one line (1-based number `line`). Lines without `_ar` are read as plain HAR entries.
pub(crate) fn decode(text: &str, line: u64, bodies: &dyn BodyStore) -> Result<Flow, Error> {
    let bad = |problem: String| Error::ArchiveLine { line, problem };
    let mut entry: Value =
        serde_json::from_str(text).map_err(|e| bad(format!("invalid JSON: {e}")))?;
    let ext = match entry.as_object_mut().and_then(|m| m.remove("_ar")) {
        Some(v) => Some(serde_json::from_value::<ArExt>(v).map_err(|e| bad(format!("_ar: {e}")))?),
        None => None,
    };
    let flavor = if ext.is_some() {
        Flavor::Archive
    } else {
        Flavor::Foreign
    };
    let ctx = Ctx {
        index: line.saturating_sub(1) as usize,
    };
    let mut flow = entry_to_flow(&ctx, &mut entry, flavor).map_err(|e| bad(e.to_string()))?;
    let Some(ext) = ext else { return Ok(flow) };
    flow.id = ext.id;
    flow.started = ext.started;
    flow.ended = ext.ended;
    flow.client = ext.client;
    flow.request.http_version = ext.request_version;
    restore(&mut flow.request.body, ext.request_body, bodies, line)?;
    match (ext.response, flow.response.as_mut()) {
        (Some(meta), Some(response)) => {
            response.http_version = meta.version;
            restore(&mut response.body, meta.body, bodies, line)?;
        }
        (Some(_), None) => {
            return Err(bad(
                "_ar.response present but the entry has no response".into()
            ));
        }
        (None, _) => flow.response = None,
    }
    flow.error = ext.error;
    flow.timings = ext.timings.into();
    flow.server_addr = ext.server_addr;
    flow.websocket = ext.websocket;
    Ok(flow)
}
