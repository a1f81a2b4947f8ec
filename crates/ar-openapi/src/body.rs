//! Request and response bodies of one endpoint, per media type: a schema
//! built from every sample, multipart field names, and one redacted example.

use std::collections::{BTreeMap, HashSet};
use std::hash::{BuildHasher, Hasher};

use ar_schema::{SchemaBuilder, Tape};
use ar_store::Body;
use serde_json::{Map, Value};

use crate::form;
use crate::redact::Redactor;

/// How a media type is documented.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum BodyKind {
    /// JSON (`application/json`, `*+json`): schema inferred from samples.
    Json,
    /// `application/x-www-form-urlencoded`: an object of string fields.
    Form,
    /// `multipart/form-data`: field names, files as binary.
    Multipart,
    /// Text (`text/*`, XML, JavaScript): a string.
    Text,
    /// Anything else: binary.
    Binary,
}

impl BodyKind {
    /// Classifies a media type (lowercase, without parameters).
    pub(crate) fn of(media: &str) -> Self {
        if media == "application/json"
            || media.ends_with("+json")
            || media == "text/json"
            || media == "application/graphql-response+json"
        {
            Self::Json
        } else if media == "application/x-www-form-urlencoded" {
            Self::Form
        } else if media == "multipart/form-data" {
            Self::Multipart
        } else if media.starts_with("text/")
            || media.ends_with("xml")
            || media.contains("javascript")
            || media.ends_with("+xml")
            || media == "application/x-ndjson"
        {
            Self::Text
        } else {
            Self::Binary
        }
    }
}

/// One multipart field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PartStats {
    pub(crate) count: u64,
    pub(crate) file: bool,
    pub(crate) content_type: Option<String>,
}

/// What was seen of one media type's bodies.
#[derive(Debug, Clone)]
pub(crate) struct BodyStats {
    pub(crate) kind: BodyKind,
    pub(crate) count: u64,
    pub(crate) schema: SchemaBuilder,
    pub(crate) parts: BTreeMap<String, PartStats>,
    /// One redacted example (JSON value, form object, or text).
    pub(crate) example: Option<Value>,
    /// Bodies that claimed this media type but could not be parsed, or were cut short.
    pub(crate) undecodable: u64,
    /// Hashes of the JSON and form bodies already in `schema`, so that the
    /// same body fetched again (a page reloaded, a resource polled) is not
    /// counted again as evidence: ten copies of one answer are one sample of
    /// what the endpoint sends, and counted ten times they would close an
    /// enum on the values of that one answer, or make its keys required.
    distinct: HashSet<u64>,
}

/// Longest text example kept, in characters.
const MAX_TEXT_EXAMPLE: usize = 400;
/// At most this many multipart fields are tracked.
const MAX_PARTS: usize = 64;
/// At most this many distinct bodies are remembered per media type; past
/// that, every body counts (the evidence is ample by then).
const MAX_DISTINCT_TRACKED: usize = 4096;

impl BodyStats {
    pub(crate) fn new(kind: BodyKind) -> Self {
        Self {
            kind,
            count: 0,
            schema: SchemaBuilder::new(),
            parts: BTreeMap::new(),
            example: None,
            undecodable: 0,
            distinct: HashSet::new(),
        }
    }

    /// Whether the body hashed to `hash` ([`body_hash`]) is one already in
    /// the schema. Only bodies that decoded are remembered, so a repeat of an
    /// undecodable body is still counted as undecodable.
    fn seen_before(&self, hash: u64) -> bool {
        self.distinct.contains(&hash)
    }

    fn remember(&mut self, hash: u64) {
        if self.distinct.len() < MAX_DISTINCT_TRACKED {
            self.distinct.insert(hash);
        }
    }

    /// Adds one body, walking `tape` for a JSON body when the store read it
    /// there. Returns `false` when it could not be decoded as its media type claims.
    pub(crate) fn observe(
        &mut self,
        body: &Body,
        tape: Option<&Tape>,
        redactor: &Redactor,
    ) -> bool {
        self.count += 1;
        let schema_fed = matches!(self.kind, BodyKind::Json | BodyKind::Form);
        let hash = schema_fed.then(|| body_hash(body));
        if hash.is_some_and(|hash| self.seen_before(hash)) {
            return true;
        }
        let ok = match self.kind {
            BodyKind::Json => self.observe_json(body, tape, redactor),
            BodyKind::Form => {
                let text = String::from_utf8_lossy(&body.bytes);
                let mut object = Map::new();
                for (name, value) in form::parse_urlencoded(&text) {
                    let shown = redactor.param_value(&name, &value).into_owned();
                    object.insert(name, Value::String(shown));
                }
                let value = Value::Object(object);
                self.schema.add_value(&value);
                self.example.get_or_insert(value);
                !body.truncated
            }
            BodyKind::Multipart => {
                let content_type = body.content_type.as_deref().unwrap_or("");
                let parts = form::parse_multipart(content_type, &body.bytes);
                let mut example = Map::new();
                for part in &parts {
                    if !self.parts.contains_key(&part.name) && self.parts.len() >= MAX_PARTS {
                        continue;
                    }
                    let stats = self.parts.entry(part.name.clone()).or_default();
                    stats.count += 1;
                    stats.file |= part.filename.is_some();
                    if stats.content_type.is_none() {
                        stats.content_type.clone_from(&part.content_type);
                    }
                    let shown = match (&part.filename, &part.text) {
                        (Some(name), _) => format!("<file {}>", redactor.text(name)),
                        (None, Some(text)) => clip(&redactor.param_value(&part.name, text)),
                        (None, None) => "<binary>".to_string(),
                    };
                    example.insert(part.name.clone(), Value::String(shown));
                }
                if self.example.is_none() && !example.is_empty() {
                    self.example = Some(Value::Object(example));
                }
                !parts.is_empty() || body.bytes.is_empty()
            }
            BodyKind::Text => {
                if self.example.is_none() {
                    let text = String::from_utf8_lossy(&body.bytes);
                    self.example = Some(Value::String(clip(&redactor.text(&text))));
                }
                !body.truncated
            }
            BodyKind::Binary => true,
        };
        if !ok {
            self.undecodable += 1;
        } else if let Some(hash) = hash {
            self.remember(hash);
        }
        ok
    }

    fn observe_json(&mut self, body: &Body, tape: Option<&Tape>, redactor: &Redactor) -> bool {
        if body.truncated || body.decode_error.is_some() {
            return false;
        }
        // Inferred from the bytes (read once, onto the store's tape, or
        // here), whose literals decide number types (`3.1e+38` is a number;
        // a parsed `Value` has lost that).
        match tape {
            Some(tape) => self.schema.add_tape(tape, &body.bytes),
            None if self.schema.add_json_slice(&body.bytes).is_err() => return false,
            None => {}
        }
        if self.example.is_none()
            && let Ok(mut value) = example_value(&body.bytes)
        {
            redactor.json(&mut value);
            self.example = Some(prune(value, 0));
        }
        true
    }

    /// Adds another endpoint's evidence (when the store merges endpoints).
    pub(crate) fn merge(&mut self, other: &BodyStats) {
        self.count += other.count;
        self.undecodable += other.undecodable;
        self.schema.add_schema(other.schema.schema());
        for (name, part) in &other.parts {
            let mine = self.parts.entry(name.clone()).or_default();
            mine.count += part.count;
            mine.file |= part.file;
            if mine.content_type.is_none() {
                mine.content_type.clone_from(&part.content_type);
            }
        }
        if self.example.is_none() {
            self.example.clone_from(&other.example);
        }
        let room = MAX_DISTINCT_TRACKED.saturating_sub(self.distinct.len());
        self.distinct
            .extend(other.distinct.iter().copied().take(room));
    }
}

/// A body's identity for [`BodyStats::seen_before`]: its content type and
/// bytes. foldhash's fixed state has fixed keys, so the documenter stays
/// deterministic; it reads a body several times faster than SipHash.
fn body_hash(body: &Body) -> u64 {
    let mut hasher = foldhash::fast::FixedState::default().build_hasher();
    hasher.write(body.content_type.as_deref().unwrap_or("").as_bytes());
    hasher.write_u8(0);
    hasher.write(&body.bytes);
    hasher.finish()
}

/// The largest JSON body parsed into a tree for an example. A `serde_json::Value`
/// takes several times its text in memory (a 10^6-key object of 18 MB took about
/// 170 MB), and [`prune`] keeps only a few items of it anyway, so a larger body is
/// documented by its schema (inferred from the bytes, in bounded memory) and shown
/// as a note instead of an example.
pub(crate) const EXAMPLE_MAX_BYTES: usize = 4 << 20;

/// Deepest JSON parsed into a tree for an example: serde_json's own recursion
/// limit, which keeps the parse (and every walk over the tree: redaction,
/// pruning, rendering) off the end of the stack.
pub(crate) const EXAMPLE_MAX_DEPTH: usize = 128;

/// Why a JSON body has no example.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NoExample {
    /// Not JSON.
    Invalid,
    /// Valid JSON nested deeper than [`EXAMPLE_MAX_DEPTH`].
    TooDeep,
    /// Larger than [`EXAMPLE_MAX_BYTES`].
    TooLarge,
}

impl NoExample {
    /// What an example shows instead of a body of `len` bytes.
    pub(crate) fn placeholder(self, len: usize) -> String {
        match self {
            Self::Invalid => format!("<{len} bytes of invalid JSON>"),
            Self::TooDeep => format!(
                "<{len} bytes of JSON nested deeper than {EXAMPLE_MAX_DEPTH} levels, not shown>"
            ),
            Self::TooLarge => format!(
                "<{len} bytes of JSON, larger than the {} MiB shown as an example>",
                EXAMPLE_MAX_BYTES >> 20
            ),
        }
    }
}

/// `bytes` parsed into a tree for an example, within [`EXAMPLE_MAX_BYTES`] and
/// [`EXAMPLE_MAX_DEPTH`].
pub(crate) fn example_value(bytes: &[u8]) -> Result<Value, NoExample> {
    if bytes.len() > EXAMPLE_MAX_BYTES {
        return Err(NoExample::TooLarge);
    }
    serde_json::from_slice::<Value>(bytes).map_err(|_| {
        // serde_json stops at its recursion limit; ar-schema's scanner reads
        // any depth without recursion, so it tells "too deep" from "not JSON".
        if SchemaBuilder::new().add_json_slice(bytes).is_ok() {
            NoExample::TooDeep
        } else {
            NoExample::Invalid
        }
    })
}

/// Keeps examples small: the first two items of arrays, strings clipped, depth capped.
pub(crate) fn prune(value: Value, depth: usize) -> Value {
    match value {
        Value::Array(_) if depth > 12 => Value::Array(Vec::new()),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .take(2)
                .map(|v| prune(v, depth + 1))
                .collect(),
        ),
        Value::Object(_) if depth > 12 => Value::Object(Map::new()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .take(40)
                .map(|(k, v)| (k, prune(v, depth + 1)))
                .collect(),
        ),
        Value::String(text) => Value::String(clip(&text)),
        other => other,
    }
}

fn clip(text: &str) -> String {
    if text.chars().count() <= MAX_TEXT_EXAMPLE {
        return text.to_string();
    }
    let mut clipped: String = text.chars().take(MAX_TEXT_EXAMPLE).collect();
    clipped.push('…');
    clipped
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(content_type: &str, bytes: &[u8]) -> Body {
        Body::from_decoded(Some(content_type.into()), bytes.to_vec())
    }

    #[test]
    fn media_types_are_classified() {
        assert_eq!(BodyKind::of("application/vnd.api+json"), BodyKind::Json);
        assert_eq!(
            BodyKind::of("application/x-www-form-urlencoded"),
            BodyKind::Form
        );
        assert_eq!(BodyKind::of("text/csv"), BodyKind::Text);
        assert_eq!(BodyKind::of("application/pdf"), BodyKind::Binary);
    }

    #[test]
    fn json_bodies_build_a_schema_and_a_redacted_example() {
        let redactor = Redactor::new();
        let mut stats = BodyStats::new(BodyKind::Json);
        assert!(stats.observe(
            &body(
                "application/json",
                br#"{"id":1,"token":"abc","tags":[1,2,3]}"#
            ),
            None,
            &redactor
        ));
        assert!(stats.observe(
            &body("application/json", br#"{"id":2.5,"token":"def","tags":[]}"#),
            None,
            &redactor
        ));
        assert!(!stats.observe(&body("application/json", b"{not json"), None, &redactor));
        let schema = stats.schema.schema().to_openapi();
        assert_eq!(schema["properties"]["id"]["type"], "number");
        assert_eq!(
            stats.example,
            Some(serde_json::json!({"id": 1, "token": "REDACTED", "tags": [1, 2]}))
        );
        assert_eq!((stats.count, stats.undecodable), (3, 1));
    }

    #[test]
    fn the_same_answer_fetched_again_is_no_new_evidence() {
        // A recommendation list polled twelve times for one product: four
        // categories, each in every copy. Counted twelve times they would
        // look like a closed set of four; they are one answer.
        let redactor = Redactor::new();
        let answer = br#"{"items":[{"category":"kitchen"},{"category":"home"},{"category":"audio"},{"category":"stationery"}]}"#;
        let mut polled = BodyStats::new(BodyKind::Json);
        for _ in 0..12 {
            assert!(polled.observe(&body("application/json", answer), None, &redactor));
        }
        let schema = polled.schema.schema().to_openapi();
        let category = &schema["properties"]["items"]["items"]["properties"]["category"];
        assert_eq!(category["type"], "string");
        assert!(category.get("enum").is_none(), "{category}");
        assert_eq!((polled.count, polled.schema.schema().samples()), (12, 1));
        // Twelve different answers holding the same four values are
        // evidence of a closed set.
        let mut varied = BodyStats::new(BodyKind::Json);
        for page in 0..12 {
            let text = format!(
                r#"{{"page":{page},"items":[{{"category":"kitchen"}},{{"category":"home"}},{{"category":"audio"}},{{"category":"stationery"}}]}}"#
            );
            assert!(varied.observe(&body("application/json", text.as_bytes()), None, &redactor));
        }
        let schema = varied.schema.schema().to_openapi();
        assert_eq!(
            schema["properties"]["items"]["items"]["properties"]["category"]["enum"],
            serde_json::json!(["audio", "home", "kitchen", "stationery"])
        );
        // A repeat of a body that did not decode is still counted as such.
        let mut broken = BodyStats::new(BodyKind::Json);
        assert!(!broken.observe(&body("application/json", b"{not json"), None, &redactor));
        assert!(!broken.observe(&body("application/json", b"{not json"), None, &redactor));
        assert_eq!(broken.undecodable, 2);
    }

    #[test]
    fn the_first_body_types_numbers_by_their_literals_too() {
        // Parsed, `3.158e+38` is an integral float beyond 64 bits, which
        // the value path takes for a long integer; the literal says number.
        let mut stats = BodyStats::new(BodyKind::Json);
        assert!(stats.observe(
            &body("application/json", br#"{"rating":3.158e+38}"#),
            None,
            &Redactor::new()
        ));
        let schema = stats.schema.schema().to_openapi();
        assert_eq!(schema["properties"]["rating"]["type"], "number");
        assert!(stats.example.is_some());
    }

    #[test]
    fn form_fields_become_an_object_and_multipart_keeps_names() {
        let redactor = Redactor::new();
        let mut form = BodyStats::new(BodyKind::Form);
        form.observe(
            &body(
                "application/x-www-form-urlencoded",
                b"email=a%40b.test&password=pw",
            ),
            None,
            &redactor,
        );
        assert_eq!(
            form.example,
            Some(serde_json::json!({"email": "a@b.test", "password": "REDACTED"}))
        );
        let mut multi = BodyStats::new(BodyKind::Multipart);
        let bytes = b"--b\r\nContent-Disposition: form-data; name=\"caption\"\r\n\r\nhi\r\n--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"x.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n\xff\xd8\r\n--b--\r\n";
        assert!(multi.observe(
            &body("multipart/form-data; boundary=b", bytes),
            None,
            &redactor
        ));
        assert!(multi.parts["file"].file);
        assert!(!multi.parts["caption"].file);
    }
}
