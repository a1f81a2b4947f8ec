//! Documented limits that keep inference safe on hostile input.
//!
//! Inference never recurses deeper than [`MAX_DEPTH`], never tracks more than [`MAX_PROPERTIES`]
//! names per object position, and never stores a key longer than [`MAX_KEY_BYTES`], so memory is
//! bounded by the number of distinct *positions*, not by the size of the input. Arrays of any
//! length are streamed element by element into one item schema. Whenever a limit changes what the
//! schema says, the schema reports it (see [`crate::Schema::limits`] and the `x-ar-*` keywords).

/// Nesting depth (objects and arrays) inspected; deeper values are recorded as "object" or
/// "array" without their contents and reported as `x-ar-truncated: "depth"`. The bytes path
/// still checks the skipped part is valid JSON, without recursion, at any depth.
pub const MAX_DEPTH: usize = 128;

/// Nesting depth (objects and arrays) written out by [`crate::Schema::to_openapi`] and
/// [`crate::Schema::to_json_schema`]; deeper positions are written as "object" or "array"
/// with `x-ar-truncated: "depth"`. Each level takes up to four levels of JSON in the document
/// (`anyOf`, its list, `properties`, the name), and an OpenAPI document wraps a schema in about
/// ten more, so a spec stays within the 128 levels that serde_json and other parsers read by
/// default (24 × 4 + 10 = 106), whatever depth the samples had.
pub const MAX_RENDER_DEPTH: usize = 24;

/// Distinct property names tracked per object position; past this, the position becomes a map
/// (`additionalProperties`) whose value schema merges every value.
pub const MAX_PROPERTIES: usize = 1000;

/// Longest key kept as a property name; values of longer keys merge into `additionalProperties`
/// and are reported as `x-ar-long-keys`.
pub const MAX_KEY_BYTES: usize = 1024;

/// Distinct string values remembered per position as enum evidence.
pub const MAX_ENUM_TRACKED: usize = 16;

/// Longest string value remembered as enum evidence; one longer value rules out an enum.
pub const MAX_ENUM_VALUE_BYTES: usize = 64;

/// Largest enum emitted: at most this many distinct values...
pub const ENUM_MAX_VALUES: usize = 10;

/// ...seen in at least this many samples...
pub const ENUM_MIN_SAMPLES: u64 = 10;

/// ...and each distinct value in at least this many of them: the rarest value
/// seen is the evidence that no value is still unseen.
pub const ENUM_MIN_SAMPLES_PER_VALUE: u64 = 4;

/// Objects a position must have seen before a key present in all of them is `required`: with
/// fewer, an optional key is too likely to have been present every time by chance, and a
/// client generated from the spec would reject the first answer without it.
pub const REQUIRED_MIN_OBJECTS: u64 = 5;

/// Where an API leaves keys out, the largest chance accepted that an optional key was present
/// in every object seen by luck before a key present in all of them is `required`.
pub const REQUIRED_CHANCE: f64 = 0.05;

/// Objects after which a key present in all of them is `required` however common the keys
/// left out are.
pub const REQUIRED_ENOUGH_OBJECTS: u64 = 20;

/// Strings a position must have seen, all integer-looking, before they get the integer
/// pattern: a few short strings are digits by chance as often as by type.
pub const INTEGER_PATTERN_MIN_STRINGS: u64 = 5;

/// Distinct keys from which an object whose values all share one type becomes a map.
pub const MAP_MIN_KEYS: usize = 32;
