//! The differences one schema comparison found, each at a path relative to the schemas
//! compared, and the access (`readOnly`, `writeOnly`) of the property it is in.

use serde_json::Value;

use crate::change::ChangeKind;
use crate::refs;

/// The most differences one comparison lists.
pub const MAX_SCHEMA_CHANGES: usize = 1_000;

/// One difference, at a path relative to the schemas compared.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Fact {
    pub(crate) path: String,
    pub(crate) kind: ChangeKind,
    /// Whether it is inside a property marked `readOnly` or `writeOnly`.
    pub(crate) access: Access,
}

/// Which way a property travels: `readOnly` ones only in responses, `writeOnly` ones only in
/// requests. A difference inside a property that never travels on a side is no change there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Access {
    /// Both ways.
    #[default]
    Both,
    /// `readOnly: true`.
    ReadOnly,
    /// `writeOnly: true`.
    WriteOnly,
}

impl Access {
    pub(crate) fn of(root: &Value, schema: &Value) -> Access {
        let schema = refs::resolve_or_self(root, schema);
        let flag = |key: &str| schema.get(key).and_then(Value::as_bool) == Some(true);
        if flag("readOnly") {
            Access::ReadOnly
        } else if flag("writeOnly") {
            Access::WriteOnly
        } else {
            Access::Both
        }
    }

    /// The access of something with this access inside a property with `outer`'s.
    fn within(self, outer: Access) -> Access {
        if outer == Access::Both { self } else { outer }
    }

    /// Whether it is sent in requests.
    pub(crate) fn in_requests(self) -> bool {
        self != Access::ReadOnly
    }

    /// Whether it is answered in responses.
    pub(crate) fn in_responses(self) -> bool {
        self != Access::WriteOnly
    }
}

/// The differences of one comparison.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Facts {
    pub(crate) list: Vec<Fact>,
    /// Differences past [`MAX_SCHEMA_CHANGES`], counted only.
    pub(crate) omitted: usize,
}

impl Facts {
    pub(crate) fn push(&mut self, path: String, kind: ChangeKind, access: Access) {
        if self.list.len() < MAX_SCHEMA_CHANGES {
            self.list.push(Fact { path, kind, access });
        } else {
            self.omitted += 1;
        }
    }

    pub(crate) fn here(&mut self, kind: ChangeKind) {
        self.push(String::new(), kind, Access::Both);
    }

    pub(crate) fn nest(&mut self, segment: &str, child: &Facts, access: Access) {
        for fact in &child.list {
            let path = format!("{segment}{}", fact.path);
            self.push(path, fact.kind.clone(), fact.access.within(access));
        }
        self.omitted += child.omitted;
    }
}
