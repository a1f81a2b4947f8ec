//! The one line of English each change carries: the element, then what happened
//! (`query parameter `limit` became required`).

use std::fmt::Write as _;

use serde_json::Value;

use crate::change::{ChangeKind, Element};
use crate::schema_view::Combinator;
use crate::types::TypeRelation;

/// `element` and `kind` in words.
pub(crate) fn describe(element: &Element, kind: &ChangeKind) -> String {
    format!("{} {}", describe_element(element), describe_kind(kind))
}

/// `$.user.email` → `user.email`, `$[*].id` → `[*].id`; `$` stays.
fn short_path(path: &str) -> &str {
    match path.strip_prefix('$') {
        Some("") | None => path,
        Some(rest) => rest.strip_prefix('.').unwrap_or(rest),
    }
}

fn describe_element(element: &Element) -> String {
    match element {
        Element::Operation => "operation".to_owned(),
        Element::Security {
            global,
            requirement,
        } => {
            let whose = if *global {
                "global security"
            } else {
                "security"
            };
            match requirement {
                Some(r) => format!("{whose} requirement `{r}`"),
                None => whose.to_owned(),
            }
        }
        Element::Parameter {
            location,
            name,
            schema_path,
        } => match schema_path.as_deref() {
            None | Some("$") => format!("{} parameter `{name}`", location.as_str()),
            Some(path) => format!(
                "{} parameter `{name}` at `{}`",
                location.as_str(),
                short_path(path)
            ),
        },
        Element::RequestBody {
            media_type,
            schema_path,
        } => body("request", media_type.as_deref(), schema_path.as_deref()),
        Element::Response {
            status,
            media_type,
            schema_path,
        } => body(
            &format!("response {status}"),
            media_type.as_deref(),
            schema_path.as_deref(),
        ),
    }
}

fn body(what: &str, media_type: Option<&str>, schema_path: Option<&str>) -> String {
    let properties = if what == "request" {
        "request property"
    } else {
        "property"
    };
    match (media_type, schema_path) {
        (None, _) if what == "request" => "request body".to_owned(),
        (None, _) => what.to_owned(),
        (Some(mt), None) => format!("{what} media type `{mt}`"),
        (Some(mt), Some("$")) if what == "request" => format!("request body ({mt})"),
        (Some(mt), Some("$")) => format!("{what} body ({mt})"),
        (Some(mt), Some(path)) if what == "request" => {
            format!("{properties} `{}` ({mt})", short_path(path))
        }
        (Some(mt), Some(path)) => format!("{what} {properties} `{}` ({mt})", short_path(path)),
    }
}

fn describe_kind(kind: &ChangeKind) -> String {
    match kind {
        ChangeKind::Added { required } => match required {
            Some(true) => "added (required)".to_owned(),
            Some(false) => "added (optional)".to_owned(),
            None => "added".to_owned(),
        },
        ChangeKind::Removed {
            required,
            deprecated,
        } => {
            let mut text = "removed".to_owned();
            if *deprecated {
                text.push_str(" (after deprecation)");
            } else if *required == Some(true) {
                text.push_str(" (was required)");
            }
            text
        }
        ChangeKind::BecameRequired => "became required".to_owned(),
        ChangeKind::BecameOptional => "became optional".to_owned(),
        ChangeKind::Deprecated => "deprecated".to_owned(),
        ChangeKind::Reactivated => "no longer deprecated".to_owned(),
        ChangeKind::TypeChanged { from, to, relation } => {
            let verb = match relation {
                TypeRelation::Widened => "widened",
                TypeRelation::Narrowed => "narrowed",
                TypeRelation::Changed => "changed",
            };
            format!("type {verb} from `{from}` to `{to}`")
        }
        ChangeKind::BecameNullable => "became nullable".to_owned(),
        ChangeKind::BecameNotNullable => "no longer nullable".to_owned(),
        ChangeKind::EnumValuesAdded { values } => format!("enum values added: {}", list(values)),
        ChangeKind::EnumValuesRemoved { values } => {
            format!("enum values removed: {}", list(values))
        }
        ChangeKind::BecameEnum { values } => format!("restricted to the values {}", list(values)),
        ChangeKind::EnumDropped => "no longer restricted to a list of values".to_owned(),
        ChangeKind::VariantAdded {
            combinator,
            variant,
        } => format!("{} branch `{variant}` added", keyword(*combinator)),
        ChangeKind::VariantRemoved {
            combinator,
            variant,
        } => format!("{} branch `{variant}` removed", keyword(*combinator)),
        ChangeKind::AuthenticationRequired { requirements } => {
            let names: Vec<String> = requirements.iter().map(|r| format!("`{r}`")).collect();
            format!("now requires authentication: {}", names.join(" or "))
        }
        ChangeKind::AuthenticationOptional => "no longer requires authentication".to_owned(),
        ChangeKind::ScopesAdded { scopes } => format!("needs more scopes: {}", words(scopes)),
        ChangeKind::ScopesRemoved { scopes } => format!("needs fewer scopes: {}", words(scopes)),
        ChangeKind::Omitted { count } => format!("has {count} more schema changes not listed"),
    }
}

fn keyword(combinator: Combinator) -> &'static str {
    match combinator {
        Combinator::OneOf => "oneOf",
        Combinator::AnyOf => "anyOf",
    }
}

/// At most ten values, as JSON, then how many more.
fn list(values: &[Value]) -> String {
    let mut text = String::new();
    for (i, value) in values.iter().take(10).enumerate() {
        if i > 0 {
            text.push_str(", ");
        }
        let _ = write!(text, "`{value}`");
    }
    if values.len() > 10 {
        let _ = write!(text, " and {} more", values.len() - 10);
    }
    text
}

fn words(items: &[String]) -> String {
    items
        .iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::change::{Change, ParameterLocation};

    #[test]
    fn messages_read_as_sentences() {
        let change = Change::new(
            Element::Parameter {
                location: ParameterLocation::Query,
                name: "limit".into(),
                schema_path: None,
            },
            ChangeKind::BecameRequired,
        );
        assert_eq!(change.message, "query parameter `limit` became required");
        assert!(change.breaking);
        let change = Change::new(
            Element::Response {
                status: "200".into(),
                media_type: Some("application/json".into()),
                schema_path: Some("$.items[*].id".into()),
            },
            ChangeKind::Removed {
                required: Some(true),
                deprecated: false,
            },
        );
        assert_eq!(
            change.message,
            "response 200 property `items[*].id` (application/json) removed (was required)"
        );
        let values: Vec<Value> = (0..12).map(|i| json!(i)).collect();
        assert!(list(&values).ends_with("`9` and 2 more"));
    }
}
