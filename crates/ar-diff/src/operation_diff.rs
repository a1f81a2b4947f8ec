//! The changes between two versions of one operation: deprecation, security, parameters,
//! request body and responses, in that order.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::change::{Change, ChangeKind, Element};
use crate::facts::Facts;
use crate::operation::{Content, Param, Parts, pair_content};
use crate::schema_diff::SchemaDiffer;
use crate::security;

/// Which way a schema travels.
#[derive(Clone, Copy)]
enum Side {
    Request,
    Response,
}

/// The schema that allows anything: what a missing schema is compared as.
static ANY: Value = Value::Bool(true);

/// Compares operations of two documents, sharing one schema differ (and its memory of the
/// shared components) across all of them.
pub(crate) struct OperationDiffer<'a> {
    schemas: SchemaDiffer<'a>,
    old_global_security: Option<&'a Value>,
    new_global_security: Option<&'a Value>,
}

impl<'a> OperationDiffer<'a> {
    pub(crate) fn new(old_root: &'a Value, new_root: &'a Value) -> OperationDiffer<'a> {
        OperationDiffer {
            schemas: SchemaDiffer::new(old_root, new_root),
            old_global_security: old_root.get("security"),
            new_global_security: new_root.get("security"),
        }
    }

    /// Every change from `old` to `new`.
    pub(crate) fn changes(&mut self, old: &Parts<'a>, new: &Parts<'a>) -> Vec<Change> {
        let mut changes = Vec::new();
        match (old.deprecated, new.deprecated) {
            (false, true) => changes.push(Change::new(Element::Operation, ChangeKind::Deprecated)),
            (true, false) => changes.push(Change::new(Element::Operation, ChangeKind::Reactivated)),
            _ => {}
        }
        // Only an operation's own `security` is compared here; the document's is compared
        // once, for the whole API.
        if old.security.is_some() || new.security.is_some() {
            changes.extend(security::diff(
                old.security.or(self.old_global_security),
                new.security.or(self.new_global_security),
                false,
            ));
        }
        self.parameters(old, new, &mut changes);
        self.request_body(old, new, &mut changes);
        self.responses(old, new, &mut changes);
        changes
    }

    fn parameters(&mut self, old: &Parts<'a>, new: &Parts<'a>, changes: &mut Vec<Change>) {
        let keys: BTreeSet<_> = old.parameters.keys().chain(new.parameters.keys()).collect();
        for key in keys {
            let element = |param: &Param<'_>, schema_path: Option<String>| Element::Parameter {
                location: key.location,
                name: param.name.to_owned(),
                schema_path,
            };
            match (old.parameters.get(key), new.parameters.get(key)) {
                (Some(before), None) => changes.push(Change::new(
                    element(before, None),
                    ChangeKind::Removed {
                        required: Some(before.required),
                        deprecated: before.deprecated,
                    },
                )),
                (None, Some(after)) => changes.push(Change::new(
                    element(after, None),
                    ChangeKind::Added {
                        required: Some(after.required),
                    },
                )),
                (Some(before), Some(after)) => {
                    for (was, is, became, unbecame) in [
                        (
                            before.required,
                            after.required,
                            ChangeKind::BecameRequired,
                            ChangeKind::BecameOptional,
                        ),
                        (
                            before.deprecated,
                            after.deprecated,
                            ChangeKind::Deprecated,
                            ChangeKind::Reactivated,
                        ),
                    ] {
                        if was != is {
                            let kind = if is { became } else { unbecame };
                            changes.push(Change::new(element(after, None), kind));
                        }
                    }
                    if before.schema.is_some() || after.schema.is_some() {
                        let facts = self
                            .schemas
                            .compare(before.schema.unwrap_or(&ANY), after.schema.unwrap_or(&ANY));
                        let at = |path| element(after, Some(path));
                        push_facts(&facts, Side::Request, at, changes);
                    }
                }
                (None, None) => {}
            }
        }
    }

    fn request_body(&mut self, old: &Parts<'a>, new: &Parts<'a>, changes: &mut Vec<Change>) {
        let whole = Element::RequestBody {
            media_type: None,
            schema_path: None,
        };
        match (&old.request_body, &new.request_body) {
            (Some(before), None) => changes.push(Change::new(
                whole,
                ChangeKind::Removed {
                    required: Some(before.required),
                    deprecated: false,
                },
            )),
            (None, Some(after)) => changes.push(Change::new(
                whole,
                ChangeKind::Added {
                    required: Some(after.required),
                },
            )),
            (Some(before), Some(after)) => {
                match (before.required, after.required) {
                    (false, true) => changes.push(Change::new(whole, ChangeKind::BecameRequired)),
                    (true, false) => changes.push(Change::new(whole, ChangeKind::BecameOptional)),
                    _ => {}
                }
                self.content(
                    &before.content,
                    &after.content,
                    Side::Request,
                    changes,
                    |media_type, schema_path| Element::RequestBody {
                        media_type: Some(media_type),
                        schema_path,
                    },
                );
            }
            (None, None) => {}
        }
    }

    fn responses(&mut self, old: &Parts<'a>, new: &Parts<'a>, changes: &mut Vec<Change>) {
        let keys: BTreeSet<_> = old.responses.keys().chain(new.responses.keys()).collect();
        for key in keys {
            let status = |status: &str| Element::Response {
                status: status.to_owned(),
                media_type: None,
                schema_path: None,
            };
            match (old.responses.get(key), new.responses.get(key)) {
                (Some(before), None) => changes.push(Change::new(
                    status(before.status),
                    ChangeKind::Removed {
                        required: None,
                        deprecated: false,
                    },
                )),
                (None, Some(after)) => changes.push(Change::new(
                    status(after.status),
                    ChangeKind::Added { required: None },
                )),
                (Some(before), Some(after)) => {
                    let code = after.status;
                    self.content(
                        &before.content,
                        &after.content,
                        Side::Response,
                        changes,
                        |media_type, schema_path| Element::Response {
                            status: code.to_owned(),
                            media_type: Some(media_type),
                            schema_path,
                        },
                    );
                }
                (None, None) => {}
            }
        }
    }

    /// Media types added and removed, and the schemas of those on both sides compared.
    fn content(
        &mut self,
        old: &Content<'a>,
        new: &Content<'a>,
        side: Side,
        changes: &mut Vec<Change>,
        element: impl Fn(String, Option<String>) -> Element,
    ) {
        for (old_key, new_key) in pair_content(old, new) {
            match (
                old_key.and_then(|k| old.get(k)),
                new_key.and_then(|k| new.get(k)),
            ) {
                (Some(&(media_type, _)), None) => changes.push(Change::new(
                    element(media_type.to_owned(), None),
                    ChangeKind::Removed {
                        required: None,
                        deprecated: false,
                    },
                )),
                (None, Some(&(media_type, _))) => changes.push(Change::new(
                    element(media_type.to_owned(), None),
                    ChangeKind::Added { required: None },
                )),
                (Some(&(_, before)), Some(&(media_type, after))) => {
                    if before.is_none() && after.is_none() {
                        continue;
                    }
                    let facts = self
                        .schemas
                        .compare(before.unwrap_or(&ANY), after.unwrap_or(&ANY));
                    let at = |path| element(media_type.to_owned(), Some(path));
                    push_facts(&facts, side, at, changes);
                }
                (None, None) => {}
            }
        }
    }
}

/// Each schema difference that travels on `side` as a change at `$` + its path, and one for
/// those not listed.
fn push_facts(
    facts: &Facts,
    side: Side,
    element: impl Fn(String) -> Element,
    changes: &mut Vec<Change>,
) {
    for fact in &facts.list {
        let travels = match side {
            Side::Request => fact.access.in_requests(),
            Side::Response => fact.access.in_responses(),
        };
        if travels {
            let at = element(format!("${}", fact.path));
            changes.push(Change::new(at, fact.kind.clone()));
        }
    }
    if facts.omitted > 0 {
        changes.push(Change::new(
            element("$".to_owned()),
            ChangeKind::Omitted {
                count: facts.omitted,
            },
        ));
    }
}
