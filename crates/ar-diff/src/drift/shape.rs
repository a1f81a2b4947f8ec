//! The schemas a drift walks bodies along, each read into a [`SchemaView`] once and kept.
//!
//! Reading a schema into a view follows its `$ref`s, merges its `allOf` and sorts its
//! properties: thousands of instructions that came out the same for every flow of an
//! operation, and for every property of every body. A [`Shapes`] reads each schema a body
//! meets once, the first time, with everything a walk below it can meet (its properties,
//! items, map values and union branches), and the walk then only follows [`ShapeId`]s.
//!
//! A schema is known by its address in the document: the drift's [`super::Baseline`] shares
//! the document and never changes it, so an address names one schema for as long as the drift
//! holds it (the same key [`SchemaView`]'s `allOf` merge uses). A union's branch is read
//! together with what the union itself says (properties beside a `oneOf`), so it is known by
//! its address and the union's shape. Compiling goes breadth first from a worklist, so a deep
//! or circular schema costs no stack; chains of unions nested in unions through references
//! stop at [`MAX_DEPTH`] levels, past which no walk looks.

use std::collections::HashMap;

use serde_json::Value;

use super::body::MAX_DEPTH;
use crate::names::Names;
use crate::schema_diff::push_property_segment;
use crate::schema_view::SchemaView;
use crate::types::TypeSet;

/// One compiled schema in a [`Shapes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct ShapeId(usize);

/// What a body walk reads of one schema: its view, with the schemas below it as [`ShapeId`]s.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shape {
    /// A `$ref` that could not be followed: nothing is checked against it.
    pub(crate) unresolved: bool,
    pub(crate) types: TypeSet,
    pub(crate) nullable: bool,
    /// What a value of another type is told was expected: the types and the format.
    pub(crate) expected: String,
    /// Listed properties by name, as bytes: a body's keys are looked up as they were sent
    /// (`names.rs`).
    pub(crate) properties: Names<Property>,
    /// The required properties, in name order.
    pub(crate) required: Vec<Required>,
    /// Whether every required name is a listed property (so a walk that meets as many
    /// required properties as there are required names has seen them all).
    pub(crate) required_listed: bool,
    pub(crate) items: Option<ShapeId>,
    pub(crate) additional: Option<ShapeId>,
    pub(crate) other_keys: Option<bool>,
    /// A union's branches (two or more), each with what the union itself says merged in.
    pub(crate) branches: Vec<ShapeId>,
}

/// A listed property: its schema, its path segment (`.name`, `['a b']`) written once, and
/// whether it is required.
#[derive(Clone, Debug)]
pub(crate) struct Property {
    pub(crate) shape: ShapeId,
    /// Its place among the shape's properties (in name order).
    pub(crate) index: usize,
    pub(crate) segment: String,
    pub(crate) required: bool,
}

/// A required property, and whether its schema says it is `readOnly` (a request need not
/// send it) or `writeOnly` (an answer need not show it).
#[derive(Clone, Debug)]
pub(crate) struct Required {
    pub(crate) name: String,
    pub(crate) read_only: bool,
    pub(crate) write_only: bool,
}

/// The compiled schemas of one document. It must only ever be given schemas of that one
/// document, which must outlive it unchanged (see the module's docs): [`super::Drift`] keeps
/// one beside the [`super::Baseline`] it holds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shapes {
    shapes: Vec<Shape>,
    /// Each schema compiled: its address, and for a union's branch the union's shape.
    ids: HashMap<(usize, Option<ShapeId>), ShapeId>,
}

/// A schema waiting to be read into its shape.
struct Job<'r> {
    id: ShapeId,
    schema: &'r Value,
    /// For a union's branch: what the union itself says, merged into the branch.
    union: Option<SchemaView<'r>>,
    /// Unions this one is a branch of, directly.
    nesting: usize,
}

impl Shapes {
    /// The shape of `schema` (in `root`, the document), compiled with everything below it the
    /// first time it is asked for.
    pub(crate) fn compile(&mut self, root: &Value, schema: &Value) -> ShapeId {
        let mut jobs = Vec::new();
        let id = self.reserve(schema, None, 0, &mut jobs);
        while let Some(job) = jobs.pop() {
            let (done, shape) = self.read(root, job, &mut jobs);
            self.shapes[done.0] = shape;
        }
        id
    }

    /// The shape `id` names.
    pub(crate) fn get(&self, id: ShapeId) -> &Shape {
        &self.shapes[id.0]
    }

    /// How many schemas are compiled.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.shapes.len()
    }

    /// The id of `schema` (a branch of `union`, with what the union says), queued for
    /// reading when it is new.
    fn reserve<'r>(
        &mut self,
        schema: &'r Value,
        union: Option<(ShapeId, SchemaView<'r>)>,
        nesting: usize,
        jobs: &mut Vec<Job<'r>>,
    ) -> ShapeId {
        let key = (
            std::ptr::from_ref(schema).addr(),
            union.as_ref().map(|(id, _)| *id),
        );
        if let Some(&id) = self.ids.get(&key) {
            return id;
        }
        let id = ShapeId(self.shapes.len());
        self.shapes.push(Shape::default());
        self.ids.insert(key, id);
        jobs.push(Job {
            id,
            schema,
            union: union.map(|(_, own)| own),
            nesting,
        });
        id
    }

    /// The shape of one queued schema; the schemas below it queued in turn.
    fn read<'r>(
        &mut self,
        root: &'r Value,
        job: Job<'r>,
        jobs: &mut Vec<Job<'r>>,
    ) -> (ShapeId, Shape) {
        let mut view = SchemaView::of(root, job.schema);
        if let Some(own) = job.union {
            view.absorb(own);
        }
        let mut shape = Shape {
            unresolved: view.unresolved.is_some(),
            types: view.types,
            nullable: view.nullable,
            expected: view.types.describe(view.format),
            other_keys: view.other_keys,
            ..Shape::default()
        };
        if shape.unresolved {
            return (job.id, shape);
        }
        if view.is_union() {
            // A walk meets a union nested this deep past its own depth bound, if ever.
            if job.nesting <= MAX_DEPTH {
                let mut own = view.clone();
                own.variants.clear();
                own.combinator = None;
                for branch in &view.variants {
                    let union = Some((job.id, own.clone()));
                    let branch = self.reserve(branch, union, job.nesting + 1, jobs);
                    shape.branches.push(branch);
                }
            }
            return (job.id, shape);
        }
        let mut listed = Vec::with_capacity(view.properties.len());
        for (index, (name, schema)) in view.properties.iter().enumerate() {
            let mut segment = String::new();
            push_property_segment(&mut segment, name);
            let property = Property {
                shape: self.reserve(schema, None, 0, jobs),
                index,
                segment,
                required: view.required.contains(name),
            };
            listed.push((name.as_bytes().into(), property));
        }
        shape.properties = Names::new(listed);
        shape.required_listed = view
            .required
            .iter()
            .all(|name| view.properties.contains_key(name));
        shape.required = view
            .required
            .iter()
            .map(|name| {
                let flag = |keyword| {
                    view.properties
                        .get(name)
                        .is_some_and(|schema| flag(root, schema, keyword))
                };
                Required {
                    name: (*name).to_owned(),
                    read_only: flag("readOnly"),
                    write_only: flag("writeOnly"),
                }
            })
            .collect();
        shape.items = view.items.map(|items| self.reserve(items, None, 0, jobs));
        shape.additional = view
            .additional
            .map(|additional| self.reserve(additional, None, 0, jobs));
        (job.id, shape)
    }
}

/// Whether `schema` (as written, or where its reference leads) sets `name: true`.
fn flag(root: &Value, schema: &Value, name: &str) -> bool {
    let set = |v: &Value| v.get(name).and_then(Value::as_bool) == Some(true);
    set(schema) || set(crate::refs::resolve_or_self(root, schema))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_schema_is_read_once_circular_ones_too() {
        let root = json!({"components": {"schemas": {"Node": {
            "type": "object",
            "required": ["id"],
            "properties": {
                "id": {"type": "integer", "readOnly": true},
                "children": {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
            }
        }}}});
        let node = json!({"$ref": "#/components/schemas/Node"});
        let mut shapes = Shapes::default();
        let id = shapes.compile(&root, &node);
        let compiled = shapes.len();
        // The reference, `id`, `children`, and `children`'s items: `Node` again, by another
        // reference, whose properties are the two already read.
        assert_eq!(compiled, 4);
        assert_eq!(shapes.compile(&root, &node), id);
        assert_eq!(shapes.len(), compiled);
        let shape = shapes.get(id);
        assert_eq!(shape.expected, "object");
        assert!(shape.required[0].read_only && !shape.required[0].write_only);
        let property = |name: &[u8]| shape.properties.get(name).unwrap();
        assert!(shape.required_listed && property(b"id").required);
        assert_eq!(property(b"children").segment, ".children");
        let children = shapes.get(property(b"children").shape);
        assert_eq!(shapes.get(children.items.unwrap()).properties.len(), 2);
    }

    #[test]
    fn unions_nested_through_references_end() {
        let root = json!({"components": {"schemas": {"U": {
            "oneOf": [{"$ref": "#/components/schemas/U"}, {"type": "string"}]
        }}}});
        let mut shapes = Shapes::default();
        shapes.compile(&root, &json!({"$ref": "#/components/schemas/U"}));
        assert!(shapes.len() < 4 * MAX_DEPTH, "{}", shapes.len());
    }
}
