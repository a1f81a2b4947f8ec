//! JSON Schema types as a set, and how one set relates to another (wider, narrower, neither).

use serde::Serialize;

/// The JSON types a schema allows, `null` aside (nullability is compared on its own). The
/// empty set is "any type".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TypeSet(u8);

const NAMES: [(&str, u8); 6] = [
    ("string", 1),
    ("integer", 2),
    ("number", 4),
    ("boolean", 8),
    ("object", 16),
    ("array", 32),
];
const INTEGER: u8 = 2;
const NUMBER: u8 = 4;
const OBJECT: u8 = 16;
const ARRAY: u8 = 32;

impl TypeSet {
    /// Any type.
    pub(crate) const ANY: TypeSet = TypeSet(0);
    /// Objects only.
    pub(crate) const OBJECT: TypeSet = TypeSet(OBJECT);
    /// Arrays only.
    pub(crate) const ARRAY: TypeSet = TypeSet(ARRAY);
    /// Strings only.
    pub(crate) const STRING: TypeSet = TypeSet(1);
    /// Booleans only.
    pub(crate) const BOOLEAN: TypeSet = TypeSet(8);
    /// Integers only.
    pub(crate) const INTEGER: TypeSet = TypeSet(INTEGER);
    /// Numbers only (with a fraction: JSON Schema counts `2.0` an integer).
    pub(crate) const NUMBER: TypeSet = TypeSet(NUMBER);

    /// The set holding the type `name` (`"string"`); `None` for `"null"` and unknown names.
    pub(crate) fn named(name: &str) -> Option<TypeSet> {
        NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, bit)| TypeSet(bit))
    }

    /// The type of a JSON value (`None` for `null`).
    pub(crate) fn of_value(value: &serde_json::Value) -> Option<TypeSet> {
        use serde_json::Value;
        let bits = match value {
            Value::Null => return None,
            Value::Bool(_) => 8,
            Value::Number(n) if n.is_i64() || n.is_u64() => INTEGER,
            Value::Number(_) => NUMBER,
            Value::String(_) => 1,
            Value::Array(_) => ARRAY,
            Value::Object(_) => OBJECT,
        };
        Some(TypeSet(bits))
    }

    /// The type of a JSON instance being validated (`None` for `null`): as
    /// [`TypeSet::of_value`], except that a number with no fractional part (`2.0`) is an
    /// integer, as JSON Schema counts it.
    pub(crate) fn of_instance(value: &serde_json::Value) -> Option<TypeSet> {
        match value {
            serde_json::Value::Number(n) if n.as_f64().is_some_and(|f| f.fract() == 0.0) => {
                Some(TypeSet(INTEGER))
            }
            other => TypeSet::of_value(other),
        }
    }

    /// The name of an instance's type as [`TypeSet::of_instance`] gives it (`None`: `null`).
    pub(crate) fn name_of(found: Option<TypeSet>) -> &'static str {
        match found {
            None => "null",
            Some(set) => NAMES
                .iter()
                .find(|(_, bit)| set.0 == *bit)
                .map_or("any", |(name, _)| *name),
        }
    }

    /// Both sets' types.
    pub(crate) fn union(self, other: TypeSet) -> TypeSet {
        TypeSet(self.0 | other.0)
    }

    /// Whether any type is allowed.
    pub(crate) fn is_any(self) -> bool {
        self.0 == 0
    }

    /// Whether objects are allowed.
    pub(crate) fn allows_object(self) -> bool {
        self.is_any() || self.0 & OBJECT != 0
    }

    /// Whether arrays are allowed.
    pub(crate) fn allows_array(self) -> bool {
        self.is_any() || self.0 & ARRAY != 0
    }

    /// Whether every value `other` allows, `self` allows too (`number` holds `integer`).
    pub(crate) fn contains(self, other: TypeSet) -> bool {
        if self.is_any() {
            return true;
        }
        if other.is_any() {
            return false;
        }
        let mut needed = other.0 & !self.0;
        if self.0 & NUMBER != 0 {
            needed &= !INTEGER;
        }
        needed == 0
    }

    /// `string`, `integer | string`, `any`: with the format after a single type
    /// (`string (date-time)`).
    pub(crate) fn describe(self, format: Option<&str>) -> String {
        let mut text = if self.is_any() {
            "any".to_owned()
        } else {
            NAMES
                .iter()
                .filter(|(_, bit)| self.0 & bit != 0)
                .map(|(name, _)| *name)
                .collect::<Vec<_>>()
                .join(" | ")
        };
        if let Some(format) = format {
            text.push_str(&format!(" ({format})"));
        }
        text
    }
}

/// How a new type relates to the old one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TypeRelation {
    /// Every old value is still allowed, and more (`integer` → `number`, a format dropped).
    Widened,
    /// Only some old values are still allowed (`number` → `integer`, a format added).
    Narrowed,
    /// Neither holds the other (`string` → `integer`, one format for another).
    Changed,
}

/// The relation of `new` to `old`, types then formats; `None` when they are the same.
pub(crate) fn relation(
    old: TypeSet,
    old_format: Option<&str>,
    new: TypeSet,
    new_format: Option<&str>,
) -> Option<TypeRelation> {
    if old != new {
        return Some(if new.contains(old) {
            TypeRelation::Widened
        } else if old.contains(new) {
            TypeRelation::Narrowed
        } else {
            TypeRelation::Changed
        });
    }
    match (old_format, new_format) {
        (a, b) if a == b => None,
        (Some(_), None) => Some(TypeRelation::Widened),
        (None, Some(_)) => Some(TypeRelation::Narrowed),
        _ => Some(TypeRelation::Changed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(names: &[&str]) -> TypeSet {
        names.iter().fold(TypeSet::ANY, |set, n| {
            set.union(TypeSet::named(n).expect("a type"))
        })
    }

    #[test]
    fn containment_knows_integers_are_numbers() {
        assert!(t(&["number"]).contains(t(&["integer"])));
        assert!(!t(&["integer"]).contains(t(&["number"])));
        assert!(TypeSet::ANY.contains(t(&["object"])));
        assert!(!t(&["object"]).contains(TypeSet::ANY));
        assert!(t(&["string", "integer"]).contains(t(&["string"])));
    }

    #[test]
    fn relations() {
        use TypeRelation::*;
        let rel = |a, b| relation(t(a), None, t(b), None);
        assert_eq!(rel(&["integer"], &["number"]), Some(Widened));
        assert_eq!(rel(&["number"], &["integer"]), Some(Narrowed));
        assert_eq!(rel(&["string"], &["integer"]), Some(Changed));
        assert_eq!(rel(&["string"], &["string", "integer"]), Some(Widened));
        assert_eq!(rel(&["string"], &[]), Some(Widened));
        assert_eq!(rel(&["string"], &["string"]), None);
        let s = t(&["string"]);
        assert_eq!(relation(s, Some("uuid"), s, None), Some(Widened));
        assert_eq!(relation(s, None, s, Some("uuid")), Some(Narrowed));
        assert_eq!(relation(s, Some("uuid"), s, Some("email")), Some(Changed));
    }

    #[test]
    fn descriptions() {
        assert_eq!(t(&["number", "string"]).describe(None), "string | number");
        assert_eq!(
            t(&["string"]).describe(Some("date-time")),
            "string (date-time)"
        );
        assert_eq!(TypeSet::ANY.describe(None), "any");
        assert_eq!(
            TypeSet::name_of(TypeSet::of_instance(&serde_json::json!(2.0))),
            "integer"
        );
        assert_eq!(
            TypeSet::name_of(TypeSet::of_instance(&serde_json::json!(2.5))),
            "number"
        );
        assert_eq!(
            TypeSet::name_of(TypeSet::of_instance(&serde_json::json!(null))),
            "null"
        );
        assert_eq!(
            TypeSet::name_of(TypeSet::of_instance(&serde_json::json!([]))),
            "array"
        );
        assert_eq!(
            TypeSet::of_value(&serde_json::json!(1.5)),
            TypeSet::named("number")
        );
    }
}
