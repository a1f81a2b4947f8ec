//! A JSON body checked as it is parsed, with no `serde_json::Value` built for it.
//!
//! The check is the walk of `body.rs`, node for node: a [`Node`] seed carries a shape through
//! serde_json's parser and raises what the walk would raise on the value there. A scalar is
//! only type-checked (a string is seen borrowed when it has no escapes); an array's items and
//! an object's values are checked in turn; what no walk looks into (an undocumented field, a
//! free-form object, anything past the depth bound or the step bound) is parsed and dropped.
//! Numbers are parsed as the value would have them (an out-of-range one fails the body), so
//! the text is JSON exactly when `serde_json::from_slice::<Value>` takes it.
//!
//! Two things are buffered or handed back to the walk over a value:
//!
//! - A union (`oneOf`/`anyOf`) holds its value against each branch in turn, so that value is
//!   read into a `Value` and walked as before.
//! - The walk over a value meets an object's keys in name order, the text in the order sent.
//!   Issues are kept by kind and place, and each place is one schema's (a path names each
//!   step: a property, `.*` for `additionalProperties`, `[*]` for items), so the order changes
//!   an issue only where the walk's bounds cut in: when the check hits [`MAX_ISSUES`] or its
//!   step bound, the body is read into a `Value` and walked instead.
//! - A repeated key: a `Value` keeps its last value, this check would see each. A key that is
//!   checked (a listed property, or one `additionalProperties` speaks for) met twice in one
//!   object sends the body to the walk over its value; one that is not checked (an
//!   undocumented field, a free-form object's) raises or skips the same thing each time.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::fmt;

use serde::de::{Deserialize, Visitor};
use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess};
use serde_json::Value;

use super::body::{self, MAX_DEPTH, MAX_ISSUES, Side, Walk, accepts};
use super::finding::{FindingKind, Issue};
use super::shape::{ShapeId, Shapes};
use crate::schema_diff::push_property_segment;
use crate::types::TypeSet;

/// The issues the JSON `text` raises against `schema` (`None`: it is only read), or `None`
/// when the text is not JSON.
pub(crate) fn check(
    shapes: &Shapes,
    schema: Option<ShapeId>,
    text: &[u8],
    side: Side,
) -> Option<Vec<Issue>> {
    match (streamed(shapes, schema, text, side), schema) {
        (Outcome::Checked(issues), _) => Some(issues),
        (Outcome::OrderMatters, Some(id)) => {
            let value: Value = serde_json::from_slice(text).ok()?;
            Some(body::check(shapes, id, &value, side))
        }
        (Outcome::NotJson | Outcome::OrderMatters, _) => None,
    }
}

/// What checking a text as it is parsed came to.
#[derive(Debug)]
enum Outcome {
    Checked(Vec<Issue>),
    NotJson,
    /// The order keys are met in could change an issue: the walk over the value decides.
    OrderMatters,
}

fn streamed(shapes: &Shapes, schema: Option<ShapeId>, text: &[u8], side: Side) -> Outcome {
    let mut de = serde_json::Deserializer::from_slice(text);
    let mut stream = Stream {
        walk: Walk::new(shapes, side, body::MAX_STEPS),
        path: String::from("$"),
        seen: Vec::new(),
        repeated_key: false,
    };
    let read = match schema {
        Some(id) => Node {
            stream: &mut stream,
            id,
            depth: 0,
        }
        .deserialize(&mut de),
        None => Skip::deserialize(&mut de).map(|Skip| ()),
    }
    .and_then(|()| de.end());
    let walk = stream.walk;
    if stream.repeated_key || walk.steps == 0 || walk.issues.len() >= MAX_ISSUES {
        return Outcome::OrderMatters;
    }
    match read {
        Ok(()) => Outcome::Checked(walk.issues.into_values().collect()),
        Err(_) => Outcome::NotJson,
    }
}

/// One check under way.
struct Stream<'s> {
    walk: Walk<'s>,
    path: String,
    /// For each object being read: which of its listed properties have been met, then which
    /// of its required names that are not listed.
    seen: Vec<bool>,
    /// A repeated key was met where it is checked: the walk over the value decides.
    repeated_key: bool,
}

/// The value next in the text, held against shape `id` at `depth`.
struct Node<'a, 's> {
    stream: &'a mut Stream<'s>,
    id: ShapeId,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Node<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        let shapes = self.stream.walk.shapes;
        let shape = shapes.get(self.id);
        if self.depth > MAX_DEPTH {
            return de.deserialize_any(Skip);
        }
        if !shape.branches.is_empty() {
            let value = Value::deserialize(de)?;
            let stream = self.stream;
            stream
                .walk
                .check(self.id, &value, &mut stream.path, self.depth);
            return Ok(());
        }
        if self.stream.walk.spent() || shape.unresolved {
            return de.deserialize_any(Skip);
        }
        de.deserialize_any(self)
    }
}

impl Node<'_, '_> {
    /// Whether a value of type `found` is taken here; a wrong type raised if not.
    fn takes(&mut self, found: Option<TypeSet>) -> bool {
        let shapes = self.stream.walk.shapes;
        let shape = shapes.get(self.id);
        if accepts(shape, found) {
            return true;
        }
        let stream = &mut *self.stream;
        stream.walk.raise(
            FindingKind::WrongType,
            &stream.path,
            Some(&shape.expected),
            TypeSet::name_of(found),
        );
        false
    }

    fn scalar<E>(mut self, found: Option<TypeSet>) -> Result<(), E> {
        self.takes(found);
        Ok(())
    }
}

impl<'de> Visitor<'de> for Node<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        self.scalar(Some(TypeSet::BOOLEAN))
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        self.scalar(Some(TypeSet::INTEGER))
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        self.scalar(Some(TypeSet::INTEGER))
    }

    fn visit_f64<E>(self, n: f64) -> Result<(), E> {
        // As `Value` holds it: a float that is not finite is `null`, one with no fraction an
        // integer (JSON Schema's count).
        let found = if !n.is_finite() {
            None
        } else if n.fract() == 0.0 {
            Some(TypeSet::INTEGER)
        } else {
            Some(TypeSet::NUMBER)
        };
        self.scalar(found)
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        self.scalar(Some(TypeSet::STRING))
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        self.scalar(None)
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        if !self.takes(Some(TypeSet::ARRAY)) {
            return Skip.visit_seq(seq);
        }
        let stream = self.stream;
        let shapes = stream.walk.shapes;
        let Some(items) = shapes.get(self.id).items else {
            return Skip.visit_seq(seq);
        };
        let mark = stream.path.len();
        stream.path.push_str("[*]");
        let depth = self.depth + 1;
        while seq
            .next_element_seed(Node {
                stream: &mut *stream,
                id: items,
                depth,
            })?
            .is_some()
        {}
        stream.path.truncate(mark);
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(mut self, mut map: A) -> Result<(), A::Error> {
        if !self.takes(Some(TypeSet::OBJECT)) {
            return Skip.visit_map(map);
        }
        let stream = self.stream;
        let shapes = stream.walk.shapes;
        let shape = shapes.get(self.id);
        let depth = self.depth + 1;
        let lists_keys = !shape.properties.is_empty() || shape.other_keys == Some(false);
        let mark = stream.path.len();
        let base = stream.seen.len();
        let listed = shape.properties.len();
        stream
            .seen
            .resize(base + listed + shape.required.len(), false);
        let mut others: BTreeSet<Cow<'de, str>> = BTreeSet::new();
        let mut required_seen = 0;
        while let Some(key) = map.next_key_seed(Key)? {
            if let Some(property) = shape.properties.get(&*key) {
                let slot = &mut stream.seen[base + property.index];
                if *slot {
                    stream.repeated_key = true;
                    return Err(A::Error::custom("a repeated key"));
                }
                *slot = true;
                required_seen += usize::from(property.required);
                stream.path.push_str(&property.segment);
                map.next_value_seed(Node {
                    stream: &mut *stream,
                    id: property.shape,
                    depth,
                })?;
                stream.path.truncate(mark);
                continue;
            }
            if !shape.required_listed {
                let first = shape.required.partition_point(|r| *r.name < *key);
                for (at, required) in shape.required.iter().enumerate().skip(first) {
                    if *required.name != *key {
                        break;
                    }
                    stream.seen[base + listed + at] = true;
                }
            }
            if let Some(additional) = shape.additional {
                if !others.insert(key) {
                    stream.repeated_key = true;
                    return Err(A::Error::custom("a repeated key"));
                }
                stream.path.push_str(".*");
                map.next_value_seed(Node {
                    stream: &mut *stream,
                    id: additional,
                    depth,
                })?;
            } else {
                if shape.other_keys != Some(true) && lists_keys {
                    push_property_segment(&mut stream.path, &key);
                    stream
                        .walk
                        .raise(FindingKind::UndocumentedField, &stream.path, None, "");
                }
                map.next_value::<Skip>()?;
            }
            stream.path.truncate(mark);
        }
        if !(shape.required_listed && required_seen == shape.required.len()) {
            for (at, required) in shape.required.iter().enumerate() {
                let excused = match stream.walk.side() {
                    Side::Request => required.read_only,
                    Side::Response => required.write_only,
                };
                let met = match shape.properties.get(&required.name) {
                    Some(property) => stream.seen[base + property.index],
                    None => stream.seen[base + listed + at],
                };
                if excused || met {
                    continue;
                }
                push_property_segment(&mut stream.path, &required.name);
                stream
                    .walk
                    .raise(FindingKind::MissingRequiredField, &stream.path, None, "");
                stream.path.truncate(mark);
            }
        }
        stream.seen.truncate(base);
        Ok(())
    }
}

/// An object's key, borrowed from the text unless it has escapes.
struct Key;

impl<'de> DeserializeSeed<'de> for Key {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Cow<'de, str>, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Key {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(key))
    }

    fn visit_str<E>(self, key: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(key.to_owned()))
    }
}

/// A value read and dropped. Numbers are read as `Value` reads them (serde's `IgnoredAny`
/// through serde_json only scans them, so `1e999` would pass), so a text this skips is one
/// `Value` takes.
struct Skip;

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(de: D) -> Result<Skip, D::Error> {
        de.deserialize_any(Skip).map(|()| Skip)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<Skip>()?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_key::<Skip>()?.is_some() {
            map.next_value::<Skip>()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::drift::body::tests::root;

    /// Schemas, each with bodies, every one held both ways.
    fn corpus() -> Vec<(Value, Vec<String>)> {
        let user = json!({"$ref": "#/components/schemas/User"});
        let texts = |t: &[&str]| t.iter().map(|t| (*t).to_owned()).collect::<Vec<_>>();
        let mut deep = String::from("1");
        let mut too_deep = String::from("1");
        for level in 0..200 {
            if level < 100 {
                deep = format!("[{deep}]");
            }
            too_deep = format!("[{too_deep}]");
        }
        let mut nested = json!({"type": "string"});
        for _ in 0..100 {
            nested = json!({"type": "array", "items": nested});
        }
        let wide: Vec<String> = (0..1000).map(|i| format!("\"k{i}\": {i}")).collect();
        let long = format!("[{}]", vec!["1"; 210_000].join(","));
        vec![
            (
                user.clone(),
                texts(&[
                    r#"{"id": 1, "name": "a", "age": null, "tags": ["x"], "meta": {"a": 1.5, "b": 2}, "free": {"anything": [1]}}"#,
                    r#"{"id": 2.0, "name": null, "age": "3", "tags": ["x", 4, null], "meta": {"a": "no"}, "extra": {"deep": 1}}"#,
                    r#"{"name": "a"}"#,
                    r#"{}"#,
                    r#"[]"#,
                    r#""user""#,
                    r#"null"#,
                    r#"{"name": "a", "pet": {"kind": "dog", "bark": true}}"#,
                    r#"{"name": "a", "pet": {"kind": "dog", "bark": "loud"}}"#,
                    r#"{"name": "a", "pet": {"kind": 3, "meow": 1}}"#,
                    r#"{"name": "a", "pet": [1]}"#,
                    r#"{"grid": [[1, 2.5], [3, "x"], "row", [[1]]], "tags": [[1], {"a": 1}]}"#,
                    r#"{"id": 18446744073709551616, "age": -9223372036854775809, "name": 1e3}"#,
                    r#"{"id": 123456789012345678901234567890, "age": 1.0e2, "meta": {"x": -0, "y": 1E-2}}"#,
                    r#"{"id": 1e400}"#,
                    r#"{"n\u0061me": 1, "\u00e9t\u00e9": true, "tags": ["\ud83d\ude00", "\u0000"]}"#,
                    r#"{"name": "\ud800"}"#,
                    r#"{"name": "a", "name": 1}"#,
                    r#"{"name": 1, "name": "a"}"#,
                    r#"{"name": 1, "n\u0061me": "a"}"#,
                    r#"{"meta": {"a": 1, "a": "x"}}"#,
                    r#"{"meta": {"a": "x", "a": 1}}"#,
                    r#"{"extra": 1, "extra": 2, "free": {"a": 1, "a": [1]}}"#,
                    r#"{"id": 1, "name": "a"#,
                    r#"{"id": 1, "name": "a""#,
                    r#"{"tags": ["x", 1"#,
                    r#"{"id": 1,}"#,
                    r#"{"id": 1} x"#,
                    "",
                    "   ",
                    r#"{"id": 01}"#,
                    r#"{"id": NaN}"#,
                    "{\"name\": \"tab\there\"}",
                ]),
            ),
            (
                json!({"type": "array", "items": {"$ref": "#/components/schemas/User"}}),
                texts(&[
                    r#"[{"name": 1, "tags": [null]}, {"meta": {"a": "b"}}, 3, null]"#,
                    r#"[{"name": "a", "password": "p"}, {"name": "b", "id": 3, "name": "c"}]"#,
                    r#"[{"name": "a"}, {"name": "b"]"#,
                ]),
            ),
            (
                json!({"$ref": "#/components/schemas/Node"}),
                texts(&[
                    r#"{"v": "a", "next": {"v": 1, "next": {"v": true, "next": {"v": [1], "z": 1}}}}"#,
                    r#"{"v": null, "next": null}"#,
                    r#"{"v": 1, "v": "x"}"#,
                ]),
            ),
            (
                json!({"anyOf": [{"$ref": "#/components/schemas/User"}, {"type": "string"}]}),
                texts(&[
                    r#"{"name": "a", "password": 3}"#,
                    r#""s""#,
                    r#"1.5"#,
                    r#"{"name": "a", "name": 2}"#,
                    r#"{"name": "a""#,
                ]),
            ),
            (
                json!({"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": true}),
                texts(&["null", "[1]", "2.0", "2.5", "true", "{\"a\": 1}"]),
            ),
            (
                json!({"type": "object", "additionalProperties": false}),
                texts(&[
                    r#"{"a b": 1, "c'd": 2, "e\\f": 3}"#,
                    "{}",
                    r#"{"a": 1, "a": 2}"#,
                ]),
            ),
            (
                json!({"properties": {"a": {"type": "integer"}}, "additionalProperties": true}),
                texts(&[r#"{"b": 1, "a": "x"}"#]),
            ),
            (
                json!({"properties": {"a": {}}, "patternProperties": {"^x": {}}}),
                texts(&[r#"{"x1": 1, "b": 2}"#]),
            ),
            (
                // Required names not all listed, one twice.
                json!({"type": "object", "required": ["z", "a", "b", "b"], "properties": {"a": {}},
                       "additionalProperties": {"type": "string"}}),
                texts(&[
                    r#"{"a": 1}"#,
                    r#"{"b": "x", "z": 2}"#,
                    r#"{"z": "x", "b": "y", "a": 1}"#,
                ]),
            ),
            (
                json!({"type": "object", "required": ["b"], "properties": {"a": {"type": "string"}}}),
                texts(&[
                    r#"{"a": "x"}"#,
                    r#"{"b": null, "a": 1}"#,
                    &format!("{{{}}}", wide.join(",")),
                ]),
            ),
            (
                json!({"$ref": "#/components/schemas/Missing"}),
                texts(&[r#"{"a": 1}"#, "[1"]),
            ),
            (nested, vec![deep, too_deep]),
            (
                json!({"type": "array", "items": {"type": "integer"}}),
                vec![long],
            ),
        ]
    }

    /// Each body of the corpus, through this check and through the walk over its value.
    #[test]
    fn checks_as_the_walk_over_the_value_does() {
        let root = root();
        let mut shapes = Shapes::default();
        let mut outcomes = Vec::new();
        // Schemas are known by their address: each must stay where it is.
        let corpus = corpus();
        for (schema, texts) in &corpus {
            let id = shapes.compile(&root, schema);
            for text in texts {
                for side in [Side::Request, Side::Response] {
                    let walked = serde_json::from_str::<Value>(text)
                        .ok()
                        .map(|value| body::check(&shapes, id, &value, side));
                    let checked = check(&shapes, Some(id), text.as_bytes(), side);
                    let short: String = text.chars().take(120).collect();
                    assert_eq!(format!("{checked:?}"), format!("{walked:?}"), "{short}");
                    let read = check(&shapes, None, text.as_bytes(), side);
                    assert_eq!(read.is_some(), walked.is_some(), "{short}");
                    if side == Side::Response {
                        let outcome = match streamed(&shapes, Some(id), text.as_bytes(), side) {
                            Outcome::Checked(_) => "checked",
                            Outcome::NotJson => "not json",
                            Outcome::OrderMatters => "walked",
                        };
                        outcomes.push((short, outcome));
                    }
                }
            }
        }
        // The value is read only where a key repeats or a bound cuts in.
        let walked: Vec<&str> = outcomes
            .iter()
            .filter(|(_, outcome)| *outcome == "walked")
            .map(|(text, _)| text.get(..30).unwrap_or(text))
            .collect();
        assert_eq!(
            walked,
            [
                r#"{"name": "a", "name": 1}"#,
                r#"{"name": 1, "name": "a"}"#,
                r#"{"name": 1, "n\u0061me": "a"}"#,
                r#"{"meta": {"a": 1, "a": "x"}}"#,
                r#"{"meta": {"a": "x", "a": 1}}"#,
                r#"[{"name": "a", "password": "p""#,
                r#"{"v": 1, "v": "x"}"#,
                r#"{"k0": 0,"k1": 1,"k2": 2,"k3":"#,
                r#"[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"#,
            ]
        );
        let not_json = outcomes.iter().filter(|(_, o)| *o == "not json").count();
        assert_eq!(not_json, 16);
    }

    #[test]
    fn a_repeated_key_counts_as_a_value_holds_it_its_last() {
        let root = root();
        let mut shapes = Shapes::default();
        let id = shapes.compile(&root, &json!({"$ref": "#/components/schemas/User"}));
        let names = |text: &str| -> Vec<String> {
            check(&shapes, Some(id), text.as_bytes(), Side::Request)
                .expect("JSON")
                .into_iter()
                .map(|issue| format!("{} {}", issue.kind.id(), issue.name))
                .collect()
        };
        assert_eq!(
            names(r#"{"name": 1, "password": "p", "name": "a"}"#),
            Vec::<String>::new()
        );
        assert_eq!(
            names(r#"{"name": "a", "password": "p", "name": 1}"#),
            ["wrong_type $.name"]
        );
        assert_eq!(
            names(r#"{"name": "a", "password": "p", "meta": {"a": "x", "a": 1}}"#),
            Vec::<String>::new()
        );
        // Keys not checked may repeat without the value being read.
        let text = r#"{"name": "a", "password": "p", "x": 1, "x": 2, "free": {"a": 1, "a": 2}}"#;
        assert!(matches!(
            streamed(&shapes, Some(id), text.as_bytes(), Side::Request),
            Outcome::Checked(issues) if issues.len() == 1
        ));
    }
}
