//! Writing counts out as JSON Schema 2020-12 or OpenAPI 3.0 schema objects.
//!
//! Every decision that needs evidence is taken here, from counts: a key is `required` when every
//! one of enough objects had it; a format survives when every string matched it; an enum needs a small set each
//! of whose values was seen several times ([`crate::limits`]); an object becomes a map when its keys look like ids or when it
//! has many keys whose values share one type. Objects are never closed
//! (`additionalProperties: false` is never written), so a later sample with a new key validates.
//! Properties are inserted in sorted order, so output is identical whether or not serde_json's
//! `preserve_order` feature is on.

use serde_json::{Map, Value, json};

use crate::format;
use crate::limits::{
    ENUM_MAX_VALUES, ENUM_MIN_SAMPLES, ENUM_MIN_SAMPLES_PER_VALUE, INTEGER_PATTERN_MIN_STRINGS,
    MAP_MIN_KEYS, MAX_RENDER_DEPTH, REQUIRED_CHANCE, REQUIRED_ENOUGH_OBJECTS, REQUIRED_MIN_OBJECTS,
};
use crate::node::{Node, ObjectStats};

/// Pattern written for strings that all looked like integers (ids sent as strings).
pub(crate) const INTEGER_PATTERN: &str = "^-?[0-9]+$";

/// Which dialect to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// JSON Schema 2020-12: `type: [T, "null"]`, `{"type": "null"}`.
    JsonSchema,
    /// OpenAPI 3.0: `nullable: true`, never a type array, no `null` type.
    OpenApi,
}

/// Settings for writing a schema out.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct RenderOptions {
    /// Write `x-ar-samples` (how many values were seen) on every schema. Default: on.
    pub sample_counts: bool,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            sample_counts: true,
        }
    }
}

impl RenderOptions {
    /// Turns `x-ar-samples` on or off.
    #[must_use]
    pub fn sample_counts(mut self, on: bool) -> Self {
        self.sample_counts = on;
        self
    }
}

pub(crate) fn render(node: &Node, flavor: Flavor, opts: &RenderOptions) -> Map<String, Value> {
    render_at(node, flavor, opts, 0)
}

/// `node` rendered as a schema `depth` objects and arrays below the root.
fn render_at(
    node: &Node,
    flavor: Flavor,
    opts: &RenderOptions,
    depth: usize,
) -> Map<String, Value> {
    // The JSON types seen here, in output order; most positions hold exactly one.
    let kinds = [
        node.objects > 0,
        node.arrays > 0,
        node.strings.count > 0,
        node.ints + node.floats > 0,
        node.bools > 0,
    ];
    let member = |kind: usize| match kind {
        0 => object(node, flavor, opts, depth),
        1 => array(node, flavor, opts, depth),
        2 => string(node),
        3 => typed(if node.floats > 0 { "number" } else { "integer" }),
        _ => typed("boolean"),
    };
    let nullable = node.nulls > 0;
    let mut out = match (kinds.iter().filter(|k| **k).count(), flavor) {
        (0, _) if !nullable => Map::new(),
        (0, Flavor::JsonSchema) => typed("null"),
        (0, Flavor::OpenApi) => {
            let mut m = Map::new();
            m.insert("nullable".into(), Value::Bool(true));
            m
        }
        (1, _) => {
            let mut m = member(kinds.iter().position(|k| *k).unwrap_or_default());
            if nullable {
                make_nullable(&mut m, flavor);
            }
            m
        }
        (_, _) => {
            let mut members: Vec<Map<String, Value>> =
                (0..kinds.len()).filter(|&k| kinds[k]).map(member).collect();
            if nullable {
                match flavor {
                    Flavor::JsonSchema => members.push(typed("null")),
                    Flavor::OpenApi => members.iter_mut().for_each(|m| make_nullable(m, flavor)),
                }
            }
            let mut m = Map::new();
            m.insert(
                "anyOf".into(),
                Value::Array(members.into_iter().map(Value::Object).collect()),
            );
            m
        }
    };
    if opts.sample_counts && node.count() > 0 {
        out.insert("x-ar-samples".into(), Value::from(node.count()));
    }
    out
}

fn typed(ty: &str) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("type".into(), Value::String(ty.into()));
    m
}

fn make_nullable(m: &mut Map<String, Value>, flavor: Flavor) {
    match flavor {
        Flavor::JsonSchema => {
            if let Some(Value::String(ty)) = m.get("type") {
                let ty = ty.clone();
                m.insert("type".into(), json!([ty, "null"]));
            }
        }
        Flavor::OpenApi => {
            m.insert("nullable".into(), Value::Bool(true));
        }
    }
    if let Some(Value::Array(values)) = m.get_mut("enum") {
        values.push(Value::Null);
    }
}

/// Whether the objects seen at a position are evidence enough that a key
/// present in every one of them is required.
///
/// At least [`REQUIRED_MIN_OBJECTS`] objects, and, where the API leaves keys
/// out (some key is missing from some object), enough of them that an
/// optional key as common as the commonest one left out would have been
/// missed by now: present in all `n` objects by chance with odds of at most
/// [`REQUIRED_CHANCE`] (`q^n`, `q` its share). An API that writes every key
/// every time shows it in five objects; one that leaves out a key four
/// times in five needs fourteen.
fn required_evidence(stats: &ObjectStats) -> bool {
    let n = stats.count;
    if n < REQUIRED_MIN_OBJECTS {
        return false;
    }
    let commonest_optional = (stats.props.iter())
        .filter(|p| p.present < n)
        .map(|p| p.present)
        .max();
    n >= REQUIRED_ENOUGH_OBJECTS
        || commonest_optional.is_none_or(|present| {
            let share = present as f64 / n as f64;
            share.powf(n as f64) <= REQUIRED_CHANCE
        })
}

fn object(node: &Node, flavor: Flavor, opts: &RenderOptions, depth: usize) -> Map<String, Value> {
    let mut m = typed("object");
    if node.capped > 0 || (depth >= MAX_RENDER_DEPTH && node.object.is_some()) {
        m.insert("x-ar-truncated".into(), Value::String("depth".into()));
    }
    let Some(stats) = node.object.as_deref().filter(|_| depth < MAX_RENDER_DEPTH) else {
        return m;
    };
    if let Some(values) = map_values(stats) {
        m.insert(
            "additionalProperties".into(),
            Value::Object(render_at(&values, flavor, opts, depth + 1)),
        );
    } else {
        let mut props: Vec<_> = stats.props.iter().collect();
        props.sort_by(|a, b| a.name.cmp(&b.name));
        if !props.is_empty() {
            let properties: Map<String, Value> = props
                .iter()
                .map(|p| {
                    (
                        String::from(&*p.name),
                        Value::Object(render_at(&p.node, flavor, opts, depth + 1)),
                    )
                })
                .collect();
            m.insert("properties".into(), Value::Object(properties));
        }
        let evidence = node.objects == stats.count && required_evidence(stats);
        let required: Vec<Value> = props
            .iter()
            .filter(|p| evidence && p.present == stats.count)
            .map(|p| Value::String(String::from(&*p.name)))
            .collect();
        if !required.is_empty() {
            m.insert("required".into(), Value::Array(required));
        }
        if let Some(extra) = stats.extra.as_deref() {
            m.insert(
                "additionalProperties".into(),
                Value::Object(render_at(extra, flavor, opts, depth + 1)),
            );
        }
    }
    if stats.long_keys > 0 {
        m.insert("x-ar-long-keys".into(), Value::from(stats.long_keys));
    }
    m
}

/// The merged value schema if this object position is a map, else `None`.
pub(crate) fn map_values(stats: &ObjectStats) -> Option<Node> {
    let id_keyed =
        !stats.props.is_empty() && stats.props.iter().all(|p| format::is_id_key(&p.name));
    let one_shape = stats.props.len() >= MAP_MIN_KEYS && {
        let kind = kind(&stats.props[0].node);
        stats.props.iter().all(|p| self::kind(&p.node) == kind)
    };
    if !(stats.collapsed || id_keyed || one_shape) {
        return None;
    }
    let mut values = stats.extra.as_deref().cloned().unwrap_or_default();
    for p in &stats.props {
        values.merge_from(&p.node);
    }
    Some(values)
}

/// Which non-null JSON types a position held.
fn kind(node: &Node) -> u8 {
    u8::from(node.objects > 0)
        | u8::from(node.arrays > 0) << 1
        | u8::from(node.strings.count > 0) << 2
        | u8::from(node.ints + node.floats > 0) << 3
        | u8::from(node.bools > 0) << 4
}

fn array(node: &Node, flavor: Flavor, opts: &RenderOptions, depth: usize) -> Map<String, Value> {
    let mut m = typed("array");
    let items = node
        .array
        .as_deref()
        .filter(|stats| stats.items.count() > 0);
    if node.capped > 0 || (depth >= MAX_RENDER_DEPTH && items.is_some()) {
        m.insert("x-ar-truncated".into(), Value::String("depth".into()));
    }
    if let Some(stats) = items.filter(|_| depth < MAX_RENDER_DEPTH) {
        m.insert(
            "items".into(),
            Value::Object(render_at(&stats.items, flavor, opts, depth + 1)),
        );
    } else if flavor == Flavor::OpenApi {
        // Only empty arrays were seen. OpenAPI 3.0 requires `items` on every
        // array (client generators reject one without), and `{}` says what
        // is known: any value.
        m.insert("items".into(), Value::Object(Map::new()));
    }
    m
}

fn string(node: &Node) -> Map<String, Value> {
    let s = &node.strings;
    let mut m = typed("string");
    match format::name(s.formats) {
        Some("integer") if s.count >= INTEGER_PATTERN_MIN_STRINGS => {
            m.insert("pattern".into(), Value::String(INTEGER_PATTERN.into()));
        }
        Some("integer") => {}
        Some(name) => {
            m.insert("format".into(), Value::String(name.into()));
        }
        None => {
            if let Some(values) = enum_values(node) {
                m.insert("enum".into(), Value::Array(values));
            }
        }
    }
    m
}

/// The enum for a string position, only with evidence that the set is closed.
///
/// An enum too narrow breaks every typed client on the first value it left
/// out, so the rarest value decides: when each value was seen at least
/// [`ENUM_MIN_SAMPLES_PER_VALUE`] times, a value as common as the rarest one
/// would have shown up too with probability at least `1 - e^-4` (98 %). A
/// value seen once or twice (Good–Turing: the mass of values not seen yet is
/// about the share of values seen once) says the sampling has not reached
/// the end of the set, whatever the average.
fn enum_values(node: &Node) -> Option<Vec<Value>> {
    let s = &node.strings;
    let values = s.values.as_ref()?;
    let enough = (1..=ENUM_MAX_VALUES).contains(&values.len())
        && s.count >= ENUM_MIN_SAMPLES
        && values.iter().all(|(_, n)| *n >= ENUM_MIN_SAMPLES_PER_VALUE);
    (enough && nameable(values.iter().map(|(v, _)| &**v))).then(|| {
        values
            .iter()
            .map(|(v, _)| Value::String(String::from(&**v)))
            .collect()
    })
}

/// Whether typed clients can give each value a name of its own: no two may
/// differ only in case or punctuation (`Ut`/`ut`, `in-stock`/`in_stock`).
/// Generators name enum members by folding values that way and stop at a
/// clash; and values that differ only so are more often free text than a
/// closed set.
fn nameable<'a>(values: impl Iterator<Item = &'a str>) -> bool {
    let mut folded: Vec<String> = values
        .map(|v| {
            v.chars()
                .filter(char::is_ascii_alphanumeric)
                .map(|c| c.to_ascii_lowercase())
                .collect()
        })
        .collect();
    let count = folded.len();
    folded.sort_unstable();
    folded.dedup();
    folded.len() == count
}
