//! Which branch of an old `oneOf`/`anyOf` is which branch of the new one.
//!
//! Branches are paired, in this order, by the schema they name (`$ref` to `Cat` is `Cat` on
//! both sides) or their `title`; then, among the rest, by equal shape (type, format and
//! property names); then by equal type. A branch left unpaired was removed or added. Branches
//! are never paired by position alone: reordering a union changes nothing.

use serde_json::Value;

use crate::refs;
use crate::schema_view::SchemaView;

/// Pairs of branches `(name, old index, new index)` and the names of the branches left over.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Pairing {
    pub(crate) pairs: Vec<(String, usize, usize)>,
    pub(crate) removed: Vec<String>,
    pub(crate) added: Vec<String>,
}

struct Branch {
    name: String,
    named: bool,
    shape: String,
    types: String,
}

impl Branch {
    fn of(root: &Value, schema: &Value, index: usize) -> Branch {
        let view = SchemaView::of(root, schema);
        let described = view.types.describe(view.format);
        let properties: Vec<&str> = view.properties.keys().copied().collect();
        let shape = format!("{described} {{{}}}", properties.join(","));
        let title = refs::resolve_or_self(root, schema)
            .get("title")
            .and_then(Value::as_str);
        let (name, named) = match (refs::reference_of(schema), title) {
            (Some(reference), _) => (refs::reference_name(reference), true),
            (None, Some(title)) => (title.to_owned(), true),
            (None, None) => (format!("#{} {described}", index + 1), false),
        };
        Branch {
            name,
            named,
            shape,
            types: view.types.describe(None),
        }
    }
}

/// Pairs the branches of two unions.
pub(crate) fn pair_variants(
    old_root: &Value,
    old: &[&Value],
    new_root: &Value,
    new: &[&Value],
) -> Pairing {
    let old: Vec<Branch> = old
        .iter()
        .enumerate()
        .map(|(i, s)| Branch::of(old_root, s, i))
        .collect();
    let new: Vec<Branch> = new
        .iter()
        .enumerate()
        .map(|(i, s)| Branch::of(new_root, s, i))
        .collect();
    let mut old_taken = vec![false; old.len()];
    let mut new_taken = vec![false; new.len()];
    let mut pairs = Vec::new();
    let passes: [fn(&Branch, &Branch) -> bool; 3] = [
        |a, b| a.named && b.named && a.name == b.name,
        |a, b| a.shape == b.shape,
        |a, b| a.types == b.types,
    ];
    for same in passes {
        for (i, before) in old.iter().enumerate() {
            if old_taken[i] {
                continue;
            }
            let found = new
                .iter()
                .enumerate()
                .find(|&(j, after)| !new_taken[j] && same(before, after));
            if let Some((j, after)) = found {
                old_taken[i] = true;
                new_taken[j] = true;
                pairs.push((after.name.clone(), i, j));
            }
        }
    }
    pairs.sort_by_key(|&(_, i, _)| i);
    let left = |branches: &[Branch], taken: &[bool]| -> Vec<String> {
        branches
            .iter()
            .zip(taken)
            .filter(|(_, taken)| !**taken)
            .map(|(b, _)| b.name.clone())
            .collect()
    };
    Pairing {
        pairs,
        removed: left(&old, &old_taken),
        added: left(&new, &new_taken),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn pairs_by_name_then_shape_then_type() {
        let root = json!({"c": {"Cat": {"type": "object"}, "Dog": {"type": "object"}}});
        let old = [
            json!({"$ref": "#/c/Dog"}),
            json!({"type": "object", "properties": {"a": {}}}),
            json!({"type": "string"}),
            json!({"type": "boolean"}),
        ];
        let new = [
            json!({"type": "string", "format": "uuid"}),
            json!({"type": "integer"}),
            json!({"type": "object", "properties": {"a": {}}}),
            json!({"$ref": "#/c/Dog"}),
        ];
        let old: Vec<&Value> = old.iter().collect();
        let new: Vec<&Value> = new.iter().collect();
        let pairing = pair_variants(&root, &old, &root, &new);
        assert_eq!(
            pairing.pairs,
            [
                ("Dog".to_owned(), 0, 3),
                ("#3 object".to_owned(), 1, 2),
                ("#1 string (uuid)".to_owned(), 2, 0)
            ]
        );
        assert_eq!(pairing.removed, ["#4 boolean"]);
        assert_eq!(pairing.added, ["#2 integer"]);
    }

    #[test]
    fn reordering_changes_nothing() {
        let root = json!({});
        let a = [json!({"type": "string"}), json!({"type": "integer"})];
        let b = [json!({"type": "integer"}), json!({"type": "string"})];
        let a: Vec<&Value> = a.iter().collect();
        let b: Vec<&Value> = b.iter().collect();
        let pairing = pair_variants(&root, &a, &root, &b);
        assert_eq!(pairing.pairs.len(), 2);
        assert!(pairing.removed.is_empty() && pairing.added.is_empty());
    }
}
