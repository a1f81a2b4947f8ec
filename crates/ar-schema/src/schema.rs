//! [`Schema`]: the merged evidence of many samples, and its outputs.

use serde_json::{Map, Value};

use crate::fingerprint::{Fingerprint, fingerprint};
use crate::node::Node;
use crate::render::{Flavor, RenderOptions, render};
use crate::shape::ShapeOptions;

/// The `$schema` URI written at the root of JSON Schema output.
pub const JSON_SCHEMA_DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

/// A schema inferred from JSON samples, with the counts behind every decision.
///
/// A `Schema` is a value: build one with [`crate::infer`] or [`crate::SchemaBuilder`], combine
/// two with [`Schema::merge`] (commutative and associative, so partial schemas built anywhere,
/// in any order, combine to the same result), and write it out with
/// [`Schema::to_json_schema`] or [`Schema::to_openapi`].
///
/// ```
/// use serde_json::json;
/// let a = ar_schema::infer(&json!({"id": 1, "note": null}));
/// let b = ar_schema::infer(&json!({"id": 2.5, "note": "hi", "extra": true}));
/// let schema = a.merge(&b);
/// let out = schema.to_openapi();
/// assert_eq!(out["properties"]["id"]["type"], "number");
/// assert_eq!(out["properties"]["note"]["nullable"], true);
/// assert_eq!(schema.samples(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
#[serde(transparent)]
pub struct Schema {
    pub(crate) root: Node,
}

/// The evidence (all counts), so a schema can be saved and merged with later samples, e.g. when
/// a session resumes. The format is this crate's own and may change between minor versions;
/// it is not a JSON Schema (use [`Schema::to_json_schema`] for that).
impl<'de> serde::Deserialize<'de> for Schema {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut root = Node::deserialize(deserializer)?;
        root.reindex();
        Ok(Schema { root })
    }
}

/// What the safety limits ([`crate::limits`]) changed in a schema; all zero for ordinary input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LimitReport {
    /// Objects and arrays below [`crate::limits::MAX_DEPTH`] whose contents were not inspected.
    pub depth_truncated: u64,
    /// Keys longer than [`crate::limits::MAX_KEY_BYTES`] (their values went to
    /// `additionalProperties`).
    pub long_keys: u64,
    /// Object positions with more than [`crate::limits::MAX_PROPERTIES`] distinct keys, turned
    /// into maps.
    pub collapsed_objects: u64,
}

impl LimitReport {
    /// Whether no limit was hit.
    pub fn is_clean(&self) -> bool {
        *self == Self::default()
    }
}

impl Schema {
    /// A schema with no samples; it renders as `{}` (anything validates).
    pub fn new() -> Self {
        Self::default()
    }

    /// The schema of the samples of both `self` and `other`.
    #[must_use]
    pub fn merge(&self, other: &Schema) -> Schema {
        let mut out = self.clone();
        out.merge_from(other);
        out
    }

    /// Adds the samples of `other` into `self` (in place [`Schema::merge`]).
    pub fn merge_from(&mut self, other: &Schema) {
        self.root.merge_from(&other.root);
    }

    /// How many samples (top-level values) this schema was built from.
    pub fn samples(&self) -> u64 {
        self.root.count()
    }

    /// Whether no sample was added yet.
    pub fn is_empty(&self) -> bool {
        self.samples() == 0
    }

    /// JSON Schema 2020-12, with `$schema` and `x-ar-samples` counts.
    pub fn to_json_schema(&self) -> Value {
        self.to_json_schema_with(&RenderOptions::default())
    }

    /// JSON Schema 2020-12 with the given options.
    pub fn to_json_schema_with(&self, opts: &RenderOptions) -> Value {
        let mut out = Map::new();
        out.insert("$schema".into(), Value::String(JSON_SCHEMA_DIALECT.into()));
        out.extend(render(&self.root, Flavor::JsonSchema, opts));
        Value::Object(out)
    }

    /// An OpenAPI 3.0 schema object as JSON (`nullable: true`, no type arrays, no `null` type),
    /// with `x-ar-samples` counts.
    pub fn to_openapi(&self) -> Value {
        self.to_openapi_with(&RenderOptions::default())
    }

    /// An OpenAPI 3.0 schema object as JSON, with the given options.
    pub fn to_openapi_with(&self, opts: &RenderOptions) -> Value {
        Value::Object(render(&self.root, Flavor::OpenApi, opts))
    }

    /// The OpenAPI 3.0 schema as an `openapiv3` type, ready to place in an `openapiv3::OpenAPI`.
    pub fn to_openapiv3(&self) -> openapiv3::Schema {
        self.to_openapiv3_with(&RenderOptions::default())
    }

    /// [`Schema::to_openapiv3`] with the given options.
    pub fn to_openapiv3_with(&self, opts: &RenderOptions) -> openapiv3::Schema {
        crate::openapi::to_openapiv3(self.to_openapi_with(opts))
    }

    /// A compact `path → type` outline (see [`crate::shape`]).
    pub fn shape(&self, opts: &ShapeOptions) -> String {
        crate::shape::shape(&self.root, opts)
    }

    /// The structural fingerprint of the OpenAPI form (see [`crate::fingerprint`]): equal for
    /// schemas that accept the same shapes, whatever their sample counts.
    pub fn fingerprint(&self) -> Fingerprint {
        fingerprint(&self.to_openapi_with(&RenderOptions::default().sample_counts(false)))
    }

    /// Which safety limits were hit while building this schema.
    pub fn limits(&self) -> LimitReport {
        let mut report = LimitReport::default();
        tally(&self.root, &mut report);
        report
    }
}

fn tally(node: &Node, report: &mut LimitReport) {
    report.depth_truncated += node.capped;
    if let Some(array) = node.array.as_deref() {
        tally(&array.items, report);
    }
    if let Some(object) = node.object.as_deref() {
        report.long_keys += object.long_keys;
        report.collapsed_objects += u64::from(object.collapsed);
        object.props.iter().for_each(|p| tally(&p.node, report));
        if let Some(extra) = object.extra.as_deref() {
            tally(extra, report);
        }
    }
}
