//! A JSON body held against its documented schema: values of a type the schema refuses,
//! required fields missing, and fields the schema does not list.
//!
//! The schema is read through the same `SchemaView` the diff reads (once per schema, kept in
//! the drift's [`Shapes`]: `shape.rs`), so every spelling of
//! nullability, `allOf`, and a union with a `null` branch means here what it means there.
//!
//! - A *type* is checked against the view's types: an integer is a number, `2.0` is an
//!   integer, `null` needs nullability (or a schema that names no type at all).
//! - An object's keys: a listed property is walked into; a key beyond them is walked against
//!   `additionalProperties` when that is a schema, allowed when it is `true` (or there are
//!   `patternProperties`), and reported as undocumented when the schema lists properties or
//!   says `additionalProperties: false`. A free-form object (no properties listed) documents
//!   nothing to depart from. An undocumented field is not walked into.
//! - Required fields: `readOnly` ones are not expected in a request, `writeOnly` ones not in a
//!   response.
//! - A union (`oneOf`/`anyOf`): the value holds when one branch takes it without an issue;
//!   otherwise the branch with the fewest violations (then fewest issues) speaks for it, or,
//!   when no branch takes the value's type, one wrong type is reported with every branch's
//!   types. Properties the union's own schema lists (a discriminator beside `oneOf`) count in
//!   every branch.
//! - Not checked: `enum` values, formats, constraints (`minimum`, `maxLength`, `pattern`, ...),
//!   tuples, `not`, and what a discriminator maps to.
//!
//! The walk is bounded: [`MAX_DEPTH`] levels, [`MAX_ISSUES`] distinct issues per body, and
//! [`MAX_STEPS`] schema visits per body (unions inside long arrays multiply them).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::finding::{FindingKind, Issue, Location};
use super::shape::{Shape, ShapeId, Shapes};
use crate::schema_diff::push_property_segment;
use crate::types::TypeSet;

/// Levels of a body walked.
pub(crate) const MAX_DEPTH: usize = 64;
/// Distinct issues one body raises before the walk stops.
pub(super) const MAX_ISSUES: usize = 256;
/// Schema visits one body may cost.
pub(super) const MAX_STEPS: usize = 200_000;

/// Which side a body is on: what `readOnly` and `writeOnly` excuse depends on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Side {
    Request,
    Response,
}

/// A JSON value as the walk reads it: a `serde_json::Value`, or one on a tape (`tape.rs`),
/// so one walk serves a body parsed into a tree and one read onto tokens.
pub(super) trait Json<'v>: Copy {
    /// Its type as `TypeSet::of_instance` gives it (`None`: `null`).
    fn found(self) -> Option<TypeSet>;
    /// An array's items, in order (nothing for any other value).
    fn items(self) -> impl Iterator<Item = Self>;
    /// An object's members, in the order sent, a repeated key each time it was sent (nothing
    /// for any other value). Keys are UTF-8, handed over as bytes: a tape's are checked
    /// already, and a listed property is found by its bytes.
    fn members(self) -> impl Iterator<Item = (&'v [u8], Self)>;
}

impl<'v> Json<'v> for &'v Value {
    fn found(self) -> Option<TypeSet> {
        TypeSet::of_instance(self)
    }

    fn items(self) -> impl Iterator<Item = Self> {
        self.as_array().into_iter().flatten()
    }

    fn members(self) -> impl Iterator<Item = (&'v [u8], Self)> {
        (self.as_object().into_iter().flatten()).map(|(key, value)| (key.as_bytes(), value))
    }
}

/// The issues `value` raises against `schema`, at most one per kind and place.
pub(crate) fn check(shapes: &Shapes, schema: ShapeId, value: &Value, side: Side) -> Vec<Issue> {
    let mut walk = Walk::new(shapes, side, MAX_STEPS, Vec::new());
    walk.check(schema, value, &mut String::from("$"), 0);
    walk.issues()
}

/// The buffers a walk writes as it goes, kept from one body to the next so that a walk does
/// not allocate them for each (they were a tenth of a small body's walk).
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    pub(super) seen: Vec<bool>,
    pub(super) path: String,
}

/// The issues of one walk, at most one per kind and place.
type Issues = BTreeMap<(FindingKind, String), Issue>;

pub(super) struct Walk<'s> {
    pub(super) shapes: &'s Shapes,
    side: Side,
    location: Location,
    pub(super) issues: Issues,
    pub(super) steps: usize,
    /// For each object being walked: which of its listed properties have been met, then which
    /// of its required names that are not listed.
    pub(super) seen: Vec<bool>,
    /// A key the walk checks was met twice in one object (only a body on a tape can have
    /// one): a `Value` keeps the last, so the walk over it decides, and this one stops.
    pub(super) repeated_key: bool,
}

impl<'s> Walk<'s> {
    /// A walk of at most `steps` schema visits; `seen` is lent to it (see [`Scratch`]), and
    /// what it holds is kept.
    pub(super) fn new(shapes: &'s Shapes, side: Side, steps: usize, seen: Vec<bool>) -> Walk<'s> {
        Walk {
            shapes,
            side,
            location: match side {
                Side::Request => Location::RequestBody,
                Side::Response => Location::Response,
            },
            issues: BTreeMap::new(),
            steps,
            seen,
            repeated_key: false,
        }
    }

    /// The issues found, in kind and place order.
    pub(super) fn issues(self) -> Vec<Issue> {
        // Most bodies raise none, and even an empty map's values cost a hundred to collect.
        if self.issues.is_empty() {
            return Vec::new();
        }
        self.issues.into_values().collect()
    }

    /// Whether the walk went the whole way: no bound cut it short and no checked key
    /// repeated, so the order the members came in changed nothing (issues are kept by kind
    /// and place, and each place is one schema's).
    pub(super) fn whole(&self) -> bool {
        self.steps > 0 && self.issues.len() < MAX_ISSUES && !self.repeated_key
    }

    /// Raises `kind` at `path`; `found` is the type of the value there (see
    /// [`TypeSet::name_of`]).
    fn raise(
        &mut self,
        kind: FindingKind,
        path: &str,
        expected: Option<&str>,
        found: &'static str,
    ) {
        if let Some(issue) = self.issues.get_mut(&(kind, path.to_owned())) {
            if kind == FindingKind::WrongType {
                issue.found.insert(found);
            }
            return;
        }
        if self.issues.len() >= MAX_ISSUES {
            return;
        }
        let mut issue = Issue::new(kind, self.location, path);
        issue.expected = expected.map(str::to_owned);
        if kind == FindingKind::WrongType {
            issue.found.insert(found);
        }
        self.issues.insert((kind, path.to_owned()), issue);
    }

    fn spent(&mut self) -> bool {
        if self.steps == 0 || self.issues.len() >= MAX_ISSUES || self.repeated_key {
            return true;
        }
        self.steps -= 1;
        false
    }

    /// Whether `value` (at `depth`) is a scalar that `id`'s schema takes, as most values are:
    /// walking it would only spend its step, which this does, so its place in `path` need not
    /// be written nor the walk entered. `false` (nothing spent) for any other value. Inlined:
    /// it is asked of every value, and a call cost a fifth of it.
    #[inline]
    fn takes_scalar<'v>(&mut self, id: ShapeId, value: impl Json<'v>, depth: usize) -> bool {
        let shape = self.shapes.get(id);
        if depth > MAX_DEPTH || shape.unresolved || !shape.branches.is_empty() {
            return false;
        }
        let found = value.found();
        let container = found == Some(TypeSet::OBJECT) || found == Some(TypeSet::ARRAY);
        if container || !accepts(shape, found) {
            return false;
        }
        // A walk with no steps left (or cut short) would do nothing with the value either.
        self.spent();
        true
    }

    pub(super) fn check<'v>(
        &mut self,
        id: ShapeId,
        value: impl Json<'v>,
        path: &mut String,
        depth: usize,
    ) {
        let shape = self.shapes.get(id);
        if depth > MAX_DEPTH || self.spent() || shape.unresolved {
            return;
        }
        if !shape.branches.is_empty() {
            self.check_union(shape, value, path, depth);
            return;
        }
        let found = value.found();
        if !accepts(shape, found) {
            let found = TypeSet::name_of(found);
            self.raise(FindingKind::WrongType, path, Some(&shape.expected), found);
            return;
        }
        if found == Some(TypeSet::OBJECT) {
            self.check_object(shape, value, path, depth);
        } else if let Some(items_shape) = shape.items.filter(|_| found == Some(TypeSet::ARRAY)) {
            let mark = path.len();
            path.push_str("[*]");
            for item in value.items() {
                if !self.takes_scalar(items_shape, item, depth + 1) {
                    self.check(items_shape, item, path, depth + 1);
                }
            }
            path.truncate(mark);
        }
    }

    fn check_object<'v>(
        &mut self,
        shape: &Shape,
        object: impl Json<'v>,
        path: &mut String,
        depth: usize,
    ) {
        let lists_keys = !shape.properties.is_empty() || shape.other_keys == Some(false);
        let mark = path.len();
        let base = self.seen.len();
        let listed = shape.properties.len();
        self.seen
            .resize(base + listed + shape.required.len(), false);
        let mut others: BTreeSet<&[u8]> = BTreeSet::new();
        let mut required_seen = 0;
        for (key, child) in object.members() {
            if let Some(property) = shape.properties.get(key) {
                let slot = &mut self.seen[base + property.index];
                if std::mem::replace(slot, true) {
                    self.repeated_key = true;
                    return;
                }
                required_seen += usize::from(property.required);
                if self.takes_scalar(property.shape, child, depth + 1) {
                    continue;
                }
                path.push_str(&property.segment);
                self.check(property.shape, child, path, depth + 1);
                path.truncate(mark);
                continue;
            }
            if !shape.required_listed {
                let first = shape.required.partition_point(|r| r.name.as_bytes() < key);
                for (at, required) in shape.required.iter().enumerate().skip(first) {
                    if required.name.as_bytes() != key {
                        break;
                    }
                    self.seen[base + listed + at] = true;
                }
            }
            if let Some(additional) = shape.additional {
                if !others.insert(key) {
                    self.repeated_key = true;
                    return;
                }
                if !self.takes_scalar(additional, child, depth + 1) {
                    path.push_str(".*");
                    self.check(additional, child, path, depth + 1);
                }
            } else if shape.other_keys != Some(true) && lists_keys {
                push_property_segment(path, &String::from_utf8_lossy(key));
                self.raise(FindingKind::UndocumentedField, path, None, "");
            }
            path.truncate(mark);
        }
        if !(shape.required_listed && required_seen == shape.required.len()) {
            for (at, required) in shape.required.iter().enumerate() {
                let excused = match self.side {
                    Side::Request => required.read_only,
                    Side::Response => required.write_only,
                };
                let met = match shape.properties.get(required.name.as_bytes()) {
                    Some(property) => self.seen[base + property.index],
                    None => self.seen[base + listed + at],
                };
                if excused || met {
                    continue;
                }
                push_property_segment(path, &required.name);
                self.raise(FindingKind::MissingRequiredField, path, None, "");
                path.truncate(mark);
            }
        }
        self.seen.truncate(base);
    }

    fn check_union<'v>(&mut self, shape: &Shape, value: impl Json<'v>, path: &str, depth: usize) {
        let mut best: Option<(usize, usize, Issues)> = None;
        let mut types = TypeSet::ANY;
        let mut type_refused_everywhere = true;
        for &branch in &shape.branches {
            types = types.union(self.shapes.get(branch).types);
            let seen = std::mem::take(&mut self.seen);
            let mut walk = Walk::new(self.shapes, self.side, self.steps, seen);
            walk.check(branch, value, &mut path.to_owned(), depth + 1);
            self.seen = std::mem::take(&mut walk.seen);
            self.steps = walk.steps;
            self.repeated_key |= walk.repeated_key;
            if walk.issues.is_empty() {
                return;
            }
            let refused_here = walk
                .issues
                .contains_key(&(FindingKind::WrongType, path.to_owned()));
            type_refused_everywhere &= refused_here;
            let violations = walk
                .issues
                .keys()
                .filter(|(kind, _)| *kind != FindingKind::UndocumentedField)
                .count();
            let rank = (violations, walk.issues.len());
            if best.as_ref().is_none_or(|(v, n, _)| rank < (*v, *n)) {
                best = Some((rank.0, rank.1, walk.issues));
            }
        }
        if type_refused_everywhere {
            let expected = if types.is_any() {
                "one of its variants".to_owned()
            } else {
                types.describe(None)
            };
            let found = TypeSet::name_of(value.found());
            self.raise(FindingKind::WrongType, path, Some(&expected), found);
            return;
        }
        for (_, issue) in best.map(|(_, _, issues)| issues).into_iter().flatten() {
            if self.issues.len() >= MAX_ISSUES {
                break;
            }
            let key = (issue.kind, issue.name.clone());
            match self.issues.get_mut(&key) {
                Some(existing) => existing.found.extend(issue.found),
                None => {
                    self.issues.insert(key, issue);
                }
            }
        }
    }
}

/// Whether the shape's types (and nullability) take a value of type `found` (`None`: `null`).
pub(super) fn accepts(shape: &Shape, found: Option<TypeSet>) -> bool {
    match found {
        None => shape.nullable || shape.types.is_any(),
        Some(found) => shape.types.contains(found),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use serde_json::{Map, json};

    use super::*;

    /// The issues of `value` against `schema`, compiled into `shapes` first.
    fn compiled(
        shapes: &mut Shapes,
        root: &Value,
        schema: &Value,
        value: &Value,
        side: Side,
    ) -> Vec<Issue> {
        let id = shapes.compile(root, schema);
        check(shapes, id, value, side)
    }

    fn issues(root: &Value, schema: &Value, value: &Value, side: Side) -> Vec<String> {
        compiled(&mut Shapes::default(), root, schema, value, side)
            .into_iter()
            .map(|i| {
                let found: Vec<&str> = i.found.into_iter().collect();
                format!(
                    "{} {} {} {}",
                    i.kind.id(),
                    i.name,
                    i.expected.unwrap_or_default(),
                    found.join("|")
                )
                .trim_end()
                .to_owned()
            })
            .collect()
    }

    /// A document whose schemas the body tests here and in `tape` hold bodies against.
    pub(in crate::drift) fn root() -> Value {
        json!({"components": {"schemas": {
            "User": {
                "type": "object",
                "required": ["id", "name", "password"],
                "properties": {
                    "id": {"type": "integer", "readOnly": true},
                    "name": {"type": "string"},
                    "age": {"type": "integer", "nullable": true},
                    "password": {"type": "string", "writeOnly": true},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "meta": {"type": "object", "additionalProperties": {"type": "number"}},
                    "free": {"type": "object"},
                    "pet": {"$ref": "#/components/schemas/Pet"},
                    "grid": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}
                }
            },
            "Pet": {
                "type": "object",
                "required": ["kind"],
                "properties": {"kind": {"type": "string"}},
                "oneOf": [
                    {"properties": {"kind": {}, "bark": {"type": "boolean"}}},
                    {"properties": {"kind": {}, "meow": {"type": "boolean"}}, "required": ["lives"]}
                ]
            },
            "Node": {
                "type": "object",
                "properties": {
                    "v": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                    "next": {"$ref": "#/components/schemas/Node"}
                }
            }
        }}})
    }

    #[test]
    fn types_required_fields_and_undocumented_fields() {
        let root = root();
        let user = json!({"$ref": "#/components/schemas/User"});
        let good = json!({"id": 1, "name": "a", "age": null, "tags": ["x"],
                          "meta": {"a": 1.5, "b": 2}, "free": {"anything": [1]}});
        assert_eq!(
            issues(&root, &user, &good, Side::Response),
            Vec::<String>::new()
        );
        let bad = json!({"id": 2.0, "name": null, "age": "3", "tags": ["x", 4, null],
                         "meta": {"a": "no"}, "extra": {"deep": 1}});
        assert_eq!(
            issues(&root, &user, &bad, Side::Response),
            [
                "wrong_type $.age integer string",
                "wrong_type $.meta.* number string",
                "wrong_type $.name string null",
                "wrong_type $.tags[*] string integer|null",
                "undocumented_field $.extra",
            ]
        );
        // A request need not send the read-only id, a response need not show the password.
        assert_eq!(
            issues(&root, &user, &json!({"name": "a"}), Side::Request),
            ["missing_required_field $.password"]
        );
        assert_eq!(
            issues(&root, &user, &json!({"name": "a"}), Side::Response),
            ["missing_required_field $.id"]
        );
    }

    #[test]
    fn unions_take_the_branch_that_holds_or_speak_through_the_closest() {
        let root = root();
        let pet = json!({
            "type": "object",
            "required": ["kind"],
            "properties": {"kind": {"type": "string"}},
            "oneOf": [
                {"properties": {"kind": {}, "bark": {"type": "boolean"}}},
                {"properties": {"kind": {}, "meow": {"type": "boolean"}}, "required": ["lives"]}
            ]
        });
        let dog = json!({"kind": "dog", "bark": true});
        assert_eq!(
            issues(&root, &pet, &dog, Side::Response),
            Vec::<String>::new()
        );
        let odd = json!({"kind": "dog", "bark": "loud"});
        assert_eq!(
            issues(&root, &pet, &odd, Side::Response),
            ["wrong_type $.bark boolean string"]
        );
        let scalar = json!({"oneOf": [{"type": "string"}, {"type": "integer"}], "nullable": true});
        assert_eq!(
            issues(&root, &scalar, &json!(null), Side::Response),
            Vec::<String>::new()
        );
        assert_eq!(
            issues(&root, &scalar, &json!([1]), Side::Response),
            ["wrong_type $ string | integer array"]
        );
    }

    #[test]
    fn schemas_compiled_for_other_bodies_change_no_issue() {
        let root = root();
        let cases = [
            (
                json!({"$ref": "#/components/schemas/User"}),
                json!({"id": 2.0, "x": [1]}),
            ),
            (
                json!({"type": "array", "items": {"$ref": "#/components/schemas/User"}}),
                json!([{"name": 1, "tags": [null]}, {"meta": {"a": "b"}}]),
            ),
            (
                json!({"anyOf": [{"$ref": "#/components/schemas/User"}, {"type": "string"}]}),
                json!({"name": "a", "password": 3}),
            ),
            (
                json!({"oneOf": [{"type": "string"}, {"type": "integer"}]}),
                json!([true]),
            ),
        ];
        let mut shapes = Shapes::default();
        for _warm in [false, true] {
            for (schema, value) in &cases {
                for side in [Side::Request, Side::Response] {
                    let cold = compiled(&mut Shapes::default(), &root, schema, value, side);
                    let shared = compiled(&mut shapes, &root, schema, value, side);
                    assert_eq!(format!("{shared:?}"), format!("{cold:?}"));
                }
            }
        }
    }

    #[test]
    fn closed_objects_and_odd_keys() {
        let root = json!({});
        let closed = json!({"type": "object", "additionalProperties": false});
        assert_eq!(
            issues(&root, &closed, &json!({"a b": 1}), Side::Request),
            ["undocumented_field $['a b']"]
        );
        let open = json!({"properties": {"a": {}}, "additionalProperties": true});
        assert_eq!(
            issues(&root, &open, &json!({"b": 1}), Side::Request),
            Vec::<String>::new()
        );
        let patterned = json!({"properties": {"a": {}}, "patternProperties": {"^x": {}}});
        assert_eq!(
            issues(&root, &patterned, &json!({"x1": 1}), Side::Request),
            Vec::<String>::new()
        );
    }

    #[test]
    fn walks_are_bounded() {
        let root = json!({});
        let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        let mut wide = Map::new();
        for i in 0..1000 {
            wide.insert(format!("k{i}"), json!(i));
        }
        assert_eq!(
            compiled(
                &mut Shapes::default(),
                &root,
                &schema,
                &Value::Object(wide),
                Side::Response
            )
            .len(),
            MAX_ISSUES
        );
        let mut deep = json!(1);
        let mut nested = json!({"type": "string"});
        for _ in 0..200 {
            deep = json!([deep]);
            nested = json!({"type": "array", "items": nested});
        }
        assert!(
            compiled(
                &mut Shapes::default(),
                &root,
                &nested,
                &deep,
                Side::Response
            )
            .is_empty()
        );
    }
}
