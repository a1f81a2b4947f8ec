//! One schema object read into the facts a comparison needs, whatever the spelling.
//!
//! The same contract can be written many ways; a view reads them alike so that a document
//! rewritten by another tool compares equal to its source:
//!
//! - nullability: 3.0's `nullable: true`, 3.1's `type: [x, "null"]`, `null` in an `enum`, and a
//!   `oneOf`/`anyOf` branch that is only `null` (`anyOf: [{$ref: X}, {type: "null"}]`);
//! - a union left with one branch once its `null` branch is gone is that branch;
//! - `allOf` members are merged: properties (the first definition of a name wins), `required`
//!   lists joined, the first explicit type, format, enum, items and variants when the schema
//!   has none of its own;
//! - a schema without `type` is an object when it has an object keyword (`properties`, even
//!   empty, `required`, `additionalProperties`, ...), an array when it has an array keyword
//!   (`items`, `minItems`, ...), the type of its enum values when it has an enum, and any type
//!   otherwise;
//! - `const: x` is `enum: [x]`.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::refs;
use crate::types::TypeSet;

/// How deep `allOf` members (and single-branch unions) are merged into one view.
const MAX_MERGE_DEPTH: usize = 16;
/// How many schemas at most are merged into one view (`allOf: [A, A, A]` nested in each
/// `A` would otherwise take exponential time).
const MAX_MERGED: usize = 256;

/// The keyword of a union.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Combinator {
    /// `oneOf`: exactly one branch holds.
    OneOf,
    /// `anyOf`: at least one branch holds.
    AnyOf,
}

/// The comparable facts of one schema.
#[derive(Clone, Debug, Default)]
pub(crate) struct SchemaView<'a> {
    pub(crate) types: TypeSet,
    explicit_types: bool,
    pub(crate) format: Option<&'a str>,
    pub(crate) nullable: bool,
    /// The allowed values, `null` aside; `None` when any value of the types is allowed.
    pub(crate) enum_values: Option<Vec<&'a Value>>,
    pub(crate) properties: BTreeMap<&'a str, &'a Value>,
    pub(crate) required: BTreeSet<&'a str>,
    pub(crate) items: Option<&'a Value>,
    /// `additionalProperties` when it is a schema (a map's values).
    pub(crate) additional: Option<&'a Value>,
    /// Whether keys beyond `properties` are allowed, when the schema says: `true` for
    /// `additionalProperties: true` or a schema, or `patternProperties`; `false` for
    /// `additionalProperties: false`.
    pub(crate) other_keys: Option<bool>,
    /// The union's branches other than `null`, when there are two or more.
    pub(crate) variants: Vec<&'a Value>,
    pub(crate) combinator: Option<Combinator>,
    /// A `$ref` that could not be followed: the schema is known only by it.
    pub(crate) unresolved: Option<&'a str>,
    /// An object keyword (`properties`, `required`, ...) is there, maybe empty.
    object_hint: bool,
    /// An array keyword (`items`, `minItems`, ...) is there.
    array_hint: bool,
}

/// The unions and `allOf` of a schema, as written.
#[derive(Default)]
struct Composition<'a> {
    one_of: Option<&'a Vec<Value>>,
    any_of: Option<&'a Vec<Value>>,
    all_of: Option<&'a Vec<Value>>,
}

impl<'a> SchemaView<'a> {
    /// The view of `schema`, its references followed in `root`.
    pub(crate) fn of(root: &'a Value, schema: &'a Value) -> SchemaView<'a> {
        Self::of_resolved(root, refs::resolve(root, schema))
    }

    /// The view of a schema already resolved in `root` (`Err`: the reference that could not
    /// be followed).
    pub(crate) fn of_resolved(
        root: &'a Value,
        resolved: Result<&'a Value, &'a str>,
    ) -> SchemaView<'a> {
        let mut merge = Merge {
            root,
            stack: Vec::new(),
            budget: MAX_MERGED,
        };
        match resolved {
            Ok(value) => merge.build_resolved(value),
            Err(reference) => SchemaView {
                unresolved: Some(reference),
                ..SchemaView::default()
            },
        }
    }

    /// A union of one branch: how a plain schema is compared with a union.
    pub(crate) fn single(branch: &'a Value, combinator: Option<Combinator>) -> SchemaView<'a> {
        SchemaView {
            variants: vec![branch],
            combinator,
            ..SchemaView::default()
        }
    }

    /// Whether the schema is a union of two or more branches.
    pub(crate) fn is_union(&self) -> bool {
        !self.variants.is_empty()
    }

    /// Reads the schema's own keywords in one pass over its keys; gives back its unions and
    /// `allOf` for the caller to merge.
    fn read_own(&mut self, map: &'a Map<String, Value>) -> Composition<'a> {
        let mut composition = Composition::default();
        let mut listed = None;
        let mut constant = None;
        for (key, value) in map {
            match key.as_str() {
                "type" => match value {
                    Value::String(name) => self.add_type(name),
                    Value::Array(names) => {
                        for name in names.iter().filter_map(Value::as_str) {
                            self.add_type(name);
                        }
                    }
                    _ => {}
                },
                "nullable" => self.nullable |= value.as_bool() == Some(true),
                "format" => self.format = value.as_str(),
                "enum" => listed = value.as_array(),
                "const" => constant = Some(value),
                "properties" => {
                    self.object_hint = true;
                    if let Some(properties) = value.as_object() {
                        self.properties = properties.iter().map(|(k, v)| (k.as_str(), v)).collect();
                    }
                }
                "required" => {
                    self.object_hint = true;
                    if let Some(required) = value.as_array() {
                        self.required = required.iter().filter_map(Value::as_str).collect();
                    }
                }
                "additionalProperties" => {
                    self.object_hint = true;
                    self.additional = Some(value).filter(|v| v.is_object());
                    self.other_keys = Some(value.as_bool() != Some(false));
                }
                "patternProperties" => {
                    self.object_hint = true;
                    self.other_keys.get_or_insert(true);
                }
                "minProperties" | "maxProperties" => self.object_hint = true,
                "items" => {
                    self.array_hint = true;
                    self.items = Some(value).filter(|v| v.is_object());
                }
                "minItems" | "maxItems" | "uniqueItems" => self.array_hint = true,
                "oneOf" => composition.one_of = value.as_array(),
                "anyOf" => composition.any_of = value.as_array(),
                "allOf" => composition.all_of = value.as_array(),
                _ => {}
            }
        }
        let values: Option<Vec<&'a Value>> = match (listed, constant) {
            (Some(values), _) => Some(values.iter().collect()),
            (None, Some(value)) => Some(vec![value]),
            (None, None) => None,
        };
        if let Some(mut values) = values {
            self.nullable |= values.iter().any(|v| v.is_null());
            values.retain(|v| !v.is_null());
            if !values.is_empty() {
                self.enum_values = Some(values);
            }
        }
        composition
    }

    fn add_type(&mut self, name: &str) {
        if name == "null" {
            self.nullable = true;
        } else if let Some(set) = TypeSet::named(name) {
            self.types = self.types.union(set);
            self.explicit_types = true;
        }
    }

    /// Merges `member` in, as an `allOf` member: what `self` says first.
    pub(crate) fn absorb(&mut self, member: SchemaView<'a>) {
        if !self.explicit_types && member.explicit_types {
            self.types = member.types;
            self.explicit_types = true;
        }
        self.format = self.format.or(member.format);
        self.nullable |= member.nullable;
        if self.enum_values.is_none() {
            self.enum_values = member.enum_values;
        }
        for (name, schema) in member.properties {
            self.properties.entry(name).or_insert(schema);
        }
        self.required.extend(member.required);
        self.items = self.items.or(member.items);
        self.additional = self.additional.or(member.additional);
        self.other_keys = self.other_keys.or(member.other_keys);
        self.unresolved = self.unresolved.or(member.unresolved);
        self.object_hint |= member.object_hint;
        self.array_hint |= member.array_hint;
    }

    /// Nothing but (maybe) nullability and annotations: a wrapper around its union.
    fn is_plain(&self) -> bool {
        !self.explicit_types
            && self.properties.is_empty()
            && self.items.is_none()
            && self.additional.is_none()
            && self.enum_values.is_none()
            && self.format.is_none()
    }

    fn infer_types(&mut self) {
        if self.explicit_types || self.is_union() {
            return;
        }
        self.types = if self.object_hint {
            TypeSet::OBJECT
        } else if self.array_hint {
            TypeSet::ARRAY
        } else if let Some(values) = &self.enum_values {
            values
                .iter()
                .filter_map(|v| TypeSet::of_value(v))
                .fold(TypeSet::ANY, TypeSet::union)
        } else {
            TypeSet::ANY
        };
    }
}

/// The state of one view's construction: the schemas being merged (a schema that is its own
/// `allOf` member is merged once) and how many more may be.
struct Merge<'a> {
    root: &'a Value,
    stack: Vec<*const Value>,
    budget: usize,
}

impl<'a> Merge<'a> {
    fn build(&mut self, schema: &'a Value) -> SchemaView<'a> {
        match refs::resolve(self.root, schema) {
            Ok(resolved) => self.build_resolved(resolved),
            Err(reference) => SchemaView {
                unresolved: Some(reference),
                ..SchemaView::default()
            },
        }
    }

    fn build_resolved(&mut self, resolved: &'a Value) -> SchemaView<'a> {
        let mut view = SchemaView::default();
        let Some(map) = resolved.as_object() else {
            return view;
        };
        let composition = view.read_own(map);
        let mut branches: Vec<&'a Value> = Vec::new();
        for (list, combinator) in [
            (composition.one_of, Combinator::OneOf),
            (composition.any_of, Combinator::AnyOf),
        ] {
            if let Some(list) = list {
                view.combinator.get_or_insert(combinator);
                branches.extend(list);
            }
        }
        self.stack.push(resolved);
        for member in composition.all_of.into_iter().flatten() {
            let Some(member) = self.nested(member) else {
                continue;
            };
            if branches.is_empty() && !member.variants.is_empty() {
                branches.clone_from(&member.variants);
                view.combinator = member.combinator;
            }
            view.absorb(member);
        }
        let before = branches.len();
        branches.retain(|branch| !is_null_only(self.root, branch));
        view.nullable |= branches.len() < before;
        if branches.len() == 1
            && view.is_plain()
            && let Some(mut inner) = self.nested(branches[0])
        {
            inner.nullable |= view.nullable;
            self.stack.pop();
            return inner;
        }
        self.stack.pop();
        if branches.len() >= 2 {
            view.variants = branches;
        } else {
            view.combinator = None;
        }
        view.infer_types();
        view
    }

    /// The view of a schema merged into the one being built; `None` when it is already being
    /// merged (a cycle) or the budget is spent.
    fn nested(&mut self, schema: &'a Value) -> Option<SchemaView<'a>> {
        let target: *const Value = refs::resolve_or_self(self.root, schema);
        if self.budget == 0 || self.stack.len() >= MAX_MERGE_DEPTH || self.stack.contains(&target) {
            return None;
        }
        self.budget -= 1;
        Some(self.build(schema))
    }
}

/// Whether `schema` allows `null` and nothing else (`type: "null"`, `enum: [null]`).
fn is_null_only(root: &Value, schema: &Value) -> bool {
    let schema = refs::resolve_or_self(root, schema);
    schema.get("type").and_then(Value::as_str) == Some("null")
        || schema
            .get("enum")
            .and_then(Value::as_array)
            .is_some_and(|values| !values.is_empty() && values.iter().all(Value::is_null))
        || schema.get("const").is_some_and(Value::is_null)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nullability_spelled_four_ways_reads_alike() {
        let root =
            json!({"components": {"schemas": {"U": {"type": "object", "properties": {"a": {}}}}}});
        let spellings = [
            json!({"type": "string", "nullable": true}),
            json!({"type": ["string", "null"]}),
            json!({"type": "string", "enum": ["a", null]}),
            json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
        ];
        for schema in &spellings {
            let view = SchemaView::of(&root, schema);
            assert!(view.nullable, "{schema}");
            assert_eq!(view.types, TypeSet::named("string").unwrap(), "{schema}");
            assert!(!view.is_union());
        }
        let wrapped = json!({"oneOf": [{"$ref": "#/components/schemas/U"}, {"type": "null"}]});
        let view = SchemaView::of(&root, &wrapped);
        assert!(view.nullable);
        assert_eq!(view.properties.keys().copied().collect::<Vec<_>>(), ["a"]);
    }

    #[test]
    fn all_of_merges_and_types_are_inferred() {
        let root = json!({"components": {"schemas": {
            "Base": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}}
        }}});
        let schema = json!({
            "allOf": [{"$ref": "#/components/schemas/Base"},
                      {"required": ["name"], "properties": {"name": {"type": "string"}, "id": {"type": "string"}}}],
            "nullable": true
        });
        let view = SchemaView::of(&root, &schema);
        assert_eq!(view.types, TypeSet::OBJECT);
        assert!(view.nullable);
        assert_eq!(
            view.required.iter().copied().collect::<Vec<_>>(),
            ["id", "name"]
        );
        assert_eq!(view.properties["id"], &json!({"type": "integer"}));
        let list = json!({"items": {"type": "string"}});
        assert_eq!(SchemaView::of(&root, &list).types, TypeSet::ARRAY);
        let consts = json!({"const": 3});
        let consts = SchemaView::of(&root, &consts);
        assert_eq!(consts.types, TypeSet::named("integer").unwrap());
        assert_eq!(consts.enum_values, Some(vec![&json!(3)]));
    }

    #[test]
    fn unions_and_unresolved_references() {
        let root = json!({});
        let union = json!({"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]});
        let view = SchemaView::of(&root, &union);
        assert_eq!(view.variants.len(), 2);
        assert_eq!(view.combinator, Some(Combinator::OneOf));
        assert!(view.nullable);
        assert!(view.types.is_any());
        let external = json!({"$ref": "other.yaml#/X"});
        let view = SchemaView::of(&root, &external);
        assert_eq!(view.unresolved, Some("other.yaml#/X"));
        let cyclic = json!({"components": {"schemas": {"A": {"allOf": [{"$ref": "#/components/schemas/A"}]}}}});
        let a = json!({"$ref": "#/components/schemas/A"});
        let view = SchemaView::of(&cyclic, &a);
        assert!(view.types.is_any());
    }
}
