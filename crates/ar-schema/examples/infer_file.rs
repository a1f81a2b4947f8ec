//! Infers one schema from a JSON or JSON Lines file, prints how many samples it took and, with
//! `RENDER=1` in the environment, renders it as JSON Schema: a small, fixed workload for
//! instruction-count profiling, e.g.
//!
//! `valgrind --tool=callgrind target/release/examples/infer_file benches/schema/data/small-samples.jsonl`

#![expect(
    clippy::disallowed_methods,
    reason = "an example is a caller: it reads the file and the arguments the crate does not"
)]

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: infer_file FILE")?;
    let bytes = std::fs::read(&path)?;
    let mut builder = ar_schema::SchemaBuilder::new();
    let added = builder.add_json_stream(&bytes)?;
    let schema = builder.finish();
    if std::env::var_os("RENDER").is_some() {
        let out = schema.to_json_schema();
        println!("{} bytes of JSON Schema", out.to_string().len());
    }
    println!("{path}: {added} documents, {} samples", schema.samples());
    Ok(())
}
