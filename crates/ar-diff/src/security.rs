//! Security requirements compared: who may call.
//!
//! A `security` list holds alternatives; each alternative is a set of schemes used together,
//! with the scopes each needs. An empty list, or an empty alternative (`{}`), lets anonymous
//! calls through. Alternatives are matched by their set of scheme names. Losing anonymous
//! access is one change (authentication now required, naming the alternatives), not one per
//! new alternative; gaining it is one change too.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::change::{Change, ChangeKind, Element};

/// One `security` list, read.
#[derive(Debug, Default, PartialEq)]
struct Requirements {
    anonymous: bool,
    /// By alternative (scheme names joined by ` + `): each scheme's scopes.
    alternatives: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

impl Requirements {
    fn read(list: Option<&Value>) -> Requirements {
        let mut requirements = Requirements::default();
        let items = list
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for item in items {
            let Some(schemes) = item.as_object() else {
                continue;
            };
            if schemes.is_empty() {
                requirements.anonymous = true;
                continue;
            }
            let scopes: BTreeMap<String, BTreeSet<String>> = schemes
                .iter()
                .map(|(scheme, scopes)| {
                    let scopes = scopes
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect();
                    (scheme.clone(), scopes)
                })
                .collect();
            let key = scopes.keys().cloned().collect::<Vec<_>>().join(" + ");
            requirements.alternatives.insert(key, scopes);
        }
        requirements.anonymous |= requirements.alternatives.is_empty();
        requirements
    }
}

/// The changes from the `old` security list to the `new` one (`None`: no list).
pub(crate) fn diff(old: Option<&Value>, new: Option<&Value>, global: bool) -> Vec<Change> {
    let old = Requirements::read(old);
    let new = Requirements::read(new);
    let element = |requirement: Option<&String>| Element::Security {
        global,
        requirement: requirement.cloned(),
    };
    let mut changes = Vec::new();
    if old.anonymous && !new.anonymous {
        changes.push(Change::new(
            element(None),
            ChangeKind::AuthenticationRequired {
                requirements: new.alternatives.keys().cloned().collect(),
            },
        ));
        return changes;
    }
    if !old.anonymous && new.anonymous {
        changes.push(Change::new(
            element(None),
            ChangeKind::AuthenticationOptional,
        ));
        return changes;
    }
    for (key, old_scopes) in &old.alternatives {
        let Some(new_scopes) = new.alternatives.get(key) else {
            let removed = ChangeKind::Removed {
                required: None,
                deprecated: false,
            };
            changes.push(Change::new(element(Some(key)), removed));
            continue;
        };
        let (mut added, mut removed) = (Vec::new(), Vec::new());
        let none = BTreeSet::new();
        for (scheme, before) in old_scopes {
            let after = new_scopes.get(scheme).unwrap_or(&none);
            added.extend(after.difference(before).cloned());
            removed.extend(before.difference(after).cloned());
        }
        if !added.is_empty() {
            let kind = ChangeKind::ScopesAdded { scopes: added };
            changes.push(Change::new(element(Some(key)), kind));
        }
        if !removed.is_empty() {
            let kind = ChangeKind::ScopesRemoved { scopes: removed };
            changes.push(Change::new(element(Some(key)), kind));
        }
    }
    for key in new.alternatives.keys() {
        if !old.alternatives.contains_key(key) {
            let kind = ChangeKind::Added { required: None };
            changes.push(Change::new(element(Some(key)), kind));
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::rule::Rule;

    fn rules(old: Value, new: Value) -> Vec<(Rule, String)> {
        diff(Some(&old), Some(&new), false)
            .into_iter()
            .map(|c| (c.rule, c.message))
            .collect()
    }

    #[test]
    fn losing_anonymous_access_breaks() {
        assert_eq!(
            rules(json!([]), json!([{"oauth": ["read"]}, {"key": []}])),
            [(
                Rule::ApiSecurityAdded,
                "security now requires authentication: `key` or `oauth`".to_owned()
            )]
        );
        assert_eq!(
            rules(json!([{"key": []}, {}]), json!([{"key": []}])).len(),
            1
        );
        assert_eq!(
            rules(json!([{"key": []}]), json!([{}]))[0].0,
            Rule::ApiSecurityRemoved
        );
    }

    #[test]
    fn alternatives_and_scopes() {
        let got = rules(
            json!([{"oauth": ["read"]}, {"key": [], "sig": []}]),
            json!([{"oauth": ["read", "write"]}, {"basic": []}]),
        );
        assert_eq!(
            got,
            [
                (
                    Rule::ApiSecurityAlternativeRemoved,
                    "security requirement `key + sig` removed".to_owned()
                ),
                (
                    Rule::ApiSecurityScopeAdded,
                    "security requirement `oauth` needs more scopes: `write`".to_owned()
                ),
                (
                    Rule::ApiSecurityAlternativeAdded,
                    "security requirement `basic` added".to_owned()
                ),
            ]
        );
        assert!(rules(json!([{"a": ["x"]}]), json!([{"a": ["x"]}])).is_empty());
    }
}
