//! Schema inference of arbitrary bytes labelled JSON.

use ar_schema::SchemaBuilder;
use serde_json::Value;

/// Splits `data` at NUL bytes into samples and builds one schema from those
/// that parse as JSON (and from every sample's bytes through the streaming
/// path, which must not panic). The schema, written as JSON Schema 2020-12,
/// accepts every sample it was built from, formats included.
pub fn check(data: &[u8]) {
    let mut builder = SchemaBuilder::new();
    let mut samples = Vec::new();
    for part in data.split(|b| *b == 0) {
        let _ = SchemaBuilder::new().add_json_slice(part);
        if let Ok(value) = serde_json::from_slice::<Value>(part) {
            builder.add_value(&value);
            samples.push(value);
        }
    }
    let schema = builder.finish();
    let json = schema.to_json_schema();
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(&json)
        .unwrap_or_else(|e| panic!("the schema does not compile: {e}\n{json:#}"));
    for sample in &samples {
        if let Some(error) = validator.iter_errors(sample).next() {
            panic!("{sample} is not accepted by its own schema: {error}\n{json:#}");
        }
    }
}
