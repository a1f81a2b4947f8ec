//! Which [`Rule`] decides a change, from where it is and what happened. The direction logic
//! (requests break by narrowing, responses by widening) is written out on [`Rule`].

use crate::change::{ChangeKind, Element};
use crate::rule::Rule;
use crate::schema_view::Combinator;
use crate::types::TypeRelation;

/// The schema a change is in, for the rule ids that name it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    /// A parameter's own schema.
    Parameter,
    /// A body's own schema (`$`).
    Body,
    /// Anything below (`$.user.email`, `$[*]`), in a body or a parameter.
    Property,
}

/// The rule deciding `kind` at `element`.
pub(crate) fn rule(element: &Element, kind: &ChangeKind) -> Rule {
    use ChangeKind as K;
    match element {
        Element::Operation => match kind {
            K::Added { .. } => Rule::EndpointAdded,
            K::Removed {
                deprecated: true, ..
            } => Rule::ApiRemovedWithDeprecation,
            K::Deprecated => Rule::EndpointDeprecated,
            K::Reactivated => Rule::EndpointReactivated,
            // `Removed` (and nothing else is produced for an operation).
            _ => Rule::ApiRemovedWithoutDeprecation,
        },
        Element::Security { global, .. } => security(*global, kind),
        Element::Parameter {
            schema_path: None, ..
        } => match kind {
            K::Added {
                required: Some(true),
            } => Rule::NewRequiredRequestParameter,
            K::Added { .. } => Rule::NewOptionalRequestParameter,
            K::Removed {
                deprecated: true, ..
            } => Rule::RequestParameterRemovedWithDeprecation,
            K::BecameRequired => Rule::RequestParameterBecameRequired,
            K::BecameOptional => Rule::RequestParameterBecameOptional,
            K::Deprecated => Rule::RequestParameterDeprecated,
            K::Reactivated => Rule::RequestParameterReactivated,
            _ => Rule::RequestParameterRemoved,
        },
        Element::Parameter {
            schema_path: Some(path),
            ..
        } => request_schema(level(path, Level::Parameter), kind),
        Element::RequestBody {
            media_type: None, ..
        } => match kind {
            K::Added {
                required: Some(true),
            } => Rule::RequestBodyAddedRequired,
            K::Added { .. } => Rule::RequestBodyAddedOptional,
            K::BecameRequired => Rule::RequestBodyBecameRequired,
            K::BecameOptional => Rule::RequestBodyBecameOptional,
            _ => Rule::RequestBodyRemoved,
        },
        Element::RequestBody {
            schema_path: None, ..
        } => match kind {
            K::Added { .. } => Rule::RequestBodyMediaTypeAdded,
            _ => Rule::RequestBodyMediaTypeRemoved,
        },
        Element::RequestBody {
            schema_path: Some(path),
            ..
        } => request_schema(level(path, Level::Body), kind),
        Element::Response {
            status,
            media_type: None,
            ..
        } => {
            let success = status.starts_with('2');
            match (kind, success) {
                (K::Added { .. }, true) => Rule::ResponseSuccessStatusAdded,
                (K::Added { .. }, false) => Rule::ResponseNonSuccessStatusAdded,
                (_, true) => Rule::ResponseSuccessStatusRemoved,
                (_, false) => Rule::ResponseNonSuccessStatusRemoved,
            }
        }
        Element::Response {
            schema_path: None, ..
        } => match kind {
            K::Added { .. } => Rule::ResponseMediaTypeAdded,
            _ => Rule::ResponseMediaTypeRemoved,
        },
        Element::Response {
            schema_path: Some(path),
            ..
        } => response_schema(level(path, Level::Body), kind),
    }
}

fn level(path: &str, own: Level) -> Level {
    if path == "$" { own } else { Level::Property }
}

fn security(global: bool, kind: &ChangeKind) -> Rule {
    use ChangeKind as K;
    let (op, doc) = match kind {
        K::AuthenticationRequired { .. } => (Rule::ApiSecurityAdded, Rule::ApiGlobalSecurityAdded),
        K::AuthenticationOptional => (Rule::ApiSecurityRemoved, Rule::ApiGlobalSecurityRemoved),
        K::Added { .. } => (
            Rule::ApiSecurityAlternativeAdded,
            Rule::ApiGlobalSecurityAlternativeAdded,
        ),
        K::ScopesAdded { .. } => (
            Rule::ApiSecurityScopeAdded,
            Rule::ApiGlobalSecurityScopeAdded,
        ),
        K::ScopesRemoved { .. } => (
            Rule::ApiSecurityScopeRemoved,
            Rule::ApiGlobalSecurityScopeRemoved,
        ),
        _ => (
            Rule::ApiSecurityAlternativeRemoved,
            Rule::ApiGlobalSecurityAlternativeRemoved,
        ),
    };
    if global { doc } else { op }
}

/// Request side: narrowing breaks.
fn request_schema(level: Level, kind: &ChangeKind) -> Rule {
    use ChangeKind as K;
    use Level::{Body, Parameter, Property};
    match (kind, level) {
        (
            K::Added {
                required: Some(true),
            },
            _,
        ) => Rule::NewRequiredRequestProperty,
        (K::Added { .. }, _) => Rule::NewOptionalRequestProperty,
        (K::Removed { .. }, _) => Rule::RequestPropertyRemoved,
        (K::BecameRequired, _) => Rule::RequestPropertyBecameRequired,
        (K::BecameOptional, _) => Rule::RequestPropertyBecameOptional,
        (K::TypeChanged { relation, .. }, _) => {
            let widened = *relation == TypeRelation::Widened;
            match (level, widened) {
                (Parameter, true) => Rule::RequestParameterTypeGeneralized,
                (Parameter, false) => Rule::RequestParameterTypeChanged,
                (Body, true) => Rule::RequestBodyTypeGeneralized,
                (Body, false) => Rule::RequestBodyTypeChanged,
                (Property, true) => Rule::RequestPropertyTypeGeneralized,
                (Property, false) => Rule::RequestPropertyTypeChanged,
            }
        }
        (K::BecameNullable, Parameter) => Rule::RequestParameterBecameNullable,
        (K::BecameNullable, Body) => Rule::RequestBodyBecameNullable,
        (K::BecameNullable, Property) => Rule::RequestPropertyBecameNullable,
        (K::BecameNotNullable, Parameter) => Rule::RequestParameterBecameNotNullable,
        (K::BecameNotNullable, Body) => Rule::RequestBodyBecameNotNullable,
        (K::BecameNotNullable, Property) => Rule::RequestPropertyBecameNotNullable,
        (K::EnumValuesAdded { .. }, Parameter) => Rule::RequestParameterEnumValueAdded,
        (K::EnumValuesAdded { .. }, _) => Rule::RequestPropertyEnumValueAdded,
        (K::EnumValuesRemoved { .. }, Parameter) => Rule::RequestParameterEnumValueRemoved,
        (K::EnumValuesRemoved { .. }, Body) => Rule::RequestBodyEnumValueRemoved,
        (K::EnumValuesRemoved { .. }, Property) => Rule::RequestPropertyEnumValueRemoved,
        (K::BecameEnum { .. }, Parameter) => Rule::RequestParameterBecameEnum,
        (K::BecameEnum { .. }, Body) => Rule::RequestBodyBecameEnum,
        (K::BecameEnum { .. }, Property) => Rule::RequestPropertyBecameEnum,
        (K::EnumDropped, Parameter) => Rule::RequestParameterEnumRemoved,
        (K::EnumDropped, _) => Rule::RequestPropertyEnumRemoved,
        (K::VariantAdded { combinator, .. }, Body) => match combinator {
            Combinator::OneOf => Rule::RequestBodyOneOfAdded,
            Combinator::AnyOf => Rule::RequestBodyAnyOfAdded,
        },
        (K::VariantAdded { combinator, .. }, _) => match combinator {
            Combinator::OneOf => Rule::RequestPropertyOneOfAdded,
            Combinator::AnyOf => Rule::RequestPropertyAnyOfAdded,
        },
        (K::VariantRemoved { combinator, .. }, Body) => match combinator {
            Combinator::OneOf => Rule::RequestBodyOneOfRemoved,
            Combinator::AnyOf => Rule::RequestBodyAnyOfRemoved,
        },
        (K::VariantRemoved { combinator, .. }, _) => match combinator {
            Combinator::OneOf => Rule::RequestPropertyOneOfRemoved,
            Combinator::AnyOf => Rule::RequestPropertyAnyOfRemoved,
        },
        // `Omitted`, and nothing else reaches a schema.
        _ => Rule::SchemaChangesOmitted,
    }
}

/// Response side: widening breaks.
fn response_schema(level: Level, kind: &ChangeKind) -> Rule {
    use ChangeKind as K;
    let root = level != Level::Property;
    match kind {
        K::Added {
            required: Some(true),
        } => Rule::ResponseRequiredPropertyAdded,
        K::Added { .. } => Rule::ResponseOptionalPropertyAdded,
        K::Removed {
            required: Some(true),
            ..
        } => Rule::ResponseRequiredPropertyRemoved,
        K::Removed { .. } => Rule::ResponseOptionalPropertyRemoved,
        K::BecameRequired => Rule::ResponsePropertyBecameRequired,
        K::BecameOptional => Rule::ResponsePropertyBecameOptional,
        K::TypeChanged { relation, .. } => match (relation, root) {
            (TypeRelation::Widened, true) => Rule::ResponseBodyTypeGeneralized,
            (TypeRelation::Narrowed, true) => Rule::ResponseBodyTypeSpecialized,
            (TypeRelation::Changed, true) => Rule::ResponseBodyTypeChanged,
            (TypeRelation::Widened, false) => Rule::ResponsePropertyTypeGeneralized,
            (TypeRelation::Narrowed, false) => Rule::ResponsePropertyTypeSpecialized,
            (TypeRelation::Changed, false) => Rule::ResponsePropertyTypeChanged,
        },
        K::BecameNullable if root => Rule::ResponseBodyBecameNullable,
        K::BecameNullable => Rule::ResponsePropertyBecameNullable,
        K::BecameNotNullable if root => Rule::ResponseBodyBecameNotNullable,
        K::BecameNotNullable => Rule::ResponsePropertyBecameNotNullable,
        K::EnumValuesAdded { .. } => Rule::ResponsePropertyEnumValueAdded,
        K::EnumValuesRemoved { .. } if root => Rule::ResponseMediaTypeEnumValueRemoved,
        K::EnumValuesRemoved { .. } => Rule::ResponsePropertyEnumValueRemoved,
        K::BecameEnum { .. } => Rule::ResponsePropertyBecameEnum,
        K::EnumDropped => Rule::ResponsePropertyEnumRemoved,
        K::VariantAdded { combinator, .. } => match (combinator, root) {
            (Combinator::OneOf, true) => Rule::ResponseBodyOneOfAdded,
            (Combinator::AnyOf, true) => Rule::ResponseBodyAnyOfAdded,
            (Combinator::OneOf, false) => Rule::ResponsePropertyOneOfAdded,
            (Combinator::AnyOf, false) => Rule::ResponsePropertyAnyOfAdded,
        },
        K::VariantRemoved { combinator, .. } => match (combinator, root) {
            (Combinator::OneOf, true) => Rule::ResponseBodyOneOfRemoved,
            (Combinator::AnyOf, true) => Rule::ResponseBodyAnyOfRemoved,
            (Combinator::OneOf, false) => Rule::ResponsePropertyOneOfRemoved,
            (Combinator::AnyOf, false) => Rule::ResponsePropertyAnyOfRemoved,
        },
        _ => Rule::SchemaChangesOmitted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(path: &str) -> Element {
        Element::RequestBody {
            media_type: Some("application/json".into()),
            schema_path: Some(path.into()),
        }
    }

    fn response(status: &str, path: Option<&str>) -> Element {
        Element::Response {
            status: status.into(),
            media_type: path.map(|_| "application/json".into()),
            schema_path: path.map(Into::into),
        }
    }

    fn changed(relation: TypeRelation) -> ChangeKind {
        ChangeKind::TypeChanged {
            from: "a".into(),
            to: "b".into(),
            relation,
        }
    }

    #[test]
    fn the_same_change_breaks_one_side_only() {
        let widened = changed(TypeRelation::Widened);
        assert_eq!(
            rule(&request("$.n"), &widened),
            Rule::RequestPropertyTypeGeneralized
        );
        assert_eq!(
            rule(&response("200", Some("$.n")), &widened),
            Rule::ResponsePropertyTypeGeneralized
        );
        let narrowed = changed(TypeRelation::Narrowed);
        assert!(rule(&request("$.n"), &narrowed).breaking());
        assert!(!rule(&response("200", Some("$.n")), &narrowed).breaking());
        assert!(!rule(&request("$.n"), &ChangeKind::BecameNullable).breaking());
        assert!(rule(&response("200", Some("$.n")), &ChangeKind::BecameNullable).breaking());
        assert_eq!(
            rule(&response("200", Some("$")), &ChangeKind::BecameNullable),
            Rule::ResponseBodyBecameNullable
        );
    }

    #[test]
    fn statuses_and_operations() {
        let removed = ChangeKind::Removed {
            required: None,
            deprecated: false,
        };
        assert_eq!(
            rule(&response("200", None), &removed),
            Rule::ResponseSuccessStatusRemoved
        );
        assert_eq!(
            rule(&response("2XX", None), &removed),
            Rule::ResponseSuccessStatusRemoved
        );
        assert_eq!(
            rule(&response("404", None), &removed),
            Rule::ResponseNonSuccessStatusRemoved
        );
        assert_eq!(
            rule(&response("default", None), &removed),
            Rule::ResponseNonSuccessStatusRemoved
        );
        assert_eq!(
            rule(&Element::Operation, &removed),
            Rule::ApiRemovedWithoutDeprecation
        );
        let after = ChangeKind::Removed {
            required: None,
            deprecated: true,
        };
        assert_eq!(
            rule(&Element::Operation, &after),
            Rule::ApiRemovedWithDeprecation
        );
    }

    #[test]
    fn parameters_and_security() {
        let param = |path: Option<&str>| Element::Parameter {
            location: crate::change::ParameterLocation::Query,
            name: "q".into(),
            schema_path: path.map(Into::into),
        };
        assert_eq!(
            rule(
                &param(None),
                &ChangeKind::Added {
                    required: Some(true)
                }
            ),
            Rule::NewRequiredRequestParameter
        );
        assert_eq!(
            rule(
                &param(Some("$")),
                &ChangeKind::EnumValuesRemoved { values: vec![] }
            ),
            Rule::RequestParameterEnumValueRemoved
        );
        assert_eq!(
            rule(
                &param(Some("$[*]")),
                &ChangeKind::EnumValuesRemoved { values: vec![] }
            ),
            Rule::RequestPropertyEnumValueRemoved
        );
        let global = Element::Security {
            global: true,
            requirement: None,
        };
        assert_eq!(
            rule(
                &global,
                &ChangeKind::AuthenticationRequired {
                    requirements: vec![]
                }
            ),
            Rule::ApiGlobalSecurityAdded
        );
    }
}
