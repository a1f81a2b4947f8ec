//! Conversion of the OpenAPI-flavored JSON into `openapiv3` types.

use serde_json::Value;

/// Deserializes our own OpenAPI 3.0 output into `openapiv3::Schema`.
///
/// The input is produced by `render` in the OpenAPI flavor, whose keywords are all ones
/// `openapiv3` models (`type`, `format`, `pattern`, `enum`, `nullable`, `properties`,
/// `required`, `additionalProperties`, `items`, `anyOf`, `x-*` extensions); round-trip tests
/// cover every rule. Should a future keyword ever fail to convert, the schema degrades to
/// "any value" with the reason in `x-ar-conversion-error` rather than panicking.
pub(crate) fn to_openapiv3(json: Value) -> openapiv3::Schema {
    match serde_json::from_value::<openapiv3::Schema>(json) {
        Ok(schema) => schema,
        Err(err) => {
            let mut data = openapiv3::SchemaData::default();
            data.extensions.insert(
                "x-ar-conversion-error".into(),
                Value::String(err.to_string()),
            );
            openapiv3::Schema {
                schema_data: data,
                schema_kind: openapiv3::SchemaKind::Any(openapiv3::AnySchema::default()),
            }
        }
    }
}
