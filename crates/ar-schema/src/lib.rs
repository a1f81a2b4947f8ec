//! JSON Schema inference and merging from JSON samples, with counts as evidence. Pure: no I/O.
//!
//! Feed samples (parsed `serde_json::Value`s or raw JSON bytes) and get a schema that every
//! sample validates against, written as JSON Schema 2020-12 or as an OpenAPI 3.0 schema object.
//! The schema keeps *counts* (how often each key, type, format and short string value was seen)
//! rather than sets, so decisions that need evidence are taken from evidence:
//!
//! - `required` lists the keys present in every object, once a position has seen
//!   [`limits::REQUIRED_MIN_OBJECTS`] objects (with fewer, an optional key present every time
//!   by chance would make a generated client reject the first answer without it), and, where
//!   the API leaves keys out, enough that a key as common as those would have been missed
//!   ([`limits::REQUIRED_CHANCE`]);
//! - integers widen to `number` once a fraction is seen; integer literals of any length stay
//!   integers (see [`SchemaBuilder`] for the bytes path and the integer policy below);
//! - `null` makes a field nullable; mixed types become `anyOf`, with one member per JSON type,
//!   so objects inside a union are merged, not listed once per sample;
//! - array items merge across all elements of all samples; empty arrays say nothing;
//! - string formats (`date-time`, `date`, `time`, `uuid`, `email`, `uri`, `ipv4`, `ipv6`, and
//!   integer-looking strings as `pattern: ^-?[0-9]+$`, from
//!   [`limits::INTEGER_PATTERN_MIN_STRINGS`] strings on) survive only while every string agrees;
//! - `enum` appears only for a small set seen many times ([`limits::ENUM_MIN_SAMPLES`], ...);
//! - objects keyed by ids, or with many keys of one value type, become maps
//!   (`additionalProperties`); objects are never closed with `additionalProperties: false`;
//! - every schema carries `x-ar-samples`, the number of values it was built from.
//!
//! Merging is commutative and associative: schemas built from parts of a sample set, in any
//! order, merge into the schema of the whole set. Output is deterministic (sorted keys).
//!
//! **Integer policy.** From bytes, the literal decides: no fraction and no exponent means
//! `integer`, however many digits. From a `serde_json::Value` (which has already turned
//! integers beyond `u64` into `f64`), a number is an integer if it is an `i64`/`u64`, or an
//! integral `f64` outside the 64-bit range. `1.0` is a `number` on both paths.
//!
//! **One read, several readers.** A program that wants more than a schema from a body (a
//! fingerprint of its shape, the values in it) reads it once onto a [`Tape`] and walks the
//! tokens; [`SchemaBuilder::add_tape`] infers from them what [`SchemaBuilder::add_json_slice`]
//! infers from the text.
//!
//! **Limits.** Hostile input cannot overflow the stack or grow memory without bound; see
//! [`limits`] for the numbers and [`Schema::limits`] for what a schema hit.
//!
//! ```
//! use serde_json::json;
//! let schema = ar_schema::infer(&json!({"id": 7, "email": "ada@example.com", "tags": []}));
//! assert_eq!(
//!     schema.to_json_schema_with(&ar_schema::RenderOptions::default().sample_counts(false)),
//!     json!({
//!         "$schema": "https://json-schema.org/draft/2020-12/schema",
//!         "type": "object",
//!         "properties": {
//!             "email": {"type": "string", "format": "email"},
//!             "id": {"type": "integer"},
//!             "tags": {"type": "array"}
//!         }
//!     })
//! );
//! assert_eq!(schema.shape(&Default::default()), "$ object\n$.email string(email)\n$.id integer\n$.tags array(empty)\n");
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod builder;
mod error;
mod fingerprint;
mod format;
pub mod limits;
mod node;
mod openapi;
mod render;
mod scan;
mod schema;
mod shape;
mod tape;
#[cfg(test)]
mod testing;
mod utf8;
mod value;

pub use builder::SchemaBuilder;
pub use error::Error;
pub use fingerprint::{Fingerprint, fingerprint};
pub use render::RenderOptions;
pub use schema::{JSON_SCHEMA_DIALECT, LimitReport, Schema};
pub use shape::ShapeOptions;
pub use tape::{Span, Tape, Token};

/// The schema of one sample.
///
/// ```
/// let schema = ar_schema::infer(&serde_json::json!([1, 2.5]));
/// assert_eq!(schema.to_openapi()["items"]["type"], "number");
/// ```
pub fn infer(value: &serde_json::Value) -> Schema {
    let mut builder = SchemaBuilder::new();
    builder.add_value(value);
    builder.finish()
}

/// A compact `path → type` outline of one body (see [`Schema::shape`]).
///
/// ```
/// let body = serde_json::json!({"data": {"items": [{"id": 1}]}, "next": null});
/// let outline = ar_schema::shape(&body, &ar_schema::ShapeOptions::default());
/// assert!(outline.contains("$.data.items[] object\n"));
/// ```
pub fn shape(value: &serde_json::Value, opts: &ShapeOptions) -> String {
    infer(value).shape(opts)
}
