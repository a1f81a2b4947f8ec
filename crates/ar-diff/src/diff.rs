//! Two documents compared: operations matched across them, then each pair compared.
//!
//! Operations are matched by method and full path, server base path included, with every
//! parameter written `{}`: `GET /users/{id}` under `https://x/api/v2` is
//! `GET /users/{userId}` under `https://x/api/v2`, and `GET /v2/users/{id}` under
//! `https://x/api`. A trailing `/` does not tell two paths apart. When one document writes
//! two paths that match alike, the first in path order stands for both.

use std::collections::BTreeMap;

use crate::change::{Change, ChangeKind, Element};
use crate::document::{Document, Operation};
use crate::method::Method;
use crate::operation::Parts;
use crate::operation_diff::OperationDiffer;
use crate::report::{OperationDiff, OperationStatus, Report};
use crate::security;
use crate::template::PathTemplate;

/// Every change from `old` to `new`, classified for a client of `old`.
pub fn diff(old: &Document, new: &Document) -> Report {
    let old_operations = by_key(old);
    let new_operations = by_key(new);
    let mut keys: Vec<&(Method, String)> = old_operations.keys().collect();
    keys.extend(
        new_operations
            .keys()
            .filter(|k| !old_operations.contains_key(*k)),
    );
    let mut differ = OperationDiffer::new(old.as_value(), new.as_value());
    let mut operations = Vec::new();
    for key in keys {
        let method = key.0;
        match (old_operations.get(key), new_operations.get(key)) {
            (Some(before), None) => {
                let removed = ChangeKind::Removed {
                    required: None,
                    deprecated: before.deprecated(),
                };
                operations.push(OperationDiff::new(
                    method,
                    before.path().to_owned(),
                    None,
                    OperationStatus::Removed,
                    vec![Change::new(Element::Operation, removed)],
                ));
            }
            (None, Some(after)) => {
                let added = ChangeKind::Added { required: None };
                operations.push(OperationDiff::new(
                    method,
                    after.path().to_owned(),
                    None,
                    OperationStatus::Added,
                    vec![Change::new(Element::Operation, added)],
                ));
            }
            (Some(before), Some(after)) => {
                let changes = differ.changes(&Parts::of(old, before), &Parts::of(new, after));
                if !changes.is_empty() {
                    operations.push(OperationDiff::new(
                        method,
                        after.path().to_owned(),
                        Some(before.path().to_owned()),
                        OperationStatus::Changed,
                        changes,
                    ));
                }
            }
            (None, None) => {}
        }
    }
    let global = security::diff(
        old.as_value().get("security"),
        new.as_value().get("security"),
        true,
    );
    Report::new(global, operations)
}

/// The operations of `document` by method and matching key; the first of a key stands.
fn by_key(document: &Document) -> BTreeMap<(Method, String), Operation<'_>> {
    let mut operations = BTreeMap::new();
    for operation in document.operations() {
        let key = PathTemplate::parse(operation.path()).key();
        let key = match key.strip_suffix('/') {
            Some(trimmed) if !trimmed.is_empty() => trimmed.to_owned(),
            _ => key,
        };
        operations
            .entry((operation.method(), key))
            .or_insert(operation);
    }
    operations
}
