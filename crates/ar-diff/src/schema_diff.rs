//! The differences between two schemas, walked side by side: nullability, type, enum values,
//! object properties (added, removed, required), array items, map values and union branches.
//!
//! The walk is direction-neutral: it says what differs, and `classify.rs` says what that does
//! to a client on the request or the response side. Each difference carries the place it is at
//! relative to the schema compared, as a path: `.user.email`, `['odd key']`, `[*]` (array
//! items), `.*` (map values), `(oneOf Cat)` (a union branch), so `$` + path names it.
//!
//! **Shared components.** Real documents point thousands of times at a few components, and a
//! component may contain itself. The result of comparing two referenced schemas is kept by
//! the pair (one [`SchemaDiffer`] serves a whole diff), so each pair is walked once however
//! often it is used, and a pair met again inside itself (a cycle) adds nothing: its
//! differences are reported where it was entered. The walk goes at most [`MAX_DEPTH`] schemas
//! deep, and one comparison lists at most [`crate::MAX_SCHEMA_CHANGES`] differences (a
//! component changed deep inside a tree of components can be met on exponentially many
//! paths); the rest are counted.
//!
//! A difference inside a `readOnly` property is marked so, and the caller leaves it out of a
//! request's changes (such a property is never sent); `writeOnly` likewise for responses.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use serde_json::Value;

use crate::change::ChangeKind;
use crate::facts::{Access, Facts};
use crate::refs;
use crate::schema_view::{Combinator, SchemaView};
use crate::types::{TypeRelation, relation};
use crate::variants::{Pairing, pair_variants};

/// How many schemas deep one comparison walks.
pub const MAX_DEPTH: usize = 64;

/// Compares schemas of an old and a new document, remembering referenced pairs.
pub(crate) struct SchemaDiffer<'a> {
    old_root: &'a Value,
    new_root: &'a Value,
    memo: HashMap<(*const Value, *const Value), Rc<Facts>>,
    /// The pairs being compared, outermost first.
    stack: Vec<(*const Value, *const Value)>,
    empty: Rc<Facts>,
}

impl<'a> SchemaDiffer<'a> {
    /// A differ for schemas of `old_root` and `new_root` (the two whole documents).
    pub(crate) fn new(old_root: &'a Value, new_root: &'a Value) -> SchemaDiffer<'a> {
        SchemaDiffer {
            old_root,
            new_root,
            memo: HashMap::new(),
            stack: Vec::new(),
            empty: Rc::new(Facts::default()),
        }
    }

    /// The differences between `old` and `new`.
    pub(crate) fn compare(&mut self, old: &'a Value, new: &'a Value) -> Rc<Facts> {
        let shared = refs::reference_of(old).is_some() || refs::reference_of(new).is_some();
        let old_resolved = refs::resolve(self.old_root, old);
        let new_resolved = refs::resolve(self.new_root, new);
        let key: (*const Value, *const Value) =
            (old_resolved.unwrap_or(old), new_resolved.unwrap_or(new));
        if shared && let Some(known) = self.memo.get(&key) {
            return Rc::clone(known);
        }
        if self.stack.len() >= MAX_DEPTH || self.stack.contains(&key) {
            return Rc::clone(&self.empty);
        }
        self.stack.push(key);
        let old_view = SchemaView::of_resolved(self.old_root, old_resolved);
        let new_view = SchemaView::of_resolved(self.new_root, new_resolved);
        let facts = Rc::new(self.compare_views(old, &old_view, new, &new_view));
        self.stack.pop();
        if shared {
            self.memo.insert(key, Rc::clone(&facts));
        }
        facts
    }

    fn compare_views(
        &mut self,
        old_schema: &'a Value,
        old: &SchemaView<'a>,
        new_schema: &'a Value,
        new: &SchemaView<'a>,
    ) -> Facts {
        let mut facts = Facts::default();
        if old.unresolved.is_some() || new.unresolved.is_some() {
            if old.unresolved != new.unresolved {
                facts.here(ChangeKind::TypeChanged {
                    from: describe(old),
                    to: describe(new),
                    relation: TypeRelation::Changed,
                });
            }
            return facts;
        }
        match (old.nullable, new.nullable) {
            (false, true) => facts.here(ChangeKind::BecameNullable),
            (true, false) => facts.here(ChangeKind::BecameNotNullable),
            _ => {}
        }
        match (old.is_union(), new.is_union()) {
            (false, false) => {
                if let Some(relation) = relation(old.types, old.format, new.types, new.format) {
                    facts.here(ChangeKind::TypeChanged {
                        from: describe(old),
                        to: describe(new),
                        relation,
                    });
                }
                enum_values(old, new, &mut facts);
                self.structure(old, new, &mut facts);
            }
            (true, true) => {
                self.variants(old, new, false, &mut facts);
                self.structure(old, new, &mut facts);
            }
            (true, false) => {
                let new_alone = SchemaView::single(new_schema, old.combinator);
                self.variants(old, &new_alone, true, &mut facts);
            }
            (false, true) => {
                let old_alone = SchemaView::single(old_schema, new.combinator);
                self.variants(&old_alone, new, true, &mut facts);
            }
        }
        facts
    }

    /// Properties, items and map values, where both sides may be objects or arrays.
    fn structure(&mut self, old: &SchemaView<'a>, new: &SchemaView<'a>, facts: &mut Facts) {
        if old.types.allows_object() && new.types.allows_object() {
            let names: BTreeSet<&str> = old
                .properties
                .keys()
                .chain(new.properties.keys())
                .copied()
                .collect();
            for name in names {
                let segment = property_segment(name);
                let was_required = old.required.contains(name);
                let is_required = new.required.contains(name);
                match (old.properties.get(name), new.properties.get(name)) {
                    (Some(&before), Some(&after)) => {
                        let access = match (
                            Access::of(self.old_root, before),
                            Access::of(self.new_root, after),
                        ) {
                            (a, b) if a == b => a,
                            _ => Access::Both,
                        };
                        if was_required != is_required {
                            let kind = if is_required {
                                ChangeKind::BecameRequired
                            } else {
                                ChangeKind::BecameOptional
                            };
                            facts.push(segment.clone(), kind, access);
                        }
                        let child = self.compare(before, after);
                        facts.nest(&segment, &child, access);
                    }
                    (Some(&before), None) => facts.push(
                        segment,
                        ChangeKind::Removed {
                            required: Some(was_required),
                            deprecated: false,
                        },
                        Access::of(self.old_root, before),
                    ),
                    (None, Some(&after)) => facts.push(
                        segment,
                        ChangeKind::Added {
                            required: Some(is_required),
                        },
                        Access::of(self.new_root, after),
                    ),
                    (None, None) => {}
                }
            }
            if let (Some(before), Some(after)) = (old.additional, new.additional) {
                let child = self.compare(before, after);
                facts.nest(".*", &child, Access::Both);
            }
        }
        if old.types.allows_array()
            && new.types.allows_array()
            && let (Some(before), Some(after)) = (old.items, new.items)
        {
            let child = self.compare(before, after);
            facts.nest("[*]", &child, Access::Both);
        }
    }

    /// Branches paired, added and removed. `plain_side`: one side is a plain schema standing as
    /// a union of one, whose nullability the union's already answered for.
    fn variants(
        &mut self,
        old: &SchemaView<'a>,
        new: &SchemaView<'a>,
        plain_side: bool,
        facts: &mut Facts,
    ) {
        let Pairing {
            pairs,
            removed,
            added,
        } = pair_variants(self.old_root, &old.variants, self.new_root, &new.variants);
        let old_combinator = old.combinator.unwrap_or(Combinator::OneOf);
        let new_combinator = new.combinator.unwrap_or(old_combinator);
        for (name, i, j) in pairs {
            let mut child = self.compare(old.variants[i], new.variants[j]);
            if plain_side {
                let mut kept = (*child).clone();
                kept.list.retain(|fact| {
                    !(fact.path.is_empty()
                        && matches!(
                            fact.kind,
                            ChangeKind::BecameNullable | ChangeKind::BecameNotNullable
                        ))
                });
                child = Rc::new(kept);
            }
            let keyword = match new_combinator {
                Combinator::OneOf => "oneOf",
                Combinator::AnyOf => "anyOf",
            };
            facts.nest(&format!("({keyword} {name})"), &child, Access::Both);
        }
        for variant in removed {
            facts.here(ChangeKind::VariantRemoved {
                combinator: old_combinator,
                variant,
            });
        }
        for variant in added {
            facts.here(ChangeKind::VariantAdded {
                combinator: new_combinator,
                variant,
            });
        }
    }
}

fn enum_values(old: &SchemaView<'_>, new: &SchemaView<'_>, facts: &mut Facts) {
    match (&old.enum_values, &new.enum_values) {
        (Some(before), Some(after)) => {
            let before_set: HashSet<String> = before.iter().map(|v| v.to_string()).collect();
            let after_set: HashSet<String> = after.iter().map(|v| v.to_string()).collect();
            let added: Vec<Value> = after
                .iter()
                .filter(|v| !before_set.contains(&v.to_string()))
                .map(|&v| v.clone())
                .collect();
            let removed: Vec<Value> = before
                .iter()
                .filter(|v| !after_set.contains(&v.to_string()))
                .map(|&v| v.clone())
                .collect();
            if !removed.is_empty() {
                facts.here(ChangeKind::EnumValuesRemoved { values: removed });
            }
            if !added.is_empty() {
                facts.here(ChangeKind::EnumValuesAdded { values: added });
            }
        }
        (None, Some(after)) => facts.here(ChangeKind::BecameEnum {
            values: after.iter().map(|&v| v.clone()).collect(),
        }),
        (Some(_), None) => facts.here(ChangeKind::EnumDropped),
        (None, None) => {}
    }
}

/// The type of a view for messages; an unresolved reference is named by it.
fn describe(view: &SchemaView<'_>) -> String {
    match view.unresolved {
        Some(reference) => format!("$ref {reference}"),
        None => view.types.describe(view.format),
    }
}

/// `.name` for a plain name, `['odd name']` otherwise.
pub(crate) fn property_segment(name: &str) -> String {
    let mut segment = String::with_capacity(name.len() + 1);
    push_property_segment(&mut segment, name);
    segment
}

/// [`property_segment`] appended to `path`, with no allocation of its own: the drift walks
/// every property of every body it checks.
pub(crate) fn push_property_segment(path: &mut String, name: &str) {
    let plain = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '$' | '@'));
    if plain {
        path.push('.');
        path.push_str(name);
        return;
    }
    path.push_str("['");
    for c in name.chars() {
        if matches!(c, '\\' | '\'') {
            path.push('\\');
        }
        path.push(c);
    }
    path.push_str("']");
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn diff(old: &Value, new: &Value) -> Vec<(String, ChangeKind)> {
        let mut differ = SchemaDiffer::new(old, new);
        let facts = differ.compare(&old["schema"], &new["schema"]);
        facts
            .list
            .iter()
            .map(|f| (f.path.clone(), f.kind.clone()))
            .collect()
    }

    #[test]
    fn properties_items_and_maps() {
        let old = json!({"schema": {"type": "object", "required": ["a"], "properties": {
            "a": {"type": "integer"}, "b": {"type": "string"}, "gone": {},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "string"}}}},
            "map": {"additionalProperties": {"type": "string", "enum": ["p", "q"]}}
        }}});
        let new = json!({"schema": {"type": "object", "required": ["b", "c"], "properties": {
            "a": {"type": "number"}, "b": {"type": "string", "nullable": true}, "c": {},
            "list": {"type": "array", "items": {"type": "object", "properties": {"x": {"type": "integer"}}}},
            "map": {"additionalProperties": {"type": "string", "enum": ["q", "r"]}}
        }}});
        let facts = diff(&old, &new);
        let text: Vec<String> = facts
            .iter()
            .map(|(p, k)| format!("{p} {}", serde_json::to_value(k).unwrap()))
            .collect();
        assert_eq!(
            text,
            [
                r#".a {"kind":"became_optional"}"#,
                r#".a {"from":"integer","kind":"type_changed","relation":"widened","to":"number"}"#,
                r#".b {"kind":"became_required"}"#,
                r#".b {"kind":"became_nullable"}"#,
                r#".c {"kind":"added","required":true}"#,
                r#".gone {"kind":"removed","required":false}"#,
                r#".list[*].x {"from":"string","kind":"type_changed","relation":"changed","to":"integer"}"#,
                r#".map.* {"kind":"enum_values_removed","values":["p"]}"#,
                r#".map.* {"kind":"enum_values_added","values":["r"]}"#,
            ]
        );
    }

    #[test]
    fn identical_and_cyclic_schemas() {
        let doc = json!({
            "schema": {"$ref": "#/components/schemas/Node"},
            "components": {"schemas": {"Node": {"type": "object", "properties": {
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
            }}}}
        });
        assert!(diff(&doc, &doc).is_empty());
        let mut changed = doc.clone();
        changed["components"]["schemas"]["Node"]["properties"]["name"] = json!({"type": "string"});
        assert_eq!(
            diff(&doc, &changed),
            [(
                ".name".to_owned(),
                ChangeKind::Added {
                    required: Some(false)
                }
            )]
        );
    }

    #[test]
    fn unions_pair_branches_by_name() {
        let old = json!({"schema": {"oneOf": [{"$ref": "#/c/Cat"}, {"$ref": "#/c/Dog"}]},
            "c": {"Cat": {"properties": {"meow": {"type": "string"}}}, "Dog": {"type": "boolean"}}});
        let new = json!({"schema": {"oneOf": [{"$ref": "#/c/Cat"}, {"$ref": "#/c/Fish"}]},
            "c": {"Cat": {"properties": {"meow": {"type": "integer"}}}, "Fish": {"type": "string"}}});
        let facts = diff(&old, &new);
        assert_eq!(facts[0].0, "(oneOf Cat).meow");
        assert_eq!(
            facts[1],
            (
                String::new(),
                ChangeKind::VariantRemoved {
                    combinator: Combinator::OneOf,
                    variant: "Dog".into()
                }
            )
        );
        assert_eq!(
            facts[2],
            (
                String::new(),
                ChangeKind::VariantAdded {
                    combinator: Combinator::OneOf,
                    variant: "Fish".into()
                }
            )
        );
        // A plain schema that becomes a union keeps its branch.
        let old = json!({"schema": {"type": "string"}});
        let new = json!({"schema": {"anyOf": [{"type": "string"}, {"type": "integer"}]}});
        assert_eq!(
            diff(&old, &new),
            [(
                String::new(),
                ChangeKind::VariantAdded {
                    combinator: Combinator::AnyOf,
                    variant: "#2 integer".into()
                }
            )]
        );
    }

    #[test]
    fn a_nullable_schema_wrapped_in_a_union_keeps_its_nullability_once() {
        let old = json!({"schema": {"type": "string", "nullable": true}});
        let new = json!({"schema": {"oneOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}});
        assert_eq!(
            diff(&old, &new),
            [(
                String::new(),
                ChangeKind::VariantAdded {
                    combinator: Combinator::OneOf,
                    variant: "#2 integer".into()
                }
            )]
        );
    }

    #[test]
    fn exponential_sharing_is_bounded() {
        // Each level holds the next twice: 2^40 paths to the bottom.
        let mut components = serde_json::Map::new();
        for level in 0..40 {
            let next = json!({"$ref": format!("#/c/L{}", level + 1)});
            components.insert(
                format!("L{level}"),
                json!({"properties": {"a": next.clone(), "b": next}}),
            );
        }
        components.insert("L40".into(), json!({"type": "string"}));
        let old = json!({"schema": {"$ref": "#/c/L0"}, "c": components.clone()});
        components.insert("L40".into(), json!({"type": "integer"}));
        let new = json!({"schema": {"$ref": "#/c/L0"}, "c": components});
        let mut differ = SchemaDiffer::new(&old, &new);
        let facts = differ.compare(&old["schema"], &new["schema"]);
        assert_eq!(facts.list.len(), crate::MAX_SCHEMA_CHANGES);
        assert!(facts.omitted > 0);
    }

    #[test]
    fn segments_quote_odd_names() {
        assert_eq!(property_segment("email"), ".email");
        assert_eq!(property_segment("a b"), "['a b']");
        assert_eq!(property_segment("*"), "['*']");
        assert_eq!(property_segment("it's"), "['it\\'s']");
        assert_eq!(property_segment("a\\b"), "['a\\\\b']");
    }
}
