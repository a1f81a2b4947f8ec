//! The rules that classify changes, each with its id and its verdict (the list is on
//! [`Rule`]).

use serde::{Serialize, Serializer};

macro_rules! rules {
    ($($(#[doc = $doc:literal])* $variant:ident = $id:literal, $breaking:literal;)*) => {
        /// A classification rule: its [`id`](Rule::id) is stable, its verdict is
        /// [`breaking`](Rule::breaking) for a client written against the old document.
        ///
        /// **Direction.** A client *sends* parameters and request bodies and *reads*
        /// responses, so the same change to a schema breaks it on one side only:
        ///
        /// - request side: *narrowing* breaks. A value the client sent before may now be
        ///   refused: a new required parameter or property, optional made required, a type
        ///   narrowed or changed, an enum value removed, `null` refused, a `oneOf`/`anyOf`
        ///   branch removed, a media type removed. Widening (a type generalized, an enum
        ///   value added, a branch added) is safe.
        /// - response side: *widening* breaks. The client may now read a value it was never
        ///   told about: a property made optional or nullable, a type widened or changed, an
        ///   enum value added, a branch added; and a property or a success status removed
        ///   breaks a client that reads it. Narrowing (a property made required, an enum
        ///   value removed) is safe.
        ///
        /// Removing an operation or a parameter breaks its callers unless it was deprecated
        /// first. A property marked `readOnly` is never sent, so nothing about it changes a
        /// request; `writeOnly` likewise for responses.
        ///
        /// **oasdiff.** Ids are oasdiff's where oasdiff has a check for the same change (its
        /// `checker/rules.go`), so a team that knows oasdiff reads them as it does. A rule
        /// oasdiff rates `ERR` or `WARN` is breaking here, `INFO` is not, with these
        /// exceptions:
        ///
        /// - security: oasdiff rates every security change `INFO`. Here a change that
        ///   refuses calls a client makes is breaking: authentication required where it was
        ///   not (`api-security-added`), an accepted way to authenticate removed
        ///   (`api-security-alternative-removed`), more scopes required
        ///   (`api-security-scope-added`); the same for the document's `security`
        ///   (`api-global-security-*`).
        /// - a branch added to a response's `anyOf` is breaking, as a `oneOf` branch is: the
        ///   client meets answers of a shape it was never told about (oasdiff: `INFO`).
        /// - ids oasdiff has no check for are ar's own: `request-parameter-enum-removed`,
        ///   `request-property-enum-removed`, `response-property-enum-removed` (an `enum`
        ///   list dropped altogether), `response-property-became-enum`,
        ///   `api-security-alternative-*`, `api-global-security-alternative-*` and
        ///   `schema-changes-omitted`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Rule {
            $($(#[doc = $doc])* $variant,)*
        }

        impl Rule {
            /// Every rule, in the order of this list.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The rule's id: `new-required-request-parameter`, ...
            pub fn id(self) -> &'static str {
                match self {
                    $(Rule::$variant => $id,)*
                }
            }

            /// Whether a change this rule decides breaks a client of the old document.
            pub fn breaking(self) -> bool {
                match self {
                    $(Rule::$variant => $breaking,)*
                }
            }
        }
    };
}

rules! {
    /// An operation appeared.
    EndpointAdded = "endpoint-added", false;
    /// An operation not marked deprecated disappeared: its callers get 404s.
    ApiRemovedWithoutDeprecation = "api-removed-without-deprecation", true;
    /// A deprecated operation disappeared: its callers were warned.
    ApiRemovedWithDeprecation = "api-removed-with-deprecation", false;
    /// An operation was marked deprecated.
    EndpointDeprecated = "endpoint-deprecated", false;
    /// An operation is no longer deprecated.
    EndpointReactivated = "endpoint-reactivated", false;

    /// An operation that accepted anonymous calls requires authentication.
    ApiSecurityAdded = "api-security-added", true;
    /// An operation accepts anonymous calls.
    ApiSecurityRemoved = "api-security-removed", false;
    /// An operation accepts another way to authenticate.
    ApiSecurityAlternativeAdded = "api-security-alternative-added", false;
    /// A way to authenticate an operation accepted is gone: clients using it are refused.
    ApiSecurityAlternativeRemoved = "api-security-alternative-removed", true;
    /// A token needs more scopes: tokens issued for the old scopes are refused.
    ApiSecurityScopeAdded = "api-security-scope-added", true;
    /// A token needs fewer scopes.
    ApiSecurityScopeRemoved = "api-security-scope-removed", false;
    /// `api-security-added` for the document's `security`.
    ApiGlobalSecurityAdded = "api-global-security-added", true;
    /// `api-security-removed` for the document's `security`.
    ApiGlobalSecurityRemoved = "api-global-security-removed", false;
    /// `api-security-alternative-added` for the document's `security`.
    ApiGlobalSecurityAlternativeAdded = "api-global-security-alternative-added", false;
    /// `api-security-alternative-removed` for the document's `security`.
    ApiGlobalSecurityAlternativeRemoved = "api-global-security-alternative-removed", true;
    /// `api-security-scope-added` for the document's `security`.
    ApiGlobalSecurityScopeAdded = "api-global-security-scope-added", true;
    /// `api-security-scope-removed` for the document's `security`.
    ApiGlobalSecurityScopeRemoved = "api-global-security-scope-removed", false;

    /// A required parameter appeared: old requests lack it.
    NewRequiredRequestParameter = "new-required-request-parameter", true;
    /// An optional parameter appeared.
    NewOptionalRequestParameter = "new-optional-request-parameter", false;
    /// A parameter disappeared: clients still send it, and it is ignored or refused.
    RequestParameterRemoved = "request-parameter-removed", true;
    /// A deprecated parameter disappeared.
    RequestParameterRemovedWithDeprecation = "request-parameter-removed-with-deprecation", false;
    /// A parameter became required: requests without it are refused.
    RequestParameterBecameRequired = "request-parameter-became-required", true;
    /// A parameter became optional.
    RequestParameterBecameOptional = "request-parameter-became-optional", false;
    /// A parameter was marked deprecated.
    RequestParameterDeprecated = "request-parameter-deprecated", false;
    /// A parameter is no longer deprecated.
    RequestParameterReactivated = "request-parameter-reactivated", false;
    /// A parameter's type changed or narrowed: values clients send may be refused.
    RequestParameterTypeChanged = "request-parameter-type-changed", true;
    /// A parameter's type widened: every old value is still accepted.
    RequestParameterTypeGeneralized = "request-parameter-type-generalized", false;
    /// A parameter accepts `null`.
    RequestParameterBecameNullable = "request-parameter-became-nullable", false;
    /// A parameter refuses `null`.
    RequestParameterBecameNotNullable = "request-parameter-became-not-nullable", true;
    /// A parameter accepts more values.
    RequestParameterEnumValueAdded = "request-parameter-enum-value-added", false;
    /// A parameter refuses values it accepted.
    RequestParameterEnumValueRemoved = "request-parameter-enum-value-removed", true;
    /// A parameter was restricted to a list of values.
    RequestParameterBecameEnum = "request-parameter-became-enum", true;
    /// A parameter is no longer restricted to a list of values.
    RequestParameterEnumRemoved = "request-parameter-enum-removed", false;

    /// A required request body appeared.
    RequestBodyAddedRequired = "request-body-added-required", true;
    /// An optional request body appeared.
    RequestBodyAddedOptional = "request-body-added-optional", false;
    /// The request body disappeared: what clients send is ignored or refused.
    RequestBodyRemoved = "request-body-removed", true;
    /// The request body became required.
    RequestBodyBecameRequired = "request-body-became-required", true;
    /// The request body became optional.
    RequestBodyBecameOptional = "request-body-became-optional", false;
    /// The request body accepts another media type.
    RequestBodyMediaTypeAdded = "request-body-media-type-added", false;
    /// The request body no longer accepts a media type clients send.
    RequestBodyMediaTypeRemoved = "request-body-media-type-removed", true;
    /// The request body's type changed or narrowed.
    RequestBodyTypeChanged = "request-body-type-changed", true;
    /// The request body's type widened.
    RequestBodyTypeGeneralized = "request-body-type-generalized", false;
    /// The request body accepts `null`.
    RequestBodyBecameNullable = "request-body-became-nullable", false;
    /// The request body refuses `null`.
    RequestBodyBecameNotNullable = "request-body-became-not-nullable", true;
    /// The request body refuses values it accepted.
    RequestBodyEnumValueRemoved = "request-body-enum-value-removed", true;
    /// The request body was restricted to a list of values.
    RequestBodyBecameEnum = "request-body-became-enum", true;
    /// The request body accepts another `oneOf` shape.
    RequestBodyOneOfAdded = "request-body-one-of-added", false;
    /// The request body refuses a `oneOf` shape it accepted.
    RequestBodyOneOfRemoved = "request-body-one-of-removed", true;
    /// The request body accepts another `anyOf` shape.
    RequestBodyAnyOfAdded = "request-body-any-of-added", false;
    /// The request body refuses an `anyOf` shape it accepted.
    RequestBodyAnyOfRemoved = "request-body-any-of-removed", true;

    /// A required request property appeared: old requests lack it.
    NewRequiredRequestProperty = "new-required-request-property", true;
    /// An optional request property appeared.
    NewOptionalRequestProperty = "new-optional-request-property", false;
    /// A request property disappeared: clients still send it.
    RequestPropertyRemoved = "request-property-removed", true;
    /// A request property became required.
    RequestPropertyBecameRequired = "request-property-became-required", true;
    /// A request property became optional.
    RequestPropertyBecameOptional = "request-property-became-optional", false;
    /// A request property's type changed or narrowed.
    RequestPropertyTypeChanged = "request-property-type-changed", true;
    /// A request property's type widened.
    RequestPropertyTypeGeneralized = "request-property-type-generalized", false;
    /// A request property accepts `null`.
    RequestPropertyBecameNullable = "request-property-became-nullable", false;
    /// A request property refuses `null`.
    RequestPropertyBecameNotNullable = "request-property-became-not-nullable", true;
    /// A request property (or the body) accepts more values.
    RequestPropertyEnumValueAdded = "request-property-enum-value-added", false;
    /// A request property refuses values it accepted.
    RequestPropertyEnumValueRemoved = "request-property-enum-value-removed", true;
    /// A request property was restricted to a list of values.
    RequestPropertyBecameEnum = "request-property-became-enum", true;
    /// A request property (or the body) is no longer restricted to a list of values.
    RequestPropertyEnumRemoved = "request-property-enum-removed", false;
    /// A request property accepts another `oneOf` shape.
    RequestPropertyOneOfAdded = "request-property-one-of-added", false;
    /// A request property refuses a `oneOf` shape it accepted.
    RequestPropertyOneOfRemoved = "request-property-one-of-removed", true;
    /// A request property accepts another `anyOf` shape.
    RequestPropertyAnyOfAdded = "request-property-any-of-added", false;
    /// A request property refuses an `anyOf` shape it accepted.
    RequestPropertyAnyOfRemoved = "request-property-any-of-removed", true;

    /// A 2xx response appeared.
    ResponseSuccessStatusAdded = "response-success-status-added", false;
    /// A 2xx response disappeared: clients waiting for it get another.
    ResponseSuccessStatusRemoved = "response-success-status-removed", true;
    /// A response other than 2xx appeared.
    ResponseNonSuccessStatusAdded = "response-non-success-status-added", false;
    /// A response other than 2xx disappeared.
    ResponseNonSuccessStatusRemoved = "response-non-success-status-removed", false;
    /// A response offers another media type.
    ResponseMediaTypeAdded = "response-media-type-added", false;
    /// A response no longer offers a media type clients ask for.
    ResponseMediaTypeRemoved = "response-media-type-removed", true;
    /// A response body's type changed.
    ResponseBodyTypeChanged = "response-body-type-changed", true;
    /// A response body's type widened: clients meet values they never did.
    ResponseBodyTypeGeneralized = "response-body-type-generalized", true;
    /// A response body's type narrowed.
    ResponseBodyTypeSpecialized = "response-body-type-specialized", false;
    /// A response body may be `null`.
    ResponseBodyBecameNullable = "response-body-became-nullable", true;
    /// A response body is never `null`.
    ResponseBodyBecameNotNullable = "response-body-became-not-nullable", false;
    /// A response body no longer takes a value of its `enum`.
    ResponseMediaTypeEnumValueRemoved = "response-mediatype-enum-value-removed", false;
    /// A response body may take another `oneOf` shape.
    ResponseBodyOneOfAdded = "response-body-one-of-added", true;
    /// A response body no longer takes a `oneOf` shape.
    ResponseBodyOneOfRemoved = "response-body-one-of-removed", false;
    /// A response body may take another `anyOf` shape.
    ResponseBodyAnyOfAdded = "response-body-any-of-added", true;
    /// A response body no longer takes an `anyOf` shape.
    ResponseBodyAnyOfRemoved = "response-body-any-of-removed", false;

    /// A required response property appeared.
    ResponseRequiredPropertyAdded = "response-required-property-added", false;
    /// An optional response property appeared.
    ResponseOptionalPropertyAdded = "response-optional-property-added", false;
    /// A required response property disappeared: clients read it.
    ResponseRequiredPropertyRemoved = "response-required-property-removed", true;
    /// An optional response property disappeared: clients that read it lose it.
    ResponseOptionalPropertyRemoved = "response-optional-property-removed", true;
    /// A response property may now be missing.
    ResponsePropertyBecameOptional = "response-property-became-optional", true;
    /// A response property is now always there.
    ResponsePropertyBecameRequired = "response-property-became-required", false;
    /// A response property's type changed.
    ResponsePropertyTypeChanged = "response-property-type-changed", true;
    /// A response property's type widened: clients meet values they never did.
    ResponsePropertyTypeGeneralized = "response-property-type-generalized", true;
    /// A response property's type narrowed.
    ResponsePropertyTypeSpecialized = "response-property-type-specialized", false;
    /// A response property may be `null`: clients that do not expect it fail.
    ResponsePropertyBecameNullable = "response-property-became-nullable", true;
    /// A response property is never `null`.
    ResponsePropertyBecameNotNullable = "response-property-became-not-nullable", false;
    /// A response property (or body) may take a value clients do not know.
    ResponsePropertyEnumValueAdded = "response-property-enum-value-added", true;
    /// A response property no longer takes a value.
    ResponsePropertyEnumValueRemoved = "response-property-enum-value-removed", false;
    /// A response property (or body) was restricted to a list of values.
    ResponsePropertyBecameEnum = "response-property-became-enum", false;
    /// A response property (or body) is no longer restricted to a list of values.
    ResponsePropertyEnumRemoved = "response-property-enum-removed", true;
    /// A response property may take another `oneOf` shape.
    ResponsePropertyOneOfAdded = "response-property-one-of-added", true;
    /// A response property no longer takes a `oneOf` shape.
    ResponsePropertyOneOfRemoved = "response-property-one-of-removed", false;
    /// A response property may take another `anyOf` shape.
    ResponsePropertyAnyOfAdded = "response-property-any-of-added", true;
    /// A response property no longer takes an `anyOf` shape.
    ResponsePropertyAnyOfRemoved = "response-property-any-of-removed", false;

    /// Changes left unlisted past [`crate::MAX_SCHEMA_CHANGES`]; the listed ones decide.
    SchemaChangesOmitted = "schema-changes-omitted", false;
}

impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.id())
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn ids_are_unique_kebab_case() {
        let ids: BTreeSet<&str> = Rule::ALL.iter().map(|r| r.id()).collect();
        assert_eq!(ids.len(), Rule::ALL.len());
        for id in ids {
            assert!(
                id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{id}"
            );
        }
    }

    #[test]
    fn verdicts_follow_direction() {
        assert!(Rule::RequestPropertyEnumValueRemoved.breaking());
        assert!(!Rule::RequestPropertyEnumValueAdded.breaking());
        assert!(Rule::ResponsePropertyEnumValueAdded.breaking());
        assert!(!Rule::ResponsePropertyEnumValueRemoved.breaking());
        assert_eq!(
            serde_json::to_value(Rule::ApiSecurityAdded).unwrap(),
            "api-security-added"
        );
    }
}
