//! Integration tests of ar-schema: one binary, one module per concern.

mod bytes;
mod hostile;
mod laws;
mod openapi;
mod rules;
mod shape;

use ar_schema::{RenderOptions, Schema, SchemaBuilder};
use serde_json::Value;

/// The schema of `samples`, added one by one.
pub(crate) fn build(samples: &[Value]) -> Schema {
    let mut builder = SchemaBuilder::new();
    for s in samples {
        builder.add_value(s);
    }
    builder.finish()
}

/// JSON Schema output without counts, for readable goldens.
pub(crate) fn plain(schema: &Schema) -> Value {
    schema.to_json_schema_with(&RenderOptions::default().sample_counts(false))
}

/// OpenAPI output without counts.
pub(crate) fn plain_openapi(schema: &Schema) -> Value {
    schema.to_openapi_with(&RenderOptions::default().sample_counts(false))
}

/// Panics unless every sample validates against the JSON Schema form, formats included.
pub(crate) fn assert_all_validate(schema: &Schema, samples: &[Value]) {
    let json = schema.to_json_schema();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&json)
        .unwrap_or_else(|e| panic!("schema does not compile: {e}\n{json:#}"));
    for sample in samples {
        if let Some(err) = validator.iter_errors(sample).next() {
            panic!("sample {sample} fails: {err}\nschema: {json:#}");
        }
    }
}
