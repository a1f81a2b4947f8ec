//! One change between two documents: where it is ([`Element`]), what happened
//! ([`ChangeKind`]), and the [`Rule`] that says whether it breaks a client.

use serde::Serialize;
use serde_json::Value;

use crate::classify;
use crate::message;
use crate::rule::Rule;
use crate::schema_view::Combinator;
use crate::types::TypeRelation;

/// One classified change.
///
/// In JSON a change is one flat object with snake_case keys: `rule`, `breaking`, `message`, the
/// element's keys (`element`, then `in`/`name`, `media_type`, `status`, `schema_path`, `global`,
/// `requirement` where they apply) and the kind's (`kind`, then `required`, `deprecated`,
/// `from`/`to`/`relation`, `values`, `combinator`/`variant`, `requirements`, `scopes`, `count`
/// where they apply). Keys that do not apply are left out, never `null`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Change {
    /// The rule that classified it.
    pub rule: Rule,
    /// Whether it breaks a client written against the old document (the rule's verdict).
    pub breaking: bool,
    /// One line of English: `query parameter `limit` became required`.
    pub message: String,
    /// Where it is.
    #[serde(flatten)]
    pub element: Element,
    /// What happened.
    #[serde(flatten)]
    pub kind: ChangeKind,
}

/// Where in an operation (or, for global security, in the document) a change is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "element", rename_all = "snake_case")]
pub enum Element {
    /// The operation itself.
    Operation,
    /// The security requirements: the operation's own (`global: false`), or the document's
    /// (`global: true`). `requirement` names one alternative: its schemes joined by ` + `.
    Security {
        /// Whether this is the document's `security`.
        global: bool,
        /// The alternative concerned, if the change is about one.
        #[serde(skip_serializing_if = "Option::is_none")]
        requirement: Option<String>,
    },
    /// A parameter, or a place in its schema. Path parameters are matched by position and
    /// named as in the new document.
    Parameter {
        /// Where it is sent.
        #[serde(rename = "in")]
        location: ParameterLocation,
        /// Its name.
        name: String,
        /// The place in its schema (`$` for the schema itself), for a schema change.
        #[serde(skip_serializing_if = "Option::is_none")]
        schema_path: Option<String>,
    },
    /// The request body, one of its media types, or a place in one media type's schema.
    RequestBody {
        /// The media type, for a change about one.
        #[serde(skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
        /// The place in its schema (`$`, `$.user.email`, `$.items[*]`), for a schema change.
        #[serde(skip_serializing_if = "Option::is_none")]
        schema_path: Option<String>,
    },
    /// A response, one of its media types, or a place in one media type's schema.
    Response {
        /// The status key as written (`200`, `4XX`, `default`).
        status: String,
        /// The media type, for a change about one.
        #[serde(skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
        /// The place in its schema, for a schema change.
        #[serde(skip_serializing_if = "Option::is_none")]
        schema_path: Option<String>,
    },
}

/// Where a parameter is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ParameterLocation {
    /// A path segment.
    Path,
    /// The query string.
    Query,
    /// A header.
    Header,
    /// A cookie.
    Cookie,
}

/// What happened to an [`Element`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChangeKind {
    /// It appeared. `required` is set for what can be required (parameters, request bodies,
    /// properties).
    Added {
        /// Whether it is required.
        #[serde(skip_serializing_if = "Option::is_none")]
        required: Option<bool>,
    },
    /// It disappeared.
    Removed {
        /// Whether it was required, for what can be.
        #[serde(skip_serializing_if = "Option::is_none")]
        required: Option<bool>,
        /// Whether it was marked deprecated first (operations and parameters).
        #[serde(skip_serializing_if = "is_false")]
        deprecated: bool,
    },
    /// It must now be sent, or is now always answered.
    BecameRequired,
    /// It may now be left out.
    BecameOptional,
    /// It is now marked deprecated.
    Deprecated,
    /// It is no longer marked deprecated.
    Reactivated,
    /// Its type (or format) changed.
    TypeChanged {
        /// The old type, as `integer`, `string (date-time)`, `string | integer`, `any`.
        from: String,
        /// The new type.
        to: String,
        /// Whether the new type holds the old (`widened`), the old holds the new
        /// (`narrowed`), or neither (`changed`).
        relation: TypeRelation,
    },
    /// It may now be `null`.
    BecameNullable,
    /// It may no longer be `null`.
    BecameNotNullable,
    /// Values were added to its `enum`.
    EnumValuesAdded {
        /// The values added.
        values: Vec<Value>,
    },
    /// Values were removed from its `enum`.
    EnumValuesRemoved {
        /// The values removed.
        values: Vec<Value>,
    },
    /// It is now restricted to a list of values.
    BecameEnum {
        /// The values allowed.
        values: Vec<Value>,
    },
    /// It is no longer restricted to a list of values.
    EnumDropped,
    /// A branch was added to its `oneOf`/`anyOf`.
    VariantAdded {
        /// The union's keyword.
        combinator: Combinator,
        /// The branch: its schema's name, its title, or its position and type.
        variant: String,
    },
    /// A branch was removed from its `oneOf`/`anyOf`.
    VariantRemoved {
        /// The union's keyword.
        combinator: Combinator,
        /// The branch.
        variant: String,
    },
    /// Calls without credentials were accepted and no longer are.
    AuthenticationRequired {
        /// The alternatives now accepted, each its schemes joined by ` + `.
        requirements: Vec<String>,
    },
    /// Calls without credentials are now accepted.
    AuthenticationOptional,
    /// Scopes a token must now hold.
    ScopesAdded {
        /// The scopes.
        scopes: Vec<String>,
    },
    /// Scopes a token no longer needs.
    ScopesRemoved {
        /// The scopes.
        scopes: Vec<String>,
    },
    /// More schema changes than [`crate::MAX_SCHEMA_CHANGES`] in one place: this many were
    /// not listed.
    Omitted {
        /// How many.
        count: usize,
    },
}

fn is_false(value: &bool) -> bool {
    !*value
}

impl Change {
    /// Classifies `kind` at `element` and words it.
    pub(crate) fn new(element: Element, kind: ChangeKind) -> Change {
        let rule = classify::rule(&element, &kind);
        let message = message::describe(&element, &kind);
        Change {
            rule,
            breaking: rule.breaking(),
            message,
            element,
            kind,
        }
    }
}

impl ParameterLocation {
    /// The `in` value: `path`, `query`, `header`, `cookie`.
    pub fn as_str(self) -> &'static str {
        match self {
            ParameterLocation::Path => "path",
            ParameterLocation::Query => "query",
            ParameterLocation::Header => "header",
            ParameterLocation::Cookie => "cookie",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<ParameterLocation> {
        [
            ParameterLocation::Path,
            ParameterLocation::Query,
            ParameterLocation::Header,
            ParameterLocation::Cookie,
        ]
        .into_iter()
        .find(|l| l.as_str() == text)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn json_is_flat_with_snake_case_keys() {
        let change = Change::new(
            Element::RequestBody {
                media_type: Some("application/json".into()),
                schema_path: Some("$.name".into()),
            },
            ChangeKind::TypeChanged {
                from: "integer".into(),
                to: "string".into(),
                relation: TypeRelation::Changed,
            },
        );
        assert_eq!(
            serde_json::to_value(&change).unwrap(),
            json!({
                "rule": "request-property-type-changed",
                "breaking": true,
                "message": "request property `name` (application/json) type changed from `integer` to `string`",
                "element": "request_body",
                "media_type": "application/json",
                "schema_path": "$.name",
                "kind": "type_changed",
                "from": "integer",
                "to": "string",
                "relation": "changed"
            })
        );
    }
}
